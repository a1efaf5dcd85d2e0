"""Mistake: Every stratum reuses the same two offsets v_1, v_2 (systematic sampling): the strata move
together. (red team)

Diagnosis: the strata share their uniforms (the same v in every stratum, systematic sampling): each stratum
needs its own two independent uniforms, or the standard error from the gaps no longer holds
"""

from __future__ import annotations

import torch


def _check(probs, *others, num_samples, min_n, even=False):
    for name, t in (("probs", probs),) + others:
        if not isinstance(t, torch.Tensor):
            raise ValueError(f"{name} must be a tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got {t.dim()}-D")
        if not t.dtype.is_floating_point:
            raise ValueError(f"{name} must be a floating tensor, got {t.dtype}")
        if t.shape != probs.shape:
            raise ValueError(f"{name} has shape {tuple(t.shape)}, probs has {tuple(probs.shape)}")
        if t.dtype != probs.dtype:
            raise ValueError(f"{name} has dtype {t.dtype}, probs has {probs.dtype}")
        if not bool(torch.isfinite(t).all()):
            raise ValueError(f"{name} holds NaN or an infinity")
    if bool((probs < 0).any()):
        raise ValueError("probs holds a negative value")
    if probs.shape[1] == 0 or bool((probs.sum(dim=1) <= 0).any()):
        raise ValueError("a row of probs sums to 0")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int):
        raise ValueError(f"num_samples must be an int, got {type(num_samples).__name__}")
    if num_samples < min_n:
        raise ValueError(f"num_samples must be at least {min_n}, got {num_samples}")
    if even and num_samples % 2:
        raise ValueError(f"num_samples must be even, got {num_samples}")


def _inverse_cdf(probs, u):
    """Tokens F^-1(u) for u [B, m]: the smallest v with u < c_v, else the last token with p > 0."""
    p = probs / probs.sum(dim=1, keepdim=True)
    c = torch.cumsum(p, dim=1)
    idx = torch.searchsorted(c, u.to(c.dtype).contiguous(), right=True)
    V = probs.shape[1]
    pos = torch.arange(V, device=probs.device).expand_as(probs)
    last = torch.where(probs > 0, pos, torch.full_like(pos, -1)).amax(dim=1, keepdim=True)
    return torch.minimum(idx, last)


def _rand(probs, shape, generator):
    return torch.rand(shape, generator=generator, dtype=probs.dtype, device=probs.device)


def plain_estimate(probs, values, num_samples, generator=None):
    _check(probs, ("values", values), num_samples=num_samples, min_n=2)
    B = probs.shape[0]
    x = _inverse_cdf(probs, _rand(probs, (B, num_samples), generator))
    y = values.gather(1, x)
    return y.mean(dim=1), y.std(dim=1) / num_samples**0.5


def antithetic_estimate(probs, values, num_samples, generator=None):
    _check(probs, ("values", values), num_samples=num_samples, min_n=4, even=True)
    B = probs.shape[0]
    m = num_samples // 2
    u = _rand(probs, (B, m), generator)
    x1 = _inverse_cdf(probs, u)
    x2 = _inverse_cdf(probs, 1 - u)
    z = (values.gather(1, x1) + values.gather(1, x2)) / 2
    return z.mean(dim=1), z.std(dim=1) / m**0.5


def stratified_estimate(probs, values, num_samples, generator=None):
    _check(probs, ("values", values), num_samples=num_samples, min_n=4, even=True)
    B = probs.shape[0]
    K = num_samples // 2
    v = _rand(probs, (B, 1, 2), generator).expand(B, K, 2)
    k = torch.arange(K, dtype=probs.dtype, device=probs.device).view(1, K, 1)
    u = (k + v) / K
    x = _inverse_cdf(probs, u.reshape(B, 2 * K)).view(B, K, 2)
    y = values.gather(1, x.reshape(B, 2 * K)).view(B, K, 2)
    est = y.mean(dim=(1, 2))
    se = ((y[:, :, 0] - y[:, :, 1]) ** 2).sum(dim=1).sqrt() / (2 * K)
    return est, se


def control_variate_estimate(probs, values, control, num_samples, generator=None):
    _check(probs, ("values", values), ("control", control), num_samples=num_samples, min_n=3)
    B = probs.shape[0]
    n = num_samples
    p = probs / probs.sum(dim=1, keepdim=True)
    mu_g = (p * control).sum(dim=1, keepdim=True)
    x = _inverse_cdf(probs, _rand(probs, (B, n), generator))
    f = values.gather(1, x)
    g = control.gather(1, x)
    fc = f - f.mean(dim=1, keepdim=True)
    gc = g - g.mean(dim=1, keepdim=True)
    same = (g == g[:, :1]).all(dim=1, keepdim=True)
    den = (gc * gc).sum(dim=1, keepdim=True)
    beta = torch.where(
        same, torch.zeros_like(den), (fc * gc).sum(dim=1, keepdim=True) / torch.where(same, torch.ones_like(den), den)
    )
    h = f - beta * (g - mu_g)
    hbar = h.mean(dim=1, keepdim=True)
    se = (((h - hbar) ** 2).sum(dim=1) / (n * (n - 2))).sqrt()
    return hbar.squeeze(1), se
