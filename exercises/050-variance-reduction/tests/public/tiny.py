"""The tiny variant of exercise 50: what "Run" judges in the browser, after the public cases.

The hidden suite's own checks (``checks50``, ``readable50``), at sizes the browser's pure-Python torch
runs quickly: readable rows of every method (pairs, strata and standard errors read back from the
estimates), every draw site pushed to 0 and to the largest float below 1, the generator contract and
identical rows drawn apart, two strata drawn apart, the control variate's fitted beta row by row, float32
values near 1000, and the control variate's error bars and mean over 400 rows. The exact laws these need
are frozen in ``frozen50`` from the server's oracle.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.generator_contract import generator_contract_budget

from . import checks50, frozen50
from .diagnoses import MISTAKES
from .readable50 import METHODS

CONTRACT_ROWS, TWIN_ROWS, STRATA_ROWS = 32, 100, 200
BETA_ROWS, LARGE_ROWS, LARGE_DRAWS, STATS_ROWS = 32, 16, 40, 400

# calibration and unbiased: the control variate's statistics; independence: one twin test per method and the
# strata; seeds: the generator contract of each method.
BUDGET = BudgetDeclaration(calibration=1, unbiased=1, independence=len(METHODS) + 1) + BudgetDeclaration(
    seeds=len(METHODS) * generator_contract_budget(CONTRACT_ROWS).seeds
)


def test_tiny_readable(sub, ctx):
    """every method: readable rows in float64 and float32, the draws and the standard errors they give

    zh: 每个方法：float64 与 float32 的可读行，抽样结果及其给出的标准误
    """
    for method in METHODS:
        for dtype in (torch.float64, torch.float32):
            checks50.readable_sets(sub, ctx, method, dtype)


def test_tiny_extremes(sub, ctx):
    """every method: each uniform source at 0 and at the largest float below 1 still gives legal draws

    zh: 每个方法：每个均匀随机数来源取 0 或小于 1 的最大浮点数时，抽样仍然合法
    """
    for method in METHODS:
        checks50.check_extremes(sub, ctx, method, torch.float32 if method in ("plain", "stratified") else torch.float64)


def test_tiny_generator(sub, ctx):
    """every method: the generator contract on 32 rows, and 100 identical rows drawn apart

    zh: 每个方法：32 行上的生成器约定，以及 100 个相同的行各自独立抽样
    """
    for method in METHODS:
        law = torch.tensor(frozen50.CONTRACT_LAWS[method], dtype=torch.float64)
        checks50.check_generator(sub, ctx, method, law, contract=CONTRACT_ROWS, twins=TWIN_ROWS)


def test_tiny_strata(sub, ctx):
    """stratified_estimate: each stratum draws its own uniforms (200 rows of two strata)

    zh: stratified_estimate：每一层各自抽取均匀随机数（200 行，每行两层）
    """
    checks50.check_strata_independent(sub, ctx, STRATA_ROWS)


def _control_variate(sub, ctx, p, f, g, rows: int, draws: int, *, scale: float = 1.0):
    """``control_variate_estimate`` on ``rows`` copies of one float64 row (probs times ``scale``)."""
    copies = {name: torch.tensor([row] * rows, dtype=torch.float64) for name, row in (("p", p), ("f", f), ("g", g))}
    return sub.control_variate_estimate(
        probs=copies["p"] * scale,
        values=copies["f"],
        control=copies["g"],
        num_samples=draws,
        generator=ctx.generator(),
    )


def test_tiny_fitted_beta(sub, ctx):
    """control_variate_estimate: 32 rows whose estimate and standard error must be those of some 5 draws

    zh: control_variate_estimate：32 行，每行的估计值与标准误都必须对应某 5 次抽样的结果
    """
    rows, dtype = BETA_ROWS, torch.float64
    value = _control_variate(sub, ctx, frozen50.BETA_P, frozen50.BETA_F, frozen50.BETA_G, rows, frozen50.BETA_DRAWS)
    checks50.expect_some_draws(
        ctx,
        value,
        frozen50.BETA_OUTCOMES,
        dtype,
        rows=rows,
        label=f"control_variate_estimate(n = {frozen50.BETA_DRAWS})",
    )


def test_tiny_large_values(sub, ctx):
    """plain, antithetic and control variate: float32 values near 1000 that differ by 0.25 keep their error bars

    zh: 朴素、对偶与控制变量：float32 下接近 1000、相差 0.25 的值仍给出准确的误差条
    """
    checks50.check_large_values(sub, ctx, LARGE_ROWS, LARGE_DRAWS)


def test_tiny_control_variate_statistics(sub, ctx):
    """control_variate_estimate: 400 error bars cover E_p[f] at their exact rate, the procedure's exact mean

    zh: control_variate_estimate：400 个误差条以其精确比例覆盖 E_p[f]，均值等于该方法的精确均值
    """
    rows, dtype = STATS_ROWS, torch.float64
    name = "control_variate_estimate"
    # probs times 2 (exact): rows that do not sum to 1
    value = _control_variate(
        sub, ctx, frozen50.STATS_P, frozen50.STATS_F, frozen50.STATS_G, rows, frozen50.STATS_DRAWS, scale=2.0
    )
    checks50.expect_estimates(
        ctx,
        value,
        name=name,
        rows=rows,
        dtype=dtype,
        label=f"{name}, {rows} rows of {frozen50.STATS_DRAWS} draws",
        mu=frozen50.STATS_MU,
        mean=frozen50.STATS_MEAN,
        std=frozen50.STATS_STD,
        coverage=frozen50.STATS_COVERAGE,
        coverage_mistakes=lambda: {MISTAKES[k]: v for k, v in frozen50.STATS_COVERAGE_MISTAKES.items()},
        mean_mistakes=lambda: {MISTAKES[k]: v for k, v in frozen50.STATS_MEAN_MISTAKES.items()},
    )
