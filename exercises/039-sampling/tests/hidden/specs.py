"""Exercise 39's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; the refusals the specs cannot express; and the oracles a legal corner must pass.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. What the
statement neither allows nor refuses stays out (a Python list, a string or None as a parameter, a
parameter tensor of another dtype, logits of float16, bfloat16 or an integer dtype, a ``top_k`` that is not
a whole number: "left open on purpose"). One refusal no spec kind expresses is generated here from the
good call: invalid parameters on greedy rows.
"""

from __future__ import annotations

import math
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
    Variant,
    bad_inputs,
    public_call,
)
from judge.checks.distributions import expect_support
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.refusals import BadCall
from judge.i18n import Bilingual

from ..public.diagnoses import MISTAKES
from .generated import FLOOR
from .oracle import STATED_MARGIN, AmbiguousCase, RowParams, target

NEG_INF = float("-inf")

# "`logits` is not a 2-D tensor; `logits` contains NaN or `+inf`, or some row has no finite logit".
# Entries may be -inf. Logits of another dtype (float16, bfloat16, integer) are left open: never tried.
LOGITS = Logits(
    dims=("B", "V"),
    neginf=True,
    refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.NAN, Flaw.POSINF, Flaw.NO_FINITE_ROW},
)
# "a parameter tensor is not a 1-D tensor of length B (a 0-d tensor and a [B, 1] column raise)".
PARAMETER_SHAPE = {Flaw.RANK, Flaw.SHAPE}
PARAMETERS = {
    # "a temperature is negative, NaN or infinite"; any T >= 0 is legal (1e-20 and 50: a tiny and a
    # large one, both samples).
    "temperature": PerRow(
        number=Number(low=0.0, examples=(1e-20, 50.0)), refuse={Flaw.BELOW, *NOT_FINITE, *PARAMETER_SHAPE}
    ),
    # "a top_k is negative" (-inf included); a top_k that is not a whole number (2.5, NaN, +inf) is left
    # open: never tried. Every legal corner here is whole, 0 and above V included.
    "top_k": PerRow(number=Number(low=0.0, examples=(1.0, 40.0)), refuse={Flaw.BELOW, Flaw.NEGINF, *PARAMETER_SHAPE}),
    # "a top_p lies outside (0, 1] (NaN included)"
    "top_p": PerRow(
        number=Number(low=0.0, high=1.0, low_open=True, examples=(0.5,)),
        refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
    ),
    # "a min_p lies outside [0, 1) (NaN included)"
    "min_p": PerRow(
        number=Number(low=0.0, high=1.0, high_open=True, examples=(0.25,)),
        refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
    ),
}
PROBS_ARGUMENTS = {"logits": LOGITS, **PARAMETERS}
# "`num_samples` is not an `int` (2.0 raises) or is less than 1"
SAMPLE_ARGUMENTS = {**PROBS_ARGUMENTS, "num_samples": Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT})}
NUMBERS = ("temperature", "top_k", "top_p", "min_p")


def _row_logits(rng: random.Random, vocab: int) -> list[float]:
    """Logits of one row, distinct by 0.1 or more, an entry or two at -inf (never column 0: V = 1 keeps
    it, and never the row's largest)."""
    while True:
        values = [round(rng.uniform(-2.5, 2.5), 2) for _ in range(vocab)]
        if len(set(values)) == vocab and min(abs(a - b) for a in values for b in values if a != b) >= 0.1:
            break
    top = values.index(max(values))
    for i in range(1, vocab):
        if i != top and rng.random() < 0.25:
            values[i] = NEG_INF
    return values


def good_call(rng: random.Random, *, draws: bool, greedy: bool = True) -> dict[str, Any]:
    """A call the statement allows, with margins at every cut: 2 to 4 rows of 3 to 7 logits (float32 or
    float64, some -inf), each parameter a number or a per-row tensor (float32 or float64), a row
    greedy at times (never with ``greedy=False``: a refused value then never sits on a greedy row
    alone, which would be evidence of another mistake); with ``draws``, a ``num_samples`` of 1 to 40."""
    for _ in range(500):
        rows, vocab = rng.randint(2, 4), rng.randint(3, 7)
        dtype = rng.choice((torch.float32, torch.float64))
        logits = torch.tensor([_row_logits(rng, vocab) for _ in range(rows)], dtype=dtype)
        values = {
            "temperature": [
                rng.choice((0.0, 0.7, 1.0, 1.3) if greedy else (0.7, 1.3)) if rng.random() < 0.3 else 1.0
                for _ in range(rows)
            ],
            "top_k": [float(rng.choice((0, 2, 3))) for _ in range(rows)],
            "top_p": [rng.choice((1.0, 0.9, 0.75)) for _ in range(rows)],
            "min_p": [rng.choice((0.0, 0.1)) for _ in range(rows)],
        }
        call: dict[str, Any] = {"logits": logits}
        for name, column in values.items():
            if rng.random() < 0.5:
                call[name] = torch.tensor(column, dtype=rng.choice((torch.float32, torch.float64)))
            else:
                value = column[0]
                call[name] = int(value) if name == "top_k" else value
        try:
            target(logits, row_params(call), margin=STATED_MARGIN)
        except AmbiguousCase:
            continue
        if draws:
            call["num_samples"] = rng.randint(1, 40)
        return call
    raise RuntimeError("no good call with margins in 500 attempts")


def row_params(kwargs: dict[str, Any]) -> list[RowParams]:
    """Each row's parameters as the call's arguments hold them (numbers, or tensors of any dtype)."""
    rows = kwargs["logits"].shape[0]

    def value(name: str, row: int) -> float:
        held = kwargs[name]
        return float(held[row]) if isinstance(held, torch.Tensor) else float(held)

    return [
        RowParams(value("temperature", b), int(value("top_k", b)), value("top_p", b), value("min_p", b))
        for b in range(rows)
    ]


# --- refusals no spec kind expresses -----------------------------------------------------------------


def extra_refusals(good: dict[str, Any], rng: random.Random) -> list[tuple[str, dict[str, Any], str]]:
    """(what is wrong, the call's keyword arguments, the argument at fault or "greedy") for the refusals the specs
    cannot write: each invalid parameter on rows that are all greedy (temperature 0)."""
    rows = good["logits"].shape[0]
    out = []
    greedy = {**good, "temperature": 0.0 if rng.random() < 0.5 else torch.zeros(rows, dtype=torch.float64)}
    for name, bad in (
        ("top_p", 0.0),
        ("top_p", 1.5),
        ("top_p", math.nan),
        ("min_p", 1.0),
        ("min_p", -0.25),
        ("top_k", -1),
    ):
        # The same value on the good call's sampling rows first: only then is a greedy call that returns
        # evidence that greedy rows go unchecked.
        out.append((f"{name} = {bad!r}", {**good, name: bad}, name))
        out.append((f"every row greedy (temperature 0) and {name} = {bad!r}", {**greedy, name: bad}, "greedy"))
    return out


# What a learner reads when a refused call returns: the mistake, by the argument at fault and the flaw.
_LOGITS_VALUES = {Flaw.NAN.value, Flaw.POSINF.value, Flaw.NO_FINITE_ROW.value}


def refusal_diagnosis(argument: str, flaw: str, value: Any) -> Bilingual | None:
    """The mistake a refused call that returned shows, on its own evidence: the argument and the flaw
    it was given (a per-row tensor out of range at one entry, where the same value as a number came
    first and was refused: one row not checked)."""
    if argument == "logits":
        return MISTAKES["logits_values_accepted" if flaw in _LOGITS_VALUES else "logits_type_accepted"]
    if argument == "num_samples":
        return MISTAKES["num_samples_accepted"]
    if flaw in (Flaw.RANK.value, Flaw.SHAPE.value):
        return MISTAKES["bad_shape_accepted"]
    if isinstance(value, torch.Tensor) and flaw in (Flaw.BELOW.value, Flaw.ABOVE.value):
        return MISTAKES["bad_row_accepted"]
    return MISTAKES.get(f"{argument}_accepted")


def _bad_entry(good: dict[str, Any], variant: Variant) -> float | None:
    """The bad value a per-row tensor variant holds at its one bad entry (a value flaw of a parameter),
    as a Python number; None for any other variant."""
    value, before = variant.kwargs.get(variant.argument), good.get(variant.argument)
    if variant.argument not in PARAMETERS or not isinstance(value, torch.Tensor) or value.dim() != 1:
        return None
    if variant.kind not in (Flaw.BELOW.value, Flaw.ABOVE.value, *(f.value for f in NOT_FINITE)):
        return None
    if not isinstance(before, torch.Tensor):
        before = torch.full_like(value, float(before))
    if before.shape != value.shape:
        return None
    differs = ~((value == before) | (value.isnan() & before.isnan()))
    return float(value[differs.nonzero()[0, 0]]) if bool(differs.any()) else None


def refusal_calls(function: Any, name: str, good: dict[str, Any], arguments: dict, rng: random.Random, extra=None):
    """Every bad call of ``function`` the specs generate from ``good`` and every one :func:`extra_refusals`
    adds, as :class:`BadCall` s with the diagnosis their evidence shows (``extra``: a function giving the
    keyword arguments every call adds, a fresh generator)."""
    more = extra or (lambda: {})
    calls = []
    for variant in bad_inputs(good, arguments, rng):
        entry = _bad_entry(good, variant)
        if entry is not None:  # the bad value as a number, then in every row: only then is one row the evidence
            column = variant.kwargs[variant.argument]
            for kwargs, what, public in (
                (
                    {**variant.kwargs, variant.argument: entry},
                    f"{variant.argument} = {entry!r}",
                    Bilingual(
                        f"{name}() with {variant.public}, given as a number",
                        f"{name}() 收到以数值形式给出的同一非法 {variant.argument} 时",
                    ),
                ),
                (  # a tensor rounded before its check (float32 makes -5e-324 a 0) fails here, not as one row
                    {**variant.kwargs, variant.argument: torch.full_like(column, entry)},
                    f"{variant.argument} = {entry!r} in every row of a {column.dtype} tensor",
                    Bilingual(
                        f"{name}() with {variant.public}, in every row",
                        f"{name}() 收到每一行都是同一非法 {variant.argument} 的张量时",
                    ),
                ),
            ):
                calls.append(
                    BadCall(
                        function,
                        f"{name}() with {what}",
                        kwargs={**kwargs, **more()},
                        public=public,
                        diagnosis=MISTAKES.get(f"{variant.argument}_accepted"),
                    )
                )
        calls.append(
            BadCall(
                function,
                f"{name}() with {variant.description}",
                kwargs={**variant.kwargs, **more()},
                public=public_call(name, variant),
                diagnosis=refusal_diagnosis(variant.argument, variant.kind, variant.kwargs[variant.argument]),
            )
        )
    for what, kwargs, argument in extra_refusals({k: v for k, v in good.items() if k in PROBS_ARGUMENTS}, rng):
        if "num_samples" in good:
            kwargs = {**kwargs, "num_samples": good["num_samples"]}
        public = (
            Bilingual(
                f"{name}() with every row greedy and another parameter invalid",
                f"{name}() 收到全部为贪心行、另一个参数非法的输入时",
            )
            if argument == "greedy"
            else Bilingual(f"{name}() with an invalid {argument}", f"{name}() 收到非法的 {argument} 时")
        )
        calls.append(
            BadCall(
                function,
                f"{name}() with {what}",
                kwargs={**kwargs, **more()},
                public=public,
                diagnosis=MISTAKES["greedy_rows_unchecked" if argument == "greedy" else f"{argument}_accepted"],
            )
        )
    return calls


# --- what a legal corner must return ---------------------------------------------------------------------

TOLERANCE = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}


def _exact_rows(kwargs: dict[str, Any]) -> list[torch.Tensor | None]:
    """Each row's exact distribution, or None where a decision falls inside the statement's margin
    (the corner moved a value there: that row is left open)."""
    logits, params = kwargs["logits"], row_params(kwargs)
    out: list[torch.Tensor | None] = []
    for b in range(logits.shape[0]):
        try:
            out.append(target(logits[b : b + 1], [params[b]], margin=STATED_MARGIN).probs[0])
        except AmbiguousCase:
            out.append(None)
    return out


def probs_corner_check(ctx):
    """``check(value, variant)`` for ``sampling_probs``: a tensor of the logits' shape, dtype and device;
    each row decided by the statement equal to the oracle within the suite's tolerance, with exact
    zeros where it has them and positive values wherever the target is above the underflow floor;
    a row with a decision inside the margin sums to 1, non-negative."""

    def check(value, variant: Variant) -> None:
        logits = variant.kwargs["logits"]
        what = public_call("sampling_probs", variant)
        out = expect_tensor(value, name=str(what), shape=tuple(logits.shape), dtype=logits.dtype, device=ctx.device)
        rtol, atol = TOLERANCE[logits.dtype]
        for b, exact in enumerate(_exact_rows(variant.kwargs)):
            row = out[b].to(torch.float64)
            if exact is None:
                expect(
                    bool(torch.isfinite(row).all() and (row >= 0).all() and abs(float(row.sum()) - 1) < 1e-3),
                    f"sampling_probs() with {variant.description}: row {b} is not a distribution: {row.tolist()}",
                    rule=Bilingual(f"{what}: a row is not a distribution", f"{what.zh}：某一行不是概率分布"),
                )
                continue
            expect_close(
                row.unsqueeze(0),
                exact.unsqueeze(0),
                rtol=rtol,
                atol=atol,
                what=f"sampling_probs() with {variant.description}, row {b}",
            )
            floor = FLOOR[logits.dtype]
            wrong = ((row == 0) & (exact >= floor)) | ((row != 0) & (exact == 0))
            expect(
                not bool(wrong.any()),
                f"sampling_probs() with {variant.description}: row {b} has a zero where the target has none, "
                f"or the reverse, at tokens {wrong.nonzero().flatten().tolist()}",
                rule=Bilingual(f"{what}: the zeros differ from the target's", f"{what.zh}：为 0 的位置与目标不一致"),
            )

    return check


def sample_corner_check(ctx):
    """``check(value, variant)`` for ``sample``: int64 ``[B, num_samples]`` on the device; every draw of a
    row decided by the statement has target probability above 0; in a row left open, a finite logit."""

    def check(value, variant: Variant) -> None:
        logits, n = variant.kwargs["logits"], variant.kwargs["num_samples"]
        what = public_call("sample", variant)
        draws = expect_tensor(value, name=str(what), shape=(logits.shape[0], n), dtype=torch.int64, device=ctx.device)
        allowed = torch.stack(
            [
                torch.isfinite(logits[b]).to(torch.float64) if exact is None else exact
                for b, exact in enumerate(_exact_rows(variant.kwargs))
            ]
        )
        expect_support(
            draws,
            allowed,
            what=f"sample() with {variant.description}",
            why_excluded=lambda row, token: "its target probability is 0",
        )

    return check
