"""The tiny variant of exercise 41: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite (they live in checks41.py, beside this file), at sizes the
browser's pure-Python torch runs in a blink: three small frozen batches for
mean_and_standard_error (one of them float32 values near 10 000, which E[x^2] - E[x]^2 ruins),
250 rows of 50 draws for the calibration of estimate_probability (P(event) = 0.105, far from
0.5, so error bars built on p = 0.5 are 1.6 times too wide), 200 rows of 20 draws for its bias,
16 rows of 50 draws per seed check, and six frozen cases of samples_needed. The expected
values were computed with the server's oracle (float64, exact fractions) and frozen here;
tests/exercises/test_041_monte_carlo_error.py checks them against it.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.i18n import Bilingual

from . import checks41
from .diagnoses import MISTAKES

BUDGET = BudgetDeclaration(calibration=1, unbiased=1, independence=1, seeds=2)

EVENT = (5, 6, 7)  # P(event) = 0.105 under checks41.PROBS
CALIBRATION_ROWS, CALIBRATION_DRAWS = 250, 50
UNBIASED_ROWS, UNBIASED_DRAWS = 200, 20
SEED_ROWS, SEED_DRAWS = 16, 50

# (samples, dtype, exact means, exact standard errors, {mistake: its standard errors}), float64 values.
MEAN_CASES = [
    (
        [[2.0, 3.0, 1.0, 4.0, 2.0], [0.1] * 5, [-1.25, 0.5, 2.0, -0.75, 1.5]],
        torch.float32,
        [2.4, 0.10000000149011612, 0.4],
        [0.5099019513592785, 0.0, 0.6254998001598402],
        {
            "se_divides_by_n": [0.2280350850198276, 0.0, 0.27973201461398733],
            "population_variance": [0.4560701700396552, 0.0, 0.5594640292279746],
            "se_is_variance": [0.26, 0.0, 0.39125],
            "se_not_divided": [1.140175425099138, 0.0, 1.3986600730699366],
        },
    ),
    (
        [[1.5, -0.5], [3.0, 3.25]],
        torch.float64,
        [0.5, 3.125],
        [1.0, 0.125],
        {"se_is_variance": [1.0, 0.015625], "se_not_divided": [1.4142135623730951, 0.1767766952966369]},
    ),
    (
        [
            [10000.1, 9999.9, 10000.05, 9999.95, 10000.2, 9999.8, 10000.0, 10000.15],
            [20000.3, 20000.1, 20000.2, 20000.25, 20000.0, 20000.35, 20000.05, 20000.15],
        ],
        torch.float32,
        [10000.018798828125, 20000.175048828125],
        [0.047198586510421234, 0.0432735383913593],
        {
            "se_divides_by_n": [0.016687220291969382, 0.015299506221233283],
            "population_variance": [0.04415023496550163, 0.04047868864346882],
            "se_is_variance": [0.002227706568581717, 0.0018725991249084473],
            "se_not_divided": [0.13349776233575505, 0.12239604976986626],
        },
    ),
]
MEAN_TITLES = ["3 float32 rows of 5, one constant", "n = 2, float64", "float32 rows of 8 values near 10 000 and 20 000"]
MEAN_TITLES_ZH = [
    "3 行 float32，每行 5 个，其中一行为常数",
    "n = 2，float64",
    "float32，每行 8 个接近 10 000 与 20 000 的值",
]

# (delta, sigma, num_se, accepted answers, {mistake: its answer}).
NEEDED = [
    (
        0.1,
        1.2,
        2.0,
        (1152, 1153),
        {"one_sample": 576, "not_squared": 34, "rounds_down": 1151, "not_strict": 1152, "inexact_bound": 1152},
    ),
    (
        0.125,
        1.5,
        2.0,
        (1153,),
        {"one_sample": 577, "not_squared": 34, "rounds_down": 1152, "not_strict": 1152, "inexact_bound": 1153},
    ),
    (
        0.05,
        1.0,
        1.96,
        (3074,),
        {"one_sample": 1537, "not_squared": 56, "rounds_down": 3073, "not_strict": 3074, "inexact_bound": 3074},
    ),
    (2.0, 1.0, 2.0, (3,), {"one_sample": 2, "not_squared": 2, "rounds_down": 2, "not_strict": 2, "inexact_bound": 3}),
    (1.0, 0.3, 1.0, (1,), {"one_sample": 1, "not_squared": 1, "rounds_down": 0, "not_strict": 1, "inexact_bound": 1}),
    (
        0.375,
        2.0625,
        2.0,
        (243,),
        {"one_sample": 122, "not_squared": 16, "rounds_down": 242, "not_strict": 242, "inexact_bound": 242},
    ),
]


def mean_case(index: int) -> checks41.MeanCase:
    """Frozen case ``index`` of ``MEAN_CASES`` as the checks take it."""
    rows, dtype, means, errors, mistaken = MEAN_CASES[index]
    as_tensor = lambda values: torch.tensor(values, dtype=torch.float64)  # noqa: E731
    return checks41.MeanCase(
        torch.tensor(rows, dtype=dtype),
        as_tensor(means),
        as_tensor(errors),
        {MISTAKES[name]: as_tensor(v) for name, v in mistaken.items()},
        Bilingual(MEAN_TITLES[index], MEAN_TITLES_ZH[index]),
    )


def test_tiny_mean(sub, ctx):
    """mean_and_standard_error: small rows, n = 2, and a constant row

    zh: mean_and_standard_error：小批量数据、n = 2，以及常数行
    """
    for index in (0, 1):
        checks41.check_mean_case(sub, ctx, mean_case(index))


def test_tiny_mean_large_offset(sub, ctx):
    """mean_and_standard_error: float32 values with a mean far larger than their spread

    zh: mean_and_standard_error：均值远大于离散程度的 float32 数据
    """
    checks41.check_mean_case(
        sub, ctx, mean_case(2), diagnosis=MISTAKES["naive_variance"], mean_diagnosis=MISTAKES["float32_running_mean"]
    )


def test_tiny_mean_bad_inputs(sub, ctx):
    """mean_and_standard_error: fewer than 2 samples, a tensor that is not 2-D floating, NaN or inf raise ValueError

    zh: mean_and_standard_error：少于 2 个样本、不是二维浮点张量、含 NaN 或 inf 时抛出 ValueError
    """
    checks41.check_mean_bad_inputs(sub)


def test_tiny_probability_unbiased(sub, ctx):
    """estimate_probability: the estimates average to the true probability

    zh: estimate_probability：估计值的平均等于真实概率
    """
    checks41.check_unbiased(sub, ctx, UNBIASED_ROWS, EVENT, UNBIASED_DRAWS)


def test_tiny_probability_calibrated(sub, ctx):
    """estimate_probability: rows are independent and the error bars cover the truth at their nominal rate

    zh: estimate_probability：各行相互独立，误差条以其名义比例覆盖真实值
    """
    checks41.check_calibration(sub, ctx, CALIBRATION_ROWS, EVENT, CALIBRATION_DRAWS)


def test_tiny_probability_seeds(sub, ctx):
    """estimate_probability: the generator decides the draws; without one, torch.manual_seed does

    zh: estimate_probability：由 generator 决定抽样；不传 generator 时由 torch.manual_seed 决定
    """
    checks41.check_seeds(sub, ctx, SEED_ROWS, EVENT, SEED_DRAWS)


def test_tiny_probability_bad_inputs(sub, ctx):
    """estimate_probability: bad probabilities, a bad event mask or num_samples < 1 raise ValueError

    zh: estimate_probability：非法概率、非法事件掩码或 num_samples < 1 时抛出 ValueError
    """
    checks41.check_probability_bad_inputs(sub, ctx)


def test_tiny_samples_needed(sub, ctx):
    """samples_needed: the chapter's example, whole-number bounds, an ordinary bound and n = 1

    zh: samples_needed：本章的例子、恰为整数的界、一般的界，以及 n = 1
    """
    checks41.check_samples_needed(sub, [checks41.NeededCase(*case) for case in NEEDED])


def test_tiny_samples_needed_bad_inputs(sub, ctx):
    """samples_needed: delta, sigma or num_se that is not a finite number > 0 raises ValueError

    zh: samples_needed：delta、sigma 或 num_se 不是大于 0 的有限数时抛出 ValueError
    """
    checks41.check_needed_bad_inputs(sub)
