"""Exercise 44's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; the refusals the generator cannot express (a relation between two arguments, every
tensor of a call at once); and what each refusal accepted is named.

What the statement leaves open stays out: float16 and bfloat16 tensors ("not a 2-D floating tensor"
refuses neither, "float32 or float64" allows neither), B = 0, numpy scalars and 0-d tensors as a cap or a
count, ints beyond the float range as a cap.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

import torch

from judge.checks.arguments import (
    NOT_FINITE,
    Count,
    Flaw,
    Number,
    Probabilities,
    Values,
    Variant,
    contract_refusals,
)
from judge.checks.base import CheckFailed
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.i18n import Bilingual

from ..public.checks44 import name_crash
from ..public.diagnoses import REFUSALS

_TENSOR = {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE}

# "Every function raises ValueError when: an input is not a 2-D floating tensor (a 1-D tensor, an integer
# or bool tensor, a list); the inputs' shapes or dtypes differ; a value of log_p, log_q, f, p or q is NaN or
# infinite; a row has no sample (N = 0 ...)". N >= 1: one below is a SHAPE flaw of one argument (the whole
# call at N = 0 is added by hand, :func:`empty_rows`).
_LOG = {"dims": ("B", "N"), "at_least": {"N": 1}}
ESTIMATE_ARGUMENTS = {
    "log_p": Values(**_LOG, refuse=_TENSOR | NOT_FINITE),
    "log_q": Values(**_LOG, same_dtype_as="log_p", refuse=_TENSOR | NOT_FINITE | {Flaw.DTYPE_MISMATCH}),
    "f": Values(**_LOG, same_dtype_as="log_p", refuse=_TENSOR | NOT_FINITE | {Flaw.DTYPE_MISMATCH}),
}
ESS_ARGUMENTS = {name: ESTIMATE_ARGUMENTS[name] for name in ("log_p", "log_q")}

# "cap is not a finite number > 0: 0, a negative number, NaN, an infinity, a bool, a string, or None in
# truncated_estimate". A tiny cap and one near float32's largest value are corners (a larger one is left open).
CAP = Number(
    low=0.0,
    low_open=True,
    examples=(2.0**-30, 1e38, 2**62),  # at most float32's largest value; ints travel as int64
    refuse={Flaw.BELOW, Flaw.NOT_A_NUMBER, *NOT_FINITE},
)
TRUNCATED_ARGUMENTS = {**ESTIMATE_ARGUMENTS, "cap": CAP}

# sample_estimate: "p or q holds a negative value", "a row of q holds no positive value", "num_samples is not an
# int >= 2: 1, 0, a negative int, a float such as 5.0". None is a legal cap here: a string and a bool are
# added by hand (:func:`sampler_extras`), and so is "q is 0 where p is not", a relation of two arguments.
_PROBS = {"dims": ("B", "V")}
SAMPLE_ARGUMENTS = {
    "p": Probabilities(**_PROBS, refuse=_TENSOR | NOT_FINITE | {Flaw.BELOW}),
    "q": Probabilities(
        **_PROBS, same_dtype_as="p", refuse=_TENSOR | NOT_FINITE | {Flaw.BELOW, Flaw.ZERO_ROW, Flaw.DTYPE_MISMATCH}
    ),
    "f": Values(**_PROBS, same_dtype_as="p", refuse=_TENSOR | NOT_FINITE | {Flaw.DTYPE_MISMATCH}),
    "num_samples": Count(minimum=2, refuse={Flaw.BELOW, Flaw.NOT_AN_INT}),
    "cap": Number(low=0.0, low_open=True, refuse={Flaw.BELOW, *NOT_FINITE}),
}


# --- the good calls ------------------------------------------------------------------------------------


def _dtype(rng: random.Random) -> torch.dtype:
    return rng.choice((torch.float32, torch.float64))


def good_estimates(rng: random.Random) -> dict:
    """A call of ``importance_estimates``: 2 to 4 rows of 2 to 6 samples, moderate log-weights, f of both signs."""
    rows, n = rng.randint(2, 4), rng.randint(2, 6)
    log_q = [[round(rng.gauss(-2.0, 1.0), 3) for _ in range(n)] for _ in range(rows)]
    log_p = [[v + round(rng.gauss(0.0, 2.0), 3) for v in r] for r in log_q]
    f = [[round(rng.gauss(1.0, 3.0), 3) for _ in range(n)] for _ in range(rows)]
    dtype = _dtype(rng)
    return {
        "log_p": torch.tensor(log_p, dtype=dtype),
        "log_q": torch.tensor(log_q, dtype=dtype),
        "f": torch.tensor(f, dtype=dtype),
    }


def good_ess(rng: random.Random) -> dict:
    call = good_estimates(rng)
    return {"log_p": call["log_p"], "log_q": call["log_q"]}


def good_truncated(rng: random.Random) -> dict:
    return good_estimates(rng) | {"cap": rng.choice((0.5, 1.5, 2.0, 3.25))}


def good_sample(rng: random.Random) -> dict:
    """A call of ``sample_estimate``: 2 to 4 rows of 3 to 6 outcomes, p = 0 on one outcome where q > 0 and
    p = q = 0 on another in some rows, 2 to 10 draws, a cap."""
    rows, size = rng.randint(2, 4), rng.randint(3, 6)
    p_rows, q_rows = [], []
    for _ in range(rows):
        q = [rng.choice((0.5, 1.0, 2.0, 3.0)) for _ in range(size)]
        p = [rng.choice((0.5, 1.0, 2.0)) for _ in range(size)]
        if rng.random() < 0.5:
            both, only_p = rng.sample(range(size), 2)
            q[both] = p[both] = 0.0
            p[only_p] = 0.0
        q_rows.append([v / sum(q) for v in q])
        p_rows.append([v / sum(p) for v in p])
    dtype = _dtype(rng)
    return {
        "p": torch.tensor(p_rows, dtype=torch.float64).to(dtype),
        "q": torch.tensor(q_rows, dtype=torch.float64).to(dtype),
        "f": torch.tensor([[round(rng.gauss(0.0, 3.0), 3) for _ in range(size)] for _ in range(rows)], dtype=dtype),
        "num_samples": rng.randint(2, 10),
        "cap": rng.choice((1.5, 2.0, 4.0)),
    }


# --- refusals: each bad call named by the refusal sentence it breaks --------------------------------------


def refusal_name(variant: Variant) -> str:
    """The group of :data:`REFUSALS` a generated bad call belongs to."""
    if variant.argument == "cap":
        return "bad_cap"
    if variant.argument == "num_samples":
        return "bad_num_samples"
    kind = Flaw(variant.kind)
    if kind in (Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE):
        return "not_2d_floating"
    if kind in (Flaw.SHAPE, Flaw.DTYPE_MISMATCH):
        return "shapes_or_dtypes"
    if kind in NOT_FINITE:
        return "not_finite"
    if kind == Flaw.BELOW:
        return "negative_probability"
    if kind == Flaw.ZERO_ROW:
        return "zero_row_of_q"
    raise ValueError(f"no refusal group for {variant.argument} {variant.kind}")


def refusals(
    function: Callable,
    name: str,
    good: Mapping,
    arguments: Mapping,
    rng: random.Random,
    extra: Callable[[], dict] | None = None,
) -> list[BadCall]:
    """The generated bad calls of ``function`` (:func:`judge.checks.arguments.contract_refusals`), each naming
    its refusal group as the diagnosis when the call returns normally."""
    return contract_refusals(
        function, good, arguments, rng, extra=extra, name=name, diagnose=lambda variant: REFUSALS[refusal_name(variant)]
    )


def _bad(function, name: str, what: str, public: Bilingual, kwargs: dict, group: str) -> BadCall:
    return BadCall(
        function,
        f"{name}() with {what}",
        kwargs=kwargs,
        public=Bilingual(f"{name}() with {public}", f"{name}() 收到{public.zh}时"),
        diagnosis=REFUSALS[group],
    )


def empty_rows(function, name: str, good: Mapping) -> list[BadCall]:
    """Every tensor of the call with N = 0 samples per row (``a row has no sample``)."""
    kwargs = {key: value[:, :0] if isinstance(value, torch.Tensor) else value for key, value in good.items()}
    return [
        _bad(
            function,
            name,
            "rows of N = 0 samples",
            Bilingual("rows of no sample", "每行都没有样本的输入"),
            kwargs,
            "no_sample",
        )
    ]


def whole_numbers(good: Mapping, dtype: torch.dtype) -> dict:
    """The good call with every tensor in ``dtype`` (an integer or bool one), its values kept legal: log-weights
    and f rounded, each row of p and q one-hot at q's largest entry (q covers p)."""
    out = dict(good)
    if "q" in good:
        top = good["q"].argmax(dim=1, keepdim=True)
        hot = torch.zeros_like(good["q"]).scatter_(1, top, 1.0)
        out["p"], out["q"] = hot.to(dtype), hot.to(dtype)
        out["f"] = good["f"].round().to(dtype) if dtype != torch.bool else (good["f"] > 0)
        return out
    for key in ("log_p", "log_q", "f"):
        if key in good:
            out[key] = good[key].round().to(dtype) if dtype != torch.bool else (good[key] > 0)
    return out


def all_integer(function, name: str, good: Mapping, extra: Callable[[], dict] | None = None) -> list[BadCall]:
    """Every tensor of the call in int64, int32 and bool at once ("not a floating tensor", where the inputs'
    dtypes agree with each other)."""
    more = extra or dict
    return [
        _bad(
            function,
            name,
            f"every tensor in {dtype}",
            Bilingual(
                f"every tensor in {str(dtype).removeprefix('torch.')}",
                f"所有张量都是 {str(dtype).removeprefix('torch.')} 的输入",
            ),
            whole_numbers(good, dtype) | more(),
            "not_2d_floating",
        )
        for dtype in (torch.int64, torch.int32, torch.bool)
    ]


def truncated_extras(function, good: Mapping) -> list[BadCall]:
    """Caps the generator does not make: a bool."""
    name = "truncated_estimate"
    return [
        _bad(
            function,
            name,
            f"cap = {flag}",
            Bilingual("a bool as cap", "布尔值 cap"),
            dict(good) | {"cap": flag},
            "bad_cap",
        )
        for flag in (True, False)
    ]


def sampler_extras(function, good: Mapping, rng: random.Random, extra: Callable[[], dict]) -> list[BadCall]:
    """What the generator cannot make for ``sample_estimate``: q = 0 where p > 0 (the first outcome, the
    last one, one in between, with q's mass moved to another outcome), every tensor with V = 0, a string or
    a bool as cap or num_samples."""
    name = "sample_estimate"
    p, q = good["p"], good["q"]
    out = []
    rows, size = q.shape
    for at in dict.fromkeys((0, size - 1, rng.randrange(size))):
        row = rng.randrange(rows)
        bad_p, bad_q = p.clone(), q.clone()
        if float(bad_p[row, at]) == 0:
            bad_p[row, at] = 0.25
        other = (at + 1) % size
        bad_q[row, other] += bad_q[row, at]
        bad_q[row, at] = 0.0
        out.append(
            _bad(
                function,
                name,
                f"q = 0 where p = {float(bad_p[row, at]):g} at [{row}, {at}]",
                Bilingual("q = 0 where p > 0", "p > 0 处 q = 0 的输入"),
                dict(good) | {"p": bad_p, "q": bad_q} | extra(),
                "q_does_not_cover_p",
            )
        )
    row = rng.randrange(rows)
    bare_p, bare_q = p.clone(), q.clone()
    bare_p[row] = 0.0
    bare_q[row] = 0.0
    out.append(
        _bad(
            function,
            name,
            f"row {row} of q (and of p) all zeros",
            Bilingual("a row of q without a positive value", "没有正值的 q 行"),
            dict(good) | {"p": bare_p, "q": bare_q} | extra(),
            "zero_row_of_q",
        )
    )
    empty = {key: value[:, :0] if isinstance(value, torch.Tensor) else value for key, value in good.items()}
    out.append(
        _bad(
            function,
            name,
            "V = 0 outcomes",
            Bilingual("rows of no outcome (V = 0)", "没有任何结果（V = 0）的输入"),
            empty | extra(),
            "zero_row_of_q",
        )
    )
    for value, group, words in (
        (True, "bad_cap", Bilingual("a bool as cap", "布尔值 cap")),
        ("2", "bad_cap", Bilingual("cap given as a string", "字符串形式的 cap")),
        (True, "bad_num_samples", Bilingual("a bool as num_samples", "布尔值 num_samples")),
        (
            str(good["num_samples"]),
            "bad_num_samples",
            Bilingual("num_samples given as a string", "字符串形式的 num_samples"),
        ),
    ):
        key = "cap" if group == "bad_cap" else "num_samples"
        out.append(_bad(function, name, f"{key} = {value!r}", words, dict(good) | {key: value} | extra(), group))
    return out


def shuffled(calls: Sequence[BadCall], rng: random.Random) -> list[BadCall]:
    """The calls in an order of the case's own (a learner checking in one order meets every flaw first)."""
    out = list(calls)
    rng.shuffle(out)
    return out


def expect_refused(calls: Sequence[BadCall], goods: Sequence[tuple[Callable, dict]]) -> int:
    """:func:`judge.checks.refusals.expect_calls_refused`, after one legal call of each function (``goods``: the
    function and its keyword arguments). Where those return, a call that raised another type than
    ValueError (it crashed inside instead of refusing) is named like one that returned normally: the input
    was not refused either. A function that crashes on legal inputs too fails on its legal call, unnamed."""
    for function, kwargs in goods:
        function(**kwargs)
    try:
        return expect_calls_refused(calls)
    except CheckFailed as failure:
        name_crash(failure, [(bad.call, bad.diagnosis) for bad in calls])
        raise
