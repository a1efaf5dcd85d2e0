"""Monte Carlo error: the count of draws inside the event drawn at once from a binomial."""

import math
from fractions import Fraction

import torch


def _check_table(x, name):
    if type(x) is not torch.Tensor and not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} is not a tensor")
    if x.dim() != 2:
        raise ValueError(f"{name} must have two dimensions")
    if not x.is_floating_point():
        raise ValueError(f"{name} must be floating point")
    if torch.isnan(x).any() or torch.isinf(x).any():
        raise ValueError(f"{name} must be finite")


def mean_and_standard_error(samples):
    _check_table(samples, "samples")
    n = samples.shape[1]
    if n < 2:
        raise ValueError("samples needs two or more columns")
    m = samples.sum(dim=1) / n
    deviation = samples - m[:, None]
    s2 = deviation.square().sum(dim=1) / (n - 1)
    return m, (s2 / n) ** 0.5


def estimate_probability(probs, event, num_samples, generator=None):
    _check_table(probs, "probs")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("event must be a bool mask with the shape of probs")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be at least 1")
    if (probs < 0).any():
        raise ValueError("probs must be >= 0")
    row_sums = probs.double().sum(dim=1)
    if (row_sums <= 0).any():
        raise ValueError("probs has a row with sum 0")
    p_event = (probs.double() * event).sum(dim=1) / row_sums
    p_event = p_event.clamp(0.0, 1.0)
    trials = torch.full_like(p_event, float(num_samples))
    k = torch.binomial(trials, p_event, generator=generator)
    estimate = (k / num_samples).to(probs.dtype)
    return estimate, torch.sqrt(estimate * (1 - estimate) / num_samples)


def samples_needed(delta, sigma, num_se):
    args = (delta, sigma, num_se)
    if any(isinstance(a, bool) or not isinstance(a, (int, float)) for a in args):
        raise ValueError("delta, sigma and num_se must be numbers")
    if not all(math.isfinite(a) and a > 0 for a in args):
        raise ValueError("delta, sigma and num_se must be finite and > 0")
    q = 2 * (Fraction(num_se) * Fraction(sigma) / Fraction(delta)) ** 2
    return math.floor(q) + 1
