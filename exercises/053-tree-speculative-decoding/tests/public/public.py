"""Public tests of exercise 53: the statement's worked examples, two statistical runs, and refusals.

The hidden tests check the same rules on generated rows and trees, in float32 and float64: exact
acceptance probabilities, the laws of fixed candidates and trees (duplicates, leaves at several
depths, vanishing residuals), trees the judge draws from q itself, every draw site at both ends,
the generator contract, and bad inputs generated from the statement.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect
from judge.checks.refusals import expect_raises
from judge.i18n import Bilingual

from .checks53 import (
    candidates_law,
    check_candidates_structure,
    check_tree_structure,
    expand,
    expect_halves_independent,
    expect_probabilities,
    run_candidates_law,
    run_tree_law,
    unpack_candidates,
    unpack_tree,
)
from .diagnoses import MISTAKES

BUDGET = BudgetDeclaration(fit=2, independence=1)  # two laws; the rows' independence

P = [0.5, 0.3, 0.2, 0.0]
Q = [0.25, 0.25, 0.25, 0.25]
DUP_P = [0.0, 0.34375, 0.265625, 0.390625]
DUP_Q = [0.453125, 0.0, 0.34375, 0.203125]
PARENTS = [-1, -1, 0]
TREE_TOKENS = [0, 1, 1]
UNIFORM = [0.25, 0.25, 0.25, 0.25]
TREE_P = [[0.1, 0.2, 0.3, 0.4], [0.6, 0.2, 0.2, 0.0], UNIFORM, [0.0, 0.0, 1.0, 0.0]]
TREE_Q = [[0.4, 0.3, 0.2, 0.1], UNIFORM, UNIFORM, UNIFORM]
# First: rows that share their uniforms fail here, named, before a law case could name another mistake.
# Every outcome is decided by the acceptance uniforms alone: the first candidate is accepted with
# chance 1/2, and after its rejection the residual is all on token 0 (p - q), so the rest are
# rejected and token 0 is drawn. Rows sharing their uniforms then agree in every call, whatever
# else they do, and two calls differ with chance 1/2.
ROWS_P = [0.5, 0.125, 0.0, 0.375]
ROWS_Q = [0.125, 0.125, 0.0, 0.75]
ROWS_CANDIDATES = [3, 3, 3]


def test_rows_independent(sub, ctx):
    """verify_candidates: two halves of 800 identical rows do not share their random numbers

    zh: verify_candidates：800 个相同行的两半不共用随机数
    """
    rows, vocab = 800, len(ROWS_P)
    cands = torch.tensor([ROWS_CANDIDATES] * rows)

    def call() -> torch.Tensor:
        p, q = expand(ROWS_P, rows, torch.float32), expand(ROWS_Q, rows, torch.float32)
        value = sub.verify_candidates(p, q, cands.clone(), generator=ctx.generator())
        index, token = unpack_candidates(ctx, value, batch=rows)
        check_candidates_structure(index, token, cands, vocab, what="verify_candidates, identical rows")
        return (index + 1) * vocab + token

    expect_halves_independent(
        ctx,
        call,
        candidates_law(ROWS_P, ROWS_Q, ROWS_CANDIDATES),
        label="verify_candidates, two halves of identical rows",
        outcome=Bilingual("(index, token) pair", "（index，token）组合"),
    )


def test_acceptance_example(sub, ctx):
    """acceptance_probability([0.5, 0.3, 0.2, 0], uniform) is 0.7, 0.825, 0.86875, 0.9015625 for k = 1..4

    zh: acceptance_probability([0.5, 0.3, 0.2, 0], 均匀分布) 在 k = 1..4 时为 0.7、0.825、0.86875、0.9015625
    """
    for k in (1, 2, 3, 4):
        value = sub.acceptance_probability(
            torch.tensor([P], dtype=torch.float64), torch.tensor([Q], dtype=torch.float64), num_candidates=k
        )
        expect_probabilities(ctx, value, [P], [Q], k, torch.float64, what=f"acceptance_probability (k = {k})")


def test_duplicate_candidates(sub, ctx):
    """verify_candidates with candidates [0, 2, 2]: the law of (index, token)

    zh: verify_candidates 的候选为 [0, 2, 2]：（index，token）的分布
    """
    run_candidates_law(
        sub,
        ctx,
        DUP_P,
        DUP_Q,
        [0, 2, 2],
        rows=2000,
        dtype=torch.float64,
        label=f"verify_candidates, p = {DUP_P}, q = {DUP_Q}, candidates [0, 2, 2]",
        public=Bilingual("verify_candidates, a duplicate candidate", "verify_candidates，含重复候选"),
    )


def test_worked_tree(sub, ctx):
    """verify_tree on the worked tree: the law of (last_node, final token)

    zh: verify_tree 在算例中的树上：（last_node，最终 token）的分布
    """
    run_tree_law(
        sub,
        ctx,
        PARENTS,
        TREE_TOKENS,
        TREE_P,
        TREE_Q,
        rows=3000,
        dtype=torch.float32,
        label="verify_tree, worked tree",
        public=Bilingual("verify_tree, worked tree", "verify_tree，算例中的树"),
    )


def test_tree_p_equals_q(sub, ctx):
    """verify_tree with p = q at every node: the first child is always accepted, down to a leaf

    zh: verify_tree 在每个节点都有 p = q 时：第一个子节点总被接受，一直走到叶子
    """
    parents = [-1, 0, 0, -1, 1]
    tree = torch.tensor([[1, 2, 0, 3, 3], [0, 0, 0, 0, 0]])
    p = torch.full((2, 6, 4), 0.25)
    p[:, 5] = torch.tensor([0.0, 0.0, 0.0, 1.0])  # node 4, a leaf, ends with token 3
    q = p.clone()
    value = sub.verify_tree(torch.tensor(parents), tree, p, q, generator=ctx.generator())
    tokens, num, last = unpack_tree(ctx, value, batch=2, depth=3)
    check_tree_structure(tokens, num, last, parents, tree, 4, what="verify_tree(p = q)")
    expect(
        last.tolist() == [4, 4] and tokens.tolist() == [[1, 2, 3, 3], [0, 0, 0, 3]],
        f"verify_tree(p = q): tokens {tokens.tolist()}, last_node {last.tolist()}; expected the path 0 -> 1 -> 4 "
        "and the bonus token 3 in both rows",
        rule=Bilingual(
            "verify_tree(p = q): not the path of first children and the leaf's bonus",
            "verify_tree(p = q)：不是沿第一个子节点走下去的路径加上叶子的奖励 token",
        ),
    )


def test_refusals(sub, ctx):
    """A candidate of draft probability 0, a parent that is not an earlier node, k = 0: ValueError

    zh: 草稿概率为 0 的候选、不是更早节点的父节点、k = 0：都抛出 ValueError
    """
    p = torch.tensor([P])
    q = torch.tensor([[0.5, 0.5, 0.0, 0.0]])
    with expect_raises(
        ValueError, "verify_candidates with a candidate of draft probability 0", diagnosis=MISTAKES["q_zero_accepted"]
    ):
        sub.verify_candidates(p, q, torch.tensor([[0, 2]]), generator=ctx.generator())
    with expect_raises(ValueError, "verify_candidates with no candidate (k = 0)"):
        sub.verify_candidates(p, q, torch.zeros((1, 0), dtype=torch.int64), generator=ctx.generator())
    with expect_raises(ValueError, "acceptance_probability with num_candidates = 0"):
        sub.acceptance_probability(p, q, num_candidates=0)
    probs = torch.full((1, 3, 4), 0.25)
    with expect_raises(ValueError, "verify_tree with parents [1, -1] (node 0's parent is not earlier)"):
        sub.verify_tree(torch.tensor([1, -1]), torch.tensor([[0, 1]]), probs, probs.clone(), generator=ctx.generator())
