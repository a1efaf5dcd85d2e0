"""A correct solution by another algorithm: one row at a time in float64-free plain torch, the typical cut
by pairwise comparison (the mass of the tokens of strictly smaller score, no sort), and an inverse CDF
drawn from ``torch.rand`` with the search kept inside the kept tokens."""

import math

import torch

METHODS = ("typical", "epsilon", "eta")


def _values(value, rows, name):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != rows:
            raise ValueError(f"{name} must be a number or a tensor of shape [{rows}]")
        values = [float(v) for v in value.tolist()]
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        values = [float(value)] * rows
    else:
        raise ValueError(f"{name} must be a number or a tensor")
    if any(math.isnan(v) for v in values):
        raise ValueError(f"{name} must not be NaN")
    return values


def _check(logits, method, param, temperature):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be a 2-D float32 or float64 tensor")
    if logits.isnan().any() or logits.isposinf().any() or not logits.isfinite().any(dim=1).all():
        raise ValueError("logits must hold no NaN or +inf, and a finite value in every row")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}")
    params = _values(param, logits.shape[0], "param")
    temperatures = _values(temperature, logits.shape[0], "temperature")
    for q in params:
        if (method == "typical" and not 0 < q <= 1) or (method != "typical" and not 0 <= q < 1):
            raise ValueError(f"param {q} is out of range for {method}")
    for t in temperatures:
        if not 0 <= t < math.inf:
            raise ValueError(f"temperature {t} must be finite and >= 0")
    return params, temperatures


def _row(z, method, q, t):
    if t == 0:
        out = torch.zeros_like(z)
        out[int(torch.argmax(z))] = 1.0
        return out
    log_p = torch.log_softmax((z - z.max()) / t, dim=0)
    p = log_p.exp()
    alive = p > 0
    entropy = -(p[alive] * log_p[alive]).sum()
    if method == "typical":
        score = torch.where(alive, (-log_p - entropy).abs(), torch.full_like(p, math.inf))
        smaller = (score.unsqueeze(0) < score.unsqueeze(1)).to(p.dtype)  # [j, i]: s_i < s_j
        keep = alive & (((smaller * p.unsqueeze(0)).sum(dim=1) < q) | (q >= 1))
    else:
        threshold = q if method == "epsilon" else min(q, math.sqrt(q) * math.exp(-float(entropy)))
        keep = (p >= threshold) | (p == p.max())
    kept = torch.where(keep, p, torch.zeros_like(p))
    return kept / kept.sum()


def truncated_probs(logits, method, param, temperature=1.0):
    params, temperatures = _check(logits, method, param, temperature)
    rows = [_row(logits[b], method, params[b], temperatures[b]) for b in range(logits.shape[0])]
    return torch.stack(rows) if rows else torch.empty_like(logits)


def sample_truncated(logits, num_samples, method, param, temperature=1.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be an int >= 1")
    probs = truncated_probs(logits, method, param, temperature)
    cdf = probs.cumsum(dim=-1)
    u = torch.rand(probs.shape[0], num_samples, generator=generator, device=probs.device, dtype=probs.dtype)
    u = u * cdf[:, -1:]  # the row's own total, so u never passes the last kept token
    index = torch.searchsorted(cdf, u, right=True)
    last = (probs > 0).to(torch.int64).cumsum(dim=-1).argmax(dim=-1, keepdim=True)  # the last kept token
    return torch.minimum(index, last)
