"""Exercise 43's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; and the oracles that check what a legal corner returns.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. What the
statement neither allows nor refuses stays out (float16 and bfloat16 tensors in every function, NaN
logits, an empty batch). Two things the generic specs cannot say are said here: ``target_probs`` and
``target_logits`` have ``K + 1`` positions where the draft has ``K`` (:class:`_KPlusOne`), and the rows of
``verify`` are distributions up to rounding, whose legal corners keep their sums (:class:`Distributions`).
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass
from typing import Any

import torch

from judge.checks.arguments import (
    NOT_FINITE,
    Count,
    Flaw,
    Logits,
    Number,
    Probabilities,
    TokenIds,
    Variant,
    public_call,
)
from judge.checks.arguments.base import Edit, Sizes
from judge.checks.arguments.ranges import zh
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.refusals import BadCall
from judge.i18n import Bilingual

from ..public import theory
from ..public.checks43 import TOLERANCE, check_certain, check_structure, unpack
from ..public.diagnoses import MISTAKES
from .generated import FilterRows, filtered64


class _KPlusOne:
    """A ``[B, K + 1, V]`` tensor whose dims are named ``("B", "K", "V")``: its second dimension holds one
    position more than the ``K`` the draft's arguments fix (the target scores K + 1 positions)."""

    dims: tuple[str, ...]

    def bind(self, name: str, value: Any) -> dict[str, int]:
        sizes = super().bind(name, value)  # type: ignore[misc]
        return {**sizes, "K": sizes["K"] - 1}

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        return super().flaws(name, value, _plus_one(sizes))  # type: ignore[misc]

    def _shape_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        edits = super()._shape_edits(name, value, _plus_one(sizes), rng)  # type: ignore[misc]
        k = sizes.dims["K"]
        out = []
        for edit in edits:
            if f"its K is {k + 2}," in edit.detail or f"its K is {k}," in edit.detail:
                shape = edit.value.shape
                edit = dataclasses.replace(
                    edit, detail=f"{name} of shape {list(shape)} ({shape[1]} positions where K + 1 = {k + 1})"
                )
            out.append(edit)
        return out

    def resized(self, value: Any, dim: str, size: int) -> Any:
        if dim == "K":
            return self.repaired(value.narrow(1, 0, size + 1))  # type: ignore[attr-defined]
        return super().resized(value, dim, size)  # type: ignore[misc]


def _plus_one(sizes: Sizes) -> Sizes:
    """``sizes`` as the target's second dimension sees them: K + 1 positions."""
    if "K" not in sizes.dims:
        return sizes
    return dataclasses.replace(sizes, dims={**sizes.dims, "K": sizes.dims["K"] + 1})


@dataclass(frozen=True, kw_only=True)
class Distributions(Probabilities):
    """Rows that are distributions up to rounding (``verify`` does not check sums): legal corners keep each
    row's sum, moving mass to the row's largest entry: exact zeros, an entry of 1e-25 next to an exact zero,
    and a row times 1 + d with |d| about 2e-5 (a float32 row of a large vocabulary)."""

    normalized: bool = True
    tolerance: float = 1e-4  # only the corners use it: the statement refuses no sum

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        x = value.to(torch.float64)
        largest = x.argmax(dim=-1, keepdim=True)
        at = self.corner_positions(value, rng)
        if at:
            new = x.clone()
            for index in at:
                new[index] = 0.0
            new = new.scatter_add(-1, largest, (x - new).sum(dim=-1, keepdim=True))
            out.append(
                Edit(
                    "zeros",
                    new.to(value.dtype),
                    f"{name} with {len(at)} exact zeros",
                    f"exact zeros in {name}",
                    zh(f"含精确 0 的 {name}"),
                )
            )
        if len(at) >= 2:
            new = x.clone()
            new[at[0]], new[at[1]] = 0.0, 1e-25
            new = new.scatter_add(-1, largest, (x - new).sum(dim=-1, keepdim=True))
            out.append(
                Edit(
                    "tiny",
                    new.to(value.dtype),
                    f"{name} holding 1e-25 and 0 at {list(at[1])}, {list(at[0])}",
                    f"{name} with a probability of 1e-25 next to an exact zero",
                    zh(f"含 1e-25 与精确 0 的 {name}"),
                )
            )
        index = tuple(rng.randrange(n) for n in value.shape[:-1])
        scale = 1.0 + rng.choice((-1, 1)) * rng.uniform(1e-5, 3e-5)
        new = x.clone()
        new[index] = new[index] * scale
        total = float(new[index].sum())
        out.append(
            Edit(
                "rounding",
                new.to(value.dtype),
                f"{name} with row {list(index)} summing to {total:.9g}",
                f"a row of {name} that sums to 1 only up to rounding",
                zh(f"有一行之和只在舍入意义上为 1 的 {name}"),
            )
        )
        return [edit for edit in out if not self.value_flaws(edit.value, sizes)]


@dataclass(frozen=True, kw_only=True)
class TargetDistributions(_KPlusOne, Distributions):
    """``target_probs`` ``[B, K + 1, V]``."""


@dataclass(frozen=True, kw_only=True)
class TargetLogits(_KPlusOne, Logits):
    """``target_logits`` ``[B, K + 1, V]``."""


# --- acceptance_rate and total_variation -------------------------------------------------------------
# "They raise ValueError when an argument is not a floating tensor, when the two shapes differ or are
# not 2-D, or when the two dtypes differ." The values are not checked: weights are legal corners.
RATE_ARGUMENTS = {
    "target_probs": Probabilities(dims=("B", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE}),
    "draft_probs": Probabilities(
        dims=("B", "V"),
        same_dtype_as="target_probs",
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.DTYPE_MISMATCH},
    ),
}

# "`temperature` is a positive finite number (a Python int or float) and `top_k` a Python int `>= 0`;
# anything else raises `ValueError` (0, a negative, NaN, infinity, a bool, a string, None; for `top_k`
# also a float such as 2.0)." Bools, strings and None for top_k are added by `extra_parameter_refusals`.
TEMPERATURE = Number(low=0.0, low_open=True, examples=(0.25, 3.5), refuse={Flaw.BELOW, Flaw.NOT_A_NUMBER, *NOT_FINITE})
TOP_K = Count(minimum=0, refuse={Flaw.BELOW, Flaw.NOT_AN_INT})

# "Logits are float32 or float64 (logits that are not a floating tensor raise `ValueError`); a logit of
# -inf is allowed ... as long as each row has a finite one, and large finite logits must not overflow."
FILTER_ARGUMENTS = {
    "logits": Logits(dims=("B", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.DTYPE}),
    "temperature": TEMPERATURE,
    "top_k": TOP_K,
}

# "[B, V] each, one dtype, [B] out; it raises ValueError wherever acceptance_rate or filtered_probs would."
TOPK_RATE_ARGUMENTS = {
    "target_logits": Logits(dims=("B", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE}),
    "draft_logits": Logits(
        dims=("B", "V"),
        same_dtype_as="target_logits",
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.DTYPE_MISMATCH},
    ),
    "temperature": TEMPERATURE,
    "top_k": TOP_K,
}

# verify raises ValueError when: the shapes are not [B, K+1, V], [B, K, V] and [B, K] with one B, K and V;
# target_probs and draft_probs are not floating tensors of one dtype; draft_tokens is not int64; a draft
# token lies outside [0, V); a probability is negative, NaN or infinite. float16 and bfloat16 are left open:
# no case tries them (a mismatch stays refused, in float32 and float64). (K < 1 and q_i(x_i) = 0 need
# several arguments changed together: `verify_extra_refusals`.)
PROBABILITY_FLAWS = {Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.BELOW, *NOT_FINITE}
VERIFY_ARGUMENTS = {
    "target_probs": TargetDistributions(dims=("B", "K", "V"), refuse=PROBABILITY_FLAWS),
    "draft_probs": Distributions(
        dims=("B", "K", "V"),
        same_dtype_as="target_probs",
        refuse={*PROBABILITY_FLAWS, Flaw.DTYPE_MISMATCH},
    ),
    "draft_tokens": TokenIds(
        dims=("B", "K"),
        vocab="V",
        wrong_dtypes=(torch.int32, torch.int16, torch.uint8, torch.float32),
        refuse={Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.BELOW, Flaw.ABOVE},
    ),
}

# speculative_step "raises ValueError when K < 1, when the shapes do not match, when the logits are not
# floating tensors of one dtype, and for every temperature and top_k that filtered_probs refuses". NaN and
# +inf logits are left open: no value flaw is refused; so are float16 and bfloat16 logits.
STEP_ARGUMENTS = {
    "target_logits": TargetLogits(dims=("B", "K", "V"), refuse={Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE}),
    "draft_logits": Logits(
        dims=("B", "K", "V"),
        same_dtype_as="target_logits",
        refuse={Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.DTYPE_MISMATCH},
    ),
    "temperature": TEMPERATURE,
    "top_k": TOP_K,
}


# --- the good calls ------------------------------------------------------------------------------------


def _dtype(rng: random.Random) -> torch.dtype:
    return rng.choice((torch.float32, torch.float64))


def _row(rng: random.Random, vocab: int) -> list[float]:
    weights = [rng.random() ** 2 + 0.02 for _ in range(vocab)]
    total = math.fsum(weights)
    return [w / total for w in weights]


def good_rate_call(rng: random.Random) -> dict:
    """Two to four rows of 3 to 7 random weights (non-dyadic), float32 or float64."""
    rows, vocab, dtype = rng.randint(2, 4), rng.randint(3, 7), _dtype(rng)
    return {
        "target_probs": torch.tensor([_row(rng, vocab) for _ in range(rows)], dtype=dtype),
        "draft_probs": torch.tensor([_row(rng, vocab) for _ in range(rows)], dtype=dtype),
    }


def _logits(rng: random.Random, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    return torch.tensor([rng.gauss(0.0, 1.5) for _ in range(math.prod(shape))], dtype=dtype).reshape(shape)


def good_filter_call(rng: random.Random) -> dict:
    """Two to four rows of 4 to 8 logits, a non-dyadic temperature, top_k in 1..V - 1."""
    rows, vocab = rng.randint(2, 4), rng.randint(4, 8)
    return {
        "logits": _logits(rng, (rows, vocab), _dtype(rng)),
        "temperature": rng.choice((0.7, 1.3, 0.9)),
        "top_k": rng.randint(1, vocab - 1),
    }


def good_topk_rate_call(rng: random.Random) -> dict:
    call = good_filter_call(rng)
    logits = call.pop("logits")
    return {"target_logits": logits, "draft_logits": logits + _logits(rng, tuple(logits.shape), logits.dtype), **call}


def good_verify_call(rng: random.Random) -> dict:
    """Two to four rows, K in 2..3, V in 3..6, float32 or float64: every probability positive, each draft
    token the largest entry of its q row (no corner's zero lands on it)."""
    rows, k, vocab, dtype = rng.randint(2, 4), rng.randint(2, 3), rng.randint(3, 6), _dtype(rng)
    p = torch.tensor([[_row(rng, vocab) for _ in range(k + 1)] for _ in range(rows)], dtype=dtype)
    q = torch.tensor([[_row(rng, vocab) for _ in range(k)] for _ in range(rows)], dtype=dtype)
    return {"target_probs": p, "draft_probs": q, "draft_tokens": q.argmax(dim=-1)}


def good_step_call(rng: random.Random) -> dict:
    """Two to three rows, K in 2..3, V in 4..7, a non-dyadic temperature, top_k in 0..V + 1."""
    rows, k, vocab, dtype = rng.randint(2, 3), rng.randint(2, 3), rng.randint(4, 7), _dtype(rng)
    return {
        "target_logits": _logits(rng, (rows, k + 1, vocab), dtype),
        "draft_logits": _logits(rng, (rows, k, vocab), dtype),
        "temperature": rng.choice((0.7, 1.3, 0.9)),
        "top_k": rng.randint(0, vocab + 1),
    }


# --- refusals the generic specs cannot make -------------------------------------------------------------


def extra_parameter_refusals(function: Any, name: str, good: dict, extra: dict | None = None) -> list[BadCall]:
    """``temperature`` or ``top_k`` as a bool, and ``top_k`` as a string or None: each must raise."""
    more = extra or {}
    out = []
    for argument, bad, en, zh_ in (
        ("temperature", True, "a bool as temperature", "temperature 为 bool"),
        ("top_k", True, "a bool as top_k", "top_k 为 bool"),
        ("top_k", "2", "top_k given as a string", "字符串形式的 top_k"),
        ("top_k", None, "None as top_k", "top_k 为 None"),
    ):
        out.append(
            BadCall(
                function,
                f"{name}() with {argument} = {bad!r}",
                kwargs={**good, argument: bad, **more},
                public=Bilingual(f"{name}() with {en}", zh(f"{name}() 收到 {zh_} 时")),
            )
        )
    return out


def verify_extra_refusals(function: Any, good: dict, rng: random.Random, extra: Any) -> list[BadCall]:
    """K = 0, and a draft token of draft probability 0 at a random position of a random row, also at a
    position after a rejection that is certain (p_0(x_0) = 0): each must raise ValueError."""
    p, q, x = good["target_probs"], good["draft_probs"], good["draft_tokens"]
    rows, k, vocab = q.shape
    out = [
        BadCall(
            function,
            "verify() with K = 0 (target_probs [B, 1, V], draft_probs [B, 0, V], draft_tokens [B, 0])",
            kwargs={
                "target_probs": p[:, :1].clone(),
                "draft_probs": q[:, :0].clone(),
                "draft_tokens": x[:, :0].clone(),
                **extra(),
            },
            public=Bilingual("verify() with K = 0", "verify() 收到 K = 0 时"),
        )
    ]
    if vocab < 2:
        return out
    for certain in (False, True):
        row = rng.randrange(rows)
        position = rng.randrange(1, k) if certain else rng.randrange(k)
        qq, pp = q.clone().to(torch.float64), p.clone().to(torch.float64)
        token = int(x[row, position])
        other = (token + 1) % vocab
        qq[row, position, other] += qq[row, position, token]
        qq[row, position, token] = 0.0
        where = f"row {row}, position {position}"
        if certain:  # position 0 of that row rejects whatever u is: the zero lies after the first rejection
            first = int(x[row, 0])
            pp[row, 0, (first + 1) % vocab] += pp[row, 0, first]
            pp[row, 0, first] = 0.0
            where += ", after a rejection at position 0 that is certain"
        out.append(
            BadCall(
                function,
                f"verify() with a draft token of draft probability 0 ({where})",
                kwargs={
                    "target_probs": pp.to(p.dtype),
                    "draft_probs": qq.to(q.dtype),
                    "draft_tokens": x.clone(),
                    **extra(),
                },
                public=Bilingual(
                    "verify() with a draft token of draft probability 0"
                    + (" after a certain rejection" if certain else ""),
                    "verify() 收到草稿概率为 0 的草稿 token" + ("（位于必然的拒绝之后）" if certain else "") + " 时",
                ),
                diagnosis=MISTAKES["q_zero_accepted"],
            )
        )
    return out


def both_dtype_refusals(function: Any, name: str, good: dict, arguments: tuple[str, str], extra: Any) -> list[BadCall]:
    """Both floating arguments replaced by int64 one-hot rows of each row's largest entry: "not floating
    tensors of one dtype" refuses them even though their dtypes agree. (float16 and bfloat16 are left open.)"""
    changed = {}
    for argument in arguments:
        value = good[argument]
        largest = value.argmax(dim=-1, keepdim=True)
        changed[argument] = torch.zeros_like(value, dtype=torch.int64).scatter(-1, largest, 1)
    return [
        BadCall(
            function,
            f"{name}() with {arguments[0]} and {arguments[1]} both of dtype int64",
            kwargs={**good, **changed, **extra()},
            public=Bilingual(
                f"{name}() with {arguments[0]} and {arguments[1]} both of dtype int64",
                zh(f"{name}() 收到 {arguments[0]} 与 {arguments[1]} 两者都是 int64 时"),
            ),
        )
    ]


def verify_shape_refusals(function: Any, good: dict, extra: Any) -> list[BadCall]:
    """target_probs with K or K + 2 positions (the generic specs keep its K + 1 unless B, K or V change)."""
    p = good["target_probs"]
    out = []
    for positions in (p.shape[1] - 1, p.shape[1] + 1):
        changed = p[:, :positions] if positions < p.shape[1] else torch.cat([p, p[:, -1:]], dim=1)
        out.append(
            BadCall(
                function,
                f"verify() with target_probs of shape {list(changed.shape)} ({positions} positions where K + 1 = "
                f"{p.shape[1]})",
                kwargs={**good, "target_probs": changed.clone(), **extra()},
                public=Bilingual(
                    "verify() with target_probs of the wrong number of positions",
                    "verify() 收到位置数不对的 target_probs 时",
                ),
            )
        )
    return out


# --- what a legal corner must return ------------------------------------------------------------------


def _f64(value: torch.Tensor) -> torch.Tensor:
    return value.detach().to(torch.float64)


def rate_corner_check(ctx, name: str):
    """``check(value, variant)`` for ``acceptance_rate`` or ``total_variation``: the formula in float64 of the
    rows as given, ``[B]`` in their dtype."""

    def check(value, variant: Variant) -> None:
        p, q = _f64(variant.kwargs["target_probs"]), _f64(variant.kwargs["draft_probs"])
        dtype = variant.kwargs["target_probs"].dtype
        want = torch.minimum(p, q).sum(dim=1) if name == "acceptance_rate" else 0.5 * (p - q).abs().sum(dim=1)
        what = public_call(name, variant)
        actual = expect_tensor(value, name=f"{what}", shape=(p.shape[0],), dtype=dtype, device=ctx.device)
        rtol, atol = TOLERANCE[dtype]
        expect_close(_f64(actual), want, rtol=rtol, atol=atol, what=what, per_row=True)

    return check


def filter_corner_check(ctx):
    """``check(value, variant)`` for ``filtered_probs``: the float64 filter of the logits as given."""

    def check(value, variant: Variant) -> None:
        kwargs = variant.kwargs
        logits = kwargs["logits"]
        rows = FilterRows(
            _f64(logits).reshape(-1, logits.shape[-1]).tolist(),
            [],
            float(kwargs["temperature"]),
            kwargs["top_k"],
            logits.dtype,
        )
        what = public_call("filtered_probs", variant)
        actual = expect_tensor(value, name=f"{what}", shape=tuple(logits.shape), dtype=logits.dtype, device=ctx.device)
        rtol, atol = TOLERANCE[logits.dtype]
        expect_close(
            _f64(actual).reshape(-1, logits.shape[-1]),
            torch.tensor(rows.expected(), dtype=torch.float64),
            rtol=rows.rtol(rtol),
            atol=atol,
            what=what,
        )

    return check


def topk_rate_corner_check(ctx):
    """``check(value, variant)`` for ``topk_acceptance_rate``: the rate of the two float64 filters."""

    def check(value, variant: Variant) -> None:
        kwargs = variant.kwargs
        target, draft = kwargs["target_logits"], kwargs["draft_logits"]
        temperature, top_k = float(kwargs["temperature"]), kwargs["top_k"]
        want = [
            theory.acceptance(filtered64(zt, temperature, top_k), filtered64(zd, temperature, top_k))
            for zt, zd in zip(_f64(target).tolist(), _f64(draft).tolist(), strict=True)
        ]
        what = public_call("topk_acceptance_rate", variant)
        actual = expect_tensor(value, name=f"{what}", shape=(target.shape[0],), dtype=target.dtype, device=ctx.device)
        rtol, atol = TOLERANCE[target.dtype]
        finite = [abs(v) for v in _f64(torch.cat([target, draft])).reshape(-1).tolist() if v != -math.inf]
        if target.dtype == torch.float32:
            rtol += 2.0**-22 * max(finite) / temperature
        expect_close(
            _f64(actual), torch.tensor(want, dtype=torch.float64), rtol=rtol, atol=atol, what=what, per_row=True
        )

    return check


def verify_corner_check(ctx):
    """``check(value, variant)`` for ``verify``: the structure, and what is certain (:func:`checks43.check_certain`)."""

    def check(value, variant: Variant) -> None:
        kwargs = variant.kwargs
        drafts = kwargs["draft_tokens"]
        rows, k = drafts.shape
        what = public_call("verify", variant)
        tokens, num = unpack(ctx, value, name="verify", batch=rows, k=k)
        check_structure(tokens, num, drafts, kwargs["target_probs"].shape[-1], what=str(what))
        check_certain(
            what, tokens, num, drafts, _f64(kwargs["target_probs"]), _f64(kwargs["draft_probs"]), residual_support=True
        )

    return check


def step_corner_check(ctx):
    """``check(value, variant)`` for ``speculative_step``: drafts of positive filtered draft probability,
    the structure, and what is certain given the float64 filters (a margin of 1e-3 where p > q decides)."""

    def check(value, variant: Variant) -> None:
        kwargs = variant.kwargs
        target, draft = kwargs["target_logits"], kwargs["draft_logits"]
        temperature, top_k = float(kwargs.get("temperature", 1.0)), kwargs.get("top_k", 0)
        rows, k, vocab = draft.shape
        what = public_call("speculative_step", variant)
        tokens, num, drafts = unpack(ctx, value, name="speculative_step", batch=rows, k=k, parts=3)
        p = torch.tensor([[filtered64(z, temperature, top_k) for z in r] for r in _f64(target).tolist()])
        q = torch.tensor([[filtered64(z, temperature, top_k) for z in r] for r in _f64(draft).tolist()])
        _drafts_in_support(what, drafts, q)
        check_structure(tokens, num, drafts, vocab, what=str(what))
        # p > q by a margin only: the learner's filter rounds where the oracle does not
        decided = torch.where(p[:, :k] > q * (1 + 1e-3), p[:, :k], torch.minimum(p[:, :k], q))
        check_certain(what, tokens, num, drafts, torch.cat([decided, p[:, k:]], dim=1), q, residual_support=False)

    return check


def _drafts_in_support(what: Bilingual, drafts: torch.Tensor, q: torch.Tensor) -> None:
    picked = q.gather(2, drafts.clamp(0, q.shape[-1] - 1).unsqueeze(2)).squeeze(2)
    bad = ((drafts < 0) | (drafts >= q.shape[-1]) | (picked <= 0)).nonzero()
    if bad.numel():
        row, position = (int(v) for v in bad[0])
        expect(
            False,
            f"{what}: row {row} drafted token {int(drafts[row, position])} at position {position}, which temperature "
            "and top-k give draft probability 0",
            rule=Bilingual(
                f"{what}: a draft token of filtered probability 0", f"{what.zh}：草稿 token 的过滤后概率为 0"
            ),
            kind="value",
        )


def more_filter_corners(good: dict) -> list[tuple[dict, Bilingual]]:
    """Legal corners the generic specs do not make: top_k = 1, V and above V; logits of one and three
    dimensions; the default temperature and top_k."""
    logits, vocab = good["logits"], good["logits"].shape[-1]
    out = [
        ({**good, "top_k": k}, Bilingual(f"top_k = {text}", f"top_k = {text}"))
        for k, text in ((1, "1"), (vocab, "V"), (vocab + 3, "V + 3"))
    ]
    out.append(({**good, "logits": logits[0].clone()}, Bilingual("1-D logits", "一维 logits")))
    out.append(({**good, "logits": logits.unsqueeze(0).repeat(2, 1, 1)}, Bilingual("3-D logits", "三维 logits")))
    out.append(({"logits": logits}, Bilingual("the default temperature and top_k", "默认的 temperature 与 top_k")))
    return out
