"""Reference solution for exercise 1: a weighted coin."""

import torch


def _validate(p, n):
    if not isinstance(p, torch.Tensor) or p.dim() != 1 or not p.is_floating_point():
        raise ValueError("p must be a 1-D floating tensor [B]")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if torch.isnan(p).any():
        raise ValueError("p must not hold NaN")
    if ((p < 0) | (p > 1)).any():
        raise ValueError("every p must lie in [0, 1]")


def flip(p, n, generator=None):
    _validate(p, n)
    # u is uniform on [0, 1): u < p holds with probability p, never for p = 0, always for p = 1.
    u = torch.rand(p.shape[0], n, generator=generator, dtype=p.dtype, device=p.device)
    return (u < p.unsqueeze(1)).to(torch.int64)
