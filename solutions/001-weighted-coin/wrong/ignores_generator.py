"""Mistake: the uniforms come from torch's default generator; the generator argument is never used.

Diagnosis: with a generator given, the code still draws from (or re-seeds) torch's global generator
"""

import torch


def _validate(p, n):
    if not isinstance(p, torch.Tensor) or p.dim() != 1 or not p.is_floating_point():
        raise ValueError("p must be a 1-D floating tensor [B]")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError("n must be an integer >= 1")
    if torch.isnan(p).any() or ((p < 0) | (p > 1)).any():
        raise ValueError("every p must lie in [0, 1]")


def flip(p, n, generator=None):
    _validate(p, n)
    u = torch.rand(p.shape[0], n, dtype=p.dtype, device=p.device)
    return (u < p.unsqueeze(1)).to(torch.int64)
