"""Mistake: each p is rounded to the nearer of 0 and 1, so nothing is random.

Diagnosis: the flips do not depend on chance: p is rounded (or compared with 0.5) instead of drawn against
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
    return torch.round(p).to(torch.int64).unsqueeze(1).expand(p.shape[0], n).contiguous()
