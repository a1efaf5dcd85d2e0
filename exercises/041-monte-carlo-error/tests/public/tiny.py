"""The tiny variant of exercise 41: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite (they live in checks41.py and its neighbours, beside this file),
clause by clause, at sizes the browser's pure-Python torch runs in a blink: small frozen batches for
mean_and_standard_error (float32 values near 10 000, which E[x^2] - E[x]^2 ruins, judged after the same
deviations near 0), 250 rows of 50 draws for the calibration of estimate_probability (P(event) = 0.105,
far from 0.5, so error bars built on p = 0.5 are 1.6 times too wide), 200 rows of 20 draws for its
bias, 300 rows of 3 draws for the independence of draws within and across rows, six rows of certain
events at every draw site's extremes (float64, and float32 with one draw), the generator's contract on
five rows, a refusal of each kind, and nine frozen cases of samples_needed (whole-number bounds from
arguments that are no binary fractions among them). The expected values were computed with the
server's oracle (exact fractions) and frozen here; tests/exercises/test_041_monte_carlo_error.py checks
them against it.
"""

from __future__ import annotations

import random

import torch

from judge.checks.budget import BudgetDeclaration
from judge.i18n import Bilingual

from . import checks41, draws41, extremes41
from .diagnoses import MISTAKES

BUDGET = BudgetDeclaration(calibration=1, unbiased=1, independence=1, fit=1, pairs=1) + draws41.generator_budget()

EVENT = (5, 6, 7)  # P(event) = 0.105 under checks41.PROBS
CALIBRATION_ROWS, CALIBRATION_DRAWS = 250, 50
UNBIASED_ROWS, UNBIASED_DRAWS = 200, 20
INDEPENDENCE_PAIRS, INDEPENDENCE_DRAWS = 150, 3
CONTRACT_DRAWS, CONTRACT_COPIES, POSITION_COPIES = 12, 16, 40
EXTREMES_SEED = 4141  # the rows of certain events (extremes41.exact_rows) drawn from random.Random(EXTREMES_SEED)
# Their weights that run past the cumsum (found by extremes41.exact_rows with real torch; frozen, so that the
# browser does not search), float64 with 8 draws and float32 with 1.
PAST_THE_END = {
    torch.float64: [
        0.0,
        1.6974146585578924,
        2.437295262037849,
        2.493949812101072,
        2.2912524060446335,
        1.8078132132545122,
        2.903260639194532,
        1.568776733279965,
        2.3913834070488154,
        2.589954409792854,
        2.629979711469916,
        2.8551980491393985,
        0.22856175336161716,
        0.0,
    ],
    torch.float32: [
        0.0,
        1.4878956079483032,
        0.529685914516449,
        1.3699471950531006,
        2.379879951477051,
        0.5068719983100891,
        1.3098235130310059,
        1.2498091459274292,
        0.0921439677476883,
        2.672307252883911,
        2.852006435394287,
        2.21498966217041,
        2.347628116607666,
        2.1522610187530518,
        0.8274437785148621,
        0.7385479211807251,
        2.9434847831726074,
        2.0145750045776367,
        0.0,
    ],
}

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
MEAN_CASES.append(
    (  # case 2 moved near 0 (checks41.shifted_near_zero): the same deviations, judged first
        [
            [0.099609375, -0.099609375, 0.0498046875, -0.0498046875, 0.2001953125, -0.2001953125, 0.0, 0.150390625],
            [0.30078125, 0.099609375, 0.19921875, 0.25, 0.0, 0.349609375, 0.05078125, 0.150390625],
        ],
        torch.float32,
        [0.018798828125, 0.175048828125],
        MEAN_CASES[2][3],
        MEAN_CASES[2][4],
    )
)
_FLOAT64_ERRORS = {
    "se_divides_by_n": [0.04617029812133912, 0.0],
    "population_variance": [0.12215512678677597, 0.0],
    "se_is_variance": [0.017053571428906643, 0.0],
    "se_not_divided": [0.36936238497071294, 0.0],
}
MEAN_CASES += [
    (  # float64 near 100 000 differing by about 0.4, and a constant row: the one-pass variance fails in float64 too
        [[100000.3, 99999.7, 100000.1, 99999.9, 100000.6, 99999.4, 100000.0, 100000.2], [-7.3] * 8],
        torch.float64,
        [100000.025, -7.3],
        [0.13058932356401362, 0.0],
        _FLOAT64_ERRORS,
    ),
    (  # the same moved near 0 (checks41.shifted_near_zero)
        [
            [
                0.3000000000029104,
                -0.3000000000029104,
                0.10000000000582077,
                -0.10000000000582077,
                0.6000000000058208,
                -0.6000000000058208,
                0.0,
                0.19999999999708962,
            ],
            [0.0] * 8,
        ],
        torch.float64,
        [0.024999999999636202, 0.0],
        [0.13058932356401362, 0.0],
        _FLOAT64_ERRORS,
    ),
]
MEAN_TITLES = [
    "3 float32 rows of 5, one constant",
    "n = 2, float64",
    "float32 rows of 8 values near 10 000 and 20 000",
    "float32 rows of 8 values near 10 000 and 20 000, moved near 0",
    "float64 values near 100 000 and a constant row",
    "float64 values near 100 000 and a constant row, moved near 0",
]
MEAN_TITLES_ZH = [
    "3 行 float32，每行 5 个，其中一行为常数",
    "n = 2，float64",
    "float32，每行 8 个接近 10 000 与 20 000 的值",
    "float32，每行 8 个接近 10 000 与 20 000 的值，平移到 0 附近",
    "float64，接近 100 000 的值与一个常数行",
    "float64，接近 100 000 的值与一个常数行，平移到 0 附近",
]

# (delta, sigma, num_se, accepted answers, {mistake: its answer}, the bound a whole number).
NEEDED = [
    (
        0.1,
        1.2,
        2.0,
        (1152, 1153),
        {
            "one_sample": 576,
            "not_squared": 34,
            "rounds_down": 1151,
            "not_strict": 1152,
            "inexact_bound": 1152,
            "float_bound": 1152,
            "decimal_fraction": 1153,
        },
        False,
    ),
    (
        0.125,
        1.5,
        2.0,
        (1153,),
        {
            "one_sample": 577,
            "not_squared": 34,
            "rounds_down": 1152,
            "not_strict": 1152,
            "inexact_bound": 1153,
            "float_bound": 1153,
            "decimal_fraction": 1153,
        },
        True,
    ),
    (
        0.05,
        1.0,
        1.96,
        (3074,),
        {
            "one_sample": 1537,
            "not_squared": 56,
            "rounds_down": 3073,
            "not_strict": 3074,
            "inexact_bound": 3074,
            "float_bound": 3074,
            "decimal_fraction": 3074,
        },
        False,
    ),
    (
        2.0,
        1.0,
        2.0,
        (3,),
        {
            "one_sample": 2,
            "not_squared": 2,
            "rounds_down": 2,
            "not_strict": 2,
            "inexact_bound": 3,
            "float_bound": 3,
            "decimal_fraction": 3,
        },
        True,
    ),
    (
        1.0,
        0.3,
        1.0,
        (1,),
        {
            "one_sample": 1,
            "not_squared": 1,
            "rounds_down": 0,
            "not_strict": 1,
            "inexact_bound": 1,
            "float_bound": 1,
            "decimal_fraction": 1,
        },
        False,
    ),
    (
        0.375,
        2.0625,
        2.0,
        (243,),
        {
            "one_sample": 122,
            "not_squared": 16,
            "rounds_down": 242,
            "not_strict": 242,
            "inexact_bound": 242,
            "float_bound": 243,
            "decimal_fraction": 243,
        },
        True,
    ),
    (  # a whole-number ratio of floats that are no binary fractions: 3.0 * 0.7 / 0.7 is 2.9999999999999996
        0.7,
        0.7,
        3.0,
        (19,),
        {
            "one_sample": 10,
            "not_squared": 5,
            "rounds_down": 18,
            "not_strict": 18,
            "inexact_bound": 19,
            "float_bound": 18,
            "decimal_fraction": 19,
        },
        True,
    ),
    (
        1.3,
        1.3,
        7.0,
        (99,),
        {
            "one_sample": 50,
            "not_squared": 10,
            "rounds_down": 98,
            "not_strict": 98,
            "inexact_bound": 99,
            "float_bound": 98,
            "decimal_fraction": 99,
        },
        True,
    ),
    (  # 1.5 times the float 1.1 is exactly the float 1.6500000000000001; their decimals' ratio is not 1.5
        1.6500000000000001,
        1.1,
        1.5,
        (3,),
        {
            "one_sample": 2,
            "not_squared": 2,
            "rounds_down": 2,
            "not_strict": 2,
            "inexact_bound": 3,
            "float_bound": 3,
            "decimal_fraction": 2,
        },
        True,
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
    """mean_and_standard_error: float32 and float64 values with a mean far larger than their spread

    zh: mean_and_standard_error：均值远大于离散程度的 float32 与 float64 数据
    """
    checks41.check_offset_case(sub, ctx, mean_case(2), mean_case(3))
    checks41.check_offset_case(sub, ctx, mean_case(4), mean_case(5))


# A row of 1 000 float32 values: 500 of STALL_START, then 500 of STALL_START + STALL_STEP (about 100 units in the
# last place): a running mean kept in float32 loses its updates d / i past the middle and stops short.
STALL_START, STALL_STEP, STALL_FIRST, STALL_N = 10000.3, 0.1, 500, 1000


def stall_cases() -> tuple[checks41.MeanCase, checks41.MeanCase]:
    """The two-block row far from 0, and the same row moved near 0 (its start minus 10 000)."""
    far = checks41.two_blocks_case(
        STALL_START,
        STALL_STEP,
        STALL_FIRST,
        STALL_N,
        torch.float32,
        Bilingual("1 000 float32 values near 10 000 in two blocks", "1 000 个接近 10 000、分成两段的 float32 值"),
    )
    held = far.samples[0, 0].item(), far.samples[0, -1].item()
    near = checks41.two_blocks_case(
        held[0] - 10_000,
        held[1] - held[0],
        STALL_FIRST,
        STALL_N,
        torch.float32,
        Bilingual("the same two blocks moved near 0", "同样的两段，平移到 0 附近"),
    )
    return far, near


def test_tiny_mean_stall(sub, ctx):
    """mean_and_standard_error: 1 000 float32 values near 10 000 in two blocks (a float32 running mean stalls)

    zh: mean_and_standard_error：1 000 个接近 10 000、分成两段的 float32 值（float32 的滑动均值会停滞）
    """
    far, near = stall_cases()
    checks41.check_offset_case(sub, ctx, far, near)


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


def test_tiny_probability_independent_draws(sub, ctx):
    """estimate_probability: draws independent within a row (binomial counts) and across neighbouring rows

    zh: estimate_probability：同一行内的抽样相互独立（次数服从二项分布），相邻各行也相互独立
    """
    n = INDEPENDENCE_DRAWS
    public = Bilingual(f"estimate_probability, {n} draws per row", f"estimate_probability，每行抽 {n} 次")
    draws41.check_counts_independent(sub, ctx, INDEPENDENCE_PAIRS, n, label=str(public), public=public)


def test_tiny_probability_exact_at_extremes(sub, ctx):
    """estimate_probability: certain events are estimated exactly, at every draw site's extremes too

    zh: estimate_probability：必然与不可能事件被精确估计，每个抽样点取极端值时也是如此
    """
    rng = random.Random(EXTREMES_SEED)
    for dtype, n in ((torch.float64, 8), (torch.float32, 1)):
        rows = extremes41.exact_rows(rng, dtype, n, past=PAST_THE_END[dtype])
        name = str(dtype).removeprefix("torch.")
        extremes41.check_exact_rows_at_extremes(
            sub, ctx, rows, label=f"estimate_probability, certain events, {name}, {n} draw{'s' if n > 1 else ''}"
        )


def test_tiny_probability_generator(sub, ctx):
    """estimate_probability: the generator's contract, clause by clause

    zh: estimate_probability：生成器的约定，逐条检验
    """
    draws41.check_generator_contract(
        sub, ctx, checks41.PROBS, CONTRACT_DRAWS, CONTRACT_COPIES, POSITION_COPIES, label="estimate_probability"
    )


def test_tiny_probability_bad_inputs(sub, ctx):
    """estimate_probability: bad probabilities, a bad event mask or num_samples < 1 raise ValueError

    zh: estimate_probability：非法概率、非法事件掩码或 num_samples < 1 时抛出 ValueError
    """
    checks41.check_probability_bad_inputs(sub, ctx)


def test_tiny_wrong_types_refused(sub, ctx):
    """samples_needed and estimate_probability: bools, lists, tensors and float counts raise ValueError

    zh: samples_needed 与 estimate_probability：bool、列表、张量与浮点数形式的次数都抛出 ValueError
    """
    checks41.check_type_refusals(sub, ctx, ctx.rng)


def test_tiny_samples_needed(sub, ctx):
    """samples_needed: the chapter's example, whole-number bounds (some of non-dyadic floats), an ordinary bound, n = 1

    zh: samples_needed：本章的例子、恰为整数的界（部分参数不是二进制分数）、一般的界，以及 n = 1
    """
    checks41.check_samples_needed(sub, [checks41.NeededCase(*case) for case in NEEDED])


def test_tiny_samples_needed_bad_inputs(sub, ctx):
    """samples_needed: delta, sigma or num_se that is not a finite number > 0 raises ValueError

    zh: samples_needed：delta、sigma 或 num_se 不是大于 0 的有限数时抛出 ValueError
    """
    checks41.check_needed_bad_inputs(sub)
