"""Mistake: (red team) An inverse CDF correct at u = 0 that clamps a search past the rounded total to
index V - 1, which may be a filtered token.

Diagnosis: a draw site fails at an extreme uniform (0 or the largest float below 1)
"""

from __future__ import annotations

import hashlib

import torch


def _check_logits(logits):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor [B, V]")
    if not logits.is_floating_point():
        raise ValueError("logits must be a floating-point tensor")
    if torch.isnan(logits).any():
        raise ValueError("logits contains NaN")
    if torch.isposinf(logits).any():
        raise ValueError("logits contains +inf")
    if logits.shape[0] > 0 and not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("some row of logits has no finite value")


def _check_ids(x, B, name):
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be an int64 tensor, got {type(x).__name__}")
    if x.dtype != torch.int64:
        raise ValueError(f"{name} must be int64, got {x.dtype}")
    if x.dim() != 1 or x.shape[0] != B:
        raise ValueError(f"{name} must be 1-D of length {B}, got shape {tuple(x.shape)}")
    if (x < 0).any():
        raise ValueError(f"{name} holds a negative value")


def _param(x, B, name, device):
    if isinstance(x, torch.Tensor):
        if x.dim() != 1 or x.shape[0] != B:
            raise ValueError(f"{name} tensor must be 1-D of length {B}, got shape {tuple(x.shape)}")
        return x.detach().to(device=device, dtype=torch.float64)
    return torch.full((B,), float(x), dtype=torch.float64, device=device)


def _params(logits, temperature, top_k, top_p, min_p):
    B = logits.shape[0]
    dev = logits.device
    T = _param(temperature, B, "temperature", dev)
    K = _param(top_k, B, "top_k", dev)
    P = _param(top_p, B, "top_p", dev)
    M = _param(min_p, B, "min_p", dev)
    if not (torch.isfinite(T).all() and (T >= 0).all()):
        raise ValueError("temperature must be finite and >= 0")
    if not ((P > 0) & (P <= 1)).all():
        raise ValueError("top_p must lie in (0, 1]")
    if not ((M >= 0) & (M < 1)).all():
        raise ValueError("min_p must lie in [0, 1)")
    if (K < 0).any():
        raise ValueError("top_k must be >= 0")
    return T, K.to(torch.int64), P, M


def _processed(logits, T, K, P, M):
    """Return q [B, V] in the dtype of logits; greedy rows are one-hot."""
    B, V = logits.shape
    dt = logits.dtype
    greedy = T == 0
    Ts = torch.where(greedy, torch.ones_like(T), T).to(dt).unsqueeze(1)
    zmax = logits.max(dim=1, keepdim=True).values
    s = (logits - zmax) / Ts
    p = torch.softmax(s, dim=1)
    # top-k
    Kc = torch.where((K <= 0) | (K >= V), torch.full_like(K, V), K)
    sp, _ = torch.sort(p, dim=1, descending=True)
    kth = sp.gather(1, (Kc - 1).clamp(min=0).unsqueeze(1))
    p = torch.where(p >= kth, p, torch.zeros_like(p))
    p = p / p.sum(dim=1, keepdim=True)
    # top-p
    sp, idx = torch.sort(p, dim=1, descending=True)
    before = torch.cumsum(sp, dim=1) - sp
    keep_sorted = (before < P.to(dt).unsqueeze(1)) | (P == 1).unsqueeze(1)
    keep = torch.zeros_like(keep_sorted).scatter(1, idx, keep_sorted)
    p = torch.where(keep, p, torch.zeros_like(p))
    p = p / p.sum(dim=1, keepdim=True)
    # min-p
    pmax = p.max(dim=1, keepdim=True).values
    p = torch.where(p >= M.to(dt).unsqueeze(1) * pmax, p, torch.zeros_like(p))
    p = p / p.sum(dim=1, keepdim=True)
    # greedy
    g_idx = torch.argmax(logits, dim=1)
    onehot = torch.zeros_like(p).scatter(1, g_idx.unsqueeze(1), 1.0)
    q = torch.where(greedy.unsqueeze(1), onehot, p)
    return q, greedy, g_idx


def _row_seed(seed: int, offset: int) -> int:
    h = hashlib.blake2b(f"{seed}:{offset}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "little")


def sample_batch(logits, seeds, offsets, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    _check_logits(logits)
    B, V = logits.shape
    _check_ids(seeds, B, "seeds")
    _check_ids(offsets, B, "offsets")
    T, K, P, M = _params(logits, temperature, top_k, top_p, min_p)
    q, greedy, g_idx = _processed(logits, T, K, P, M)
    s_list, o_list, gl = seeds.tolist(), offsets.tolist(), greedy.tolist()
    tokens = g_idx.clone()
    for b in range(B):
        if gl[b]:
            continue
        g = torch.Generator(device=logits.device)
        g.manual_seed(_row_seed(s_list[b], o_list[b]))
        u = torch.rand(1, generator=g, dtype=q.dtype, device=q.device)
        cdf = torch.cumsum(q[b], 0)
        tokens[b] = torch.searchsorted(cdf, u, right=True).clamp(max=V - 1)[0]
    lp = torch.log(q.gather(1, tokens.unsqueeze(1)).squeeze(1))
    lp = torch.where(greedy, torch.zeros_like(lp), lp)
    return tokens, lp
