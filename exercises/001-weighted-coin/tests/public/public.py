"""Public tests of exercise 1: small examples you can read and reproduce by hand.

The hidden tests check the same rules with more rows and more flips, torch.rand returning
exactly 0.0 at times, the generator and torch.manual_seed, and more bad inputs.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution
from judge.checks.exact import expect, expect_tensor
from judge.checks.refusals import expect_raises

from .coin import SIDE, SWAPPED, probs_of

BUDGET = BudgetDeclaration(fit=1)


def test_shape(sub, ctx):
    """flip([0.2, 0.9], 5) is an int64 tensor [2, 5] of 0s and 1s

    zh: flip([0.2, 0.9], 5) 是形状为 [2, 5]、只含 0 和 1 的 int64 张量
    """
    draws = sub.flip(torch.tensor([0.2, 0.9]), 5, generator=ctx.generator())
    draws = expect_tensor(draws, name="flip", shape=(2, 5), dtype=torch.int64, device=ctx.device)
    expect(bool(((draws == 0) | (draws == 1)).all()), f"flip returned {draws.tolist()}; every value must be 0 or 1")


def test_certain_coins(sub, ctx):
    """p = 0 always gives 0 and p = 1 always gives 1

    zh: p = 0 总得到 0，p = 1 总得到 1
    """
    draws = sub.flip(torch.tensor([0.0, 1.0]), 50, generator=ctx.generator())
    draws = expect_tensor(draws, name="flip", shape=(2, 50), dtype=torch.int64, device=ctx.device)
    zero_ok, one_ok = bool((draws[0] == 0).all()), bool((draws[1] == 1).all())
    expect(
        zero_ok and one_ok,
        f"flip([0.0, 1.0], 50) gave {draws.sum(dim=1).tolist()} ones per row; expected [0, 50]",
        diagnosis=SWAPPED if not (zero_ok or one_ok) else None,
    )


def test_distribution(sub, ctx):
    """2 000 flips at p = 0.3 give about 600 ones

    zh: p = 0.3 时抛 2 000 次，大约得到 600 个 1
    """
    draws = sub.flip(torch.tensor([0.3]), 2_000, generator=ctx.generator())
    draws = expect_tensor(draws, name="flip", shape=(1, 2_000), dtype=torch.int64, device=ctx.device)
    target = probs_of([0.3])[0]
    expect_distribution(
        ctx, draws[0], target, label="flip([0.3], 2000)", outcome=SIDE, alternatives={SWAPPED: target.flip(0)}
    )


def test_n_zero(sub, ctx):
    """n = 0 raises ValueError

    zh: n = 0 时抛出 ValueError
    """
    with expect_raises(ValueError, "flip([0.5], 0)"):
        sub.flip(torch.tensor([0.5]), 0, generator=ctx.generator())
