"""Hidden tests of exercise 46. Never shown to learners; run in the judge's process only.

``apply_penalties`` against the exact float64 answer of the oracle (frozen square batches in float32 and
float64, then calls generated under the case's seed, square ones included), naming the known mistake
whose output matches; ``sample_with_penalties`` by its draws: the support and a fit per row of a batch
whose rows differ in temperature and filters (the penalties after the temperature differ there), greedy
rows where the penalties move the maximum, independence within a row and across rows, the generator
contract, extreme uniform values at every draw site; last, every bad input the statement names
(generated from the contract, ``specs.py``) and the legal corners it allows. Sizes and power:
benchmarks/power_046.py.
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import expect_contract_accepts
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_support, expect_tokens_in_range
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.independence import expect_independent_across_rows, expect_independent_within_row
from judge.checks.refusals import expect_calls_refused
from judge.checks.testing import lane_weight

from ..public.checks46 import (
    APPLY_PARAMS,
    check_draws,
    check_penalized,
    check_penalties_first,
    draws_of,
    judge_penalized,
)
from ..public.diagnoses import MISTAKES
from . import cases, oracle, specs

SAMPLER_DRAWS = 4_000
GREEDY_DRAWS = 200
CONTRACT_DRAWS = 300
PAIR_DRAWS = 4_000
DEFAULT_ROWS = 3_000
NEG_INF = float("-inf")

INDEPENDENCE_FITS = (0, 1, 4)
CONTRACT_FITS = (0, 1)

# fit: five sampler rows, two rows beside greedy ones, two filter-order rows, the defaults' pooled draws, the tie
# row, and the
# rows fitted before the independence and generator checks (a wrong distribution is not named as a dependence).
BUDGET = BudgetDeclaration(
    fit=5 + 2 + 2 + 1 + 1 + len(INDEPENDENCE_FITS) + len(CONTRACT_FITS), pairs=2
) + generator_contract_budget(5, positions=True)


def _check_call(sub, ctx, call: dict, what: str) -> None:
    check_penalized(sub, ctx, call, oracle.penalized(call), what=what, scale=oracle.scale(call))


def _penalties_first(sub, ctx, call: dict, what: str) -> None:
    """The sampler call's penalties judged on their own first (see ``check_penalties_first``)."""
    own = {k: v for k, v in call.items() if k in APPLY_PARAMS}
    check_penalties_first(sub, ctx, call, oracle.penalized(own), what=what, scale=oracle.scale(own))


def test_frozen_float32(sub, ctx):
    """apply_penalties: a float32 batch of 12 rows, 12 tokens and 16 previous tokens each (padding -1)

    zh: apply_penalties：12 行的 float32 批，每行 12 个 token、16 个历史 token（以 -1 补齐）
    """
    _check_call(sub, ctx, cases.frozen_batch(torch.float32), "apply_penalties on a float32 batch")


def test_frozen_float64(sub, ctx):
    """apply_penalties: a float64 batch of 12 rows, 12 tokens and 16 previous tokens each (padding V)

    zh: apply_penalties：12 行的 float64 批，每行 12 个 token、16 个历史 token（以 V 补齐）
    """
    _check_call(sub, ctx, cases.frozen_batch(torch.float64), "apply_penalties on a float64 batch")


@lane_weight(7)
def test_generated(sub, ctx):
    """apply_penalties on generated batches: both dtypes, any padding id, empty history, square batches

    zh: apply_penalties 在随机生成的批上：两种 dtype、各种补齐 id、空的历史、B = V 的批
    """
    rng = random.Random(ctx.fresh_seed("generated"))
    for k in range(12):
        dtype = (torch.float32, torch.float64)[k % 2]
        call = cases.generated_call(rng, dtype, square=k >= 8)
        _check_call(sub, ctx, call, f"apply_penalties on a generated {str(dtype).removeprefix('torch.')} batch")


def _sampler_alternatives(call: dict):
    return lambda: {MISTAKES["penalties_after_temperature"]: oracle.sampler_probs(call, after_temperature=True)}


def test_sampler_rows(sub, ctx):
    """sample_with_penalties: five rows of different temperatures and filters follow their targets

    zh: sample_with_penalties：温度和过滤参数各不相同的五行都服从各自的目标分布
    """
    call = cases.sampler_batch()
    _penalties_first(sub, ctx, call, "apply_penalties on the five sampler rows")
    draws = draws_of(sub, ctx, call, SAMPLER_DRAWS, generator=ctx.generator())
    check_draws(
        ctx,
        draws,
        oracle.sampler_probs(call),
        what="sample_with_penalties on five rows",
        alternatives=_sampler_alternatives(call),
    )


def test_sampler_greedy(sub, ctx):
    """sample_with_penalties: greedy rows take the largest penalized logit; sampling rows beside them fit

    zh: sample_with_penalties：贪心的行取惩罚后最大的 logit；旁边采样的行服从各自的分布
    """
    call = cases.greedy_batch()
    _penalties_first(sub, ctx, call, "apply_penalties on the greedy rows")
    draws = draws_of(sub, ctx, call, GREEDY_DRAWS, generator=ctx.generator())
    raw = oracle.sampler_probs(call, penalize=False)
    probs = oracle.sampler_probs(call)
    greedy = call["temperature"] == 0
    mistaken = torch.where(greedy.unsqueeze(1), raw, probs)
    check_draws(
        ctx,
        draws,
        probs,
        what="sample_with_penalties with greedy rows",
        alternatives=lambda: {MISTAKES["greedy_raw_logits"]: mistaken},
    )


def test_greedy_tie(sub, ctx):
    """sample_with_penalties: temperature 0 where the penalty ties two logits returns the lower index

    zh: sample_with_penalties：温度为 0 且惩罚使两个 logit 相等时，返回下标较小的那个
    """
    # Row 0: token 1's 2.5 / 1.25 - 2 * 0.5 = 1.0 ties token 0 (exact in float32): token 0. Row 1: token 2.
    call = {
        "logits": torch.tensor([[1.0, 2.5, 0.2], [3.0, 0.5, 3.0]]),
        "prev_tokens": torch.tensor([[1, 1, -1], [0, -1, -1]]),
        "repetition_penalty": 1.25,
        "frequency_penalty": 0.5,
        "temperature": 0.0,
    }
    draws = draws_of(sub, ctx, call, 20, generator=ctx.generator())
    check_draws(ctx, draws, oracle.sampler_probs(call), what="sample_with_penalties(temperature=0, a tie)")


def test_huge_logits(sub, ctx):
    """sample_with_penalties: float32 logits near the largest float, penalized, never overflow

    zh: sample_with_penalties：接近最大浮点数的 float32 logits 在惩罚后也不会溢出
    """
    call = {
        "logits": torch.tensor([[3.0e38, -3.0e38, 1.0e38, 2.5e38], [1.0, 3.2e38, NEG_INF, 3.0e38]]),
        "prev_tokens": torch.tensor([[0, 2, -1], [1, -1, -1]]),
        "repetition_penalty": 1.5,
        "temperature": torch.tensor([1.0, 0.5]),
    }
    draws = draws_of(sub, ctx, call, 20, generator=ctx.generator())
    check_draws(ctx, draws, oracle.sampler_probs(call), what="sample_with_penalties on logits near 3.4e38")


def test_filter_order(sub, ctx):
    """sample_with_penalties: top-k renormalizes before top-p; min-p is relative to the row's own maximum

    zh: sample_with_penalties：top-k 之后先重新归一化再做 top-p；min-p 相对于本行自己的最大值
    """
    call = cases.filter_order_rows()
    draws = draws_of(sub, ctx, call, SAMPLER_DRAWS, generator=ctx.generator())
    check_draws(ctx, draws, oracle.sampler_probs(call), what="sample_with_penalties, filters in order")


def test_top_k_tie_and_min_p(sub, ctx):
    """sample_with_penalties: a tie the penalty makes at the k-th token stays; min-p follows top-k's renormalization

    zh: sample_with_penalties：惩罚造成的与第 k 个并列的 token 保留；min-p 基于 top-k 重新归一化后的分布
    """
    call = cases.tie_and_min_p_rows()
    draws = draws_of(sub, ctx, call, SAMPLER_DRAWS, generator=ctx.generator())
    check_draws(ctx, draws, oracle.sampler_probs(call), what="sample_with_penalties, a top-k tie and min-p")


def test_defaults(sub, ctx):
    """apply_penalties and sample_with_penalties with every optional argument left at its default

    zh: apply_penalties 与 sample_with_penalties：所有可选参数都取默认值
    """
    call = cases.default_rows(4)
    expected = call["logits"].to(torch.float64)
    check_penalized(sub, ctx, call, expected, what="apply_penalties(logits, prev_tokens)", scale=5.0)
    call = cases.default_rows(DEFAULT_ROWS)
    value = sub.sample_with_penalties(**call, generator=ctx.generator())
    draws = expect_tensor(
        value, name="sample_with_penalties", shape=(DEFAULT_ROWS, 1), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(draws, 5, what="sample_with_penalties")
    probs = torch.softmax(call["logits"][0].to(torch.float64), dim=0)
    expect_distribution(ctx, draws[:, 0], probs, label="sample_with_penalties(logits, prev_tokens), one draw per row")


def test_independence(sub, ctx):
    """sample_with_penalties: draws of a row are independent of each other and of another row's

    zh: sample_with_penalties：同一行的各次抽样相互独立，也与另一行的抽样独立
    """
    call = cases.sampler_batch()
    probs = oracle.sampler_probs(call)
    draws = draws_of(sub, ctx, call, PAIR_DRAWS, generator=ctx.generator())
    # The rows' own fits first: a wrong distribution fails here, unnamed, not as a dependence below.
    check_draws(ctx, draws, probs, what="sample_with_penalties on five rows", fits=INDEPENDENCE_FITS)
    expect_independent_within_row(ctx, draws[0], probs[0], label="sample_with_penalties, row 0")
    expect_independent_across_rows(
        ctx, draws[1], draws[4], probs[1], probs[4], label="sample_with_penalties, rows 1 and 4"
    )


@lane_weight(4)
def test_generator_contract(sub, ctx):
    """sample_with_penalties: the generator decides the draws and advances; rows wherever they stand

    zh: sample_with_penalties：抽样由 generator 决定、每次调用接着往下抽；每行的结果与它在批中的位置无关
    """
    call = cases.sampler_batch()
    probs = oracle.sampler_probs(call)

    # Two rows' fits first: a wrong distribution (greedy everywhere, say) fails here, unnamed, not as a
    # generator that decides nothing.
    draws = draws_of(sub, ctx, call, PAIR_DRAWS, generator=ctx.generator())
    check_draws(ctx, draws, probs, what="sample_with_penalties on five rows", fits=CONTRACT_FITS)

    def draw(source, generator, rows=None):
        picked = call if rows is None else _rows_of(call, rows)
        return draws_of(source, ctx, picked, CONTRACT_DRAWS, generator=generator)

    expect_generator_contract(sub, ctx, draw, probs, label="sample_with_penalties", positions=True)


def _rows_of(call: dict, rows: list[int]) -> dict:
    index = torch.tensor(rows)
    return {k: v[index] if isinstance(v, torch.Tensor) else v for k, v in call.items()}


@lane_weight(2)
def test_extreme_uniforms(sub, ctx):
    """sample_with_penalties: every place the code draws random numbers copes with 0.0 and the largest float below 1

    zh: sample_with_penalties：代码中每一处抽随机数的地方都能处理 0.0 与小于 1 的最大浮点数
    """
    # The five sampler rows, then rows whose first and last tokens are filtered out (probability 0 at both ends of
    # the cumulative sum: u = 0 and u just below 1 must still land on a kept token).
    for call in (cases.sampler_batch(), cases.tie_and_min_p_rows()):
        probs = oracle.sampler_probs(call)
        rows, vocab = probs.shape

        def run(source, generator, call=call):
            return source.sample_with_penalties(**call, num_samples=200, generator=generator)

        def check(value, what, probs=probs, rows=rows, vocab=vocab):
            draws = expect_tensor(value, name=what, shape=(rows, 200), dtype=torch.int64, device=ctx.device)
            expect_tokens_in_range(draws, vocab, what=what)
            expect_support(draws, probs, what=what, why_excluded=lambda r, t: f"row {r}: token {t} has probability 0")

        expect_every_draw_site(sub, ctx, run, check, label="sample_with_penalties")


@lane_weight(53)
def test_generated_refusals(sub, ctx):
    """Every bad input the statement names, generated from good calls, raises ValueError

    zh: 按题面生成的各种非法输入都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("contract refusals"))
    calls = specs.refusal_calls(
        sub.apply_penalties, "apply_penalties", specs.good_apply(rng), specs.APPLY_ARGUMENTS, rng
    )
    calls += specs.refusal_calls(
        sub.sample_with_penalties,
        "sample_with_penalties",
        specs.good_sample(rng),
        specs.SAMPLE_ARGUMENTS,
        rng,
        extra=lambda: {"generator": ctx.generator()},
    )
    expect_calls_refused(calls)


@lane_weight(43)
def test_generated_corners(sub, ctx):
    """The legal corners of the contract are accepted and answered right (B = 1, L = 1, ids 0 and V - 1, numbers or tensors, ...)

    zh: 题面允许的各种边角输入都被接受并给出正确结果（B = 1、L = 1、id 0 与 V - 1、数或张量等）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("contract corners"))

    def check_apply(value, variant):
        call = variant.kwargs
        judge_penalized(ctx, call, value, oracle.penalized(call), what=str(variant.public), scale=oracle.scale(call))

    expect_contract_accepts(
        sub.apply_penalties, ctx, good=specs.good_apply(rng), arguments=specs.APPLY_ARGUMENTS, check=check_apply
    )

    def check_sample(value, variant):
        call = variant.kwargs
        rows, vocab = call["logits"].shape
        draws = expect_tensor(
            value, name=str(variant.public), shape=(rows, call["num_samples"]), dtype=torch.int64, device=ctx.device
        )
        expect_tokens_in_range(draws, vocab, what=str(variant.public))
        try:
            probs = oracle.sampler_probs(call)
        except oracle.AmbiguousCase:
            return  # a corner whose cut sits near its threshold: either side is right
        expect_support(
            draws, probs, what=str(variant.public), why_excluded=lambda r, t: f"row {r}: token {t} has probability 0"
        )

    expect_contract_accepts(
        sub.sample_with_penalties,
        ctx,
        good=specs.good_sample(rng),
        arguments=specs.SAMPLE_ARGUMENTS,
        check=check_sample,
        extra=lambda: {"generator": ctx.generator()},
    )
