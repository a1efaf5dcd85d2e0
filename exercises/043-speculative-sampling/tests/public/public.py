"""Public tests of exercise 43: the statement's worked examples, and one statistical run.

The hidden tests check the same rules on more rows, in float32 and float64: random rows for the
rates and the filter (with ties at the k-th logit), verifications whose draft tokens the judge
draws from q in two contexts, a step that drafts for itself with temperature and top-k, uniforms
of exactly 0, seeds and bad inputs.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect
from judge.checks.refusals import expect_raises

from . import checks43
from .checks43 import expect_values, rate_mistakes, topk_rate
from .contexts import PS, QS
from .diagnoses import MISTAKES

BUDGET = BudgetDeclaration(fit=4, pairs=1)  # one verify run, K = 2: N, positions 0 and 1, the bonus; its rows

P = [[0.5, 0.3, 0.2, 0.0]]
Q = [[0.25, 0.25, 0.25, 0.25]]
TARGET_LOGITS = [[2.0, 1.0, 1.0, 0.0]]
DRAFT_LOGITS = [[2.0, 0.0, 0.0, 1.5]]


def test_rates_example(sub, ctx):
    """acceptance_rate([0.5, 0.3, 0.2, 0], uniform) is 0.7 and total_variation is 0.3

    zh: acceptance_rate([0.5, 0.3, 0.2, 0], 均匀分布) 为 0.7，total_variation 为 0.3
    """
    mistakes = rate_mistakes(P, Q)
    for name, want in (("acceptance_rate", [0.7]), ("total_variation", [0.3])):
        value = getattr(sub, name)(torch.tensor(P, dtype=torch.float64), torch.tensor(Q, dtype=torch.float64))
        expect_values(
            ctx,
            value,
            want,
            torch.float64,
            name=name,
            shape=(1,),
            what=f"{name} (worked example)",
            mistakes=mistakes[name],
        )


def test_topk_example(sub, ctx):
    """topk_acceptance_rate with top_k = 2: the target keeps its tie at the 2nd logit

    zh: topk_acceptance_rate（top_k = 2）：目标分布在第 2 大 logit 处的并列全部保留
    """
    target, draft = torch.tensor(TARGET_LOGITS), torch.tensor(DRAFT_LOGITS)
    kept = sub.filtered_probs(target, temperature=1.0, top_k=2)
    filters = {  # the rows filtered_probs is checked on, each with the mistakes it can tell apart
        "target": (TARGET_LOGITS[0], ("topk_exact_k", "topk_not_renormalised", "topk_strict")),
        "draft": (DRAFT_LOGITS[0], ("topk_not_renormalised", "topk_k_plus_one", "topk_strict")),
    }
    expect_values(
        ctx,
        kept,
        [checks43.theory.filtered(TARGET_LOGITS[0], 1.0, 2)],
        torch.float32,
        name="filtered_probs",
        shape=(1, 4),
        what="filtered_probs([2, 1, 1, 0], top_k=2)",
        mistakes={m: [checks43.theory.filtered(TARGET_LOGITS[0], 1.0, 2, m)] for m in filters["target"][1]},
    )
    # The draft's row has no tie: a cut off by one keeps 3 or 1 tokens of it instead of 2.
    expect_values(
        ctx,
        sub.filtered_probs(draft, temperature=1.0, top_k=2),
        [checks43.theory.filtered(DRAFT_LOGITS[0], 1.0, 2)],
        torch.float32,
        name="filtered_probs",
        shape=(1, 4),
        what="filtered_probs([2, 0, 0, 1.5], top_k=2)",
        mistakes={m: [checks43.theory.filtered(DRAFT_LOGITS[0], 1.0, 2, m)] for m in filters["draft"][1]},
    )
    # Both filters passed: a mistake that would have filtered either row otherwise is refuted, and
    # stays out of the rate's diagnosis (a cut at k + 1 gives this rate too, as filtering the target
    # only does: the draft's filter, right above, tells them apart).
    refuted = {
        m
        for logits, listed in filters.values()
        for m in listed
        if _differs(checks43.theory.filtered(logits, 1.0, 2, m), checks43.theory.filtered(logits, 1.0, 2))
    }
    value = sub.topk_acceptance_rate(target, draft, temperature=1.0, top_k=2)
    expect_values(
        ctx,
        value,
        topk_rate(TARGET_LOGITS, DRAFT_LOGITS, 1.0, 2),
        torch.float32,
        name="topk_acceptance_rate",
        shape=(1,),
        what="topk_acceptance_rate (worked example)",
        mistakes={
            m: topk_rate(TARGET_LOGITS, DRAFT_LOGITS, 1.0, 2, m) for m in checks43.TOPK_MISTAKES if m not in refuted
        },
    )


def _differs(first: list[float], second: list[float]) -> bool:
    """Whether two filtered rows differ by more than any float32 rounding."""
    return any(abs(a - b) > 1e-4 for a, b in zip(first, second, strict=True))


def test_verify_all_accepted(sub, ctx):
    """verify with p = q: every draft token is accepted and the bonus comes from a one-hot p_K

    zh: verify 在 p = q 时：草稿 token 全部被接受，奖励 token 来自独热的 p_K
    """
    p = torch.tensor([[[0.25] * 4, [0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 1.0, 0.0]]] * 2)
    q = p[:, :2].clone()
    drafts = torch.tensor([[1, 3], [0, 2]])
    tokens, num = checks43.unpack(ctx, sub.verify(p, q, drafts, generator=ctx.generator()), name="verify", batch=2, k=2)
    checks43.check_structure(tokens, num, drafts, 4, what="verify(p = q)")
    expect(
        tokens.tolist() == [[1, 3, 2], [0, 2, 2]] and num.tolist() == [2, 2],
        f"verify(p = q) returned tokens {tokens.tolist()}, num_accepted {num.tolist()}; "
        "expected [[1, 3, 2], [0, 2, 2]] and [2, 2]",
    )


def test_verify_certain_rejection(sub, ctx):
    """verify where p_0 gives the draft token probability 0: the residual is one token, then pads (32 rows)

    zh: verify 中 p_0 给草稿 token 的概率为 0：残差只有一个 token，其后全是填充值（32 行）
    """
    rows = 32
    # Position 0 rejects x_0 = 1 whatever u is, and its residual max(0, p_0 - q_0) is token 3 alone (|p_0 - q_0|
    # also has tokens 0 and 1, p_0 + q_0 token 2 too). Position 1 would accept x_1 = 0 (p_1 > q_1) in the even
    # rows and reject x_1 = 2 (p_1 = 0) in the odd ones: only a verify that goes on past the rejection sees it.
    p = torch.tensor([[[0.0, 0.0, 0.25, 0.75], [0.5, 0.5, 0.0, 0.0], [0.25] * 4]] * rows)
    q = torch.tensor([[[0.25, 0.5, 0.25, 0.0], [0.25] * 4]] * rows)
    drafts = torch.tensor([[1, 0], [1, 2]] * (rows // 2))
    value = sub.verify(p, q, drafts.clone(), generator=ctx.generator())
    tokens, num = checks43.unpack(ctx, value, name="verify", batch=rows, k=2)
    checks43.check_structure(tokens, num, drafts, 4, what="verify(certain rejection)")
    firsts = set(tokens[:, 0].tolist())
    even, odd = num[0::2], num[1::2]
    if bool((num == 2).any()):
        diagnosis = MISTAKES["ratio_inverted"]  # only q/p accepts a token whose p is 0 (odd rows: x_1 too)
    elif bool((even == 1).all() and (odd == 0).all() and (tokens[0::2, 0] == 1).all()):
        diagnosis = MISTAKES["num_counts_all_acceptances"]  # x_0 rejected, x_1 accepted and counted
    elif bool((num != 0).any()):
        diagnosis = None  # a residual's shape changes no acceptance: its evidence is rows that all reject
    elif firsts <= {0, 1}:
        diagnosis = MISTAKES["residual_swapped"]  # max(0, q - p) is tokens 0 and 1 here
    elif firsts & {0, 1} and 3 in firsts and firsts <= {0, 1, 3}:
        diagnosis = MISTAKES["residual_abs"]  # |p - q| puts its mass on tokens 0, 1 and 3, never on 2
    else:
        diagnosis = None
    expect(
        tokens.tolist() == [[3, -1, -1]] * rows and num.tolist() == [0] * rows,
        f"verify(certain rejection) returned tokens {tokens.tolist()}, num_accepted {num.tolist()}; "
        f"expected [3, -1, -1] and 0 in each of the {rows} rows",
        diagnosis=diagnosis,
        kind="value",
    )


def test_verify_distribution(sub, ctx):
    """verify: 500 rows drafted from q; the number accepted, the first and the bonus token fit theory

    zh: verify：500 行草稿从 q 抽取；接受个数、第一个 token 与奖励 token 都符合理论
    """
    checks43.run_verify(
        sub, ctx, PS, QS, 500, torch.float32, label="verify (public context)", public="verify", seed=43_001
    )


def test_zero_draft_probability(sub, ctx):
    """verify raises ValueError when a draft token has draft probability 0

    zh: 草稿 token 的草稿概率为 0 时，verify 抛出 ValueError
    """
    p = torch.tensor([[[0.5, 0.5], [0.5, 0.5]]])
    q = torch.tensor([[[1.0, 0.0]]])
    with expect_raises(ValueError, "verify(draft token 1 with q = 0)"):
        sub.verify(p, q, torch.tensor([[1]]), generator=ctx.generator())
