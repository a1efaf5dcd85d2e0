"""Mistake: the positions are verified one after another, and a rejection replaces the token but does
not stop the loop: later positions are still verified and emitted.

Diagnosis: verification goes on after the first rejection: every token after the replacement must be the
pad -1
"""

import torch

PAD = -1


def _check_pair(target_probs, draft_probs):
    for name, value in (("target_probs", target_probs), ("draft_probs", draft_probs)):
        if not isinstance(value, torch.Tensor) or value.dim() != 2 or not value.is_floating_point():
            raise ValueError(f"{name} must be a 2-D floating tensor [B, V]")
    if target_probs.shape != draft_probs.shape:
        raise ValueError("target_probs and draft_probs must have the same shape [B, V]")


def acceptance_rate(target_probs, draft_probs):
    _check_pair(target_probs, draft_probs)
    return torch.minimum(target_probs, draft_probs).sum(dim=-1)


def total_variation(target_probs, draft_probs):
    _check_pair(target_probs, draft_probs)
    return 0.5 * (target_probs - draft_probs).abs().sum(dim=-1)


def filtered_probs(logits, temperature=1.0, top_k=0):
    if not isinstance(logits, torch.Tensor) or not logits.is_floating_point():
        raise ValueError("logits must be a floating tensor")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
        raise ValueError("temperature must be positive")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise ValueError("top_k must be an integer >= 0")
    scaled = logits / temperature
    if 0 < top_k < logits.shape[-1]:
        kth = logits.topk(top_k, dim=-1).values[..., -1:]
        scaled = scaled.masked_fill(logits < kth, float("-inf"))
    return torch.softmax(scaled, dim=-1)


def topk_acceptance_rate(target_logits, draft_logits, temperature=1.0, top_k=0):
    if target_logits.shape != draft_logits.shape or target_logits.dim() != 2:
        raise ValueError("target_logits and draft_logits must have the same shape [B, V]")
    return acceptance_rate(
        filtered_probs(target_logits, temperature, top_k), filtered_probs(draft_logits, temperature, top_k)
    )


def verify(target_probs, draft_probs, draft_tokens, generator=None):
    p, q, x = target_probs, draft_probs, draft_tokens
    if p.dim() != 3 or q.dim() != 3 or x.dim() != 2 or x.dtype != torch.int64 or p.dtype != q.dtype:
        raise ValueError("expected target_probs [B, K+1, V], draft_probs [B, K, V], int64 draft_tokens [B, K]")
    batch, k = x.shape
    vocab = p.shape[-1]
    if k < 1 or tuple(p.shape) != (batch, k + 1, vocab) or tuple(q.shape) != (batch, k, vocab):
        raise ValueError("shapes do not match")
    if ((x < 0) | (x >= vocab)).any() or (q.gather(2, x.unsqueeze(2)) <= 0).any():
        raise ValueError("bad draft token")
    tokens = torch.empty(batch, k + 1, dtype=torch.int64, device=p.device)
    num = torch.zeros(batch, dtype=torch.int64, device=p.device)
    for i in range(k):
        p_x = p[:, i].gather(1, x[:, i : i + 1]).squeeze(1)
        q_x = q[:, i].gather(1, x[:, i : i + 1]).squeeze(1)
        u = torch.rand(batch, dtype=p.dtype, device=p.device, generator=generator)
        ok = u * q_x < p_x
        residual = (p[:, i] - q[:, i]).clamp(min=0)
        residual = torch.where(residual.sum(1, keepdim=True) > 0, residual, p[:, i])
        replacement = torch.multinomial(residual, 1, generator=generator).squeeze(1)
        tokens[:, i] = torch.where(ok, x[:, i], replacement)
        num += ok.to(torch.int64)
    tokens[:, k] = torch.multinomial(p[:, k], 1, generator=generator).squeeze(1)
    return tokens, num


def speculative_step(target_logits, draft_logits, temperature=1.0, top_k=0, generator=None):
    batch, k, vocab = draft_logits.shape
    q = filtered_probs(draft_logits, temperature, top_k)
    p = filtered_probs(target_logits, temperature, top_k)
    drafts = torch.multinomial(q.reshape(batch * k, vocab), 1, generator=generator).reshape(batch, k)
    tokens, num = verify(p, q, drafts, generator=generator)
    return tokens, num, drafts
