"""Weighted coin as a two-sided die: torch.multinomial over the weights [1 - p, p]; side 1 is heads."""

import torch


def _validated(p, n):
    if not isinstance(p, torch.Tensor) or not p.is_floating_point() or p.dim() != 1:
        raise ValueError("p must be a 1-D floating point tensor")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError("n must be a positive integer")
    if not torch.all((p >= 0) & (p <= 1)):
        raise ValueError("p must lie in [0, 1] (NaN is refused)")
    return p, n


def flip(p, n, generator=None):
    p, n = _validated(p, n)
    if p.numel() == 0:
        return torch.empty(0, n, dtype=torch.int64, device=p.device)
    sides = torch.stack((1 - p, p), dim=1).to(torch.float64)
    return torch.multinomial(sides, n, replacement=True, generator=generator)
