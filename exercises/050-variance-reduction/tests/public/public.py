"""Public tests of exercise 50: small readable examples a learner may run and read.

Each call uses rows whose values are powers of n + 1, so the tokens drawn can be read back from the
estimate (``readable50``): the checks say which draws your estimate implies and which standard error
those draws give.
"""

from __future__ import annotations

import random

import torch

from judge.checks.base import fail, rule
from judge.checks.budget import BudgetDeclaration
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_close, expect_tensor
from judge.checks.refusals import BadInput, expect_bad_inputs_refused

from .diagnoses import MISTAKES
from .readable50 import FUNCTION, METHODS, check_readable, readable_rows

BUDGET = BudgetDeclaration()

PROBS = torch.tensor([[0.1, 0.2, 0.3, 0.4]], dtype=torch.float64)
VALUES = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)


def test_readable_rows(sub, ctx):
    """every method: six rows of four tokens whose draws can be read from the estimates

    zh: 每个方法：六行、每行四个 token，可以从估计值读出抽样结果
    """
    for method in METHODS:
        rows = readable_rows(random.Random(50), method, torch.float64)
        value = getattr(sub, FUNCTION[method])(**rows.kwargs(), generator=ctx.generator())
        check_readable(ctx, rows, value, what=f"{FUNCTION[method]}({rows.public})", public=FUNCTION[method])


def test_one_token(sub, ctx):
    """every method: a distribution on one token gives its value exactly, with standard error 0

    zh: 每个方法：只有一个 token 的分布给出它的值，标准误为 0
    """
    probs = torch.tensor([[0.0, 1.0, 0.0]], dtype=torch.float64)
    values = torch.tensor([[7.0, -2.5, 3.0]], dtype=torch.float64)
    for method in METHODS:
        name = FUNCTION[method]
        extra = {"control": torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)} if method == "control_variate" else {}
        value = getattr(sub, name)(probs=probs, values=values, num_samples=4, generator=ctx.generator(), **extra)
        if not isinstance(value, (tuple, list)) or len(value) != 2:  # checked before it is unpacked: never an IE
            fail(
                f"{name} must return a pair (estimate, se), got {type(value).__name__}",
                rule=rule(name, "did not return a pair (estimate, se)", "返回的不是 (estimate, se) 二元组"),
                kind=Evidence.STRUCTURAL,
            )
        estimate = expect_tensor(value[0], name=f"{name} estimate", shape=(1,), dtype=torch.float64, device=ctx.device)
        se = expect_tensor(value[1], name=f"{name} se", shape=(1,), dtype=torch.float64, device=ctx.device)
        expect_close(
            estimate, torch.tensor([-2.5], dtype=torch.float64), rtol=1e-12, atol=1e-12, what=f"{name} estimate"
        )
        expect_close(se, torch.tensor([0.0], dtype=torch.float64), rtol=0.0, atol=1e-12, what=f"{name} se")


def test_bad_inputs(sub, ctx):
    """a few bad inputs raise ValueError (odd counts, too few draws, a negative probability)

    zh: 几种非法输入抛出 ValueError（奇数次数、抽样太少、负概率）
    """
    for method, n in (("antithetic", 5), ("stratified", 7), ("antithetic", 2), ("plain", 1), ("control_variate", 2)):
        extra = {"control": VALUES} if method == "control_variate" else {}
        odd = MISTAKES["odd_count_accepted"] if n % 2 and n > 4 else None
        expect_bad_inputs_refused(
            getattr(sub, FUNCTION[method]),
            [
                BadInput(
                    f"num_samples = {n}", {"probs": PROBS, "values": VALUES, "num_samples": n, **extra}, diagnosis=odd
                )
            ],
            extra=lambda: {"generator": ctx.generator()},
        )
    expect_bad_inputs_refused(
        sub.plain_estimate,
        [
            (
                "probs [[-0.1, 0.5, 0.3, 0.3]]",
                {
                    "probs": torch.tensor([[-0.1, 0.5, 0.3, 0.3]], dtype=torch.float64),
                    "values": VALUES,
                    "num_samples": 4,
                },
            )
        ],
        extra=lambda: {"generator": ctx.generator()},
    )
