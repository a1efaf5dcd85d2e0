"""A correct alternative: torch.bernoulli draws the 0/1 values from a [B, n] matrix of p."""

import torch


def flip(p, n, generator=None):
    if not isinstance(p, torch.Tensor) or p.dim() != 1 or not p.is_floating_point():
        raise ValueError("p must be a 1-D floating tensor [B]")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if torch.isnan(p).any() or ((p < 0) | (p > 1)).any():
        raise ValueError("every p must lie in [0, 1]")
    probs = p.unsqueeze(1).repeat(1, n)
    return torch.bernoulli(probs, generator=generator).to(torch.int64)
