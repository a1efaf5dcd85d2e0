"""Correct, another way (from the issue-30 red team, written from the statement alone).

A learner's row loop: validation through its own InputError(ValueError) in
another order (dtypes before ranks, cap and num_samples first); the deterministic functions
loop over rows; sample_estimate draws all rows with one torch.multinomial(q, n,
replacement=True, generator=generator) and gets the standard error by the explicit two-pass
formula sqrt(sum (y - mean)^2 / (n - 1) / n).
"""

import math
import numbers

import torch


class InputError(ValueError):
    """Bad input for the importance-sampling functions."""


def _tensors(*ts):
    for t in ts:
        if not torch.is_tensor(t):
            raise InputError("not a tensor")
        if not t.dtype.is_floating_point:
            raise InputError("not floating")
    for t in ts:
        if t.dtype != ts[0].dtype:
            raise InputError("dtypes differ")
    for t in ts:
        if t.dim() != 2:
            raise InputError("not 2-D")
        if tuple(t.shape) != tuple(ts[0].shape):
            raise InputError("shapes differ")
        if t.device != ts[0].device:
            raise InputError("devices differ")
    for t in ts:
        if torch.isnan(t).any() or torch.isinf(t).any():
            raise InputError("NaN or inf")
    if ts[0].shape[1] == 0:
        raise InputError("empty rows")


def _is_cap(cap):
    if isinstance(cap, bool) or not isinstance(cap, (int, float, numbers.Real)):
        return False
    return math.isfinite(cap) and cap > 0


def importance_estimates(log_p, log_q, f):
    _tensors(log_p, log_q, f)
    B, N = log_p.shape
    ordinary = torch.empty(B, dtype=log_p.dtype, device=log_p.device)
    sn = torch.empty_like(ordinary)
    for b in range(B):
        lw = log_p[b] - log_q[b]
        m = lw.max()
        w = torch.exp(lw - m)
        s = torch.dot(w, f[b])
        sn[b] = s / w.sum()
        ordinary[b] = (s / N) * torch.exp(m)
    return ordinary, sn


def effective_sample_size(log_p, log_q):
    _tensors(log_p, log_q)
    out = torch.empty(log_p.shape[0], dtype=log_p.dtype, device=log_p.device)
    for b in range(log_p.shape[0]):
        lw = log_p[b] - log_q[b]
        w = torch.exp(lw - lw.max())
        out[b] = w.sum() ** 2 / torch.dot(w, w)
    return out


def truncated_estimate(log_p, log_q, f, cap):
    if not _is_cap(cap):
        raise InputError("cap must be a finite number > 0")
    _tensors(log_p, log_q, f)
    logc = math.log(cap)
    out = torch.empty(log_p.shape[0], dtype=log_p.dtype, device=log_p.device)
    for b in range(log_p.shape[0]):
        lw = torch.clamp(log_p[b] - log_q[b], max=logc)
        out[b] = torch.dot(torch.exp(lw), f[b]) / lw.numel()
    return out


def sample_estimate(p, q, f, num_samples, cap=None, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
        raise InputError("num_samples must be an int")
    if num_samples < 2:
        raise InputError("num_samples must be at least 2")
    if cap is not None and not _is_cap(cap):
        raise InputError("cap must be None or a finite number > 0")
    _tensors(p, q, f)
    if (p < 0).any() or (q < 0).any():
        raise InputError("negative probabilities")
    if ((q == 0) & (p > 0)).any():
        raise InputError("q does not cover p")
    n = int(num_samples)
    if not bool((q.sum(1) > 0).all()):
        raise InputError("row of q without mass")
    # the draws for all rows at once (a per-row loop is too slow for large batches)
    idx = torch.multinomial(q, n, replacement=True, generator=generator)  # [B, n]
    pos = q > 0
    w = torch.zeros_like(p)
    w[pos] = p[pos] / q[pos]
    if cap is not None:
        w = torch.clamp(w, max=cap)
    y = torch.gather(w, 1, idx) * torch.gather(f, 1, idx)
    mean = y.sum(1) / n
    var = ((y - mean[:, None]) ** 2).sum(1) / (n - 1)
    return mean, torch.sqrt(var / n)
