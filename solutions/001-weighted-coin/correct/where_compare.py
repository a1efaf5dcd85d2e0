"""Weighted coin: one uniform per flip, torch.where turns u < p into 1 and the rest into 0."""

import torch


def flip(p, n, generator=None):
    floats = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
    ok = isinstance(p, torch.Tensor) and p.ndim == 1 and p.dtype in floats
    if not ok:
        raise ValueError("p: expected a one-dimensional float tensor")
    if type(n) is not int or n <= 0:
        raise ValueError("n: expected a positive int")
    if p.isnan().any().item() or p.min().item() < 0 or p.max().item() > 1:
        raise ValueError("p: probabilities must be within [0, 1]")
    uniforms = torch.rand((len(p), n), generator=generator, dtype=p.dtype, device=p.device)
    heads = uniforms < p[:, None]
    return torch.where(heads, 1, 0).long()
