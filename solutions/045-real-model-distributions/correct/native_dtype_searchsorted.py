"""A correct solution from the red team: everything in the logits' own dtype (float32 stays float32:
the tolerances and the 1e-4 margins allow it), softmax, sort, cumsum and torch.searchsorted(cum,
mass); entropy with torch.special.xlogy; the quantization in the weight's dtype with the scale as
max * (1 / 7); acceptance with torch.minimum and TV as 0.5 * sum |p - q|.
"""

from __future__ import annotations

import numbers

import torch


def _need_logits(x, what):
    if not torch.is_tensor(x) or x.ndim != 2 or not x.is_floating_point():
        raise ValueError(f"{what}: expected a floating tensor [B, V]")


def _scaled(logits, temperature):
    B = logits.shape[0]
    if torch.is_tensor(temperature):
        if tuple(temperature.shape) != (B,):
            raise ValueError(f"temperature tensor must have shape ({B},)")
        if not bool((temperature > 0).all()):
            raise ValueError("temperatures must be > 0")
        return logits / temperature.to(device=logits.device, dtype=logits.dtype)[:, None]
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) or not temperature > 0:
        raise ValueError("temperature must be a number > 0")
    return logits / float(temperature)


def tokens_for_mass(logits, temperature=1.0, mass=0.9):
    _need_logits(logits, "logits")
    if isinstance(mass, bool) or not isinstance(mass, numbers.Real) or not (0.0 < mass < 1.0):
        raise ValueError("mass must lie in (0, 1)")
    p = torch.softmax(_scaled(logits, temperature), dim=-1)
    cum = torch.sort(p, dim=-1, descending=True).values.cumsum(dim=-1)
    target = torch.full((p.shape[0], 1), float(mass), dtype=p.dtype, device=p.device)
    k = torch.searchsorted(cum.contiguous(), target, right=False).squeeze(1) + 1
    return k.clamp(max=p.shape[-1]).to(torch.int64)


def entropy(logits, temperature=1.0):
    _need_logits(logits, "logits")
    y = _scaled(logits, temperature)
    logp = torch.log_softmax(y, dim=-1)
    p = logp.exp()
    # xlogy(p, p) is 0 where p == 0; use logp for the log (stable when p underflows)
    h = -torch.where(p > 0, p * logp, torch.special.xlogy(p, p))
    return h.sum(dim=-1)


def fake_quantize_int4(weight, group_size=32):
    if not torch.is_tensor(weight) or weight.ndim != 2 or not weight.is_floating_point():
        raise ValueError("weight: expected a floating tensor [out, in]")
    if not isinstance(group_size, numbers.Integral) or isinstance(group_size, bool) or group_size <= 0:
        raise ValueError("group_size must be a positive integer")
    n_out, n_in = weight.shape
    if n_in % group_size:
        raise ValueError(f"in ({n_in}) must be a multiple of group_size ({group_size})")
    g = weight.reshape(n_out, n_in // group_size, group_size)
    scale = g.abs().amax(dim=-1, keepdim=True) * (1.0 / 7.0)
    zero = scale == 0
    q = torch.round(g / scale.masked_fill(zero, 1.0)).masked_fill(zero, 0.0)
    return (q * scale).reshape(n_out, n_in)


def _both(target_logits, draft_logits, temperature):
    _need_logits(target_logits, "target_logits")
    _need_logits(draft_logits, "draft_logits")
    if target_logits.shape != draft_logits.shape or target_logits.dtype != draft_logits.dtype:
        raise ValueError("target and draft logits must share shape and dtype")
    p = torch.softmax(_scaled(target_logits, temperature), dim=-1)
    q = torch.softmax(_scaled(draft_logits, temperature), dim=-1)
    return p, q


def acceptance_rate(target_logits, draft_logits, temperature=1.0):
    p, q = _both(target_logits, draft_logits, temperature)
    return torch.minimum(p, q).sum(dim=-1)


def total_variation(target_logits, draft_logits, temperature=1.0):
    p, q = _both(target_logits, draft_logits, temperature)
    return 0.5 * (p - q).abs().sum(dim=-1)
