"""Weighted coin from the complement: with u uniform on [0, 1), 1 - u lies in (0, 1] and 1 - u <= p
has probability p."""

import torch

FLOATS = {torch.float16, torch.bfloat16, torch.float32, torch.float64}


def flip(p, n, generator=None):
    if not isinstance(p, torch.Tensor):
        raise ValueError(f"expected a tensor p, got {type(p).__name__}")
    if p.dtype not in FLOATS or p.dim() != 1:
        raise ValueError("expected p of shape [B] and a floating dtype")
    if not isinstance(n, int) or isinstance(n, bool):
        raise ValueError("expected an integer n")
    if n < 1:
        raise ValueError("expected n >= 1")
    bad = torch.isnan(p) | (p < 0.0) | (p > 1.0)
    if bad.any():
        raise ValueError("expected every p between 0 and 1")
    batch = p.shape[0]
    complement = 1.0 - torch.rand(batch, n, dtype=p.dtype, device=p.device, generator=generator)
    return (complement <= p.view(batch, 1)).long()
