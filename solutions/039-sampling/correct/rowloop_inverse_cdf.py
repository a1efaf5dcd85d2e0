"""A correct sampler built differently: a Python loop over rows, each filtered in float64, and an inverse CDF
(float64 prefix sums divided by their last entry, searchsorted(..., right=True)).

Written by an independent red team from the statement alone. Changed since to refuse an infinite
top_k, which the statement then required; it now leaves it open, and the refusal may stay.
"""

import math

import torch


class InputError(ValueError):
    pass


def _values(x, B, name):
    """List of B Python numbers."""
    if torch.is_tensor(x):
        if x.ndim != 1:
            raise InputError(f"{name}: a tensor parameter must be 1-D, got {x.ndim}-D")
        if len(x) != B:
            raise InputError(f"{name}: expected {B} values, got {len(x)}")
        return [float(v) for v in x.detach().cpu().tolist()]
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return [float(x)] * B
    raise InputError(f"{name}: expected a number or a tensor")


def _validate(logits, temperature, top_k, top_p, min_p):
    if not torch.is_tensor(logits):
        raise InputError("logits must be a tensor")
    if logits.ndim != 2:
        raise InputError(f"logits must be [B, V], got {tuple(logits.shape)}")
    if logits.dtype not in (torch.float32, torch.float64):
        raise InputError("logits must be float32 or float64")
    B, V = logits.shape
    if V == 0:
        raise InputError("empty vocabulary")
    Ts = _values(temperature, B, "temperature")
    Ks = _values(top_k, B, "top_k")
    Ps = _values(top_p, B, "top_p")
    Ms = _values(min_p, B, "min_p")
    for t in Ts:
        if math.isnan(t) or t < 0 or math.isinf(t):
            raise InputError(f"temperature must be >= 0 and finite, got {t}")
    for k in Ks:
        if math.isnan(k) or math.isinf(k) or k < 0 or k != int(k):
            raise InputError(f"top_k must be a non-negative integer, got {k}")
    for p in Ps:
        if not (0 < p <= 1):
            raise InputError(f"top_p must be in (0, 1], got {p}")
    for mp in Ms:
        if not (0 <= mp < 1):
            raise InputError(f"min_p must be in [0, 1), got {mp}")
    if torch.isnan(logits).any():
        raise InputError("logits contains NaN")
    if (logits == math.inf).any():
        raise InputError("logits contains +inf")
    for b in range(B):
        if not torch.isfinite(logits[b]).any():
            raise InputError(f"row {b} of logits has no finite value")
    return Ts, [int(k) for k in Ks], Ps, Ms


def _filter_row(z, T, K, P, M):
    V = z.numel()
    if T == 0:
        out = torch.zeros(V, dtype=torch.float64)
        out[int(torch.argmax(z))] = 1.0
        return out
    z = z.double()
    z = (z - z[torch.isfinite(z)].max()) / T
    p = torch.exp(z)
    p = p / p.sum()
    if 0 < K < V:
        kth = torch.topk(p, K).values[-1]
        p = torch.where(p >= kth, p, torch.zeros_like(p))
        p = p / p.sum()
    if P < 1:
        vals, idx = torch.sort(p, descending=True)
        kept = torch.zeros(V, dtype=torch.bool)
        total = 0.0
        for j in range(V):
            if total < P:
                kept[idx[j]] = True
                total += float(vals[j])
            else:
                break
        p = torch.where(kept, p, torch.zeros_like(p))
        p = p / p.sum()
    if M > 0:
        p = torch.where(p >= M * p.max(), p, torch.zeros_like(p))
        p = p / p.sum()
    return p


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    Ts, Ks, Ps, Ms = _validate(logits, temperature, top_k, top_p, min_p)
    rows = [_filter_row(logits[b].detach().cpu(), Ts[b], Ks[b], Ps[b], Ms[b]) for b in range(logits.shape[0])]
    return torch.stack(rows).to(device=logits.device, dtype=logits.dtype)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if not isinstance(num_samples, int) or isinstance(num_samples, bool):
        raise InputError("num_samples must be an int")
    if num_samples < 1:
        raise InputError("num_samples must be >= 1")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p)
    B, V = probs.shape
    cdf = probs.double().cumsum(dim=1)
    cdf = cdf / cdf[:, -1:]
    u = torch.rand(B, num_samples, generator=generator, device=logits.device, dtype=torch.float64)
    idx = torch.searchsorted(cdf, u, right=True)
    return idx.clamp(max=V - 1).long()
