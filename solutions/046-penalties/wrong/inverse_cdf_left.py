"""Mistake: the inverse CDF searches with searchsorted(cdf, u) (side left, the first cdf >= u): u = 0 lands on a
leading token whose cumulative value is 0, a token of probability 0 (the red team's w13).

Diagnosis: a draw site fails at an extreme uniform (0 or the largest float below 1)
"""

from __future__ import annotations

import torch


def _check_logits(logits):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor")
    if not logits.is_floating_point():
        raise ValueError("logits must be float32 or float64")
    if torch.isnan(logits).any():
        raise ValueError("logits contain NaN")
    if (logits == float("inf")).any():
        raise ValueError("logits contain +inf")
    if logits.shape[0] > 0 and not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("a row of logits has no finite entry")


def _row_param(x, B, name, device):
    """Return a float64 [B] tensor holding the parameter's value for each row."""
    if isinstance(x, torch.Tensor):
        if x.dim() != 1 or x.shape[0] != B:
            raise ValueError(f"{name} must be a 1-D tensor of length {B}")
        return x.detach().to(device=device, dtype=torch.float64)
    if isinstance(x, (int, float)):
        return torch.full((B,), float(x), dtype=torch.float64, device=device)
    raise ValueError(f"{name} must be a number or a tensor")


def _counts(logits, prev_tokens, pad_id):
    B, V = logits.shape
    if not isinstance(pad_id, int) or isinstance(pad_id, bool):
        raise ValueError("pad_id must be a Python int")
    if 0 <= pad_id < V:
        raise ValueError("pad_id must not be a vocabulary id")
    if not isinstance(prev_tokens, torch.Tensor) or prev_tokens.dim() != 2:
        raise ValueError("prev_tokens must be a 2-D tensor")
    if prev_tokens.dtype != torch.int64:
        raise ValueError("prev_tokens must be int64")
    if prev_tokens.shape[0] != B:
        raise ValueError("prev_tokens must have B rows")
    if prev_tokens.device != logits.device:
        raise ValueError("prev_tokens must be on the device of logits")
    is_pad = prev_tokens == pad_id
    bad = (~is_pad) & ((prev_tokens < 0) | (prev_tokens >= V))
    if bad.any():
        raise ValueError("prev_tokens holds an id outside [0, V) that is not pad_id")
    idx = torch.where(is_pad, torch.full_like(prev_tokens, V), prev_tokens)
    counts = torch.zeros((B, V + 1), dtype=torch.int64, device=logits.device)
    counts.scatter_add_(1, idx, torch.ones_like(idx))
    return counts[:, :V]


def apply_penalties(
    logits: torch.Tensor,
    prev_tokens: torch.Tensor,
    repetition_penalty: float | torch.Tensor = 1.0,
    frequency_penalty: float | torch.Tensor = 0.0,
    presence_penalty: float | torch.Tensor = 0.0,
    pad_id: int = -1,
) -> torch.Tensor:
    _check_logits(logits)
    B, V = logits.shape
    counts = _counts(logits, prev_tokens, pad_id)
    rho = _row_param(repetition_penalty, B, "repetition_penalty", logits.device)
    af = _row_param(frequency_penalty, B, "frequency_penalty", logits.device)
    ap = _row_param(presence_penalty, B, "presence_penalty", logits.device)
    if not torch.isfinite(rho).all() or (rho <= 0).any():
        raise ValueError("repetition_penalty must be finite and > 0")
    if not torch.isfinite(af).all():
        raise ValueError("frequency_penalty must be finite")
    if not torch.isfinite(ap).all():
        raise ValueError("presence_penalty must be finite")
    z = logits.to(torch.float64)
    c = counts.to(torch.float64)
    seen = counts > 0
    rho = rho[:, None]
    zr = torch.where(z > 0, z / rho, z * rho)
    zp = torch.where(seen, zr, z)
    out = zp - c * af[:, None] - seen.to(torch.float64) * ap[:, None]
    return out.to(logits.dtype)


# ---------------------------------------------------------------- exercise 39's sampler


def _check_num_samples(n):
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError("num_samples must be an int >= 1")


def _filter_params(B, device, temperature, top_k, top_p, min_p):
    T = _row_param(temperature, B, "temperature", device)
    K = _row_param(top_k, B, "top_k", device)
    P = _row_param(top_p, B, "top_p", device)
    M = _row_param(min_p, B, "min_p", device)
    if torch.isnan(T).any() or torch.isinf(T).any() or (T < 0).any():
        raise ValueError("temperature must be finite and >= 0")
    if torch.isnan(K).any() or (K < 0).any():
        raise ValueError("top_k must be >= 0")
    if torch.isnan(P).any() or (P <= 0).any() or (P > 1).any():
        raise ValueError("top_p must lie in (0, 1]")
    if torch.isnan(M).any() or (M < 0).any() or (M >= 1).any():
        raise ValueError("min_p must lie in [0, 1)")
    return T, K, P, M


def _filtered_probs(z, T, K, P, M):
    """z: float64 [B, V] penalized logits. Returns float64 [B, V] probabilities."""
    B, V = z.shape
    greedy = T == 0
    Tsafe = torch.where(greedy, torch.ones_like(T), T)
    zmax = z.max(dim=1, keepdim=True).values
    p = torch.softmax((z - zmax) / Tsafe[:, None], dim=1)
    # sort once, descending
    sp, order = torch.sort(p, dim=1, descending=True, stable=True)
    # top-k
    k_on = (K > 0) & (K < V)
    kk = torch.where(k_on, K, torch.full_like(K, V)).long().clamp(1, V)
    pk = sp.gather(1, (kk - 1)[:, None])
    keep_sorted = sp >= pk
    sp = torch.where(keep_sorted, sp, torch.zeros_like(sp))
    sp = sp / sp.sum(dim=1, keepdim=True)
    # top-p
    before = torch.cumsum(sp, dim=1) - sp
    p_on = P < 1
    keep_p = (before < P[:, None]) | ~p_on[:, None]
    sp = torch.where(keep_p, sp, torch.zeros_like(sp))
    sp = sp / sp.sum(dim=1, keepdim=True)
    # min-p
    thr = M[:, None] * sp[:, :1]
    sp = torch.where(sp >= thr, sp, torch.zeros_like(sp))
    sp = sp / sp.sum(dim=1, keepdim=True)
    probs = torch.zeros_like(p).scatter(1, order, sp)
    if greedy.any():
        onehot = torch.zeros_like(p)
        onehot.scatter_(1, z.argmax(dim=1, keepdim=True), 1.0)
        probs = torch.where(greedy[:, None], onehot, probs)
    return probs


def sample_with_penalties(
    logits: torch.Tensor,
    prev_tokens: torch.Tensor,
    num_samples: int = 1,
    repetition_penalty: float | torch.Tensor = 1.0,
    frequency_penalty: float | torch.Tensor = 0.0,
    presence_penalty: float | torch.Tensor = 0.0,
    pad_id: int = -1,
    temperature: float | torch.Tensor = 1.0,
    top_k: int | torch.Tensor = 0,
    top_p: float | torch.Tensor = 1.0,
    min_p: float | torch.Tensor = 0.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    _check_num_samples(num_samples)
    zt = apply_penalties(logits, prev_tokens, repetition_penalty, frequency_penalty, presence_penalty, pad_id)
    B, V = zt.shape
    T, K, P, M = _filter_params(B, logits.device, temperature, top_k, top_p, min_p)
    probs = _filtered_probs(zt.to(torch.float64), T, K, P, M)
    if B == 0:
        return torch.zeros((0, num_samples), dtype=torch.int64, device=logits.device)
    u = torch.rand((B, num_samples), generator=generator, dtype=torch.float64, device=logits.device)
    cdf = torch.cumsum(probs, dim=1)
    cdf = cdf / cdf[:, -1:]
    idx = torch.searchsorted(cdf, u)
    return idx.clamp(max=V - 1)
