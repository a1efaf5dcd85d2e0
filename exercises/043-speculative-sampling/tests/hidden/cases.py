"""Frozen inputs of exercise 43's hidden tests, with their exact answers (float64, ``theory.py``).

Inputs come from :class:`random.Random` with fixed seeds, rounded to the dtype of the case before
the answers are computed from them. Top-k cases have, in every row, either a gap of at least
``TOPK_MARGIN`` between the k-th and the (k+1)-th largest logit or a designed exact tie whose
answer does not depend on which tied token a mistaken "exactly k" filter keeps (checked here).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

import torch

from ..public import theory
from ..public.checks43 import TOPK_MISTAKES, rate_mistakes, topk_rate

TOPK_MARGIN = 1e-3


class AmbiguousCase(AssertionError):
    """A frozen case whose answer would hang on rounding: a bug in this file."""


@dataclass(frozen=True)
class RateCase:
    p: list
    q: list
    dtype: torch.dtype

    def tensors(self):
        return torch.tensor(self.p, dtype=self.dtype), torch.tensor(self.q, dtype=self.dtype)

    def expected(self):
        return {
            "acceptance_rate": [theory.acceptance(p, q) for p, q in zip(self.p, self.q, strict=True)],
            "total_variation": [
                0.5 * sum(abs(a - b) for a, b in zip(p, q, strict=True)) for p, q in zip(self.p, self.q, strict=True)
            ],
        }

    def mistakes(self):
        return rate_mistakes(self.p, self.q)


def _rounded(values: list[float], dtype) -> list[float]:
    return torch.tensor(values, dtype=dtype).to(torch.float64).tolist()


def _random_row(rng: random.Random, vocab: int, zeros: int) -> list[float]:
    weights = [rng.random() ** 3 for _ in range(vocab)]
    for index in rng.sample(range(vocab), zeros):
        weights[index] = 0.0
    total = sum(weights)
    return [w / total for w in weights]


@functools.cache
def rate_case(dtype_name: str) -> RateCase:
    """Eight rows of 50 tokens: random pairs, p == q, disjoint supports, a point mass."""
    dtype = getattr(torch, dtype_name)
    rng = random.Random(43_100 + (dtype == torch.float64))
    ps, qs = [], []
    for zeros in (0, 5, 20, 40, 10):
        ps.append(_random_row(rng, 50, zeros))
        qs.append(_random_row(rng, 50, zeros))
    same = _random_row(rng, 50, 3)
    ps.append(same)
    qs.append(list(same))
    ps.append([1.0 / 25 if i < 25 else 0.0 for i in range(50)])
    qs.append([0.0 if i < 25 else 1.0 / 25 for i in range(50)])
    ps.append([1.0 if i == 7 else 0.0 for i in range(50)])
    qs.append(_random_row(rng, 50, 0))
    return RateCase([_rounded(r, dtype) for r in ps], [_rounded(r, dtype) for r in qs], dtype)


@dataclass(frozen=True)
class TopkCase:
    target: list
    draft: list
    temperature: float
    top_k: int
    dtype: torch.dtype

    def tensors(self):
        return torch.tensor(self.target, dtype=self.dtype), torch.tensor(self.draft, dtype=self.dtype)

    def expected(self):
        return topk_rate(self.target, self.draft, self.temperature, self.top_k)

    def mistakes(self):
        return {m: topk_rate(self.target, self.draft, self.temperature, self.top_k, m) for m in TOPK_MISTAKES}

    def filtered(self, mistake=None):
        return [theory.filtered(z, self.temperature, self.top_k, mistake) for z in self.target]


def _check_margins(rows: list[list[float]], top_k: int, tied: set[int]) -> None:
    for index, row in enumerate(rows):
        if not 0 < top_k < len(row):
            continue
        ordered = sorted(row, reverse=True)
        gap = ordered[top_k - 1] - ordered[top_k]
        if index in tied:
            if gap != 0:
                raise AmbiguousCase(f"row {index} should tie at the k-th logit")
        elif gap < TOPK_MARGIN:
            raise AmbiguousCase(f"row {index}: the k-th and (k+1)-th logits are {gap} apart")


def _last_index_rate(target, draft, temperature, top_k):
    """The "exactly k" mistake when ties go to the largest index instead: must equal the first-index one."""
    out = []
    for zt, zd in zip(target, draft, strict=True):
        flipped = [list(reversed(zt)), list(reversed(zd))]
        p = theory.filtered(flipped[0], temperature, top_k, "topk_exact_k")
        q = theory.filtered(flipped[1], temperature, top_k, "topk_exact_k")
        out.append(theory.acceptance(p, q))
    return out


# Rows with an exact tie at the k-th logit (k = 2), on one side, among tokens the other side drops.
TIE_TARGETS = [[3.0, 1.0, 1.0, 1.0, 0.0, -1.0, -2.0, -2.5], [0.0, 2.5, -1.0, 0.5, 0.5, -3.0, 1.0, -2.0]]
TIE_DRAFTS = [[3.0, -1.0, -1.5, -1.0, 0.5, 0.2, -2.0, -3.0], [-1.0, 2.0, 1.5, -2.0, -2.5, 1.5, 0.0, 1.5]]


@functools.cache
def topk_case(dtype_name: str, temperature: float, top_k: int, seed: int) -> TopkCase:
    """Six random rows of 8 logits (k-th gaps >= TOPK_MARGIN) and, for k = 2, two designed tie rows."""
    dtype = getattr(torch, dtype_name)
    rng = random.Random(seed)
    target, draft = [], []
    while len(target) < 6:
        zt = _rounded([rng.gauss(0.0, 1.5) for _ in range(8)], dtype)
        zd = _rounded([a + rng.gauss(0.0, 1.2) for a in zt], dtype)
        try:
            _check_margins([zt, zd], top_k, set())
        except AmbiguousCase:
            continue
        target.append(zt)
        draft.append(zd)
    tied: set[int] = set()
    if top_k == 2:
        target += TIE_TARGETS
        draft += TIE_DRAFTS
        tied = {6, 7}
    _check_margins(target, top_k, {i for i in tied if i == 6})
    _check_margins(draft, top_k, {i for i in tied if i == 7})
    case = TopkCase(target, draft, temperature, top_k, dtype)
    if top_k == 2:
        first = case.mistakes()["topk_exact_k"]
        last = _last_index_rate(target, draft, temperature, top_k)
        if any(abs(a - b) > 1e-15 for a, b in zip(first, last, strict=True)):
            raise AmbiguousCase("the 'exactly k' answer depends on which tied token is kept")
    return case


# --- statistical contexts (K = 3, V = 6) ------------------------------------------------------------

# A draft that disagrees strongly with the target at position 0 (acceptance 0.25), less later.
DISAGREE_P = [
    [0.30, 0.05, 0.40, 0.0, 0.20, 0.05],
    [0.10, 0.30, 0.10, 0.25, 0.10, 0.15],
    [0.20, 0.10, 0.15, 0.35, 0.05, 0.15],
    [0.05, 0.50, 0.03, 0.02, 0.30, 0.10],
]
DISAGREE_Q = [
    [0.05, 0.40, 0.05, 0.20, 0.05, 0.25],
    [0.30, 0.10, 0.25, 0.05, 0.15, 0.15],
    [0.05, 0.20, 0.35, 0.15, 0.10, 0.15],
]
# A close draft (acceptance 0.85 to 0.9): most rows reach the bonus token.
CLOSE_P = [
    [0.20, 0.25, 0.15, 0.10, 0.20, 0.10],
    [0.35, 0.05, 0.20, 0.15, 0.15, 0.10],
    [0.10, 0.30, 0.10, 0.25, 0.05, 0.20],
    [0.02, 0.03, 0.05, 0.60, 0.25, 0.05],
]
CLOSE_Q = [
    [0.25, 0.20, 0.15, 0.15, 0.10, 0.15],
    [0.30, 0.10, 0.20, 0.10, 0.20, 0.10],
    [0.15, 0.25, 0.10, 0.20, 0.10, 0.20],
]
# Every draft token has p/q = 1/2 (p puts half of q where q lives, the rest elsewhere; K = 3, V = 6 like
# DISAGREE, so the two interleave in one batch): each acceptance is a fair coin, so rows whose uniforms are
# tied (u and 1 - u, or one u) decide together or oppositely, and a rejection draws from where q is 0.
HALF_P = [
    [0.20, 0.30, 0.25, 0.10, 0.05, 0.10],
    [0.15, 0.10, 0.25, 0.30, 0.10, 0.10],
    [0.25, 0.25, 0.10, 0.10, 0.20, 0.10],
    [0.10, 0.20, 0.15, 0.25, 0.10, 0.20],
]
HALF_Q = [
    [0.40, 0.60, 0.0, 0.0, 0.0, 0.0],
    [0.30, 0.20, 0.50, 0.0, 0.0, 0.0],
    [0.50, 0.50, 0.0, 0.0, 0.0, 0.0],
]

# Every draw site at the extremes (K = 2, V = 4): each residual max(0, p_i - q_i) and the bonus
# target keep two tokens and exclude two, so a sampler that mishandles u = 0 or u just below 1 at
# a residual or the bonus draws an excluded token, and pushing one value of a row's noise still
# leaves a correct Gumbel or race a token to pick. The drafts reach every site: row 3 always
# reaches the bonus, rows 0-2 are rejected at position 0 or 1 often, always at the top uniform.
SITES_P = [[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.5, 0.0]]
SITES_Q = [[0.1, 0.1, 0.4, 0.4], [0.4, 0.3, 0.2, 0.1]]
SITES_DRAFTS = [[2, 3], [0, 0], [3, 1], [1, 2]]

# A speculative step (K = 2, V = 6) at temperature 1.5 with top_k = 3: a third of each row's mass lies
# outside its top 3; acceptance 0.52 at position 0, 0.89 at position 1. Chosen so that, at each position,
# the law of a draft token with its acceptance differs (total variation >= 0.07) between the rule and each
# mistake listed for it (verifying with unfiltered p or q, the temperature multiplied, the draft's uniform
# reused as u_i, the ratio's own mistakes).
STEP_TARGET = [[0.3, 0.4, 0.8, 2.0, 1.2, 1.3], [0.9, 2.1, 0.5, 1.3, 0.6, 0.5], [0.8, 1.4, 0.4, 0.9, 2.0, 2.1]]
STEP_DRAFT = [[1.9, 0.9, 0.2, 1.4, 2.0, 0.4], [1.4, 1.9, 0.1, 1.8, 1.1, 0.9]]
STEP_TEMPERATURE, STEP_TOP_K = 1.5, 3
