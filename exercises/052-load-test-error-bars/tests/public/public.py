"""Public tests of exercise 52: the statement's worked examples, and a first look at the bootstrap's law.

Learners may read this file. The hidden suite generates its inputs and judges the intervals by coverage.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration

from . import checks52

BUDGET = BudgetDeclaration(fit=1)

EXAMPLE_BOOT = torch.tensor([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]], dtype=torch.float64)
EXAMPLE_DATA = torch.tensor([[1.0, 2.0, 2.0, 4.0, 6.0]], dtype=torch.float64)


def test_percentile_example(sub, ctx):
    """percentile_interval: the statement's example, (1.75, 5.25) at level 0.5

    zh: percentile_interval：题面的例子，level 0.5 时为 (1.75, 5.25)
    """
    checks52.check_percentile(sub, ctx, EXAMPLE_BOOT, 0.5, what="percentile_interval(example, level=0.5)")
    checks52.check_percentile(
        sub, ctx, EXAMPLE_BOOT.float(), 0.9, what="percentile_interval(example, level=0.9, float32)"
    )


def test_jackknife_example(sub, ctx):
    """jackknife_stats: the statement's example, mean and median of [1, 2, 2, 4, 6]

    zh: jackknife_stats：题面的例子，[1, 2, 2, 4, 6] 的均值与中位数
    """
    for statistic in ("mean", "median", "p90"):
        checks52.check_jackknife(sub, ctx, EXAMPLE_DATA, statistic, what=f"jackknife_stats(example, {statistic})")


def test_bca_example(sub, ctx):
    """bca_interval: the statement's example, (1.1834, 4.5172)

    zh: bca_interval：题面的例子，(1.1834, 4.5172)
    """
    estimate = torch.tensor([3.0], dtype=torch.float64)
    jack = torch.tensor([[3.5, 3.25, 3.25, 2.75, 2.25]], dtype=torch.float64)
    checks52.check_bca(sub, ctx, estimate, EXAMPLE_BOOT, jack, 0.5, what="bca_interval(example, level=0.5)")


def test_runs_needed_example(sub, ctx):
    """runs_needed: the chapter's question (1152) and the statement's other two examples

    zh: runs_needed：本章的问题（1152）和题面的另外两个例子
    """
    checks52.check_runs(sub, 1.2, 1.2, 0.1, None)
    checks52.check_runs(sub, 1.2, 1.3, 0.1, None)
    checks52.check_runs(sub, 1.2, 1.2, -0.1, 1.96)


def test_bootstrap_law_small(sub, ctx):
    """bootstrap_stats(mean) of [0, 1, 4]: 3 000 resamples follow the exact law of a resampled mean

    zh: bootstrap_stats(mean)，数据 [0, 1, 4]：3 000 次重抽样服从重抽样均值的精确分布
    """
    samples = torch.tensor([[0.0, 1.0, 4.0]])
    checks52.check_law(sub, ctx, samples, "mean", 3000, what="bootstrap_stats([0, 1, 4], mean)")
