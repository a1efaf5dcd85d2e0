"""A correct variant that accepts float16 and bfloat16 probabilities and logits (the statement leaves
them open; only two different dtypes are refused): ``verify`` computes in float32 when its probabilities
are in half precision, reading each value as the number it holds, and ``speculative_step`` filters its
half-precision logits in float32 too. Kept to pin that accepting half precision is not a mistake.
Otherwise the reference: u_i * q_i(x_i) < p_i(x_i) accepts, the first rejection draws from
max(0, p_i - q_i) renormalised, K acceptances add a bonus token from p_K.
"""

import torch

PAD = -1


def _check_pair(target_probs, draft_probs):
    for name, value in (("target_probs", target_probs), ("draft_probs", draft_probs)):
        if not isinstance(value, torch.Tensor) or value.dim() != 2 or not value.is_floating_point():
            raise ValueError(f"{name} must be a 2-D floating tensor [B, V]")
    if target_probs.shape != draft_probs.shape:
        raise ValueError("target_probs and draft_probs must have the same shape [B, V]")
    if target_probs.dtype != draft_probs.dtype:
        raise ValueError("target_probs and draft_probs must have the same dtype")


def acceptance_rate(target_probs, draft_probs):
    """sum_x min(p(x), q(x)) per row: the chance that one draft token is accepted."""
    _check_pair(target_probs, draft_probs)
    return torch.minimum(target_probs, draft_probs).sum(dim=-1)


def total_variation(target_probs, draft_probs):
    """(1/2) sum_x |p(x) - q(x)| per row."""
    _check_pair(target_probs, draft_probs)
    return 0.5 * (target_probs - draft_probs).abs().sum(dim=-1)


def _check_filter(logits, temperature, top_k, name="logits"):
    if not isinstance(logits, torch.Tensor) or logits.dim() < 1 or not logits.is_floating_point():
        raise ValueError(f"{name} must be a floating tensor [..., V]")
    if logits.shape[-1] < 1:
        raise ValueError(f"{name} needs at least one token")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise ValueError("temperature must be a number")
    if not (temperature > 0 and temperature < float("inf")):
        raise ValueError("temperature must be positive and finite")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise ValueError("top_k must be an integer >= 0")


def filtered_probs(logits, temperature=1.0, top_k=0):
    """softmax(logits / T) restricted to the tokens whose logit is >= the k-th largest, renormalised."""
    _check_filter(logits, temperature, top_k)
    vocab = logits.shape[-1]
    scaled = logits / temperature
    if 0 < top_k < vocab:
        kth = logits.topk(top_k, dim=-1).values[..., -1:]
        scaled = scaled.masked_fill(logits < kth, float("-inf"))  # ties with the k-th logit stay
    return torch.softmax(scaled, dim=-1)


def topk_acceptance_rate(target_logits, draft_logits, temperature=1.0, top_k=0):
    """The acceptance rate between the two filtered distributions, per row."""
    for name, value in (("target_logits", target_logits), ("draft_logits", draft_logits)):
        if not isinstance(value, torch.Tensor) or value.dim() != 2 or not value.is_floating_point():
            raise ValueError(f"{name} must be a 2-D floating tensor [B, V]")
    if target_logits.shape != draft_logits.shape:
        raise ValueError("target_logits and draft_logits must have the same shape [B, V]")
    return acceptance_rate(
        filtered_probs(target_logits, temperature, top_k), filtered_probs(draft_logits, temperature, top_k)
    )


HALF = (torch.float16, torch.bfloat16)


def _wide(value):
    """float16 and bfloat16 read as float32 (exactly: every half value is a float32 value)."""
    return value.to(torch.float32) if value.dtype in HALF else value


def _check_verify(p, q, x):
    for name, value in (("target_probs", p), ("draft_probs", q)):
        if not isinstance(value, torch.Tensor) or value.dim() != 3 or not value.is_floating_point():
            raise ValueError(f"{name} must be a 3-D floating tensor")
    if p.dtype != q.dtype:
        raise ValueError("target_probs and draft_probs must have the same dtype")
    if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.dtype != torch.int64:
        raise ValueError("draft_tokens must be an int64 tensor [B, K]")
    batch, k = x.shape
    if k < 1:
        raise ValueError("there must be at least one draft token (K >= 1)")
    vocab = p.shape[-1]
    if tuple(p.shape) != (batch, k + 1, vocab) or tuple(q.shape) != (batch, k, vocab):
        raise ValueError("expected target_probs [B, K+1, V], draft_probs [B, K, V], draft_tokens [B, K]")
    for name, value in (("target_probs", p), ("draft_probs", q)):
        if not torch.isfinite(value).all() or (value < 0).any():
            raise ValueError(f"{name} must be finite and non-negative")
    if ((x < 0) | (x >= vocab)).any():
        raise ValueError("draft_tokens must lie in [0, V)")
    if (q.gather(2, x.unsqueeze(2)) <= 0).any():
        raise ValueError("a draft token has draft probability 0: it cannot have been drafted from q")


def verify(target_probs, draft_probs, draft_tokens, generator=None):
    p, q, x = target_probs, draft_probs, draft_tokens
    _check_verify(p, q, x)
    p, q = _wide(p), _wide(q)
    batch, k = x.shape
    vocab = p.shape[-1]
    p_draft = p[:, :k].gather(2, x.unsqueeze(2)).squeeze(2)
    q_draft = q.gather(2, x.unsqueeze(2)).squeeze(2)
    u = torch.rand(batch, k, dtype=p.dtype, device=p.device, generator=generator)
    accepted = u * q_draft < p_draft  # u < min(1, p/q): u < 1 always
    num = accepted.to(torch.int64).cumprod(dim=1).sum(dim=1)  # the leading run of acceptances

    # The extra token: from max(0, p - q) at the first rejection, from p_K after K acceptances.
    p_at = p.gather(1, num.view(batch, 1, 1).expand(batch, 1, vocab)).squeeze(1)
    q_pos = num.clamp(max=k - 1).view(batch, 1, 1).expand(batch, 1, vocab)
    q_at = q.gather(1, q_pos).squeeze(1)
    residual = torch.where((num < k).unsqueeze(1), (p_at - q_at).clamp(min=0), p_at)
    empty = residual.sum(dim=1, keepdim=True) <= 0  # p == q: a rejection cannot happen; never 0/0
    residual = torch.where(empty, p_at, residual)
    extra = torch.multinomial(residual, 1, generator=generator).squeeze(1)

    positions = torch.arange(k + 1, device=p.device).unsqueeze(0)
    drafts = torch.cat([x, x[:, :1]], dim=1)
    pad = torch.full_like(drafts, PAD)
    tokens = torch.where(positions < num.unsqueeze(1), drafts, pad)
    tokens = torch.where(positions == num.unsqueeze(1), extra.unsqueeze(1), tokens)
    return tokens, num


def speculative_step(target_logits, draft_logits, temperature=1.0, top_k=0, generator=None):
    """Draft K tokens from the filtered draft distributions, verify them with the filtered target."""
    for name, value in (("target_logits", target_logits), ("draft_logits", draft_logits)):
        if not isinstance(value, torch.Tensor) or value.dim() != 3 or not value.is_floating_point():
            raise ValueError(f"{name} must be a 3-D floating tensor")
    batch, k, vocab = draft_logits.shape
    if k < 1 or tuple(target_logits.shape) != (batch, k + 1, vocab):
        raise ValueError("expected target_logits [B, K+1, V] and draft_logits [B, K, V] with K >= 1")
    if target_logits.dtype != draft_logits.dtype:
        raise ValueError("target_logits and draft_logits must have the same dtype")
    _check_filter(draft_logits, temperature, top_k, "draft_logits")
    q = filtered_probs(_wide(draft_logits), temperature, top_k)
    p = filtered_probs(_wide(target_logits), temperature, top_k)
    drafts = torch.multinomial(q.reshape(batch * k, vocab), 1, generator=generator).reshape(batch, k)
    tokens, num = verify(p, q, drafts, generator=generator)
    return tokens, num, drafts
