"""Hidden tests of exercise 53: tree speculative decoding. They never leave the judge's process.

Exact values of ``acceptance_probability`` on generated rows; the laws of ``verify_candidates`` and
``verify_tree`` on generated fixed candidates and trees, each chosen so that every known mistake it
is aimed at moves the law beyond what the G-test misses (generated.py); trees the judge draws from
the draft itself, whose emitted tokens must follow the target; every draw site at both ends; the
generator contract; rows of one call independent; bad inputs generated from the statement, and the
legal corners.
"""

from __future__ import annotations

import functools
import random
from contextlib import nullcontext

import torch

from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_support
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

from ..public.checks53 import (
    OUTCOME_CANDIDATES,
    OUTCOME_TREE,
    candidates_law,
    check_candidates_structure,
    check_tree_structure,
    expand,
    expect_halves_independent,
    expect_not_constant,
    expect_probabilities,
    f64,
    run_candidates_law,
    run_tree_law,
    tree_law,
    unpack_candidates,
    unpack_tree,
)
from ..public.diagnoses import MISTAKES
from . import drawn, generated, specs

LAW_ROWS = 4000
SEED_ROWS = 200
SEED_CASE = generated.CandidateCase([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25], [3, 1, 2])
SEED_TREE = (
    generated.FALLBACK_TREE.parents,
    generated.FALLBACK_TREE.tokens,
    generated.FALLBACK_TREE.ps,
    generated.FALLBACK_TREE.qs,
)

# The law fits, the drawn trees' fits, one independence check and two generator contracts (no positions).
BUDGET = (
    BudgetDeclaration(fit=5 + drawn.FITS, independence=1) + generator_contract_budget() + generator_contract_budget()
)


@functools.cache
def _candidate_case(seed: int, which: int) -> generated.CandidateCase:
    rng = random.Random(f"{seed}:candidates:{which}")
    return generated.candidate_case(rng, LAW_ROWS, generated.CANDIDATES_AIMED[which])


@functools.cache
def _tree_case(seed: int, which: int) -> generated.TreeCase:
    return generated.tree_case(random.Random(f"{seed}:tree:{which}"), LAW_ROWS)


def test_acceptance_generated(sub, ctx):
    """acceptance_probability on generated rows (zeros, p = q, disjoint supports), k from 1 to beyond V

    zh: acceptance_probability 在生成的行上（含 0、p = q、支撑集不相交），k 从 1 到超过 V
    """
    rng = random.Random(ctx.fresh_seed("acceptance rows"))
    for dtype in (torch.float32, torch.float64):
        vocab = rng.randint(3, 6)
        p = [generated.row(rng, vocab, zeros=2) for _ in range(5)]
        q = [generated.row(rng, vocab, zeros=2) for _ in range(5)]
        q[1] = list(p[1])  # p = q: never rejected
        p[4] = [0.1, 0.9] + [0.0] * (vocab - 2)  # every rejection after the first keeps its mass 0.9:
        q[4] = [0.9, 0.1] + [0.0] * (vocab - 2)  # k beyond V still counts
        p[2], q[2] = [0.5, 0.5] + [0.0] * (vocab - 2), [0.0, 0.0] + [1.0 / (vocab - 2)] * (vocab - 2)  # disjoint
        p[3] = [v * (1 + 3e-5) for v in p[3]]  # a sum 1 only up to rounding
        for k in (1, 2, 3, vocab + 2):
            value = sub.acceptance_probability(
                torch.tensor(p, dtype=dtype), torch.tensor(q, dtype=dtype), num_candidates=k
            )
            exact = (
                [[float(torch.tensor(v, dtype=dtype)[i]) for i in range(vocab)] for v in p],
                [[float(torch.tensor(v, dtype=dtype)[i]) for i in range(vocab)] for v in q],
            )
            expect_probabilities(
                ctx, value, exact[0], exact[1], k, dtype, what=f"acceptance_probability ({dtype}, k = {k})"
            )


@lane_weight(2)
def test_candidate_laws(sub, ctx):
    """verify_candidates: the law of (index, token) on three generated rows with duplicate candidates

    zh: verify_candidates：三组生成的、含重复候选的行上（index，token）的分布
    """
    for which, dtype in enumerate((torch.float32, torch.float64, torch.float32)):
        case = _candidate_case(ctx.seed, which)
        run_candidates_law(
            sub,
            ctx,
            case.p,
            case.q,
            case.candidates,
            rows=LAW_ROWS,
            dtype=dtype,
            label=f"verify_candidates, p = {case.p}, q = {case.q}, candidates {case.candidates} ({dtype})",
            public=Bilingual(
                f"verify_candidates, generated row {which + 1}", f"verify_candidates，生成的第 {which + 1} 组"
            ),
        )


@lane_weight(2)
def test_tree_laws(sub, ctx):
    """verify_tree: the law of (last_node, final token) on two generated trees

    zh: verify_tree：两棵生成的树上（last_node，最终 token）的分布
    """
    for which, dtype in enumerate((torch.float64, torch.float32)):
        case = _tree_case(ctx.seed, which)
        run_tree_law(
            sub,
            ctx,
            case.parents,
            case.tokens,
            case.ps,
            case.qs,
            rows=LAW_ROWS,
            dtype=dtype,
            label=f"verify_tree, parents {case.parents}, tokens {case.tokens} ({dtype})",
            public=Bilingual(f"verify_tree, generated tree {which + 1}", f"verify_tree，生成的第 {which + 1} 棵树"),
        )


@lane_weight(2)
def test_drawn_trees(sub, ctx):
    """verify_tree on trees the judge draws from the draft: every emitted token follows the target

    zh: verify_tree 在评测从草稿分布抽出的树上：每个输出的 token 都服从目标分布
    """
    drawn.run(sub, ctx)


def _support_check(law: list[float], vocab: int):
    """The hard checks of a pushed run: an accepted candidate or node of law 0, at the lowest uniform,
    is accepted when u * q = r = 0 (the accept-when-equal mistake); any other outcome of law 0 is a draw
    site failing at an extreme."""

    def check(outcomes: torch.Tensor, what: str) -> None:
        accepted = outcomes[outcomes >= vocab].clone()
        with diagnosed(MISTAKES["accept_le"]) if "lowest value" in what else nullcontext():
            expect_support(
                accepted.unsqueeze(0),
                f64([law]),
                what=f"{what}: accepted outcomes",
                why_excluded=lambda row, o: "that candidate's residual is 0: it can never be accepted",
            )
        expect_support(
            outcomes.unsqueeze(0),
            f64([law]),
            what=what,
            why_excluded=lambda row, o: "that token has probability 0 in the row it is drawn from",
        )

    return check


# Rows whose residual vanishes or keeps tiny masses: p(x) = q(x) ties, zeros next to 2**-20, and a
# candidate at ratio 1 - 2**-25 whose rejection (at the largest float32 uniform) leaves max(p - q, 0)
# exactly 0 at every token.
EDGE_P = [0.25, 0.0, 0.5 - 2.0**-20, 0.25, 2.0**-20]
EDGE_Q = [0.25, 0.5, 0.0, 0.125, 0.125]
EDGE_ROWS = [
    (EDGE_P, EDGE_Q, [1, 1, 3]),
    (EDGE_P, EDGE_Q, [0, 4, 1]),
    (EDGE_P, EDGE_Q, [3, 1, 0]),
    (EDGE_P, EDGE_Q, [4, 4, 4]),
    ([0.5 - 2.0**-25, 0.25, 0.25, 0.0, 0.0], [0.5, 0.25, 0.25, 0.0, 0.0], [0, 0, 1]),
    ([0.0, 0.25, 0.25, 0.25 - 2.0**-26, 0.25], [0.0, 0.25, 0.25, 0.25, 0.25], [3, 1, 3]),
]


def test_draw_sites_candidates(sub, ctx):
    """verify_candidates: every draw site at 0 and at the largest float below 1 (ratios of 1, vanishing residuals)

    zh: verify_candidates：每个抽样点取 0 和小于 1 的最大浮点数（比值为 1、残差变为全零）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    cands = torch.tensor([c for _, _, c in EDGE_ROWS])
    p = torch.tensor([p for p, _, _ in EDGE_ROWS], dtype=torch.float32)
    q = torch.tensor([q for _, q, _ in EDGE_ROWS], dtype=torch.float32)
    rows, vocab = cands.shape[0], p.shape[-1]
    # The law of each row as float32 holds it (2**-25 below 0.5 is exact there).
    laws = [
        candidates_law(a.tolist(), b.tolist(), c)
        for a, b, c in zip(p.double(), q.double(), cands.tolist(), strict=True)
    ]

    def call(source, generator):
        value = source.verify_candidates(p.clone(), q.clone(), cands.clone(), generator=generator)
        index, token = unpack_candidates(ctx, value, batch=rows)
        check_candidates_structure(index, token, cands, vocab, what="verify_candidates, edge rows")
        return index, token

    def check(value, what: str) -> None:
        index, token = value
        for r in range(rows):  # each row against its own law
            one = ((index[r : r + 1] + 1) * vocab + token[r : r + 1]).clone()
            _support_check(laws[r], vocab)(one, f"{what}, row {r}")

    expect_every_draw_site(sub, ctx, call, check, label="verify_candidates, edge rows")


def test_draw_sites_tree(sub, ctx):
    """verify_tree: every draw site at 0 and at the largest float below 1 (ties at ratio 1, tiny masses)

    zh: verify_tree：每个抽样点取 0 和小于 1 的最大浮点数（比值恰为 1 的并列、极小的概率）
    """
    parents = [-1, -1, 0, 0, 1]
    tokens = [0, 3, 1, 4, 0]
    ps = [EDGE_P, [0.5, 0.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0 - 2.0**-20, 2.0**-20], EDGE_P, EDGE_P, EDGE_Q]
    qs = [EDGE_Q, [0.5, 0.25, 0.0, 0.125, 0.125], EDGE_Q, EDGE_Q, EDGE_Q, EDGE_Q]
    law = tree_law(parents, tokens, ps, qs)
    vocab, rows = len(EDGE_P), 4
    tree = torch.tensor([tokens] * rows)

    def call(source, generator):
        value = source.verify_tree(
            torch.tensor(parents),
            tree.clone(),
            expand(ps, rows, torch.float32),
            expand(qs, rows, torch.float32),
            generator=generator,
        )
        out, num, last = unpack_tree(ctx, value, batch=rows, depth=2)
        final = check_tree_structure(out, num, last, parents, tree, vocab, what="verify_tree, edge tree")
        return (last + 1) * vocab + final

    expect_every_draw_site(sub, ctx, call, _support_check(law, vocab), label="verify_tree, edge tree")


def test_seeds(sub, ctx):
    """verify_candidates: the generator decides and advances; without one, torch.manual_seed does

    zh: verify_candidates：由 generator 决定结果且每次调用都向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    case = SEED_CASE
    law = candidates_law(case.p, case.q, case.candidates)
    vocab = len(case.p)
    cands = torch.tensor([case.candidates] * SEED_ROWS)

    def draw(source, generator):
        value = source.verify_candidates(
            expand(case.p, SEED_ROWS, torch.float32),
            expand(case.q, SEED_ROWS, torch.float32),
            cands.clone(),
            generator=generator,
        )
        index, token = unpack_candidates(ctx, value, batch=SEED_ROWS)
        outcomes = (index + 1) * vocab + token
        expect_not_constant(outcomes, law, label="verify_candidates, seeds")
        return expect_tensor(outcomes.clone(), name="verify_candidates outcomes", shape=(SEED_ROWS,), dtype=torch.int64)

    expect_generator_contract(sub, ctx, draw, f64(law), label="verify_candidates", outcome=OUTCOME_CANDIDATES)


def test_seeds_tree(sub, ctx):
    """verify_tree: the generator decides and advances; without one, torch.manual_seed does

    zh: verify_tree：由 generator 决定结果且每次调用都向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    parents, tokens, ps, qs = SEED_TREE
    vocab = len(ps[0])
    tree = torch.tensor([tokens] * SEED_ROWS)

    def draw(source, generator):
        value = source.verify_tree(
            torch.tensor(parents),
            tree.clone(),
            expand(ps, SEED_ROWS, torch.float32),
            expand(qs, SEED_ROWS, torch.float32),
            generator=generator,
        )
        out, num, last = unpack_tree(ctx, value, batch=SEED_ROWS, depth=generated.depth(parents))
        final = check_tree_structure(out, num, last, parents, tree, vocab, what="verify_tree, seeds")
        outcomes = (last + 1) * vocab + final
        expect_not_constant(outcomes, tree_law(parents, tokens, ps, qs), label="verify_tree, seeds")
        return expect_tensor(outcomes.clone(), name="verify_tree outcomes", shape=(SEED_ROWS,), dtype=torch.int64)

    expect_generator_contract(
        sub, ctx, draw, f64(tree_law(parents, tokens, ps, qs)), label="verify_tree", outcome=OUTCOME_TREE
    )


def test_rows_independent(sub, ctx):
    """verify_tree: two halves of one batch of identical rows do not share their random numbers

    zh: verify_tree：同一批中完全相同的两半行不共用随机数
    """
    case = generated.FALLBACK_TREE
    rows, vocab = 2 * 600, len(case.ps[0])
    tree = torch.tensor([case.tokens] * rows)

    def call() -> torch.Tensor:
        value = sub.verify_tree(
            torch.tensor(case.parents),
            tree.clone(),
            expand(case.ps, rows, torch.float64),
            expand(case.qs, rows, torch.float64),
            generator=ctx.generator(),
        )
        out, num, last = unpack_tree(ctx, value, batch=rows, depth=generated.depth(case.parents))
        final = check_tree_structure(out, num, last, case.parents, tree, vocab, what="verify_tree, identical rows")
        return (last + 1) * vocab + final

    expect_halves_independent(
        ctx,
        call,
        tree_law(case.parents, case.tokens, case.ps, case.qs),
        label="verify_tree, two halves of identical rows",
        outcome=OUTCOME_TREE,
    )


# A float64 leaf row whose sum() exceeds its cumulative sum's last entry, with a last token of
# probability 0: an inverse CDF that scales u by sum() runs past the end at the largest uniform.
ROUNDING_LEAF = [
    0.04016527764050691,
    0.3014535079229233,
    0.22660567020841868,
    0.03950447319956665,
    0.32057293990671076,
    0.03714550026103369,
    0.034552630860839886,
    0.0,
]


def test_draw_sites_leaf_rounding(sub, ctx):
    """verify_tree: a leaf's bonus at the largest uniform, where sum() exceeds the last cumulative sum

    zh: verify_tree：叶子的奖励 token 在最大均匀数下（sum() 大于累积和的最后一项）
    """
    vocab, rows = len(ROUNDING_LEAF), 4
    root = [1.0 / 7] * 7 + [0.0]  # token 7 never comes from the root: only the leaf can run onto it
    ps, qs = [root, ROUNDING_LEAF], [root, root]  # p = q at the root: the leaf is always reached
    tree = torch.tensor([[3]] * rows)
    law = tree_law([-1], [3], ps, qs)

    def call(source, generator):
        value = source.verify_tree(
            torch.tensor([-1]),
            tree.clone(),
            expand(ps, rows, torch.float64),
            expand(qs, rows, torch.float64),
            generator=generator,
        )
        out, num, last = unpack_tree(ctx, value, batch=rows, depth=1)
        final = check_tree_structure(out, num, last, [-1], tree, vocab, what="verify_tree, rounding leaf")
        return (last + 1) * vocab + final

    def check(outcomes: torch.Tensor, what: str) -> None:
        past_end = "highest value" in what and bool((outcomes == 2 * vocab - 1).any())
        with diagnosed(MISTAKES["sampler_past_cdf_end"]) if past_end else nullcontext():
            _support_check(law, vocab)(outcomes, what)

    expect_every_draw_site(sub, ctx, call, check, label="verify_tree, rounding leaf")


def test_bad_inputs(sub, ctx):
    """Every bad input the statement names, generated from a good call, raises ValueError

    zh: 按题面生成的各种非法输入都抛出 ValueError
    """
    specs.expect_refusals(sub, ctx)


def test_corners(sub, ctx):
    """Legal corners (exact zeros, B = 1, k = 1, N = 1, V = 1, float32 and float64) work

    zh: 合法的边界情况（精确 0、B = 1、k = 1、N = 1、V = 1、float32 与 float64）都能正常运行
    """
    specs.expect_corners(sub, ctx)
