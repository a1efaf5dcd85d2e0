"""A correct solution from the red team: a loop over rows in float64, log-probabilities as
y - logsumexp(y) (not exact for ties of nonzero logits: the statement's exact ties are logits 0),
tokens_for_mass by topk of growing size, entropy as logsumexp(y) - sum p y over the finite tokens,
the quantization group by group with unfold, acceptance as 1 - TV, and a ValueError subclass of
its own (InputError) for every refusal.
"""

from __future__ import annotations

import math
import numbers

import torch


class InputError(ValueError):
    pass


def _check_logits(x, name="logits"):
    if not isinstance(x, torch.Tensor):
        raise InputError(f"{name} must be a tensor")
    if x.dim() != 2:
        raise InputError(f"{name} must be 2-D [B, V]")
    if not torch.is_floating_point(x):
        raise InputError(f"{name} must be floating")


def _row_temperatures(logits, temperature):
    B = logits.shape[0]
    if isinstance(temperature, torch.Tensor):
        if temperature.shape != torch.Size([B]):
            raise InputError(f"temperature tensor must be [B] = [{B}]")
        ts = temperature.detach().to("cpu", torch.float64).tolist()
    else:
        if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
            raise InputError("temperature must be a number or a tensor")
        ts = [float(temperature)] * B
    for t in ts:
        if not t > 0:
            raise InputError("temperature must be > 0")
    return ts


def _row_logp(row, t):
    y = row.to(torch.float64) / t
    return y, y - torch.logsumexp(y, dim=0)


def tokens_for_mass(logits, temperature=1.0, mass=0.9):
    _check_logits(logits)
    if isinstance(mass, bool) or not isinstance(mass, numbers.Real) or math.isnan(mass) or mass <= 0 or mass >= 1:
        raise InputError("mass must be in the open interval (0, 1)")
    ts = _row_temperatures(logits, temperature)
    V = logits.shape[1]
    out = []
    for b, t in enumerate(ts):
        _, logp = _row_logp(logits[b], t)
        p = torch.softmax(logp, dim=0)  # re-normalised in float64
        k = 1
        while True:
            top = torch.topk(p, min(k, V)).values
            cum = torch.cumsum(top, dim=0)
            hit = (cum >= mass).nonzero()
            if hit.numel():
                out.append(int(hit[0]) + 1)
                break
            if k >= V:
                out.append(V)
                break
            k *= 2
    return torch.tensor(out, dtype=torch.int64, device=logits.device)


def entropy(logits, temperature=1.0):
    _check_logits(logits)
    ts = _row_temperatures(logits, temperature)
    hs = []
    for b, t in enumerate(ts):
        y, logp = _row_logp(logits[b], t)
        finite = torch.isfinite(y)
        lse = torch.logsumexp(y, dim=0)
        p = logp[finite].exp()
        hs.append(lse - (p * y[finite]).sum())  # H = log Z - E[y]
    if not hs:
        return torch.zeros(0, dtype=logits.dtype, device=logits.device)
    return torch.stack(hs).to(logits.dtype)


def fake_quantize_int4(weight, group_size=32):
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2 or not torch.is_floating_point(weight):
        raise InputError("weight must be a floating [out, in] tensor")
    if isinstance(group_size, bool) or not isinstance(group_size, numbers.Integral) or group_size < 1:
        raise InputError("group_size must be a positive integer")
    n_out, n_in = weight.shape
    if n_in % group_size != 0:
        raise InputError("in must be a multiple of group_size")
    w = weight.to(torch.float64)
    out = torch.empty_like(w)
    for g0 in range(0, n_in, group_size):
        grp = w[:, g0 : g0 + group_size]
        s = grp.abs().max(dim=1, keepdim=True).values / 7.0
        q = torch.zeros_like(grp)
        nz = (s > 0).squeeze(1)
        q[nz] = torch.round(grp[nz] / s[nz])
        out[:, g0 : g0 + group_size] = q * s
    return out.to(weight.dtype)


def _dists(target_logits, draft_logits, temperature):
    _check_logits(target_logits, "target_logits")
    _check_logits(draft_logits, "draft_logits")
    if target_logits.shape != draft_logits.shape:
        raise InputError("shapes differ")
    if target_logits.dtype != draft_logits.dtype:
        raise InputError("dtypes differ")
    ts = _row_temperatures(target_logits, temperature)
    t = torch.tensor(ts, dtype=torch.float64, device=target_logits.device).unsqueeze(1)
    p = torch.softmax(target_logits.to(torch.float64) / t, dim=-1)
    q = torch.softmax(draft_logits.to(torch.float64) / t, dim=-1)
    return p, q


def total_variation(target_logits, draft_logits, temperature=1.0):
    p, q = _dists(target_logits, draft_logits, temperature)
    return (0.5 * (p - q).abs().sum(-1)).to(target_logits.dtype)


def acceptance_rate(target_logits, draft_logits, temperature=1.0):
    p, q = _dists(target_logits, draft_logits, temperature)
    return (1.0 - 0.5 * (p - q).abs().sum(-1)).to(target_logits.dtype)
