"""The browser's tiny variant of exercise 53: small rows, a few hundred copies, one run each.

It computes its exact laws with theory53 (pure Python, public), so it needs no frozen values: the
same code serves the hidden suite on the server.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.i18n import Bilingual

from .checks53 import (
    expect_probabilities,
    run_candidates_law,
    run_tree_law,
)

BUDGET = BudgetDeclaration(fit=3)

P = [0.578125, 0.140625, 0.0, 0.28125]
Q = [0.15625, 0.0, 0.203125, 0.640625]
CANDIDATES = [3, 3, 3]
SHARED_P = [0.0, 0.1875, 0.1875, 0.625]
SHARED_Q = [0.3125, 0.3125, 0.0, 0.375]
SHARED_CANDIDATES = [1, 1, 3]
PARENTS = [-1, -1, -1, 2]
TOKENS = [3, 1, 1, 0]
PS = [
    [0.3125, 0.28125, 0.0, 0.40625],
    [0.3125, 0.0, 0.375, 0.3125],
    [0.46875, 0.0, 0.1875, 0.34375],
    [0.46875, 0.15625, 0.375, 0.0],
    [0.375, 0.0, 0.09375, 0.53125],
]
QS = [
    [0.34375, 0.09375, 0.0, 0.5625],
    [0.125, 0.1875, 0.0, 0.6875],
    [0.203125, 0.0, 0.203125, 0.59375],
    [0.46875, 0.0, 0.25, 0.28125],
    [0.625, 0.21875, 0.15625, 0.0],
]


def test_tiny_acceptance(sub, ctx):
    """acceptance_probability on two rows, k = 1, 2 and 5

    zh: acceptance_probability 在两行上，k = 1、2 与 5
    """
    for k in (1, 2, 5):
        value = sub.acceptance_probability(torch.tensor([P, Q]), torch.tensor([Q, P]), num_candidates=k)
        expect_probabilities(ctx, value, [P, Q], [Q, P], k, torch.float32, what=f"acceptance_probability (k = {k})")


def test_tiny_candidates(sub, ctx):
    """verify_candidates on 1500 copies of one row whose three candidates are one token

    zh: verify_candidates 在一行的 1500 个副本上（三个候选是同一个 token）
    """
    run_candidates_law(
        sub,
        ctx,
        P,
        Q,
        CANDIDATES,
        rows=1500,
        dtype=torch.float32,
        label="verify_candidates, tiny row",
        public=Bilingual("verify_candidates, tiny row", "verify_candidates，小例子"),
    )


def test_tiny_ratios_below_one(sub, ctx):
    """verify_candidates on 1500 copies of a row whose later candidates have ratios below 1

    zh: verify_candidates 在一行的 1500 个副本上（后面候选的比值小于 1）
    """
    run_candidates_law(
        sub,
        ctx,
        SHARED_P,
        SHARED_Q,
        SHARED_CANDIDATES,
        rows=1500,
        dtype=torch.float32,
        label="verify_candidates, tiny row with ratios below 1",
        public=Bilingual("verify_candidates, ratios below 1", "verify_candidates，比值小于 1"),
    )


def test_tiny_tree(sub, ctx):
    """verify_tree on 1500 copies of a four-node tree

    zh: verify_tree 在一棵四节点树的 1500 个副本上
    """
    run_tree_law(
        sub,
        ctx,
        PARENTS,
        TOKENS,
        PS,
        QS,
        rows=1500,
        dtype=torch.float32,
        label="verify_tree, tiny tree",
        public=Bilingual("verify_tree, tiny tree", "verify_tree，小树"),
    )
