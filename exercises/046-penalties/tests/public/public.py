"""Public tests of exercise 46: the statement's worked example and a few small calls a learner can read.

The expected values are written out (the statement's formulas, worked by hand); the hidden tests
compute theirs with the oracle, and tests/exercises/test_046_penalties.py checks these against it.
"""

from __future__ import annotations

import math

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.refusals import BadCall, expect_calls_refused

from .checks46 import check_draws, check_penalized, check_penalties_first, draws_of
from .diagnoses import MISTAKES, REFUSALS

BUDGET = BudgetDeclaration(fit=2)

NEG_INF = float("-inf")
DRAWS = 2_000


def worked_example() -> dict:
    """The statement's example: one row, padding -1, repetition 2, frequency 0.5, presence 0.25."""
    return {
        "logits": torch.tensor([[2.0, 0.5, -1.0, 0.0, 1.0]], dtype=torch.float64),
        "prev_tokens": torch.tensor([[0, 2, 0, 3, -1, -1]]),
        "repetition_penalty": 2.0,
        "frequency_penalty": 0.5,
        "presence_penalty": 0.25,
        "pad_id": -1,
    }


WORKED_ANSWER = [[-0.25, 0.5, -2.75, -0.75, 1.0]]


def per_row_example() -> dict:
    """Three rows of three tokens (float32), padding 3 (= V), per-row repetition and frequency tensors: row 1
    is all padding (nothing seen), row 0 has a logit of exactly 0 that it never saw, row 1 a -inf."""
    return {
        "logits": torch.tensor([[1.5, -0.5, 0.0], [-2.0, 3.0, NEG_INF], [0.25, 0.75, -1.25]]),
        "prev_tokens": torch.tensor([[0, 0, 1, 3], [3, 3, 3, 3], [2, 1, 3, 1]]),
        "repetition_penalty": torch.tensor([1.5, 2.0, 1.25]),
        "frequency_penalty": torch.tensor([0.5, 1.0, -0.25]),
        "presence_penalty": 0.5,
        "pad_id": 3,
    }


# Row 0: token 0 seen twice, 1.5 / 1.5 - 2 * 0.5 - 0.5; token 1 once, -0.5 * 1.5 - 0.5 - 0.5.
# Row 2: token 1 twice, 0.75 / 1.25 + 2 * 0.25 - 0.5; token 2 once, -1.25 * 1.25 + 0.25 - 0.5.
PER_ROW_ANSWER = [[-0.5, -1.75, 0.0], [-2.0, 3.0, NEG_INF], [0.25, 0.6, -1.8125]]


def greedy_example() -> dict:
    """One float64 row whose largest logit, token 2, is seen twice: the penalties hand the maximum to token 4."""
    return {
        "logits": torch.tensor([[0.5, -1.0, 2.0, 0.0, 1.0]], dtype=torch.float64),
        "prev_tokens": torch.tensor([[2, 2, 1, -1]]),
        "repetition_penalty": 2.0,
        "frequency_penalty": 0.5,
        "presence_penalty": 0.25,
    }


# Token 2: 2.0 / 2 - 2 * 0.5 - 0.25; token 1: -1.0 * 2 - 0.5 - 0.25.
GREEDY_ANSWER = [[0.5, -2.75, -0.25, 0.0, 1.0]]


def test_worked_example(sub, ctx):
    """apply_penalties on the statement's worked example gives [-0.25, 0.5, -2.75, -0.75, 1.0]

    zh: apply_penalties 在题面例子上得到 [-0.25, 0.5, -2.75, -0.75, 1.0]
    """
    expected = torch.tensor(WORKED_ANSWER, dtype=torch.float64)
    check_penalized(sub, ctx, worked_example(), expected, what="apply_penalties(worked example)", scale=5.25)


def test_per_row_parameters(sub, ctx):
    """apply_penalties with per-row tensors, padding id V, a row of padding only and a -inf logit

    zh: apply_penalties：按行参数张量、以 V 作为补齐 id、整行都是补齐、以及 -inf 的 logit
    """
    expected = torch.tensor(PER_ROW_ANSWER, dtype=torch.float64)
    check_penalized(sub, ctx, per_row_example(), expected, what="apply_penalties(three rows, pad_id=3)", scale=7.0)


def _softmax(logits: list[float]) -> list[float]:
    top = max(logits)
    weights = [math.exp(x - top) if x != NEG_INF else 0.0 for x in logits]
    return [w / sum(weights) for w in weights]


def test_sampler_worked_example(sub, ctx):
    """sample_with_penalties on the worked example: top_k=2 keeps tokens 4 and 1; temperature 0.5 divides the penalized logits

    zh: sample_with_penalties 在题面例子上：top_k=2 只留下 token 4 和 1；温度 0.5 去除的是惩罚后的 logits
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    call = worked_example()
    call["logits"] = torch.cat([call["logits"], call["logits"]])
    call["prev_tokens"] = torch.cat([call["prev_tokens"], call["prev_tokens"]])
    call["top_k"] = torch.tensor([2.0, 0.0])
    call["temperature"] = torch.tensor([1.0, 0.5])
    penalized = WORKED_ANSWER[0]
    # Row 0: softmax of the penalized logits 0.5 and 1.0 (tokens 1 and 4). Row 1: softmax(penalized / 0.5).
    top2 = _softmax([NEG_INF, 0.5, NEG_INF, NEG_INF, 1.0])
    hot = _softmax([z / 0.5 for z in penalized])
    # The mistake: the penalties applied to logits / 0.5 = [4, 1, -2, 0, 2] (4 / 2 - 1 - 0.25, ...).
    after_temperature = _softmax([0.75, 1.0, -4.75, -0.75, 2.0])
    probs = torch.tensor([top2, hot], dtype=torch.float64)
    expected = torch.tensor(WORKED_ANSWER * 2, dtype=torch.float64)
    check_penalties_first(sub, ctx, call, expected, what="apply_penalties(worked example, twice)", scale=5.25)
    draws = draws_of(sub, ctx, call, DRAWS, generator=ctx.generator())
    check_draws(
        ctx,
        draws,
        probs,
        what="sample_with_penalties(worked example)",
        alternatives=lambda: {
            MISTAKES["penalties_after_temperature"]: torch.tensor([top2, after_temperature], dtype=torch.float64)
        },
    )


def test_sampler_greedy(sub, ctx):
    """sample_with_penalties with temperature 0 always returns token 4, the largest penalized logit (not token 2)

    zh: sample_with_penalties 在温度为 0 时总是返回 token 4，即惩罚后最大的 logit（而不是 token 2）
    """
    call = greedy_example() | {"temperature": 0.0}
    expected = torch.tensor(GREEDY_ANSWER, dtype=torch.float64)
    check_penalties_first(sub, ctx, call, expected, what="apply_penalties(greedy example)", scale=5.25)
    draws = draws_of(sub, ctx, call, 50, generator=ctx.generator())
    greedy = torch.tensor([[0.0, 0.0, 0.0, 0.0, 1.0]], dtype=torch.float64)
    raw = torch.tensor([[0.0, 0.0, 1.0, 0.0, 0.0]], dtype=torch.float64)
    check_draws(
        ctx,
        draws,
        greedy,
        what="sample_with_penalties(greedy example, temperature=0)",
        alternatives=lambda: {MISTAKES["greedy_raw_logits"]: raw},
    )


def test_bad_inputs(sub, ctx):
    """pad_id 0 (a vocabulary id), a token id 7 outside the vocabulary, repetition_penalty 0: ValueError

    zh: pad_id 为 0（词表中的 id）、token id 7 超出词表、repetition_penalty 为 0：抛出 ValueError
    """
    good = worked_example()
    pad_zero = torch.tensor([[0, 2, 0, 3, 0, 0]])  # every id now in the vocabulary: only pad_id is wrong
    calls = [
        BadCall(
            sub.apply_penalties,
            "apply_penalties(pad_id=0, the padding written as 0)",
            kwargs=good | {"pad_id": 0, "prev_tokens": pad_zero},
            diagnosis=REFUSALS["pad_id"],
        ),
        BadCall(
            sub.apply_penalties,
            "apply_penalties(prev_tokens holding 7, V = 5)",
            kwargs=good | {"prev_tokens": torch.tensor([[0, 2, 7, 3, -1, -1]])},
            diagnosis=REFUSALS["token_range"],
        ),
        BadCall(
            sub.apply_penalties,
            "apply_penalties(repetition_penalty=0)",
            kwargs=good | {"repetition_penalty": 0.0},
            diagnosis=REFUSALS["repetition_penalty"],
        ),
        BadCall(
            sub.sample_with_penalties,
            "sample_with_penalties(pad_id=0, the padding written as 0)",
            kwargs=good | {"pad_id": 0, "prev_tokens": pad_zero, "generator": ctx.generator()},
            diagnosis=REFUSALS["pad_id"],
        ),
    ]
    expect_calls_refused(calls)
