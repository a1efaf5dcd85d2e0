"""A correct sampler built differently: rows filtered one at a time in the logits' dtype, 53-bit uniforms
built from torch.randint, and a binary search of its own for the first cumulative value above u.

Written by an independent red team from the statement alone. Changed since to refuse an infinite
top_k, which the statement then required; it now leaves it open, and the refusal may stay.
"""

import operator

import torch


def _row_params(val, B, name):
    if isinstance(val, torch.Tensor):
        if val.ndim != 1 or val.numel() != B:
            raise ValueError(f"{name} must be a 1-D tensor with {B} entries")
        return val.detach().double().cpu()
    if isinstance(val, bool) or not isinstance(val, (int, float)):
        raise ValueError(f"{name} must be a number or a 1-D tensor")
    return torch.full((B,), float(val), dtype=torch.float64)


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    if not isinstance(logits, torch.Tensor):
        raise ValueError("logits must be a torch.Tensor")
    if logits.ndim != 2:
        raise ValueError("logits must be 2-D")
    if logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be float32 or float64")
    B, V = logits.shape
    T = _row_params(temperature, B, "temperature")
    K = _row_params(top_k, B, "top_k")
    P = _row_params(top_p, B, "top_p")
    M = _row_params(min_p, B, "min_p")
    if torch.isnan(logits).any():
        raise ValueError("logits has NaN")
    if torch.isposinf(logits).any():
        raise ValueError("logits has +inf")
    if V == 0 or not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("a row of logits has no finite entry")
    if (T < 0).any() or not torch.isfinite(T).all():
        raise ValueError("temperature must be a finite number >= 0")
    if (K < 0).any() or not torch.isfinite(K).all() or (K.trunc() != K).any():
        raise ValueError("top_k must be a whole number >= 0")
    if ((P <= 0) | (P > 1) | P.isnan()).any():
        raise ValueError("top_p must be in (0, 1]")
    if ((M < 0) | (M >= 1) | M.isnan()).any():
        raise ValueError("min_p must be in [0, 1)")

    dt = logits.dtype
    out = torch.zeros(B, V, dtype=dt, device=logits.device)
    for b in range(B):
        z = logits[b]
        t, k, pp, mp = float(T[b]), int(K[b]), float(P[b]), float(M[b])
        if t == 0.0:
            out[b, int(z.argmax())] = 1
            continue
        zz = (z - z.max()) / t
        p = torch.softmax(zz, dim=0)
        if 0 < k < V:
            kth = torch.sort(p, descending=True).values[k - 1]
            p = p * (p >= kth)
            p = p / p.sum()
        if pp < 1.0:
            sp, si = torch.sort(p, descending=True)
            excl = sp.cumsum(0) - sp
            keep = torch.zeros(V, dtype=torch.bool, device=p.device)
            keep[si] = excl < pp
            keep[si[0]] = True
            p = p * keep
            p = p / p.sum()
        if mp > 0.0:
            p = p * (p >= mp * p.max())
            p = p / p.sum()
        out[b] = p
    return out


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    try:
        if isinstance(num_samples, bool):
            raise TypeError
        n = operator.index(num_samples)
    except TypeError:
        raise ValueError("num_samples must be an integer") from None
    if n < 1:
        raise ValueError("num_samples must be >= 1")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p)
    B, V = probs.shape
    C = probs.double().cumsum(1)
    F = C / C[:, -1:]
    bits = torch.randint(0, 2**53, (B, n), generator=generator, device=logits.device)
    u = bits.double() / 2.0**53
    # own binary search for the number of steps F(x) <= u, i.e. the first x with F(x) > u
    lo = torch.zeros(B, n, dtype=torch.int64, device=logits.device)
    hi = torch.full((B, n), V - 1, dtype=torch.int64, device=logits.device)  # F(V-1) = 1 > u
    while bool((lo < hi).any()):
        mid = (lo + hi) // 2
        le = F.gather(1, mid) <= u
        lo = torch.where(le, mid + 1, lo)
        hi = torch.where(le, hi, mid)
    return lo
