"""Trees the judge draws from the draft itself: the claim that the walk keeps the target's law.

A two-level language over V tokens: the target and the draft give the first token from one row each,
and the second token from a row that depends on the first (``P2[y]``, ``Q2[y]``). Each batch row gets
its own tree of the fixed shape below, its root's children drawn i.i.d. from the draft's first row
and each node's children from ``Q2`` of that node's token; its probability rows are the language's
rows at each node's prefix. Then, over the batch:

1. the first emitted token follows the target's first row;
2. the root accepts one of its children with ``acceptance_probability`` of its three candidates;
3. among rows that accepted at the root, the pair (first, second token) follows
   P(first token by acceptance) x P2[first](second), a leaf's bonus and a deeper node's verdict alike.
"""

from __future__ import annotations

import random

import torch

from judge.checks.distributions import expect_distribution, expect_support
from judge.i18n import Bilingual

from ..public.checks53 import check_tree_structure, f64, unpack_tree
from ..public.theory53 import acceptance_probability, next_residual
from .generated import row

PARENTS = [-1, -1, -1, 0, 0, 1]  # three candidates at the root; node 2 is a leaf at depth 1
ROWS = 6000
FITS = 3


def accepted_mass(p: list[float], q: list[float], k: int) -> list[float]:
    """P(some candidate is accepted and it is token y), for k i.i.d. candidates: the residuals do not
    depend on which candidate was rejected, so sum_i P(reach i) min(r_i(y), q(y))."""
    r, reach = list(p), 1.0
    out = [0.0] * len(p)
    for _ in range(k):
        for y in range(len(p)):
            out[y] += reach * min(r[y], q[y])
        reach *= sum(max(0.0, a - b) for a, b in zip(r, q, strict=True))
        r = next_residual(r, q)
    return out


def _language(rng: random.Random, vocab: int):
    p1, q1 = row(rng, vocab), row(rng, vocab, zeros=0)
    p2 = [row(rng, vocab) for _ in range(vocab)]
    q2 = [row(rng, vocab, zeros=0) for _ in range(vocab)]
    return p1, q1, p2, q2


def _batch(rng: torch.Generator, p1, q1, p2, q2, rows: int):
    """Each row's tree tokens and its [N+1, V] target and draft rows."""
    vocab = len(p1)
    n = len(PARENTS)
    tokens = torch.empty(rows, n, dtype=torch.int64)
    q1t, q2t = f64(q1), f64(q2)
    for node, parent in enumerate(PARENTS):
        if parent < 0:
            tokens[:, node] = torch.multinomial(q1t.expand(rows, vocab), 1, replacement=True, generator=rng).squeeze(1)
        else:
            tokens[:, node] = torch.multinomial(q2t[tokens[:, parent]], 1, generator=rng).squeeze(1)
    target = torch.empty(rows, n + 1, vocab, dtype=torch.float64)
    draft = torch.empty(rows, n + 1, vocab, dtype=torch.float64)
    target[:, 0], draft[:, 0] = f64(p1), q1t
    p2t = f64(p2)
    for node in range(n):  # after a depth-1 node, the second token's rows; deeper, the third token is
        # never judged here and the same rows serve
        target[:, node + 1], draft[:, node + 1] = p2t[tokens[:, node]], q2t[tokens[:, node]]
    return tokens, target, draft


def run(sub, ctx) -> None:
    rng = random.Random(ctx.fresh_seed("drawn trees"))
    vocab = rng.randint(3, 4)
    p1, q1, p2, q2 = _language(rng, vocab)
    tokens, target, draft = _batch(torch.Generator().manual_seed(rng.getrandbits(62)), p1, q1, p2, q2, ROWS)
    dtype = rng.choice((torch.float32, torch.float64))
    value = sub.verify_tree(
        torch.tensor(PARENTS), tokens.clone(), target.to(dtype), draft.to(dtype), generator=ctx.generator()
    )
    out, num, last = unpack_tree(ctx, value, batch=ROWS, depth=2)
    check_tree_structure(out, num, last, PARENTS, tokens, vocab, what="verify_tree, trees drawn from the draft")
    public = Bilingual("verify_tree, trees drawn from the draft", "verify_tree，从草稿分布抽出的树")

    first = out[:, 0].clone()
    expect_support(
        first.unsqueeze(0),
        f64([p1]),
        what="verify_tree, drawn trees: first emitted token",
        why_excluded=lambda r, t: "its target probability is 0",
    )
    expect_distribution(ctx, first, f64(p1), label="verify_tree, drawn trees: first emitted token", public=public)
    rate = acceptance_probability(p1, q1, 3)
    expect_distribution(
        ctx,
        (num >= 1).to(torch.int64),
        f64([1.0 - rate, rate]),
        label="verify_tree, drawn trees: the root accepts a child",
        public=public,
        outcome=Bilingual("root verdict (0 rejected, 1 accepted)", "根部判定（0 拒绝，1 接受）"),
    )
    mass = accepted_mass(p1, q1, 3)
    joint = [mass[a] / rate * p2[a][b] for a in range(vocab) for b in range(vocab)]
    reached = num >= 1
    pairs = (out[reached, 0] * vocab + out[reached, 1]).clone()
    expect_support(
        pairs.unsqueeze(0),
        f64([joint]),
        what="verify_tree, drawn trees: (first, second) tokens",
        why_excluded=lambda r, t: "the second token has target probability 0 after the first",
        outcome=Bilingual("(first, second) token pair", "（第一个，第二个）token 组合"),
    )
    expect_distribution(
        ctx,
        pairs,
        f64(joint),
        label="verify_tree, drawn trees: (first, second) tokens after an acceptance at the root",
        public=public,
        outcome=Bilingual("(first, second) token pair", "（第一个，第二个）token 组合"),
    )
