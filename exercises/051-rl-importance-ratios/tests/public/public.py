"""Public tests of exercise 51: the statement's worked example, judged as the hidden tests judge larger,
generated calls, and a few refusals a learner can read."""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect_tensor
from judge.checks.refusals import BadCall, expect_calls_refused

from . import examples51

BUDGET = BudgetDeclaration()


def test_example_ratios(sub, ctx):
    """token_ratios: the worked example (the padded position gives exactly 1)

    zh: token_ratios：题面算例（填充位置恰好为 1）
    """
    examples51.check_ratios(sub, ctx, "example")


def test_example_objective(sub, ctx):
    """ppo_clip_objective: the worked example, token mean -0.2329 and sequence mean -0.4972

    zh: ppo_clip_objective：题面算例，按 token 平均为 -0.2329，按序列平均为 -0.4972
    """
    examples51.check_objectives(sub, ctx, "example")


def test_example_grpo(sub, ctx):
    """grpo_advantages: the worked example, a group of equal rewards gives zeros

    zh: grpo_advantages：题面算例，奖励全相等的组得到 0
    """
    examples51.check_grpo(sub, ctx, "example")


def test_example_bias(sub, ctx):
    """clipping_bias: the worked example, E_q[g] = 0.1 against E_p[A] = 0.3

    zh: clipping_bias：题面算例，E_q[g] = 0.1，而 E_p[A] = 0.3
    """
    examples51.check_bias(sub, ctx, "example")


def test_example_sample_shape(sub, ctx):
    """sample_surrogate: one estimate per row, in the dtype of p_new

    zh: sample_surrogate：每行一个估计值，dtype 与 p_new 相同
    """
    p_new = torch.tensor([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]], dtype=torch.float64)
    p_old = torch.tensor([[0.25, 0.25, 0.5], [0.3, 0.3, 0.4]], dtype=torch.float64)
    advantages = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, -1.0]], dtype=torch.float64)
    value = sub.sample_surrogate(p_new, p_old, advantages, group_size=16, generator=ctx.generator())
    expect_tensor(value, name="sample_surrogate", shape=(2,), dtype=torch.float64, device=ctx.device)


def test_readable_refusals(sub, ctx):
    """refusals: clip_eps = 1, an unknown aggregation, a group of one reward, an int mask, group_size = 0

    zh: 拒绝非法输入：clip_eps = 1、未知的聚合方式、只有一个奖励的组、整数 mask、group_size = 0
    """
    call = examples51.token_call("example")
    ratios = {k: call[k] for k in ("logp_new", "logp_old", "mask")}
    bandit = {
        "p_new": torch.tensor([[0.5, 0.5]], dtype=torch.float64),
        "p_old": torch.tensor([[0.5, 0.5]], dtype=torch.float64),
        "advantages": torch.tensor([[1.0, -1.0]], dtype=torch.float64),
    }
    expect_calls_refused(
        [
            BadCall(sub.ppo_clip_objective, "ppo_clip_objective(clip_eps=1.0)", kwargs=call | {"clip_eps": 1.0}),
            BadCall(
                sub.ppo_clip_objective,
                'ppo_clip_objective(aggregation="mean")',
                kwargs=call | {"aggregation": "mean"},
            ),
            BadCall(
                sub.token_ratios, "token_ratios(an int64 mask)", kwargs=ratios | {"mask": call["mask"].to(torch.int64)}
            ),
            BadCall(
                sub.grpo_advantages,
                "grpo_advantages(groups of one reward)",
                kwargs={"rewards": torch.tensor([[1.0], [0.0]])},
            ),
            BadCall(
                sub.sample_surrogate,
                "sample_surrogate(group_size=0)",
                kwargs=bandit | {"group_size": 0, "generator": ctx.generator()},
            ),
        ]
    )
