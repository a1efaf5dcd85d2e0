"""Correct, another way (from the issue-30 red team, written from the statement alone).

Does every computation in float64 and casts the results back to the inputs'
dtype. sample_estimate draws by the exponential race argmax_v q(v) / E_v with
E ~ Exp(1) from Tensor.exponential_(generator=generator), in chunks of draws to bound memory;
outcomes with q = 0 score 0 and never win.
"""

import math
import numbers

import torch


def _check(*ts):
    for t in ts:
        if not isinstance(t, torch.Tensor):
            raise ValueError("tensor expected")
        if not t.is_floating_point():
            raise ValueError("floating tensor expected")
        if t.dim() != 2:
            raise ValueError("2-D tensor expected")
    if any(t.shape != ts[0].shape for t in ts):
        raise ValueError("shapes differ")
    if any(t.dtype != ts[0].dtype for t in ts):
        raise ValueError("dtypes differ")
    if any(t.device != ts[0].device for t in ts):
        raise ValueError("devices differ")
    if ts[0].shape[1] < 1:
        raise ValueError("N >= 1 needed")
    if any(not torch.isfinite(t).all() for t in ts):
        raise ValueError("non-finite value")


def _lw(log_p, log_q):
    return log_p.double() - log_q.double()


def importance_estimates(log_p, log_q, f):
    _check(log_p, log_q, f)
    lw = _lw(log_p, log_q)
    m = lw.amax(1, keepdim=True)
    w = (lw - m).exp()
    f64 = f.double()
    swf = (w * f64).sum(1)
    sn = swf / w.sum(1)
    ordinary = swf / lw.shape[1] * m.squeeze(1).exp()
    return ordinary.to(log_p.dtype), sn.to(log_p.dtype)


def effective_sample_size(log_p, log_q):
    _check(log_p, log_q)
    lw = _lw(log_p, log_q)
    w = (lw - lw.amax(1, keepdim=True)).exp()
    return (w.sum(1).square() / w.square().sum(1)).to(log_p.dtype)


def _cap_ok(cap):
    return not isinstance(cap, bool) and isinstance(cap, numbers.Real) and math.isfinite(cap) and cap > 0


def truncated_estimate(log_p, log_q, f, cap):
    _check(log_p, log_q, f)
    if not _cap_ok(cap):
        raise ValueError("cap must be a finite number > 0")
    lw = _lw(log_p, log_q).clamp(max=math.log(cap))
    return (lw.exp() * f.double()).mean(1).to(log_p.dtype)


def _race(q64, n, generator, chunk_elems=1 << 22):
    B, V = q64.shape
    per = max(1, chunk_elems // max(1, B * V))
    out = []
    done = 0
    while done < n:
        k = min(per, n - done)
        e = torch.empty((B, k, V), dtype=torch.float64, device=q64.device).exponential_(1.0, generator=generator)
        out.append((q64.unsqueeze(1) / e).argmax(-1))
        done += k
    return torch.cat(out, 1)


def sample_estimate(p, q, f, num_samples, cap=None, generator=None):
    _check(p, q, f)
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
        raise ValueError("num_samples must be an integer")
    if num_samples < 2:
        raise ValueError("num_samples must be >= 2")
    if cap is not None and not _cap_ok(cap):
        raise ValueError("cap must be None or a finite number > 0")
    if (p < 0).any() or (q < 0).any():
        raise ValueError("negative probability")
    if ((q == 0) & (p > 0)).any():
        raise ValueError("q = 0 where p > 0")
    if (q.sum(1) <= 0).any():
        raise ValueError("empty row of q")
    n = int(num_samples)
    p64, q64, f64 = p.double(), q.double(), f.double()
    w = torch.where(q64 > 0, p64 / torch.where(q64 > 0, q64, 1.0), 0.0)
    if cap is not None:
        w = w.clamp(max=float(cap))
    idx = _race(q64, n, generator)
    y = (w * f64).gather(1, idx)
    est = y.mean(1)
    se = ((y - est[:, None]).square().sum(1) / (n - 1)).sqrt() / math.sqrt(n)
    return est.to(p.dtype), se.to(p.dtype)
