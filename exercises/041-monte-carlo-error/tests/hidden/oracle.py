"""Exact answers of exercise 41, computed in the judge's process (float64 and exact fractions).

Written apart from the reference solution: the mean and the standard error exactly, row by row, from
each float's integer ratio (not torch), the number of samples with ``fractions.Fraction``. Also what each known
mistake returns, for the diagnoses.
"""

from __future__ import annotations

import math
from fractions import Fraction

import torch

from judge.i18n import Bilingual

from ..public.checks41 import MeanCase, NeededCase
from ..public.diagnoses import MISTAKES

# samples_needed: a bound within this relative distance of a whole number (without being one) accepts both
# neighbours, since inputs such as 0.1 and 1.2 are not what their decimals say.
NEAR_WHOLE = 1e-9
# mean_and_standard_error: a mistake's standard errors must differ from the answer by this much (relative)
# somewhere in a case for the case to name it: 5 times the float32 tolerance.
DISTINCT = 5e-3


def mean_case(samples: torch.Tensor, public: Bilingual | None) -> MeanCase:
    """The exact mean and standard error of each row of ``samples`` (as the tensor holds them), and the mistakes'.

    Exact: the row's sum and squared deviations as fractions (a float is a binary fraction), rounded
    once at the end, so a constant row's standard error is exactly 0 and no rounding of the oracle's own
    mean leaves a residue that a known mistake's value would seem to match."""
    rows = samples.to(torch.float64).tolist()
    n = len(rows[0])
    means, squares = [], []
    for row in rows:
        total, total_sq, scale = _exact_sums(row)
        means.append(float(Fraction(total, n * scale)))
        # sum (v - mean)^2 = (n sum v^2 - (sum v)^2) / n, in integers over scale^2: exact.
        squares.append(float(Fraction(n * total_sq - total * total, n * scale * scale)))
    sample_var = [s / (n - 1) for s in squares]
    se = [math.sqrt(v / n) for v in sample_var]
    mistaken = {
        MISTAKES["se_divides_by_n"]: [math.sqrt(v) / n for v in sample_var],
        MISTAKES["population_variance"]: [math.sqrt(s / n / n) for s in squares],
        MISTAKES["se_is_variance"]: [v / n for v in sample_var],
        MISTAKES["se_not_divided"]: [math.sqrt(v) for v in sample_var],
    }
    # Two mistakes that agree on this case (at n = 2, s / n is the population s / sqrt(n)) name neither, and
    # a mistake within DISTINCT of the answer (n - 1 against n for large n) is no mistake at this tolerance.
    distinct = {
        d: v
        for d, v in mistaken.items()
        if sum(v == other for other in mistaken.values()) == 1
        and any(abs(a - b) > DISTINCT * b for a, b in zip(v, se, strict=True))
    }
    as_tensor = lambda values: torch.tensor(values, dtype=torch.float64)  # noqa: E731
    return MeanCase(samples, as_tensor(means), as_tensor(se), {d: as_tensor(v) for d, v in distinct.items()}, public)


def _exact_sums(row: list[float]) -> tuple[int, int, int]:
    """(sum of v, sum of v^2, d) for the floats of ``row`` as integers over one power of two d (sum v = the
    first / d, sum v^2 = the second / d^2): a float is a binary fraction, so this is exact, and Python's
    integers add thousands of them far faster than Fractions do."""
    ratios = [v.as_integer_ratio() for v in row]
    scale = max(q for _, q in ratios)
    ints = [p * (scale // q) for p, q in ratios]
    return sum(ints), sum(i * i for i in ints), scale


def bound(delta: float, sigma: float, num_se: float) -> Fraction:
    """2 (num_se sigma / delta)^2, exactly, for the floats as given."""
    return 2 * (Fraction(num_se) * Fraction(sigma) / Fraction(delta)) ** 2


def accepted_answers(x: Fraction) -> tuple[int, ...]:
    """The answers accepted for the bound ``x``: floor(x) + 1, and where x lies within a relative
    ``NEAR_WHOLE`` of a whole number N without being N, both N and N + 1 (the statement's words)."""
    nearest = round(x)
    if x.denominator != 1 and nearest >= 1 and abs(x - nearest) <= Fraction(NEAR_WHOLE) * x:
        return (nearest, nearest + 1)
    return (math.floor(x) + 1,)


def _in_floats(bound_in_floats) -> int:
    """floor(b) + 1 for a mistake's bound b computed in floats; -1 where the floats overflow."""
    try:
        return math.floor(bound_in_floats()) + 1
    except (OverflowError, ValueError):  # inf ** 2 overflows, floor(inf) is a ValueError... or Overflow
        return -1


def _decimal(value: float) -> Fraction:
    """The shortest decimal that prints as ``value``: what ``Fraction(str(x))`` reads (a known mistake)."""
    return Fraction(str(value))


def needed_case(delta: float, sigma: float, num_se: float) -> NeededCase:
    """The answer floor(bound) + 1, the answers accepted, and each mistake's answer."""
    x = bound(delta, sigma, num_se)
    mistaken = {
        "one_sample": math.floor(x / 2) + 1,
        "not_squared": _in_floats(lambda: math.sqrt(2) * num_se * sigma / delta),
        "rounds_down": math.floor(x),
        "not_strict": math.ceil(x),
        "inexact_bound": _in_floats(lambda: (num_se * math.sqrt(2) * sigma / delta) ** 2),
        "float_bound": _in_floats(lambda: 2 * (num_se * sigma / delta) ** 2),
        "decimal_fraction": math.floor(2 * (_decimal(num_se) * _decimal(sigma) / _decimal(delta)) ** 2) + 1,
    }
    return NeededCase(delta, sigma, num_se, accepted_answers(x), mistaken, x.denominator == 1)
