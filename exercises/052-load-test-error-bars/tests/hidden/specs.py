"""Exercise 52's contract, argument by argument, as its statement's "Raise `ValueError` for:" list writes it,
and the good calls the generated inputs start from.

"`samples`, `a`, `b`, `boot_stats` or `jackknife_stats` that is not a 2-D float32 or float64 tensor
(float16, bfloat16, integer and bool tensors included), or holds NaN or an infinity; `samples`, `a`, `b`
or `jackknife_stats` with fewer than 2 values per row, or `boot_stats` with none; `estimate` that is not a
tensor `[B]` of the dtype of `boot_stats`, or holds NaN or an infinity; `jackknife_stats` whose number of
rows or dtype differs from those of `boot_stats`; `a` and `b` with different numbers of rows or different
dtypes, or of different lengths when `paired` is `True`; a `statistic` other than ...; a `level` that is not
a number strictly between 0 and 1, or an `n_resamples` that is not an `int` of at least 1; in
`runs_needed`: `sd_a` or `sd_b` negative or not a finite number, `difference` zero or not a finite number,
`z` not a finite number above 0."

`paired` not a bool and `difference == 0` have no generated flaw: ``hidden.test_hand_refusals`` sends them.
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import (
    FLOAT32_64,
    HALF_PRECISION,
    INTEGER_AND_BOOL,
    NOT_FINITE,
    Choice,
    Count,
    Flaw,
    Number,
    Values,
)

WRONG = INTEGER_AND_BOOL + HALF_PRECISION
TENSOR = {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, *NOT_FINITE}


def _data(dims, same_dtype_as=None):
    return Values(
        dims=dims,
        dtypes=FLOAT32_64,
        wrong_dtypes=WRONG,
        at_least={dims[1]: 2},
        same_dtype_as=same_dtype_as,
        refuse=TENSOR | ({Flaw.DTYPE_MISMATCH} if same_dtype_as else set()),
    )


LEVEL = Number(
    low=0.0,
    high=1.0,
    low_open=True,
    high_open=True,
    examples=(0.5, 0.9),
    refuse={Flaw.BELOW, Flaw.ABOVE, Flaw.NOT_A_NUMBER, *NOT_FINITE},
)
# The legal corners stop short of 0 and 1: levels within 1e-9 of them are left open (1 - alpha / 2 rounds
# to 1.0 there, and Phi^-1(1.0) is infinite).
LEGAL_LEVEL = Number(low=0.001, high=0.999, examples=(0.5, 0.9), refuse=set())


def legal(arguments: dict) -> dict:
    """The same specs with ``level`` kept inside the levels the statement does not leave open."""
    return {name: (LEGAL_LEVEL if name == "level" else spec) for name, spec in arguments.items()}


RESAMPLES = Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT})
STATISTIC = Choice(options=("mean", "median", "p90"), refuse={Flaw.UNKNOWN_CHOICE})

STATS_ARGUMENTS = {"samples": _data(("B", "n")), "statistic": STATISTIC, "n_resamples": RESAMPLES}
JACKKNIFE_ARGUMENTS = {"samples": _data(("B", "n")), "statistic": STATISTIC}
PERCENTILE_ARGUMENTS = {
    "boot_stats": Values(dims=("B", "R"), dtypes=FLOAT32_64, wrong_dtypes=WRONG, at_least={"R": 1}, refuse=TENSOR),
    "level": LEVEL,
}
BCA_ARGUMENTS = {
    "estimate": Values(
        dims=("B",),
        dtypes=FLOAT32_64,
        wrong_dtypes=WRONG,
        same_dtype_as="boot_stats",
        refuse=TENSOR | {Flaw.DTYPE_MISMATCH},
    ),
    "boot_stats": Values(dims=("B", "R"), dtypes=FLOAT32_64, wrong_dtypes=WRONG, at_least={"R": 1}, refuse=TENSOR),
    "jackknife_stats": _data(("B", "n"), same_dtype_as="boot_stats"),
    "level": LEVEL,
}
CI_ARGUMENTS = {
    "samples": _data(("B", "n")),
    "statistic": STATISTIC,
    "level": LEVEL,
    "n_resamples": RESAMPLES,
    "method": Choice(options=("percentile", "bca"), refuse={Flaw.UNKNOWN_CHOICE}),
}
PAIRED_ARGUMENTS = {
    "a": _data(("B", "n")),
    "b": _data(("B", "n"), same_dtype_as="a"),
    "level": LEVEL,
    "n_resamples": RESAMPLES,
}
UNPAIRED_ARGUMENTS = {
    "a": _data(("B", "n")),
    "b": _data(("B", "m"), same_dtype_as="a"),
    "level": LEVEL,
    "n_resamples": RESAMPLES,
}
_SD = Number(low=0.0, examples=(0.5, 1.25), refuse={Flaw.BELOW, Flaw.NOT_A_NUMBER, *NOT_FINITE})
RUNS_ARGUMENTS = {
    "sd_a": _SD,
    "sd_b": _SD,
    "difference": Number(integers=False, examples=(-0.25, 0.1), refuse={Flaw.NOT_A_NUMBER, *NOT_FINITE}),
    "z": Number(low=0.0, low_open=True, examples=(1.0, 1.96), refuse={Flaw.BELOW, Flaw.NOT_A_NUMBER, *NOT_FINITE}),
}


def _dtype(rng: random.Random) -> torch.dtype:
    return rng.choice((torch.float32, torch.float64))


def _rows(rng: random.Random, rows: int, n: int, dtype) -> torch.Tensor:
    return torch.tensor([[round(rng.lognormvariate(0.0, 0.5), 3) for _ in range(n)] for _ in range(rows)], dtype=dtype)


def good_stats(rng: random.Random) -> dict:
    return {
        "samples": _rows(rng, rng.randint(2, 3), rng.randint(3, 6), _dtype(rng)),
        "statistic": rng.choice(("mean", "median", "p90")),
        "n_resamples": rng.randint(3, 9),
    }


def good_jackknife(rng: random.Random) -> dict:
    return {
        "samples": _rows(rng, rng.randint(2, 3), rng.randint(3, 6), _dtype(rng)),
        "statistic": rng.choice(("mean", "median", "p90")),
    }


def good_percentile(rng: random.Random) -> dict:
    return {
        "boot_stats": _rows(rng, rng.randint(2, 3), rng.randint(4, 9), _dtype(rng)),
        "level": rng.choice((0.5, 0.8, 0.9)),
    }


def good_bca(rng: random.Random) -> dict:
    dtype = _dtype(rng)
    rows, resamples, n = rng.randint(2, 3), rng.randint(6, 12), rng.randint(4, 6)
    boot = _rows(rng, rows, resamples, dtype)
    return {
        "estimate": boot.median(dim=1).values,
        "boot_stats": boot,
        "jackknife_stats": torch.tensor(
            [[1.0 + 0.01 * rng.randint(0, 9) for _ in range(n)] for _ in range(rows)], dtype=dtype
        ),
        "level": rng.choice((0.5, 0.8, 0.9)),
    }


def good_ci(rng: random.Random) -> dict:
    return {
        "samples": _rows(rng, rng.randint(2, 3), rng.randint(4, 8), _dtype(rng)),
        "statistic": rng.choice(("mean", "median", "p90")),
        "level": rng.choice((0.8, 0.9)),
        "n_resamples": rng.randint(5, 20),
        "method": rng.choice(("percentile", "bca")),
    }


def good_difference(rng: random.Random, paired: bool) -> dict:
    dtype, rows, n = _dtype(rng), rng.randint(2, 3), rng.randint(3, 6)
    m = n if paired else rng.randint(3, 7)
    return {
        "a": _rows(rng, rows, n, dtype),
        "b": _rows(rng, rows, m, dtype),
        "level": 0.9,
        "n_resamples": rng.randint(5, 20),
    }


def good_runs(rng: random.Random) -> dict:
    return {
        "sd_a": rng.choice((0.5, 1.2, 2.0)),
        "sd_b": rng.choice((0.75, 1.3)),
        "difference": rng.choice((0.1, -0.25, 0.5)),
        "z": rng.choice((1.0, 2.0, 2.5)),
    }
