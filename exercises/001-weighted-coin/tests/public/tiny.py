"""The tiny variant of exercise 1: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite (they live in coin.py, beside this file), at sizes the
browser's pure-Python torch runs in a blink: five rows of 1 000 flips for the fits (the swapped
sides still move 0.4 of probability in two rows), 32 fair rows of 16 flips, the edges at 1 000
flips per row fed extreme uniforms, 2 x 64 fair flips per seed check.
"""

from __future__ import annotations

from judge.checks.budget import BudgetDeclaration

from . import coin

BUDGET = BudgetDeclaration(fit=5, independence=1) + coin.SEEDS_BUDGET

P = [0.1, 0.5, 0.8, 0.9, 0.5]  # rows 1 and 4 share p: their flips must be independent


def test_tiny_rows_vary(sub, ctx):
    """flip: the n flips of a row are n separate draws

    zh: flip：每行的 n 次抛掷是 n 次独立的抽样
    """
    coin.check_rows_vary(sub, ctx, rows=32, n=16)


def test_tiny_distribution(sub, ctx):
    """flip: each row gives 1 with probability p, and rows do not share random numbers

    zh: flip：每行以概率 p 得到 1，且各行不共用随机数
    """
    coin.check_distribution(sub, ctx, P, 1_000, pair=(1, 4))


def test_tiny_edges(sub, ctx):
    """flip: p = 0 always gives 0 and p = 1 always gives 1, whatever torch.rand returns

    zh: flip：无论 torch.rand 返回什么，p = 0 总得到 0，p = 1 总得到 1
    """
    coin.check_edges(sub, ctx, 1_000)


def test_tiny_seeds(sub, ctx):
    """flip: the generator decides the flips and advances; without one, torch.manual_seed does

    zh: flip：由 generator 决定结果且每次调用都向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    coin.check_seeds(sub, ctx, 64)


def test_tiny_bad_inputs(sub, ctx):
    """flip: p outside [0, 1], NaN, a p that is not 1-D, or n < 1 raise ValueError

    zh: flip：p 超出 [0, 1]、含 NaN、不是一维，或 n < 1 时抛出 ValueError
    """
    coin.check_bad_inputs(sub, ctx)
