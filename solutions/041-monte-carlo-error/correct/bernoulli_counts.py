"""Another correct solution: torch.var for the mean's error, and the event's count drawn as n coin flips.

The number of draws that land in the event is Binomial(n, P(event)), so flipping n coins of
probability P(event) = sum of probs over the event / sum of probs gives the same estimate in law.
"""

import math
from fractions import Fraction

import torch


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor) or samples.dim() != 2 or not samples.is_floating_point():
        raise ValueError("samples must be a 2-D floating tensor [B, n]")
    if samples.shape[1] < 2 or not bool(torch.isfinite(samples).all()):
        raise ValueError("samples need n >= 2 finite values per row")
    n = samples.shape[1]
    return samples.mean(dim=1), (samples.var(dim=1) / n).sqrt()


def estimate_probability(probs, event, num_samples, generator=None):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 2 or not probs.is_floating_point():
        raise ValueError("probs must be a 2-D floating tensor [B, V]")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("event must be a bool tensor of the shape of probs")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be an integer >= 1")
    if not bool(torch.isfinite(probs).all()) or bool((probs < 0).any()) or bool((probs.sum(dim=1) <= 0).any()):
        raise ValueError("probs must be finite, >= 0, with a positive sum per row")
    p_event = (probs * event).sum(dim=1, dtype=torch.float64) / probs.sum(dim=1, dtype=torch.float64)
    u = torch.rand(probs.shape[0], num_samples, generator=generator, dtype=torch.float64, device=probs.device)
    hits = (u < p_event.unsqueeze(1)).sum(dim=1)
    estimate = hits.to(probs.dtype) / num_samples
    return estimate, torch.sqrt(estimate * (1 - estimate) / num_samples)


def samples_needed(delta, sigma, num_se):
    for value in (delta, sigma, num_se):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError("delta, sigma and num_se must be finite numbers > 0")
    ratio = Fraction(num_se) * Fraction(sigma) / Fraction(delta)
    return int(2 * ratio * ratio) + 1  # int() floors a positive Fraction
