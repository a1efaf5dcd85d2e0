"""Correct, another way: one row at a time in plain Python floats (math.fsum), shifted by the row maximum.

Slow for big batches but exact to rounding; results go back to the input's dtype and device. The
sampler keeps a running mean and sum of squared deviations (Welford) over each row's draws.
"""

import math

import torch


def _rows(log_p, log_q, *others):
    tensors = (log_p, log_q, *others)
    if not all(isinstance(t, torch.Tensor) and t.dim() == 2 and t.is_floating_point() for t in tensors):
        raise ValueError("inputs must be 2-D floating tensors [B, N]")
    if any(t.shape != log_p.shape or t.dtype != log_p.dtype for t in tensors) or log_p.shape[1] < 1:
        raise ValueError("inputs must share one shape [B, N], N >= 1, and one dtype")
    if not all(bool(torch.isfinite(t).all()) for t in tensors):
        raise ValueError("inputs must be finite")
    log_w = (log_p - log_q).to(torch.float64).tolist()
    return log_w, [t.to(torch.float64).tolist() for t in others]


def _out(values, like):
    return torch.tensor(values, dtype=torch.float64).to(dtype=like.dtype, device=like.device)


def importance_estimates(log_p, log_q, f):
    log_w, (values,) = _rows(log_p, log_q, f)
    ordinary, self_normalized = [], []
    for lw, fs in zip(log_w, values, strict=True):
        top = max(lw)
        s = [math.exp(v - top) for v in lw]
        weighted = math.fsum(a * b for a, b in zip(s, fs, strict=True))
        try:
            ordinary.append(math.exp(top) * (weighted / len(lw)))
        except OverflowError:
            ordinary.append(math.copysign(math.inf, weighted))
        self_normalized.append(weighted / math.fsum(s))
    return _out(ordinary, log_p), _out(self_normalized, log_p)


def effective_sample_size(log_p, log_q):
    log_w, _ = _rows(log_p, log_q)
    out = []
    for lw in log_w:
        top = max(lw)
        s = [math.exp(v - top) for v in lw]
        out.append(math.fsum(s) ** 2 / math.fsum(v * v for v in s))
    return _out(out, log_p)


def truncated_estimate(log_p, log_q, f, cap):
    if isinstance(cap, bool) or not isinstance(cap, (int, float)) or not (0 < cap < math.inf):
        raise ValueError(f"cap must be a finite number > 0, got {cap!r}")
    log_w, (values,) = _rows(log_p, log_q, f)
    log_cap = math.log(cap)
    out = [
        math.fsum(math.exp(min(v, log_cap)) * b for v, b in zip(lw, fs, strict=True)) / len(lw)
        for lw, fs in zip(log_w, values, strict=True)
    ]
    return _out(out, log_p)


def sample_estimate(p, q, f, num_samples, cap=None, generator=None):
    if not all(isinstance(t, torch.Tensor) and t.dim() == 2 and t.is_floating_point() for t in (p, q, f)):
        raise ValueError("p, q and f must be 2-D floating tensors [B, V]")
    if q.shape != p.shape or f.shape != p.shape or q.dtype != p.dtype or f.dtype != p.dtype:
        raise ValueError("p, q and f must share one shape and one dtype")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 2:
        raise ValueError("num_samples must be an integer >= 2")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or not (0 < cap < math.inf)):
        raise ValueError(f"cap must be a finite number > 0, got {cap!r}")
    if not all(bool(torch.isfinite(t).all()) for t in (p, q, f)) or bool((p < 0).any() | (q < 0).any()):
        raise ValueError("p, q and f must be finite, p and q >= 0")
    if bool(((q == 0) & (p > 0)).any()):
        raise ValueError("q must cover p")
    if not bool((q > 0).any(dim=1).all()):
        raise ValueError("a row of q has no positive value: nothing can be drawn from it")
    draws = torch.multinomial(q, num_samples, replacement=True, generator=generator).tolist()
    ps, qs, fs = (t.to(torch.float64).tolist() for t in (p, q, f))
    means, errors = [], []
    for b, row in enumerate(draws):
        mean = m2 = 0.0
        for i, x in enumerate(row, start=1):
            w = ps[b][x] / qs[b][x]
            value = (w if cap is None else min(w, cap)) * fs[b][x]
            delta = value - mean
            mean += delta / i
            m2 += delta * (value - mean)
        means.append(mean)
        errors.append(math.sqrt(m2 / (num_samples - 1) / num_samples))
    return _out(means, p), _out(errors, p)
