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

import random

import torch

from judge.checks.arguments import Variant, expect_contract_accepts
from judge.checks.budget import BudgetDeclaration
from judge.checks.generator_contract import generator_contract_budget
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

from ..public import checks44, draws44
from . import cases, generated, sampling, specs
from .oracle import weight_case

# fit: the split law within a row; pairs: rows of two targets; the generator contract: 4 seeds and a fit per
# target (its positions clause).
BUDGET = BudgetDeclaration(unbiased=2, calibration=1, independence=1, fit=1, pairs=1) + generator_contract_budget(
    len(draws44.CONTRACT_Q), positions=True
)

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
@lane_weight(2)
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


@lane_weight(3)
def test_generated_weights(sub, ctx):
    """the three weight functions on generated batches: far, near overflow, ties, cancelling, sequences, any cap

    zh: 三个权重函数在随机生成的批上：远离 0、接近溢出、相等值、相互抵消、序列、各种 cap
    """
    rng = random.Random(ctx.fresh_seed("generated weights"))
    for dtype in (torch.float64, torch.float32):
        case = generated.generated_case(rng, dtype)
        checks44.check_estimates(sub, ctx, case)
        checks44.check_ess(sub, ctx, case)
        checks44.check_truncated(sub, ctx, case)
        checks44.check_ess_invariance(sub, ctx, case, rng.choice((-1.0, 1.0)) * rng.uniform(1.0, 50.0))


def _bad_calls(sub, ctx, name: str, good: dict, arguments: dict, extra=None) -> list:
    rng = random.Random(ctx.fresh_seed(f"contract refusals: {name}"))
    return specs.refusals(getattr(sub, name), name, good, arguments, rng, extra)


@lane_weight(7)
def test_weights_generated_bad_inputs(sub, ctx):
    """the three weight functions: every bad input the statement names, generated, raises ValueError

    zh: 三个权重函数：按题面生成的各种非法输入都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("weights bad inputs"))
    calls, goods = [], []
    for name, good, arguments in (
        ("importance_estimates", specs.good_estimates(rng), specs.ESTIMATE_ARGUMENTS),
        ("effective_sample_size", specs.good_ess(rng), specs.ESS_ARGUMENTS),
        ("truncated_estimate", specs.good_truncated(rng), specs.TRUNCATED_ARGUMENTS),
    ):
        goods.append((getattr(sub, name), good))
        calls += _bad_calls(sub, ctx, name, good, arguments)
        calls += specs.empty_rows(getattr(sub, name), name, good)
        calls += specs.all_integer(getattr(sub, name), name, good)
        if name == "truncated_estimate":
            calls += specs.truncated_extras(sub.truncated_estimate, good)
    specs.expect_refused(specs.shuffled(calls, rng), goods)


def _weights_oracle(ctx, name: str):
    """``check(value, variant)`` for a legal corner of ``name``: the exact answers, as the frozen cases."""

    def check(value, variant) -> None:
        kwargs = variant.kwargs
        log_p, log_q = kwargs["log_p"], kwargs["log_q"]
        f = kwargs.get("f", torch.ones_like(log_p))
        case = weight_case(log_p, log_q, f, kwargs.get("cap", cases.CAP), variant.public)
        if name == "importance_estimates":
            checks44.judge_estimates(ctx, case, value)
        elif name == "effective_sample_size":
            checks44.judge_ess(ctx, case, value)
        else:
            checks44.judge_truncated(ctx, case, value)

    return check


@lane_weight(8)
def test_weights_legal_corners(sub, ctx):
    """the three weight functions: legal corners (B = 1, N = 1, the other dtype, int, tiny, huge caps) are exact

    zh: 三个权重函数：合法的边界输入（B = 1、N = 1、另一种 dtype、int、极小与极大的 cap）给出精确答案
    """
    rng = random.Random(ctx.fresh_seed("weights corners"))
    for name, good, arguments in (
        ("importance_estimates", specs.good_estimates(rng), specs.ESTIMATE_ARGUMENTS),
        ("effective_sample_size", specs.good_ess(rng), specs.ESS_ARGUMENTS),
        ("truncated_estimate", specs.good_truncated(rng), specs.TRUNCATED_ARGUMENTS),
    ):
        check = _weights_oracle(ctx, name)
        # The good call first: a corner's failure (B = 1 giving shape [], say) then speaks of the corner.
        check(getattr(sub, name)(**good), Variant("", "good", good, f"{name}()", Bilingual(f"{name}()", f"{name}()")))
        expect_contract_accepts(getattr(sub, name), ctx, good=good, arguments=arguments, check=check, name=name)


@lane_weight(4)
def test_sample_generated_bad_inputs(sub, ctx):
    """sample_estimate: every bad input the statement names, generated, raises ValueError

    zh: sample_estimate：按题面生成的各种非法输入都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("sample bad inputs"))
    good = specs.good_sample(rng)

    def extra():
        return {"generator": ctx.generator()}

    calls = _bad_calls(sub, ctx, "sample_estimate", good, specs.SAMPLE_ARGUMENTS, extra)
    calls += specs.sampler_extras(sub.sample_estimate, good, rng, extra)
    calls += specs.all_integer(sub.sample_estimate, "sample_estimate", good, extra)
    specs.expect_refused(specs.shuffled(calls, rng), [(sub.sample_estimate, good | extra())])


@lane_weight(3)
def test_sample_legal_corners(sub, ctx):
    """sample_estimate: legal corners (zeros, 1e-25, V = 1, B = 1, n = 2, sums off 1, any cap) fit their draws

    zh: sample_estimate：合法的边界输入（0、1e-25、V = 1、B = 1、n = 2、和不恰为 1、各种 cap）与其抽样相符
    """
    sampling.check_corners(sub, ctx)


def test_sample_extreme_uniforms(sub, ctx):
    """sample_estimate: every uniform source at 0 and at the largest float below 1 never draws where q = 0

    zh: sample_estimate：每个均匀随机数来源取 0 或小于 1 的最大浮点数时，也绝不抽到 q = 0 的结果
    """
    draws44.check_extremes(sub, ctx)


@lane_weight(5)
def test_sample_independent_draws(sub, ctx):
    """sample_estimate: a row's draws split as independent draws do; rows of different targets are independent

    zh: sample_estimate：一行的抽样分配与独立抽样一致；目标不同的各行相互独立
    """
    draws44.check_law(sub, ctx)


@lane_weight(5)
def test_sample_generator(sub, ctx):
    """sample_estimate: the generator contract (seeds, the stream advances, the default generator, row positions)

    zh: sample_estimate：生成器的约定（种子、随机数流向前推进、默认生成器、行的位置）
    """
    draws44.check_generator(sub, ctx)
