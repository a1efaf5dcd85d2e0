"""Exercise 53's refusal sentences, argument by argument, as the statement writes them; the good calls
the generated bad inputs start from; the refusals the generic specs cannot make (a candidate of draft
probability 0, a parent that is not an earlier node, a tree whose rows do not match it), and the legal
corners with what each must return.

The statement: each function raises ValueError when "`target_probs` or `draft_probs` is not a float32
or float64 tensor of the rank above, or the two differ in dtype or shape; a probability is negative,
NaN or infinite, or a row of `target_probs` has no positive entry; `num_candidates` is not a Python int
>= 1 (a bool, a float such as 2.0, 0, a negative); `candidates` or `tree_tokens` is not a 2-D int64
tensor with the batch B of the probabilities and at least one column, or holds a token outside [0, V);
a candidate or a tree token has draft probability 0 in the row it was drawn from ...; `parents` is not
a 1-D int64 tensor of N entries ..., or some `parents[n]` is not in [-1, n-1]; `target_probs` and
`draft_probs` are not [B, N+1, V] for `verify_tree`." float16 and bfloat16 are left open.
"""

from __future__ import annotations

import random
from typing import Any

import torch

from judge.checks.arguments import (
    NOT_FINITE,
    Count,
    Flaw,
    Probabilities,
    TokenIds,
    Variant,
    contract_refusals,
    legal_inputs,
    public_call,
)
from judge.checks.exact import expect
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.i18n import Bilingual

from ..public.checks53 import (
    check_candidates_structure,
    check_tree_structure,
    expect_probabilities,
    unpack_candidates,
    unpack_tree,
)
from ..public.diagnoses import MISTAKES
from ..public.theory53 import depths

TARGET_FLAWS = {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.BELOW, Flaw.ZERO_ROW, *NOT_FINITE}
DRAFT_FLAWS = {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.DTYPE_MISMATCH, Flaw.BELOW, *NOT_FINITE}

PAIR = {
    "target_probs": Probabilities(dims=("B", "V"), refuse=TARGET_FLAWS),
    "draft_probs": Probabilities(dims=("B", "V"), same_dtype_as="target_probs", refuse=DRAFT_FLAWS),
}
ACCEPTANCE_ARGUMENTS = {**PAIR, "num_candidates": Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT})}
CANDIDATES_ARGUMENTS = {
    **PAIR,
    "candidates": TokenIds(
        dims=("B", "K"),
        vocab="V",
        at_least={"K": 1},
        wrong_dtypes=(torch.int32, torch.uint8, torch.float32),
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.BELOW, Flaw.ABOVE},
    ),
}


def _row(rng: random.Random, vocab: int) -> list[float]:
    weights = [rng.randint(1, 9) for _ in range(vocab)]
    return [w / sum(weights) for w in weights]


def _dtype(rng: random.Random) -> torch.dtype:
    return rng.choice((torch.float32, torch.float64))


def good_pair(rng: random.Random) -> dict:
    """Two to four rows, V in 3..6, every probability positive."""
    rows, vocab, dtype = rng.randint(2, 4), rng.randint(3, 6), _dtype(rng)
    return {
        "target_probs": torch.tensor([_row(rng, vocab) for _ in range(rows)], dtype=dtype),
        "draft_probs": torch.tensor([_row(rng, vocab) for _ in range(rows)], dtype=dtype),
    }


def good_candidates(rng: random.Random) -> dict:
    """``good_pair`` and k in 1..3 candidates, each the largest entry of its draft row (no corner's zero
    lands on it)."""
    pair = good_pair(rng)
    k = rng.randint(1, 3)
    return {**pair, "candidates": pair["draft_probs"].argmax(dim=-1, keepdim=True).repeat(1, k)}


TREE_PARENTS = [-1, -1, 0, 2]


def good_tree(rng: random.Random) -> dict:
    """The tree [-1, -1, 0, 2], two or three rows, V in 3..5, each token the largest entry of its draft row."""
    rows, vocab, dtype = rng.randint(2, 3), rng.randint(3, 5), _dtype(rng)
    size = len(TREE_PARENTS)
    p = torch.tensor([[_row(rng, vocab) for _ in range(size + 1)] for _ in range(rows)], dtype=dtype)
    q = torch.tensor([[_row(rng, vocab) for _ in range(size + 1)] for _ in range(rows)], dtype=dtype)
    best = q.argmax(dim=-1)  # [B, N+1]
    tokens = torch.stack([best[:, a + 1] for a in TREE_PARENTS], dim=1)
    return {"parents": torch.tensor(TREE_PARENTS), "tree_tokens": tokens, "target_probs": p, "draft_probs": q}


def _call(function, name: str, detail: str, kwargs: dict, en: str, zh: str, diagnosis=None) -> BadCall:
    return BadCall(
        function,
        f"{name}() with {detail}",
        kwargs=kwargs,
        public=Bilingual(f"{name}() with {en}", f"{name}() 收到{zh}时"),
        diagnosis=diagnosis,
    )


def _zero_draft(good: dict, tokens: torch.Tensor, rows_of) -> dict:
    """``good`` with the draft probability of one token moved to another token of its row."""
    q = good["draft_probs"].clone().to(torch.float64)
    b, n = 0, tokens.shape[1] - 1  # the last token of row 0: after a rejection or not, it must be refused
    row = rows_of(n)
    token = int(tokens[b, n])
    q[b, row, token] if q.dim() == 3 else None
    if q.dim() == 3:
        q[b, row, (token + 1) % q.shape[-1]] += q[b, row, token]
        q[b, row, token] = 0.0
    else:
        q[b, (token + 1) % q.shape[-1]] += q[b, token]
        q[b, token] = 0.0
    return {**good, "draft_probs": q.to(good["draft_probs"].dtype)}


def extra_refusals(sub, ctx, rng: random.Random) -> list[BadCall]:
    """What the generic specs cannot make: bools as num_candidates, zero draft probabilities, bad trees."""
    out = []
    pair = good_pair(rng)
    for bad, en, zh in (
        (True, "a bool as num_candidates", "bool 形式的 num_candidates"),
        (2.0, "num_candidates = 2.0", " num_candidates = 2.0 "),
    ):
        out.append(
            _call(
                sub.acceptance_probability,
                "acceptance_probability",
                f"num_candidates = {bad!r}",
                {**pair, "num_candidates": bad},
                en,
                zh,
            )
        )
    good = good_candidates(rng)
    if good["target_probs"].shape[-1] >= 2:
        out.append(
            _call(
                sub.verify_candidates,
                "verify_candidates",
                "a candidate of draft probability 0",
                {**_zero_draft(good, good["candidates"], lambda n: 0), "generator": ctx.generator()},
                "a candidate of draft probability 0",
                "草稿概率为 0 的候选",
                diagnosis=MISTAKES["q_zero_accepted"],
            )
        )
    tree = good_tree(rng)
    gen = ctx.generator
    out.append(
        _call(
            sub.verify_tree,
            "verify_tree",
            "a tree token of draft probability 0 (node 3, below node 2)",
            {**_zero_draft(tree, tree["tree_tokens"], lambda n: TREE_PARENTS[n] + 1), "generator": gen()},
            "a tree token of draft probability 0",
            "草稿概率为 0 的树上 token",
            diagnosis=MISTAKES["q_zero_accepted"],
        )
    )
    for parents, detail in (
        ([-1, -1, 2, 2], "parents[2] = 2 (not earlier)"),
        ([-1, -1, 0, 4], "parents[3] = 4"),
        ([-1, -2, 0, 2], "parents[1] = -2"),
        ([0, -1, 0, 2], "parents[0] = 0"),
    ):
        out.append(
            _call(
                sub.verify_tree,
                "verify_tree",
                f"parents {parents}: {detail}",
                {**tree, "parents": torch.tensor(parents), "generator": gen()},
                "a parent that is not an earlier node",
                "不是更早节点的父节点",
            )
        )
    for value, detail, en, zh in (
        (
            torch.tensor(TREE_PARENTS, dtype=torch.int32),
            "int32 parents",
            "parents of dtype int32",
            " int32 的 parents ",
        ),
        (torch.tensor([TREE_PARENTS]), "parents of shape [1, N]", "2-D parents", "二维的 parents"),
        (TREE_PARENTS, "parents as a list", "parents as a list", "列表形式的 parents"),
        (
            torch.tensor(TREE_PARENTS[:-1]),
            "parents of N - 1 entries",
            "parents of the wrong length",
            "长度不对的 parents",
        ),
        (
            torch.tensor([*TREE_PARENTS, 0]),
            "parents of N + 1 entries",
            "parents of the wrong length",
            "长度不对的 parents",
        ),
    ):
        out.append(
            _call(sub.verify_tree, "verify_tree", detail, {**tree, "parents": value, "generator": gen()}, en, zh)
        )
    p, q, t = tree["target_probs"], tree["draft_probs"], tree["tree_tokens"]
    rows, vocab = p.shape[0], p.shape[-1]
    variants = [
        (
            "target_probs [B, N, V]",
            {"target_probs": p[:, :-1].clone()},
            "target_probs of the wrong number of rows",
            "行数不对的 target_probs",
        ),
        (
            "draft_probs [B, N+2, V]",
            {"draft_probs": torch.cat([q, q[:, -1:]], dim=1)},
            "draft_probs of the wrong number of rows",
            "行数不对的 draft_probs",
        ),
        (
            "both [B, N+2, V]",
            {"target_probs": torch.cat([p, p[:, -1:]], dim=1), "draft_probs": torch.cat([q, q[:, -1:]], dim=1)},
            "probabilities of N + 2 rows",
            "N + 2 行的概率",
        ),
        ("target_probs [B, N+1]", {"target_probs": p[..., 0].clone()}, "2-D target_probs", "二维的 target_probs"),
        (
            "draft_probs of dtype int64",
            {"draft_probs": q.ge(0).to(torch.int64)},
            "integer draft_probs",
            "整数的 draft_probs",
        ),
        (
            "float64 target, float32 draft" if p.dtype == torch.float64 else "float32 target, float64 draft",
            {"draft_probs": q.to(torch.float32 if p.dtype == torch.float64 else torch.float64)},
            "two dtypes",
            "两种 dtype",
        ),
        (
            "a NaN in draft_probs",
            {
                "draft_probs": q.clone().index_put_(
                    (torch.tensor(0), torch.tensor(2), torch.tensor(0)), torch.tensor(float("nan"), dtype=q.dtype)
                )
            },
            "a NaN probability",
            "NaN 概率",
        ),
        (
            "a negative target probability",
            {
                "target_probs": p.clone().index_put_(
                    (torch.tensor(rows - 1), torch.tensor(4), torch.tensor(0)), torch.tensor(-1e-3, dtype=p.dtype)
                )
            },
            "a negative probability",
            "负的概率",
        ),
        (
            "a target row of zeros (a leaf's)",
            {
                "target_probs": p.clone().index_put_(
                    (torch.tensor(0), torch.tensor(2)), torch.zeros(vocab, dtype=p.dtype)
                )
            },
            "a target row without a positive entry",
            "没有正数的目标行",
        ),
        (
            "tree_tokens of dtype int32",
            {"tree_tokens": t.to(torch.int32)},
            "tree_tokens of dtype int32",
            " int32 的 tree_tokens ",
        ),
        (
            "tree_tokens with a token V",
            {"tree_tokens": t.clone().index_put_((torch.tensor(0), torch.tensor(1)), torch.tensor(vocab))},
            "a tree token outside [0, V)",
            "超出 [0, V) 的树上 token",
        ),
        (
            "tree_tokens with a token -1",
            {"tree_tokens": t.clone().index_put_((torch.tensor(rows - 1), torch.tensor(2)), torch.tensor(-1))},
            "a tree token outside [0, V)",
            "超出 [0, V) 的树上 token",
        ),
        (
            "tree_tokens of B + 1 rows",
            {"tree_tokens": torch.cat([t, t[:1]])},
            "tree_tokens of another batch",
            "批大小不对的 tree_tokens",
        ),
        ("tree_tokens [B]", {"tree_tokens": t[:, 0].clone()}, "1-D tree_tokens", "一维的 tree_tokens"),
        (
            "no tree node (N = 0)",
            {
                "parents": torch.zeros(0, dtype=torch.int64),
                "tree_tokens": t[:, :0].clone(),
                "target_probs": p[:, :1].clone(),
                "draft_probs": q[:, :1].clone(),
            },
            "an empty tree",
            "空树",
        ),
    ]
    for detail, change, en, zh in variants:
        out.append(_call(sub.verify_tree, "verify_tree", detail, {**tree, **change, "generator": gen()}, en, zh))
    return out


def both_refusals(sub, ctx, rng: random.Random) -> list[BadCall]:
    """Both probability arguments changed alike, so that no mismatch gives them away: both int64 one-hots
    of each row's largest entry ("not a float32 or float64 tensor"), both with a leading dimension of 1
    ("not of the rank above")."""
    out = []
    for name, function, good in (
        ("acceptance_probability", sub.acceptance_probability, good_pair(rng) | {"num_candidates": 2}),
        ("verify_candidates", sub.verify_candidates, good_candidates(rng) | {"generator": ctx.generator()}),
        ("verify_tree", sub.verify_tree, good_tree(rng) | {"generator": ctx.generator()}),
    ):
        p, q = good["target_probs"], good["draft_probs"]
        ints = {
            k: torch.zeros_like(v, dtype=torch.int64).scatter(-1, v.argmax(dim=-1, keepdim=True), 1)
            for k, v in (("target_probs", p), ("draft_probs", q))
        }
        out.append(
            _call(
                function,
                name,
                "target_probs and draft_probs both of dtype int64",
                {**good, **ints},
                "both probabilities of dtype int64",
                "两个概率都是 int64 ",
            )
        )
        ranked = {"target_probs": p.unsqueeze(0), "draft_probs": q.unsqueeze(0)}
        out.append(
            _call(
                function,
                name,
                "target_probs and draft_probs both with a leading dimension of 1",
                {**good, **ranked},
                "both probabilities of another rank",
                "两个概率的维数都不对",
            )
        )
    return out


def expect_refusals(sub, ctx) -> None:
    rng = random.Random(ctx.fresh_seed("refusals"))
    calls = contract_refusals(
        sub.acceptance_probability, good_pair(rng) | {"num_candidates": 2}, ACCEPTANCE_ARGUMENTS, rng
    )
    calls += contract_refusals(
        sub.verify_candidates,
        good_candidates(rng),
        CANDIDATES_ARGUMENTS,
        rng,
        extra=lambda: {"generator": ctx.generator()},
    )
    calls += extra_refusals(sub, ctx, rng)
    calls += both_refusals(sub, ctx, rng)
    # A mistake is named by a bad input it lets through only when every other one was refused.
    expect_calls_refused(sorted(calls, key=lambda call: call.diagnosis is not None))


def _f64(value: torch.Tensor) -> list:
    return value.detach().to(torch.float64).tolist()


def expect_corners(sub, ctx) -> None:
    """Each legal corner returns normally, with the right structure (and value, for the probability)."""
    rng = random.Random(ctx.fresh_seed("corners"))
    good = good_pair(rng) | {"num_candidates": 2}
    for variant in legal_inputs(good, ACCEPTANCE_ARGUMENTS, rng):
        kw = variant.kwargs
        value = sub.acceptance_probability(**kw)
        expect_probabilities(
            ctx,
            value,
            _f64(kw["target_probs"]),
            _f64(kw["draft_probs"]),
            kw["num_candidates"],
            kw["target_probs"].dtype,
            what=str(public_call("acceptance_probability", variant)),
        )
    for variant in legal_inputs(good_candidates(rng), CANDIDATES_ARGUMENTS, rng):
        kw = variant.kwargs
        if (kw["draft_probs"].gather(1, kw["candidates"]) <= 0).any():
            continue  # a corner that put a zero under a candidate is a refusal, not a corner
        value = sub.verify_candidates(**kw, generator=ctx.generator())
        index, token = unpack_candidates(ctx, value, batch=kw["candidates"].shape[0])
        check_candidates_structure(
            index,
            token,
            kw["candidates"],
            kw["target_probs"].shape[-1],
            what=str(public_call("verify_candidates", variant)),
        )
    _tree_corners(sub, ctx, rng)


def _tree_corners(sub, ctx, rng: random.Random) -> None:
    """One node (N = 1), one row (B = 1), one token (V = 1), exact zeros, float32 and float64, a chain."""
    corners = []
    for parents in ([-1], [-1, 0, 1], [-1, -1, -1]):
        for vocab in (1, 3):
            dtype = _dtype(rng)
            size = len(parents)
            p = torch.tensor([[_row(rng, vocab) for _ in range(size + 1)]], dtype=dtype)
            q = torch.tensor([[_row(rng, vocab) for _ in range(size + 1)]], dtype=dtype)
            if vocab > 1:
                p[0, 0, 0] = 0.0  # an exact zero in the root's target
            tokens = torch.tensor([[int(q[0, a + 1].argmax()) for a in parents]])
            corners.append((parents, tokens, p, q))
    for parents, tokens, p, q in corners:
        what = f"verify_tree(parents {parents}, V = {p.shape[-1]}, {p.dtype})"
        value = sub.verify_tree(torch.tensor(parents), tokens, p, q, generator=ctx.generator())
        out, num, last = unpack_tree(ctx, value, batch=1, depth=max(depths(parents)))
        final = check_tree_structure(out, num, last, parents, tokens, p.shape[-1], what=what)
        row = int(last[0]) + 1
        expect(
            p.shape[-1] > 1 or int(final[0]) == 0,
            f"{what}: emitted {out.tolist()}",
            rule=Bilingual(f"{what}: a token outside the vocabulary", f"{what}：token 超出词表"),
        )
        del row


del Any, Variant
