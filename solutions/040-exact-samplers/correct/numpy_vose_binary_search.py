"""Correct (from the first red team, written from the statement alone): inverse_cdf by its own
vectorised binary search on the normalised float64 CDF; gumbel_max by torch.max indices; the race
normalises p first; the alias table is Vose's method on numpy float64 arrays; sample makes one
torch.rand call per method (the alias column and coin are two slices of one [B, n, 2] draw).
"""

import numpy as np
import torch

_OK_METHODS = ["inverse_cdf", "gumbel", "race", "alias"]


def _err(msg):
    return ValueError(msg)


def _validate_probs(probs):
    if not torch.is_tensor(probs) or not probs.is_floating_point() or probs.dim() != 2:
        raise _err("probs: need a 2-D float tensor")
    if probs.numel() == 0:
        raise _err("probs: B and V must be >= 1")
    fin = torch.isfinite(probs)
    if not fin.all():
        raise _err("probs: found NaN or infinity")
    if (probs < 0).any():
        raise _err("probs: found a negative weight")
    if (probs.to(torch.float64).sum(dim=-1) <= 0).any():
        raise _err("probs: a row has zero total weight")


def _validate_uniform(u, expect, name):
    if not torch.is_tensor(u) or not u.is_floating_point():
        raise _err(f"{name}: need a floating tensor")
    if u.dim() != len(expect):
        raise _err(f"{name}: need {len(expect)} dims")
    for a, e in zip(u.shape, expect):
        if e is not None and a != e:
            raise _err(f"{name}: shape {tuple(u.shape)} does not fit")
    if not torch.all((u >= 0) & (u < 1)):
        raise _err(f"{name}: values must satisfy 0 <= u < 1")


def inverse_cdf(probs, u):
    _validate_probs(probs)
    B, V = probs.shape
    _validate_uniform(u, (B, None), "u")
    C = torch.cumsum(probs.to(torch.float64), dim=1)
    F = C / C[:, V - 1 : V]
    uu = u.to(torch.float64)
    n = uu.shape[1]
    lo = torch.zeros(B, n, dtype=torch.int64, device=probs.device)  # answer >= lo
    hi = torch.full((B, n), V - 1, dtype=torch.int64, device=probs.device)  # F(hi) > u always
    while bool((lo < hi).any()):
        mid = (lo + hi) // 2
        above = torch.gather(F, 1, mid) > uu
        hi = torch.where(above, mid, hi)
        lo = torch.where(above, lo, mid + 1)
    return lo


def gumbel_max(logits, u):
    if not torch.is_tensor(logits) or not logits.is_floating_point() or logits.dim() != 2 or logits.numel() == 0:
        raise _err("logits: need a non-empty 2-D float tensor")
    if torch.isnan(logits).any():
        raise _err("logits: NaN")
    if (logits == float("inf")).any():
        raise _err("logits: +inf")
    if (logits == float("-inf")).all(dim=1).any():
        raise _err("logits: a row is entirely -inf")
    B, V = logits.shape
    _validate_uniform(u, (B, None, V), "u")
    tiny = torch.finfo(u.dtype).tiny
    E = -torch.log(torch.clamp(u.to(torch.float64), min=tiny))
    _, idx = torch.max(logits.to(torch.float64).unsqueeze(1) - torch.log(E), dim=2)
    return idx


def exponential_race(probs, u):
    _validate_probs(probs)
    B, V = probs.shape
    _validate_uniform(u, (B, None, V), "u")
    q = probs.to(torch.float64)
    q = q / q.sum(dim=1, keepdim=True)
    E = -torch.log(torch.clamp(u.to(torch.float64), min=torch.finfo(u.dtype).tiny))
    ratio = q.unsqueeze(1) / E
    ratio = ratio.masked_fill(q.unsqueeze(1) == 0, -1.0)
    return ratio.argmax(dim=2)


def build_alias(probs):
    _validate_probs(probs)
    B, V = probs.shape
    P = probs.detach().to("cpu", torch.float64).numpy()
    accept = np.ones((B, V), dtype=np.float64)
    alias = np.tile(np.arange(V, dtype=np.int64), (B, 1))
    for b in range(B):
        m = P[b] / P[b].sum() * V
        small = list(np.flatnonzero(m < 1.0))
        large = list(np.flatnonzero(m >= 1.0))
        while small and large:
            s = small.pop()
            big = large.pop()
            accept[b, s] = m[s]
            alias[b, s] = big
            m[big] = (m[big] + m[s]) - 1.0
            (small if m[big] < 1.0 else large).append(big)
    return (torch.from_numpy(accept).to(probs.device), torch.from_numpy(alias).to(probs.device))


def alias_draw(accept, alias, column_u, coin_u):
    if not torch.is_tensor(accept) or accept.dtype != torch.float64 or accept.dim() != 2 or accept.numel() == 0:
        raise _err("accept: need a non-empty float64 [B, V] tensor")
    if not torch.is_tensor(alias) or alias.dtype != torch.int64 or alias.shape != accept.shape:
        raise _err("alias: need an int64 tensor shaped like accept")
    B, V = accept.shape
    if not torch.all((accept >= 0) & (accept <= 1)):
        raise _err("accept: values outside [0, 1]")
    if not torch.all((alias >= 0) & (alias < V)):
        raise _err("alias: ids outside [0, V)")
    _validate_uniform(column_u, (B, None), "column_u")
    _validate_uniform(coin_u, tuple(column_u.shape), "coin_u")
    col = torch.floor(column_u.to(torch.float64) * V).to(torch.int64)
    col = torch.minimum(col, torch.tensor(V - 1, device=col.device))
    own = coin_u.to(torch.float64) < accept.gather(1, col)
    return torch.where(own, col, alias.gather(1, col))


def sample(probs, num_samples, method, generator=None):
    if method not in _OK_METHODS:
        raise _err(f"method: expected one of {_OK_METHODS}, got {method!r}")
    if isinstance(num_samples, (bool, np.bool_)) or not isinstance(num_samples, (int, np.integer)):
        raise _err("num_samples: need an integer")
    if num_samples < 1:
        raise _err("num_samples: need at least 1")
    _validate_probs(probs)
    n = int(num_samples)
    B, V = probs.shape
    dev = probs.device
    if method == "inverse_cdf":
        return inverse_cdf(probs, torch.rand(B, n, generator=generator, device=dev))
    if method == "alias":
        acc, ali = build_alias(probs)
        u = torch.rand(B, n, 2, generator=generator, device=dev)
        return alias_draw(acc, ali, u[..., 0], u[..., 1])
    rows = []
    for b in range(B):
        row = probs[b : b + 1]
        parts = []
        left = n
        per = max(1, 1_000_000 // V)
        while left > 0:
            k = min(per, left)
            u = torch.rand(1, k, V, generator=generator, device=dev)
            parts.append(gumbel_max(torch.log(row), u) if method == "gumbel" else exponential_race(row, u))
            left -= k
        rows.append(torch.cat(parts, dim=1))
    return torch.cat(rows, dim=0)
