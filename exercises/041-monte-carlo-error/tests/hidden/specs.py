"""Exercise 41's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; and the oracles that check what a legal corner returns.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. What the
statement neither allows nor refuses stays out (float16 ``samples`` or ``probs``: "a float32 or
float64 tensor" allows neither, "not a 2-D floating tensor" refuses neither; a float ``num_samples``
such as 2.0: "an int >= 1", but only "``num_samples < 1``" raises).
"""

from __future__ import annotations

import random

import torch

from judge.arguments import (
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
from judge.checks import expect, expect_close, expect_tensor
from judge.i18n import Bilingual

from ..public.checks41 import check_mean_answer
from .oracle import mean_case, needed_case

# "Raises ValueError when samples is not a 2-D floating tensor, when n < 2, or when a value is NaN or
# infinite."
MEAN_ARGUMENTS = {
    "samples": Values(
        dims=("B", "n"),
        at_least={"n": 2},
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, *NOT_FINITE},
    ),
}

# "Raises ValueError when probs is not 2-D floating, holds a negative, NaN or infinite value, or has a row
# summing to 0; when event is not a bool tensor of the shape of probs; or when num_samples < 1."
# A probs of another length than event breaks "event ... of the shape of probs" too: SHAPE on both.
PROBABILITY_ARGUMENTS = {
    "probs": Probabilities(
        dims=("B", "V"),
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, Flaw.BELOW, Flaw.ZERO_ROW, *NOT_FINITE},
    ),
    "event": Mask(dims=("B", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE}),
    "num_samples": Count(minimum=1, refuse={Flaw.BELOW}),
}

# "Raises ValueError when an argument is not a finite number > 0." The legal examples are powers of two,
# so the bound is exact however large it is (floats and fractions agree on it).
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
    each estimate a frequency k / n in [0, 1], exactly 0 where the row's event has probability 0 and 1
    where it has probability 1; each standard error sqrt(p (1 - p) / n) or sqrt(p (1 - p) / (n - 1))
    of its own estimate (0 when the estimate is 0 or 1)."""

    def check(value, variant: Variant) -> None:
        probs, event, n = variant.kwargs["probs"], variant.kwargs["event"], variant.kwargs["num_samples"]
        rows, dtype = probs.shape[0], probs.dtype
        what = public_call("estimate_probability", variant)
        expect(
            isinstance(value, (tuple, list)) and len(value) == 2,
            f"{what} must return a pair (estimate, standard error), got {type(value).__name__}",
            rule=Bilingual(f"{what}: did not return a pair", f"{what.zh}：返回值不是二元组"),
        )
        estimate = expect_tensor(value[0], name=f"{what} (the estimate)", shape=(rows,), dtype=dtype, device=ctx.device)
        se = expect_tensor(value[1], name=f"{what} (the standard error)", shape=(rows,), dtype=dtype, device=ctx.device)
        p = estimate.to(torch.float64)
        counts = p * n
        expect(
            bool((torch.isfinite(counts) & ((counts - counts.round()).abs() <= 1e-3) & (p >= 0) & (p <= 1)).all()),
            f"{what}: the estimates {p.tolist()} are not all frequencies k / {n} in [0, 1]",
            rule=Bilingual(
                f"{what}: an estimate is not a frequency k / num_samples", f"{what.zh}：估计值不是频率 k / num_samples"
            ),
        )
        weights = probs.to(torch.float64)
        inside = (weights * event).sum(dim=1)
        never, always = inside == 0, inside == weights.sum(dim=1)
        expect(
            bool((p[never] == 0).all()) and bool((p[always] == 1).all()),
            f"{what}: rows whose event has probability 0 must estimate 0, and probability 1 must estimate 1; "
            f"got {p.tolist()}",
            rule=Bilingual(
                f"{what}: an event of probability 0 or 1 is not estimated exactly",
                f"{what.zh}：概率为 0 或 1 的事件没有被精确估计",
            ),
        )
        spread = p * (1 - p)
        per_n = (spread / n).sqrt()
        per_n_minus_1 = (spread / (n - 1)).sqrt() if n > 1 else per_n
        error = se.to(torch.float64)
        rtol = 1e-5 if dtype == torch.float32 else 1e-9
        closer = torch.where((error - per_n).abs() <= (error - per_n_minus_1).abs(), per_n, per_n_minus_1)
        expect_close(
            error,
            closer,
            rtol=rtol,
            atol=1e-12,
            what=Bilingual(f"{what}: the standard error", f"{what.zh}：标准误"),
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
