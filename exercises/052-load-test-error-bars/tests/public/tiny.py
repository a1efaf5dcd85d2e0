"""The tiny variant of exercise 52: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite, at sizes the browser's pure-Python torch runs quickly: the exact
functions on generated rows (their answers from oracle52, live: pure Python), the law of 600 resampled
means and medians of small rows, the generator contract on 3 rows, every draw site at its extremes, and
the hard properties of the whole intervals (inside the data's range; paired data that differ by a
constant give a zero-width interval at it). Coverage needs thousands of data sets: the hidden suite's.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect_close
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget

from . import checks52
from .frozen52 import FROZEN_BOOT, FROZEN_LEVEL, FROZEN_PERCENTILE

TINY_ROWS = torch.tensor([[0.0, 1.0, 4.0], [2.0, 3.0, 9.0], [0.0, 1.0, 4.0]])
TINY_TARGETS = checks52.padded_targets(checks52.laws(TINY_ROWS, "mean"))
BUDGET = BudgetDeclaration(fit=2) + generator_contract_budget(TINY_TARGETS, positions=False, twins=(0, 2))


def test_tiny_exact(sub, ctx):
    """percentile_interval (frozen), bca_interval, jackknife_stats and runs_needed on small rows

    zh: percentile_interval（冻结值）、bca_interval、jackknife_stats 与 runs_needed 在小规模输入上
    """
    what = "percentile_interval(frozen rows)"
    value = sub.percentile_interval(boot_stats=FROZEN_BOOT, level=FROZEN_LEVEL)
    value = checks52.expect_intervals(value, ctx, rows=2, dtype=torch.float32, what=what)
    expect_close(value, torch.tensor(FROZEN_PERCENTILE, dtype=torch.float64), rtol=0.0, atol=1e-5, what=what)
    checks52.check_percentile(sub, ctx, FROZEN_BOOT, FROZEN_LEVEL, what=what)
    samples = torch.tensor([[0.5, 2.0, 2.0, 7.25, 1.0], [3.0, 1.0, 4.0, 1.0, 5.0]], dtype=torch.float64)
    for statistic in ("mean", "median", "p90"):
        checks52.check_jackknife(sub, ctx, samples, statistic, what=f"jackknife_stats({statistic})")
    estimate = torch.tensor([2.0, 3.0], dtype=torch.float64)
    boot = torch.tensor([[1.0, 2.0, 2.0, 3.5, 0.5, 4.0, 2.5], [2.0, 3.0, 3.5, 2.5, 4.5, 1.5, 3.0]], dtype=torch.float64)
    checks52.check_bca(sub, ctx, estimate, boot, samples, 0.8, what="bca_interval(two rows)")
    checks52.check_bca_equal_jackknife(sub, ctx)
    checks52.check_runs(sub, 0.8, 1.5, -0.2, 1.96)
    checks52.check_runs(sub, 2.0, 0.0, 1.0, 2.0)  # a whole-number bound: 16 runs
    checks52.check_runs(sub, 1.2, 1.2, 0.1, None)


def test_tiny_law(sub, ctx):
    """bootstrap_stats: 600 resampled medians of [1, 2, 6] and of [0, 3, 5] follow their exact laws

    zh: bootstrap_stats：[1, 2, 6] 与 [0, 3, 5] 的 600 个重抽样中位数服从各自的精确分布
    """
    samples = torch.tensor([[1.0, 2.0, 6.0], [0.0, 3.0, 5.0]])
    checks52.check_law(sub, ctx, samples, "median", 600, what="bootstrap_stats(median)")


def test_tiny_generator(sub, ctx):
    """bootstrap_stats: the seed decides, the stream advances, rows with the same data are not tied

    zh: bootstrap_stats：种子决定结果，随机数流向前推进，数据相同的行互不相干
    """
    row_laws = checks52.laws(TINY_ROWS, "mean")

    def draw(source, generator):
        value = source.bootstrap_stats(samples=TINY_ROWS, statistic="mean", n_resamples=40, generator=generator)
        return checks52.law_ids(value, ctx, row_laws, dtype=torch.float32, resamples=40, what="bootstrap_stats(mean)")

    expect_generator_contract(
        sub, ctx, draw, TINY_TARGETS, label="bootstrap_stats(mean)", twins=(0, 2), outcome="value"
    )


def test_tiny_intervals(sub, ctx):
    """bootstrap_ci stays inside the data, difference_ci(paired) of pairs 0.5 apart is (0.5, 0.5), extremes

    zh: bootstrap_ci 不超出数据范围，每对相差 0.5 的 difference_ci(paired) 为 (0.5, 0.5)，以及极端随机数
    """
    samples = torch.tensor([[0.0, 0.0, 0.0, 10.0, 1.0], [5.0, 1.0, 1.0, 1.0, 0.0]])
    checks52.check_ci_in_range(sub, ctx, samples, "mean", "percentile", what="bootstrap_ci(mean, percentile)")
    checks52.check_ci_in_range(sub, ctx, samples, "p90", "bca", what="bootstrap_ci(p90, bca)")
    checks52.check_paired_shift(sub, ctx, torch.float32, what="difference_ci(paired, b = a + 0.5)")

    def call(source, generator):
        return source.bootstrap_stats(samples=samples, statistic="median", n_resamples=4, generator=generator)

    def check(value, what):
        checks52.expect_values_in_range(value, samples, ctx, resamples=4, what=what)

    expect_every_draw_site(sub, ctx, call, check, label="bootstrap_stats(median)")
