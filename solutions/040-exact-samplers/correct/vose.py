"""Correct: Vose's alias tables (two stacks per row), a counting inverse CDF, the race as the first clock E / p.

The tables differ from the reference's; their implied distributions are the same.
"""

import torch

METHODS = ("inverse_cdf", "gumbel", "race", "alias")


def _check_weights(probs, name="probs"):
    if not isinstance(probs, torch.Tensor) or probs.dim() != 2 or not probs.is_floating_point():
        raise ValueError(f"{name} must be a 2-D floating tensor [B, V]")
    if probs.shape[0] < 1 or probs.shape[1] < 1:
        raise ValueError(f"{name} must have at least one row and one column")
    if not torch.isfinite(probs).all():
        raise ValueError(f"{name} must be finite (no NaN, no inf)")
    if (probs < 0).any():
        raise ValueError(f"{name} must not be negative")
    if (probs.sum(dim=1) <= 0).any():
        raise ValueError(f"every row of {name} needs a positive sum")


def _check_uniforms(u, shape, name):
    if not isinstance(u, torch.Tensor) or not u.is_floating_point():
        raise ValueError(f"{name} must be a floating tensor")
    if tuple(u.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {list(shape)}, got {list(u.shape)}")
    if torch.isnan(u).any() or (u < 0).any() or (u >= 1).any():
        raise ValueError(f"every value of {name} must lie in [0, 1)")


def _uniform_shape(probs, u, name):
    if not isinstance(u, torch.Tensor) or u.dim() < 2:
        raise ValueError(f"{name} must be a tensor whose first dimension is B")
    return u.shape[1]


def _exponential(u):
    """E = -log(max(u, tiny)) in float64, tiny the smallest normal number of u's dtype: E in (0, inf)."""
    tiny = torch.finfo(u.dtype).tiny
    return -torch.log(u.clamp(min=tiny).to(torch.float64))


def inverse_cdf(probs, u):
    _check_weights(probs)
    _check_uniforms(u, (probs.shape[0], _uniform_shape(probs, u, "u")), "u")
    if u.dim() != 2:
        raise ValueError("u must have shape [B, n]")
    cumulative = probs.to(torch.float64).cumsum(dim=1)
    cdf = cumulative / cumulative[:, -1:]  # F(V - 1) is exactly 1: every u < 1 finds a token
    # Count the steps at or below u: the first x with F(x) > u, never a zero-probability token.
    return (cdf.unsqueeze(1) <= u.to(torch.float64).unsqueeze(2)).sum(dim=2)


def gumbel_max(logits, u):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("logits must be a 2-D floating tensor [B, V]")
    if torch.isnan(logits).any() or (logits == float("inf")).any():
        raise ValueError("logits must not hold NaN or +inf")
    if (logits == float("-inf")).all(dim=1).any():
        raise ValueError("every row of logits needs a finite value")
    batch, vocab = logits.shape
    _check_uniforms(u, (batch, _uniform_shape(logits, u, "u"), vocab), "u")
    gumbel = -torch.log(_exponential(u))
    scores = logits.to(torch.float64).unsqueeze(1) + gumbel
    return scores.argmax(dim=2)


def exponential_race(probs, u):
    _check_weights(probs)
    batch, vocab = probs.shape
    _check_uniforms(u, (batch, _uniform_shape(probs, u, "u"), vocab), "u")
    # The first clock to ring: the smallest E / p, compared as log E - log p (a token of probability 0
    # never rings; in log space a subnormal weight's clock stays finite instead of overflowing to inf).
    clocks = torch.log(_exponential(u)) - torch.log(probs.to(torch.float64)).unsqueeze(1)
    return clocks.argmin(dim=2)


def build_alias(probs):
    _check_weights(probs)
    batch, vocab = probs.shape
    weights = probs.detach().to("cpu", torch.float64)
    accept = torch.ones(batch, vocab, dtype=torch.float64)
    alias = torch.arange(vocab).repeat(batch, 1)
    for row in range(batch):
        scaled = (weights[row] * vocab / weights[row].sum()).tolist()
        small = [i for i, value in enumerate(scaled) if value < 1.0]
        large = [i for i, value in enumerate(scaled) if value >= 1.0]
        while small and large:
            s, g = small.pop(), large.pop()
            accept[row, s] = scaled[s]
            alias[row, s] = g
            scaled[g] -= 1.0 - scaled[s]
            (small if scaled[g] < 1.0 else large).append(g)
        # Whatever is left holds (up to rounding) exactly one cell of mass: accept it whole.
        for i in small + large:
            accept[row, i] = 1.0
            alias[row, i] = i
    return accept.to(probs.device), alias.to(probs.device)


def alias_draw(accept, alias, column_u, coin_u):
    if not isinstance(accept, torch.Tensor) or accept.dim() != 2 or accept.dtype != torch.float64:
        raise ValueError("accept must be a float64 tensor [B, V]")
    if not isinstance(alias, torch.Tensor) or alias.shape != accept.shape or alias.dtype != torch.int64:
        raise ValueError("alias must be an int64 tensor with the shape of accept")
    batch, vocab = accept.shape
    if torch.isnan(accept).any() or (accept < 0).any() or (accept > 1).any():
        raise ValueError("every accept value must lie in [0, 1]")
    if (alias < 0).any() or (alias >= vocab).any():
        raise ValueError("every alias must be a token id in [0, V)")
    n = _uniform_shape(accept, column_u, "column_u")
    _check_uniforms(column_u, (batch, n), "column_u")
    _check_uniforms(coin_u, (batch, n), "coin_u")
    # floor(u * V) in float64 is exact for float32 u and below V for every u < 1.
    column = (column_u.to(torch.float64) * vocab).floor().to(torch.int64).clamp(max=vocab - 1)
    keep = coin_u.to(torch.float64) < accept.gather(1, column)
    return torch.where(keep, column, alias.gather(1, column))


def sample(probs, num_samples, method, generator=None):
    _check_weights(probs)
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be an integer >= 1, got {num_samples!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    batch, vocab = probs.shape

    def uniforms(*shape):
        return torch.rand(*shape, generator=generator, dtype=torch.float64, device=probs.device)

    if method == "inverse_cdf":
        return inverse_cdf(probs, uniforms(batch, num_samples))
    if method == "gumbel":
        return gumbel_max(probs.to(torch.float64).log(), uniforms(batch, num_samples, vocab))
    if method == "race":
        return exponential_race(probs, uniforms(batch, num_samples, vocab))
    accept, alias = build_alias(probs)
    return alias_draw(accept, alias, uniforms(batch, num_samples), uniforms(batch, num_samples))
