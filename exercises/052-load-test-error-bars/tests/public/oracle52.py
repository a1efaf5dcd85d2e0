"""Exercise 52's exact answers, computed in float64 on the judge's side, and what each known mistake returns.

Everything here is the statement's arithmetic (the quantile rule, the percentile and BCa intervals, the
jackknife, the run count, the exact law of a resampled statistic), so a learner may read it. The suites
compare the learner's values with these; the mistakes' values let a failing comparison name its mistake.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from statistics import NormalDist

import torch

_NORMAL = NormalDist()
QUANTILES = {"median": 0.5, "p90": 0.9}


def quantile(values: list[float], q: float) -> float:
    """The statement's Q(v, q): linear interpolation at position q (m - 1) of the sorted values."""
    ordered = sorted(values)
    last = len(ordered) - 1
    h = min(max(q * last, 0.0), float(last))
    below = math.floor(h)
    above = min(below + 1, last)
    return ordered[below] + (h - below) * (ordered[above] - ordered[below])


def nearest_rank(values: list[float], q: float) -> float:
    """A known mistake: the sorted value at round(q (m - 1)), without interpolation."""
    ordered = sorted(values)
    return ordered[round(q * (len(ordered) - 1))]


def statistic(values: list[float], name: str) -> float:
    if name == "mean":
        return math.fsum(values) / len(values)
    return quantile(values, QUANTILES[name])


def percentile(boot: list[float], level: float) -> tuple[float, float]:
    alpha = 1.0 - level
    return quantile(boot, alpha / 2), quantile(boot, 1 - alpha / 2)


def bca(
    estimate: float,
    boot: list[float],
    jack: list[float],
    level: float,
    *,
    z0_sign=1.0,
    a_sign=1.0,
    ties=0.5,
    shift=0.0,
    force_a=None,
):
    """The BCa interval of one row; the keywords reproduce known mistakes (a flipped sign, ties not halved), and
    ``shift`` moves both adjusted levels (how far another correct Phi or Phi^-1 may move the ends)."""
    r = len(boot)
    below = sum(1 for v in boot if v < estimate)
    equal = sum(1 for v in boot if v == estimate)
    share = min(max((below + ties * equal) / r, 0.5 / r), 1 - 0.5 / r)
    z0 = z0_sign * _NORMAL.inv_cdf(share)
    mean = math.fsum(jack) / len(jack)
    spread = [mean - v for v in jack]
    squares = math.fsum(d * d for d in spread)
    equal = all(v == jack[0] for v in jack)  # the statement's rule, not a mean that rounds away from them
    a = 0.0 if equal or squares == 0 else a_sign * math.fsum(d**3 for d in spread) / (6 * squares**1.5)
    a = a if force_a is None else force_a
    z_low = _NORMAL.inv_cdf((1.0 - level) / 2)  # z_{1 - alpha/2} = -z_{alpha/2}: exact for level near 1
    ends = []
    for z_p in (z_low, -z_low):
        z = z0 + z_p
        ends.append(quantile(boot, min(max(_NORMAL.cdf(z0 + z / (1 - a * z)) + shift, 0.0), 1.0)))
    return ends[0], ends[1]


def bca_denominators(estimate: float, boot: list[float], jack: list[float], level: float) -> float:
    """The smaller of the two 1 - a (z0 + z_p): the tests keep it well above 0 (the statement leaves <= 0 open)."""
    r = len(boot)
    below = sum(1 for v in boot if v < estimate)
    equal = sum(1 for v in boot if v == estimate)
    z0 = _NORMAL.inv_cdf(min(max((below + 0.5 * equal) / r, 0.5 / r), 1 - 0.5 / r))
    mean = math.fsum(jack) / len(jack)
    spread = [mean - v for v in jack]
    squares = math.fsum(d * d for d in spread)
    equal = all(v == jack[0] for v in jack)
    a = 0.0 if equal or squares == 0 else math.fsum(d**3 for d in spread) / (6 * squares**1.5)
    z_low = _NORMAL.inv_cdf((1.0 - level) / 2)
    return min(1 - a * (z0 + z_p) for z_p in (z_low, -z_low))


def jackknife(values: list[float], name: str) -> list[float]:
    return [statistic(values[:i] + values[i + 1 :], name) for i in range(len(values))]


def rows_of(tensor: torch.Tensor) -> list[list[float]]:
    return tensor.to(torch.float64).tolist()


def percentile_rows(boot: torch.Tensor, level: float, fn=percentile) -> torch.Tensor:
    return torch.tensor([list(fn(row, level)) for row in rows_of(boot)], dtype=torch.float64)


def bca_rows(estimate: torch.Tensor, boot: torch.Tensor, jack: torch.Tensor, level: float, **mistake) -> torch.Tensor:
    est = estimate.to(torch.float64).tolist()
    out = [list(bca(e, b, j, level, **mistake)) for e, b, j in zip(est, rows_of(boot), rows_of(jack), strict=True)]
    return torch.tensor(out, dtype=torch.float64)


def jackknife_rows(samples: torch.Tensor, name: str, stat=None) -> torch.Tensor:
    stat = stat or statistic
    return torch.tensor(
        [[stat(row[:i] + row[i + 1 :], name) for i in range(len(row))] for row in rows_of(samples)],
        dtype=torch.float64,
    )


# --- runs_needed --------------------------------------------------------------------------------------


def runs_quotient(sd_a: float, sd_b: float, difference: float, z: float) -> float:
    return z * z * (sd_a * sd_a + sd_b * sd_b) / (difference * difference)


def runs_accepted(sd_a: float, sd_b: float, difference: float, z: float) -> tuple[int, ...]:
    """The answer, and its neighbour where the quotient is within 1e-9 of an integer (the statement's rule)."""
    x = runs_quotient(sd_a, sd_b, difference, z)
    exact = Fraction(z) ** 2 * (Fraction(sd_a) ** 2 + Fraction(sd_b) ** 2) / Fraction(difference) ** 2
    answers = {max(1, math.ceil(x)), max(1, math.ceil(exact))}
    nearest = round(x)
    if exact.denominator != 1 and abs(x - nearest) <= 1e-9 * max(1.0, abs(x)):
        answers |= {max(1, nearest), max(1, nearest + 1)}  # rounding decides: both neighbours
    return tuple(sorted(answers))


def runs_mistakes(sd_a: float, sd_b: float, difference: float, z: float) -> dict[str, int]:
    """What each known mistake of runs_needed answers."""
    d2 = difference * difference
    return {
        "runs_one_sample": max(1, math.ceil(z * z * sd_a * sd_a / d2)),
        "runs_rounds_down": max(1, math.floor(runs_quotient(sd_a, sd_b, difference, z))),
        "runs_z_not_squared": max(1, math.ceil(z * (sd_a * sd_a + sd_b * sd_b) / d2)),
        "runs_sd_sum": max(1, math.ceil(z * z * (sd_a + sd_b) ** 2 / d2)),
        "runs_strict": math.floor(runs_quotient(sd_a, sd_b, difference, z)) + 1,
    }


# --- the exact law of a resampled statistic -----------------------------------------------------------


def resample_law(values: list[float], name: str, size: int | None = None, stat=None) -> dict[float, float]:
    """P(statistic of n indices drawn with replacement = v), by enumerating all n^n index tuples.

    ``size`` draws another number of indices (a known mistake); values are keyed rounded to 1e-9."""
    stat = stat or statistic
    n = len(values)
    size = n if size is None else size
    law: dict[float, float] = {}
    weight = 1.0 / n**size
    for picks in itertools.product(range(n), repeat=size):
        v = round(stat([values[i] for i in picks], name), 9)
        law[v] = law.get(v, 0.0) + weight
    return law


def point_law(value: float) -> dict[float, float]:
    return {round(value, 9): 1.0}
