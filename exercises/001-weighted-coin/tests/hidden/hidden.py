"""Hidden tests of exercise 1: the checks of ``public/coin.py`` at full size.

Sizes: six rows of 4 000 flips for the fits (the swapped sides move 0.2 or more of probability in
four rows: caught with certainty), 64 fair rows of 32 flips (a correct flip makes all of them
constant with chance 2**-1984), 4 rows of 2 000 at the edges fed extreme uniforms (1 % of them
exactly 0.0: a `<=` escapes with chance about 1e-17), 2 x 64 fair flips per seed check.
The whole suite runs in a few hundredths of a second for the reference.
"""

from __future__ import annotations

import torch

from judge.checks.arguments import (
    NOT_FINITE,
    Count,
    Flaw,
    FloatTensor,
    expect_contract_accepts,
    expect_contract_refusals,
)
from judge.checks.budget import BudgetDeclaration
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_tensor

from ..public import coin

BUDGET = BudgetDeclaration(fit=6, independence=1) + coin.SEEDS_BUDGET

P = [0.1, 0.3, 0.5, 0.7, 0.9, 0.5]  # rows 2 and 5 share p: their flips must be independent


def test_rows_vary(sub, ctx):
    """flip: the n flips of a row are n separate draws

    zh: flip：每行的 n 次抛掷是 n 次独立的抽样
    """
    coin.check_rows_vary(sub, ctx, rows=64, n=32)


def test_distribution(sub, ctx):
    """flip: each row gives 1 with probability p, and rows do not share random numbers

    zh: flip：每行以概率 p 得到 1，且各行不共用随机数
    """
    coin.check_distribution(sub, ctx, P, 4_000, pair=(2, 5))


def test_edges(sub, ctx):
    """flip: p = 0 always gives 0 and p = 1 always gives 1, whatever torch.rand returns

    zh: flip：无论 torch.rand 返回什么，p = 0 总得到 0，p = 1 总得到 1
    """
    coin.check_edges(sub, ctx, 2_000)


def test_seeds(sub, ctx):
    """flip: the generator decides the flips and advances; without one, torch.manual_seed does

    zh: flip：由 generator 决定结果且每次调用都向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    coin.check_seeds(sub, ctx, 64)


def test_bad_inputs(sub, ctx):
    """flip: p outside [0, 1], NaN, a p that is not 1-D, or n < 1 raise ValueError

    zh: flip：p 超出 [0, 1]、含 NaN、不是一维，或 n < 1 时抛出 ValueError
    """
    coin.check_bad_inputs(sub, ctx)


# The statement's refusal sentence, argument by argument: "Invalid input raises ValueError with a
# message: p not a 1-D floating tensor, any p below 0, above 1 or NaN, and n < 1." An infinite p lies
# above 1 or below 0. What it neither allows nor refuses (float16 p, a float n) stays out.
FLIP_ARGUMENTS = {
    "p": FloatTensor(
        dims=("B",),
        low=0.0,
        high=1.0,
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.BELOW, Flaw.ABOVE, *NOT_FINITE},
    ),
    "n": Count(minimum=1, refuse={Flaw.BELOW}),
}


def _good_flip(ctx) -> dict:
    """A legal call: 2 to 5 coins of float32 or float64 p in (0, 1), 3 to 40 tosses."""
    rows = ctx.rng.randint(2, 5)
    dtype = ctx.rng.choice((torch.float32, torch.float64))
    return {
        "p": torch.tensor([ctx.rng.uniform(0.05, 0.95) for _ in range(rows)], dtype=dtype),
        "n": ctx.rng.randint(3, 40),
    }


def test_contract_refusals(sub, ctx):
    """flip: every bad input of the statement's list, generated, raises ValueError

    zh: flip：题面列出的每一种非法输入（随机生成）都抛出 ValueError
    """
    expect_contract_refusals(
        sub.flip, ctx, good=_good_flip(ctx), arguments=FLIP_ARGUMENTS, extra=lambda: {"generator": ctx.generator()}
    )


def test_contract_corners(sub, ctx):
    """flip: legal corners (p exactly 0 or 1, one coin, one toss, either dtype) are accepted and right

    zh: flip：合法的边界输入（p 恰为 0 或 1、只有一枚硬币、只抛一次、两种 dtype）都被接受且结果正确
    """

    def corner(value, variant) -> None:
        p, n = variant.kwargs["p"], variant.kwargs["n"]
        what = f"flip() with {variant.description}"
        draws = expect_tensor(value, name=what, shape=(p.shape[0], n), dtype=torch.int64, device=ctx.device)
        sure = (p == 0) | (p == 1)
        expect(
            bool(((draws == 0) | (draws == 1)).all())
            and torch.equal(draws[sure], p[sure].to(torch.int64).unsqueeze(1).expand(-1, n)),
            f"{what}: every flip must be 0 or 1, p = 0 always 0 and p = 1 always 1",
            kind=Evidence.VALUE,
        )

    expect_contract_accepts(
        sub.flip,
        ctx,
        good=_good_flip(ctx),
        arguments=FLIP_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
        check=corner,
    )
