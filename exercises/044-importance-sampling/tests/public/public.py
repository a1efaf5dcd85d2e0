"""Public tests of exercise 44: small cases you can check by hand, and log-weights that overflow exp.

The hidden tests check the same rules on larger frozen batches, judge sample_estimate's estimates
for bias (with and without a cap) and its error bars for calibration over many rows.
"""

from __future__ import annotations

import dataclasses

import torch

from judge.checks.budget import BudgetDeclaration

from . import checks44

BUDGET = BudgetDeclaration()


def test_hand_example(sub, ctx):
    """weights [1, 2, 0.5, 4] with f = [1, 2, 3, 4]: ordinary 5.625, self-normalized 3, ESS 45/17, truncated 3.625

    zh: 权重 [1, 2, 0.5, 4]、f = [1, 2, 3, 4]：普通估计 5.625，自归一化估计 3，ESS 45/17，截断估计 3.625
    """
    case = checks44.frozen_case("hand")
    checks44.check_estimates(sub, ctx, case)
    checks44.check_ess(sub, ctx, case)
    checks44.check_truncated(sub, ctx, case)
    # The cap is any finite number > 0: an int too.
    checks44.check_truncated(sub, ctx, dataclasses.replace(case, cap=2), diagnosis="int_cap_refused")


def _separating(*names: str) -> tuple[checks44.WeightCase, ...]:
    """Cases where mistakes that coincide on another one differ: ``sequences32`` (log-densities down to
    -250 whose differences are small: exponentiating p and q apart underflows, exponentiating the
    log-weight unshifted does not) and ``extreme64`` (log-weights of 900: the unshifted exponential
    overflows, a sum of shifted weights times exp(max) does not)."""
    return tuple(checks44.frozen_case(name) for name in names or ("sequences32",))


def test_extreme_float64(sub, ctx):
    """float64 log-weights of +-700 and 900: no inf, no NaN; one weight dominating gives ESS 1

    zh: float64 对数权重为 +-700 与 900：不得出现 inf 或 NaN；一个权重占绝对优势时 ESS 为 1
    """
    case = checks44.frozen_case("extreme64")
    checks44.check_estimates(sub, ctx, case, separating=_separating())
    checks44.check_ess(sub, ctx, case, separating=_separating())
    checks44.check_truncated(sub, ctx, case)


def test_extreme_float32(sub, ctx):
    """float32 log-weights of +-100 and 80

    zh: float32 对数权重为 +-100 与 80
    """
    case = checks44.frozen_case("extreme32")
    checks44.check_estimates(sub, ctx, case, separating=_separating())
    checks44.check_ess(sub, ctx, case, separating=_separating())
    checks44.check_truncated(sub, ctx, case)


def test_ordinary_near_overflow(sub, ctx):
    """the ordinary estimate when each weight fits in the dtype but their sum does not (float64 and float32)

    zh: 每个权重都能用该 dtype 表示、但其和会溢出时的普通估计（float64 与 float32）
    """
    for name in ("near_overflow64", "near_overflow32"):
        checks44.check_estimates(
            sub, ctx, checks44.frozen_case(name), separating=_separating("sequences32", "extreme64")
        )


def test_sequence_log_probabilities(sub, ctx):
    """float32 log p and log q down to -250 (whole sequences) whose differences are small: exp of each underflows

    zh: float32 的 log p 与 log q 低至 -250（整个序列），二者之差很小：分别取 exp 会下溢
    """
    case = checks44.frozen_case("sequences32")
    checks44.check_estimates(sub, ctx, case)
    checks44.check_ess(sub, ctx, case)
    checks44.check_truncated(sub, ctx, case)


def test_ess_scale_invariant(sub, ctx):
    """the effective sample size does not change when every weight is multiplied by e^5

    zh: 每个权重都乘以 e^5 时有效样本数不变
    """
    checks44.check_ess_invariance(sub, ctx, checks44.frozen_case("hand"), 5.0)


def test_draws_and_errors(sub, ctx):
    """sample_estimate: each estimate is the mean of w f over its draws, and its standard error the one they give

    zh: sample_estimate：每个估计值都是其抽样的 w f 的均值，标准误也与这些抽样相符
    """
    checks44.check_draws(sub, ctx, 8, torch.float64)
    checks44.check_draws(sub, ctx, 8, torch.float32)
    checks44.check_draws(sub, ctx, 1, torch.float64)  # a batch of one row: outputs of shape [1]


def test_zero_probabilities(sub, ctx):
    """sample_estimate: p = 0 where q > 0 (weight 0) and p = q = 0 are valid; no error, no NaN

    zh: sample_estimate：q > 0 处 p = 0（权重为 0）以及 p = q = 0 都是合法输入；不得报错，不得出现 NaN
    """
    checks44.check_zero_probabilities(sub, ctx)


def test_bad_inputs(sub, ctx):
    """shapes or dtypes that differ, NaN or inf, a cap <= 0, q = 0 where p > 0, num_samples < 2 raise ValueError

    zh: 形状或 dtype 不一致、含 NaN 或 inf、cap <= 0、p > 0 处 q = 0、num_samples < 2 时抛出 ValueError
    """
    checks44.check_weights_bad_inputs(sub)
    checks44.check_sampler_bad_inputs(sub, ctx)
