"""Hidden tests of exercise 41. Never shown to learners; run in the judge's process only.

``mean_and_standard_error`` against exact answers (frozen cases, ``cases.py``); ``samples_needed``
against exact fractions; ``estimate_probability`` judged by its statistics: its estimates are
frequencies k / n of independent rows, unbiased over 2 000 rows of 50 draws, and their error bars
cover P(event) at the exact rate of the Wald interval over 1 000 rows of 400 draws (z = 1 and 2);
then the generator and torch's default generator decide the draws. The sizes and the power
against each known mistake: benchmarks/power_041.py. For each function, the bad inputs its
statement refuses and the legal corners it allows are also generated from its contract
(``specs.py``, judge/arguments) under the case's seed; the hand-written tables stay as examples.
"""

from __future__ import annotations

from judge.arguments import expect_contract_accepts, expect_contract_refusals
from judge.budget import BudgetDeclaration
from judge.testing import lane_weight

from ..public import checks41
from ..public.diagnoses import MISTAKES
from . import cases, specs

# independence: the rows of the calibration call; seeds: the generator, then torch's default generator.
BUDGET = BudgetDeclaration(calibration=1, unbiased=1, independence=1, seeds=2)

EVENT = (4, 6)  # P(event) = 0.1235: a far from 0 at these n, and k / n never near an interval's edge
CALIBRATION_ROWS, CALIBRATION_DRAWS = 1000, 400
UNBIASED_ROWS, UNBIASED_DRAWS = 2000, 50
SEED_ROWS, SEED_DRAWS = 16, 100


def test_mean_accepted_lengths(sub, ctx):
    """mean_and_standard_error: rows of accepted lengths (whole numbers), float32

    zh: mean_and_standard_error：由接受长度（整数）组成的行，float32
    """
    checks41.check_mean_case(sub, ctx, cases.accepted_lengths())


def test_mean_two_samples(sub, ctx):
    """mean_and_standard_error: n = 2, float64

    zh: mean_and_standard_error：n = 2，float64
    """
    checks41.check_mean_case(sub, ctx, cases.two_samples())


def test_mean_three_samples(sub, ctx):
    """mean_and_standard_error: n = 3, float32, with a constant row

    zh: mean_and_standard_error：n = 3，float32，含一个常数行
    """
    checks41.check_mean_case(sub, ctx, cases.three_samples())


def test_mean_float64(sub, ctx):
    """mean_and_standard_error: float64 rows of very different spreads

    zh: mean_and_standard_error：离散程度相差很大的 float64 行
    """
    checks41.check_mean_case(sub, ctx, cases.float64_rows())


def test_mean_large_offset(sub, ctx):
    """mean_and_standard_error: float32 values with a mean far larger than their spread

    zh: mean_and_standard_error：均值远大于离散程度的 float32 数据
    """
    checks41.check_mean_case(
        sub,
        ctx,
        cases.large_offset(),
        diagnosis=MISTAKES["naive_variance"],
        mean_diagnosis=MISTAKES["float32_running_mean"],
    )


def test_mean_bad_inputs(sub, ctx):
    """mean_and_standard_error: fewer than 2 samples, a tensor that is not 2-D floating, NaN or inf raise ValueError

    zh: mean_and_standard_error：少于 2 个样本、不是二维浮点张量、含 NaN 或 inf 时抛出 ValueError
    """
    checks41.check_mean_bad_inputs(sub)


def test_mean_generated_bad_inputs(sub, ctx):
    """mean_and_standard_error: every bad input the statement names, generated, raises ValueError

    zh: mean_and_standard_error：按题面生成的各种非法输入都抛出 ValueError
    """
    good = specs.good_samples(ctx.rng)
    expect_contract_refusals(sub.mean_and_standard_error, ctx, good=good, arguments=specs.MEAN_ARGUMENTS)


def test_mean_legal_corners(sub, ctx):
    """mean_and_standard_error: legal corners (B = 1, n = 2, float32 and float64) give the exact answer

    zh: mean_and_standard_error：合法的边界输入（B = 1、n = 2、float32 与 float64）给出精确答案
    """
    good = specs.good_samples(ctx.rng)
    expect_contract_accepts(
        sub.mean_and_standard_error,
        ctx,
        good=good,
        arguments=specs.MEAN_ARGUMENTS,
        check=specs.mean_corner_check(ctx),
    )


def test_probability_bad_inputs(sub, ctx):
    """estimate_probability: bad probabilities, a bad event mask or num_samples < 1 raise ValueError

    zh: estimate_probability：非法概率、非法事件掩码或 num_samples < 1 时抛出 ValueError
    """
    checks41.check_probability_bad_inputs(sub, ctx)


def test_probability_generated_bad_inputs(sub, ctx):
    """estimate_probability: every bad input the statement names, generated, raises ValueError

    zh: estimate_probability：按题面生成的各种非法输入都抛出 ValueError
    """
    expect_contract_refusals(
        sub.estimate_probability,
        ctx,
        good=specs.good_probability_call(ctx.rng),
        arguments=specs.PROBABILITY_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
    )


def test_probability_legal_corners(sub, ctx):
    """estimate_probability: legal corners (exact zeros, rows not summing to 1, B = 1, V = 1, one draw) are accepted

    zh: estimate_probability：合法的边界输入（精确的 0、各行之和不为 1、B = 1、V = 1、只抽一次）都被接受
    """
    expect_contract_accepts(
        sub.estimate_probability,
        ctx,
        good=specs.good_probability_call(ctx.rng),
        arguments=specs.PROBABILITY_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
        check=specs.probability_corner_check(ctx),
    )


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 41` on a quiet machine (docs/authoring.md).
@lane_weight(3)
def test_probability_unbiased(sub, ctx):
    """estimate_probability: the estimates average to the true probability

    zh: estimate_probability：估计值的平均等于真实概率
    """
    checks41.check_unbiased(sub, ctx, UNBIASED_ROWS, EVENT, UNBIASED_DRAWS)


@lane_weight(4)
def test_probability_calibrated(sub, ctx):
    """estimate_probability: rows are independent and the error bars cover the truth at their nominal rate

    zh: estimate_probability：各行相互独立，误差条以其名义比例覆盖真实值
    """
    checks41.check_calibration(sub, ctx, CALIBRATION_ROWS, EVENT, CALIBRATION_DRAWS)


@lane_weight(2)
def test_probability_seeds(sub, ctx):
    """estimate_probability: the generator decides the draws; without one, torch.manual_seed does

    zh: estimate_probability：由 generator 决定抽样；不传 generator 时由 torch.manual_seed 决定
    """
    checks41.check_seeds(sub, ctx, SEED_ROWS, EVENT, SEED_DRAWS)


def test_samples_needed(sub, ctx):
    """samples_needed: the chapter's example, whole-number bounds, ordinary bounds and n = 1

    zh: samples_needed：本章的例子、恰为整数的界、一般的界，以及 n = 1
    """
    checks41.check_samples_needed(sub, cases.needed_cases())


def test_samples_needed_bad_inputs(sub, ctx):
    """samples_needed: delta, sigma or num_se that is not a finite number > 0 raises ValueError

    zh: samples_needed：delta、sigma 或 num_se 不是大于 0 的有限数时抛出 ValueError
    """
    checks41.check_needed_bad_inputs(sub)


def test_samples_needed_generated_bad_inputs(sub, ctx):
    """samples_needed: every argument that is not a finite number > 0, generated, raises ValueError

    zh: samples_needed：按题面生成的、不是大于 0 的有限数的参数都抛出 ValueError
    """
    expect_contract_refusals(
        sub.samples_needed, ctx, good=specs.good_needed_call(ctx.rng), arguments=specs.NEEDED_ARGUMENTS
    )


def test_samples_needed_legal_corners(sub, ctx):
    """samples_needed: ints, tiny and huge arguments give the exact smallest n

    zh: samples_needed：int 参数、极小与极大的参数都给出精确的最小 n
    """
    expect_contract_accepts(
        sub.samples_needed,
        ctx,
        good=specs.good_needed_call(ctx.rng),
        arguments=specs.NEEDED_ARGUMENTS,
        check=specs.needed_corner_check,
    )
