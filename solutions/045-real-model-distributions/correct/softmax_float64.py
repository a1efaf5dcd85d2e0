"""Another correct solution: softmax with the maximum subtracted by hand, sums in float64,
xlogy for 0 log 0, and the quantization scale as max|w| x (1 / 7) in the weight's dtype.

It differs from the reference in the last bits (float64 sums cast back, a scale one rounding
away), which the judge's tolerances allow.
"""

import torch


def _temperatures(temperature, logits):
    batch = logits.shape[0]
    given_as_tensor = isinstance(temperature, torch.Tensor)
    t = torch.as_tensor(temperature, dtype=torch.float64, device=logits.device)
    if t.dim() == 0 and not given_as_tensor:  # a number is every row's; a 0-d tensor is not [B]
        t = t.expand(batch)
    if t.shape != (batch,) or not bool(torch.isfinite(t).all()) or not bool((t > 0).all()):
        raise ValueError("temperature must be > 0: a number or a [B] tensor")
    return t.unsqueeze(1)


def _probs(logits, temperature):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("logits must be a floating tensor [B, V]")
    scaled = logits.double() / _temperatures(temperature, logits)
    shifted = scaled - scaled.amax(dim=1, keepdim=True)
    weights = shifted.exp()
    return weights / weights.sum(dim=1, keepdim=True)


def tokens_for_mass(logits, temperature=1.0, mass=0.9):
    if not isinstance(mass, (int, float)) or not 0 < mass < 1:
        raise ValueError("mass must lie in (0, 1)")
    probs = _probs(logits, temperature)
    cumulative = torch.sort(probs, dim=1, descending=True).values.cumsum(dim=1)
    k = torch.searchsorted(cumulative, torch.full_like(cumulative[:, :1], float(mass))).squeeze(1) + 1
    return k.clamp(max=logits.shape[1])


def entropy(logits, temperature=1.0):
    probs = _probs(logits, temperature)
    return (-torch.special.xlogy(probs, probs).sum(dim=1)).to(logits.dtype)


def fake_quantize_int4(weight, group_size=32):
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2 or not weight.is_floating_point():
        raise ValueError("weight must be a floating tensor [out, in]")
    out_features, in_features = weight.shape
    if type(group_size) is not int or group_size <= 0 or in_features % group_size:
        raise ValueError("group_size must divide the input dimension")
    groups = weight.view(out_features, -1, group_size)
    scale = groups.abs().amax(dim=2, keepdim=True) * (1.0 / 7.0)
    q = torch.round(groups / scale).nan_to_num(0.0).clamp(-8, 7)
    return (q * scale).view(out_features, in_features)


def _pair(target_logits, draft_logits, temperature):
    for logits in (target_logits, draft_logits):
        if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or not logits.is_floating_point():
            raise ValueError("logits must be a floating tensor [B, V]")
    if target_logits.shape != draft_logits.shape or target_logits.dtype != draft_logits.dtype:
        raise ValueError("target and draft logits must match in shape and dtype")
    return _probs(target_logits, temperature), _probs(draft_logits, temperature)


def acceptance_rate(target_logits, draft_logits, temperature=1.0):
    p, q = _pair(target_logits, draft_logits, temperature)
    return torch.minimum(p, q).sum(dim=1).to(target_logits.dtype)


def total_variation(target_logits, draft_logits, temperature=1.0):
    p, q = _pair(target_logits, draft_logits, temperature)
    return ((p - q).abs().sum(dim=1) / 2).to(target_logits.dtype)
