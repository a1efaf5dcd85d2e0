"""Hidden tests of exercise 50. Never shown to learners; run in the judge's process only.

Each method judged by its draws (rows whose values make the draws readable from the estimate: the draws
must be ones the method can make, and the standard error the one they give), with every uniform source
pushed to 0 and to the largest float below 1, by its bad inputs and legal corners (generated from the
statement's contract), by its generator (the whole contract, and two halves of a batch of identical rows
that must not agree more than chance), and by its statistics (``stats50``: unbiased, calibrated, and the
variance promise). Sizes and power: benchmarks/power_050.py.
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import contract_refusals, expect_contract_accepts
from judge.checks.budget import BudgetDeclaration
from judge.checks.generator_contract import generator_contract_budget
from judge.checks.refusals import expect_calls_refused
from judge.checks.testing import lane_weight

from ..public import checks50
from ..public.readable50 import FUNCTION, METHODS, ReadableRows, check_readable, readable_rows
from . import specs, stats50

CONTRACT_ROWS, TWIN_ROWS = 64, 400

# unbiased and calibration: one each per method, and three variance promises (calibration kind: exact bounds);
# independence: one twin test per method; the generator contract: 4 seeds per method.
BUDGET = BudgetDeclaration(unbiased=4, calibration=7, independence=5) + BudgetDeclaration(
    seeds=4 * generator_contract_budget(CONTRACT_ROWS).seeds
)


def _readable(sub, ctx, method: str, dtype: torch.dtype) -> None:
    checks50.readable_sets(sub, ctx, method, dtype)


def test_plain_draws(sub, ctx):
    """plain_estimate: the estimates read as draws, none of probability 0, and the standard errors they give

    zh: plain_estimate：估计值能读出抽样结果，没有概率为 0 的 token，标准误与抽样相符
    """
    for dtype in (torch.float64, torch.float32):
        _readable(sub, ctx, "plain", dtype)


def test_antithetic_draws(sub, ctx):
    """antithetic_estimate: every pair comes from u and 1 - u, and the error bar is the pair means'

    zh: antithetic_estimate：每一对都来自 u 与 1 - u，误差条由对均值算出
    """
    for dtype in (torch.float64, torch.float32):
        _readable(sub, ctx, "antithetic", dtype)


def test_stratified_draws(sub, ctx):
    """stratified_estimate: two draws in each stratum, and the error bar from the gaps within strata

    zh: stratified_estimate：每层两次抽样，误差条由层内之差算出
    """
    for dtype in (torch.float64, torch.float32):
        _readable(sub, ctx, "stratified", dtype)


def test_control_variate_draws(sub, ctx):
    """control_variate_estimate: a constant control gives beta = 0, the plain mean and the n - 2 error bar

    zh: control_variate_estimate：常数控制变量给出 beta = 0、朴素均值与按 n - 2 计算的误差条
    """
    for dtype in (torch.float64, torch.float32):
        _readable(sub, ctx, "control_variate", dtype)


@lane_weight(3)
def test_extreme_uniforms(sub, ctx):
    """every method: each uniform source at 0 and at the largest float below 1 still gives legal draws

    zh: 每个方法：每个均匀随机数来源取 0 或小于 1 的最大浮点数时，抽样仍然合法
    """
    for method in METHODS:
        checks50.check_extremes(sub, ctx, method, torch.float32 if method in ("plain", "stratified") else torch.float64)


@lane_weight(2)
def test_generated_bad_inputs(sub, ctx):
    """every function: every bad input the statement names, generated, raises ValueError

    zh: 每个函数：按题面生成的各种非法输入都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("bad inputs"))
    calls = []
    for method in METHODS:
        name = FUNCTION[method]
        good = specs.good_call(rng, method)

        def extra():
            return {"generator": ctx.generator()}

        calls += contract_refusals(getattr(sub, name), good, specs.arguments(method), rng, extra=extra, name=name)
        calls += specs.count_extras(getattr(sub, name), name, good, extra)
    rng.shuffle(calls)
    expect_calls_refused(calls)


@lane_weight(2)
def test_legal_corners(sub, ctx):
    """every function: legal corners (B = 1, V = 1, zeros, the smallest count, rows not summing to 1) read right

    zh: 每个函数：合法的边界输入（B = 1、V = 1、0、最小的次数、和不为 1 的行）结果正确
    """
    for method in METHODS:
        name = FUNCTION[method]
        rows = readable_rows(random.Random(ctx.fresh_seed(f"corners {method}")), method, torch.float64)

        def check(value, variant, method=method, name=name):
            kwargs = variant.kwargs
            probs = kwargs["probs"].double()
            p = tuple(tuple((row / row.sum()).tolist()) for row in probs)
            corner = ReadableRows(
                method, kwargs["probs"], kwargs["values"], kwargs.get("control"), kwargs["num_samples"], p, ""
            )
            check_readable(ctx, corner, value, what=f"{name}: {variant.description}", public=variant.public)

        expect_contract_accepts(
            getattr(sub, name),
            ctx,
            good=rows.kwargs(),
            arguments=specs.arguments(method),
            extra=lambda: {"generator": ctx.generator()},
            check=check,
            name=name,
        )


def _check_generator(sub, ctx, method: str) -> None:
    checks50.check_generator(sub, ctx, method, stats50.contract_law(method), contract=CONTRACT_ROWS, twins=TWIN_ROWS)


@lane_weight(2)
def test_plain_generator(sub, ctx):
    """plain_estimate: the generator contract, and identical rows drawn apart

    zh: plain_estimate：生成器的约定，以及相同的行各自独立抽样
    """
    _check_generator(sub, ctx, "plain")


@lane_weight(2)
def test_antithetic_generator(sub, ctx):
    """antithetic_estimate: the generator contract, and identical rows drawn apart

    zh: antithetic_estimate：生成器的约定，以及相同的行各自独立抽样
    """
    _check_generator(sub, ctx, "antithetic")


@lane_weight(2)
def test_stratified_generator(sub, ctx):
    """stratified_estimate: the generator contract, and identical rows drawn apart

    zh: stratified_estimate：生成器的约定，以及相同的行各自独立抽样
    """
    _check_generator(sub, ctx, "stratified")


@lane_weight(2)
def test_control_variate_generator(sub, ctx):
    """control_variate_estimate: the generator contract, and identical rows drawn apart

    zh: control_variate_estimate：生成器的约定，以及相同的行各自独立抽样
    """
    _check_generator(sub, ctx, "control_variate")


STRATA_ROWS = 400


@lane_weight(1)
def test_stratified_strata_independent(sub, ctx):
    """stratified_estimate: each stratum draws its own uniforms (two strata never move together)

    zh: stratified_estimate：每一层各自抽取均匀随机数（两层不会同步变化）
    """
    checks50.check_strata_independent(sub, ctx, STRATA_ROWS)


CV_ROWS = 64


@lane_weight(1)
def test_control_variate_fitted_beta(sub, ctx):
    """control_variate_estimate: every row's estimate and standard error are those of some n draws

    zh: control_variate_estimate：每一行的估计值与标准误都对应某 n 次抽样的结果
    """
    rng = random.Random(ctx.fresh_seed("fitted beta"))
    # First a control that is 0.1 on every token: beta must be 0 in every row (the mean of three 0.1 is not
    # 0.1, so their computed spread is a tiny positive number); then two tokens share 0.1.
    for n, dtype, constant in (
        (3, torch.float64, True),
        (3, torch.float64, False),
        (5, torch.float64, False),
        (6, torch.float32, False),
    ):
        weights = [rng.randint(2, 9) for _ in range(3)]
        p = [w / sum(weights) for w in weights]
        f = [rng.randint(-40, 90) / 10 for _ in range(3)]  # decimals: their deviations do not sum to exactly 0
        g = [0.1, 0.1, 0.1 if constant else 0.1 + rng.randint(1, 5)]
        outcomes = stats50.cv_table(p, f, g, n)
        kwargs = {
            "probs": torch.tensor([p] * CV_ROWS, dtype=dtype),
            "values": torch.tensor([f] * CV_ROWS, dtype=dtype),
            "control": torch.tensor([g] * CV_ROWS, dtype=dtype),
            "num_samples": n,
        }
        value = sub.control_variate_estimate(**kwargs, generator=ctx.generator())
        checks50.expect_some_draws(
            ctx,
            value,
            outcomes,
            dtype,
            rows=CV_ROWS,
            label=f"control_variate_estimate(n = {n}{', a constant control' if constant else ''})",
            constant=constant,
        )


LARGE_ROWS, LARGE_DRAWS = 64, 40


@lane_weight(1)
def test_large_values_float32(sub, ctx):
    """plain, antithetic and control variate: float32 values near 1000 that differ by 0.25 keep their error bars

    zh: 朴素、对偶与控制变量：float32 下接近 1000、相差 0.25 的值仍给出准确的误差条
    """
    checks50.check_large_values(sub, ctx, LARGE_ROWS, LARGE_DRAWS)


# The statistics last: a mistake the draws, the strata or the fitted beta show is named there first.
@lane_weight(3)
def test_plain_statistics(sub, ctx):
    """plain_estimate: unbiased, and error bars covering E_p[f] at their exact rate

    zh: plain_estimate：无偏，误差条以精确的覆盖率覆盖 E_p[f]
    """
    stats50.check_statistics(sub, ctx, "plain")


@lane_weight(3)
def test_antithetic_statistics(sub, ctx):
    """antithetic_estimate: unbiased, calibrated, and less variance than plain Monte Carlo for a monotone f

    zh: antithetic_estimate：无偏、误差条校准，且 f 单调时方差小于朴素蒙特卡洛
    """
    stats50.check_statistics(sub, ctx, "antithetic")


@lane_weight(3)
def test_stratified_statistics(sub, ctx):
    """stratified_estimate: unbiased, calibrated, and less variance than plain Monte Carlo

    zh: stratified_estimate：无偏、误差条校准，且方差小于朴素蒙特卡洛
    """
    stats50.check_statistics(sub, ctx, "stratified")


@lane_weight(3)
def test_control_variate_statistics(sub, ctx):
    """control_variate_estimate: the procedure's exact mean, calibrated, and less variance than plain Monte Carlo

    zh: control_variate_estimate：均值等于该方法的精确均值、误差条校准，且方差小于朴素蒙特卡洛
    """
    stats50.check_statistics(sub, ctx, "control_variate")
