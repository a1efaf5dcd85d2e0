"""Correct, computed another way: topk and searchsorted in float32 (whatever the input dtype) for
tokens_for_mass, entropy as logsumexp minus the mean tempered logit, the quantizer in float64 on a
[-1, group_size] view multiplying by 1 / scale (an all-zero group's scale clamped to a tiny number),
and the acceptance rate as an expectation over the draft. Red-team variants the suite must accept.
"""

import torch


def _check_logits(logits, name="logits"):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError(f"{name} must be a floating tensor [B, V]")
    if logits.shape[1] == 0:
        raise ValueError(f"{name} must have at least one token per row")


def _temperatures(temperature, logits):
    """The temperature as a [B, 1] tensor of the logits' dtype and device (a number: every row's)."""
    batch = logits.shape[0]
    if isinstance(temperature, torch.Tensor):
        if temperature.dim() != 1 or temperature.shape[0] != batch or not temperature.is_floating_point():
            raise ValueError(f"a temperature tensor must be floating, of shape [{batch}]")
        t = temperature.to(dtype=logits.dtype, device=logits.device)
    elif isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
        t = torch.full((batch,), float(temperature), dtype=logits.dtype, device=logits.device)
    else:
        raise ValueError("temperature must be a number or a [B] tensor")
    if not bool(torch.isfinite(t).all()) or not bool((t > 0).all()):
        raise ValueError("every temperature must be finite and > 0")
    return t.reshape(batch, 1)


def _log_probs(logits, temperature):
    """log softmax(logits / T) over the vocabulary, in the logits' dtype."""
    return torch.log_softmax(logits / _temperatures(temperature, logits), dim=-1)


def tokens_for_mass(logits, temperature=1.0, mass=0.9):
    """topk (all V) in float32 whatever the input dtype, then searchsorted for the first cumulative sum >= mass."""
    _check_logits(logits)
    if isinstance(mass, bool) or not isinstance(mass, (int, float)) or not 0.0 < float(mass) < 1.0:
        raise ValueError("mass must be a number in (0, 1)")
    probs = torch.softmax(logits.float() / _temperatures(temperature, logits).float(), dim=-1)
    cum = probs.topk(logits.shape[1], dim=-1).values.cumsum(dim=-1)
    target = torch.full((logits.shape[0], 1), float(mass), dtype=cum.dtype, device=cum.device)
    k = torch.searchsorted(cum.contiguous(), target).squeeze(1) + 1  # first index with cum >= mass, plus one
    return k.clamp(max=logits.shape[1]).to(torch.int64)


def entropy(logits, temperature=1.0):
    """H = logsumexp(x) - sum_i p_i x_i with x = logits / T (a -inf logit has p = 0 and adds nothing)."""
    _check_logits(logits)
    x = logits / _temperatures(temperature, logits)
    p = torch.softmax(x, dim=-1)
    mean = torch.where(p > 0, p * x, torch.zeros_like(p)).sum(dim=-1)
    return torch.logsumexp(x, dim=-1) - mean


def fake_quantize_int4(weight, group_size=32):
    """Groups as rows of a [-1, group_size] view, float64 inside, multiplication by 1 / scale, cast back."""
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2 or not weight.is_floating_point():
        raise ValueError("weight must be a floating tensor [out, in]")
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError("group_size must be a positive integer")
    rows, columns = weight.shape
    if columns % group_size != 0:
        raise ValueError(f"the input dimension {columns} is not a multiple of group_size={group_size}")
    groups = weight.double().reshape(-1, group_size)
    scale = (groups.abs().amax(dim=1, keepdim=True) / 7).clamp(min=1e-300)  # an all-zero group: 0 * (1 / tiny) = 0
    q = torch.round(groups * (1.0 / scale)).clamp(-7, 7)
    return (q * scale).reshape(rows, columns).to(weight.dtype)


def acceptance_rate(target_logits, draft_logits, temperature=1.0):
    """The expectation over x ~ q of min(1, p(x) / q(x))."""
    p, q = _pair(target_logits, draft_logits, temperature)
    ratio = torch.where(q > 0, p / q, torch.ones_like(p)).clamp(max=1)
    return (q * ratio).sum(dim=-1)


def total_variation(target_logits, draft_logits, temperature=1.0):
    """1/2 sum_x |p(x) - q(x)| per row, p and q as in acceptance_rate."""
    p, q = _pair(target_logits, draft_logits, temperature)
    return 0.5 * (p - q).abs().sum(dim=-1)


def _pair(target_logits, draft_logits, temperature):
    _check_logits(target_logits, "target_logits")
    _check_logits(draft_logits, "draft_logits")
    if target_logits.shape != draft_logits.shape or target_logits.dtype != draft_logits.dtype:
        raise ValueError("target_logits and draft_logits must have the same shape and dtype")
    return _log_probs(target_logits, temperature).exp(), _log_probs(draft_logits, temperature).exp()
