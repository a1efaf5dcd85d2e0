"""Another correct solution: the count drawn at once with torch.binomial(n, P(event)), P(event) normalized by
the row's sum; k has the same law as the count of n categorical draws.
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
    weights = probs.double()  # torch.binomial has no half-precision kernel; float64 keeps P(event) exact enough
    p = (weights * event).sum(1) / weights.sum(1)
    hits = torch.binomial(torch.full_like(p, num_samples), p.clamp(0, 1), generator=generator)
    estimate = (hits / num_samples).to(probs.dtype)
    return estimate, torch.sqrt(estimate * (1 - estimate) / num_samples)


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
