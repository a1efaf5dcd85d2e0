"""Monte Carlo error one row at a time, the sums in float64, and torch.multinomial per row."""

import math
from fractions import Fraction

import torch


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor) or len(samples.shape) != 2 or not samples.is_floating_point():
        raise ValueError("expected samples as a floating tensor of shape [B, n]")
    batch, n = samples.shape
    if n < 2:
        raise ValueError(f"expected n >= 2, got n = {n}")
    if not bool(torch.isfinite(samples).all()):
        raise ValueError("expected finite samples")
    means, errors = [], []
    for row in samples.to(torch.float64):
        centre = row.sum() / n
        squares = ((row - centre) ** 2).sum()
        means.append(centre)
        errors.append(torch.sqrt(squares / (n - 1) / n))
    if batch == 0:
        empty = samples.new_zeros(0)
        return empty, empty.clone()
    return torch.stack(means).to(samples.dtype), torch.stack(errors).to(samples.dtype)


def estimate_probability(probs, event, num_samples, generator=None):
    if not isinstance(probs, torch.Tensor) or len(probs.shape) != 2 or not probs.is_floating_point():
        raise ValueError("expected probs as a floating tensor of shape [B, V]")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("expected event as a bool tensor of the shape of probs")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("expected num_samples >= 1")
    if not bool(torch.isfinite(probs).all()) or bool((probs < 0).any()):
        raise ValueError("expected finite, non-negative probs")
    if bool((probs.sum(dim=1) <= 0).any()):
        raise ValueError("expected a positive sum in every row")
    estimates = []
    for b in range(probs.shape[0]):
        tokens = torch.multinomial(probs[b], num_samples, replacement=True, generator=generator)
        estimates.append(event[b][tokens].sum().item() / num_samples)
    estimate = torch.tensor(estimates, dtype=probs.dtype, device=probs.device)
    return estimate, (estimate * (1 - estimate) / num_samples).sqrt()


def samples_needed(delta, sigma, num_se):
    exact = []
    for name, value in (("delta", delta), ("sigma", sigma), ("num_se", num_se)):
        if type(value) not in (int, float) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"{name}: expected a finite number > 0, got {value!r}")
        exact.append(Fraction(value))
    d, s, k = exact
    return math.floor(2 * (k * s) ** 2 / d**2) + 1
