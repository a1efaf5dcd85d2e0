"""A correct solution from the red team: a hand-written stable softmax in float64, the count as the
number of sorted probabilities whose preceding prefix is still below mass, entropy as
-sum p (y - max - log Z) over p > 0, the quantization with torch.where and the scale as
max * (1 / 7), acceptance with torch.minimum. It takes float(temperature) of any non-tensor (a
string "1.0" passes): the statement leaves a temperature that is neither a number nor a tensor open.
"""

from __future__ import annotations

import numbers

import torch


def _validate_logits(*xs):
    for x in xs:
        if not isinstance(x, torch.Tensor) or not torch.is_floating_point(x) or len(x.shape) != 2:
            raise ValueError("logits must be 2-D floating tensors [B, V]")


def _temps(temperature, B, device):
    if isinstance(temperature, torch.Tensor):
        if list(temperature.shape) != [B]:
            raise ValueError(f"temperature tensor must have shape [{B}]")
        t = temperature.to(torch.float64).to(device)
        if not torch.all(t > 0):
            raise ValueError("temperature must be > 0")
        return t[:, None]
    try:
        ok = not isinstance(temperature, bool) and float(temperature) > 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError("temperature must be a number > 0")
    return torch.tensor(float(temperature), dtype=torch.float64, device=device)


def _softmax_parts(logits, temperature):
    y = logits.to(torch.float64) / _temps(temperature, logits.shape[0], logits.device)
    m = y.max(dim=-1, keepdim=True).values
    e = torch.exp(y - m)
    z = e.sum(dim=-1, keepdim=True)
    return e / z, y - m - torch.log(z)


def tokens_for_mass(logits, temperature=1.0, mass=0.9):
    _validate_logits(logits)
    if not isinstance(mass, numbers.Real) or isinstance(mass, bool) or not (mass > 0 and mass < 1):
        raise ValueError("mass must be strictly between 0 and 1")
    p, _ = _softmax_parts(logits, temperature)
    s = torch.sort(p, dim=-1, descending=True).values
    # mass of the tokens ranked above each one
    before = torch.cat([torch.zeros_like(s[:, :1]), torch.cumsum(s, dim=-1)[:, :-1]], dim=-1)
    k = (before < mass).sum(dim=-1)  # tokens still needed: their predecessors have not reached mass
    return k.to(torch.int64)


def entropy(logits, temperature=1.0):
    _validate_logits(logits)
    p, logp = _softmax_parts(logits, temperature)
    h = -(torch.where(p > 0, p * logp, torch.zeros_like(p))).sum(dim=-1)
    return h.to(logits.dtype)


def fake_quantize_int4(weight, group_size=32):
    _validate = isinstance(weight, torch.Tensor) and torch.is_floating_point(weight) and weight.dim() == 2
    if not _validate:
        raise ValueError("weight must be a floating [out, in] tensor")
    if not isinstance(group_size, numbers.Integral) or isinstance(group_size, bool) or group_size <= 0:
        raise ValueError("group_size must be a positive integer")
    rows, cols = weight.shape
    if cols % group_size != 0:
        raise ValueError(f"in = {cols} is not a multiple of group_size = {group_size}")
    g = weight.to(torch.float64).reshape(rows, cols // group_size, group_size)
    amax = g.abs().amax(dim=2, keepdim=True)
    scale = amax * (1.0 / 7.0)
    q = torch.where(
        amax > 0, torch.round(g / torch.where(amax > 0, scale, torch.ones_like(scale))), torch.zeros_like(g)
    )
    return (q * scale).reshape(rows, cols).to(weight.dtype)


def _pq(target_logits, draft_logits, temperature):
    _validate_logits(target_logits, draft_logits)
    if target_logits.shape != draft_logits.shape:
        raise ValueError("target and draft shapes differ")
    if target_logits.dtype != draft_logits.dtype:
        raise ValueError("target and draft dtypes differ")
    return _softmax_parts(target_logits, temperature)[0], _softmax_parts(draft_logits, temperature)[0]


def acceptance_rate(target_logits, draft_logits, temperature=1.0):
    p, q = _pq(target_logits, draft_logits, temperature)
    return torch.minimum(p, q).sum(dim=-1).to(target_logits.dtype)


def total_variation(target_logits, draft_logits, temperature=1.0):
    p, q = _pq(target_logits, draft_logits, temperature)
    return (0.5 * torch.sum(torch.abs(p - q), dim=-1)).to(target_logits.dtype)
