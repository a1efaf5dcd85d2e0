"""A correct solution of exercise 50 written row by row in Python floats: its own inverse CDF (bisect on a
cumulative list, the total as the scale), fsum for every sum, and the uniforms drawn per row from the
generator. Slower than the reference, and independent of its tensor code."""

import bisect
import math

import torch


def _check(probs, values, control, num_samples, smallest, even):
    tensors = [probs, values] + ([] if control is None else [control])
    for t in tensors:
        if not isinstance(t, torch.Tensor) or t.dim() != 2 or not t.is_floating_point():
            raise ValueError("inputs must be 2-D floating tensors")
        if t.shape != probs.shape or t.dtype != probs.dtype:
            raise ValueError("inputs must share one shape and dtype")
        if not bool(torch.isfinite(t).all()):
            raise ValueError("inputs must be finite")
    if bool((probs < 0).any()) or probs.shape[1] == 0 or not bool((probs.sum(dim=1) > 0).all()):
        raise ValueError("probs must be >= 0 with a positive sum in every row")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < smallest:
        raise ValueError(f"num_samples must be an int >= {smallest}")
    if even and num_samples % 2:
        raise ValueError("num_samples must be even")


class _Row:
    def __init__(self, weights):
        self.total = math.fsum(weights)
        running, self.ends = 0.0, []
        for w in weights:
            running += w
            self.ends.append(running / self.total)
        self.last = max(v for v, w in enumerate(weights) if w > 0)

    def token(self, u):
        return min(bisect.bisect_right(self.ends, u), self.last)  # the smallest v with u < ends[v]


def _mean_se(ys, offset=1):
    m = len(ys)
    mean = math.fsum(ys) / m
    return mean, math.sqrt(math.fsum((y - mean) ** 2 for y in ys) / (m - offset) / m)


def _uniforms(probs, count, generator):
    u = torch.rand(probs.shape[0], count, generator=generator, device=probs.device, dtype=torch.float64)
    return u.cpu().tolist()


def _out(pairs, probs):
    estimates = torch.tensor([e for e, _ in pairs], dtype=probs.dtype, device=probs.device)
    errors = torch.tensor([s for _, s in pairs], dtype=probs.dtype, device=probs.device)
    return estimates, errors


def _rows(probs, *others):
    return [probs.double().cpu().tolist()] + [t.double().cpu().tolist() for t in others]


def plain_estimate(probs, values, num_samples, generator=None):
    _check(probs, values, None, num_samples, 2, False)
    rows, fs = _rows(probs, values)
    us = _uniforms(probs, num_samples, generator)
    out = []
    for weights, f, u in zip(rows, fs, us, strict=True):
        row = _Row(weights)
        out.append(_mean_se([f[row.token(x)] for x in u]))
    return _out(out, probs)


def antithetic_estimate(probs, values, num_samples, generator=None):
    _check(probs, values, None, num_samples, 4, True)
    rows, fs = _rows(probs, values)
    us = _uniforms(probs, num_samples // 2, generator)
    out = []
    for weights, f, u in zip(rows, fs, us, strict=True):
        row = _Row(weights)
        out.append(_mean_se([(f[row.token(x)] + f[row.token(1.0 - x)]) / 2 for x in u]))
    return _out(out, probs)


def stratified_estimate(probs, values, num_samples, generator=None):
    _check(probs, values, None, num_samples, 4, True)
    strata = num_samples // 2
    rows, fs = _rows(probs, values)
    vs = _uniforms(probs, num_samples, generator)
    out = []
    for weights, f, v in zip(rows, fs, vs, strict=True):
        row = _Row(weights)
        ys = [f[row.token((k + v[2 * k + i]) / strata)] for k in range(strata) for i in (0, 1)]
        gaps = math.fsum((ys[2 * k] - ys[2 * k + 1]) ** 2 for k in range(strata))
        out.append((math.fsum(ys) / num_samples, math.sqrt(gaps) / (2 * strata)))
    return _out(out, probs)


def control_variate_estimate(probs, values, control, num_samples, generator=None):
    _check(probs, values, control, num_samples, 3, False)
    rows, fs, gs = _rows(probs, values, control)
    us = _uniforms(probs, num_samples, generator)
    out = []
    for weights, f, g, u in zip(rows, fs, gs, us, strict=True):
        row = _Row(weights)
        known = math.fsum(w * c for w, c in zip(weights, g, strict=True)) / row.total
        tokens = [row.token(x) for x in u]
        fd, gd = [f[t] for t in tokens], [g[t] for t in tokens]
        fm, gm = math.fsum(fd) / num_samples, math.fsum(gd) / num_samples
        beta = 0.0
        if any(x != gd[0] for x in gd):
            covariance = math.fsum((a - fm) * (b - gm) for a, b in zip(fd, gd, strict=True))
            beta = covariance / math.fsum((b - gm) ** 2 for b in gd)
        out.append(_mean_se([a - beta * (b - known) for a, b in zip(fd, gd, strict=True)], 2))
    return _out(out, probs)
