"""The tiny variant of exercise 48: what "Run" judges in the browser, after the public cases.

The hidden suite's rules at sizes the browser's pure-Python torch runs in a blink: 6 greedy rows with
ties, a row where the order of top-p and min-p matters (its distribution frozen here from the server's
oracle, and held to it by tests/exercises/test_048_batched_sampler.py), the global generator, 40
requests whose seeds alone differ, 40 offsets of one seed, 30 pairs of requests for each careless
mixing of (seed, offset), the batch reordered, duplicated and split, and every draw site at the ends.
"""

from __future__ import annotations

import random

import torch

from judge.checks.base import fail
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_support
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import expect_different_under_seeds
from judge.checks.independence import expect_independent_rows
from judge.i18n import Bilingual

from .diagnoses import MISTAKES
from .evidence48 import expect_tokens_vary

BUDGET = BudgetDeclaration(seeds=3, independence=3)

NEG_INF = float("-inf")
# Greedy rows with their largest logit shared: the first index of each, and the last.
GREEDY_LOGITS = [
    [1.0, 3.0, 3.0, 0.0, 2.0],
    [3.0, 0.0, 3.0, 3.0, NEG_INF],
    [0.5, 2.0, 1.0, 2.0, 2.0],
    [NEG_INF, 1.0, 1.0, 0.0, 0.5],
    [2.0, 1.0, 0.0, -1.0, 2.0],
    [0.0, 4.0, 1.0, 4.0, 3.0],
]
# One row where min-p before top-p keeps other tokens: T = 1, top_p = 0.7, min_p = 0.3.
ORDER_LOGITS = [2.0, 1.5, 1.0, 0.5, 0.0]
ORDER_Q = [0.5064803910556541, 0.30719588571849843, 0.18632372322584762, 0.0, 0.0]
ORDER_Q_MIN_P_FIRST = [0.6224593312018546, 0.37754066879814546, 0.0, 0.0, 0.0]
# A row without filters (T = 1): its distribution is its softmax.
PLAIN_LOGITS = [0.3, 0.0, 0.5, -0.2, 0.1, 0.4]
# Careless mixes of (s, o), each with the partner that collides under it.
FAMILIES = {
    "seed_plus_offset": (lambda s, o: s + o, lambda s, o: (s + 1, o - 1), "seed + offset", "seed + offset"),
    "seed_xor_offset": (
        lambda s, o: s ^ o,
        lambda s, o: (s ^ (o & -o), o ^ (o & -o)),
        "seed XOR offset",
        "seed XOR offset",
    ),
    "seed_times_small_k": (
        lambda s, o: 1000 * s + o,
        lambda s, o: (s + 1, o - 1000),
        "1000 * seed + offset",
        "1000 * seed + offset",
    ),
}


def _ids(values) -> torch.Tensor:
    return torch.tensor(list(values), dtype=torch.int64)


def _call(source, ctx, logits: list[list[float]], seeds, offsets, what: str, **params):
    value = source.sample_batch(torch.tensor(logits), _ids(seeds), _ids(offsets), **params)
    expect(
        isinstance(value, (tuple, list)) and len(value) == 2,
        f"{what}: sample_batch must return a pair (tokens, logprobs), got {type(value).__name__}",
        rule=Bilingual("did not return a pair (tokens, logprobs)", "返回的不是一对值 (tokens, logprobs)"),
        kind="structural",
    )
    tokens = expect_tensor(value[0], name=f"{what}: tokens", shape=(len(logits),), dtype=torch.int64, device=ctx.device)
    logprobs = expect_tensor(
        value[1], name=f"{what}: logprobs", shape=(len(logits),), dtype=torch.float32, device=ctx.device
    )
    return tokens, logprobs


def _plain_q() -> torch.Tensor:
    return torch.softmax(torch.tensor(PLAIN_LOGITS, dtype=torch.float64), dim=0)


def _seeds(rng: random.Random, count: int) -> list[int]:
    return [rng.randrange(2**63) for _ in range(count)]


def test_tiny_greedy(sub, ctx):
    """6 greedy rows with tied largest logits, 4 calls: the lowest index, log-probability 0

    zh: 6 个最大 logit 并列的贪心行，调用 4 次：取下标最小者，对数概率为 0
    """
    first = [row.index(max(row)) for row in GREEDY_LOGITS]
    last = [len(row) - 1 - row[::-1].index(max(row)) for row in GREEDY_LOGITS]
    tied = [[i for i, v in enumerate(row) if v == max(row)] for row in GREEDY_LOGITS]
    rows = len(GREEDY_LOGITS)
    for call in range(4):
        what = f"sample_batch(6 greedy rows), call {call + 1}"
        tokens, logprobs = _call(
            sub, ctx, GREEDY_LOGITS, _seeds(ctx.rng, rows), _seeds(ctx.rng, rows), what, temperature=0.0
        )
        got = tokens.tolist()
        if got != first:
            diagnosis = None
            if got == last:
                diagnosis = MISTAKES["greedy_last_tie"]
            elif all(t in ties for t, ties in zip(got, tied, strict=True)):
                diagnosis = MISTAKES["greedy_tiny_temperature"]
            fail(
                f"{what}: the tokens must be the lowest index among each row's largest logits, {first}; got {got}",
                diagnosis=diagnosis,
                rule=Bilingual(
                    "a greedy row did not return the lowest index among its largest logits",
                    "贪心行没有返回最大 logit 中下标最小的那个",
                ),
                kind="value",
            )
        if any(value != 0 for value in logprobs.tolist()):
            split = all(
                abs(value + torch.log(torch.tensor(float(len(t)))).item()) < 1e-3
                for value, t in zip(logprobs.tolist(), tied, strict=True)
            )
            fail(
                f"{what}: a greedy row's log-probability must be exactly 0.0; got {logprobs.tolist()}",
                diagnosis=MISTAKES["greedy_tiny_temperature"] if split else None,
                rule=Bilingual("a greedy row's log-probability is not 0", "贪心行的对数概率不是 0"),
                kind="value",
            )


def test_tiny_filter_order(sub, ctx):
    """12 requests of one row with top_p = 0.7 and min_p = 0.3: tokens and log-probabilities of the processed row

    zh: 同一行的 12 个请求，top_p = 0.7、min_p = 0.3：token 与对数概率都来自处理后的分布
    """
    rows = 12
    what = "sample_batch(12 requests, top_p=0.7, min_p=0.3)"
    tokens, logprobs = _call(
        sub, ctx, [ORDER_LOGITS] * rows, _seeds(ctx.rng, rows), _seeds(ctx.rng, rows), what, top_p=0.7, min_p=0.3
    )
    q = torch.tensor([ORDER_Q] * rows, dtype=torch.float64)
    wrong = torch.tensor([ORDER_Q_MIN_P_FIRST] * rows, dtype=torch.float64)
    expect_support(
        tokens.unsqueeze(1),
        q,
        what=f"{what}: tokens",
        why_excluded=lambda row, token: "its probability in the row's processed distribution is 0",
    )
    chosen = tokens.unsqueeze(1)
    expect_close(
        logprobs.to(torch.float64),
        q.gather(1, chosen).squeeze(1).log(),
        rtol=1e-4,
        atol=1e-4,
        what=f"{what}: logprobs",
        per_row=True,
        mistakes=lambda: {MISTAKES["min_p_before_top_p"]: wrong.gather(1, chosen).squeeze(1).log()},
    )


def test_tiny_global_generator(sub, ctx):
    """torch's global generator is never used nor re-seeded

    zh: 从不使用也不重设 torch 的全局生成器
    """
    watched = sub.watching_global_rng()
    _call(watched, ctx, [PLAIN_LOGITS] * 4, _seeds(ctx.rng, 4), _seeds(ctx.rng, 4), "sample_batch(4 rows)")
    expect(
        not watched.global_rng_changed_by,
        "sample_batch(4 rows) changed the state of torch's global generator (it drew from it, or re-seeded it)",
        diagnosis=MISTAKES["global_rng"],
        rule=Bilingual("torch's global generator was used or re-seeded", "使用了（或重设了）torch 的全局生成器"),
        kind="value",
    )


def test_tiny_seeds(sub, ctx):
    """40 requests that differ only in their seed; new seeds for all but the first; 40 offsets of one seed

    zh: 只有种子不同的 40 个请求；除第一个外都换新种子；同一个种子的 40 个 offset
    """
    rows, q = 40, _plain_q()
    control, _ = _call(sub, ctx, [PLAIN_LOGITS] * rows, _seeds(ctx.rng, rows), _seeds(ctx.rng, rows), "sample_batch")
    expect_tokens_vary(control, "sample_batch(40 requests of one row, random seeds and offsets)")
    label = "sample_batch(40 requests, one offset, random seeds)"
    tokens, _ = _call(sub, ctx, [PLAIN_LOGITS] * rows, _seeds(ctx.rng, rows), [ctx.rng.randrange(2**63)] * rows, label)
    expect_different_under_seeds(
        ctx,
        tokens[:20].unsqueeze(0),
        tokens[20:].unsqueeze(0),
        q,
        label=label,
        how="requests with different seeds and one offset",
        cause="The seed must change the draw",
        diagnosis=MISTAKES["seed_lost"],
    )
    seeds, offsets = _seeds(ctx.rng, rows), _seeds(ctx.rng, rows)
    first, _ = _call(sub, ctx, [PLAIN_LOGITS] * rows, seeds, offsets, "sample_batch(40 requests)")
    others = [seeds[0]] + _seeds(ctx.rng, rows - 1)
    second, _ = _call(sub, ctx, [PLAIN_LOGITS] * rows, others, offsets, "sample_batch(40 requests, new seeds)")
    expect_different_under_seeds(
        ctx,
        first[1:].unsqueeze(0),
        second[1:].unsqueeze(0),
        q,
        label="sample_batch(40 requests)",
        how="new seeds for every request but the first",
        cause="A request's token must come from its own seed",
        diagnosis=MISTAKES["batch_generator"],
    )
    seed, start = ctx.rng.randrange(2**63), ctx.rng.randrange(2**62)
    label = "sample_batch(one seed, offsets o to o + 39)"
    tokens, _ = _call(sub, ctx, [PLAIN_LOGITS] * rows, [seed] * rows, range(start, start + rows), label)
    expect_different_under_seeds(
        ctx,
        tokens[:20].unsqueeze(0),
        tokens[20:].unsqueeze(0),
        q,
        label=label,
        how="offsets o..o+19 and o+20..o+39 of one seed",
        cause="The offset must change the draw",
        diagnosis=MISTAKES["offset_ignored"],
    )


def _pairs(rng: random.Random, name: str, count: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Pairs of requests that collide under ``name``'s mix and under no other."""
    mix, partner = FAMILIES[name][:2]
    first, second = [], []
    while len(first) < count:
        s, o = rng.randrange(1, 2**31), rng.randrange(2**12, 2**31)
        t, u = partner(s, o)
        if s == t or o == u or any(m(s, o) == m(t, u) for k, (m, *_) in FAMILIES.items() if k != name):
            continue
        first.append((s, o))
        second.append((t, u))
    return first, second


def test_tiny_collisions(sub, ctx):
    """30 pairs of requests equal under seed + offset, seed XOR offset, 1000 * seed + offset: independent

    zh: 在 seed + offset、seed XOR offset、1000 * seed + offset 下相同的 30 对请求：相互独立
    """
    count, q = 30, _plain_q()
    control, _ = _call(sub, ctx, [PLAIN_LOGITS] * 60, _seeds(ctx.rng, 60), _seeds(ctx.rng, 60), "sample_batch")
    expect_tokens_vary(control, "sample_batch(60 requests of one row, random seeds and offsets)")
    for name, (_, _, en, zh) in FAMILIES.items():
        first, second = _pairs(ctx.rng, name, count)
        pairs = first + second
        label = f"sample_batch({count} pairs of requests equal under {en})"
        tokens, _ = _call(sub, ctx, [PLAIN_LOGITS] * (2 * count), [s for s, _ in pairs], [o for _, o in pairs], label)
        expect_independent_rows(
            ctx,
            tokens[:count],
            tokens[count:],
            q,
            label=label,
            public=Bilingual(f"requests whose (seed, offset) agree on {en}", f"(seed, offset) 在 {zh} 上相同的请求"),
            diagnosis=MISTAKES[name],
        )


def test_tiny_composition(sub, ctx):
    """8 requests reordered, duplicated and one alone: each keeps its token

    zh: 8 个请求打乱顺序、复制、单独调用：每个请求的 token 都不变
    """
    logits = [PLAIN_LOGITS, ORDER_LOGITS + [NEG_INF]] * 4
    seeds, offsets = _seeds(ctx.rng, 8), _seeds(ctx.rng, 8)
    base, _ = _call(sub, ctx, logits, seeds, offsets, "sample_batch(8 requests)")
    order = [5, 2, 7, 0, 3, 6, 1, 4]
    for how, chosen in (("reordered", order), ("every request twice", order + order[::-1]), ("alone", [3])):
        what = f"sample_batch(8 requests, {how})"
        tokens, _ = _call(
            sub, ctx, [logits[r] for r in chosen], [seeds[r] for r in chosen], [offsets[r] for r in chosen], what
        )
        expected = [int(base[r]) for r in chosen]
        if tokens.tolist() != expected:
            fail(
                f"{what}: got tokens {tokens.tolist()}, but these requests got {expected} in the original batch",
                diagnosis=MISTAKES["position_dependent"],
                rule=Bilingual(
                    f"a request's token changed when the batch was {how}", "批的组成改变后，某个请求的 token 变了"
                ),
                kind="value",
            )


def test_tiny_draw_sites(sub, ctx):
    """every draw site pushed to 0.0 and to the largest float below 1: tokens stay legal

    zh: 每个抽样点依次取 0.0 与小于 1 的最大浮点数：token 仍然合法
    """
    logits = [[NEG_INF, 1.0, 0.5, -0.3], [NEG_INF, NEG_INF, 2.0, 0.0], [-2.0, 0.3, 0.6, 2.2]]
    seeds, offsets = _seeds(ctx.rng, 3), _seeds(ctx.rng, 3)
    q = torch.softmax(torch.tensor(logits, dtype=torch.float64), dim=1)
    q[2] = torch.where(q[2] >= 0.05 * q[2].max(), q[2], torch.zeros_like(q[2]))

    def call(source, generator):
        return source.sample_batch(torch.tensor(logits), _ids(seeds), _ids(offsets), min_p=0.05)

    def check(value, what):
        expect(isinstance(value, (tuple, list)) and len(value) == 2, f"{what}: not a pair", kind="structural")
        tokens = expect_tensor(value[0], name=f"{what}: tokens", shape=(3,), dtype=torch.int64, device=ctx.device)
        expect_support(
            tokens.unsqueeze(1),
            q,
            what=what,
            why_excluded=lambda row, token: "its probability in the row's processed distribution is 0",
        )

    expect_every_draw_site(sub, ctx, call, check, label="sample_batch(3 rows whose first token is out)")
