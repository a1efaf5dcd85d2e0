"""The tiny variant of exercise 46: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite (checks46.py, beside this file) at sizes the browser's pure-Python
torch runs in a blink: a frozen square batch (answers frozen in frozen46.py from the server's oracle),
600 draws of two rows, the generator contract on them, every draw site at 0 and just below 1, and one
bad input of each kind.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_support, expect_tokens_in_range
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.refusals import BadCall, expect_calls_refused

from . import frozen46
from .checks46 import check_draws, check_penalized, check_penalties_first, draws_of
from .diagnoses import MISTAKES, REFUSALS

DRAWS = 600
CONTRACT_DRAWS = 60

BUDGET = BudgetDeclaration(fit=2) + generator_contract_budget(2)


def test_tiny_square_batch(sub, ctx):
    """apply_penalties: four rows of four tokens, padding 9, per-row tensors, -inf and 0 logits

    zh: apply_penalties：四行四个 token、以 9 补齐、按行参数张量、-inf 与 0 的 logit
    """
    expected = torch.tensor(frozen46.SQUARE_ANSWER, dtype=torch.float64)
    check_penalized(
        sub, ctx, frozen46.square_batch(), expected, what="apply_penalties(square batch)", scale=frozen46.SQUARE_SCALE
    )


def test_tiny_sampler(sub, ctx):
    """sample_with_penalties: 600 draws of two rows (temperature 0.5 with top-k 4, temperature 1.5) fit

    zh: sample_with_penalties：两行（温度 0.5 加 top-k 4、温度 1.5）各 600 次抽样服从目标分布
    """
    call = frozen46.sampler_rows()
    expected = torch.tensor(frozen46.SAMPLER_PENALIZED, dtype=torch.float64)
    check_penalties_first(sub, ctx, call, expected, what="apply_penalties(two rows)", scale=frozen46.SAMPLER_SCALE)
    draws = draws_of(sub, ctx, call, DRAWS, generator=ctx.generator())
    check_draws(
        ctx,
        draws,
        torch.tensor(frozen46.SAMPLER_PROBS, dtype=torch.float64),
        what="sample_with_penalties(two rows)",
        alternatives=lambda: {
            MISTAKES["penalties_after_temperature"]: torch.tensor(frozen46.AFTER_TEMPERATURE_PROBS, dtype=torch.float64)
        },
    )


def test_tiny_generator(sub, ctx):
    """sample_with_penalties: the seed decides, the stream advances, generator=None uses torch's default generator

    zh: sample_with_penalties：种子决定结果，随机数流向前推进，generator=None 时使用 torch 的默认生成器
    """
    call = frozen46.sampler_rows()

    def draw(source, generator):
        return draws_of(source, ctx, call, CONTRACT_DRAWS, generator=generator)

    expect_generator_contract(
        sub, ctx, draw, torch.tensor(frozen46.SAMPLER_PROBS, dtype=torch.float64), label="sample_with_penalties"
    )


def test_tiny_extremes(sub, ctx):
    """sample_with_penalties: every place the code draws random numbers copes with 0.0 and the largest float below 1

    zh: sample_with_penalties：代码中每一处抽随机数的地方都能处理 0.0 与小于 1 的最大浮点数
    """
    # The two sampler rows, then the worked example with top_k=2, whose token 0 (first in the cumulative sum) is out.
    worked = {
        "logits": torch.tensor([[2.0, 0.5, -1.0, 0.0, 1.0]]),
        "prev_tokens": torch.tensor([[0, 2, 0, 3, -1, -1]]),
        "repetition_penalty": 2.0,
        "frequency_penalty": 0.5,
        "presence_penalty": 0.25,
        "top_k": 2,
    }
    for call, probs in (
        (frozen46.sampler_rows(), torch.tensor(frozen46.SAMPLER_PROBS, dtype=torch.float64)),
        (worked, torch.tensor([[0.0, 0.4, 0.0, 0.0, 0.6]], dtype=torch.float64)),  # only its zeros matter here
    ):
        rows, vocab = probs.shape

        def run(source, generator, call=call):
            return source.sample_with_penalties(**call, num_samples=50, generator=generator)

        def check(value, what, probs=probs, rows=rows, vocab=vocab):
            draws = expect_tensor(value, name=what, shape=(rows, 50), dtype=torch.int64, device=ctx.device)
            expect_tokens_in_range(draws, vocab, what=what)
            expect_support(draws, probs, what=what, why_excluded=lambda r, t: f"row {r}: token {t} has probability 0")

        expect_every_draw_site(sub, ctx, run, check, label="sample_with_penalties")


def test_tiny_bad_inputs(sub, ctx):
    """one bad input of each kind raises ValueError (an id past V, pad_id V - 1, NaN penalties, a [B, 1] tensor, ...)

    zh: 每种非法输入各举一例，都抛出 ValueError（超出 V 的 id、pad_id 为 V - 1、NaN 惩罚、[B, 1] 的张量等）
    """
    good = frozen46.square_batch()
    nan = float("nan")
    bad = [
        (
            "prev_tokens holding 4 (V = 4, pad_id = 9)",
            {"prev_tokens": torch.tensor([[3, 4, 2, 9, 1]] * 4)},
            REFUSALS["token_range"],
        ),
        (
            "pad_id = 3 (V - 1), the padding written as 3",
            {"pad_id": 3, "prev_tokens": torch.tensor([[3, 3, 2, 3, 1], [1, 0, 3, 3, 3], [2, 2, 2, 1, 3], [3] * 5])},
            REFUSALS["pad_id"],
        ),
        ("repetition_penalty = -1", {"repetition_penalty": -1.0}, REFUSALS["repetition_penalty"]),
        ("frequency_penalty = NaN", {"frequency_penalty": nan}, REFUSALS["openai_penalty"]),
        ("presence_penalty = inf", {"presence_penalty": float("inf")}, REFUSALS["openai_penalty"]),
        (
            "a repetition_penalty tensor of shape [4, 1]",
            {"repetition_penalty": torch.full((4, 1), 1.5)},
            REFUSALS["parameter_shape"],
        ),
        ("prev_tokens of 3 rows for 4", {"prev_tokens": torch.tensor([[1, 2]] * 3)}, REFUSALS["prev_tokens"]),
        ("float32 prev_tokens", {"prev_tokens": torch.tensor([[1.0, 2.0]] * 4)}, REFUSALS["prev_tokens"]),
        ("NaN logits", {"logits": torch.tensor([[nan, 0.0, 0.0, 0.0]] * 4)}, REFUSALS["logits"]),
    ]
    calls = [
        BadCall(sub.apply_penalties, f"apply_penalties() with {what}", kwargs=good | change, diagnosis=diagnosis)
        for what, change, diagnosis in bad
    ]
    calls.append(
        BadCall(
            sub.sample_with_penalties,
            "sample_with_penalties() with top_p = 0",
            kwargs=good | {"top_p": 0.0, "generator": ctx.generator()},
            diagnosis=REFUSALS["sampler"],
        )
    )
    expect_calls_refused(calls)
