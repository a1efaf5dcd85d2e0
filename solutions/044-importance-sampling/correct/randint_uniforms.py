"""Correct, another way (from the issue-30 red team, written from the statement alone).

Uniforms built from torch.randint(0, 2**53, generator=generator) * 2**-53;
draws by inverse CDF (torch.searchsorted right=True against u * cdf[-1], cdf in float64);
ESS = exp(2 logsumexp(l) - logsumexp(2 l)); the ordinary and self-normalised estimates come
from max-shifted weights. se from torch.var_mean(correction=1).
"""

import math
import numbers

import torch

_U = 2.0**-53


def _check(*ts):
    if not all(isinstance(t, torch.Tensor) for t in ts):
        raise ValueError("tensors expected")
    if not all(t.dim() == 2 for t in ts):
        raise ValueError("2-D tensors expected")
    if not all(t.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64) for t in ts):
        raise ValueError("floating tensors expected")
    if len({t.dtype for t in ts}) != 1 or len({tuple(t.shape) for t in ts}) != 1:
        raise ValueError("dtypes or shapes differ")
    if len({t.device for t in ts}) != 1:
        raise ValueError("devices differ")
    if ts[0].shape[1] < 1:
        raise ValueError("N >= 1 needed")
    if not all(bool(torch.isfinite(t).all()) for t in ts):
        raise ValueError("NaN or infinite values")


def _cap(cap):
    ok = isinstance(cap, numbers.Real) and not isinstance(cap, bool)
    if not ok or math.isnan(cap) or math.isinf(cap) or cap <= 0:
        raise ValueError("cap must be a finite number > 0")
    return float(cap)


def importance_estimates(log_p, log_q, f):
    _check(log_p, log_q, f)
    lw = log_p - log_q
    m = torch.amax(lw, 1)
    w = torch.exp(lw - m[:, None])
    a = torch.sum(w * f, 1)
    return torch.exp(m) * (a / lw.shape[1]), a / torch.sum(w, 1)


def effective_sample_size(log_p, log_q):
    _check(log_p, log_q)
    lw = log_p - log_q
    return torch.exp(2 * torch.logsumexp(lw, 1) - torch.logsumexp(2 * lw, 1))


def truncated_estimate(log_p, log_q, f, cap):
    _check(log_p, log_q, f)
    c = _cap(cap)
    return torch.mean(
        torch.exp(torch.minimum(log_p - log_q, torch.tensor(math.log(c), dtype=log_p.dtype, device=log_p.device))) * f,
        1,
    )


def sample_estimate(p, q, f, num_samples, cap=None, generator=None):
    _check(p, q, f)
    if type(num_samples) is bool or not isinstance(num_samples, numbers.Integral) or num_samples < 2:
        raise ValueError("num_samples must be an integer >= 2")
    c = None if cap is None else _cap(cap)
    if bool((p < 0).any() | (q < 0).any()):
        raise ValueError("negative p or q")
    if bool(((q == 0) & (p != 0)).any()):
        raise ValueError("q = 0 where p > 0: weight undefined")
    if bool((q.sum(1) <= 0).any()):
        raise ValueError("q row without mass")
    n = int(num_samples)
    B, V = q.shape
    cdf = q.to(torch.float64).cumsum(1)
    u = torch.randint(0, 2**53, (B, n), generator=generator, device=q.device).to(torch.float64) * _U
    idx = torch.searchsorted(cdf, u * cdf[:, -1:], right=True).clamp_(max=V - 1)
    ratio = p / torch.where(q > 0, q, torch.ones_like(q))
    w = torch.where(q > 0, ratio, torch.zeros_like(ratio))
    if c is not None:
        w = w.clamp(max=c)
    y = (w * f).gather(1, idx)
    var, mean = torch.var_mean(y, dim=1, correction=1)
    return mean, torch.sqrt(var / n)
