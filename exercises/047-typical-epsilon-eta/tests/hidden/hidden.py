"""Hidden tests of exercise 47. Never shown to learners; run in the judge's process only.

First ``truncated_probs`` against the exact float64 target: the frozen batches (``cases.py``: each method in
float32 and float64, greedy rows after the same rows sampled, every probability below epsilon after the same
rows with a small one), then batches generated afresh under the case's seed (``generated.py``). A known
mistake is named when it reproduces the whole output (or the worst row), or the zeros exactly. Then the
draws of ``sample_truncated``: support and goodness of fit per row, single draws, independence within a
row and across rows, the generator contract, extreme uniform values and every draw site pushed to each
extreme. Last, every bad input the statement names, generated from the contract (``specs.py``), and the
legal corners it allows. Sizes and power: benchmarks/power_047.py.
"""

from __future__ import annotations

import math
import random

import torch

from judge.checks.arguments import expect_contract_accepts, expect_contract_refusals
from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.independence import (
    expect_independent_across_rows,
    expect_independent_rows,
    expect_independent_within_row,
)
from judge.checks.refusals import expect_calls_refused
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

from ..public.checks47 import draws_of, expect_draws, expect_probs, probs_of
from ..public.diagnoses import MISTAKES
from . import cases, generated, specs
from .oracle import METHODS

NEG_INF = float("-inf")
EVERY_KIND = (Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED)
DRAWS = 20_000  # per row of the frozen batches
SINGLE_COPIES = 4_000  # one draw from each of 4 000 copies of a row: the call a decoder makes
PAIR_COPIES, PAIR_DRAWS = 200, 40  # independence: 200 copies of two rows, 40 draws each
CONTRACT_DRAWS = 200
POSITION_DRAWS = 4_000
EXTREME_DRAWS = 2_000
DRAW_SITE_DRAWS = 64


def _tiny_batch(name: str, dtype: torch.dtype, plain: bool = False) -> cases.Batch:
    rows, method, params, temperatures = cases.TINY[name]
    if plain:
        params, temperatures = cases.TINY_PLAIN[name]
    notes = [("", "")] * len(rows)
    return cases.batch(rows, method, params, temperatures, notes, dtype)


def _fit_rows(exact: torch.Tensor) -> list[int]:
    """The rows of ``exact`` with two or more tokens kept (a fit of one outcome tests nothing)."""
    return [row for row in range(exact.shape[0]) if int((exact[row] > 0).sum()) >= 2]


DRAW_BATCHES = {name: _tiny_batch(name, torch.float32) for name in ("typical", "epsilon", "eta")}
SINGLE_ROW = 0  # of the typical batch: tokens 1 and 2, half and half
CONTRACT_BATCH = cases.batch(
    [
        [0.3, -0.4, 1.5, 0.9, -1.2, 0.0],
        [1.0, 1.0, 1.0, 0.2, -0.5, -2.0],
        [-0.5, 0.6, 0.1, -1.5, 0.9, 0.4],
        [1.0, 1.0, 1.0, 0.2, -0.5, -2.0],
    ],
    "typical",
    [0.9, 0.8, 0.9, 0.8],
    [1.0, 1.0, 0.7, 1.0],
    [("", ""), ("twin of row 3", "与第 3 行相同"), ("", ""), ("twin of row 1", "与第 1 行相同")],
)
CONTRACT = generator_contract_budget(CONTRACT_BATCH.exact, positions=True, twins=(1, 3))
# The draw batches' rows, the single draws, the independence rows pooled (4) and the generator rows (4).
FITS = sum(len(_fit_rows(b.exact)) for b in DRAW_BATCHES.values()) + 1 + 4 + 4
BUDGET = BudgetDeclaration(fit=FITS, pairs=2, independence=1) + CONTRACT


def _judge_probs(sub, ctx, batch: cases.Batch, *, what: str) -> None:
    out = probs_of(sub, ctx, batch.arguments(), what=what)
    expect_probs(out, batch.exact, what=what, labels=batch.labels, mistakes=batch.mistakes)


def _judge_twist(sub, ctx, name: str, mistake: str) -> None:
    """The tiny batch ``name`` without its twist, then with it: a failure of the second call alone is
    evidence of ``mistake`` (or of the mistake whose output it reproduces)."""
    for dtype in (torch.float32, torch.float64):
        kind = str(dtype).removeprefix("torch.")
        _judge_probs(sub, ctx, _tiny_batch(name, dtype, plain=True), what=f"truncated_probs ({kind} {name} rows)")
        with diagnosed(MISTAKES[mistake], evidence=EVERY_KIND):
            _judge_probs(sub, ctx, _tiny_batch(name, dtype), what=f"truncated_probs ({kind} {name} rows)")


@lane_weight(3)
def test_typical_rows(sub, ctx):
    """truncated_probs, typical: the most likely token dropped, tie groups kept whole, tau = 1, temperatures

    zh: truncated_probs，typical：最可能的 token 被丢掉，并列的一组整体保留，tau = 1，不同温度
    """
    for dtype in (torch.float32, torch.float64):
        kind = str(dtype).removeprefix("torch.")
        _judge_probs(sub, ctx, _tiny_batch("typical", dtype), what=f"truncated_probs ({kind} typical rows)")
        _judge_probs(sub, ctx, cases.typical_rows(dtype), what=f"truncated_probs ({kind} typical rows, 8 tokens)")


def test_epsilon_rows(sub, ctx):
    """truncated_probs, epsilon: a tie at the top below epsilon, temperatures other than 1

    zh: truncated_probs，epsilon：最大概率处的并列低于 epsilon，温度不为 1
    """
    for dtype in (torch.float32, torch.float64):
        kind = str(dtype).removeprefix("torch.")
        _judge_probs(sub, ctx, _tiny_batch("epsilon", dtype), what=f"truncated_probs ({kind} epsilon rows)")


def test_eta_rows(sub, ctx):
    """truncated_probs, eta: -inf logits, the entropy of the tempered distribution

    zh: truncated_probs，eta：-inf logits，加温度之后分布的熵
    """
    for dtype in (torch.float32, torch.float64):
        kind = str(dtype).removeprefix("torch.")
        _judge_probs(sub, ctx, _tiny_batch("eta", dtype), what=f"truncated_probs ({kind} eta rows)")


def test_eta_low_entropy(sub, ctx):
    """truncated_probs, eta: peaked rows where eta itself, below sqrt(eta) exp(-H), is the threshold

    zh: truncated_probs，eta：分布很尖的行，阈值是 eta 本身（它小于 sqrt(eta) exp(-H)）
    """
    rows = [
        [math.log(0.85), math.log(0.15), math.log(0.85) - 30.0],
        [math.log(0.7), math.log(0.2), math.log(0.1)],
        [0.0, -0.2, -0.4],
    ]
    notes = [("low entropy", "低熵"), ("low entropy", "低熵"), ("high entropy", "高熵")]
    for dtype in (torch.float32, torch.float64):
        batch = cases.batch(rows, "eta", [0.1, 0.15, 0.3], [1.0, 1.0, 1.0], notes, dtype)
        kind = str(dtype).removeprefix("torch.")
        _judge_probs(sub, ctx, batch, what=f"truncated_probs ({kind} eta rows, low entropy)")


def test_greedy_rows(sub, ctx):
    """truncated_probs: temperature 0 rows are one-hot at the first largest logit, beside sampled rows

    zh: truncated_probs：温度为 0 的行是第一个最大 logit 处的 one-hot，与采样行同批
    """
    _judge_twist(sub, ctx, "greedy", "no_greedy")


def test_all_below_threshold(sub, ctx):
    """truncated_probs: every probability below epsilon, the most probable token stays

    zh: truncated_probs：所有概率都低于 epsilon 时，概率最大的 token 仍然保留
    """
    _judge_twist(sub, ctx, "above_top", "no_top_kept")


def test_huge_logits(sub, ctx):
    """truncated_probs on logits near the dtype's largest value: subtract the largest logit first

    zh: truncated_probs 作用于接近 dtype 最大值的 logits：先减去最大的 logit
    """
    for dtype, big in ((torch.float32, 3.0e38), (torch.float64, 1.5e308)):
        rows = [[big, big, -big, 0.0], [0.0, big, 0.5 * big, NEG_INF]]
        for method, param in (("typical", 0.5), ("epsilon", 0.3), ("eta", 0.2)):
            notes = [("logits near the largest value", "接近最大值的 logits")] * 2
            batch = cases.batch(rows, method, [param, param], [1.0, 0.5], notes, dtype)
            kind = str(dtype).removeprefix("torch.")
            _judge_probs(sub, ctx, batch, what=f"truncated_probs ({kind} {method} rows, huge logits)")


@lane_weight(3)
def test_generated_rows(sub, ctx):
    """truncated_probs on batches generated afresh: every method, both dtypes, ties, -inf, per-row values

    zh: truncated_probs 作用于随机生成的批：每种方法、两种 dtype、并列、-inf、逐行取值
    """
    rng = random.Random(ctx.fresh_seed("generated rows"))
    for method in METHODS:
        for dtype in (torch.float32, torch.float64):
            batch = generated.generated_batch(rng, method, dtype)
            kind = str(dtype).removeprefix("torch.")
            _judge_probs(sub, ctx, batch, what=f"truncated_probs (generated {kind} {method} rows)")


@lane_weight(2)
def test_draws(sub, ctx):
    """sample_truncated: never a cut token, and each row's draws fit its distribution (every method)

    zh: sample_truncated：从不抽到被截掉的 token，每行的抽样服从其分布（每种方法）
    """
    for name, batch in DRAW_BATCHES.items():
        what = Bilingual(f"sample_truncated ({name} rows)", f"sample_truncated（{name} 各行）")
        draws = draws_of(sub, ctx, batch.arguments(), DRAWS, ctx.generator(), what=str(what))
        expect_draws(
            ctx,
            draws,
            batch.exact,
            what=what,
            labels=batch.labels,
            fit_rows=_fit_rows(batch.exact),
        )


@lane_weight(2)
def test_single_draws(sub, ctx):
    """sample_truncated with num_samples=1 over 4 000 copies of a row follows the row's distribution

    zh: sample_truncated 在 num_samples=1 时对一行的 4 000 个副本抽样，服从该行的分布
    """
    batch = DRAW_BATCHES["typical"]
    arguments = batch.arguments()
    picked = {
        "logits": arguments["logits"][SINGLE_ROW].repeat(SINGLE_COPIES, 1),
        "method": "typical",
        "param": arguments["param"][SINGLE_ROW].repeat(SINGLE_COPIES),
        "temperature": arguments["temperature"][SINGLE_ROW].repeat(SINGLE_COPIES),
    }
    what = Bilingual("sample_truncated, num_samples=1", "sample_truncated，num_samples=1")
    draws = draws_of(sub, ctx, picked, 1, ctx.generator(), what=str(what))
    exact = batch.exact[SINGLE_ROW]
    expect_support(draws.flatten(), exact, what=str(what), why_excluded=lambda row, token: "the method cuts it")
    expect_distribution(ctx, draws.flatten(), exact, label=str(what), public=what)


def test_independent_draws(sub, ctx):
    """sample_truncated: draws are independent within a row and across rows

    zh: sample_truncated：同一行内、不同行之间的抽样都相互独立
    """
    batch = CONTRACT_BATCH
    arguments = batch.arguments()
    rows = [0, 2, 1, 3]  # rows 1 and 3 are twins
    picked = {
        "logits": arguments["logits"][rows].repeat(PAIR_COPIES, 1),
        "method": "typical",
        "param": arguments["param"][rows].repeat(PAIR_COPIES),
        "temperature": arguments["temperature"][rows].repeat(PAIR_COPIES),
    }
    what = Bilingual("sample_truncated on copies of four rows", "sample_truncated 作用于四行的多个副本")
    draws = draws_of(sub, ctx, picked, PAIR_DRAWS, ctx.generator(), what=str(what))
    exact = batch.exact[rows]
    expect_support(draws, exact.repeat(PAIR_COPIES, 1), what=str(what), why_excluded=lambda row, token: "it is cut")
    grouped = draws.reshape(PAIR_COPIES, 4, PAIR_DRAWS)
    # Each row's draws pooled must follow its target first: a wrong distribution fails the pair tests too,
    # and is no evidence of dependent draws.
    for row in range(len(rows)):
        label = f"{what}, row {row} pooled"
        expect_distribution(ctx, grouped[:, row].flatten(), exact[row], label=label, public=what)
    expect_independent_within_row(
        ctx,
        grouped[:, 0],
        exact[0],
        label=f"{what}: draws within row 0",
        public=Bilingual(f"{what}, within a row", f"{what.zh}，同一行内"),
    )
    expect_independent_across_rows(
        ctx,
        grouped[:, 0],
        grouped[:, 1],
        exact[0],
        exact[1],
        label=f"{what}: rows 0 and 2 (different parameters)",
        public=Bilingual(f"{what}, two different rows", f"{what.zh}，两个不同的行"),
    )
    expect_independent_rows(
        ctx,
        grouped[:, 2].flatten(),
        grouped[:, 3].flatten(),
        exact[2],
        label=f"{what}: rows 1 and 3 (identical inputs)",
        public=Bilingual(f"{what}, two identical rows", f"{what.zh}，两个相同的行"),
    )


@lane_weight(3)
def test_generator(sub, ctx):
    """sample_truncated: the generator contract (seeds decide, the stream advances, global generator, positions)

    zh: sample_truncated：生成器的约定（种子决定结果、随机数流向前推进、全局生成器、行的位置）
    """
    batch = CONTRACT_BATCH

    def draw(source, generator, rows=None):
        arguments = batch.arguments()
        n = CONTRACT_DRAWS
        if rows is not None:
            n = POSITION_DRAWS
            arguments = {**arguments, **{k: arguments[k][rows] for k in ("logits", "param", "temperature")}}
        value = source.sample_truncated(num_samples=n, generator=generator, **arguments)
        shape = (arguments["logits"].shape[0], n)
        return expect_tensor(value, name="sample_truncated", shape=shape, dtype=torch.int64, device=ctx.device)

    # The draws must follow their targets first: a row that always draws one token repeats itself by right,
    # which the contract would read as a broken generator.
    what = Bilingual("sample_truncated (generator rows)", "sample_truncated（生成器各行）")
    draws = draws_of(sub, ctx, batch.arguments(), POSITION_DRAWS, ctx.generator(), what=str(what))
    expect_draws(ctx, draws, batch.exact, what=what, labels=batch.labels, fit_rows=range(batch.exact.shape[0]))
    expect_generator_contract(sub, ctx, draw, batch.exact, label="sample_truncated", positions=True, twins=(1, 3))


MISTAKES_EXTREME = Bilingual(
    "the sampler fails when torch.rand returns 0.0 or the largest float below 1 "
    "(an inverse CDF must never run past the last kept token)",
    "当 torch.rand 返回 0.0 或小于 1 的最大浮点数时采样出错（逆 CDF 不能越过最后一个保留的 token）",
)


def test_extreme_uniforms(sub, ctx):
    """sample_truncated fed extreme uniform values (0.0 and the largest float below 1) never draws a cut token

    zh: sample_truncated 收到极端的均匀随机数（0.0 与小于 1 的最大浮点数）时也从不抽到被截掉的 token
    """
    extreme = sub.with_extreme_uniforms(ctx.fresh_seed("extreme"))
    for name, batch in DRAW_BATCHES.items():
        what = f"sample_truncated ({name} rows)"
        draws = draws_of(sub, ctx, batch.arguments(), EXTREME_DRAWS, ctx.generator(), what=what)
        expect_support(draws, batch.exact, what=what, why_excluded=lambda row, token: "the method cuts it")
        what = f"sample_truncated ({name} rows) fed extreme uniform values"
        with diagnosed(MISTAKES_EXTREME, evidence=EVERY_KIND):
            draws = draws_of(extreme, ctx, batch.arguments(), EXTREME_DRAWS, ctx.generator(), what=what)
            expect_support(draws, batch.exact, what=what, why_excluded=lambda row, token: "the method cuts it")


def test_every_draw_site(sub, ctx):
    """sample_truncated: every place the code draws random numbers copes with 0.0 and the largest float below 1

    zh: sample_truncated：代码中每一处抽随机数的地方都能处理 0.0 与小于 1 的最大浮点数
    """
    # The last batch's float32 probabilities sum to 0.99999988 in a running total: a uniform just below 1
    # searched without scaling runs past the last kept token.
    below_one = cases.batch(
        [[1.43, -0.01, 1.17, 1.14, -0.36, -1.5], [-0.75, 1.25, 0.75, -2.0, -0.25, NEG_INF]] * 2,
        "epsilon",
        [0.1, 0.02] * 2,
        [1.0] * 4,
        [("", "")] * 4,
    )
    for dtype, batch in (
        (torch.float32, _tiny_batch("eta", torch.float32)),
        (torch.float64, _tiny_batch("eta", torch.float64)),
        (torch.float32, below_one),
    ):
        label = f"sample_truncated on {str(dtype).removeprefix('torch.')} logits"

        def call(source, generator, batch=batch):
            return source.sample_truncated(num_samples=DRAW_SITE_DRAWS, generator=generator, **batch.arguments())

        def check(value, what, batch=batch):
            shape = (batch.call.logits.shape[0], DRAW_SITE_DRAWS)
            draws = expect_tensor(value, name=what, shape=shape, dtype=torch.int64, device=ctx.device)
            expect_support(draws, batch.exact, what=what, why_excluded=lambda row, token: "the method cuts it")

        expect_every_draw_site(sub, ctx, call, check, label=label)


@lane_weight(23)
def test_bad_inputs(sub, ctx):
    """both functions: every bad input the statement names, generated for each method, raises ValueError

    zh: 两个函数：按题面为每种方法生成的各种非法输入都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("bad inputs"))
    calls = []
    for method in METHODS:
        good = specs.good_call(rng, method, draws=False)
        expect_contract_refusals(sub.truncated_probs, ctx, good=good, arguments=specs.probs_arguments(method))
        calls += specs.greedy_refusals(sub.truncated_probs, "truncated_probs", good)
        good = specs.good_call(rng, method, draws=True)
        expect_contract_refusals(
            sub.sample_truncated,
            ctx,
            good=good,
            arguments=specs.sample_arguments(method),
            extra=lambda: {"generator": ctx.generator()},
        )
        calls += specs.greedy_refusals(
            sub.sample_truncated, "sample_truncated", good, extra=lambda: {"generator": ctx.generator()}
        )
    expect_calls_refused(calls)


@lane_weight(62)
def test_legal_corners(sub, ctx):
    """both functions: legal corners (tau = 1, epsilon = eta = 0, B = 1, V = 1, ints, -inf, large logits) are exact

    zh: 两个函数：合法的边界输入（tau = 1、epsilon = eta = 0、B = 1、V = 1、整数、-inf、很大的 logits）结果正确
    """
    rng = random.Random(ctx.fresh_seed("legal corners"))
    for method in METHODS:
        expect_contract_accepts(
            sub.truncated_probs,
            ctx,
            good=specs.good_call(rng, method, draws=False),
            arguments=specs.probs_arguments(method),
            check=specs.probs_corner_check(ctx),
        )
        expect_contract_accepts(
            sub.sample_truncated,
            ctx,
            good=specs.good_call(rng, method, draws=True),
            arguments=specs.sample_arguments(method),
            extra=lambda: {"generator": ctx.generator()},
            check=specs.sample_corner_check(ctx),
        )
