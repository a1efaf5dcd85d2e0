"""The tiny variant of exercise 43: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite (``checks43.py``), at sizes the browser's pure-Python torch
runs quickly: ``verify`` on 800 copies of one context (K = 2, V = 4) whose draft tokens the
judge draws from q, ``speculative_step`` on 800 copies of one context (K = 2, V = 5,
temperature 1.5, top_k = 3), 600 rows fed uniforms of exactly 0, and the seed contract on 48 rows.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.checks import expect_seed_contract, expect_tensor

from . import checks43, theory
from .contexts import PS, QS, ZERO_P, ZERO_Q

BUDGET = BudgetDeclaration(fit=8, seeds=2)  # two runs with K = 2: N, positions 0 and 1, the bonus

ROWS = 800
SEED_ROWS = 48

STEP_TARGET = [[2.0, 1.2, 0.4, 1.5, 0.0], [0.2, 1.8, 1.0, 0.0, 1.4], [1.5, 0.0, 0.3, 2.0, 1.0]]
STEP_DRAFT = [[1.2, 2.0, 0.2, 1.6, 0.8], [0.9, 1.7, 0.2, 0.3, 1.5]]
TEMPERATURE, TOP_K = 1.5, 3


def test_tiny_verify(sub, ctx):
    """verify: 800 rows drafted from q; the number accepted, the first and the bonus token fit theory

    zh: verify：800 行草稿从 q 抽取；接受个数、第一个 token 与奖励 token 都符合理论
    """
    checks43.run_verify(sub, ctx, PS, QS, ROWS, torch.float32, label="verify (tiny)", public="verify", seed=43_501)


def test_tiny_zero_uniforms(sub, ctx):
    """verify with uniforms of exactly 0: a draft token of target probability 0 is still rejected

    zh: 均匀数恰为 0 时，目标概率为 0 的草稿 token 仍被拒绝
    """
    checks43.run_zero_uniforms(sub, ctx, ZERO_P, ZERO_Q, 600, label="verify (tiny, uniforms of 0)")


def test_tiny_step(sub, ctx):
    """speculative_step: temperature 1.5 and top_k = 3 on both sides, 800 rows

    zh: speculative_step：两边都用温度 1.5 与 top_k = 3，800 行
    """
    checks43.run_step(
        sub,
        ctx,
        STEP_TARGET,
        STEP_DRAFT,
        TEMPERATURE,
        TOP_K,
        ROWS,
        torch.float32,
        label="speculative_step (tiny)",
        public="speculative_step",
    )


def test_tiny_seeds(sub, ctx):
    """speculative_step: the generator decides the tokens; without one, torch.manual_seed does

    zh: speculative_step：由 generator 决定结果；不传 generator 时由 torch.manual_seed 决定
    """
    target = checks43.expand(STEP_TARGET, SEED_ROWS, torch.float32)
    draft = checks43.expand(STEP_DRAFT, SEED_ROWS, torch.float32)
    first = theory.filtered(STEP_TARGET[0], TEMPERATURE, TOP_K)

    def draw(source, generator):
        value = source.speculative_step(target, draft, temperature=TEMPERATURE, top_k=TOP_K, generator=generator)
        tokens = checks43.unpack(ctx, value, name="speculative_step", batch=SEED_ROWS, k=2, parts=3)[0]
        return expect_tensor(
            tokens[:, 0].clone(), name="speculative_step tokens[:, 0]", shape=(SEED_ROWS,), dtype=torch.int64
        )

    expect_seed_contract(sub, ctx, draw, torch.tensor(first, dtype=torch.float64), label="speculative_step")
