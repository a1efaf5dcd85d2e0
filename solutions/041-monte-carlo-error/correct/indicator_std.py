"""Another correct solution: the standard errors from torch.std of the samples, and of the 0/1 indicators.

torch.std divides by n - 1, so for a proportion it returns sqrt(n / (n - 1)) times the plug-in
sqrt(p_hat (1 - p_hat) / n): the statement accepts both.
"""

import math

import torch


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor) or samples.dim() != 2 or not samples.is_floating_point():
        raise ValueError("samples must be a 2-D floating tensor [B, n]")
    if samples.shape[1] < 2:
        raise ValueError("need at least two samples per row")
    if not bool(torch.isfinite(samples).all()):
        raise ValueError("samples must be finite")
    return samples.mean(dim=1), samples.std(dim=1) / math.sqrt(samples.shape[1])


def estimate_probability(probs, event, num_samples, generator=None):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 2 or not probs.is_floating_point():
        raise ValueError("probs must be a 2-D floating tensor [B, V]")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("event must be a bool tensor of the shape of probs")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be an integer >= 1")
    if not bool(torch.isfinite(probs).all()) or bool((probs < 0).any()) or bool((probs.sum(dim=1) <= 0).any()):
        raise ValueError("probs must be finite, >= 0, with a positive sum per row")
    draws = torch.multinomial(probs, num_samples, replacement=True, generator=generator)
    hit = event.gather(1, draws).to(probs.dtype)  # 1.0 where the draw is in the event
    if num_samples == 1:
        return hit[:, 0], torch.zeros_like(hit[:, 0])
    return hit.mean(dim=1), hit.std(dim=1) / math.sqrt(num_samples)


def samples_needed(delta, sigma, num_se):
    from fractions import Fraction

    for value in (delta, sigma, num_se):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError("delta, sigma and num_se must be finite numbers > 0")
    n = 1
    # Exact test of the strict inequality num_se^2 * 2 * sigma^2 < delta^2 * n, doubling then bisecting.
    fits = lambda m: 2 * (Fraction(num_se) * Fraction(sigma)) ** 2 < Fraction(delta) ** 2 * m  # noqa: E731
    while not fits(n):
        n *= 2
    low = n // 2  # fits(low) is false unless n == 1
    while n - low > 1:
        middle = (low + n) // 2
        low, n = (low, middle) if fits(middle) else (middle, n)
    return n
