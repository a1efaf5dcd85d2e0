"""Public tests of exercise 40: the statement's worked examples, which you can check by hand.

The hidden tests check the same rules on more rows: exact steps, rows whose float32 sum stops
short of 1, float64, uniforms of exactly 0 and of the largest float below 1, alias tables of
every kind, and ``sample`` with statistical checks, seeds and extreme uniforms.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.refusals import expect_raises
from judge.i18n import Bilingual

from . import checks40
from .checks40 import expect_alias_table, expect_tokens
from .diagnoses import MISTAKES

BUDGET = BudgetDeclaration(fit=4)

NEG_INF = float("-inf")
TOP32 = 1.0 - 2.0**-24  # 0.99999994, the largest float32 below 1

CDF_PROBS = [[0.125, 0.375, 0.0, 0.5]]
CDF_U = [[0.0, 0.125, 0.5, TOP32]]
# One draw per line: the same four uniforms for gumbel_max and exponential_race.
NOISE = [[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [0.9, TOP32, 0.1], [0.3, 0.0, 0.6]]]
ALIAS_TABLE = ([[1.0, 0.0, 1.0, 1.0]], [[2, 0, 3, 3]])  # a table of [0.5, 0, 0.25, 0.25]
ALIAS_COLUMN_U = [[0.3, 0.0, 0.6, TOP32, 0.8]]
ALIAS_COIN_U = [[0.0, 0.7, 0.2, 0.9, 0.99]]


def _tokens(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64)


def test_inverse_cdf_example(sub, ctx):
    """inverse_cdf([0.125, 0.375, 0, 0.5], u = [0, 0.125, 0.5, 0.99999994]) is [0, 1, 3, 3]

    zh: inverse_cdf([0.125, 0.375, 0, 0.5], u = [0, 0.125, 0.5, 0.99999994]) 等于 [0, 1, 3, 3]
    """
    value = sub.inverse_cdf(torch.tensor(CDF_PROBS), torch.tensor(CDF_U))
    expect_tokens(
        ctx,
        value,
        _tokens([[0, 1, 3, 3]]),
        name="inverse_cdf",
        what="inverse_cdf (worked example)",
        public=Bilingual("inverse_cdf, worked example", "inverse_cdf，示例"),
        mistaken={
            MISTAKES["cdf_off_by_one"]: _tokens([[0, 0, 1, 3]]),
            MISTAKES["sorted_not_mapped_back"]: _tokens([[0, 0, 1, 2]]),
        },
        noise=lambda row, draw: f"u = {CDF_U[row][draw]:.9g}",
    )


def test_gumbel_max_example(sub, ctx):
    """gumbel_max([-inf, 0, 1]) on four given draws is [2, 2, 1, 2]

    zh: gumbel_max([-inf, 0, 1]) 在给定的四次噪声下等于 [2, 2, 1, 2]
    """
    value = sub.gumbel_max(torch.tensor([[NEG_INF, 0.0, 1.0]]), torch.tensor(NOISE))
    expect_tokens(
        ctx,
        value,
        _tokens([[2, 2, 1, 2]]),
        name="gumbel_max",
        what="gumbel_max (worked example)",
        public=Bilingual("gumbel_max, worked example", "gumbel_max，示例"),
        mistaken={
            MISTAKES["gumbel_wrong_sign"]: _tokens([[2, 2, 2, 1]]),
            MISTAKES["log_zero_at_u0"]: _tokens([[2, 0, 1, 2]]),
        },
        noise=lambda row, draw: f"u = {NOISE[row][draw]}",
    )


def test_exponential_race_example(sub, ctx):
    """exponential_race([0, 0.25, 0.75]) on the same four draws is [2, 2, 1, 2]

    zh: exponential_race([0, 0.25, 0.75]) 在同样的四次噪声下等于 [2, 2, 1, 2]
    """
    value = sub.exponential_race(torch.tensor([[0.0, 0.25, 0.75]]), torch.tensor(NOISE))
    expect_tokens(
        ctx,
        value,
        _tokens([[2, 2, 1, 2]]),
        name="exponential_race",
        what="exponential_race (worked example)",
        public=Bilingual("exponential_race, worked example", "exponential_race，示例"),
        mistaken={
            MISTAKES["race_multiplies"]: _tokens([[2, 2, 2, 1]]),
            MISTAKES["log_zero_at_u0"]: _tokens([[2, 0, 1, 2]]),
            MISTAKES["race_one_minus_u"]: _tokens([[2, 0, 2, 2]]),
        },
        noise=lambda row, draw: f"u = {NOISE[row][draw]}",
    )


def test_build_alias_example(sub, ctx):
    """build_alias([0.1, 0.2, 0, 0.3, 0.4]) implies exactly [0.1, 0.2, 0, 0.3, 0.4]

    zh: build_alias([0.1, 0.2, 0, 0.3, 0.4]) 所隐含的分布恰为 [0.1, 0.2, 0, 0.3, 0.4]
    """
    probs = torch.tensor([[0.1, 0.2, 0.0, 0.3, 0.4]], dtype=torch.float64)
    expect_alias_table(
        ctx,
        sub.build_alias(probs),
        probs,
        what="build_alias([0.1, 0.2, 0, 0.3, 0.4])",
        public=Bilingual("build_alias, worked example", "build_alias，示例"),
    )


def test_alias_draw_example(sub, ctx):
    """alias_draw on the table of [0.5, 0, 0.25, 0.25] gives [0, 0, 2, 3, 3]

    zh: 在 [0.5, 0, 0.25, 0.25] 的表上，alias_draw 得到 [0, 0, 2, 3, 3]
    """
    accept, alias = torch.tensor(ALIAS_TABLE[0], dtype=torch.float64), torch.tensor(ALIAS_TABLE[1])
    value = sub.alias_draw(accept, alias, torch.tensor(ALIAS_COLUMN_U), torch.tensor(ALIAS_COIN_U))
    expect_tokens(
        ctx,
        value,
        _tokens([[0, 0, 2, 3, 3]]),
        name="alias_draw",
        what="alias_draw (worked example)",
        public=Bilingual("alias_draw, worked example", "alias_draw，示例"),
        mistaken={
            MISTAKES["alias_coin_le"]: _tokens([[1, 0, 2, 3, 3]]),
            MISTAKES["alias_swapped"]: _tokens([[1, 2, 3, 3, 3]]),
        },
        noise=lambda row, draw: f"column_u = {ALIAS_COLUMN_U[row][draw]:.9g}, coin_u = {ALIAS_COIN_U[row][draw]:.9g}",
    )


def test_sample_distribution(sub, ctx):
    """sample: 2 000 draws of [0.1, 0.2, 0, 0.3, 0.4] by each method follow it

    zh: sample：每种方法从 [0.1, 0.2, 0, 0.3, 0.4] 抽 2 000 次，结果服从该分布
    """
    probs = torch.tensor([[0.1, 0.2, 0.0, 0.3, 0.4]])
    target = probs.to(torch.float64)
    for method in checks40.METHODS:
        draws = checks40.draws_of(sub, ctx, probs, 2_000, method, ctx.generator())
        expect_support(
            draws, target, what=f"sample(method={method!r})", why_excluded=lambda row, token: "its probability is 0"
        )
        expect_distribution(ctx, draws[0], target[0], label=f"sample(method={method!r})")


def test_num_samples_zero(sub, ctx):
    """sample with num_samples = 0 raises ValueError

    zh: num_samples = 0 时 sample 抛出 ValueError
    """
    with expect_raises(ValueError, "sample(probs, 0, 'inverse_cdf')"):
        sub.sample(torch.tensor([[0.5, 0.5]]), 0, "inverse_cdf", generator=ctx.generator())
