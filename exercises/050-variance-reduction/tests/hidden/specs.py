"""Exercise 50's arguments as the statement describes them, for the generated bad inputs and legal corners.

"Every function raises ValueError when: probs, values or control is not a 2-D floating tensor; their shapes
or dtypes differ; a value is NaN or infinite; probs holds a negative value; a row of probs sums to 0 (V = 0
included); num_samples is not an int or is too small; num_samples is odd (antithetic, stratified)."
The odd counts, a bool and a string count are added by hand (:func:`count_extras`).
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import NOT_FINITE, Count, Flaw, Probabilities, Values
from judge.checks.refusals import BadCall

_TENSOR = {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE}
_DIMS = {"dims": ("B", "V"), "at_least": {"V": 1}}
SMALLEST = {"plain": 2, "antithetic": 4, "stratified": 4, "control_variate": 3}


def arguments(method: str) -> dict:
    out = {
        "probs": Probabilities(**_DIMS, refuse=_TENSOR | NOT_FINITE | {Flaw.BELOW, Flaw.ZERO_ROW}),
        "values": Values(**_DIMS, same_dtype_as="probs", refuse=_TENSOR | NOT_FINITE | {Flaw.DTYPE_MISMATCH}),
        "num_samples": Count(minimum=SMALLEST[method], refuse={Flaw.BELOW, Flaw.NOT_AN_INT}),
    }
    if method == "control_variate":
        out["control"] = Values(**_DIMS, same_dtype_as="probs", refuse=_TENSOR | NOT_FINITE | {Flaw.DTYPE_MISMATCH})
    return out


def good_call(rng: random.Random, method: str) -> dict:
    """Three rows over five tokens, float64, with a zero in one row; an even count for every method."""
    weights = [[float(rng.randint(0 if b == 1 else 1, 9)) or 1.0 for _ in range(5)] for b in range(3)]
    weights[1][rng.randrange(5)] = 0.0
    probs = torch.tensor([[w / sum(row) for w in row] for row in weights], dtype=torch.float64)
    values = torch.tensor([[float(rng.randint(-5, 5)) for _ in range(5)] for _ in range(3)], dtype=torch.float64)
    call = {"probs": probs, "values": values, "num_samples": 6}
    if method == "control_variate":
        call["control"] = values + torch.tensor([[float(rng.randint(-1, 1)) for _ in range(5)] for _ in range(3)])
    return call


def count_extras(function, name: str, good: dict, extra) -> list[BadCall]:
    """num_samples odd (antithetic, stratified), a bool, a string; and every tensor an integer tensor."""
    counts = [(True, "num_samples=True (a bool)"), ("8", "num_samples='8' (a string)")]
    if name in ("antithetic_estimate", "stratified_estimate"):
        counts += [(5, "num_samples=5 (odd)"), (7, "num_samples=7 (odd)")]
    calls = [
        BadCall(
            function,
            f"{name}() with {what}",
            kwargs=good | {"num_samples": n} | extra(),
            public=f"{name}() with {what}",
        )
        for n, what in counts
    ]
    # Every tensor an integer tensor at once (a generated variant changes one argument, which the dtype
    # mismatch already refuses): "not a 2-D floating tensor" on its own.
    whole = {key: value.round().long() for key, value in good.items() if key != "num_samples"}
    whole["probs"] = whole["probs"] + 1  # integer weights, every row with a positive sum
    what = "every tensor an int64 tensor"
    calls.append(
        BadCall(function, f"{name}() with {what}", kwargs=good | whole | extra(), public=f"{name}() with {what}")
    )
    return calls
