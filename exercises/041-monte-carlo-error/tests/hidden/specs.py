"""Exercise 41's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; and the oracles that check what a legal corner returns.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. The
statement accepts float16 and bfloat16 ``samples`` and ``probs`` (judged to their own precision), so
they are legal corners; it refuses a float ``num_samples`` ("not a Python int"). Bools, lists and
tensors where a number belongs are refused too: ``checks41.check_type_refusals`` sends them (the
specs' ``Number`` generates strings and None only).
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import (
    FLOAT32_64,
    HALF_PRECISION,
    NOT_FINITE,
    Count,
    Flaw,
    Mask,
    Number,
    Probabilities,
    Values,
    Variant,
    public_call,
)
from judge.checks.evidence import Evidence
from judge.checks.exact import expect
from judge.i18n import Bilingual

from ..public.answers41 import check_probability_answer, event_probabilities
from ..public.checks41 import check_mean_answer
from .oracle import mean_case, needed_case

# "samples: a float32 or float64 tensor [B, n], ... float16 and bfloat16 tensors are accepted too."
# "Raises ValueError when: samples is not a tensor, or not 2-D; its dtype is not floating (an integer or
# bool tensor); n < 2; a value is NaN or infinite."
MEAN_ARGUMENTS = {
    "samples": Values(
        dims=("B", "n"),
        dtypes=FLOAT32_64 + HALF_PRECISION,
        at_least={"n": 2},
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, *NOT_FINITE},
    ),
}

# "probs: a float32 or float64 tensor [B, V] (float16 and bfloat16 are accepted too)"; "num_samples: a
# Python int >= 1". "Raises ValueError when: probs is not a tensor, not 2-D, or not floating; probs holds a
# negative, NaN or infinite value; a row of probs sums to 0; event is not a tensor, or not bool; event does
# not have the shape of probs; num_samples is not a Python int (a float such as 10.0, or a bool);
# num_samples < 1." A probs of another length than event breaks "the shape of probs" too: SHAPE on both.
PROBABILITY_ARGUMENTS = {
    "probs": Probabilities(
        dims=("B", "V"),
        dtypes=FLOAT32_64 + HALF_PRECISION,
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, Flaw.BELOW, Flaw.ZERO_ROW, *NOT_FINITE},
    ),
    "event": Mask(dims=("B", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE}),
    "num_samples": Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT}),
}

# "Raises ValueError when: an argument is not an int or a float (a bool, a string, None, a list, a
# tensor); an argument is NaN or infinite; an argument is <= 0." The legal examples are powers of two, so
# the bound is exact however large it is (floats and fractions agree on it).
NEEDED_ARGUMENTS = {
    name: Number(
        low=0.0,
        low_open=True,
        examples=(2.0**-20, 2.0**20),
        refuse={Flaw.BELOW, Flaw.NOT_A_NUMBER, *NOT_FINITE},
    )
    for name in ("delta", "sigma", "num_se")
}


# --- the good calls ------------------------------------------------------------------------------------


def good_samples(rng: random.Random) -> dict:
    """A call of ``mean_and_standard_error``: 2 to 4 rows of 3 to 6 values, float32 or float64."""
    rows, n = rng.randint(2, 4), rng.randint(3, 6)
    values = [[round(rng.gauss(0.0, 3.0), 3) for _ in range(n)] for _ in range(rows)]
    return {"samples": torch.tensor(values, dtype=rng.choice((torch.float32, torch.float64)))}


def good_probability_call(rng: random.Random) -> dict:
    """A call of ``estimate_probability``: 2 to 4 rows of 3 to 6 weights (a zero in each row, rows not
    summing to 1), each row's event neither empty nor full, 5 to 50 draws."""
    rows, size = rng.randint(2, 4), rng.randint(3, 6)
    probs, event = [], []
    for _ in range(rows):
        weights = [rng.choice((0.5, 1.0, 2.0, 3.0)) for _ in range(size)]
        weights[rng.randrange(size)] = 0.0
        probs.append(weights)
        chosen = set(rng.sample(range(size), rng.randint(1, size - 1)))
        event.append([v in chosen for v in range(size)])
    return {
        "probs": torch.tensor(probs, dtype=rng.choice((torch.float32, torch.float64))),
        "event": torch.tensor(event, dtype=torch.bool),
        "num_samples": rng.randint(5, 50),
    }


def good_needed_call(rng: random.Random) -> dict:
    """A call of ``samples_needed`` with dyadic arguments."""
    return {
        "delta": rng.choice((0.125, 0.5, 2.0)),
        "sigma": rng.choice((1.0, 1.5, 3.0)),
        "num_se": rng.choice((1.0, 2.0, 2.5)),
    }


# --- what a legal corner must return ------------------------------------------------------------------


def mean_corner_check(ctx):
    """``check(value, variant)`` for ``mean_and_standard_error``: the exact answer, as the frozen cases."""

    def check(value, variant: Variant) -> None:
        case = mean_case(variant.kwargs["samples"], variant.public)
        check_mean_answer(ctx, case, value)

    return check


def probability_corner_check(ctx):
    """``check(value, variant)`` for ``estimate_probability``: two tensors ``[B]`` of the dtype of probs;
    each estimate a frequency k / n rounded to that dtype, exactly 0 where the row's event has probability
    0 and 1 where it has probability 1; each standard error sqrt(p (1 - p) / n) of its own estimate (or
    with n - 1 for n >= 2), exactly 0 when the estimate is 0 or 1 (n = 1 included)."""

    def check(value, variant: Variant) -> None:
        probs, event, n = variant.kwargs["probs"], variant.kwargs["event"], variant.kwargs["num_samples"]
        what = public_call("estimate_probability", variant)
        truth = event_probabilities(probs, event)
        estimate, _, _ = check_probability_answer(
            value, ctx, rows=probs.shape[0], n=n, dtype=probs.dtype, what=str(what), truth=truth
        )
        p = estimate.to(torch.float64).tolist()
        exact = all(v == t for v, t in zip(p, truth, strict=True) if t in (0.0, 1.0))
        expect(
            exact,
            f"{what}: rows whose event has probability 0 must estimate 0, and probability 1 must estimate 1; "
            f"got {p} for the probabilities {truth}",
            rule=Bilingual(
                f"{what}: an event of probability 0 or 1 is not estimated exactly",
                f"{what.zh}：概率为 0 或 1 的事件没有被精确估计",
            ),
            kind=Evidence.VALUE,
        )

    return check


def needed_corner_check(value, variant: Variant) -> None:
    """``check(value, variant)`` for ``samples_needed``: an int, the exact smallest n (or its neighbour
    where the bound lies within 1e-9 of a whole number without being one)."""
    kwargs = variant.kwargs
    case = needed_case(float(kwargs["delta"]), float(kwargs["sigma"]), float(kwargs["num_se"]))
    what = public_call("samples_needed", variant)
    expect(
        isinstance(value, int) and not isinstance(value, bool) and value in case.accepted,
        f"samples_needed() with {variant.description} returned {value!r}; expected "
        + " or ".join(str(a) for a in case.accepted),
        rule=Bilingual(f"{what}: the number of samples is wrong", f"{what.zh}：样本数不对"),
    )
