"""Hidden tests of exercise 53 (TODO: yours). They never leave the judge's process."""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_tokens_in_range
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.refusals import BadInput, expect_bad_inputs_refused

from ..public.public import OUTCOME  # hidden modules may import public ones, never the reverse

PROBS = [0.1, 0.15, 0.25, 0.5]
DRAWS = 20_000

# One fit, and what the whole generator contract spends (judge/checks/generator_contract.py).
BUDGET = BudgetDeclaration(fit=1) + generator_contract_budget(torch.tensor(PROBS, dtype=torch.float64))


def _draws(source, ctx, n: int, generator) -> torch.Tensor:
    value = source.draw(torch.tensor(PROBS), n, generator=generator)
    draws = expect_tensor(value, name="draw", shape=(n,), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, len(PROBS), what="draw", outcome=OUTCOME)
    return draws


def test_distribution(sub, ctx):
    """draw: 20 000 draws follow the target distribution

    zh: draw：20 000 次抽样服从目标分布
    """
    draws = _draws(sub, ctx, DRAWS, ctx.generator())
    expect_distribution(ctx, draws, torch.tensor(PROBS, dtype=torch.float64), label="draw, 20 000 draws",
                        outcome=OUTCOME)


def test_seeds(sub, ctx):
    """draw: the generator decides the draws and advances; without one, torch.manual_seed does

    zh: draw：由 generator 决定抽样结果且每次调用都向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    expect_generator_contract(sub, ctx, lambda source, generator: _draws(source, ctx, 100, generator),
                              torch.tensor(PROBS, dtype=torch.float64), label="draw")


def test_bad_inputs(sub, ctx):
    """draw: bad inputs raise ValueError

    zh: draw：非法输入抛出 ValueError
    """
    expect_bad_inputs_refused(sub.draw, [
        BadInput("probs = [-0.5, 1.5]", {"probs": torch.tensor([-0.5, 1.5]), "n": 3}, public="a negative probability"),
        BadInput("probs = [nan, 1.0]", {"probs": torch.tensor([float("nan"), 1.0]), "n": 3},
                 public="a NaN probability"),
        BadInput("probs of shape [1, 2]", {"probs": torch.tensor([[0.5, 0.5]]), "n": 3}, public="probs not 1-D"),
        BadInput("n = 0", {"probs": torch.tensor(PROBS), "n": 0}),
    ], extra=lambda: {"generator": ctx.generator()}, name="draw")
