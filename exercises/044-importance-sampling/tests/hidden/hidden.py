"""Hidden tests of exercise 44. Never shown to learners; run in the judge's process only.

importance_estimates, effective_sample_size and truncated_estimate against exact answers on frozen
batches (``cases.py``: float32 rows with offsets up to 60, float64 rows with log-weights in the
hundreds, rows of one sample); sample_estimate judged by its draws (each estimate and error must
fit some draws), by its statistics (unbiased over 2 000 rows of 20 draws; with cap = 2, unbiased for
the truncated target over 1 000 rows, which lies 1.25 below E_p[f]; error bars covering E_p[f] at
their exact rate over 1 000 rows of 20 draws), by the independence of rows with the same inputs
(32 pairs), and by its generator (one seed reproduces, a second one differs). Sizes and power:
benchmarks/power_044.py.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.testing import lane_weight

from ..public import checks44
from . import cases

BUDGET = BudgetDeclaration(unbiased=2, calibration=1, independence=1, seeds=1)

UNBIASED_ROWS, UNBIASED_DRAWS = 2000, 20
TRUNCATED_ROWS, TRUNCATED_DRAWS, TRUNCATED_CAP = 1000, 20, 2.0
CALIBRATION_ROWS = 1000


def test_float32_rows(sub, ctx):
    """importance_estimates, effective_sample_size, truncated_estimate: float32 rows far from 0 in log space

    zh: importance_estimates、effective_sample_size、truncated_estimate：对数空间中远离 0 的 float32 行
    """
    case = cases.float32_rows()
    checks44.check_estimates(sub, ctx, case)
    checks44.check_ess(sub, ctx, case)
    checks44.check_truncated(sub, ctx, case)


def test_float64_extreme_rows(sub, ctx):
    """importance_estimates, effective_sample_size, truncated_estimate: float64 log-weights in the hundreds

    zh: importance_estimates、effective_sample_size、truncated_estimate：float64 对数权重达到数百
    """
    case = cases.float64_extreme_rows()
    checks44.check_estimates(sub, ctx, case)
    checks44.check_ess(sub, ctx, case)
    checks44.check_truncated(sub, ctx, case)
    checks44.check_ess_invariance(sub, ctx, case, -250.0)


def test_one_sample(sub, ctx):
    """rows of one sample, and a batch of one row: ESS 1, the self-normalized estimate equals f

    zh: 每行只有一个样本，以及只有一行的批：ESS 为 1，自归一化估计等于 f
    """
    case = cases.one_sample_rows()
    checks44.check_estimates(sub, ctx, case)
    checks44.check_ess(sub, ctx, case)
    checks44.check_truncated(sub, ctx, case)
    case = cases.single_row()  # shape [] for its outputs is a known mistake, named by its shape alone
    checks44.check_estimates(sub, ctx, case)
    checks44.check_ess(sub, ctx, case)
    checks44.check_truncated(sub, ctx, case)


def test_draws_and_errors(sub, ctx):
    """sample_estimate: 64 rows whose estimates and standard errors must fit their draws, each row its own draws

    zh: sample_estimate：64 行的估计值与标准误必须与其抽样相符，且每行的抽样各自独立
    """
    checks44.check_draws(sub, ctx, 64, torch.float32, pairs=True)


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 44` on a quiet machine (docs/authoring.md).
@lane_weight(4)
def test_unbiased(sub, ctx):
    """sample_estimate: the estimates average to E_p[f]

    zh: sample_estimate：估计值的平均等于 E_p[f]
    """
    checks44.check_unbiased(sub, ctx, UNBIASED_ROWS, UNBIASED_DRAWS)


def test_truncated_bias(sub, ctx):
    """sample_estimate with a cap: the estimates fall below E_p[f], to the truncated target

    zh: 带 cap 的 sample_estimate：估计值低于 E_p[f]，平均等于截断后的目标值
    """
    checks44.check_unbiased(sub, ctx, TRUNCATED_ROWS, TRUNCATED_DRAWS, cap=TRUNCATED_CAP)


def test_calibrated(sub, ctx):
    """sample_estimate: the error bars cover E_p[f] at their exact rate (not the normal one)

    zh: sample_estimate：误差条以其精确比例（而非正态近似的比例）覆盖 E_p[f]
    """
    checks44.check_calibration(
        sub, ctx, CALIBRATION_ROWS, checks44.CALIBRATION_DRAWS, checks44.COVERAGE, checks44.COVERAGE_MISTAKES
    )


def test_reproducible(sub, ctx):
    """sample_estimate: the same generator seed gives the same result, another seed another one

    zh: sample_estimate：相同的生成器种子给出相同的结果，不同的种子给出不同的结果
    """
    checks44.check_reproducible(sub, ctx, 8, seeds=True)
