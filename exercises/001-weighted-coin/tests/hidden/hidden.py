"""Hidden tests of exercise 1: the checks of ``public/coin.py`` at full size.

Sizes: six rows of 4 000 flips for the fits (the swapped sides move 0.2 or more of probability in
four rows: caught with certainty), 64 fair rows of 32 flips (a correct flip makes all of them
constant with chance 2**-1984), 4 rows of 2 000 at the edges fed extreme uniforms (1 % of them
exactly 0.0: a `<=` escapes with chance about 1e-17), 2 x 64 fair flips per seed check.
The whole suite runs in a few hundredths of a second for the reference.
"""

from __future__ import annotations

from judge.budget import BudgetDeclaration

from ..public import coin

BUDGET = BudgetDeclaration(fit=6, independence=1, seeds=2)

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
    """flip: the generator decides the flips; without one, torch.manual_seed does

    zh: flip：由 generator 决定结果；不传 generator 时由 torch.manual_seed 决定
    """
    coin.check_seeds(sub, ctx, 64)


def test_bad_inputs(sub, ctx):
    """flip: p outside [0, 1], NaN, a p that is not 1-D, or n < 1 raise ValueError

    zh: flip：p 超出 [0, 1]、含 NaN、不是一维，或 n < 1 时抛出 ValueError
    """
    coin.check_bad_inputs(sub, ctx)
