"""Exercise 48's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; and the oracle a legal corner must pass.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. What the
statement leaves open stays out (a Python list or None as a parameter, parameter tensors of another
dtype, logits of float16, bfloat16 or an integer dtype, a ``top_k`` that is not a whole number).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from judge.checks.arguments import NOT_FINITE, Flaw, Logits, Number, PerRow, TensorSpec
from judge.checks.arguments.base import Edit, Sizes, Variant
from judge.checks.arguments.checks import public_call
from judge.checks.distributions import expect_support
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.i18n import Bilingual

from .oracle import STATED_MARGIN, AmbiguousCase, RowParams, target

NEG_INF = float("-inf")
LARGEST = 2**63 - 1


@dataclass(frozen=True, kw_only=True)
class RequestIds(TensorSpec):
    """Seeds or offsets: an int64 tensor [B] of values in [0, 2**63) (:attr:`Flaw.BELOW`: a negative entry).
    Legal corners: 0 and 2**63 - 1 at random entries."""

    dtypes: tuple[torch.dtype, ...] = (torch.int64,)
    wrong_dtypes: tuple[torch.dtype, ...] = (torch.int32, torch.float64)
    REFUSABLE: ClassVar[frozenset[Flaw]] = TensorSpec.REFUSABLE | {Flaw.BELOW}

    def value_flaws(self, value: torch.Tensor, sizes: Sizes) -> set[Flaw]:
        return {Flaw.BELOW} if not value.dtype.is_floating_point and bool((value < 0).any()) else set()

    def value_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        for bad in (-1, -rng.randrange(2, 2**62)):
            new = value.clone()
            new[rng.randrange(value.shape[0])] = bad
            out.append(
                Edit(
                    Flaw.BELOW.value,
                    new,
                    f"{name} holding {bad}",
                    f"{name} holding a negative value",
                    f"含负数的 {name}",
                )
            )
        return out

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        for corner, en, zh in ((0, "0", "0"), (LARGEST, "2**63 - 1", "2**63 - 1")):
            new = value.clone()
            for (at,) in self.corner_positions(value, rng):
                new[at] = corner
            out.append(Edit(f"{name}_{en}", new, f"{name} holding {en}", f"{name} holding {en}", f"含 {zh} 的 {name}"))
        return out


# "`logits` is not a 2-D tensor; `logits` contains NaN or `+inf`, or some row has no finite logit".
LOGITS = Logits(
    dims=("B", "V"),
    neginf=True,
    refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.NAN, Flaw.POSINF, Flaw.NO_FINITE_ROW},
)
# "`seeds` or `offsets` is not an `int64` tensor (a float tensor, an `int32` tensor, a Python list)";
# "is not 1-D of length B (a 0-d tensor and a `[B, 1]` column raise)"; "holds a negative value".
REQUEST_IDS = RequestIds(dims=("B",), refuse={Flaw.NOT_A_TENSOR, Flaw.DTYPE, Flaw.RANK, Flaw.SHAPE, Flaw.BELOW})
# "a parameter tensor is not a 1-D tensor of length B (a 0-d tensor and a [B, 1] column raise)".
PARAMETER_SHAPE = {Flaw.RANK, Flaw.SHAPE}
ARGUMENTS = {
    "logits": LOGITS,
    "seeds": REQUEST_IDS,
    "offsets": REQUEST_IDS,
    # "a temperature is negative, NaN or infinite"
    "temperature": PerRow(
        number=Number(low=0.0, examples=(1e-20, 50.0)), refuse={Flaw.BELOW, *NOT_FINITE, *PARAMETER_SHAPE}
    ),
    # "a `top_k` is negative" (-inf included); a top_k that is not a whole number is left open.
    "top_k": PerRow(number=Number(low=0.0, examples=(1.0, 40.0)), refuse={Flaw.BELOW, Flaw.NEGINF, *PARAMETER_SHAPE}),
    # "a `top_p` lies outside (0, 1] (NaN included)"
    "top_p": PerRow(
        number=Number(low=0.0, high=1.0, low_open=True, examples=(0.5,)),
        refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
    ),
    # "a `min_p` lies outside [0, 1) (NaN included)"
    "min_p": PerRow(
        number=Number(low=0.0, high=1.0, high_open=True, examples=(0.25,)),
        refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
    ),
}
PARAMETERS = ("temperature", "top_k", "top_p", "min_p")


def _row_logits(rng: random.Random, vocab: int) -> list[float]:
    """Logits of one row, distinct by 0.1 or more, an entry or two at -inf (never the row's largest)."""
    while True:
        values = [round(rng.uniform(-2.5, 2.5), 2) for _ in range(vocab)]
        if len(set(values)) == vocab and min(abs(a - b) for a in values for b in values if a != b) >= 0.1:
            break
    top = values.index(max(values))
    return [NEG_INF if i not in (0, top) and rng.random() < 0.25 else v for i, v in enumerate(values)]


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


def good_call(rng: random.Random) -> dict[str, Any]:
    """A call the statement allows, with margins at every cut: 2 to 4 rows of 3 to 7 logits (float32 or
    float64, some -inf), each parameter a number or a per-row tensor, a greedy row at times, seeds and
    offsets below 2**31 (so that an int32 copy of them is legal but for its dtype)."""
    for _ in range(500):
        rows, vocab = rng.randint(2, 4), rng.randint(3, 7)
        dtype = rng.choice((torch.float32, torch.float64))
        logits = torch.tensor([_row_logits(rng, vocab) for _ in range(rows)], dtype=dtype)
        values = {
            "temperature": [rng.choice((0.0, 0.7, 1.3)) if rng.random() < 0.3 else 1.0 for _ in range(rows)],
            "top_k": [float(rng.choice((0, 2, 3))) for _ in range(rows)],
            "top_p": [rng.choice((1.0, 0.9, 0.75)) for _ in range(rows)],
            "min_p": [rng.choice((0.0, 0.1)) for _ in range(rows)],
        }
        call: dict[str, Any] = {
            "logits": logits,
            "seeds": torch.tensor([rng.randrange(2**31) for _ in range(rows)], dtype=torch.int64),
            "offsets": torch.tensor([rng.randrange(2**31) for _ in range(rows)], dtype=torch.int64),
        }
        for name, column in values.items():
            if rng.random() < 0.5:
                call[name] = torch.tensor(column, dtype=rng.choice((torch.float32, torch.float64)))
            else:
                call[name] = int(column[0]) if name == "top_k" else column[0]
        try:
            target(logits, row_params(call), margin=STATED_MARGIN)
        except AmbiguousCase:
            continue
        return call
    raise RuntimeError("no good call with margins in 500 attempts")


def greedy_refusals(good: dict[str, Any], rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """ "Every row's parameters are checked, greedy rows included": each invalid parameter on a call whose
    rows are all greedy (temperature 0), which no spec generates."""
    rows = good["logits"].shape[0]
    greedy = {**good, "temperature": 0.0 if rng.random() < 0.5 else torch.zeros(rows, dtype=torch.float64)}
    return [
        (f"every row greedy (temperature 0) and {name} = {bad!r}", {**greedy, name: bad})
        for name, bad in (("top_p", 0.0), ("top_p", 1.5), ("min_p", 1.0), ("min_p", -0.25), ("top_k", -1))
    ]


TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-9}  # times max(1, |log q|), as the statement says


def corner_check(ctx):
    """``check(value, variant)``: (tokens int64 [B], logprobs [B] in the logits' dtype) on the device; each
    row decided by the statement draws a token of positive probability whose log-probability is right; a
    row left open (a decision inside the margin) draws a token of finite logit."""

    def check(value, variant: Variant) -> None:
        logits = variant.kwargs["logits"]
        rows = logits.shape[0]
        what = public_call("sample_batch", variant)
        expect(
            isinstance(value, (tuple, list)) and len(value) == 2,
            f"sample_batch() with {variant.description} must return a pair (tokens, logprobs), "
            f"got {type(value).__name__}",
            rule=Bilingual(f"{what}: did not return a pair", f"{what.zh}：返回的不是一对值"),
            kind="structural",
        )
        tokens = expect_tensor(value[0], name=f"{what}: tokens", shape=(rows,), dtype=torch.int64, device=ctx.device)
        logprobs = expect_tensor(
            value[1], name=f"{what}: logprobs", shape=(rows,), dtype=logits.dtype, device=ctx.device
        )
        params = row_params(variant.kwargs)
        for b in range(rows):
            try:
                exact = target(logits[b : b + 1], [params[b]], margin=STATED_MARGIN).probs[0]
            except AmbiguousCase:
                exact = None
            allowed = torch.isfinite(logits[b]).to(torch.float64) if exact is None else exact
            expect_support(
                tokens[b : b + 1].unsqueeze(0),
                allowed.unsqueeze(0),
                what=f"sample_batch() with {variant.description}, row {b}",
                why_excluded=lambda row, token: "its probability in the processed distribution is 0",
            )
            if exact is not None:
                expected = torch.log(exact[tokens[b]]).reshape(1)
                expect_close(
                    logprobs[b : b + 1].to(torch.float64),
                    expected,
                    rtol=TOLERANCE[logits.dtype],
                    atol=TOLERANCE[logits.dtype],
                    what=f"sample_batch() with {variant.description}: logprobs, row {b}",
                    per_row=True,
                )

    return check
