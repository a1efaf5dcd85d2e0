"""Mistake: fake_quantize_int4 takes the scale from the group's largest weight max(w), not its largest magnitude max|w|.

Diagnosis: the scale is the group's largest weight max(w) / 7 instead of its largest magnitude
max|w| / 7, so negative weights larger in magnitude are clipped at -8 x scale
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
    """The smallest k such that the k most probable tokens of softmax(logits / T) hold at least ``mass``."""
    _check_logits(logits)
    if isinstance(mass, bool) or not isinstance(mass, (int, float)) or not 0.0 < float(mass) < 1.0:
        raise ValueError("mass must be a number in (0, 1)")
    probs = _log_probs(logits, temperature).exp()
    ordered = probs.sort(dim=-1, descending=True).values
    before = ordered.cumsum(dim=-1) < mass  # True while the top tokens still hold less than `mass`
    return (before.sum(dim=-1) + 1).clamp(max=logits.shape[1]).to(torch.int64)


def entropy(logits, temperature=1.0):
    """Shannon entropy of softmax(logits / T) in nats, per row; 0 * log 0 counts as 0."""
    _check_logits(logits)
    log_probs = _log_probs(logits, temperature)
    probs = log_probs.exp()
    terms = torch.where(probs > 0, probs * log_probs, torch.zeros_like(probs))  # -inf logits add nothing
    return -terms.sum(dim=-1)


def fake_quantize_int4(weight, group_size=32):
    """Symmetric per-group int4 fake quantization of a [out, in] weight along the input dimension."""
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2 or not weight.is_floating_point():
        raise ValueError("weight must be a floating tensor [out, in]")
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError("group_size must be a positive integer")
    rows, columns = weight.shape
    if columns % group_size != 0:
        raise ValueError(f"the input dimension {columns} is not a multiple of group_size={group_size}")
    groups = weight.reshape(rows, columns // group_size, group_size)
    scale = groups.amax(dim=-1, keepdim=True) / 7  # the largest weight
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))  # an all-zero group stays zero
    q = torch.round(groups / safe).clamp(-8, 7)
    return (q * safe).reshape(rows, columns)


def acceptance_rate(target_logits, draft_logits, temperature=1.0):
    """sum_x min(p(x), q(x)) per row, p and q the target's and the draft's softmax at temperature T."""
    p, q = _pair(target_logits, draft_logits, temperature)
    return torch.minimum(p, q).sum(dim=-1)


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
