"""Hidden tests of exercise 48: greedy rows and log-probabilities exactly, the randomness contract (the
global generator untouched, every request's generator its own, the offset used, the pair hashed as a
whole, the same token whatever the batch), fits of many requests' tokens, every draw site at the
extremes, and every refusal of the statement, generated. They never leave the judge's process.

The cases run in this order on purpose: a mistake's own case comes before any later case it also fails,
so the report's first diagnosis is the right one (the global generator before the composition of the
batch, the other requests' seeds before reordering, the offsets before the collisions).
"""

from __future__ import annotations

import functools
import random

import torch

from judge.checks.arguments import expect_contract_accepts, expect_contract_refusals
from judge.checks.base import fail
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import expect_different_under_seeds
from judge.checks.independence import expect_independent_rows, expect_independent_within_row
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

from ..public.diagnoses import MISTAKES
from ..public.evidence48 import expect_tokens_vary, reproducing
from .cases import (
    COLLISION_FAMILIES,
    FIT_LOGITS,
    FIT_PARAMS,
    PAIR_LOGITS,
    PAIR_PARAMS,
    SEED_LIMIT,
    WIDE_LOGITS,
    WIDE_PARAMS,
    Batch,
    colliding_pairs,
    greedy_ties,
    mixed,
    same_row,
)
from .cases import (
    batch as make_batch,
)
from .oracle import DISTRIBUTION_MISTAKES, DRAW_MISTAKES, RowParams, mistaken
from .specs import ARGUMENTS, TOLERANCE, corner_check, good_call, greedy_refusals

BUDGET = BudgetDeclaration(fit=3, pairs=1, independence=len(COLLISION_FAMILIES), seeds=3)

FAMILY_DIAGNOSIS = {
    "seed_plus_offset": "seed_plus_offset",
    "seed_xor_offset": "seed_xor_offset",
    "seed_times_10": "seed_times_small_k",
    "seed_times_1000": "seed_times_small_k",
    "seed_shift_32": "seed_lost",
    "seed_high_bits": "seed_high_bits_lost",
    "python_hash": "python_hash",
    "decimal_concat": "decimal_concat",
}
FAMILY_FORMULA = {
    "seed_plus_offset": "seed + offset",
    "seed_xor_offset": "seed XOR offset",
    "seed_times_10": "10 * seed + offset",
    "seed_times_1000": "1000 * seed + offset",
    "seed_shift_32": "seed * 2**32 + offset",
    "seed_high_bits": "the low 32 bits of seed * 0x9E3779B97F4A7C15 + offset",
    "python_hash": "Python's hash((seed, offset))",
    "decimal_concat": "the digits of seed followed by those of offset",
}


def _ids(values: list[int]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64)


def _random_ids(rng: random.Random, count: int, limit: int = SEED_LIMIT) -> list[int]:
    return [rng.randrange(limit) for _ in range(count)]


def _call(source, ctx, batch: Batch, seeds: list[int], offsets: list[int], what: str, *, support: bool = True):
    """The learner's (tokens, logprobs) for ``batch``, checked for type, shape, dtype and device, and (with
    ``support``) for tokens of positive probability."""
    value = source.sample_batch(**batch.kwargs, seeds=_ids(seeds), offsets=_ids(offsets))
    expect(
        isinstance(value, (tuple, list)) and len(value) == 2,
        f"{what}: sample_batch must return a pair (tokens, logprobs), got {type(value).__name__}",
        rule=Bilingual("did not return a pair (tokens, logprobs)", "返回的不是一对值 (tokens, logprobs)"),
        kind="structural",
    )
    rows, dtype = batch.rows, batch.logits.dtype
    tokens = expect_tensor(value[0], name=f"{what}: tokens", shape=(rows,), dtype=torch.int64, device=ctx.device)
    logprobs = expect_tensor(value[1], name=f"{what}: logprobs", shape=(rows,), dtype=dtype, device=ctx.device)
    if support:
        expect_support(
            tokens.unsqueeze(1),
            batch.probs,
            what=f"{what}: tokens",
            why_excluded=lambda row, token: "its probability in the row's processed distribution is 0",
        )
    return tokens, logprobs


def _logprob_mistakes(batch: Batch, tokens: torch.Tensor, logprobs: torch.Tensor, atol: torch.Tensor):
    """The catalogued mistakes that reproduce every row of ``logprobs`` at these tokens: computed on failure."""
    return reproducing(
        lambda: {MISTAKES[name]: batch.mistaken_logprobs(tokens, name) for name in DISTRIBUTION_MISTAKES},
        logprobs,
        atol,
    )


def _expect_logprobs(batch: Batch, tokens: torch.Tensor, logprobs: torch.Tensor, what: str, *, named: bool) -> None:
    """``logprobs`` are log q(token) of the processed distribution, to the statement's tolerance."""
    expected = torch.log(batch.probs.gather(1, tokens.unsqueeze(1)).squeeze(1))
    tolerance = TOLERANCE[batch.logits.dtype] * expected.abs().clamp(min=1.0)
    expect_close(
        logprobs.to(torch.float64),
        expected,
        rtol=0.0,
        atol=tolerance,
        what=f"{what}: logprobs",
        per_row=True,
        mistakes=_logprob_mistakes(batch, tokens, logprobs, tolerance) if named else None,
    )


def test_greedy_ties(sub, ctx):
    """greedy rows (T = 0), most with tied largest logits: the lowest index, log-probability exactly 0

    zh: 贪心行（T = 0），多数最大 logit 并列：取下标最小者，对数概率恰为 0
    """
    for dtype in (torch.float32, torch.float64):
        batch = greedy_ties(4811, dtype)
        what = f"sample_batch(48 greedy rows, {dtype})"
        tokens, logprobs = _call(
            sub, ctx, batch, _random_ids(ctx.rng, batch.rows), _random_ids(ctx.rng, batch.rows), what, support=False
        )
        logits = batch.logits.to(torch.float64)
        tied = [torch.nonzero(logits[b] == logits[b].max()).flatten().tolist() for b in range(batch.rows)]
        wrong = [b for b in range(batch.rows) if int(tokens[b]) != tied[b][0]]
        if wrong:
            ties = [b for b in range(batch.rows) if len(tied[b]) > 1]
            diagnosis = None
            if all(int(tokens[b]) == tied[b][-1] for b in ties) and set(wrong) <= set(ties):
                diagnosis = MISTAKES["greedy_last_tie"]
            elif all(int(tokens[b]) in tied[b] for b in range(batch.rows)):
                diagnosis = MISTAKES["greedy_tiny_temperature"]
            b = wrong[0]
            fail(
                f"{what}: row {b} is greedy and its largest logit is shared by tokens {tied[b]}: the token must "
                f"be {tied[b][0]} (the lowest index), got {int(tokens[b])} ({len(wrong)} greedy rows wrong)",
                diagnosis=diagnosis,
                rule=Bilingual(
                    "a greedy row did not return the lowest index among its largest logits",
                    "贪心行没有返回最大 logit 中下标最小的那个",
                ),
                kind="value",
            )
        nonzero = (logprobs != 0).nonzero().flatten().tolist()
        if nonzero:
            b = nonzero[0]
            split = all(
                abs(float(logprobs[r]) + torch.log(torch.tensor(float(len(tied[r])))).item()) < 1e-3 for r in nonzero
            )
            fail(
                f"{what}: row {b} is greedy, so its log-probability must be exactly 0.0, got {float(logprobs[b])!r} "
                f"({len(nonzero)} greedy rows wrong)",
                diagnosis=MISTAKES["greedy_tiny_temperature"] if split else None,
                rule=Bilingual("a greedy row's log-probability is not 0", "贪心行的对数概率不是 0"),
                kind="value",
            )


def test_logprobs(sub, ctx):
    """mixed rows with per-row parameters: every log-probability is that of the processed distribution

    zh: 参数逐行不同的混合行：每个对数概率都是处理后分布中的对数概率
    """
    for seed, dtype in ((4821, torch.float32), (4822, torch.float64)):
        batch = mixed(seed, dtype)
        what = f"sample_batch(24 mixed rows, {dtype})"
        value = sub.sample_batch(
            **batch.kwargs, seeds=_ids(_random_ids(ctx.rng, batch.rows)), offsets=_ids(_random_ids(ctx.rng, batch.rows))
        )
        expect(
            isinstance(value, (tuple, list)) and len(value) == 2,
            f"{what}: sample_batch must return a pair (tokens, logprobs), got {type(value).__name__}",
            kind="structural",
        )
        tokens = expect_tensor(
            value[0], name=f"{what}: tokens", shape=(batch.rows,), dtype=torch.int64, device=ctx.device
        )
        logprobs = expect_tensor(
            value[1], name=f"{what}: logprobs", shape=(batch.rows,), dtype=dtype, device=ctx.device
        )
        expect_support(
            tokens.unsqueeze(1),
            batch.probs,
            what=f"{what}: tokens",
            why_excluded=lambda row, token: "its probability in the row's processed distribution is 0",
            alternatives=_alternatives(batch, tokens),
        )
        _expect_logprobs(batch, tokens, logprobs, what, named=True)


def _alternatives(batch: Batch, tokens: torch.Tensor):
    """The distributions of the catalogued mistakes that draw from another one and could have drawn every
    row's token (a mistake that excludes one of them is no explanation): computed on failure."""

    def alternatives():
        out = {}
        for name in DRAW_MISTAKES:
            wrong = mistaken(batch.logits, batch.params, name)
            if bool((wrong.gather(1, tokens.clamp(0, wrong.shape[1] - 1).unsqueeze(1)) > 0).all()):
                out[MISTAKES[name]] = wrong
        return out

    return alternatives


def test_defaults_and_huge_logits(sub, ctx):
    """the parameters' defaults (T = 1, no filter), and logits near the dtype's largest value

    zh: 参数的默认值（T = 1、不过滤），以及接近 dtype 最大值的 logits
    """
    plain = same_row(PAIR_LOGITS, PAIR_PARAMS, torch.float64, 40)
    what = "sample_batch(logits, seeds, offsets) with every parameter left at its default"
    value = sub.sample_batch(plain.logits, _ids(_random_ids(ctx.rng, 40)), _ids(_random_ids(ctx.rng, 40)))
    expect(
        isinstance(value, (tuple, list)) and len(value) == 2,
        f"{what}: sample_batch must return a pair (tokens, logprobs), got {type(value).__name__}",
        kind="structural",
    )
    tokens = expect_tensor(value[0], name=f"{what}: tokens", shape=(40,), dtype=torch.int64, device=ctx.device)
    logprobs = expect_tensor(value[1], name=f"{what}: logprobs", shape=(40,), dtype=torch.float64, device=ctx.device)
    expect_support(tokens.unsqueeze(1), plain.probs, what=what, why_excluded=lambda row, token: "it is outside the row")
    _expect_logprobs(plain, tokens, logprobs, what, named=False)
    for dtype, big in ((torch.float32, 1.5e38), (torch.float64, 8e307)):
        huge = make_batch([[big, big, 0.0, -big]] * 8, [RowParams(0.7, 0, 1.0, 0.0)] * 8, dtype)
        what = f"sample_batch(8 rows of logits [{big:g}, {big:g}, 0, {-big:g}], {dtype}, temperature 0.7)"
        tokens, logprobs = _call(sub, ctx, huge, _random_ids(ctx.rng, 8), _random_ids(ctx.rng, 8), what)
        _expect_logprobs(huge, tokens, logprobs, what, named=False)


def test_global_generator(sub, ctx):
    """torch's global generator is never used nor re-seeded, and its seed changes nothing

    zh: 从不使用也不重设 torch 的全局生成器，它的种子不改变任何结果
    """
    batch = mixed(4831, torch.float32, rows=8)
    seeds, offsets = _random_ids(ctx.rng, 8), _random_ids(ctx.rng, 8)
    watched = sub.watching_global_rng()
    _call(watched, ctx, batch, seeds, offsets, "sample_batch(8 rows)")
    expect(
        not watched.global_rng_changed_by,
        "sample_batch(8 rows) changed the state of torch's global generator (it drew from it, or re-seeded it); "
        "each request must draw from a generator of its own",
        diagnosis=MISTAKES["global_rng"],
        rule=Bilingual("torch's global generator was used or re-seeded", "使用了（或重设了）torch 的全局生成器"),
        kind="value",
    )
    first, _ = _call(sub.with_global_seed(1), ctx, batch, seeds, offsets, "sample_batch(8 rows)")
    second, _ = _call(sub.with_global_seed(2), ctx, batch, seeds, offsets, "sample_batch(8 rows)")
    expect(
        torch.equal(first, second),
        f"sample_batch(8 rows): the same requests gave tokens {first.tolist()} after torch.manual_seed(1) and "
        f"{second.tolist()} after torch.manual_seed(2); the global generator must not matter",
        diagnosis=MISTAKES["global_rng"],
        rule=Bilingual("torch.manual_seed changed the tokens", "torch.manual_seed 改变了 token"),
        kind="value",
    )


@lane_weight(3)
def test_other_seeds(sub, ctx):
    """requests that differ only in their seed get different tokens; new seeds for all but the first change theirs

    zh: 只有种子不同的请求得到不同的 token；除第一个请求外其余都换新种子，它们的 token 随之改变
    """
    batch = same_row(FIT_LOGITS, FIT_PARAMS, torch.float32, 300)
    control, _ = _call(
        sub, ctx, batch, _random_ids(ctx.rng, 300), _random_ids(ctx.rng, 300), "sample_batch(300 requests)"
    )
    expect_tokens_vary(control, "sample_batch(300 requests of one row, random seeds and offsets)")
    label = "sample_batch(300 requests of one row, one offset, random seeds)"
    tokens, _ = _call(sub, ctx, batch, _random_ids(ctx.rng, 300), [ctx.rng.randrange(SEED_LIMIT)] * 300, label)
    expect_different_under_seeds(
        ctx,
        tokens[:150].unsqueeze(0),
        tokens[150:].unsqueeze(0),
        batch.probs[0],
        label=label,
        how="requests with different seeds and one offset",
        cause="The seed must change the draw",
        diagnosis=MISTAKES["seed_lost"],
    )
    seeds, offsets = _random_ids(ctx.rng, 300), _random_ids(ctx.rng, 300)
    first, _ = _call(sub, ctx, batch, seeds, offsets, "sample_batch(300 requests)")
    others = [seeds[0]] + _random_ids(ctx.rng, 299)
    second, _ = _call(sub, ctx, batch, others, offsets, "sample_batch(300 requests), new seeds for rows 1-299")
    expect_different_under_seeds(
        ctx,
        first[1:].unsqueeze(0),
        second[1:].unsqueeze(0),
        batch.probs[0],
        label="sample_batch(300 requests of one row)",
        how="new seeds for every request but the first",
        cause="A request's token must come from its own seed: one generator for the whole batch ignores the others",
        diagnosis=MISTAKES["batch_generator"],
    )


@lane_weight(6)
def test_offsets(sub, ctx):
    """one seed at 2 000 consecutive offsets: the draws differ, fit the row and are independent

    zh: 同一个种子、2 000 个连续的 offset：抽样结果各不相同、服从该行分布且相互独立
    """
    batch = same_row(FIT_LOGITS, FIT_PARAMS, torch.float32, 2000)
    seed, start = ctx.rng.randrange(SEED_LIMIT), ctx.rng.randrange(SEED_LIMIT - 2000)
    control, _ = _call(
        sub,
        ctx,
        batch.select(list(range(50))),
        _random_ids(ctx.rng, 50),
        _random_ids(ctx.rng, 50),
        "sample_batch(50 requests)",
    )
    expect_tokens_vary(control, "sample_batch(50 requests of one row, random seeds and offsets)")
    label = "sample_batch(one seed, offsets o, o + 1, ..., o + 1999)"
    tokens, logprobs = _call(sub, ctx, batch, [seed] * 2000, list(range(start, start + 2000)), label)
    expect_different_under_seeds(
        ctx,
        tokens[:1000].unsqueeze(0),
        tokens[1000:].unsqueeze(0),
        batch.probs[0],
        label=label,
        how="offsets o..o+999 and o+1000..o+1999 of one seed",
        cause="The offset must change the draw: the generator's seed has to depend on it",
        diagnosis=MISTAKES["offset_ignored"],
    )
    expect_distribution(ctx, tokens, batch.probs[0], label=label)
    expect_independent_within_row(ctx, tokens, batch.probs[0], label=label)
    _expect_logprobs(batch, tokens, logprobs, label, named=False)


@lane_weight(10)
def test_distinct_seeds(sub, ctx):
    """2 000 requests with random 63-bit seeds, and 1 500 with seeds 0, 1, 2, ...: their tokens fit the row

    zh: 2 000 个随机 63 位种子的请求，以及种子为 0、1、2……的 1 500 个请求：token 服从该行的分布
    """
    wide = same_row(WIDE_LOGITS, WIDE_PARAMS, torch.float64, 2000)
    label = "sample_batch(2 000 requests, random seeds, 40 tokens)"
    tokens, logprobs = _call(sub, ctx, wide, _random_ids(ctx.rng, 2000), _random_ids(ctx.rng, 2000), label)
    expect_distribution(ctx, tokens, wide.probs[0], label=label)
    _expect_logprobs(wide, tokens, logprobs, label, named=False)
    small = same_row(FIT_LOGITS, FIT_PARAMS, torch.float32, 1500)
    label = "sample_batch(1 500 requests, seeds 0 to 1 499 at offset 0)"
    tokens, _ = _call(sub, ctx, small, list(range(1500)), [0] * 1500, label)
    expect_distribution(ctx, tokens, small.probs[0], label=label)


@lane_weight(9)
def test_collisions(sub, ctx):
    """requests whose (seed, offset) pairs agree on seed + offset, seed XOR offset, K * seed + offset: independent

    zh: (seed, offset) 在 seed + offset、seed XOR offset、K * seed + offset 上相同的请求：相互独立
    """
    count = 200
    batch = same_row(PAIR_LOGITS, PAIR_PARAMS, torch.float64, 2 * count)
    control, _ = _call(
        sub, ctx, batch, _random_ids(ctx.rng, 2 * count), _random_ids(ctx.rng, 2 * count), "sample_batch"
    )
    expect_tokens_vary(control, f"sample_batch({2 * count} requests of one row, random seeds and offsets)")
    for family in COLLISION_FAMILIES:
        first, second = colliding_pairs(4841 + ctx.rng.randrange(8), family, count)
        pairs = first + second
        label = f"sample_batch({count} pairs of requests equal under {FAMILY_FORMULA[family]})"
        tokens, _ = _call(sub, ctx, batch, [s for s, _ in pairs], [o for _, o in pairs], label)
        expect_independent_rows(
            ctx,
            tokens[:count],
            tokens[count:],
            batch.probs[0],
            label=label,
            public=Bilingual(
                f"requests whose (seed, offset) agree on {FAMILY_FORMULA[family]}",
                f"(seed, offset) 在 {FAMILY_FORMULA[family]} 上相同的请求",
            ),
            diagnosis=MISTAKES[FAMILY_DIAGNOSIS[family]],
        )


def test_batch_composition(sub, ctx):
    """each request's token is the same whatever the batch: reordered, duplicated, split, alone

    zh: 不论批的组成如何（打乱顺序、复制、拆分、单独调用），每个请求的 token 都不变
    """
    batch = mixed(4851, torch.float32)
    rows = batch.rows
    seeds, offsets = _random_ids(ctx.rng, rows), _random_ids(ctx.rng, rows)
    seeds[1], offsets[1] = seeds[0], offsets[0] + 1  # one request's next step in the same batch
    base, _ = _call(sub.with_global_seed(11), ctx, batch, seeds, offsets, "sample_batch(24 requests)")
    order = list(range(rows))
    ctx.rng.shuffle(order)
    doubled = order + sorted(order, key=lambda r: (r * 7) % rows)
    pieces = [order[:5], order[5:6], order[6:]]
    alone = [[r] for r in ctx.rng.sample(range(rows), 6)]
    for index, (how, selection) in enumerate(
        [("reordered", [order]), ("every request twice", [doubled]), ("split into 3 calls", pieces), ("alone", alone)]
    ):
        for chosen in selection:
            part = batch.select(chosen)
            what = f"sample_batch(24 requests, {how})"
            source = sub.with_global_seed(12 + index)
            tokens, logprobs = _call(source, ctx, part, [seeds[r] for r in chosen], [offsets[r] for r in chosen], what)
            expected = base[chosen]
            if not torch.equal(tokens, expected):
                at = int((tokens != expected).nonzero()[0, 0])
                fail(
                    f"{what}: request {chosen[at]} (its seed and offset unchanged) got token {int(tokens[at])}, "
                    f"but {int(expected[at])} in the original batch of 24",
                    diagnosis=MISTAKES["position_dependent"],
                    rule=Bilingual(
                        f"a request's token changed when the batch was {how}",
                        {
                            "reordered": "批被打乱顺序后，某个请求的 token 变了",
                            "every request twice": "每个请求复制一份后，某个请求的 token 变了",
                            "split into 3 calls": "批被拆成 3 次调用后，某个请求的 token 变了",
                            "alone": "请求单独调用时，它的 token 变了",
                        }[how],
                    ),
                    kind="value",
                )
            _expect_logprobs(part, tokens, logprobs, what, named=False)


# Rows whose first token is out: -inf, or cut by a filter. u = 0 must not land on it.
EDGE_LOGITS = [
    [float("-inf"), 1.0, 0.5, -0.3, 0.2],
    [-3.0, 1.2, 0.4, 0.9, -0.2],
    [float("-inf"), float("-inf"), 2.0, 0.0, 1.1],
    [-2.0, 0.3, 0.6, 0.1, 2.2],
    [0.5, -0.8, -1.0, -3.1, float("-inf")],  # (red team) a float32 total below 0.99999994, the last token out
]


@functools.cache
def _edge_batch(dtype: torch.dtype, copies: int) -> Batch:
    params = [
        RowParams(1.0, 0, 1.0, 0.0),
        RowParams(0.9, 3, 1.0, 0.0),
        RowParams(1.0, 0, 0.9, 0.0),
        RowParams(1.3, 0, 1.0, 0.05),
        RowParams(1.0, 0, 1.0, 0.0),
    ]
    return make_batch(EDGE_LOGITS * copies, params * copies, dtype)


def test_draw_sites(sub, ctx):
    """every draw site pushed to 0.0 and to the largest float below 1: tokens stay legal

    zh: 每个抽样点依次取 0.0 与小于 1 的最大浮点数：token 仍然合法
    """
    batch = _edge_batch(torch.float32, 1)
    seeds, offsets = _random_ids(ctx.rng, 5), _random_ids(ctx.rng, 5)

    def call(source, generator):
        return source.sample_batch(**batch.kwargs, seeds=_ids(seeds), offsets=_ids(offsets))

    def check(value, what):
        expect(isinstance(value, (tuple, list)) and len(value) == 2, f"{what}: not a pair", kind="structural")
        tokens = expect_tensor(value[0], name=f"{what}: tokens", shape=(5,), dtype=torch.int64, device=ctx.device)
        expect_support(
            tokens.unsqueeze(1),
            batch.probs,
            what=what,
            why_excluded=lambda row, token: "its probability in the row's processed distribution is 0",
        )

    expect_every_draw_site(sub, ctx, call, check, label="sample_batch(4 rows whose first token is out)")


@lane_weight(2)
def test_extreme_uniforms(sub, ctx):
    """torch.rand returning 0.0 and the largest float below 1 now and then: every token stays legal

    zh: torch.rand 不时返回 0.0 与小于 1 的最大浮点数：每个 token 仍然合法
    """
    for dtype in (torch.float32, torch.float64):
        batch = _edge_batch(dtype, 100)
        source = sub.with_extreme_uniforms(ctx.fresh_seed(f"extremes {dtype}"))
        _call(
            source, ctx, batch, _random_ids(ctx.rng, 500), _random_ids(ctx.rng, 500), f"sample_batch(500 rows, {dtype})"
        )


@lane_weight(3)
def test_refusals(sub, ctx):
    """every invalid input the statement lists raises ValueError (generated from a good call)

    zh: 题面列出的每一种非法输入都抛出 ValueError（由合法调用生成）
    """
    rng = random.Random(ctx.fresh_seed("good call"))
    good = good_call(rng)
    expect_contract_refusals(sub.sample_batch, ctx, good=good, arguments=ARGUMENTS, name="sample_batch")
    expect_calls_refused(
        [
            BadCall(
                sub.sample_batch,
                f"sample_batch() with {what}",
                kwargs=kwargs,
                public=Bilingual(
                    "sample_batch() with every row greedy and another parameter invalid",
                    "sample_batch() 收到全部为贪心行、另一个参数非法的输入时",
                ),
            )
            for what, kwargs in greedy_refusals(good, rng)
        ]
    )


@lane_weight(10)
def test_legal_corners(sub, ctx):
    """legal corners (seeds and offsets 0 and 2**63 - 1, one row, -inf logits, tiny and large T): accepted and right

    zh: 合法的边界输入（种子与 offset 为 0 和 2**63 - 1、单行、-inf logits、极小与极大的 T）：接受且结果正确
    """
    good = good_call(random.Random(ctx.fresh_seed("good call")))
    expect_contract_accepts(
        sub.sample_batch, ctx, good=good, arguments=ARGUMENTS, check=corner_check(ctx), name="sample_batch"
    )
