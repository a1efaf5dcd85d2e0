"""Monte Carlo error with torch.var_mean and a Gumbel-max draw of the tokens."""

import math

import torch


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor) or samples.dim() != 2:
        raise ValueError("samples has to be a [B, n] tensor")
    if not samples.dtype.is_floating_point:
        raise ValueError("samples has to be floating point")
    if samples.shape[-1] < 2:
        raise ValueError("n has to be 2 or more")
    if torch.isnan(samples).any() or torch.isinf(samples).any():
        raise ValueError("samples has to be finite")
    variance, mean = torch.var_mean(samples, dim=-1, correction=1)
    return mean, torch.sqrt(variance / samples.shape[-1])


def estimate_probability(probs, event, num_samples, generator=None):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 2 or not probs.dtype.is_floating_point:
        raise ValueError("probs has to be a floating [B, V] tensor")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("event has to be a bool tensor of the same shape")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples has to be a positive integer")
    if torch.isnan(probs).any() or torch.isinf(probs).any() or (probs < 0).any():
        raise ValueError("probs has to be finite and >= 0")
    if (probs.sum(-1) <= 0).any():
        raise ValueError("each row of probs needs a positive total")
    batch, vocabulary = probs.shape
    log_weights = torch.log(probs.to(torch.float64)).unsqueeze(1)  # [B, 1, V]; log 0 = -inf never wins
    u = torch.rand(batch, num_samples, vocabulary, generator=generator, dtype=torch.float64, device=probs.device)
    gumbel = -torch.log(-torch.log(u))  # u = 0 gives -inf: that token just loses this draw
    winners = torch.argmax(log_weights + gumbel, dim=-1)  # [B, num_samples]
    rows = torch.arange(batch, device=probs.device).unsqueeze(1)
    count = event[rows, winners].sum(dim=-1)
    estimate = count.to(probs.dtype) / num_samples
    return estimate, torch.sqrt(estimate * (1.0 - estimate) / num_samples)


def samples_needed(delta, sigma, num_se):
    values = {"delta": delta, "sigma": sigma, "num_se": num_se}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number")
        if not math.isfinite(value) or not value > 0:
            raise ValueError(f"{name} must be finite and positive")
    # Exact integer arithmetic: every float is p / q with q a power of two.
    (a, b), (c, d), (e, f) = (float(v).as_integer_ratio() for v in (num_se, sigma, delta))
    numerator = 2 * (a * c * f) ** 2
    denominator = (b * d * e) ** 2
    return numerator // denominator + 1
