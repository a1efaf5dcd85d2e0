"""Frozen inputs of exercise 39's hidden tests.

Logits come from :class:`random.Random` with fixed seeds (stable across Python, torch and
machines), rounded to float32. ``oracle.target`` verifies every threshold margin when a case
is built, so an edit that makes a case ambiguous fails at once.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

import torch

from .oracle import AmbiguousCase, RowParams, Target, mistakes_that_differ, target

NEG_INF = float("-inf")


@dataclass
class Batch:
    """One batched call: logits [B, V], per-row parameters, the exact target, row descriptions."""

    logits: torch.Tensor
    params: list[RowParams]
    exact: Target
    labels: list[str]

    @functools.cached_property
    def alternatives(self) -> dict[str, torch.Tensor]:
        """Diagnosis -> the float64 [B, V] distribution of each known mistake that changes this batch."""
        return mistakes_that_differ(self.logits, self.params, self.exact.probs)

    def row_alternatives(self, row: int) -> dict[str, torch.Tensor]:
        """Diagnosis -> float64 [V] distribution, for the mistakes that change ``row``."""
        exact = self.exact.probs[row]
        return {name: probs[row] for name, probs in self.alternatives.items()
                if not torch.allclose(probs[row], exact, rtol=1e-6, atol=1e-9)}

    def param_tensors(self) -> dict[str, torch.Tensor]:
        """The parameters as 1-D tensors of length B, one value per row."""
        return {
            "temperature": torch.tensor([p.temperature for p in self.params], dtype=torch.float64),
            "top_k": torch.tensor([p.top_k for p in self.params], dtype=torch.int64),
            "top_p": torch.tensor([p.top_p for p in self.params], dtype=torch.float64),
            "min_p": torch.tensor([p.min_p for p in self.params], dtype=torch.float64),
        }


def make_batch(rows: list[list[float]], params: list[RowParams], labels: list[str],
               dtype: torch.dtype = torch.float32) -> Batch:
    logits = torch.tensor(rows, dtype=dtype)
    return Batch(logits, params, target(logits, params), labels)


def _gauss_row(rng: random.Random, vocab: int, scale: float) -> list[float]:
    return [round(rng.gauss(0.0, scale), 3) for _ in range(vocab)]


@functools.cache
def mixed_rows() -> Batch:
    """Eight rows of a 10-token vocabulary, each with its own parameters (sampled 16 000 times per row)."""
    rng = random.Random(39_001)
    base = [_gauss_row(rng, 10, 1.4) for _ in range(6)]
    combined = [2.2, 1.9, 1.5, 1.1, 0.9, 0.4, 0.0, -0.5, -1.2, -2.0]
    greedy = [0.5, 1.0, -0.3, 2.5, 0.1, 2.5, -1.0, 0.0, 2.4, -2.0]
    tied_k = [NEG_INF, 1.2, 0.3, 0.7, 0.7, NEG_INF, -0.4, 1.6, -1.0, 0.2]
    rows = [base[0], base[1], base[2], base[3], combined, base[2], greedy, tied_k]
    params = [
        RowParams(temperature=1.0),
        RowParams(temperature=0.7, top_k=4),
        RowParams(temperature=1.3, top_p=0.8),
        RowParams(temperature=1.0, min_p=0.12),
        RowParams(temperature=1.6, top_k=6, top_p=0.7, min_p=0.4),
        RowParams(temperature=1.3, top_p=0.8),
        RowParams(temperature=0.0, top_k=3, top_p=0.5),
        RowParams(temperature=1.0, top_k=3),
    ]
    labels = [
        "temperature only",
        "top_k=4 at temperature 0.7",
        "top_p=0.8 at temperature 1.3",
        "min_p=0.12",
        "top_k, top_p and min_p combined",
        "a copy of row 2",
        "temperature 0 with tied maxima",
        "-inf logits and a tie at the top-k cut",
    ]
    return make_batch(rows, params, labels)


@functools.cache
def zipf_rows(vocab: int = 32_000) -> Batch:
    """Three rows of a 32 000-token Zipf-like vocabulary (a realistic long tail)."""
    rng = random.Random(39_002)
    rows = []
    for exponent in (1.1, 1.1, 1.25):
        ranks = list(range(1, vocab + 1))
        rng.shuffle(ranks)
        rows.append([round(-exponent * math.log(r) + rng.uniform(-0.05, 0.05), 4) for r in ranks])
    params = [RowParams(temperature=1.0), RowParams(temperature=0.6, top_p=0.9),
              RowParams(temperature=0.8, top_k=200, min_p=0.01)]
    # top_p acts at a low temperature: the nucleus then ends among tokens large enough to leave
    # the 2e-3 margin; at temperature 1 the crossing token's own mass (~1e-5) is below any margin.
    labels = ["the whole long tail at temperature 1", "top_p=0.9 at temperature 0.6",
              "top_k=200, min_p=0.01 at temperature 0.8"]
    return make_batch(rows, params, labels)


@functools.cache
def float64_rows() -> Batch:
    """Two float64 rows of 16 tokens."""
    rng = random.Random(39_003)
    rows = [_gauss_row(rng, 16, 1.2) for _ in range(2)]
    params = [RowParams(temperature=1.2, top_p=0.7), RowParams(temperature=0.8, min_p=0.1)]
    return make_batch(rows, params, ["float64, top_p=0.7", "float64, min_p=0.1"], dtype=torch.float64)


@functools.cache
def scalar_rows() -> Batch:
    """Two rows sharing scalar parameters (temperature=0.8, top_k=5, top_p=0.9)."""
    rng = random.Random(39_004)
    rows = [_gauss_row(rng, 12, 0.8) for _ in range(2)]
    params = [RowParams(temperature=0.8, top_k=5, top_p=0.9)] * 2
    return make_batch(rows, params, ["scalar parameters", "scalar parameters"])


@functools.cache
def many_rows(count: int = 64) -> Batch:
    """Many small random rows: in float32 about one row in six has a cumulative sum ending below 1,
    where an inverse CDF fed u = 0.99999994 runs past the last token."""
    rng = random.Random(39_005)
    choices = [RowParams(), RowParams(temperature=0.8, top_k=5), RowParams(temperature=1.2, top_p=0.9),
               RowParams(min_p=0.05)]
    rows, params = [], []
    while len(rows) < count:
        row, row_params = _gauss_row(rng, 16, 1.5), choices[len(rows) % len(choices)]
        try:
            target(torch.tensor([row]), [row_params])
        except AmbiguousCase:
            continue  # keep only rows with margins at every cut
        rows.append(row)
        params.append(row_params)
    return make_batch(rows, params, [p.describe() for p in params])


@functools.cache
def greedy_rows() -> Batch:
    """Temperature 0 on rows with tied maxima (and -inf): the first maximum wins every draw."""
    inf = NEG_INF
    rows = [[0.5, 2.5, -0.3, 2.5, 0.1], [3.0, -1.0, 3.0, 3.0, inf], [inf, -2.0, -2.0, -5.0, -2.5]]
    params = [RowParams(temperature=0.0)] * 3
    return make_batch(rows, params, ["tied maxima at tokens 1 and 3", "three tied maxima", "-inf first, then a tie"])


@functools.cache
def edge_rows() -> Batch:
    """Rows whose first and last tokens are excluded: an inverse CDF that runs off either end draws them."""
    rows = [
        [NEG_INF, 0.3, 1.1, -0.2, 0.8, 0.5, NEG_INF],
        [-3.0, 1.0, 0.2, 2.0, 1.4, 0.6, -2.5],
        [NEG_INF, 2.0, NEG_INF, 1.0, 0.5, NEG_INF, NEG_INF],
    ]
    params = [RowParams(), RowParams(temperature=0.8, top_k=3), RowParams(temperature=1.5, top_p=0.9)]
    return make_batch(rows, params, ["-inf at both ends", "top_k=3 excludes both ends", "top_p=0.9 and -inf"])
