"""Mistake: Welford's one-pass running mean and sum of squares, updated column by column in float32: each
update of the mean rounds, and over 1 000 values near 10 000 the mean drifts by about 9 float32 epsilons.

Diagnosis: the mean drifts: a running mean updated value by value in float32 (Welford's one pass) rounds at every
step, and over many values near 10 000 that adds up beyond float32 accuracy; use the whole row's mean
(samples.mean(dim=1)) and two passes, or accumulate in float64
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
    mean = torch.zeros(samples.shape[0], dtype=samples.dtype)
    m2 = torch.zeros_like(mean)
    for j in range(n):
        x = samples[:, j]
        delta = x - mean
        mean = mean + delta / (j + 1)
        m2 = m2 + delta * (x - mean)
    return mean, (m2 / (n - 1) / n).sqrt()


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
    draws = torch.multinomial(probs, num_samples, replacement=True, generator=generator)
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
