"""Hidden tests of exercise 41. Never shown to learners; run in the judge's process only.

``mean_and_standard_error`` against exact answers: frozen cases (``cases.py``) as examples, and rows far
from 0 in float32 and float64 drawn afresh under each case's seed, judged after the same deviations near
0 (so a failure only the offset brings names the one-pass variance). ``samples_needed`` against exact
fractions: the frozen examples, then whole-number bounds from arguments that are no binary fractions,
drawn afresh, on which every inexact way of computing the bound errs at least twice.
``estimate_probability`` by what its numbers promise: each answer's estimates are frequencies k / n and
its standard errors the formula of their own estimates (``answers41``); unbiased over 2 000 rows of 50
draws; error bars covering P(event) at the exact rate of the Wald interval over 1 000 rows of 400 draws
(z = 1 and 2); the counts of few draws binomial and neighbouring rows independent (``draws41``); rows of
certain events exact at every draw site's extremes (``extremes41``); and the generator's whole contract.
For each function, the bad inputs its statement refuses and the legal corners it allows are generated
from its contract (``specs.py``, judge/checks/arguments) under the case's seed; the hand-written tables stay as
examples. The sizes and the power against each known mistake: benchmarks/power_041.py.
"""

from __future__ import annotations

import torch

from judge.checks.arguments import expect_contract_accepts, expect_contract_refusals
from judge.checks.budget import BudgetDeclaration
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

from ..public import checks41, draws41, extremes41
from . import cases, specs

# calibration, unbiased; independence: the rows of the calibration call; fit and pairs: the counts of few
# draws (two calls); then the generator contract (its seeds, one fit per row, its twins).
BUDGET = BudgetDeclaration(calibration=1, unbiased=1, independence=1, fit=2, pairs=2) + draws41.generator_budget()

EVENT = (4, 6)  # P(event) = 0.1235: a far from 0 at these n, and k / n never near an interval's edge
CALIBRATION_ROWS, CALIBRATION_DRAWS = 1000, 400
UNBIASED_ROWS, UNBIASED_DRAWS = 2000, 50
INDEPENDENCE_PAIRS = 500  # pairs of rows per call of few draws
CONTRACT_DRAWS, CONTRACT_COPIES, POSITION_COPIES = 12, 16, 120


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
    """mean_and_standard_error: float32 values with a mean far larger than their spread, and a constant row

    zh: mean_and_standard_error：均值远大于离散程度的 float32 数据，以及一个常数行
    """
    checks41.check_offset_case(sub, ctx, *cases.offset_cases(ctx.rng, torch.float32))


def test_mean_large_offset_float64(sub, ctx):
    """mean_and_standard_error: float64 values with a mean far larger than their spread, and a constant row

    zh: mean_and_standard_error：均值远大于离散程度的 float64 数据，以及一个常数行
    """
    checks41.check_offset_case(sub, ctx, *cases.offset_cases(ctx.rng, torch.float64))


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
    """mean_and_standard_error: legal corners (B = 1, n = 2, every allowed dtype) give the exact answer

    zh: mean_and_standard_error：合法的边界输入（B = 1、n = 2、每种允许的 dtype）给出精确答案
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


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 41` on a quiet machine (docs/authoring.md).
@lane_weight(2)
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


@lane_weight(3)
def test_probability_legal_corners(sub, ctx):
    """estimate_probability: legal corners (exact zeros, B = 1, V = 1, one draw, every allowed dtype) are accepted

    zh: estimate_probability：合法的边界输入（精确的 0、B = 1、V = 1、只抽一次、每种允许的 dtype）都被接受
    """
    expect_contract_accepts(
        sub.estimate_probability,
        ctx,
        good=specs.good_probability_call(ctx.rng),
        arguments=specs.PROBABILITY_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
        check=specs.probability_corner_check(ctx),
    )


@lane_weight(4)
def test_probability_unbiased(sub, ctx):
    """estimate_probability: the estimates average to the true probability

    zh: estimate_probability：估计值的平均等于真实概率
    """
    checks41.check_unbiased(sub, ctx, UNBIASED_ROWS, EVENT, UNBIASED_DRAWS)


@lane_weight(6)
def test_probability_calibrated(sub, ctx):
    """estimate_probability: rows are independent and the error bars cover the truth at their nominal rate

    zh: estimate_probability：各行相互独立，误差条以其名义比例覆盖真实值
    """
    checks41.check_calibration(sub, ctx, CALIBRATION_ROWS, EVENT, CALIBRATION_DRAWS)


@lane_weight(2)
def test_probability_independent_draws(sub, ctx):
    """estimate_probability: draws independent within a row (binomial counts) and across neighbouring rows

    zh: estimate_probability：同一行内的抽样相互独立（次数服从二项分布），相邻各行也相互独立
    """
    for n in (ctx.rng.choice((3, 5, 7)), ctx.rng.choice((2, 4, 6))):  # odd first: antithetic counts still vary
        public = Bilingual(f"estimate_probability, {n} draws per row", f"estimate_probability，每行抽 {n} 次")
        draws41.check_counts_independent(
            sub, ctx, INDEPENDENCE_PAIRS, n, label=f"estimate_probability, {n} draws per row", public=public
        )


@lane_weight(2)
def test_probability_exact_at_extremes(sub, ctx):
    """estimate_probability: certain events are estimated exactly, at every draw site's extremes too

    zh: estimate_probability：必然与不可能事件被精确估计，每个抽样点取极端值时也是如此
    """
    for dtype, n in ((torch.float64, ctx.rng.randint(8, 16)), (torch.float32, 1)):
        rows = extremes41.exact_rows(ctx.rng, dtype, n)
        name = str(dtype).removeprefix("torch.")
        extremes41.check_exact_rows_at_extremes(
            sub, ctx, rows, label=f"estimate_probability, certain events, {name}, {n} draw{'s' if n > 1 else ''}"
        )


@lane_weight(3)
def test_probability_generator(sub, ctx):
    """estimate_probability: the generator's contract, clause by clause

    zh: estimate_probability：生成器的约定，逐条检验
    """
    draws41.check_generator_contract(
        sub,
        ctx,
        checks41.PROBS,
        CONTRACT_DRAWS,
        CONTRACT_COPIES,
        POSITION_COPIES,
        label="estimate_probability",
    )


def test_wrong_types_refused(sub, ctx):
    """samples_needed and estimate_probability: bools, lists, tensors and float counts raise ValueError

    zh: samples_needed 与 estimate_probability：bool、列表、张量与浮点数形式的次数都抛出 ValueError
    """
    checks41.check_type_refusals(sub, ctx, ctx.rng)


def test_samples_needed(sub, ctx):
    """samples_needed: the chapter's example, whole-number bounds, ordinary bounds and n = 1

    zh: samples_needed：本章的例子、恰为整数的界、一般的界，以及 n = 1
    """
    checks41.check_samples_needed(sub, cases.needed_cases())


@lane_weight(3)
def test_samples_needed_whole_bounds(sub, ctx):
    """samples_needed: bounds that are exactly whole numbers for arguments that are not binary fractions

    zh: samples_needed：参数不是二进制分数、界却恰为整数的情形
    """
    checks41.check_samples_needed(sub, cases.whole_number_bounds(ctx.rng))


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
