"""The tiny variant of exercise 51: what "Run" judges in the browser, after the public cases.

Frozen cases (``frozen51.py``, from the server's oracle) that reach each known mistake: float32
log-probabilities far below -100 with left padding, an all-padding row and advantages per token; groups
of equal rewards whose mean rounds, with eps = 0; zeros in p_old under negative advantages and weights not
summing to 1. Then sample_surrogate at small sizes through the hidden suite's own checks (``draws51.py``):
the responses' law, the mean, every draw site, the generator contract.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.generator_contract import generator_contract_budget

from . import checks51, draws51, examples51

BUDGET = BudgetDeclaration(fit=len(draws51.TARGETS), unbiased=1) + generator_contract_budget(
    draws51.contract_probs(), positions=False, twins=None
)

COPIES, UNBIASED_ROWS, UNBIASED_GROUP, CONTRACT_COPIES = 300, 400, 8, 8


def test_tiny_ratios(sub, ctx):
    """token_ratios: float32 log-probabilities far below -100, left padding, an all-padding row

    zh: token_ratios：远小于 -100 的 float32 对数概率，左填充，全是填充的行
    """
    examples51.check_ratios(sub, ctx, "deep")


def test_tiny_objective(sub, ctx):
    """ppo_clip_objective: the same batch, advantages per token, both aggregations

    zh: ppo_clip_objective：同一批数据，按 token 给出的优势，两种聚合方式
    """
    examples51.check_objectives(sub, ctx, "deep")


def test_tiny_grpo(sub, ctx):
    """grpo_advantages: equal groups whose mean rounds, eps = 0, in float64 and float32

    zh: grpo_advantages：均值会舍入的相等奖励组，eps = 0，float64 与 float32
    """
    examples51.check_grpo(sub, ctx, "mixed")
    examples51.check_grpo(sub, ctx, "equal32")
    for dtype in (torch.float64, torch.float32):
        checks51.check_single_equal_groups(sub, ctx, dtype)


def test_tiny_bias(sub, ctx):
    """clipping_bias: zeros in p_old under negative advantages, weights not summing to 1

    zh: clipping_bias：p_old 中的零（对应的优势为负），和不为 1 的权重
    """
    examples51.check_bias(sub, ctx, "zeros")


def test_tiny_sample(sub, ctx):
    """sample_surrogate: the responses drawn follow q, their mean is E_q[g], every draw site at its extremes

    zh: sample_surrogate：抽到的回答服从 q，平均为 E_q[g]，每个抽样点取极端值
    """
    draws51.check_draws(sub, ctx, COPIES)
    draws51.check_unbiased(sub, ctx, UNBIASED_ROWS, UNBIASED_GROUP)
    draws51.check_extremes(sub, ctx, dtypes=(draws51.F64,))


def test_tiny_generator(sub, ctx):
    """sample_surrogate: the same seed gives the same estimates, a second call continues the stream

    zh: sample_surrogate：同一种子给出相同的估计，第二次调用接着随机数流往下走
    """
    draws51.check_generator(sub, ctx, CONTRACT_COPIES, 0, positions=False)
