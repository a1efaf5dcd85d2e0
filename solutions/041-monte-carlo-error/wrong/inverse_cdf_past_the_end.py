"""Mistake: the inverse CDF divides the cumulative sum by the row's sum(), which can exceed the cumulative
sum's last entry: a uniform just below 1 then lands past the end of the row, and the clamp hands the draw to the
last token, which may have weight 0.

Diagnosis: a draw site fails at an extreme uniform (0 or the largest float below 1)
"""

import math
from fractions import Fraction

import torch


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor) or samples.dim() != 2 or not samples.is_floating_point():
        raise ValueError("samples must be a 2-D floating tensor [B, n]")
    n = samples.shape[1]
    if n < 2:
        raise ValueError(f"a standard error needs n >= 2 samples per row, got {n}")
    if not bool(torch.isfinite(samples).all()):
        raise ValueError("samples must be finite")
    mean = samples.mean(dim=1)
    # Two passes: subtract the mean first, so a large offset costs no precision.
    deviations = samples - mean.unsqueeze(1)
    variance = (deviations * deviations).sum(dim=1) / (n - 1)
    return mean, (variance / n).sqrt()


def estimate_probability(probs, event, num_samples, generator=None):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 2 or not probs.is_floating_point():
        raise ValueError("probs must be a 2-D floating tensor [B, V]")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("event must be a bool tensor of the shape of probs")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be an integer >= 1, got {num_samples!r}")
    if not bool(torch.isfinite(probs).all()) or bool((probs < 0).any()):
        raise ValueError("probs must be finite and >= 0")
    if bool((probs.sum(dim=1) <= 0).any()):
        raise ValueError("every row of probs needs a positive sum")
    cdf = probs.double().cumsum(1) / probs.double().sum(1, keepdim=True)
    u = torch.rand(probs.shape[0], num_samples, generator=generator, dtype=torch.float64)
    draws = torch.searchsorted(cdf, u, right=True).clamp(max=probs.shape[1] - 1)
    hits = event.gather(1, draws).sum(dim=1)
    estimate = hits.to(probs.dtype) / num_samples
    return estimate, (estimate * (1 - estimate) / num_samples).sqrt()


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return Fraction(value)  # exact: a float is a binary fraction


def samples_needed(delta, sigma, num_se):
    delta, sigma, num_se = _positive("delta", delta), _positive("sigma", sigma), _positive("num_se", num_se)
    # num_se * sqrt(2) * sigma / sqrt(n) < delta  <=>  n > 2 (num_se sigma / delta)^2, in exact arithmetic.
    bound = 2 * (num_se * sigma / delta) ** 2
    return math.floor(bound) + 1
