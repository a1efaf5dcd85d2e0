"""Correct, another way: every sum taken in log space with torch.logsumexp.

The ordinary estimate is (mean of the weights) x (the self-normalized estimate), and the mean of
the weights is exp(logsumexp(log w) - log N), which never overflows when the answer does not.
The effective sample size is exp(2 logsumexp(log w) - logsumexp(2 log w)). The sampler accumulates
in float64 and casts back.
"""

import math

import torch


def _log_weights(log_p, log_q, *others):
    tensors = (log_p, log_q, *others)
    if not all(isinstance(t, torch.Tensor) and t.dim() == 2 and t.is_floating_point() for t in tensors):
        raise ValueError("inputs must be 2-D floating tensors [B, N]")
    if any(t.shape != log_p.shape or t.dtype != log_p.dtype for t in tensors) or log_p.shape[1] < 1:
        raise ValueError("inputs must share one shape [B, N], N >= 1, and one dtype")
    if not all(bool(torch.isfinite(t).all()) for t in tensors):
        raise ValueError("inputs must be finite")
    return log_p - log_q


def importance_estimates(log_p, log_q, f):
    log_w = _log_weights(log_p, log_q, f)
    self_normalized = (torch.softmax(log_w, dim=1) * f).sum(dim=1)
    mean_weight = torch.exp(torch.logsumexp(log_w, dim=1) - math.log(log_w.shape[1]))
    return mean_weight * self_normalized, self_normalized


def effective_sample_size(log_p, log_q):
    log_w = _log_weights(log_p, log_q)
    return torch.exp(2 * torch.logsumexp(log_w, dim=1) - torch.logsumexp(2 * log_w, dim=1))


def truncated_estimate(log_p, log_q, f, cap):
    log_w = _log_weights(log_p, log_q, f)
    if isinstance(cap, bool) or not isinstance(cap, (int, float)) or not (0 < cap < math.inf):
        raise ValueError(f"cap must be a finite number > 0, got {cap!r}")
    capped = torch.minimum(log_w, torch.full_like(log_w, math.log(cap)))
    return (capped.exp() * f).mean(dim=1)


def sample_estimate(p, q, f, num_samples, cap=None, generator=None):
    if not all(isinstance(t, torch.Tensor) and t.dim() == 2 and t.is_floating_point() for t in (p, q, f)):
        raise ValueError("p, q and f must be 2-D floating tensors [B, V]")
    if q.shape != p.shape or f.shape != p.shape or q.dtype != p.dtype or f.dtype != p.dtype:
        raise ValueError("p, q and f must share one shape and one dtype")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 2:
        raise ValueError("num_samples must be an integer >= 2")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, (int, float)) or not (0 < cap < math.inf)):
        raise ValueError(f"cap must be a finite number > 0, got {cap!r}")
    if not all(bool(torch.isfinite(t).all()) for t in (p, q, f)) or bool((p < 0).any() | (q < 0).any()):
        raise ValueError("p, q and f must be finite, p and q >= 0")
    if bool(((q == 0) & (p > 0)).any()):
        raise ValueError("q must cover p")
    if not bool((q > 0).any(dim=1).all()):
        raise ValueError("a row of q has no positive value: nothing can be drawn from it")
    draws = torch.multinomial(q, num_samples, replacement=True, generator=generator)
    p64, q64, f64 = (t.to(torch.float64).gather(1, draws) for t in (p, q, f))
    weights = p64 / q64
    if cap is not None:
        weights = weights.clamp(max=float(cap))
    values = weights * f64
    mean = values.mean(dim=1)
    variance = ((values - mean.unsqueeze(1)) ** 2).sum(dim=1) / (num_samples - 1)
    return mean.to(p.dtype), (variance / num_samples).sqrt().to(p.dtype)
