"""Reference solution for exercise 44: importance sampling from log-weights, stably."""

import math

import torch


def _log_inputs(log_p, log_q, f=None):
    tensors = [log_p, log_q] + ([] if f is None else [f])
    for t in tensors:
        if not isinstance(t, torch.Tensor) or t.dim() != 2 or not t.is_floating_point():
            raise ValueError("inputs must be 2-D floating tensors [B, N]")
    if any(t.shape != log_p.shape or t.dtype != log_p.dtype for t in tensors):
        raise ValueError("inputs must share one shape [B, N] and one dtype")
    if log_p.shape[1] < 1:
        raise ValueError("each row needs at least one sample")
    if not all(bool(torch.isfinite(t).all()) for t in tensors):
        raise ValueError("inputs must be finite")
    return log_p - log_q


def importance_estimates(log_p, log_q, f):
    log_w = _log_inputs(log_p, log_q, f)
    top = log_w.amax(dim=1, keepdim=True)
    scaled = torch.exp(log_w - top)  # in (0, 1], the largest exactly 1: nothing overflows
    ordinary = torch.exp(top.squeeze(1)) * (scaled * f).mean(dim=1)  # mean first: the sum may overflow
    self_normalized = (scaled * f).sum(dim=1) / scaled.sum(dim=1)
    return ordinary, self_normalized


def effective_sample_size(log_p, log_q):
    log_w = _log_inputs(log_p, log_q)
    normalized = torch.softmax(log_w, dim=1)  # w / sum w, computed stably
    return 1.0 / (normalized * normalized).sum(dim=1)


def _cap(cap):
    """A legal cap as it was given: an int (of any size) or a finite float, > 0."""
    if isinstance(cap, bool) or not isinstance(cap, (int, float)) or cap <= 0:
        raise ValueError(f"cap must be a finite number > 0, got {cap!r}")
    if isinstance(cap, float) and not math.isfinite(cap):
        raise ValueError(f"cap must be a finite number > 0, got {cap!r}")
    return cap


def truncated_estimate(log_p, log_q, f, cap):
    log_w = _log_inputs(log_p, log_q, f)
    cap = _cap(cap)
    # min(w, cap) = exp(min(log w, log cap)): the raw ratio is capped, and exp never overflows.
    # math.log takes any cap, a huge int too (a float(cap) would overflow).
    weights = torch.exp(log_w.clamp(max=math.log(cap)))
    return (weights * f).mean(dim=1)


def sample_estimate(p, q, f, num_samples, cap=None, generator=None):
    for t in (p, q, f):
        if not isinstance(t, torch.Tensor) or t.dim() != 2 or not t.is_floating_point():
            raise ValueError("p, q and f must be 2-D floating tensors [B, V]")
    if p.shape != q.shape or f.shape != p.shape or q.dtype != p.dtype or f.dtype != p.dtype:
        raise ValueError("p, q and f must share one shape [B, V] and one dtype")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 2:
        raise ValueError(f"num_samples must be an integer >= 2, got {num_samples!r}")
    if not all(bool(torch.isfinite(t).all()) for t in (p, q, f)) or bool((p < 0).any()) or bool((q < 0).any()):
        raise ValueError("p, q and f must be finite, p and q >= 0")
    if bool(((q == 0) & (p > 0)).any()):
        raise ValueError("q must be > 0 wherever p > 0")
    if not bool((q > 0).any(dim=1).all()):
        raise ValueError("every row of q needs a positive value (V >= 1): nothing can be drawn from it")
    weights = torch.where(q > 0, p / torch.where(q > 0, q, torch.ones_like(q)), torch.zeros_like(q))
    if cap is not None and _cap(cap) < torch.finfo(weights.dtype).max:  # a larger cap caps nothing
        weights = weights.clamp(max=float(cap))
    draws = torch.multinomial(q, num_samples, replacement=True, generator=generator)  # [B, n] from q
    values = (weights * f).gather(1, draws)  # w(x) f(x) for each draw
    estimate = values.mean(dim=1)
    se = values.std(dim=1) / math.sqrt(num_samples)  # sample standard deviation (n - 1)
    return estimate, se
