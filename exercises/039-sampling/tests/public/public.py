"""Public tests of exercise 39: small examples you can read and reproduce by hand.

Every row below uses the logits [2.0, 1.0, 0.5, 0.0] of the statement's worked example. The
hidden tests check the same rules on many more rows, a 32 000-token vocabulary, per-row
parameters, float64, bad inputs, and the distribution of tens of thousands of draws.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.refusals import expect_raises
from judge.checks.sequential import staged

BUDGET = BudgetDeclaration(fit=1)

LOGITS = [2.0, 1.0, 0.5, 0.0]
TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}


def _probs(sub, ctx, **params):
    logits = torch.tensor([LOGITS])
    out = sub.sampling_probs(logits, **params)
    return expect_tensor(out, name="sampling_probs", shape=(1, 4), dtype=torch.float32, device=ctx.device)


def _expect_probs(sub, ctx, expected, **params):
    what = "sampling_probs(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"
    expect_close(_probs(sub, ctx, **params), torch.tensor([expected], dtype=torch.float64), what=what, **TOLERANCE)


def test_softmax(sub, ctx):
    """sampling_probs at temperature 1 is the softmax

    zh: 温度为 1 时 sampling_probs 就是 softmax
    """
    _expect_probs(sub, ctx, [0.579259, 0.213097, 0.129250, 0.078394], temperature=1.0)


def test_temperature(sub, ctx):
    """temperature 0.5 sharpens the distribution

    zh: 温度 0.5 让分布更尖锐
    """
    _expect_probs(sub, ctx, [0.830953, 0.112457, 0.041371, 0.015219], temperature=0.5)


def test_top_k(sub, ctx):
    """top_k=2 keeps the two most likely tokens

    zh: top_k=2 保留概率最大的两个 token
    """
    _expect_probs(sub, ctx, [0.731059, 0.268941, 0.0, 0.0], top_k=2)


def test_top_p(sub, ctx):
    """top_p=0.8 keeps the token that crosses 0.8

    zh: top_p=0.8 保留使累计概率越过 0.8 的那个 token
    """
    _expect_probs(sub, ctx, [0.628532, 0.231224, 0.140244, 0.0], top_p=0.8)


def test_min_p(sub, ctx):
    """min_p=0.3 keeps tokens with at least 0.3 x the largest probability

    zh: min_p=0.3 保留概率不低于最大概率 0.3 倍的 token
    """
    _expect_probs(sub, ctx, [0.731059, 0.268941, 0.0, 0.0], min_p=0.3)


def test_greedy(sub, ctx):
    """temperature 0 is greedy

    zh: 温度为 0 时是贪心解码
    """
    _expect_probs(sub, ctx, [1.0, 0.0, 0.0, 0.0], temperature=0.0)
    draws = sub.sample(torch.tensor([LOGITS]), num_samples=20, temperature=0.0, generator=ctx.generator())
    draws = expect_tensor(draws, name="sample", shape=(1, 20), dtype=torch.int64, device=ctx.device)
    expect(bool((draws == 0).all()), f"sample at temperature 0 drew {draws.tolist()}; it must always draw token 0")


def test_sample_distribution(sub, ctx):
    """4 000 draws with top_p=0.8 follow [0.6285, 0.2312, 0.1402, 0]

    zh: top_p=0.8 下的 4 000 次抽样服从 [0.6285, 0.2312, 0.1402, 0]
    """
    expected = torch.tensor([[0.628532, 0.231224, 0.140244, 0.0]], dtype=torch.float64)

    def draw(start: int, count: int) -> torch.Tensor:
        draws = sub.sample(torch.tensor([LOGITS]), num_samples=count, top_p=0.8, generator=ctx.generator())
        draws = expect_tensor(draws, name="sample", shape=(1, count), dtype=torch.int64, device=ctx.device)
        expect_support(
            draws,
            expected,
            what="sample(top_p=0.8)",
            why_excluded=lambda row, token: "it is outside the nucleus of top_p=0.8",
        )
        return draws[0]

    # Drawn in stages (judge.checks.sequential): a wrong sampler is rejected after a sixteenth of them.
    staged(
        ctx,
        4000,
        draw,
        lambda parts, stage: expect_distribution(
            ctx, torch.cat(list(parts)), expected[0] / expected[0].sum(), label="sample(top_p=0.8)"
        ),
    )


def test_negative_temperature(sub, ctx):
    """a negative temperature raises ValueError

    zh: 负的温度抛出 ValueError
    """
    with expect_raises(ValueError, "sampling_probs(temperature=-1.0)"):
        sub.sampling_probs(torch.tensor([LOGITS]), temperature=-1.0)
