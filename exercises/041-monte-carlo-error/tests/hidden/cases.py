"""The frozen cases of exercise 41's hidden suite, built from fixed seeds and cached.

Samples are drawn with ``random.Random(seed)``, rounded, and stored as the tensor the learner
receives; the exact answers come from :mod:`oracle` on those stored values.
"""

from __future__ import annotations

import functools
import math
import random
from fractions import Fraction

import torch

from judge.i18n import Bilingual

from ..public.checks41 import MeanCase, NeededCase, shifted_near_zero
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


# --- generated under each case's seed ---------------------------------------------------------


def offset_cases(rng: random.Random, dtype: torch.dtype) -> tuple[MeanCase, MeanCase]:
    """:func:`offset_case` and the same rows moved near 0 (``checks41.shifted_near_zero``), each with
    its exact answer: the near rows are judged first, so the offset alone can be named."""
    case = offset_case(rng, dtype)
    near = mean_case(
        shifted_near_zero(case.samples),
        Bilingual(f"{case.public}, moved near 0", f"{case.public.zh}，平移到 0 附近"),
    )
    return case, near


def offset_case(rng: random.Random, dtype: torch.dtype) -> MeanCase:
    """Rows far from 0 next to their spread, drawn afresh, all of one magnitude M (the tolerance of the mean
    is relative to the batch's largest value): two noisy rows whose mean is 10^4 to 10^5 times their
    spread (float32: M from 10^3 to 3 10^4; float64: 10^4.5 to 10^5 times, M from 10^3 to 10^6, where the
    one-pass variance loses most digits even in float64), and a constant row of a value that is no binary
    fraction (its standard error is 0 up to rounding), in a random order. float32 adds a row of two blocks,
    c then c + d with d 90 to 190 units in the last place of c (about 0.1 near 10 000): past its middle a
    running mean's updates d / i fall below half a unit and are lost, so one kept in float32 stops short."""
    n = rng.randint(800, 1000) if dtype == torch.float32 else rng.randint(200, 1000)
    low, high = (4.0, 5.0) if dtype == torch.float32 else (4.5, 5.0)
    top = 4.5 if dtype == torch.float32 else 6.0
    magnitude = 10 ** rng.uniform(3.0, top)
    rows = []
    for _ in range(2):
        center = rng.choice((-1, 1)) * magnitude * rng.uniform(0.5, 1.0)
        spread = abs(center) / 10 ** rng.uniform(low, high)
        rows.append([center + rng.gauss(0.0, spread) for _ in range(n)])
    rows.append([rng.choice((-1, 1)) * round(magnitude * rng.uniform(0.5, 1.0), 3) + 0.1] * n)
    if dtype == torch.float32:
        start = float(torch.tensor(rng.choice((-1, 1)) * magnitude * rng.uniform(0.5, 1.0), dtype=dtype))
        step = rng.choice((-1, 1)) * rng.uniform(90, 190) * math.ulp(start) * 2**29  # float32's unit: 2^29 float64 ones
        middle = rng.randint(n // 2, 3 * n // 5)
        rows.append([start] * middle + [start + step] * (n - middle))
    rng.shuffle(rows)
    name = "float32" if dtype == torch.float32 else "float64"
    return mean_case(
        torch.tensor(rows, dtype=dtype),
        Bilingual(f"{name} rows far from 0 next to their spread", f"远离 0、均值远大于离散程度的 {name} 行"),
    )


def _decimal(rng: random.Random) -> float:
    """A short decimal (1 to 3 significant digits, 0.001 to 90) as a float: almost never a binary fraction."""
    digits = rng.randint(1, 3)
    return float(f"{rng.randint(10 ** (digits - 1), 10**digits - 1)}e{rng.randint(-3, 1 - digits + 1)}")


def _whole_candidate(rng: random.Random) -> tuple[float, float, float] | None:
    """(delta, sigma, num_se) whose exact bound 2 (num_se sigma / delta)^2 is a whole number, the floats
    not binary fractions: sigma = delta (num_se whole), num_se = delta (sigma whole), one of the three
    solved from q = num_se sigma / delta whole where the float division is exact, or delta the float
    product of a short binary num_se (1.5, 0.75, ...) and a decimal sigma, halved or not (the family whose
    decimals most often fall short: 1.5 times 1.1 is exactly the float 1.6500000000000001). None when a
    draw fails."""
    family = rng.choice((0, 1, 2, 3, 4, 4))
    a, b, q = _decimal(rng), _decimal(rng), rng.randint(1, 40)
    whole = float(q) if rng.random() < 0.5 else q  # an int is a number too
    if family == 0:
        return a, a, whole
    if family == 1:
        return a, whole, a
    if family == 4:
        num_se = rng.choice((1.5, 2.5, 0.75, 1.25, 3.5, 0.375))
        return (num_se * a / rng.choice((1, 2, 4)), a, num_se) if _whole_bound(num_se * a, a, num_se) else None
    solved = {2: lambda: (b * a / q, a, b), 3: lambda: (a, q * a / b, b)}[family]()
    return solved if solved[0] > 0 and solved[1] > 0 and _whole_bound(*solved) is not None else None


def _whole_bound(delta: float, sigma: float, num_se: float) -> int | None:
    """The exact bound 2 (num_se sigma / delta)^2 when it is a whole number, else None (integer ratios)."""
    (dn, dd), (sn, sd), (zn, zd) = (float(x).as_integer_ratio() for x in (delta, sigma, num_se))
    top, bottom = 2 * (zn * sn * dd) ** 2, (zd * sd * dn) ** 2
    return top // bottom if top % bottom == 0 else None


# Ways of computing the bound that are not exact, each of which the generated whole-number bounds must
# catch at least twice (so no one of them passes by luck): floats in three orders, sqrt(2), decimals.
INEXACT_WAYS = {
    "floats": lambda d, s, z: math.floor(2 * (z * s / d) ** 2) + 1,
    "floats, squared apart": lambda d, s, z: math.floor(2 * z * z * s * s / (d * d)) + 1,
    "floats, ratio first": lambda d, s, z: math.floor(2 * (s / d) ** 2 * z**2) + 1,
    "sqrt(2)": lambda d, s, z: math.floor((z * math.sqrt(2) * s / d) ** 2) + 1,
    "decimals": lambda d, s, z: math.floor(2 * (Fraction(str(z)) * Fraction(str(s)) / Fraction(str(d))) ** 2) + 1,
}
WHOLE_QUOTA = 2  # instances on which each inexact way errs
WHOLE_COUNT = 24  # whole-number bounds in all (the quota's, then any): one learner call each
ORDINARY_COUNT = 8  # and ordinary bounds of short decimals and ints
MAX_TRIES = 20_000


def whole_number_bounds(rng: random.Random) -> tuple[NeededCase, ...]:
    """``WHOLE_COUNT`` bounds that are exactly whole numbers for arguments that are not binary fractions
    (drawn under ``rng``), among them at least ``WHOLE_QUOTA`` on which each of ``INEXACT_WAYS`` errs, and
    ``ORDINARY_COUNT`` ordinary bounds of short decimals and ints mixed; raises RuntimeError when the quota is not met
    (a bug of this generator: the test suite checks it over many seeds)."""
    needed = dict.fromkeys(INEXACT_WAYS, WHOLE_QUOTA)
    chosen: list[tuple[float, float, float]] = []
    for _ in range(MAX_TRIES):
        if len(chosen) >= WHOLE_COUNT and not any(needed.values()):
            break
        found = _whole_candidate(rng)
        if found is None or found in chosen:
            continue
        if any(needed.values()):  # first the quota: a candidate is kept where it catches a way still owed
            answer = _whole_bound(*found) + 1
            missed = [w for w, f in INEXACT_WAYS.items() if needed[w] and f(*found) != answer]
            if not missed:
                continue
            for way in missed:
                needed[way] -= 1
        chosen.append(found)
    if any(needed.values()):
        raise RuntimeError(f"whole_number_bounds: quota not met after {MAX_TRIES} tries: {needed}")
    ordinary = [
        (_decimal(rng), rng.choice((_decimal(rng), rng.randint(1, 9))), rng.choice((_decimal(rng), 2, 3)))
        for _ in range(ORDINARY_COUNT)
    ]
    instances = chosen + ordinary
    rng.shuffle(instances)
    return tuple(needed_case(*args) for args in instances)
