"""The frozen cases of exercise 41's hidden suite, built from fixed seeds and cached.

Samples are drawn with ``random.Random(seed)``, rounded, and stored as the tensor the learner
receives; the exact answers come from :mod:`oracle` on those stored values.
"""

from __future__ import annotations

import functools
import random

import torch

from judge.i18n import Bilingual

from ..public.checks41 import MeanCase, NeededCase
from .oracle import mean_case, needed_case


def _normal_rows(seed: int, rows: int, n: int, mean: float, std: float, digits: int) -> list[list[float]]:
    rng = random.Random(seed)
    return [[round(rng.gauss(mean, std), digits) for _ in range(n)] for _ in range(rows)]


@functools.cache
def accepted_lengths() -> MeanCase:
    """Six rows of 10 accepted lengths (whole numbers 0..5, float32), like the chapter's speculative decoding."""
    rng = random.Random(4101)
    rows = [[float(min(5, max(0, round(rng.gauss(2.5, 1.2))))) for _ in range(10)] for _ in range(6)]
    return mean_case(
        torch.tensor(rows, dtype=torch.float32),
        Bilingual("6 rows of 10 accepted lengths", "6 行、每行 10 个接受长度"),
    )


@functools.cache
def two_samples() -> MeanCase:
    """n = 2, float64: the standard error is |x1 - x2| / 2."""
    rows = _normal_rows(4102, 4, 2, 0.0, 3.0, 6)
    return mean_case(
        torch.tensor(rows, dtype=torch.float64),
        Bilingual("n = 2, float64", "n = 2，float64"),
    )


@functools.cache
def three_samples() -> MeanCase:
    """n = 3, float32, one constant row (its error is 0 up to rounding) and negative values."""
    rows = _normal_rows(4103, 4, 3, -1.5, 2.0, 4) + [[0.1, 0.1, 0.1]]
    return mean_case(
        torch.tensor(rows, dtype=torch.float32),
        Bilingual("n = 3, float32, one constant row", "n = 3，float32，含一个常数行"),
    )


@functools.cache
def float64_rows() -> MeanCase:
    """Three float64 rows of 50 with different spreads."""
    rows = [
        row
        for seed, std in ((4104, 0.01), (4105, 1.0), (4106, 100.0))
        for row in _normal_rows(seed, 1, 50, 1.0, std, 9)
    ]
    return mean_case(
        torch.tensor(rows, dtype=torch.float64),
        Bilingual("3 float64 rows of 50", "3 行 float64，每行 50 个"),
    )


@functools.cache
def large_offset() -> MeanCase:
    """Four float32 rows of 1 000 values 10 000 + N(0, 0.1): E[x^2] - E[x]^2 in float32 loses every digit."""
    rows = _normal_rows(4107, 4, 1000, 10_000.0, 0.1, 4)
    return mean_case(
        torch.tensor(rows, dtype=torch.float32),
        Bilingual("float32 rows with a large offset", "均值很大的 float32 行"),
    )


def mean_cases() -> list[MeanCase]:
    return [accepted_lengths(), two_samples(), three_samples(), float64_rows()]


@functools.cache
def needed_cases() -> tuple[NeededCase, ...]:
    """The chapter's example, whole-number bounds (dyadic inputs, so exact in binary), ordinary ones, n = 1."""
    inputs = [
        (0.1, 1.2, 2.0),  # the chapter: bound 1151.99999999999994 for these floats (1152 in decimals)
        (0.125, 1.5, 2.0),  # bound exactly 1152: the answer is 1153
        (0.5, 3.0, 2.5),  # exactly 450
        (2.0, 1.0, 2.0),  # exactly 2
        (0.0078125, 1.0, 2.0),  # exactly 131072
        (0.05, 1.0, 1.96),  # 3073.28
        (0.07, 0.9, 2.5),  # 2066.3
        (1.0, 0.3, 1.0),  # 0.18: one sample is enough
        (0.02, 0.37, 2.5),  # 4278.125
        (0.375, 2.0625, 2.0),  # exactly 242, but (2.0 * sqrt(2) * 2.0625 / 0.375) ** 2 is 241.99999999999997
        (3.5, 3.5, 2.0),  # exactly 8, but 2.0 * sqrt(2) * 3.5 / sqrt(8) is 3.4999999999999996 < 3.5
    ]
    return tuple(needed_case(*args) for args in inputs)
