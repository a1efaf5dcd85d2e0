"""A correct variant (the red team's c05): draws one float64 uniform per position and, on the first
rejection, re-uses the
rejecting uniform rescaled: given u >= a (a = p/q < 1), v = (u - a) / (1 - a) is uniform on
[0, 1) and independent of which token was drafted, so it drives the inverse-CDF draw of the
residual (the statement leaves "how many you draw" open). The bonus token gets a fresh uniform.
v is clamped below 1 against rounding. Kept because the statement allows exactly this reuse.
"""

import math
import numbers

import torch

PAD = -1
_ONE_MINUS = 1.0 - 2.0**-53


def _chk2(p, q):
    if (
        not isinstance(p, torch.Tensor)
        or not isinstance(q, torch.Tensor)
        or p.dim() != 2
        or p.shape != q.shape
        or not p.is_floating_point()
        or p.dtype != q.dtype
    ):
        raise ValueError("expected two floating [B, V] tensors of one shape and dtype")


def acceptance_rate(target_probs, draft_probs):
    _chk2(target_probs, draft_probs)
    return torch.minimum(target_probs, draft_probs).sum(1)


def total_variation(target_probs, draft_probs):
    _chk2(target_probs, draft_probs)
    return (target_probs - draft_probs).abs().sum(1).mul(0.5)


def filtered_probs(logits, temperature=1.0, top_k=0):
    ok_t = isinstance(temperature, numbers.Real) and not isinstance(temperature, bool)
    if not ok_t or not (0 < float(temperature) < math.inf):
        raise ValueError("temperature must be a positive finite number")
    if isinstance(top_k, bool) or not isinstance(top_k, numbers.Integral) or top_k < 0:
        raise ValueError("top_k must be an integer >= 0")
    if (
        not isinstance(logits, torch.Tensor)
        or not logits.is_floating_point()
        or logits.dim() == 0
        or logits.shape[-1] == 0
    ):
        raise ValueError("logits must be a floating [..., V] tensor")
    V = logits.shape[-1]
    k = int(top_k)
    z = logits / float(temperature)
    if 0 < k < V:
        kth = logits.sort(-1, descending=True).values[..., k - 1, None]
        z = torch.where(logits >= kth, z, torch.tensor(-math.inf, dtype=z.dtype, device=z.device))
    return torch.softmax(z, -1)


def topk_acceptance_rate(target_logits, draft_logits, temperature=1.0, top_k=0):
    _chk2(target_logits, draft_logits)
    return acceptance_rate(
        filtered_probs(target_logits, temperature, top_k), filtered_probs(draft_logits, temperature, top_k)
    )


def _inverse_cdf(weights, u):
    """weights [R, V] >= 0 with positive sum, u [R] in [0, 1) float64 -> index [R]."""
    cdf = weights.double().cumsum(-1)
    t = (u * cdf[:, -1]).unsqueeze(-1)
    return torch.searchsorted(cdf, t, right=True).squeeze(-1).clamp(max=weights.shape[-1] - 1)


def verify(target_probs, draft_probs, draft_tokens, generator=None):
    p, q, x = target_probs, draft_probs, draft_tokens
    if not all(isinstance(t, torch.Tensor) for t in (p, q, x)):
        raise ValueError("tensors expected")
    if p.dim() != 3 or q.dim() != 3 or x.dim() != 2:
        raise ValueError("bad ranks")
    B, K, V = q.shape
    if K < 1 or p.shape != (B, K + 1, V) or x.shape != (B, K):
        raise ValueError("shapes do not match (or K < 1)")
    if p.dtype != q.dtype or p.dtype not in (torch.float32, torch.float64):
        raise ValueError("bad probability dtypes")
    if x.dtype != torch.int64:
        raise ValueError("draft_tokens must be int64")
    if not (p.device == q.device == x.device):
        raise ValueError("one device expected")
    if not (torch.isfinite(p).all() and torch.isfinite(q).all()) or (p < 0).any() or (q < 0).any():
        raise ValueError("probabilities must be finite and >= 0")
    if (x < 0).any() or (x >= V).any():
        raise ValueError("draft token out of range")
    qx = q.gather(2, x[:, :, None])[:, :, 0].double()
    if (qx == 0).any():
        raise ValueError("draft token with q = 0")
    px = p[:, :K].gather(2, x[:, :, None])[:, :, 0].double()
    dev = p.device

    a = px / qx
    u = torch.rand((B, K), generator=generator, device=dev, dtype=torch.float64)
    acc = u < a
    n_acc = acc.cumprod(1).sum(1)
    rows = torch.arange(B, device=dev)
    stop = n_acc.clamp(max=K - 1)
    u_stop = u[rows, stop]
    a_stop = a[rows, stop].clamp(max=1.0)
    v_resid = ((u_stop - a_stop) / (1.0 - a_stop)).clamp(min=0.0, max=_ONE_MINUS)
    v_resid = torch.nan_to_num(v_resid, nan=0.0)  # only rows with n_acc = K can hit 0/0
    v_bonus = torch.rand((B,), generator=generator, device=dev, dtype=torch.float64)
    rejected = n_acc < K
    v = torch.where(rejected, v_resid, v_bonus)

    p_n = p[rows, n_acc].double()
    resid = (p_n - q[rows, stop].double()).clamp(min=0)
    dist = torch.where((rejected & (resid.sum(1) > 0))[:, None], resid, p_n)
    last = _inverse_cdf(dist, v)

    tokens = torch.full((B, K + 1), PAD, dtype=torch.int64, device=dev)
    for i in range(K):
        tokens[:, i] = torch.where(n_acc > i, x[:, i], tokens[:, i])
    tokens[rows, n_acc] = last
    return tokens, n_acc


def speculative_step(target_logits, draft_logits, temperature=1.0, top_k=0, generator=None):
    tl, dl = target_logits, draft_logits
    if (
        not isinstance(tl, torch.Tensor)
        or not isinstance(dl, torch.Tensor)
        or tl.dim() != 3
        or dl.dim() != 3
        or tl.dtype != dl.dtype
    ):
        raise ValueError("expected two 3-D logits tensors of one dtype")
    B, K, V = dl.shape
    if K < 1 or tl.shape != (B, K + 1, V):
        raise ValueError("shapes do not match")
    p = filtered_probs(tl, temperature, top_k)
    q = filtered_probs(dl, temperature, top_k)
    u = torch.rand((B * K,), generator=generator, device=q.device, dtype=torch.float64)
    drafts = _inverse_cdf(q.reshape(B * K, V), u).reshape(B, K)
    tokens, n_acc = verify(p, q, drafts, generator)
    return tokens, n_acc, drafts
