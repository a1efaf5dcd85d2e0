"""Another correct solution (from the red team, written from the statement alone): a learner's own
InputError(ValueError) for every refusal, validation in another order, torch.var_mean in float64 cast
back, an inverse CDF on the float64 cumulative sum scaled by its own last entry, and the bound as a
ratio of integers from float.as_integer_ratio().
"""

from __future__ import annotations

import math
import numbers

import torch


class InputError(ValueError):
    """Bad input for the Monte Carlo helpers."""


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor):
        raise InputError("samples must be a tensor")
    if not samples.is_floating_point():
        raise InputError("samples must be float32 or float64")
    if samples.ndim != 2:
        raise InputError(f"samples must be [B, n], got {tuple(samples.shape)}")
    if torch.isnan(samples).any() or torch.isinf(samples).any():
        raise InputError("samples hold NaN or inf")
    if samples.shape[1] < 2:
        raise InputError("n must be at least 2")
    x = samples.to(torch.float64)
    var, mean = torch.var_mean(x, dim=1, correction=1)
    se = (var / x.shape[1]).sqrt()
    return mean.to(samples.dtype), se.to(samples.dtype)


def _draw_tokens(probs64, num_samples, generator):
    cdf = probs64.cumsum(dim=1)  # [B, V]
    total = cdf[:, -1:]  # the same sum the search sees
    u = torch.rand(probs64.shape[0], num_samples, dtype=torch.float64, device=probs64.device, generator=generator)
    idx = torch.searchsorted(cdf, u * total, right=True)
    return idx.clamp_(max=probs64.shape[1] - 1)


def estimate_probability(probs, event, num_samples, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral) or num_samples < 1:
        raise InputError("num_samples must be an int >= 1")
    if not isinstance(probs, torch.Tensor) or not probs.is_floating_point() or probs.ndim != 2:
        raise InputError("probs must be a floating [B, V] tensor")
    if not isinstance(event, torch.Tensor) or event.dtype is not torch.bool:
        raise InputError("event must be a bool tensor")
    if event.shape != probs.shape:
        raise InputError("event must have the shape of probs")
    if not torch.isfinite(probs).all() or (probs < 0).any():
        raise InputError("probs must be finite and >= 0")
    p64 = probs.to(torch.float64)
    if (p64.sum(dim=1) == 0).any():
        raise InputError("a row of probs sums to 0")
    num_samples = int(num_samples)
    idx = _draw_tokens(p64, num_samples, generator)
    k = event.gather(1, idx).sum(dim=1).to(torch.float64)
    est = k / num_samples
    se = torch.sqrt(est * (1.0 - est) / num_samples)
    return est.to(probs.dtype), se.to(probs.dtype)


def _ratio(x, name):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise InputError(f"{name} must be a real number, got {x!r}")
    if isinstance(x, numbers.Integral):
        num, den = int(x), 1
    else:
        xf = float(x)
        if not math.isfinite(xf):
            raise InputError(f"{name} must be finite")
        num, den = xf.as_integer_ratio()
    if num <= 0:
        raise InputError(f"{name} must be > 0")
    return num, den


def samples_needed(delta, sigma, num_se):
    dn, dd = _ratio(delta, "delta")
    sn, sd = _ratio(sigma, "sigma")
    zn, zd = _ratio(num_se, "num_se")
    # bound = 2 * (z * s / d)^2 = 2 zn^2 sn^2 dd^2 / (zd^2 sd^2 dn^2), all integers
    top = 2 * (zn * sn * dd) ** 2
    bottom = (zd * sd * dn) ** 2
    return top // bottom + 1
