"""Public tests of exercise 53: small examples a learner can read (TODO: yours)."""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_tokens_in_range
from judge.checks.exact import expect_tensor
from judge.checks.refusals import expect_raises

BUDGET = BudgetDeclaration(fit=1)  # the statistical checks this suite runs

PROBS = [0.2, 0.3, 0.5]
OUTCOME = ("outcome", "结果")  # the noun messages use for one outcome


def test_shape(sub, ctx):
    """draw returns n outcome indices, int64

    zh: draw 返回 n 个 int64 的结果编号
    """
    draws = sub.draw(torch.tensor(PROBS), 7, generator=ctx.generator())
    draws = expect_tensor(draws, name="draw", shape=(7,), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, len(PROBS), what="draw", outcome=OUTCOME)


def test_distribution(sub, ctx):
    """2 000 draws follow [0.2, 0.3, 0.5]

    zh: 2 000 次抽样服从 [0.2, 0.3, 0.5]
    """
    draws = sub.draw(torch.tensor(PROBS), 2_000, generator=ctx.generator())
    draws = expect_tensor(draws, name="draw", shape=(2_000,), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, len(PROBS), what="draw", outcome=OUTCOME)
    expect_distribution(ctx, draws, torch.tensor(PROBS, dtype=torch.float64), label="draw([0.2, 0.3, 0.5], 2000)",
                        outcome=OUTCOME)


def test_n_zero(sub, ctx):
    """n = 0 raises ValueError

    zh: n = 0 时抛出 ValueError
    """
    with expect_raises(ValueError, "draw(probs, 0)"):
        sub.draw(torch.tensor(PROBS), 0, generator=ctx.generator())
