"""Weighted coin through torch.bernoulli on p broadcast to the [B, n] grid of flips."""

import torch


class _Bad(ValueError):
    pass


def _check_probabilities(p):
    if not torch.is_tensor(p):
        raise _Bad("p has to be a tensor")
    if len(p.shape) != 1:
        raise _Bad(f"p has to be 1-D, its shape is {tuple(p.shape)}")
    if not torch.is_floating_point(p):
        raise _Bad("p has to hold floating point values")
    inside = (p >= 0) & (p <= 1)  # False for NaN too
    if not bool(inside.all()):
        raise _Bad("p holds a value outside [0, 1] or NaN")


def flip(p, n, generator=None):
    _check_probabilities(p)
    if isinstance(n, bool) or not isinstance(n, int):
        raise _Bad("n has to be an int")
    if n < 1:
        raise _Bad("n has to be at least 1")
    grid = p.reshape(-1, 1).expand(p.numel(), n).contiguous()
    return torch.bernoulli(grid, generator=generator).to(dtype=torch.int64)
