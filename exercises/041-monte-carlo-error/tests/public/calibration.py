"""TEMPORARY private calibration checks of exercise 41, until the engine's estimator checks land.

The same contract as ``judge.checks.expect_calibrated`` / ``expect_unbiased`` (being written on
main); each spends one ``independence`` unit of the budget (fixed level 1e-8), split over the z
levels for the calibration check. Exact binomial tails through ``judge.stats.binom_sf``.
"""

from __future__ import annotations

import math

import torch

from judge.checks import CheckFailed, fail, rule
from judge.stats import binom_sf


def _learner_vector(value, name: str, label: str, size: int | None = None) -> list[float]:
    if not isinstance(value, torch.Tensor) or value.dim() != 1 or not value.is_floating_point():
        fail(f"{label}: the {name} must be a 1-D floating tensor",
             rule=rule(label, f"the {name} have the wrong type or shape", "返回值的类型或形状不对"))
    values = [float(v) for v in value.to(torch.float64).tolist()]
    if size is not None and len(values) != size:
        fail(f"{label}: {len(values)} {name} for {size} estimates",
             rule=rule(label, f"the {name} have the wrong shape", "返回值的形状不对"))
    if not all(math.isfinite(v) for v in values):
        fail(f"{label}: the {name} must be finite", rule=rule(label, f"the {name} are not finite", "返回值不是有限数"))
    return values


def _two_sided(k: int, m: int, lo: float, hi: float) -> float:
    """Two-sided exact binomial p-value of k in m against the composite null c in [lo, hi]."""
    upper = binom_sf(k, m, hi) if k > m * hi else 1.0  # too many covered: tested at the largest c
    lower = 1.0 - binom_sf(k + 1, m, lo) if k < m * lo else 1.0  # too few: at the smallest c
    return min(1.0, 2 * min(upper, lower))


def _log_likelihood(counts: dict[float, int], m: int, coverage: dict[float, float]) -> float:
    total = 0.0
    for z, k in counts.items():
        c = min(max(coverage[z], 1e-300), 1 - 1e-16)
        total += k * math.log(c) + (m - k) * math.log1p(-c)
    return total


def _normal_quantile(q: float) -> float:
    lo, hi = 0.0, 40.0  # bisection on erf: q = erf(x / sqrt 2)
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid / math.sqrt(2)) < q else (lo, mid)
    return (lo + hi) / 2


def expect_calibrated(ctx, estimates, errors, truth: float, *, label: str, coverage: dict, public=None,
                      mistakes=None) -> None:
    values = _learner_vector(estimates, "estimates", label)
    bars = _learner_vector(errors, "standard errors", label, len(values))
    if any(b < 0 for b in bars):
        fail(f"{label}: a standard error is negative", rule=rule(public or label, "a standard error is negative",
                                                                  "标准误为负数"))
    alpha = ctx.budget.spend("independence") / len(coverage)
    m = len(values)
    counts = {z: sum(abs(v - truth) <= z * b for v, b in zip(values, bars)) for z in coverage}
    null = {z: (c, c) if isinstance(c, float) else tuple(c) for z, c in coverage.items()}
    for z, k in counts.items():
        lo, hi = null[z]
        p_value = _two_sided(k, m, lo, hi)
        if p_value >= alpha:
            continue
        narrow = k < m * lo
        covered = min(max(k / m, 1e-9), 1 - 1e-9)
        scale = z / _normal_quantile(covered) * _normal_quantile((lo + hi) / 2) / z
        diagnosis = None
        if mistakes:
            table = mistakes() if callable(mistakes) else mistakes
            point = {z2: (a + b) / 2 for z2, (a, b) in null.items()}
            base = _log_likelihood(counts, m, point)
            best = max(table, key=lambda d: _log_likelihood(counts, m, table[d]))
            if _log_likelihood(counts, m, table[best]) > base + 10:
                diagnosis = best
        raise CheckFailed(
            f"{label}: the intervals estimate +- {z:g} x error covered the true value {k} times in {m}; a correct "
            f"procedure covers it with probability {lo:.4f}" + (f"..{hi:.4f}" if hi != lo else "")
            + f" (p = {p_value:.3g}, threshold {alpha:.3g}). Your error bars are "
            + ("too narrow (over-confident)" if narrow else "too wide")
            + f": about {1 / scale:.3g} times the right size",
            p_value=p_value, diagnosis=diagnosis,
            rule=rule(public or label, "the error bars are " + ("too narrow (over-confident)" if narrow else "too wide"),
                      "误差条" + ("过窄（过于自信）" if narrow else "过宽")))


def expect_unbiased(ctx, estimates, truth: float, *, std: float, label: str, public=None, mistakes=None) -> None:
    values = _learner_vector(estimates, "estimates", label)
    m = len(values)
    alpha = ctx.budget.spend("independence")
    mean = math.fsum(values) / m
    z = (mean - truth) / (std / math.sqrt(m))
    p_value = math.erfc(abs(z) / math.sqrt(2))
    if p_value >= alpha:
        return
    diagnosis = None
    if mistakes:
        table = mistakes() if callable(mistakes) else mistakes
        best = min(table, key=lambda d: abs(mean - table[d]))
        if abs(mean - table[best]) * math.sqrt(m) / std < 4:
            diagnosis = best
    raise CheckFailed(
        f"{label}: the mean of {m} estimates is {mean:.6g}; the true value is {truth:.6g} and a correct estimator's "
        f"mean is within {std / math.sqrt(m):.3g} of it (z = {z:.2f}, p = {p_value:.3g}, threshold {alpha:.3g})",
        p_value=p_value, diagnosis=diagnosis,
        rule=rule(public or label, "the estimates are biased", "估计有偏"))
