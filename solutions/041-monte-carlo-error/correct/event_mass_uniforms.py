"""Monte Carlo error: the event's mass per row, then one uniform per draw compared with it."""

import math
from fractions import Fraction

import torch

_FLOAT_TYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor) or samples.dtype not in _FLOAT_TYPES or samples.ndim != 2:
        raise ValueError("mean_and_standard_error: samples must be a floating [B, n] tensor")
    n = samples.shape[1]
    if n < 2:
        raise ValueError("mean_and_standard_error: n must be at least 2")
    if not torch.isfinite(samples).all():
        raise ValueError("mean_and_standard_error: non-finite sample")
    average = torch.mean(samples, dim=1, keepdim=True)
    centred = samples - average
    sum_of_squares = torch.einsum("bn,bn->b", centred, centred)
    return average.squeeze(1), torch.sqrt(sum_of_squares / ((n - 1) * n))


def estimate_probability(probs, event, num_samples, generator=None):
    if not isinstance(probs, torch.Tensor) or probs.dtype not in _FLOAT_TYPES or probs.ndim != 2:
        raise ValueError("estimate_probability: probs must be a floating [B, V] tensor")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("estimate_probability: event must be bool, shaped like probs")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("estimate_probability: num_samples must be an int >= 1")
    if not torch.isfinite(probs).all() or (probs < 0).any():
        raise ValueError("estimate_probability: probs must be finite and >= 0")
    weights = probs.to(torch.float64)
    total = weights.sum(dim=1)
    if (total <= 0).any():
        raise ValueError("estimate_probability: a row has no mass")
    mass = torch.where(event, weights, torch.zeros_like(weights)).sum(dim=1) / total
    # The event's tokens all inside: mass 1 exactly, so u < 1 always holds.
    mass = torch.where(event.logical_or(weights == 0).all(dim=1), torch.ones_like(mass), mass)
    u = torch.rand(probs.shape[0], num_samples, dtype=torch.float64, device=probs.device, generator=generator)
    hits = (u < mass[:, None]).sum(dim=1)
    estimate = hits.to(probs.dtype) / num_samples
    return estimate, torch.sqrt(estimate * (1 - estimate) / num_samples)


def samples_needed(delta, sigma, num_se):
    for value in (delta, sigma, num_se):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("samples_needed: numbers only")
        if math.isnan(value) or math.isinf(value) or value <= 0:
            raise ValueError("samples_needed: every argument must be finite and > 0")
    bound = Fraction(2) * (Fraction(num_se) * Fraction(sigma)) ** 2 / Fraction(delta) ** 2
    return bound.numerator // bound.denominator + 1
