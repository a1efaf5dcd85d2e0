"""A correct variant: one row and one position at a time, in a plain loop, as a first version
would be written; the residual is sampled by inverse CDF from its own cumulative sum.
"""

import torch

PAD = -1


def _pair(p, q):
    if not isinstance(p, torch.Tensor) or not isinstance(q, torch.Tensor) or p.dim() != 2 or p.shape != q.shape:
        raise ValueError("target_probs and draft_probs must be tensors of one shape [B, V]")
    if not p.is_floating_point() or p.dtype != q.dtype:
        raise ValueError("probabilities must be floating, of one dtype")


def acceptance_rate(target_probs, draft_probs):
    _pair(target_probs, draft_probs)
    out = torch.empty(target_probs.shape[0], dtype=target_probs.dtype, device=target_probs.device)
    for row in range(target_probs.shape[0]):
        out[row] = torch.minimum(target_probs[row], draft_probs[row]).sum()
    return out


def total_variation(target_probs, draft_probs):
    _pair(target_probs, draft_probs)
    return (target_probs - draft_probs).abs().sum(dim=-1) / 2


def filtered_probs(logits, temperature=1.0, top_k=0):
    if not isinstance(logits, torch.Tensor) or not logits.is_floating_point() or logits.dim() < 1:
        raise ValueError("logits must be a floating tensor [..., V]")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 < temperature < float("inf"):
        raise ValueError("temperature must be a positive finite number")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise ValueError("top_k must be an integer >= 0")
    flat = logits.reshape(-1, logits.shape[-1])
    out = torch.zeros_like(flat)
    for row in range(flat.shape[0]):
        z = flat[row]
        keep = torch.ones_like(z, dtype=torch.bool)
        if 0 < top_k < z.numel():
            keep = z >= torch.sort(z, descending=True).values[top_k - 1]
        out[row] = torch.softmax((z / temperature).masked_fill(~keep, float("-inf")), dim=0)
    return out.reshape(logits.shape)


def topk_acceptance_rate(target_logits, draft_logits, temperature=1.0, top_k=0):
    if not isinstance(target_logits, torch.Tensor) or not isinstance(draft_logits, torch.Tensor):
        raise ValueError("logits must be tensors")
    if target_logits.dim() != 2 or target_logits.shape != draft_logits.shape:
        raise ValueError("target_logits and draft_logits must have one shape [B, V]")
    return acceptance_rate(
        filtered_probs(target_logits, temperature, top_k), filtered_probs(draft_logits, temperature, top_k)
    )


def _draw(weights, generator):
    cdf = weights.to(torch.float64).cumsum(0)
    u = torch.rand((), dtype=torch.float64, device=weights.device, generator=generator)
    return int(torch.searchsorted(cdf / cdf[-1], u.reshape(1), right=True)[0])


def verify(target_probs, draft_probs, draft_tokens, generator=None):
    p, q, x = target_probs, draft_probs, draft_tokens
    if not all(isinstance(t, torch.Tensor) for t in (p, q, x)) or p.dim() != 3 or q.dim() != 3 or x.dim() != 2:
        raise ValueError("expected target_probs [B, K+1, V], draft_probs [B, K, V], draft_tokens [B, K]")
    if p.dtype not in (torch.float32, torch.float64) or p.dtype != q.dtype or x.dtype != torch.int64:
        raise ValueError("probabilities of one dtype, float32 or float64, and int64 draft tokens")
    batch, k = x.shape
    vocab = p.shape[-1]
    if k < 1 or tuple(p.shape) != (batch, k + 1, vocab) or tuple(q.shape) != (batch, k, vocab):
        raise ValueError("shapes do not match")
    if not torch.isfinite(p).all() or not torch.isfinite(q).all() or (p < 0).any() or (q < 0).any():
        raise ValueError("probabilities must be finite and >= 0")
    if ((x < 0) | (x >= vocab)).any():
        raise ValueError("draft token out of range")
    if (q.gather(2, x.unsqueeze(2)) <= 0).any():
        raise ValueError("a draft token has draft probability 0")
    tokens = torch.full((batch, k + 1), PAD, dtype=torch.int64)
    num = torch.zeros(batch, dtype=torch.int64)
    xs = x.tolist()
    for row in range(batch):
        for i in range(k + 1):
            if i == k:
                tokens[row, k] = _draw(p[row, k], generator)
                break
            t = xs[row][i]
            ratio = float(p[row, i, t]) / float(q[row, i, t])
            u = float(torch.rand((), dtype=torch.float64, device=p.device, generator=generator))
            if u < min(1.0, ratio):
                tokens[row, i] = t
                num[row] += 1
                continue
            residual = (p[row, i] - q[row, i]).clamp(min=0)
            tokens[row, i] = _draw(residual if float(residual.sum()) > 0 else p[row, i], generator)
            break
    return tokens.to(p.device), num.to(p.device)


def speculative_step(target_logits, draft_logits, temperature=1.0, top_k=0, generator=None):
    if not isinstance(target_logits, torch.Tensor) or not isinstance(draft_logits, torch.Tensor):
        raise ValueError("logits must be tensors")
    if draft_logits.dim() != 3 or target_logits.dim() != 3 or target_logits.dtype != draft_logits.dtype:
        raise ValueError("expected target_logits [B, K+1, V] and draft_logits [B, K, V] of one dtype")
    if target_logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be float32 or float64")
    batch, k, vocab = draft_logits.shape
    if k < 1 or tuple(target_logits.shape) != (batch, k + 1, vocab):
        raise ValueError("shapes do not match")
    q = filtered_probs(draft_logits, temperature, top_k)
    p = filtered_probs(target_logits, temperature, top_k)
    drafts = torch.multinomial(q.reshape(batch * k, vocab), 1, generator=generator).reshape(batch, k)
    tokens, num = verify(p, q, drafts, generator=generator)
    return tokens, num, drafts
