"""Reference solution for exercise 50: plain, antithetic, stratified and control-variate estimates of E_p[f]."""

import math

import torch


def _inputs(probs, values, control=None):
    tensors = [probs, values] + ([] if control is None else [control])
    for t in tensors:
        if not isinstance(t, torch.Tensor) or t.dim() != 2 or not t.is_floating_point():
            raise ValueError("probs, values and control must be 2-D floating tensors [B, V]")
    if any(t.shape != probs.shape or t.dtype != probs.dtype for t in tensors):
        raise ValueError("probs, values and control must share one shape [B, V] and one dtype")
    if not all(bool(torch.isfinite(t).all()) for t in tensors):
        raise ValueError("probs, values and control must be finite")
    if bool((probs < 0).any()):
        raise ValueError("probs must be >= 0")
    if not bool((probs.sum(dim=1) > 0).all()):
        raise ValueError("every row of probs needs a positive sum (V >= 1)")


def _count(num_samples, smallest, even=False):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < smallest:
        raise ValueError(f"num_samples must be an integer >= {smallest}, got {num_samples!r}")
    if even and num_samples % 2:
        raise ValueError(f"num_samples must be even (pairs of draws), got {num_samples}")


def _inverse_cdf(probs, u):
    """Token ids [B, m]: the smallest v with u < c_v, c the normalized cumulative sum; the last token of
    positive probability where u reaches the (rounded) end of c."""
    cdf = (probs / probs.sum(dim=1, keepdim=True)).cumsum(dim=1)
    tokens = torch.searchsorted(cdf, u.to(cdf.dtype).contiguous(), right=True)
    positive = torch.arange(probs.shape[1], device=probs.device).expand_as(probs).masked_fill(probs <= 0, -1)
    return torch.minimum(tokens, positive.amax(dim=1, keepdim=True))


def _mean_and_se(y):
    """Row means of y [B, m] and their standard errors s / sqrt(m), s the sample deviation (m - 1)."""
    return y.mean(dim=1), y.std(dim=1) / math.sqrt(y.shape[1])


def plain_estimate(probs, values, num_samples, generator=None):
    _inputs(probs, values)
    _count(num_samples, 2)
    u = torch.rand(probs.shape[0], num_samples, generator=generator, device=probs.device, dtype=probs.dtype)
    return _mean_and_se(values.gather(1, _inverse_cdf(probs, u)))


def antithetic_estimate(probs, values, num_samples, generator=None):
    _inputs(probs, values)
    _count(num_samples, 4, even=True)
    u = torch.rand(probs.shape[0], num_samples // 2, generator=generator, device=probs.device, dtype=probs.dtype)
    first = values.gather(1, _inverse_cdf(probs, u))
    second = values.gather(1, _inverse_cdf(probs, 1 - u))
    return _mean_and_se((first + second) / 2)  # the pair means are the independent units


def stratified_estimate(probs, values, num_samples, generator=None):
    _inputs(probs, values)
    _count(num_samples, 4, even=True)
    strata = num_samples // 2
    shape = (probs.shape[0], strata, 2)
    v = torch.rand(shape, generator=generator, device=probs.device, dtype=probs.dtype)
    k = torch.arange(strata, device=probs.device, dtype=probs.dtype).view(1, strata, 1)
    u = ((k + v) / strata).reshape(probs.shape[0], num_samples)  # two draws in [k/K, (k+1)/K) each
    y = values.gather(1, _inverse_cdf(probs, u)).view(shape)
    estimate = y.mean(dim=(1, 2))
    # Var = sum_k sigma_k^2 / (2 K^2); (y1 - y2)^2 / 2 estimates sigma_k^2 without bias.
    gaps = y[:, :, 0] - y[:, :, 1]
    return estimate, (gaps * gaps).sum(dim=1).sqrt() / (2 * strata)


def control_variate_estimate(probs, values, control, num_samples, generator=None):
    _inputs(probs, values, control)
    _count(num_samples, 3)
    known_mean = (probs * control).sum(dim=1, keepdim=True) / probs.sum(dim=1, keepdim=True)
    u = torch.rand(probs.shape[0], num_samples, generator=generator, device=probs.device, dtype=probs.dtype)
    tokens = _inverse_cdf(probs, u)
    f, g = values.gather(1, tokens), control.gather(1, tokens)
    f_dev = f - f.mean(dim=1, keepdim=True)
    g_dev = g - g.mean(dim=1, keepdim=True)
    spread = (g_dev * g_dev).sum(dim=1, keepdim=True)
    constant = (g == g[:, :1]).all(dim=1, keepdim=True)  # rounding can leave a tiny spread: compare values
    beta = torch.where(constant, torch.zeros_like(spread), (f_dev * g_dev).sum(dim=1, keepdim=True) / spread)
    adjusted = f - beta * (g - known_mean)
    estimate = adjusted.mean(dim=1)
    residuals = adjusted - estimate.unsqueeze(1)
    return estimate, ((residuals * residuals).sum(dim=1) / (num_samples - 2) / num_samples).sqrt()
