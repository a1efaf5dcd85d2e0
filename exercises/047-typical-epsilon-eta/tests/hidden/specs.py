"""Exercise 47's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; the refusals the specs cannot express; and the oracles a legal corner must pass.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. What the
statement leaves open stays out (None, a bool, a string or a list where a number or a tensor belongs,
parameter tensors of an integer dtype, logits of float16 or bfloat16). The range of ``param`` depends on
the method, so each method has its own argument specs, with ``method`` a choice of that one method (its
unknown spellings are the refusals; the other methods are legal calls of their own specs). One refusal no
spec kind expresses is generated here from the good call: an invalid ``param`` on rows that are all greedy.
"""

from __future__ import annotations

import math
import random
from typing import Any

import torch

from judge.checks.arguments import NOT_FINITE, Choice, Count, Flaw, Logits, Number, PerRow, Variant, public_call
from judge.checks.distributions import expect_support
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.refusals import BadCall
from judge.i18n import Bilingual

from ..public.checks47 import FLOOR, TOLERANCE
from .oracle import STATED_MARGIN, AmbiguousCase, call_of, target

NEG_INF = float("-inf")

# "`logits` is not a 2-D float32 or float64 tensor (a 1-D tensor, an integer tensor, a list); `logits`
# contains NaN or `+inf`, or some row has no finite logit". Entries may be -inf; float16 and bfloat16 are open.
LOGITS = Logits(
    dims=("B", "V"),
    neginf=True,
    refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.NAN, Flaw.POSINF, Flaw.NO_FINITE_ROW},
)
# "a `param` or `temperature` tensor is not a 1-D tensor of length B (a 0-d tensor and a `[B, 1]` column raise)"
PARAMETER_SHAPE = {Flaw.RANK, Flaw.SHAPE}
# "a temperature is negative, NaN or infinite"; any T >= 0 is legal.
TEMPERATURE = PerRow(number=Number(low=0.0, examples=(0.05, 25.0)), refuse={Flaw.BELOW, *NOT_FINITE, *PARAMETER_SHAPE})
# "a `"typical"` mass lies outside (0, 1], NaN included" (an infinity lies outside too);
# "an `"epsilon"` or `"eta"` parameter lies outside [0, 1), NaN included".
PARAM = {
    "typical": PerRow(
        number=Number(low=0.0, high=1.0, low_open=True, examples=(0.5,)),
        refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
    ),
    **{
        method: PerRow(
            number=Number(low=0.0, high=1.0, high_open=True, examples=(0.05,)),
            refuse={Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE, *PARAMETER_SHAPE},
        )
        for method in ("epsilon", "eta")
    },
}


def probs_arguments(method: str) -> dict:
    # "`method` is not one of "typical", "epsilon" and "eta" ("Typical" and "top_p" included)"
    return {
        "logits": LOGITS,
        "method": Choice(options=(method,), refuse={Flaw.UNKNOWN_CHOICE}),
        "param": PARAM[method],
        "temperature": TEMPERATURE,
    }


def sample_arguments(method: str) -> dict:
    # "`num_samples` is not an `int` (2.0 raises) or is less than 1"
    return {**probs_arguments(method), "num_samples": Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT})}


PARAM_VALUES = {"typical": (1.0, 0.9, 0.6, 0.35), "epsilon": (0.0, 0.03, 0.1, 0.2), "eta": (0.0, 0.02, 0.1, 0.4)}


def _row_logits(rng: random.Random, vocab: int) -> list[float]:
    """Logits of one row: a tie now and then, an entry or two at -inf (never the row's largest)."""
    values = [round(rng.uniform(-2.5, 2.5), rng.choice((1, 2, 3))) for _ in range(vocab)]
    if vocab > 2 and rng.random() < 0.4:
        values[rng.randrange(vocab)] = values[rng.randrange(vocab)]
    top = values.index(max(values))
    for i in range(vocab):
        if i != top and rng.random() < 0.2:
            values[i] = NEG_INF
    return values


def good_call(rng: random.Random, method: str, *, draws: bool, greedy: bool = True) -> dict[str, Any]:
    """A call the statement allows, with margins at every cut: 2 to 4 rows of 3 to 7 logits (float32 or
    float64, some -inf, some tied), the parameter and the temperature each a number or a per-row tensor
    (float32 or float64), a row greedy at times (never with ``greedy=False``); with ``draws``, a
    ``num_samples`` of 1 to 40."""
    for _ in range(1000):
        rows, vocab = rng.randint(2, 4), rng.randint(3, 7)
        dtype = rng.choice((torch.float32, torch.float64))
        logits = torch.tensor([_row_logits(rng, vocab) for _ in range(rows)], dtype=dtype)
        call: dict[str, Any] = {"logits": logits, "method": method}
        for name, choices in (
            ("param", PARAM_VALUES[method]),
            ("temperature", (0.0, 0.7, 1.0, 1.3) if greedy else (0.7, 1.0, 1.3)),
        ):
            column = [rng.choice(choices) for _ in range(rows)]
            if rng.random() < 0.5:
                call[name] = torch.tensor(column, dtype=rng.choice((torch.float32, torch.float64)))
            else:
                call[name] = column[0]
        try:
            target(call_of(logits, method, call["param"], call["temperature"]), margin=2 * STATED_MARGIN)
        except AmbiguousCase:
            continue
        if draws:
            call["num_samples"] = rng.randint(1, 40)
        return call
    raise RuntimeError("no good call with margins in 1000 attempts")


# --- refusals no spec kind expresses -----------------------------------------------------------------

_BAD_PARAMS = {"typical": (0.0, 1.5, math.nan), "epsilon": (1.0, -0.25, math.nan), "eta": (1.0, -0.25, math.nan)}


def greedy_refusals(function: Any, name: str, good: dict[str, Any], extra=None) -> list[BadCall]:
    """Each invalid ``param`` on the good call's rows, then on the same rows all greedy (temperature 0):
    "Every row's values are checked, greedy rows included"."""
    more = extra or (lambda: {})
    rows = good["logits"].shape[0]
    greedy = {**good, "temperature": torch.zeros(rows, dtype=torch.float64)}
    calls = []
    for bad in _BAD_PARAMS[good["method"]]:
        for kwargs, what, public in (
            (
                {**good, "param": bad},
                f"param = {bad!r}",
                Bilingual(f"{name}() with an invalid param", f"{name}() 收到非法的 param 时"),
            ),
            (
                {**greedy, "param": bad},
                f"every row greedy (temperature 0) and param = {bad!r}",
                Bilingual(
                    f"{name}() with every row greedy and an invalid param",
                    f"{name}() 收到全部为贪心行、param 非法的输入时",
                ),
            ),
        ):
            calls.append(BadCall(function, f"{name}() with {what}", kwargs={**kwargs, **more()}, public=public))
    return calls


# --- what a legal corner must return ---------------------------------------------------------------------


def _exact_rows(kwargs: dict[str, Any]) -> list[torch.Tensor | None]:
    """Each row's exact distribution, or None where a decision falls inside the statement's margin (the
    corner moved a value there: that row is left open)."""
    call = call_of(kwargs["logits"], kwargs["method"], kwargs["param"], kwargs["temperature"])
    out: list[torch.Tensor | None] = []
    for b in range(call.logits.shape[0]):
        one = type(call)(call.logits[b : b + 1], call.method, call.params[b : b + 1], call.temperatures[b : b + 1])
        try:
            out.append(target(one, margin=STATED_MARGIN)[0])
        except AmbiguousCase:
            out.append(None)
    return out


def _defaults(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {"temperature": 1.0, **kwargs}


def probs_corner_check(ctx):
    """``check(value, variant)`` for ``truncated_probs``: a tensor of the logits' shape, dtype and device;
    each row the statement decides equal to the oracle within the tolerance, zeros exactly where the target
    has them (above the underflow floor); a row with a decision inside the margin a distribution."""

    def check(value, variant: Variant) -> None:
        kwargs = _defaults(variant.kwargs)
        logits = kwargs["logits"]
        what = public_call("truncated_probs", variant)
        out = expect_tensor(value, name=str(what), shape=tuple(logits.shape), dtype=logits.dtype, device=ctx.device)
        rtol, atol = TOLERANCE[logits.dtype]
        for b, exact in enumerate(_exact_rows(kwargs)):
            row = out[b].to(torch.float64)
            if exact is None:
                expect(
                    bool(torch.isfinite(row).all() and (row >= 0).all() and abs(float(row.sum()) - 1) < 1e-3),
                    f"truncated_probs() with {variant.description}: row {b} is not a distribution: {row.tolist()}",
                    rule=Bilingual(f"{what}: a row is not a distribution", f"{what.zh}：某一行不是概率分布"),
                )
                continue
            expect_close(
                row.unsqueeze(0),
                exact.unsqueeze(0),
                rtol=rtol,
                atol=atol,
                what=f"truncated_probs() with {variant.description}, row {b}",
            )
            wrong = ((row == 0) & (exact >= FLOOR[logits.dtype])) | ((row != 0) & (exact == 0))
            expect(
                not bool(wrong.any()),
                f"truncated_probs() with {variant.description}: row {b} has a zero where the target has none, "
                f"or the reverse, at tokens {wrong.nonzero().flatten().tolist()}",
                rule=Bilingual(f"{what}: the zeros differ from the target's", f"{what.zh}：为 0 的位置与目标不一致"),
            )

    return check


def sample_corner_check(ctx):
    """``check(value, variant)`` for ``sample_truncated``: int64 ``[B, num_samples]`` on the device; every
    draw of a row the statement decides has target probability above 0; in a row left open, a finite logit."""

    def check(value, variant: Variant) -> None:
        kwargs = _defaults(variant.kwargs)
        logits, n = kwargs["logits"], kwargs["num_samples"]
        what = public_call("sample_truncated", variant)
        draws = expect_tensor(value, name=str(what), shape=(logits.shape[0], n), dtype=torch.int64, device=ctx.device)
        allowed = torch.stack(
            [
                torch.isfinite(logits[b]).to(torch.float64) if exact is None else exact
                for b, exact in enumerate(_exact_rows(kwargs))
            ]
        )
        expect_support(
            draws,
            allowed,
            what=f"sample_truncated() with {variant.description}",
            why_excluded=lambda row, token: "its target probability is 0",
        )

    return check
