"""Exercise 46's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; and the refusals no spec kind expresses (the ids of ``prev_tokens`` against ``pad_id``,
``pad_id`` itself), written from the good call.

What the statement leaves open stays out: logits of another dtype, parameter tensors of another dtype or
device, a ``bool`` as a number, B = 0. ``prev_tokens`` on another device than ``logits`` needs two devices
in one call, which the judge's calls never make (every tensor arrives on the run's device).
"""

from __future__ import annotations

import random
from typing import Any

import torch

from judge.checks.arguments import (
    NOT_FINITE,
    Count,
    Flaw,
    Logits,
    Number,
    PerRow,
    TokenIds,
    Variant,
    contract_refusals,
)
from judge.checks.arguments.base import Edit, Sizes
from judge.checks.refusals import BadCall
from judge.i18n import Bilingual

from ..public.diagnoses import REFUSALS
from .cases import generated_call

# "`logits` is not a 2-D tensor, contains NaN or `+inf`, or has a row with no finite logit"
LOGITS = Logits(
    dims=("B", "V"),
    neginf=True,
    refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.NAN, Flaw.POSINF, Flaw.NO_FINITE_ROW},
)


class PaddedIds(TokenIds):
    """``prev_tokens``: ids in [0, V) or ``pad_id`` (which the spec cannot see: the out-of-range ids are written
    by hand, :func:`id_refusals`); its legal corners are ids 0 and V - 1 only."""

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        return [e for e in super().corner_edits(name, value, sizes, rng) if e.kind == "id_ends"]

    def resized(self, value: Any, dim: str, size: int) -> Any:
        """A smaller vocabulary keeps the ids legal: those past its end (a pad at V included) become V - 1."""
        value = super().resized(value, dim, size)
        return torch.where(value >= 0, value.clamp(max=size - 1), value) if dim == self.vocab else value


# "`prev_tokens` is not a 2-D `int64` tensor with B rows"
PREV_TOKENS = PaddedIds(
    dims=("B", "L"),
    vocab="V",
    in_range=False,
    wrong_dtypes=(torch.int32, torch.float32),
    refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE},
)
# "a parameter tensor is not a 1-D tensor of length B (a 0-d tensor and a `[B, 1]` column raise)"
PARAMETER_SHAPE = {Flaw.RANK, Flaw.SHAPE}
PENALTIES = {
    # "a `repetition_penalty` is $\le 0$, NaN or infinite"
    "repetition_penalty": PerRow(
        number=Number(low=0.0, low_open=True, examples=(0.25, 4.0)), refuse={Flaw.BELOW, *NOT_FINITE, *PARAMETER_SHAPE}
    ),
    # "a `frequency_penalty` or `presence_penalty` is NaN or infinite"
    "frequency_penalty": PerRow(number=Number(examples=(-2.0, 2.0, 0.0)), refuse={*NOT_FINITE, *PARAMETER_SHAPE}),
    "presence_penalty": PerRow(number=Number(examples=(-2.0, 2.0, 0.0)), refuse={*NOT_FINITE, *PARAMETER_SHAPE}),
}
APPLY_ARGUMENTS = {"logits": LOGITS, "prev_tokens": PREV_TOKENS, **PENALTIES}

# "`sample_with_penalties` also raises `ValueError` for every bad `temperature`, `top_k`, `top_p`, `min_p` or
# `num_samples` that exercise 39 refuses": 39's sentences, quoted in its specs.
FILTERS = {
    "temperature": PerRow(
        number=Number(low=0.0, examples=(0.5, 2.0)), refuse={Flaw.BELOW, *NOT_FINITE, *PARAMETER_SHAPE}
    ),
    "top_k": PerRow(number=Number(low=0.0, examples=(1.0, 40.0)), refuse={Flaw.BELOW, Flaw.NEGINF, *PARAMETER_SHAPE}),
    "top_p": PerRow(
        number=Number(low=0.0, high=1.0, low_open=True, examples=(0.5,)),
        refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
    ),
    "min_p": PerRow(
        number=Number(low=0.0, high=1.0, high_open=True, examples=(0.25,)),
        refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
    ),
}
SAMPLE_ARGUMENTS = {
    **APPLY_ARGUMENTS,
    **FILTERS,
    "num_samples": Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT}),
}


def good_apply(rng: random.Random) -> dict[str, Any]:
    """A legal call of ``apply_penalties`` with L >= 1 (the specs want a tensor with an entry)."""
    while True:
        call = generated_call(rng, rng.choice((torch.float32, torch.float64)))
        if call["prev_tokens"].shape[1] > 0:
            return call


def good_sample(rng: random.Random) -> dict[str, Any]:
    """A legal call of ``sample_with_penalties``: a good ``apply_penalties`` call with filter parameters (numbers
    or per-row tensors) and 1 to 20 draws."""
    call = good_apply(rng)
    rows = call["logits"].shape[0]
    for name, choices in (
        ("temperature", (1.0, 0.7, 1.3)),
        ("top_k", (0, 2)),
        ("top_p", (1.0, 0.9)),
        ("min_p", (0.0, 0.05)),
    ):
        if rng.random() < 0.5:
            call[name] = torch.tensor([float(rng.choice(choices)) for _ in range(rows)], dtype=torch.float64)
        else:
            call[name] = rng.choice(choices)
    call["num_samples"] = rng.randint(1, 20)
    return call


def refusal_name(variant: Variant) -> str:
    """The group of :data:`REFUSALS` a generated bad call belongs to."""
    if variant.argument in ("logits", "prev_tokens"):
        return variant.argument
    if Flaw(variant.kind) in PARAMETER_SHAPE:
        return "parameter_shape"
    if variant.argument == "repetition_penalty":
        return "repetition_penalty"
    if variant.argument in ("frequency_penalty", "presence_penalty"):
        return "openai_penalty"
    return "sampler"


def refusal_calls(function: Any, name: str, good: dict, arguments: dict, rng: random.Random, extra=None) -> list:
    """Every bad call the specs generate, and those written by hand (:func:`id_refusals`)."""
    calls = contract_refusals(
        function, good, arguments, rng, extra=extra, name=name, diagnose=lambda v: REFUSALS[refusal_name(v)]
    )
    calls += id_refusals(function, name, good, rng, extra)
    calls += nothing_seen_refusals(function, name, good, extra)
    if "temperature" in arguments:
        calls += greedy_refusals(function, name, good, extra)
    if "top_k" in arguments:  # a negative whole top_k: the specs' negative values need not be whole
        rows = good["logits"].shape[0]
        more = extra() if extra else {}
        for bad in (-1, torch.full((rows,), -2, dtype=torch.int64)):
            calls.append(
                BadCall(
                    function,
                    f"{name}() with top_k = {bad if isinstance(bad, int) else 'a tensor of -2'}",
                    kwargs={**good, "top_k": bad, **more},
                    public=Bilingual(f"{name}() with a negative whole top_k", f"{name}() 收到负整数 top_k 时"),
                    diagnosis=REFUSALS["sampler"],
                )
            )
    return calls


def id_refusals(function: Any, name: str, good: dict, rng: random.Random, extra=None) -> list[BadCall]:
    """ "`prev_tokens` holds an id outside [0, V) that is not `pad_id`" (an id just past each end that is not the
    pad, and one far away) and "`pad_id` is not a Python `int`, or is a vocabulary id"."""
    vocab, pad_id = good["logits"].shape[1], good["pad_id"]
    more = extra() if extra else {}
    outside = [
        i for i in (-1, -2, vocab, vocab + 1, vocab + rng.randint(2, 1000), -rng.randint(3, 1000)) if i != pad_id
    ]
    calls = []
    for bad in outside[:3] + outside[-1:]:
        prev = good["prev_tokens"].clone()
        at = (rng.randrange(prev.shape[0]), rng.randrange(prev.shape[1]))
        prev[at] = bad
        calls.append(
            BadCall(
                function,
                f"{name}() with prev_tokens holding {bad} at {list(at)} (V = {vocab}, pad_id = {pad_id})",
                kwargs={**good, "prev_tokens": prev, **more},
                public=Bilingual(
                    f"{name}() with prev_tokens holding an id outside [0, V) that is not pad_id",
                    f"{name}() 收到含有 [0, V) 之外且不等于 pad_id 的 id 的 prev_tokens 时",
                ),
                diagnosis=REFUSALS["token_range"],
            )
        )
    for bad, what in (
        (0, "0"),
        (vocab - 1, "V - 1"),
        (rng.randrange(vocab), "a vocabulary id"),
        (float(pad_id), "a float"),
        (str(pad_id), "a string"),
        (None, "None"),
    ):
        prev = good["prev_tokens"]
        if isinstance(bad, int):  # the padding written with the new pad_id: only pad_id itself is wrong
            prev = torch.where(prev == pad_id, torch.full_like(prev, bad), prev)
        calls.append(
            BadCall(
                function,
                f"{name}() with pad_id = {bad!r} ({what}, V = {vocab})",
                kwargs={**good, "prev_tokens": prev, "pad_id": bad, **more},
                public=Bilingual(f"{name}() with pad_id {what}", f"{name}() 收到 pad_id 为 {what} 时"),
                diagnosis=REFUSALS["pad_id"],
            )
        )
    return calls


def nothing_seen_refusals(function: Any, name: str, good: dict, extra=None) -> list[BadCall]:
    """ "Every row's parameters are checked, and so is `pad_id`, whatever `prev_tokens` holds": each refusal once
    more with nothing seen (L = 0), where a solution that returns early would skip it."""
    rows, vocab = good["logits"].shape
    empty = {**good, "prev_tokens": torch.zeros((rows, 0), dtype=torch.int64)}
    more = extra() if extra else {}
    bad = [
        ("repetition_penalty = 0", {"repetition_penalty": 0.0}, "repetition_penalty"),
        ("a NaN frequency_penalty", {"frequency_penalty": float("nan")}, "openai_penalty"),
        (
            "an infinite presence_penalty tensor",
            {"presence_penalty": torch.full((rows,), float("inf"))},
            "openai_penalty",
        ),
        ("pad_id = 0", {"pad_id": 0}, "pad_id"),
        (f"pad_id = {vocab - 1} (V - 1)", {"pad_id": vocab - 1}, "pad_id"),
    ]
    return [
        BadCall(
            function,
            f"{name}() with {what} and nothing seen (L = 0)",
            kwargs={**empty, **change, **more},
            public=Bilingual(
                f"{name}() with {group.replace('_', ' ')} bad and nothing seen",
                f"{name}() 在什么都没出现时收到非法的 {group}",
            ),
            diagnosis=REFUSALS[group],
        )
        for what, change, group in bad
    ]


def greedy_refusals(function: Any, name: str, good: dict, extra=None) -> list[BadCall]:
    """ "Every row's parameters are checked" (39's greedy rows included): each bad filter value on greedy rows only,
    every row greedy (temperature 0) or the bad value in row 0 of a tensor whose row 0 alone is greedy."""
    rows = good["logits"].shape[0]
    more = extra() if extra else {}
    mixed = torch.ones(rows, dtype=torch.float64)
    mixed[0] = 0.0
    calls = []
    for parameter, bad, fine in (
        ("top_p", 0.0, 0.9),
        ("top_p", 1.5, 0.9),
        ("min_p", 1.0, 0.0),
        ("min_p", -0.1, 0.0),
        ("top_k", -1.0, 0.0),
    ):
        column = torch.full((rows,), fine, dtype=torch.float64)
        column[0] = bad
        for temperature, value, where in ((0.0, bad, "every row greedy"), (mixed, column, "row 0 greedy")):
            calls.append(
                BadCall(
                    function,
                    f"{name}() with {parameter} = {bad} on greedy rows ({where})",
                    kwargs={**good, "temperature": temperature, parameter: value, **more},
                    public=Bilingual(
                        f"{name}() with a bad {parameter} on a greedy row",
                        f"{name}() 在贪心的行上收到非法的 {parameter} 时",
                    ),
                    diagnosis=REFUSALS["sampler"],
                )
            )
    return calls
