"""Public tests of exercise 41: small examples you can check by hand.

The hidden tests check the same rules on larger frozen batches (n = 2, constant rows, float64,
values with a large offset), judge estimate_probability's error bars over many rows, and check
the generator.
"""

from __future__ import annotations

import math

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.refusals import expect_raises
from judge.i18n import Bilingual

from . import checks41
from .diagnoses import MISTAKES

BUDGET = BudgetDeclaration()


def test_mean_small_example(sub, ctx):
    """mean_and_standard_error([[2, 4, 4, 5, 5]]) is mean 4 and standard error sqrt(1.5 / 5)

    zh: mean_and_standard_error([[2, 4, 4, 5, 5]]) 的均值为 4，标准误为 sqrt(1.5 / 5)
    """
    samples = torch.tensor([[2.0, 4.0, 4.0, 5.0, 5.0], [1.0, 3.0, 1.0, 3.0, 1.0]], dtype=torch.float64)
    # Row 0: deviations -2, 0, 0, 1, 1, so s^2 = 6 / 4 = 1.5. Row 1: mean 1.8, s^2 = 4.8 / 4 = 1.2.
    case = checks41.MeanCase(
        samples,
        torch.tensor([4.0, 1.8], dtype=torch.float64),
        torch.tensor([math.sqrt(1.5 / 5), math.sqrt(1.2 / 5)], dtype=torch.float64),
        {
            MISTAKES["se_divides_by_n"]: torch.tensor([math.sqrt(1.5) / 5, math.sqrt(1.2) / 5], dtype=torch.float64),
            MISTAKES["population_variance"]: torch.tensor(
                [math.sqrt(1.2 / 5), math.sqrt(0.96 / 5)], dtype=torch.float64
            ),
            MISTAKES["se_is_variance"]: torch.tensor([1.5 / 5, 1.2 / 5], dtype=torch.float64),
            MISTAKES["se_not_divided"]: torch.tensor([math.sqrt(1.5), math.sqrt(1.2)], dtype=torch.float64),
        },
        Bilingual("[[2, 4, 4, 5, 5], [1, 3, 1, 3, 1]]", "[[2, 4, 4, 5, 5], [1, 3, 1, 3, 1]]"),
    )
    checks41.check_mean_case(sub, ctx, case)


def test_mean_constant_row(sub, ctx):
    """a constant row has standard error 0

    zh: 常数行的标准误为 0
    """
    samples = torch.tensor([[2.5, 2.5, 2.5, 2.5], [0.1, 0.1, 0.1, 0.1]])
    # The mean of 0.1 (as float32 holds it) may round; its error is 0 up to 8 ulps of 0.1 over sqrt(4).
    case = checks41.MeanCase(
        samples,
        samples[:, 0].to(torch.float64),
        torch.zeros(2, dtype=torch.float64),
        {},
        Bilingual("[[2.5, 2.5, 2.5, 2.5], [0.1, 0.1, 0.1, 0.1]]", "[[2.5, 2.5, 2.5, 2.5], [0.1, 0.1, 0.1, 0.1]]"),
    )
    checks41.check_mean_case(sub, ctx, case)


def test_probability_example(sub, ctx):
    """estimate_probability returns frequencies k / n and the matching standard errors

    zh: estimate_probability 返回频率 k / n 及相应的标准误
    """
    # The estimates must be frequencies k / 200 and each standard error sqrt(p_hat (1 - p_hat) / 200) of its own
    # estimate (or with 199); a known mistake's formula that reproduces every row is named (answers41).
    checks41.estimates(
        sub, ctx, 3, [2], 200, ctx.generator(), what="estimate_probability(3 rows, event = token 2, 200 draws)"
    )


def test_chapter_example(sub, ctx):
    """samples_needed(0.125, 1.5, 2) is 1153: the bound 1152 itself is not enough

    zh: samples_needed(0.125, 1.5, 2) 等于 1153：恰好等于界 1152 还不够
    """
    checks41.check_samples_needed(
        sub,
        [
            checks41.NeededCase(
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
            )
        ],
    )


def test_bad_inputs(sub, ctx):
    """one sample per row, and delta = 0, raise ValueError

    zh: 每行只有一个样本，或 delta = 0，都抛出 ValueError
    """
    with expect_raises(ValueError, "mean_and_standard_error(torch.tensor([[1.0], [2.0]]))"):
        sub.mean_and_standard_error(torch.tensor([[1.0], [2.0]]))
    with expect_raises(ValueError, "samples_needed(0.0, 1.0, 2.0)"):
        sub.samples_needed(0.0, 1.0, 2.0)
