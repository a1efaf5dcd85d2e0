"""The checks of exercise 51's deterministic functions, shared by the public, tiny and hidden suites.

Each takes the call's keyword arguments, the exact target (float64, computed by the hidden oracle or
frozen for the browser) and what each known mistake returns. A value is compared within a tolerance
scaled to the dtype; a wrong value is named after the one mistake that reproduces the whole output
(NaN where the mistake has NaN), and only then: a mistake's name is evidence of that mistake alone.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

from judge.checks.base import fail
from judge.checks.exact import expect_close, expect_tensor
from judge.i18n import Bilingual

from .diagnoses import MISTAKES

F64 = torch.float64
RTOL = {torch.float32: 1e-4, torch.float64: 1e-9}
ATOL = {torch.float32: 1e-6, torch.float64: 1e-12}


def _matches(actual: torch.Tensor, value: torch.Tensor, rtol: float, atol: torch.Tensor | float) -> bool:
    value = value.to(F64)
    if actual.shape != value.shape:
        return False
    both_nan = torch.isnan(actual) & torch.isnan(value)
    close = (actual - value).abs() <= atol + rtol * value.abs()
    same_inf = torch.isinf(actual) & (actual == value)
    return bool((both_nan | close | same_inf).all())


def expect_values(
    actual: torch.Tensor,
    expected: torch.Tensor,
    *,
    dtype: torch.dtype,
    what: str,
    mistakes: Mapping[str, torch.Tensor] | None = None,
    scale: torch.Tensor | None = None,
    per_row: bool = False,
) -> None:
    """``actual`` (float64 of the learner's values) within the statement's tolerance of ``expected``:
    tau * |expected| + a tiny absolute term, or, with ``scale`` (the size of the terms a value subtracts or
    averages), tau * (|expected| + scale). A miss that one known mistake reproduces wholly is named after it."""
    rtol = RTOL[dtype]
    atol: torch.Tensor | float = ATOL[dtype] if scale is None else RTOL[dtype] * scale
    if _matches(actual, expected, rtol, atol):
        return
    # An output that is NaN everywhere says only that something divided by 0: it names nothing.
    informative = bool(torch.isfinite(actual).any())
    named = [d for d, value in (mistakes or {}).items() if informative and _matches(actual, value, rtol, atol)]
    if len(named) == 1:
        fail(
            f"{what}: the values differ from the target and match a known mistake: {named[0]}",
            diagnosis=named[0],
            rule=Bilingual(f"{_public(what)}: the values differ from the target", f"{_public(what)}：数值与目标不一致"),
        )
    expect_close(actual, expected, rtol=rtol, atol=atol, what=what, per_row=per_row)


def _public(what: str) -> str:
    return what.split("(", 1)[0].strip()


def check_ratios(sub, ctx, kwargs: dict, expected: torch.Tensor, mistakes=None, *, what="token_ratios") -> None:
    new = kwargs["logp_new"]
    value = sub.token_ratios(**kwargs)
    value = expect_tensor(value, name="token_ratios", shape=tuple(new.shape), dtype=new.dtype, device=ctx.device)
    mask = kwargs["mask"]
    padding = value[~mask]
    wrong = padding[padding != 1]
    if wrong.numel():
        fail(
            f"{what}: a padding position (mask False) holds {float(wrong[0])!r} instead of exactly 1",
            diagnosis=MISTAKES["padding_zero"]
            if bool((padding == 0).all())
            else MISTAKES["padding_arithmetic"]
            if bool(torch.isnan(padding).any()) and bool((padding[~torch.isnan(padding)] == 1).all())
            else None,
            rule=Bilingual(f"{_public(what)}: padding must give exactly 1", f"{_public(what)}：填充位置必须恰好为 1"),
            kind="value",
        )
    expect_values(value.to(F64), expected, dtype=new.dtype, what=what, mistakes=mistakes)


def check_objective(
    sub, ctx, kwargs: dict, expected: float, scale: float, mistakes=None, *, what="ppo_clip_objective"
) -> None:
    """``scale``: 1 plus the same average of |l_bt| (the statement's S)."""
    new = kwargs["logp_new"]
    value = sub.ppo_clip_objective(**kwargs)
    value = expect_tensor(value, name="ppo_clip_objective", shape=(), dtype=new.dtype, device=ctx.device)
    as_row = {d: torch.tensor([v], dtype=F64) for d, v in (mistakes or {}).items()}
    scale = torch.tensor([scale], dtype=F64)
    expect_values(
        value.to(F64).reshape(1),
        torch.tensor([expected], dtype=F64),
        dtype=new.dtype,
        what=what,
        mistakes=as_row,
        scale=scale,
        per_row=True,
    )


def check_grpo(sub, ctx, kwargs: dict, expected: torch.Tensor, mistakes=None, *, what="grpo_advantages") -> None:
    rewards = kwargs["rewards"]
    value = sub.grpo_advantages(**kwargs)
    value = expect_tensor(
        value, name="grpo_advantages", shape=tuple(rewards.shape), dtype=rewards.dtype, device=ctx.device
    )
    equal = (rewards == rewards[:, :1]).all(dim=1)
    if bool(equal.any()):
        rows = value[equal]
        if not bool((rows == 0).all()):
            row = int(equal.nonzero()[int((rows != 0).any(dim=1).nonzero()[0])])
            fail(
                f"{what}: a group whose rewards are all equal must get advantages of exactly 0; "
                f"row {row} got {value[row].tolist()}",
                diagnosis=_equal_group_mistake(rows, kwargs.get("eps", 1e-6)),
                rule=Bilingual(
                    f"{_public(what)}: a group of equal rewards must give exactly 0",
                    f"{_public(what)}：奖励全相等的组必须得到恰好为 0 的优势",
                ),
                kind="value",
            )
    expect_values(value.to(F64), expected, dtype=rewards.dtype, what=what, mistakes=mistakes)


def _equal_group_mistake(rows: torch.Tensor, eps: float) -> str | None:
    """What the equal groups' values are evidence of: NaN or inf is a division by a standard deviation of 0
    (0 / 0, or a mean off by one rounding over 0); with eps = 0, exact zeros in some groups
    and other values in others is a test of the standard deviation against 0 (a plain division would have
    given NaN where the standard deviation is exactly 0); anything else names nothing."""
    if not bool(torch.isfinite(rows).all()):
        return MISTAKES["grpo_equal_group_nan"]
    zero = (rows == 0).all(dim=1)
    if eps == 0 and bool(zero.any()) and not bool(zero.all()):
        return MISTAKES["grpo_std_zero_test"]
    return None


def check_bias(
    sub, ctx, kwargs: dict, expected: torch.Tensor, scale: torch.Tensor, mistakes=None, *, what="clipping_bias"
) -> None:
    p_new = kwargs["p_new"]
    value = sub.clipping_bias(**kwargs)
    value = expect_tensor(value, name="clipping_bias", shape=(p_new.shape[0],), dtype=p_new.dtype, device=ctx.device)
    expect_values(value.to(F64), expected, dtype=p_new.dtype, what=what, mistakes=mistakes, scale=scale, per_row=True)


# One-row groups of equal rewards: an exact mean (torch's std is exactly 0 there) and a mean off by one
# rounding (torch's one-row std is then a tiny positive number), per dtype.
SINGLE_EQUAL = {torch.float64: ((0.5, 3), (0.1, 3)), torch.float32: ((0.25, 7), (0.1, 7))}


def check_single_equal_groups(sub, ctx, dtype: torch.dtype, eps: float = 0.0) -> None:
    """Two calls of one group of equal rewards each: both must give exact zeros. NaN on the first names the
    0 / 0; zeros on the first and not on the second name a test of the standard deviation against 0."""
    (exact, g1), (rounding, g2) = SINGLE_EQUAL[dtype]
    first = sub.grpo_advantages(rewards=torch.full((1, g1), exact, dtype=dtype), eps=eps)
    first = expect_tensor(first, name="grpo_advantages", shape=(1, g1), dtype=dtype, device=ctx.device)
    what = f"grpo_advantages(one group of {g1} rewards {exact}, eps = {eps}, {dtype})"
    rule = Bilingual(
        "grpo_advantages: a group of equal rewards must give exactly 0",
        "grpo_advantages：奖励全相等的组必须得到恰好为 0 的优势",
    )
    if not bool((first == 0).all()):
        fail(
            f"{what}: a group whose rewards are all equal must get advantages of exactly 0; got {first.tolist()}",
            diagnosis=MISTAKES["grpo_equal_group_nan"] if bool(torch.isnan(first).any()) else None,
            rule=rule,
            kind="value",
        )
    second = sub.grpo_advantages(rewards=torch.full((1, g2), rounding, dtype=dtype), eps=eps)
    second = expect_tensor(second, name="grpo_advantages", shape=(1, g2), dtype=dtype, device=ctx.device)
    if not bool((second == 0).all()):
        fail(
            f"grpo_advantages(one group of {g2} rewards {rounding}, eps = {eps}, {dtype}): a group whose rewards are "
            f"all equal must get advantages of exactly 0; got {second.tolist()} (and exact zeros for {exact})",
            diagnosis=None if bool(torch.isnan(second).any()) else MISTAKES["grpo_std_zero_test"],
            rule=rule,
            kind="value",
        )
