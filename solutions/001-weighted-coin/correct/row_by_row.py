"""Weighted coin, one row at a time: a fresh vector of uniforms per row of p."""

import math

import torch


def flip(p, n, generator=None):
    if not (isinstance(p, torch.Tensor) and p.dim() == 1 and p.is_floating_point()):
        raise ValueError("flip needs p as a 1-D tensor of floats")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError("flip needs n as an int of at least 1")
    values = p.tolist()
    for value in values:
        if math.isnan(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"flip needs every p in [0, 1], found {value}")
    rows = []
    for b in range(len(values)):
        u = torch.rand(n, generator=generator, dtype=p.dtype, device=p.device)
        rows.append((u < p[b]).to(torch.int64))
    if not rows:
        return torch.zeros((0, n), dtype=torch.int64, device=p.device)
    return torch.stack(rows)
