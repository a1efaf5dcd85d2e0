"""Correct: the Gumbel and race scores in the inputs' own precision (float32 for float32 inputs), and
float32 uniforms in sample for float32 probabilities; the inverse CDF accumulates and compares in float64,
as the statement asks (a float32 CDF misses the designed exact steps).

Every generated decision of the tests has a margin far above float32 rounding, so this passes too.
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
    return -torch.log(u.clamp(min=tiny))  # in u's own dtype


def inverse_cdf(probs, u):
    _check_weights(probs)
    _check_uniforms(u, (probs.shape[0], _uniform_shape(probs, u, "u")), "u")
    if u.dim() != 2:
        raise ValueError("u must have shape [B, n]")
    # The one place the statement asks for float64: the accumulation and the comparison with u.
    cumulative = probs.to(torch.float64).cumsum(dim=1)
    cdf = cumulative / cumulative[:, -1:]  # F(V - 1) is exactly 1: every u < 1 finds a token
    # The first x with F(x) > u; a zero-probability token repeats the step before it, so never wins.
    return torch.searchsorted(cdf, u.to(torch.float64).contiguous(), right=True)


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
    scores = logits.to(torch.promote_types(logits.dtype, u.dtype)).unsqueeze(1) + gumbel
    return scores.argmax(dim=2)


def exponential_race(probs, u):
    _check_weights(probs)
    batch, vocab = probs.shape
    _check_uniforms(u, (batch, _uniform_shape(probs, u, "u"), vocab), "u")
    # The token whose exponential clock E / p rings first: the largest p / E; p = 0 scores -1, below
    # a positive weight whose score underflows to 0.
    weights = probs.to(torch.promote_types(probs.dtype, u.dtype)).unsqueeze(1)
    scores = torch.where(weights > 0, weights / _exponential(u), -1.0)
    return scores.argmax(dim=2)


def build_alias(probs):
    _check_weights(probs)
    batch, vocab = probs.shape
    weights = probs.to(torch.float64)
    residual = weights * vocab / weights.sum(dim=1, keepdim=True)  # mean 1 per cell
    accept = torch.ones(batch, vocab, dtype=torch.float64, device=probs.device)
    alias = torch.arange(vocab, device=probs.device).repeat(batch, 1)
    done = torch.zeros(batch, vocab, dtype=torch.bool, device=probs.device)
    rows = torch.arange(batch, device=probs.device)
    for _ in range(vocab):
        # Pair the open item with the least mass with the open item with the most: the first
        # fills its own cell up to its mass and lends the rest of the cell to the second.
        small = residual.masked_fill(done, float("inf")).argmin(dim=1)
        done[rows, small] = True
        large = residual.masked_fill(done, float("-inf")).argmax(dim=1)
        last = done.all(dim=1)
        mass = residual[rows, small]
        accept[rows, small] = torch.where(last, torch.ones_like(mass), mass.clamp(max=1.0))
        alias[rows, small] = torch.where(last, small, large)
        lent = torch.where(last, torch.zeros_like(mass), 1.0 - mass)
        residual[rows, large] = residual[rows, large] - lent
    return accept, alias


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
        return torch.rand(*shape, generator=generator, dtype=probs.dtype, device=probs.device)

    if method == "inverse_cdf":
        return inverse_cdf(probs, uniforms(batch, num_samples))
    if method == "gumbel":
        return gumbel_max(probs.log(), uniforms(batch, num_samples, vocab))
    if method == "race":
        return exponential_race(probs, uniforms(batch, num_samples, vocab))
    accept, alias = build_alias(probs)
    return alias_draw(accept, alias, uniforms(batch, num_samples), uniforms(batch, num_samples))
