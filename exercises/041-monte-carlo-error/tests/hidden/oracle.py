"""Exact answers of exercise 41, computed in the judge's process (float64 and exact fractions).

Written apart from the reference solution: the mean and the standard error with ``math.fsum`` row
by row (not torch), the number of samples with ``fractions.Fraction``. Also what each known
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
    """The exact mean and standard error of each row of ``samples`` (as the tensor holds them), and the mistakes'."""
    rows = [[float(v) for v in row] for row in samples.to(torch.float64).tolist()]
    n = len(rows[0])
    means, squares = [], []
    for row in rows:
        mean = math.fsum(row) / n
        means.append(mean)
        squares.append(math.fsum((v - mean) ** 2 for v in row))
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


def bound(delta: float, sigma: float, num_se: float) -> Fraction:
    """2 (num_se sigma / delta)^2, exactly, for the floats as given."""
    return 2 * (Fraction(num_se) * Fraction(sigma) / Fraction(delta)) ** 2


def needed_case(delta: float, sigma: float, num_se: float) -> NeededCase:
    """The answer floor(bound) + 1, the answers accepted, and each mistake's answer."""
    x = bound(delta, sigma, num_se)
    exact = math.floor(x) + 1
    accepted = {exact}
    if x.denominator != 1:  # near a whole number without being one: the neighbour is accepted too
        for nearby in (x * (1 - Fraction(NEAR_WHOLE)), x * (1 + Fraction(NEAR_WHOLE))):
            accepted.add(math.floor(nearby) + 1)
    mistaken = {
        "one_sample": math.floor(x / 2) + 1,
        "not_squared": math.floor(math.sqrt(2) * num_se * sigma / delta) + 1,
        "rounds_down": math.floor(x),
        "not_strict": math.ceil(x),
        "inexact_bound": math.floor((num_se * math.sqrt(2) * sigma / delta) ** 2) + 1,
    }
    return NeededCase(delta, sigma, num_se, tuple(sorted(accepted)), mistaken)
