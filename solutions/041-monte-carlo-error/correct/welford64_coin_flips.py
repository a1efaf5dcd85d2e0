"""Another correct solution (from the red team, written from the statement alone): a loop over rows with
Welford's running mean kept in Python floats (float64), one coin flip per draw with the event's
probability, and the standard error as torch.std of the 0/1 indicators (divisor n - 1) with 0 where the
estimate is 0 or 1, so one draw gives 0, never torch.std's NaN.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import torch


def _welford(values):
    mean, m2 = 0.0, 0.0
    for i, v in enumerate(values, start=1):
        d = v - mean
        mean += d / i
        m2 += d * (v - mean)
    return mean, m2


def mean_and_standard_error(samples):
    if not (
        isinstance(samples, torch.Tensor)
        and samples.dim() == 2
        and samples.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64)
    ):
        raise ValueError("samples: expected a 2-D floating tensor")
    B, n = samples.shape
    if n < 2:
        raise ValueError("samples: need n >= 2")
    if not bool(torch.isfinite(samples).all()):
        raise ValueError("samples: NaN or infinite value")
    means, ses = [], []
    for row in samples.detach().cpu().to(torch.float64).tolist():
        m, m2 = _welford(row)
        means.append(m)
        ses.append(math.sqrt(m2 / (n - 1) / n))
    mean = torch.tensor(means, dtype=samples.dtype, device=samples.device)
    se = torch.tensor(ses, dtype=samples.dtype, device=samples.device)
    return mean, se


def estimate_probability(probs, event, num_samples, generator=None):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 2 or not torch.is_floating_point(probs):
        raise ValueError("probs: expected a 2-D floating tensor")
    if not isinstance(event, torch.Tensor) or event.dtype != torch.bool or tuple(event.shape) != tuple(probs.shape):
        raise ValueError("event: expected a bool tensor shaped like probs")
    if not torch.isfinite(probs).all():
        raise ValueError("probs: NaN or infinite value")
    if (probs < 0).any():
        raise ValueError("probs: negative value")
    if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool):
        raise ValueError("num_samples: expected an int")
    if num_samples < 1:
        raise ValueError("num_samples: must be >= 1")
    n = int(num_samples)
    p64 = probs.to(torch.float64)
    totals = p64.sum(dim=1)
    if (totals <= 0).any():
        raise ValueError("probs: a row sums to 0")
    in_event = torch.where(event, p64, torch.zeros_like(p64)).sum(dim=1)
    p_event = in_event / totals
    est_list, se_list = [], []
    for b in range(probs.shape[0]):
        u = torch.rand(n, dtype=torch.float64, device=probs.device, generator=generator)
        ind = (u < p_event[b]).to(torch.float64)
        p_hat = ind.mean()
        if p_hat.item() in (0.0, 1.0):
            se = torch.zeros((), dtype=torch.float64, device=probs.device)
        else:
            se = ind.std() / math.sqrt(n)  # torch.std: divisor n - 1
        est_list.append(p_hat)
        se_list.append(se)
    if est_list:
        est = torch.stack(est_list)
        se = torch.stack(se_list)
    else:
        est = torch.zeros(0, dtype=torch.float64, device=probs.device)
        se = torch.zeros(0, dtype=torch.float64, device=probs.device)
    return est.to(probs.dtype), se.to(probs.dtype)


def samples_needed(delta, sigma, num_se):
    exact = []
    for name, x in (("delta", delta), ("sigma", sigma), ("num_se", num_se)):
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise ValueError(f"{name} must be a number")
        if math.isnan(x) or math.isinf(x) or x <= 0:
            raise ValueError(f"{name} must be a finite number > 0")
        exact.append(Fraction(x) if isinstance(x, (int, float)) else Fraction(float(x)))
    d, s, z = exact
    bound = 2 * z * z * s * s / (d * d)
    return int(bound // 1) + 1
