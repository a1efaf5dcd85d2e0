"""The contract checks end to end, through real learner processes: a toy exercise ``pick(weights, u,
scale)`` whose hidden suite runs ``expect_contract_refusals`` and ``expect_contract_accepts``.

A learner that validates by the statement passes; one that validates only what a public list of bad
inputs shows, one that broadcasts a ``[B, 1]`` scale, one that refuses rows not summing to 1 and one
whose answer has the wrong shape at B = 1 fail, each on the rule that names its mistake and no value.
"""

from __future__ import annotations

import textwrap

import pytest

from judge.engine.runner import judge_file
from judge.exercises.exercise import load_exercise
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict
from tests.judge.refusals_support import batched_and_one_by_one

TOML = """
number = 909
slug = "pick"
difficulty = "easy"
[title]
en = "Pick"
zh = "挑选"
[functions.pick]
params = ["weights", "u", "scale"]
[judging]
time_limit_s = 5.0
memory_limit_mb = 1024
"""

HIDDEN = '''
import random

import torch

from judge.checks.arguments import (
    HALF_PRECISION, INTEGER_AND_BOOL, NOT_FINITE, Flaw, Number, PerRow, Probabilities, Uniforms,
    expect_contract_accepts, expect_contract_refusals, public_call,
)
from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect, expect_tensor

BUDGET = BudgetDeclaration()
STRUCTURE = {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE}
# "weights: a float32 or float64 tensor [B, V], finite, >= 0, each row summing to more than 0; u: uniforms
# [B, n] in [0, 1), float32 or float64; scale: a finite number > 0, or a tensor [B] of them. Anything else
# raises ValueError."
ARGUMENTS = {
    "weights": Probabilities(
        dims=("B", "V"), wrong_dtypes=INTEGER_AND_BOOL + HALF_PRECISION,
        refuse=STRUCTURE | NOT_FINITE | {Flaw.BELOW, Flaw.ZERO_ROW},
    ),
    "u": Uniforms(dims=("B", "n"), wrong_dtypes=INTEGER_AND_BOOL + HALF_PRECISION,
                  refuse=STRUCTURE | NOT_FINITE | {Flaw.BELOW, Flaw.ABOVE}),
    "scale": PerRow(number=Number(low=0.0, low_open=True),
                    refuse=STRUCTURE | NOT_FINITE | {Flaw.BELOW, Flaw.NOT_A_NUMBER}),
}


def good(ctx):
    rng = ctx.rng
    b, v, n = rng.randint(2, 4), rng.randint(3, 6), rng.randint(2, 5)
    weights = [[rng.choice((0.0, 0.5, 1.0, 3.0)) for _ in range(v)] for _ in range(b)]
    for row in weights:
        row[rng.randrange(v)] = 2.0
    dtype = rng.choice((torch.float32, torch.float64))
    return {
        "weights": torch.tensor(weights, dtype=dtype),
        "u": torch.tensor([[rng.random() for _ in range(n)] for _ in range(b)], dtype=dtype),
        "scale": rng.choice((0.5, 2.0, torch.tensor([rng.choice((0.5, 1.0)) for _ in range(b)]))),
    }


def check(value, variant):
    weights, u = variant.kwargs["weights"], variant.kwargs["u"]
    what = public_call("pick", variant)
    ids = expect_tensor(value, name=what, shape=tuple(u.shape), dtype=torch.int64)
    expect(bool(((ids >= 0) & (ids < weights.shape[1])).all()), f"{what}: an id outside the vocabulary")
    expect(bool((weights.gather(1, ids) > 0).all()), f"{what}: an id of weight 0",
           rule=f"{what}: an id of weight 0")


def test_refusals(sub, ctx):
    """pick: every bad input raises ValueError

    zh: pick：非法输入都抛出 ValueError
    """
    expect_contract_refusals(sub.pick, ctx, good=good(ctx), arguments=ARGUMENTS)


def test_corners(sub, ctx):
    """pick: legal corners are accepted

    zh: pick：合法的边界输入被接受
    """
    expect_contract_accepts(sub.pick, ctx, good=good(ctx), arguments=ARGUMENTS, check=check)
'''

CONTRACT = """
import torch

FLOATS = (torch.float32, torch.float64)


def pick(weights, u, scale):
    if not isinstance(weights, torch.Tensor) or weights.dim() != 2 or weights.dtype not in FLOATS:
        raise ValueError("weights must be a float32 or float64 tensor [B, V]")
    if not isinstance(u, torch.Tensor) or u.dim() != 2 or u.dtype not in FLOATS or u.shape[0] != weights.shape[0]:
        raise ValueError("u must be a float32 or float64 tensor [B, n]")
    if not bool(torch.isfinite(weights).all()) or bool((weights < 0).any()) or bool((weights.sum(1) <= 0).any()):
        raise ValueError("weights must be finite and >= 0, each row summing to more than 0")
    if not bool(((u >= 0) & (u < 1)).all()):
        raise ValueError("u must lie in [0, 1)")
    if isinstance(scale, torch.Tensor):
        if scale.dim() != 1 or scale.shape[0] != weights.shape[0] or scale.dtype not in FLOATS:
            raise ValueError("a scale tensor must be float32 or float64 [B]")
        scale = scale.to(torch.float64)
    elif isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise ValueError("scale must be a number or a tensor [B]")
    else:
        scale = torch.full((weights.shape[0],), float(scale), dtype=torch.float64)
    if not bool((torch.isfinite(scale) & (scale > 0)).all()):
        raise ValueError("scale must be finite and > 0")
    w = weights.to(torch.float64) ** (1 / scale.unsqueeze(1))
    cdf = w.cumsum(1)
    cdf = cdf / cdf[:, -1:]
    return torch.searchsorted(cdf, u.to(torch.float64), right=True).clamp(max=weights.shape[1] - 1)
"""

# What a learner writes who checks exactly a public list's examples: NaN and negative weights, u = 1.
PUBLIC_ONLY = """
import torch


def pick(weights, u, scale):
    if bool(torch.isnan(weights).any()) or bool((weights < 0).any()):
        raise ValueError("weights must be >= 0")
    if bool((u >= 1).any()):
        raise ValueError("u must be < 1")
    scale = scale.to(torch.float64) if isinstance(scale, torch.Tensor) else torch.tensor([float(scale)])
    w = weights.to(torch.float64) ** (1 / scale.reshape(-1, 1))
    cdf = w.cumsum(1)
    cdf = cdf / cdf[:, -1:]
    return torch.searchsorted(cdf, u.to(torch.float64), right=True).clamp(max=weights.shape[1] - 1)
"""

BROADCASTS_SCALE = CONTRACT.replace(
    "if scale.dim() != 1 or scale.shape[0] != weights.shape[0] or scale.dtype not in FLOATS:",
    "if scale.dtype not in FLOATS:",
).replace("scale = scale.to(torch.float64)", "scale = scale.to(torch.float64).reshape(-1).expand(weights.shape[0])")

NORMALIZED_ONLY = CONTRACT.replace(
    "    if not bool(((u >= 0)",
    "    if bool(((weights.sum(1).double() - 1).abs() > 1e-6).any()):\n"
    "        raise ValueError('each row of weights must sum to 1')\n"
    "    if not bool(((u >= 0)",
)

SQUEEZES = CONTRACT.replace("return torch.searchsorted(", "return torch.searchsorted(").replace(
    ".clamp(max=weights.shape[1] - 1)", ".clamp(max=weights.shape[1] - 1).squeeze(0)"
)


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    folder = tmp_path_factory.mktemp("contract") / "909-pick"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "exercise.toml").write_text(TOML)
    (folder / "tests" / "public" / "public.py").write_text("")
    (folder / "tests" / "hidden" / "hidden.py").write_text(textwrap.dedent(HIDDEN))
    return load_exercise(folder)


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


def _failure(report):
    failing = [c for c in report.cases if c.verdict is not Verdict.AC]
    return failing[0] if failing else None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_learner_that_validates_by_the_contract_is_accepted(seed, exercise, warm, learner_file):
    report = judge_file(exercise, learner_file(CONTRACT), seed=seed, launcher=warm)
    assert report.verdict is Verdict.AC, _failure(report).message if _failure(report) else report.message
    assert [c.name for c in report.cases] == ["refusals", "corners"]


@pytest.mark.parametrize(
    "source, case, rule",
    [
        (PUBLIC_ONLY, "refusals", "pick() with weights as a Python list instead of a tensor: must raise ValueError"),
        (BROADCASTS_SCALE, "refusals", "pick() with scale as a tensor of shape [B, 1]: must raise ValueError"),
        (NORMALIZED_ONLY, "corners", "raised an exception on an input the statement allows"),
        (SQUEEZES, "corners", "pick() with B = 1"),
    ],
    ids=["public examples only", "broadcasts a [B, 1] scale", "refuses weights", "wrong shape at B = 1"],
)
def test_a_learner_that_breaks_the_contract_is_rejected_by_its_rule(source, case, rule, exercise, warm, learner_file):
    report = judge_file(exercise, learner_file(source), seed=4, launcher=warm)
    failing = _failure(report)
    assert report.verdict is Verdict.WA and failing is not None and failing.name == case, report.cases
    assert rule in failing.rule, failing.rule
    assert failing.rule.zh and failing.rule.zh != str(failing.rule)  # the Chinese rule is its own


def test_checking_values_by_the_public_list_alone_is_rejected(exercise, warm, learner_file):
    """Every structural check right, but the values checked as a public list shows them (NaN, negative
    weights, u >= 1): +inf weights pass that, and the statement refuses them."""
    source = CONTRACT.replace("not bool(torch.isfinite(weights).all())", "bool(torch.isnan(weights).any())").replace(
        "not bool(((u >= 0) & (u < 1)).all())", "bool((u >= 1).any())"
    )
    report = judge_file(exercise, learner_file(source), seed=4, launcher=warm)
    failing = _failure(report)
    assert failing is not None and failing.name == "refusals"
    assert failing.rule == "pick() with weights holding +inf: must raise ValueError"
    assert failing.rule.zh == "pick() 收到含 +inf 的 weights 时：必须抛出 ValueError"


def test_batched_refusals_give_the_report_of_one_call_at_a_time(exercise, warm, learner_file, monkeypatch):
    path = learner_file(BROADCASTS_SCALE)
    batched, one_by_one = batched_and_one_by_one(exercise, path, monkeypatch, seed=5, launcher=warm)
    assert [(c.name, c.verdict, c.message, c.rule) for c in batched.cases] == [
        (c.name, c.verdict, c.message, c.rule) for c in one_by_one.cases
    ]
