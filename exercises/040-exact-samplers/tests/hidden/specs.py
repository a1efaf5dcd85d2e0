"""Exercise 40's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; the bad calls written by hand where a generated one cannot say which mistake it
catches; and the oracles that check what a legal corner returns.

Each spec's ``refuse`` is the statement's refusal list for that argument ("Invalid input", quoted above
each). What the statement neither allows nor refuses stays out: float16 and bfloat16 probabilities,
logits and uniforms ("Left open on purpose"), so only integer and bool dtypes are generated as "not
floating"; an ``accept`` must be float64, so float32 and half precision are refused there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import torch

from judge.checks.arguments import (
    HALF_PRECISION,
    INTEGER_AND_BOOL,
    NOT_FINITE,
    Choice,
    Count,
    Flaw,
    FloatTensor,
    Logits,
    Probabilities,
    TokenIds,
    Uniforms,
    Variant,
    bad_inputs,
    public_call,
)
from judge.checks.distributions import expect_support, expect_tokens_in_range
from judge.checks.exact import expect_tensor
from judge.checks.refusals import BadCall
from judge.i18n import Bilingual

from ..public.checks40 import METHODS, expect_alias_table, expect_tokens
from ..public.diagnoses import MISTAKES
from . import oracle

STRUCTURE = {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE}

# "`probs` ... not a 2-D floating tensor; a negative, NaN or infinite probability; a row of `probs` summing
# to 0". A probs with another B than its uniforms is "uniforms of the wrong shape": SHAPE on both.
PROBS = Probabilities(dims=("B", "V"), refuse={*STRUCTURE, Flaw.BELOW, Flaw.ZERO_ROW, *NOT_FINITE})
# "`logits` not a 2-D floating tensor; NaN or `+inf` logits or a row of `-inf` logits".
LOGITS = Logits(dims=("B", "V"), refuse={*STRUCTURE, Flaw.NAN, Flaw.POSINF, Flaw.NO_FINITE_ROW})


def uniforms(*dims: str) -> Uniforms:
    """ "uniforms not a floating tensor; uniforms of the wrong shape ...; a uniform outside [0, 1), NaN
    included" (every value flaw)."""
    return Uniforms(dims=dims, refuse={*STRUCTURE, Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE})


INVERSE_ARGUMENTS = {"probs": PROBS, "u": uniforms("B", "n")}
GUMBEL_ARGUMENTS = {"logits": LOGITS, "u": uniforms("B", "n", "V")}
RACE_ARGUMENTS = {"probs": PROBS, "u": uniforms("B", "n", "V")}
ALIAS_ARGUMENTS = {"probs": PROBS}
# "an `accept` that is not a float64 tensor `[B, V]`, or holds a value outside [0, 1] (NaN included); an
# `alias` that is not an int64 tensor of the shape of `accept`, or holds an id outside [0, V) on any cell".
DRAW_ARGUMENTS = {
    "accept": FloatTensor(
        dims=("B", "V"),
        dtypes=(torch.float64,),
        wrong_dtypes=(torch.float32, *HALF_PRECISION, *INTEGER_AND_BOOL),
        low=0.0,
        high=1.0,
        refuse={*STRUCTURE, Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE},
    ),
    "alias": TokenIds(
        dims=("B", "V"),
        vocab="V",
        wrong_dtypes=(torch.int32, torch.int16, torch.uint8, torch.float32, torch.float64),
        refuse={*STRUCTURE, Flaw.BELOW, Flaw.ABOVE},
    ),
    "column_u": uniforms("B", "n"),
    "coin_u": uniforms("B", "n"),
}
# "`num_samples` that is not a Python `int` >= 1 (a bool, a float such as `2.0`, a string); a `method`
# other than the four names".
SAMPLE_ARGUMENTS = {
    "probs": PROBS,
    "num_samples": Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT}),
    "method": Choice(options=METHODS, refuse={Flaw.UNKNOWN_CHOICE}),
}

# A refused flaw whose acceptance names a known mistake, when the calls before it in the same argument
# were refused (see ``FLAW_ORDER``): the evidence is that one bad value alone got through.
FLAW_DIAGNOSES = {
    ("u", Flaw.NAN): "uniform_nan_accepted",
    ("column_u", Flaw.NAN): "uniform_nan_accepted",
    ("coin_u", Flaw.NAN): "uniform_nan_accepted",
    ("logits", Flaw.POSINF): "logits_posinf_accepted",
    ("logits", Flaw.NO_FINITE_ROW): "neginf_row_accepted",
    ("probs", Flaw.ZERO_ROW): "zero_row_accepted",
    ("num_samples", Flaw.NOT_AN_INT): "num_samples_not_int",
    ("method", Flaw.UNKNOWN_CHOICE): "unknown_method_accepted",
}
# Within one argument, the calls in this order: a NaN only after the other values out of range, +inf
# logits only after NaN ones and rows of -inf, so that the diagnoses above stand on their own evidence.
FLAW_ORDER = {Flaw.NAN: 1, Flaw.NO_FINITE_ROW: 1, Flaw.POSINF: 2}


# --- the good calls ------------------------------------------------------------------------------------


def _weights(rng: random.Random, rows: int, vocab: int) -> list[list[float]]:
    """Rows of dyadic weights, each with a positive sum (not 1) and no exact zero (the corners add them)."""
    return [[rng.choice((0.25, 0.5, 1.0, 1.5, 2.0, 3.0)) for _ in range(vocab)] for _ in range(rows)]


def _uniform_values(rng: random.Random, *shape: int) -> list:
    if len(shape) == 1:
        return [round(rng.uniform(0.01, 0.99), 6) for _ in range(shape[0])]
    return [_uniform_values(rng, *shape[1:]) for _ in range(shape[0])]


def _dtype(rng: random.Random) -> torch.dtype:
    return rng.choice((torch.float32, torch.float64))


def good_calls(rng: random.Random) -> dict[str, dict[str, Any]]:
    """One good call of each noise-form function: 2 or 3 rows of 4 to 6 tokens, 3 to 5 draws, dtypes at
    random (perhaps different between arguments)."""
    batch, vocab, n = rng.randint(2, 3), rng.randint(4, 6), rng.randint(3, 5)
    probs = torch.tensor(_weights(rng, batch, vocab), dtype=_dtype(rng))
    logits = torch.tensor(
        [[round(rng.gauss(0.0, 1.5), 3) for _ in range(vocab)] for _ in range(batch)], dtype=_dtype(rng)
    )
    accept, alias = oracle.build_alias(probs)
    return {
        "inverse_cdf": {"probs": probs, "u": torch.tensor(_uniform_values(rng, batch, n), dtype=_dtype(rng))},
        "gumbel_max": {"logits": logits, "u": torch.tensor(_uniform_values(rng, batch, n, vocab), dtype=_dtype(rng))},
        "exponential_race": {
            "probs": probs,
            "u": torch.tensor(_uniform_values(rng, batch, n, vocab), dtype=_dtype(rng)),
        },
        "build_alias": {"probs": probs},
        "alias_draw": {
            "accept": accept,
            "alias": alias,
            "column_u": torch.tensor(_uniform_values(rng, batch, n), dtype=_dtype(rng)),
            "coin_u": torch.tensor(_uniform_values(rng, batch, n), dtype=_dtype(rng)),
        },
    }


def good_sample(rng: random.Random, method: str) -> dict[str, Any]:
    """A good call of ``sample``: 2 or 3 rows of 4 to 6 weights, 3 to 20 draws."""
    batch, vocab = rng.randint(2, 3), rng.randint(4, 6)
    probs = torch.tensor(_weights(rng, batch, vocab), dtype=_dtype(rng))
    return {"probs": probs, "num_samples": rng.randint(3, 20), "method": method}


ARGUMENTS = {
    "inverse_cdf": INVERSE_ARGUMENTS,
    "gumbel_max": GUMBEL_ARGUMENTS,
    "exponential_race": RACE_ARGUMENTS,
    "build_alias": ALIAS_ARGUMENTS,
    "alias_draw": DRAW_ARGUMENTS,
}


# --- the bad calls -------------------------------------------------------------------------------------


def generated_refusals(
    function: Callable[..., Any],
    name: str,
    good: Mapping[str, Any],
    arguments: Mapping[str, Any],
    rng: random.Random,
    extra: Callable[[], dict[str, Any]] | None = None,
) -> list[BadCall]:
    """The bad calls the contract gives (``judge.checks.arguments.bad_inputs``), each with exactly one thing
    wrong, as :class:`BadCall`\\ s in the order of ``FLAW_ORDER`` within each argument, each named by
    ``FLAW_DIAGNOSES`` where its flaw names a known mistake."""
    variants = bad_inputs(good, arguments, rng)
    order = {argument: k for k, argument in enumerate(arguments)}
    variants.sort(key=lambda v: (order[v.argument], FLAW_ORDER.get(Flaw(v.kind), 0)))
    calls = []
    for variant in variants:
        mistake = FLAW_DIAGNOSES.get((variant.argument, Flaw(variant.kind)))
        calls.append(
            BadCall(
                function,
                f"{name}() with {variant.description}",
                kwargs={**variant.kwargs, **(extra() if extra else {})},
                public=public_call(name, variant),
                diagnosis=MISTAKES[mistake] if mistake else None,
            )
        )
    return calls


def with_other_methods(calls: list[BadCall], method: str, generator: Callable[[], Any]) -> list[BadCall]:
    """The calls of ``sample`` whose flaw is in ``probs`` (the ``method`` argument left as it is), again
    with each other method and a fresh generator: each method may validate on a path of its own."""
    out = []
    for other in METHODS:
        if other == method:
            continue
        for call in calls:
            kwargs = dict(call.kwargs)
            if (
                kwargs.get("method") != method
                or kwargs.get("num_samples") is None
                or not call.call.startswith("sample() with probs")
            ):
                continue
            kwargs.update(method=other, generator=generator())
            out.append(
                BadCall(
                    call.function,
                    f"{call.call} (method={other!r})",
                    kwargs=kwargs,
                    public=Bilingual(f"{call.public} (method={other!r})", f"{call.public.zh}（method={other!r}）"),
                    diagnosis=call.diagnosis,
                )
            )
    return out


def written_refusals(sub, rng: random.Random, generator: Callable[[], Any]) -> list[BadCall]:
    """Bad calls a spec does not generate: an alias id out of range on a cell that uses it (no name: the
    alias is not checked at all), then on a cell with accept = 1 (named: only the cells in use are
    checked); uniforms of length 1 along a dimension they must share (they would broadcast);
    num_samples as a string, a bool and None."""
    calls = []
    vocab = rng.randint(4, 6)
    probs = torch.tensor(_weights(rng, 2, vocab), dtype=torch.float64)
    probs[0, rng.randrange(vocab)] = 0.0
    accept, alias = oracle.build_alias(probs)
    accept[1] = 1.0  # row 1: every cell keeps its own token, so its aliases are never used
    draws = torch.tensor(_uniform_values(rng, 2, 3), dtype=torch.float32)
    used = int((accept[0] < 1).nonzero()[0])
    for row, cell, en, zh in (
        (0, used, "a cell with accept < 1", "accept < 1 的格子"),
        (1, rng.randrange(vocab), "a cell with accept = 1", "accept = 1 的格子"),
    ):
        for bad in (vocab, -1):
            wrong = alias.clone()
            wrong[row, cell] = bad
            calls.append(
                BadCall(
                    sub.alias_draw,
                    f"alias_draw() with alias[{row}, {cell}] = {bad} (accept there is {float(accept[row, cell]):g})",
                    kwargs={"accept": accept, "alias": wrong, "column_u": draws, "coin_u": draws},
                    public=Bilingual(
                        f"alias_draw() with an alias id out of range on {en}",
                        f"alias_draw() 收到在{zh}上越界的 alias 编号时",
                    ),
                    diagnosis=MISTAKES["alias_range_where_used"] if row == 1 else None,
                )
            )
    u3 = torch.tensor(_uniform_values(rng, 2, 3, 1), dtype=torch.float32)
    calls.append(
        BadCall(
            sub.gumbel_max,
            f"gumbel_max() with u of shape [2, 3, 1] for {vocab} tokens (it would broadcast)",
            kwargs={"logits": probs.clamp(min=0.1).log(), "u": u3},
            public=Bilingual(
                "gumbel_max() with u of length 1 along V (it would broadcast)",
                "gumbel_max() 收到 V 维长度为 1（会被广播）的 u 时",
            ),
        )
    )
    calls.append(
        BadCall(
            sub.exponential_race,
            f"exponential_race() with u of shape [1, 3, {vocab}] for 2 rows (it would broadcast)",
            kwargs={"probs": probs, "u": torch.tensor(_uniform_values(rng, 1, 3, vocab), dtype=torch.float64)},
            public=Bilingual(
                "exponential_race() with u of length 1 along B (it would broadcast)",
                "exponential_race() 收到 B 维长度为 1（会被广播）的 u 时",
            ),
        )
    )
    calls.append(
        BadCall(
            sub.alias_draw,
            "alias_draw() with coin_u of shape [2, 1] for column_u of shape [2, 3] (it would broadcast)",
            kwargs={"accept": accept, "alias": alias, "column_u": draws, "coin_u": draws[:, :1].clone()},
            public=Bilingual(
                "alias_draw() with coin_u of length 1 along n (it would broadcast)",
                "alias_draw() 收到 n 维长度为 1（会被广播）的 coin_u 时",
            ),
        )
    )
    for bad, en, zh in (("3", "a string", "字符串"), (True, "a bool", "bool"), (None, "None", "None")):
        calls.append(
            BadCall(
                sub.sample,
                f"sample() with num_samples = {bad!r}",
                kwargs={"probs": probs, "num_samples": bad, "method": rng.choice(METHODS), "generator": generator()},
                public=Bilingual(f"sample() with num_samples given as {en}", f"sample() 收到{zh}形式的 num_samples 时"),
                diagnosis=MISTAKES["num_samples_not_int"],
            )
        )
    return calls


# --- what a legal corner must return ------------------------------------------------------------------


def _why_zero(row: int, token: int) -> str:
    return "its probability is 0"


def _tokens(ctx, value, variant: Variant, name: str, shape: tuple[int, ...], vocab: int):
    what = public_call(name, variant)
    draws = expect_tensor(
        value, name=f"{name}() with {variant.description}", shape=shape, dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(draws, vocab, what=what)
    return draws, what


def inverse_cdf_corner(ctx) -> Callable[[Any, Variant], None]:
    """``check(value, variant)`` for ``inverse_cdf``: the exact tokens where every u keeps its margin from
    the steps of this corner's F (exact steps always do), else only tokens of positive probability."""

    def check(value, variant: Variant) -> None:
        probs, u = variant.kwargs["probs"], variant.kwargs["u"]
        draws, what = _tokens(ctx, value, variant, "inverse_cdf", tuple(u.shape), probs.shape[1])
        exact_rows = set(range(probs.shape[0])) if oracle.exact_steps(probs) else set()
        try:
            oracle.check_cdf_margins(probs, u, exact_rows)
        except oracle.AmbiguousCase:
            expect_support(draws, oracle.distribution(probs), what=what, why_excluded=_why_zero)
            return
        expect_tokens(
            ctx,
            draws,
            oracle.inverse_cdf(probs, u),
            name="inverse_cdf",
            what=f"inverse_cdf() with {variant.description}",
            public=what,
        )

    return check


def _noise_corner(ctx, name: str) -> Callable[[Any, Variant], None]:
    gumbel = name == "gumbel_max"

    def check(value, variant: Variant) -> None:
        first = variant.kwargs["logits" if gumbel else "probs"]
        u = variant.kwargs["u"]
        draws, what = _tokens(ctx, value, variant, name, tuple(u.shape[:2]), first.shape[1])
        target = torch.softmax(first.to(torch.float64), dim=1) if gumbel else oracle.distribution(first)
        expect_support(draws, target, what=what, why_excluded=_why_zero)
        scores = oracle.gumbel_scores(first, u) if gumbel else oracle.race_log_scores(first, u)
        try:
            oracle.check_score_margins(scores)
        except oracle.AmbiguousCase:
            return
        expected = oracle.gumbel_max(first, u) if gumbel else oracle.exponential_race(first, u)
        expect_tokens(ctx, draws, expected, name=name, what=f"{name}() with {variant.description}", public=what)

    return check


def gumbel_corner(ctx) -> Callable[[Any, Variant], None]:
    """``check(value, variant)`` for ``gumbel_max``: tokens of finite logit; the exact tokens where the two
    best scores of every draw keep their margin."""
    return _noise_corner(ctx, "gumbel_max")


def race_corner(ctx) -> Callable[[Any, Variant], None]:
    """The same for ``exponential_race``: tokens of positive probability; the exact tokens with margins."""
    return _noise_corner(ctx, "exponential_race")


def alias_corner(ctx) -> Callable[[Any, Variant], None]:
    """``check(value, variant)`` for ``build_alias``: a table whose implied distribution is the target."""

    def check(value, variant: Variant) -> None:
        probs = variant.kwargs["probs"]
        what = public_call("build_alias", variant)
        expect_alias_table(
            ctx, value, oracle.distribution(probs), what=f"build_alias() with {variant.description}", public=what
        )

    return check


def draw_corner(ctx) -> Callable[[Any, Variant], None]:
    """``check(value, variant)`` for ``alias_draw``: ids in range; the exact tokens where every column and
    coin keeps its margin (a column uniform of 0 or of the largest float below 1, and a coin equal to
    its accept, are exact boundaries)."""

    def check(value, variant: Variant) -> None:
        kwargs = variant.kwargs
        accept, alias, column_u, coin_u = kwargs["accept"], kwargs["alias"], kwargs["column_u"], kwargs["coin_u"]
        draws, what = _tokens(ctx, value, variant, "alias_draw", tuple(column_u.shape), accept.shape[1])
        vocab = accept.shape[1]
        top = 1.0 - torch.finfo(column_u.dtype).eps / 2
        scaled = column_u.to(torch.float64) * vocab
        edge = (scaled - scaled.round()).abs() < oracle.COIN_MARGIN * vocab
        near_column = edge & (column_u != 0) & (column_u.to(torch.float64) != top)
        gap = (coin_u.to(torch.float64) - accept.gather(1, scaled.floor().to(torch.int64))).abs()
        if bool((near_column | ((gap > 0) & (gap < oracle.COIN_MARGIN))).any()):
            return
        expected = oracle.alias_draw(accept, alias, column_u, coin_u)
        expect_tokens(
            ctx, draws, expected, name="alias_draw", what=f"alias_draw() with {variant.description}", public=what
        )

    return check


def sample_corner(ctx) -> Callable[[Any, Variant], None]:
    """``check(value, variant)`` for ``sample``: int64 ``[B, num_samples]``, tokens of positive probability."""

    def check(value, variant: Variant) -> None:
        probs, n = variant.kwargs["probs"], variant.kwargs["num_samples"]
        draws, what = _tokens(ctx, value, variant, "sample", (probs.shape[0], n), probs.shape[1])
        expect_support(draws, oracle.distribution(probs), what=what, why_excluded=_why_zero)

    return check


CORNER_CHECKS = {
    "inverse_cdf": inverse_cdf_corner,
    "gumbel_max": gumbel_corner,
    "exponential_race": race_corner,
    "build_alias": alias_corner,
    "alias_draw": draw_corner,
}
