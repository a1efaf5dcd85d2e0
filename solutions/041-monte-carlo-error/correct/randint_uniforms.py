"""Another correct solution (from the red team, written from the statement alone): uniforms of 53 random
bits from torch.randint(0, 2**53) (a draw site the judge pushes to 0 and 2**53 - 1), an inverse CDF
on the float64 cumulative sum, the standard error with divisor n - 1 (and 0 at one draw), and
torch.var_mean in the input's dtype.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import torch


def mean_and_standard_error(samples):
    if not isinstance(samples, torch.Tensor) or samples.ndim != 2 or not samples.dtype.is_floating_point:
        raise ValueError("samples must be a floating tensor [B, n]")
    if samples.shape[-1] < 2:
        raise ValueError("n must be >= 2")
    if (~torch.isfinite(samples)).any():
        raise ValueError("samples must be finite")
    var, mean = torch.var_mean(samples, dim=-1, unbiased=True)
    return mean, torch.sqrt(var / samples.shape[-1])


def estimate_probability(probs, event, num_samples, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
        raise ValueError("num_samples must be an int")
    if num_samples < 1:
        raise ValueError("num_samples must be >= 1")
    if not isinstance(probs, torch.Tensor) or probs.ndim != 2 or not probs.dtype.is_floating_point:
        raise ValueError("probs must be a floating tensor [B, V]")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or event.shape != probs.shape:
        raise ValueError("event must be a bool tensor [B, V]")
    if (~torch.isfinite(probs)).any() or (probs < 0).any():
        raise ValueError("probs must be finite and non-negative")
    n = int(num_samples)
    cdf = probs.to(torch.float64).cumsum(-1)
    if (cdf[:, -1] <= 0).any():
        raise ValueError("a row of probs sums to 0")
    bits = torch.randint(0, 2**53, (probs.shape[0], n), generator=generator, device=probs.device, dtype=torch.int64)
    u = bits.to(torch.float64) * 2.0**-53  # uniform on [0, 1)
    tok = torch.searchsorted(cdf, u * cdf[:, -1:], right=True).clamp(max=probs.shape[1] - 1)
    k = event.gather(-1, tok).sum(-1)
    est = k.to(torch.float64) / n
    # p_hat is 0 or 1 when n = 1: its standard error is 0.
    se = torch.sqrt(est * (1 - est) / (n - 1)) if n > 1 else torch.zeros_like(est)
    return est.to(probs.dtype), se.to(probs.dtype)


def samples_needed(delta, sigma, num_se):
    fr = {}
    for name, v in {"delta": delta, "sigma": sigma, "num_se": num_se}.items():
        try:
            ok = not isinstance(v, bool) and isinstance(v, numbers.Real) and math.isfinite(v) and v > 0
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"{name} must be a finite number > 0 (got {v!r})")
        fr[name] = Fraction(v) if isinstance(v, (int, float)) else Fraction(float(v))
    bound = 2 * (fr["num_se"] * fr["sigma"] / fr["delta"]) ** 2
    return math.floor(bound) + 1
