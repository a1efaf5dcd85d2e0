"""Public tests of exercise 48: the statement's worked example, the same requests in other batches, and
a few invalid inputs.

The hidden tests check the same rules on larger batches, greedy ties, both dtypes, the randomness
contract (other seeds, offsets, collisions, the global generator) with statistical tests, and every
refusal of the statement.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_support
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.refusals import BadInput, expect_bad_inputs_refused
from judge.i18n import Bilingual

from .diagnoses import MISTAKES
from .evidence48 import reproducing

BUDGET = BudgetDeclaration()

NEG_INF = float("-inf")
# The statement's worked example.
LOGITS = [[2.0, 1.0, 0.5, 0.0], [2.0, 1.0, 0.5, 0.0], [1.0, 1.0, 0.0, NEG_INF]]
PARAMETERS = {
    "temperature": [1.0, 0.0, 0.5],
    "top_k": [2, 0, 0],
    "top_p": [1.0, 1.0, 0.9],
}
SEEDS = [7, 7, 7]
OFFSETS = [0, 0, 1]
# log q of every token of each row (the processed distribution), and what the known mistakes of the
# log-probability give instead (tests/exercises/test_048_batched_sampler.py holds them to the oracle).
LOG_Q = [
    [-0.3132616875182228, -1.3132616875182228, NEG_INF, NEG_INF],
    [0.0, NEG_INF, NEG_INF, NEG_INF],
    [-0.6931471805599453, -0.6931471805599453, NEG_INF, NEG_INF],
]
MISTAKEN_LOG_Q = {
    "row0_parameters": [
        [-0.3132616875182228, -1.3132616875182228, NEG_INF, NEG_INF],
        [-0.3132616875182228, -1.3132616875182228, NEG_INF, NEG_INF],
        [-0.6931471805599453, -0.6931471805599453, NEG_INF, NEG_INF],
    ],
    "raw_logprob": [
        [-0.5460063899405724, -1.5460063899405723, -2.0460063899405725, -2.5460063899405725],
        [-0.5460063899405724, -1.5460063899405723, -2.0460063899405725, -2.5460063899405725],
        [-0.8619948040582511, -0.8619948040582511, -1.861994804058251, NEG_INF],
    ],
    "logprob_before_filters": [
        [-0.5460063899405724, -1.5460063899405723, -2.0460063899405725, -2.5460063899405725],
        [-0.5460063899405724, -1.5460063899405723, -2.0460063899405725, -2.5460063899405725],
        [-0.7586236756795135, -0.7586236756795135, -2.7586236756795133, NEG_INF],
    ],
}


def _example(rows: list[int]) -> dict:
    index = torch.tensor(rows)
    return {
        "logits": torch.tensor(LOGITS)[index],
        "seeds": torch.tensor(SEEDS)[index],
        "offsets": torch.tensor(OFFSETS)[index],
        "temperature": torch.tensor(PARAMETERS["temperature"])[index],
        "top_k": torch.tensor(PARAMETERS["top_k"])[index],
        "top_p": torch.tensor(PARAMETERS["top_p"])[index],
    }


def _tokens(sub, ctx, rows: list[int], what: str):
    value = sub.sample_batch(**_example(rows))
    expect(
        isinstance(value, (tuple, list)) and len(value) == 2,
        f"{what}: sample_batch must return a pair (tokens, logprobs), got {type(value).__name__}",
        rule=Bilingual("did not return a pair (tokens, logprobs)", "返回的不是一对值 (tokens, logprobs)"),
        kind="structural",
    )
    tokens = expect_tensor(value[0], name=f"{what}: tokens", shape=(len(rows),), dtype=torch.int64, device=ctx.device)
    logprobs = expect_tensor(
        value[1], name=f"{what}: logprobs", shape=(len(rows),), dtype=torch.float32, device=ctx.device
    )
    log_q = torch.tensor(LOG_Q, dtype=torch.float64)[torch.tensor(rows)]
    index = torch.tensor(rows)
    expect_support(
        tokens.unsqueeze(1),
        log_q.exp(),
        what=f"{what}: tokens",
        why_excluded=lambda row, token: "its probability in the row's processed distribution is 0",
        # every row with the first row's parameters draws from another distribution (row 1 is no longer greedy)
        alternatives=lambda: {
            MISTAKES["row0_parameters"]: torch.tensor(MISTAKEN_LOG_Q["row0_parameters"], dtype=torch.float64)[
                index
            ].exp()
        },
    )
    return tokens, logprobs


def test_worked_example(sub, ctx):
    """the worked example: row 1 is greedy (token 0, log-probability 0), rows 0 and 2 give log q of their token

    zh: 题面示例：第 1 行是贪心（token 0，对数概率 0），第 0、2 行给出所抽 token 的 log q
    """
    tokens, logprobs = _tokens(sub, ctx, [0, 1, 2], "sample_batch(worked example)")
    expect(
        int(tokens[1]) == 0,
        f"sample_batch(worked example): row 1 is greedy (temperature 0), so its token must be 0, got {int(tokens[1])}",
        rule=Bilingual("the greedy row did not return its argmax", "贪心行没有返回 argmax"),
        kind="value",
    )
    chosen = tokens.unsqueeze(1)
    expected = torch.tensor(LOG_Q, dtype=torch.float64).gather(1, chosen).squeeze(1)
    expect_close(
        logprobs.to(torch.float64),
        expected,
        rtol=1e-4,
        atol=1e-4,
        what="sample_batch(worked example): logprobs",
        per_row=True,
        mistakes=reproducing(
            lambda: {
                MISTAKES[name]: torch.tensor(table, dtype=torch.float64).gather(1, chosen).squeeze(1)
                for name, table in MISTAKEN_LOG_Q.items()
            },
            logprobs,
            1e-4 + 1e-4 * expected.abs(),
        ),
    )


def test_same_request_same_token(sub, ctx):
    """the worked example's requests reordered, row 0 twice, row 2 alone: each request keeps its token

    zh: 题面示例的请求打乱顺序、第 0 行放两份、第 2 行单独调用：每个请求的 token 都不变
    """
    tokens, _ = _tokens(sub, ctx, [0, 1, 2], "sample_batch(worked example)")
    for rows in ([2, 0, 1], [0, 0, 1, 2], [2]):
        what = f"sample_batch(worked example, rows {rows})"
        again, _ = _tokens(sub, ctx, rows, what)
        expect(
            torch.equal(again, tokens[torch.tensor(rows)]),
            f"{what}: got tokens {again.tolist()}, but these requests got {tokens[torch.tensor(rows)].tolist()} in the "
            "worked example's batch; a request's token must depend only on its own inputs, seed and offset",
            rule=Bilingual("a request's token changed with the batch around it", "请求的 token 随所在批的组成而改变"),
            kind="value",
        )


def test_bad_inputs(sub, ctx):
    """seeds or offsets negative, of another dtype or shape, and a negative temperature raise ValueError

    zh: seeds 或 offsets 为负数、dtype 或形状不对，以及负的 temperature，都抛出 ValueError
    """
    good = _example([0, 1, 2])
    expect_bad_inputs_refused(
        sub.sample_batch,
        [
            BadInput("seeds = [7, -1, 7]", {**good, "seeds": torch.tensor([7, -1, 7])}),
            BadInput("offsets = [0.0, 0.0, 1.0] (float)", {**good, "offsets": torch.tensor([0.0, 0.0, 1.0])}),
            BadInput("seeds of dtype int32", {**good, "seeds": torch.tensor([7, 7, 7], dtype=torch.int32)}),
            BadInput("seeds of shape [3, 1]", {**good, "seeds": torch.tensor([[7], [7], [7]])}),
            BadInput("offsets of length 2", {**good, "offsets": torch.tensor([0, 0])}),
            BadInput("temperature = -1.0", {**good, "temperature": -1.0}),
        ],
        name="sample_batch",
    )


def test_top_k_ties(sub, ctx):
    """logits [1, 1, 1, 0] with top_k = 2: the three tied tokens all stay, each with log-probability log(1/3)

    zh: logits [1, 1, 1, 0]、top_k = 2：三个并列的 token 都保留，对数概率各为 log(1/3)
    """
    value = sub.sample_batch(
        torch.tensor([[1.0, 1.0, 1.0, 0.0]] * 4), torch.tensor([1, 2, 3, 4]), torch.tensor([0, 0, 0, 0]), top_k=2
    )
    expect(isinstance(value, (tuple, list)) and len(value) == 2, "sample_batch must return a pair", kind="structural")
    logprobs = expect_tensor(value[1], name="logprobs", shape=(4,), dtype=torch.float32, device=ctx.device)
    expect_close(
        logprobs.to(torch.float64),
        torch.full((4,), -1.0986122886681098, dtype=torch.float64),
        rtol=1e-4,
        atol=1e-4,
        what="sample_batch(logits [1, 1, 1, 0], top_k=2): logprobs (tokens tied with the 2nd largest stay)",
        per_row=True,
    )
