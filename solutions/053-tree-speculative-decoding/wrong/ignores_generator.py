"""Mistake: the draws come from torch's default generator; the generator argument is never used.

Diagnosis: with a generator given, the code still draws from (or re-seeds) torch's global generator
"""

import torch


def _validate(probs, n):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 1 or not probs.is_floating_point():
        raise ValueError("probs must be a 1-D floating tensor [V]")
    if torch.isnan(probs).any() or (probs < 0).any():
        raise ValueError("probs must hold no NaN and no negative value")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")


def draw(probs, n, generator=None):
    _validate(probs, n)
    return torch.multinomial(probs, n, replacement=True)
