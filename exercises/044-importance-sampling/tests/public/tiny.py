"""The tiny variant of exercise 44: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite (they live in checks44.py, beside this file), at sizes the
browser's pure-Python torch runs in a blink: a frozen float32 batch of 4 rows (answers frozen in
frozen44.py from the server's oracle), 16 rows whose draws must fit and differ between rows with
the same inputs and between two seeds, 50 rows of 20 draws for the bias (80 with a cap),
100 rows of 20 draws for the error bars (their exact coverage frozen in checks44.py).
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration

from . import checks44, draws44

# fit, pairs: the law of the draws (draws44.check_law); seeds: the generator contract (4 clauses).
BUDGET = BudgetDeclaration(unbiased=2, calibration=1, independence=1, seeds=4, fit=1, pairs=1)

# Rows of 20 draws per check (benchmarks/power_044.py: the smallest that kill each mistake at 0.999 are 5, 43, 45).
UNBIASED_ROWS, TRUNCATED_ROWS, CALIBRATION_ROWS = 50, 80, 100


def test_mixed_rows(sub, ctx):
    """importance_estimates, effective_sample_size, truncated_estimate: 4 float32 rows of 6 samples

    zh: importance_estimates、effective_sample_size、truncated_estimate：4 行 float32，每行 6 个样本
    """
    case = checks44.frozen_case("mixed32")
    checks44.check_estimates(sub, ctx, case)
    checks44.check_ess(sub, ctx, case)
    checks44.check_truncated(sub, ctx, case)


def test_rows_draw_apart(sub, ctx):
    """sample_estimate: 16 rows fit their draws, rows with the same p, q and f draw apart

    zh: sample_estimate：16 行与其抽样相符，p、q、f 相同的行各自抽样
    """
    checks44.check_draws(sub, ctx, 16, torch.float32, pairs=True)


def test_tiny_law(sub, ctx):
    """sample_estimate: 200 rows of 4 draws split as independent draws do; rows of two targets are independent

    zh: sample_estimate：200 行、每行 4 次抽样的分配与独立抽样一致；两个目标的各行相互独立
    """
    draws44.check_law(sub, ctx, count=200)


def test_tiny_generator(sub, ctx):
    """sample_estimate: the seed decides, the stream advances, generator=None uses torch's default generator

    zh: sample_estimate：种子决定结果，随机数流向前推进，generator=None 时使用 torch 的默认生成器
    """
    draws44.check_generator(sub, ctx, copies=3, positions=False)


def test_tiny_extremes(sub, ctx):
    """sample_estimate: every uniform source at 0 and at the largest float below 1 never draws where q = 0

    zh: sample_estimate：每个均匀随机数来源取 0 或小于 1 的最大浮点数时，也绝不抽到 q = 0 的结果
    """
    draws44.check_extremes(sub, ctx, dtypes=(torch.float32,))


def test_tiny_bad_inputs(sub, ctx):
    """one bad input of each kind raises ValueError (f holding NaN, int64, N = 0, a bool cap, V = 0, ...)

    zh: 每种非法输入各举一例，都抛出 ValueError（含 NaN 的 f、int64、N = 0、布尔值 cap、V = 0 等）
    """
    checks44.check_more_bad_inputs(sub, ctx)


def test_unbiased(sub, ctx):
    """sample_estimate: 50 estimates average to E_p[f]

    zh: sample_estimate：50 个估计值的平均等于 E_p[f]
    """
    checks44.check_unbiased(sub, ctx, UNBIASED_ROWS, 20)


def test_truncated_bias(sub, ctx):
    """sample_estimate with cap = 2: 80 estimates average to the truncated target, below E_p[f]

    zh: cap = 2 的 sample_estimate：80 个估计值的平均等于截断后的目标值，低于 E_p[f]
    """
    checks44.check_unbiased(sub, ctx, TRUNCATED_ROWS, 20, cap=2.0)


def test_calibrated(sub, ctx):
    """sample_estimate: 100 error bars cover E_p[f] at their exact rate

    zh: sample_estimate：100 个误差条以其精确比例覆盖 E_p[f]
    """
    checks44.check_calibration(
        sub, ctx, CALIBRATION_ROWS, checks44.CALIBRATION_DRAWS, checks44.COVERAGE, checks44.COVERAGE_MISTAKES
    )
