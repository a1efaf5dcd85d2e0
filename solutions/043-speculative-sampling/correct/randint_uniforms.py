"""A correct variant (the red team's c06): builds its uniforms from
torch.randint(0, 2**53, generator=generator) * 2**-53
(exact float64 values in [0, 1)); acceptance by u < p/q in float64; the replacement, bonus and
draft tokens by inverse CDF with torch.bucketize(right=True) on u * cdf[-1]. Its own
InputError(ValueError); values are validated before shapes where that is safe. Kept for its randint
draw sites and its own ValueError subclass.
"""

import math
import numbers

import torch

PAD = -1
_SCALE = 2.0**-53


class InputError(ValueError):
    pass


def _u53(shape, generator, device):
    return (
        torch.randint(0, 2**53, shape, generator=generator, device=device, dtype=torch.int64).to(torch.float64) * _SCALE
    )


def _two(p, q):
    if not isinstance(p, torch.Tensor) or not isinstance(q, torch.Tensor):
        raise InputError("not tensors")
    if p.ndim != 2 or q.ndim != 2:
        raise InputError("need [B, V]")
    if p.shape != q.shape:
        raise InputError("shapes differ")
    if not p.is_floating_point() or p.dtype != q.dtype:
        raise InputError("need one floating dtype")


def acceptance_rate(target_probs, draft_probs):
    _two(target_probs, draft_probs)
    return torch.minimum(target_probs, draft_probs).sum(-1)


def total_variation(target_probs, draft_probs):
    _two(target_probs, draft_probs)
    d = target_probs - draft_probs
    return 0.5 * d.abs().sum(-1)


def filtered_probs(logits, temperature=1.0, top_k=0):
    if not isinstance(logits, torch.Tensor) or not logits.is_floating_point() or logits.ndim < 1:
        raise InputError("logits must be a floating tensor")
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise InputError("temperature type")
    if not math.isfinite(temperature) or temperature <= 0:
        raise InputError("temperature value")
    if isinstance(top_k, bool) or not isinstance(top_k, numbers.Integral):
        raise InputError("top_k type")
    if top_k < 0:
        raise InputError("top_k value")
    V = logits.shape[-1]
    if V == 0:
        raise InputError("empty vocabulary")
    k = int(top_k)
    if k == 0 or k >= V:
        return torch.softmax(logits / temperature, -1)
    kth = torch.topk(logits, k, -1, largest=True, sorted=True).values.narrow(-1, k - 1, 1)
    mask = logits < kth
    return torch.softmax((logits / temperature).masked_fill(mask, -math.inf), -1)


def topk_acceptance_rate(target_logits, draft_logits, temperature=1.0, top_k=0):
    _two(target_logits, draft_logits)
    return acceptance_rate(
        filtered_probs(target_logits, temperature, top_k), filtered_probs(draft_logits, temperature, top_k)
    )


def _pick(weights, generator):
    w = weights.to(torch.float64)
    cdf = torch.cumsum(w, -1)
    u = _u53((w.shape[0],), generator, w.device)
    t = (u * cdf[:, -1]).unsqueeze(1)
    idx = (
        torch.stack([torch.bucketize(t[r], cdf[r], right=True) for r in range(w.shape[0])])
        if w.shape[0] == 1
        else torch.searchsorted(cdf, t, right=True)
    )
    return idx.reshape(-1).clamp(max=w.shape[-1] - 1)


def verify(target_probs, draft_probs, draft_tokens, generator=None):
    p, q, x = target_probs, draft_probs, draft_tokens
    if not (isinstance(p, torch.Tensor) and isinstance(q, torch.Tensor) and isinstance(x, torch.Tensor)):
        raise InputError("tensors expected")
    if x.dtype != torch.int64:
        raise InputError("draft_tokens dtype")
    if p.dtype not in (torch.float32, torch.float64) or p.dtype != q.dtype:
        raise InputError("probability dtypes")
    if p.isnan().any() or q.isnan().any() or p.isinf().any() or q.isinf().any():
        raise InputError("non-finite probabilities")
    if (p < 0).any() or (q < 0).any():
        raise InputError("negative probabilities")
    if p.ndim != 3 or q.ndim != 3 or x.ndim != 2:
        raise InputError("ranks")
    B, K1, V = p.shape
    K = K1 - 1
    if K < 1:
        raise InputError("K < 1")
    if q.shape != (B, K, V) or x.shape != (B, K):
        raise InputError("shapes")
    if not (p.device == q.device == x.device):
        raise InputError("devices")
    if (x < 0).any() or (x >= V).any():
        raise InputError("token range")
    qx = q.gather(2, x.unsqueeze(2)).squeeze(2).double()
    if (qx == 0).any():
        raise InputError("q(x) = 0")
    px = p.narrow(1, 0, K).gather(2, x.unsqueeze(2)).squeeze(2).double()

    dev = p.device
    u = _u53((B, K), generator, dev)
    accepted = u < px / qx
    n_acc = torch.cumprod(accepted.to(torch.int64), 1).sum(1)
    rows = torch.arange(B, device=dev)
    pN = p[rows, n_acc].double()
    qN = q[rows, n_acc.clamp(max=K - 1)].double()
    r = (pN - qN).clamp(min=0.0)
    use_r = (n_acc < K) & (r.sum(-1) > 0)
    last = _pick(torch.where(use_r.unsqueeze(1), r, pN), generator)
    out = torch.full((B, K + 1), PAD, dtype=torch.int64, device=dev)
    j = torch.arange(K + 1, device=dev).expand(B, K + 1)
    xpad = torch.cat([x, x.new_full((B, 1), PAD)], 1)
    out = torch.where(j < n_acc.unsqueeze(1), xpad, out)
    out = torch.where(j == n_acc.unsqueeze(1), last.unsqueeze(1).expand(B, K + 1), out)
    return out, n_acc


def speculative_step(target_logits, draft_logits, temperature=1.0, top_k=0, generator=None):
    if not isinstance(target_logits, torch.Tensor) or not isinstance(draft_logits, torch.Tensor):
        raise InputError("tensors expected")
    if target_logits.dtype != draft_logits.dtype:
        raise InputError("dtypes")
    if target_logits.ndim != 3 or draft_logits.ndim != 3:
        raise InputError("ranks")
    B, K, V = draft_logits.shape
    if K < 1 or target_logits.shape != (B, K + 1, V):
        raise InputError("shapes")
    p = filtered_probs(target_logits, temperature, top_k)
    q = filtered_probs(draft_logits, temperature, top_k)
    drafts = _pick(q.reshape(B * K, V), generator).reshape(B, K)
    tokens, n_acc = verify(p, q, drafts, generator)
    return tokens, n_acc, drafts
