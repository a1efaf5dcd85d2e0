"""Weighted coin from integers: k uniform in {0, ..., 2^53 - 1}, heads when k < p * 2^53 (exact in float64)."""

import torch

SCALE = 2**53


def flip(p, n, generator=None):
    if not torch.is_tensor(p) or p.dim() != 1:
        raise ValueError("p should be a tensor with one dimension [B]")
    if not p.dtype.is_floating_point:
        raise ValueError("p should have a floating dtype")
    if torch.isnan(p).any():
        raise ValueError("p should not contain NaN")
    if (p < 0).any() or (p > 1).any():
        raise ValueError("p should be inside [0, 1]")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError("n should be an integer >= 1")
    k = torch.randint(0, SCALE, (p.shape[0], n), generator=generator, device=p.device, dtype=torch.int64)
    limit = p.to(torch.float64) * SCALE  # p = 1 gives 2^53, above every k; p = 0 gives 0, below none
    return (k.to(torch.float64) < limit.unsqueeze(-1)).to(torch.int64)
