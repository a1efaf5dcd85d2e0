"""A correct solution from the red team: probabilities as log_softmax(...).exp() in float64, the
count as argmax of (cumsum >= mass) plus one (it never needs the clamp below a mass within 1e-4
of 1, which the statement leaves open), entropy with torch.special.entr, the quantization with
torch.where on a float64 scale max / 7, the mass checked before the logits.
"""

from __future__ import annotations

import numbers

import torch


def _t(temperature, B, device):
    if isinstance(temperature, torch.Tensor):
        if temperature.ndim != 1 or temperature.numel() != B:
            raise ValueError("temperature tensor must be of shape [B]")
        if bool((temperature <= 0).any()) or bool(torch.isnan(temperature).any()):
            raise ValueError("temperature must be > 0")
        return temperature.to(device=device, dtype=torch.float64).view(-1, 1)
    if isinstance(temperature, numbers.Real) and not isinstance(temperature, bool) and temperature > 0:
        return float(temperature)
    raise ValueError("temperature must be a number > 0 or a tensor [B] of them")


def _logits_ok(x):
    if not (isinstance(x, torch.Tensor) and x.ndim == 2 and x.dtype.is_floating_point):
        raise ValueError("logits must be a floating [B, V] tensor")


def _logp(logits, temperature):
    _logits_ok(logits)
    T = _t(temperature, logits.shape[0], logits.device)
    return torch.log_softmax(logits.double() / T, dim=-1)


def tokens_for_mass(logits, temperature=1.0, mass=0.9):
    if not isinstance(mass, numbers.Real) or isinstance(mass, bool) or not 0 < mass < 1:
        raise ValueError("mass must be in (0, 1)")
    p = _logp(logits, temperature).exp()
    cum = p.sort(dim=-1, descending=True).values.cumsum(-1)
    reached = cum >= mass
    k = torch.where(
        reached.any(-1),
        reached.to(torch.int64).argmax(-1) + 1,
        torch.full_like(reached[:, 0], p.shape[-1], dtype=torch.int64),
    )
    return k.to(torch.int64)


def entropy(logits, temperature=1.0):
    p = _logp(logits, temperature).exp()
    return torch.special.entr(p).sum(-1).to(logits.dtype)


def fake_quantize_int4(weight, group_size=32):
    if not (isinstance(weight, torch.Tensor) and weight.ndim == 2 and weight.dtype.is_floating_point):
        raise ValueError("weight must be a floating [out, in] tensor")
    if (
        not isinstance(group_size, int)
        or isinstance(group_size, bool)
        or group_size < 1
        or weight.shape[1] % group_size
    ):
        raise ValueError("group_size must be a positive int dividing in")
    o, i = weight.shape
    g = (
        weight.double().view(o, i // group_size, group_size)
        if weight.is_contiguous()
        else weight.double().reshape(o, i // group_size, group_size)
    )
    s = g.abs().amax(-1, keepdim=True) / 7.0
    q = torch.where(s == 0, torch.zeros_like(g), torch.round(g / torch.where(s == 0, torch.ones_like(s), s)))
    return (q * s).reshape(o, i).to(weight.dtype)


def _pq(target_logits, draft_logits, temperature):
    _logits_ok(target_logits)
    _logits_ok(draft_logits)
    if target_logits.shape != draft_logits.shape:
        raise ValueError("target and draft logits differ in shape")
    if target_logits.dtype != draft_logits.dtype:
        raise ValueError("target and draft logits differ in dtype")
    return _logp(target_logits, temperature).exp(), _logp(draft_logits, temperature).exp()


def acceptance_rate(target_logits, draft_logits, temperature=1.0):
    p, q = _pq(target_logits, draft_logits, temperature)
    return torch.min(p, q).sum(-1).to(target_logits.dtype)


def total_variation(target_logits, draft_logits, temperature=1.0):
    p, q = _pq(target_logits, draft_logits, temperature)
    return ((p - q).abs().sum(-1) / 2).to(target_logits.dtype)
