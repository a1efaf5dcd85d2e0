"""Frozen inputs of exercise 39's hidden tests.

Logits come from :class:`random.Random` with fixed seeds (stable across Python, torch and
machines), rounded to float32, or from a real language model's next-token logits frozen in
``real_logits.py``. ``oracle.target`` verifies every threshold margin when a case is built, so
an edit that makes a case ambiguous fails at once.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

import torch

from judge.checks.base import Label
from judge.i18n import Bilingual

from . import real_logits
from .oracle import AmbiguousCase, RowParams, Target, mistakes_that_differ, target

NEG_INF = float("-inf")


def label(text: str, en: str, zh: str) -> Label:
    """A row's label: ``text`` (may quote its parameters) and a value-free public one (en, zh)."""
    return Label(text, Bilingual(en, zh))


# Public, value-free descriptions of the common kinds of row.
TEMPERATURE_ONLY = ("temperature only", "只有温度")
TOP_K = ("top-k", "top-k")
TOP_P = ("top-p", "top-p")
MIN_P = ("min-p", "min-p")


@dataclass
class Batch:
    """One batched call: logits [B, V], per-row parameters, the exact target, row descriptions."""

    logits: torch.Tensor
    params: list[RowParams]
    exact: Target
    labels: list[Label]

    @functools.cached_property
    def alternatives(self) -> dict[str, torch.Tensor]:
        """Diagnosis -> the float64 [B, V] distribution of each known mistake that changes this batch."""
        return mistakes_that_differ(self.logits, self.params, self.exact.probs)

    def row_alternatives(self, row: int) -> dict[str, torch.Tensor]:
        """Diagnosis -> float64 [V] distribution, for the mistakes that change ``row``."""
        exact = self.exact.probs[row]
        return {
            name: probs[row]
            for name, probs in self.alternatives.items()
            if not torch.allclose(probs[row], exact, rtol=1e-6, atol=1e-9)
        }

    def arguments(self) -> dict:
        """The parameters as the suite passes them: :meth:`param_tensors` (a generated call may pass
        numbers or tensors of other dtypes)."""
        return self.param_tensors()

    def param_tensors(self) -> dict[str, torch.Tensor]:
        """The parameters as 1-D tensors of length B, one value per row (fresh tensors, built once)."""
        return {name: tensor.clone() for name, tensor in self._param_tensors.items()}

    @functools.cached_property
    def _param_tensors(self) -> dict[str, torch.Tensor]:
        return {
            "temperature": torch.tensor([p.temperature for p in self.params], dtype=torch.float64),
            "top_k": torch.tensor([p.top_k for p in self.params], dtype=torch.int64),
            "top_p": torch.tensor([p.top_p for p in self.params], dtype=torch.float64),
            "min_p": torch.tensor([p.min_p for p in self.params], dtype=torch.float64),
        }


def make_batch(
    rows: list[list[float]], params: list[RowParams], labels: list[Label], dtype: torch.dtype = torch.float32
) -> Batch:
    logits = torch.tensor(rows, dtype=dtype)
    return Batch(logits, params, target(logits, params), labels)


def repeated(batch: Batch, copies: int) -> Batch:
    """Each row of ``batch`` ``copies`` times in a row (rows r*copies .. (r+1)*copies - 1 are row r)."""
    index = torch.arange(batch.logits.shape[0]).repeat_interleave(copies)
    exact = Target(batch.exact.probs[index], [batch.exact.exclusions[i] for i in index.tolist()])
    return Batch(
        batch.logits[index].contiguous(),
        [batch.params[i] for i in index.tolist()],
        exact,
        [batch.labels[i] for i in index.tolist()],
    )


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
        label("temperature only", *TEMPERATURE_ONLY),
        label("top_k=4 at temperature 0.7", "top-k at a low temperature", "低温下的 top-k"),
        label("top_p=0.8 at temperature 1.3", "top-p at a high temperature", "高温下的 top-p"),
        label("min_p=0.12", *MIN_P),
        label("top_k, top_p and min_p combined", "top-k, top-p and min-p combined", "top-k、top-p 与 min-p 组合"),
        label("a copy of row 2", "a copy of row 2", "第 2 行的副本"),
        label("temperature 0 with tied maxima", "temperature 0 with tied maxima", "温度为 0 且最大值并列"),
        label(
            "-inf logits and a tie at the top-k cut",
            "-inf logits and a tie at the top-k cut",
            "含 -inf 的 logits，且 top-k 截断处有并列",
        ),
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
    params = [
        RowParams(temperature=1.0),
        RowParams(temperature=0.6, top_p=0.9),
        RowParams(temperature=0.8, top_k=200, min_p=0.01),
    ]
    # top_p acts at a low temperature: the nucleus then ends among tokens large enough to leave
    # the 2e-3 margin; at temperature 1 the crossing token's own mass (~1e-5) is below any margin.
    labels = [
        label("the whole long tail at temperature 1", "the whole long tail", "完整的长尾"),
        label(
            "top_p=0.9 at temperature 0.6", "top-p at a low temperature over a long tail", "长尾词表上低温下的 top-p"
        ),
        label(
            "top_k=200, min_p=0.01 at temperature 0.8",
            "top-k and min-p over a long tail",
            "长尾词表上的 top-k 与 min-p",
        ),
    ]
    return make_batch(rows, params, labels)


# Rows of a real model's logits (real_logits.py: the tiny Qwen3 over its held-out passage), with
# the parameters a chat model runs at: (passage position, parameters, label, public en, public zh).
# Every cut keeps the oracle's 2e-3 relative margin, which a logit perturbation of up to
# judge.exercises.models.LOGIT_TOLERANCE (1e-4) cannot cross: it moves any ratio of two probabilities by at
# most exp(2e-4 / T), under 3e-4 relative at T >= 0.7 (tests/exercises/test_039_sampling.py
# perturbs the logits and checks that every row keeps the same tokens). top_p was placed where a
# real tail allows it: on the flat position the 0.9 or 0.95 nucleus at T = 1 or 1.3 ends after
# 498 to 979 tokens, on a token of mass 1.5e-4 to 3.4e-4, where the margin needs ~4e-3; of the
# passage's 263 positions only 29 keep a margin for top_p = 0.95 at T = 1 (each keeping at most 4
# tokens) and 7 at T = 1.3 (each keeping 1). So top_p = 0.9 acts on the position in between (29
# tokens at T = 0.7, 48 at T = 1) and on the peaked one at T = 1.3 (3 tokens), and 0.95 after
# top_k = 50 on the flat one (46 tokens). Smallest relative margins: 2.3e-3 (row 3) to 4.3e-2
# (row 6), a logit move of 1e-3 or more to flip anything.
REAL_ROWS = [
    (
        27,
        RowParams(temperature=1.0),
        "real model logits at position 27 (flat): the whole tail at temperature 1",
        "real model logits, a flat distribution: the whole long tail",
        "真实模型的 logits，平坦的分布：完整的长尾",
    ),
    (
        105,
        RowParams(temperature=1.0),
        "real model logits at position 105 (peaked): the whole tail at temperature 1",
        "real model logits, a peaked distribution: the whole long tail",
        "真实模型的 logits，尖峰分布：完整的长尾",
    ),
    (
        59,
        RowParams(temperature=0.7, top_p=0.9),
        "real model logits at position 59: top_p=0.9 at temperature 0.7",
        "real model logits: top-p at a low temperature",
        "真实模型的 logits：低温下的 top-p",
    ),
    (
        59,
        RowParams(temperature=1.0, top_p=0.9),
        "real model logits at position 59: top_p=0.9 at temperature 1",
        "real model logits: top-p",
        "真实模型的 logits：top-p",
    ),
    (
        105,
        RowParams(temperature=1.3, top_p=0.9),
        "real model logits at position 105 (peaked): top_p=0.9 at temperature 1.3",
        "real model logits, a peaked distribution: top-p at a high temperature",
        "真实模型的 logits，尖峰分布：高温下的 top-p",
    ),
    (
        27,
        RowParams(temperature=1.0, min_p=0.05),
        "real model logits at position 27 (flat): min_p=0.05",
        "real model logits, a flat distribution: min-p",
        "真实模型的 logits，平坦的分布：min-p",
    ),
    (
        27,
        RowParams(temperature=1.0, top_k=50),
        "real model logits at position 27 (flat): top_k=50",
        "real model logits, a flat distribution: top-k",
        "真实模型的 logits，平坦的分布：top-k",
    ),
    (
        27,
        RowParams(temperature=1.3, top_k=50, top_p=0.95, min_p=0.05),
        "real model logits at position 27 (flat): top_k=50, top_p=0.95, min_p=0.05 at temperature 1.3",
        "real model logits, a flat distribution: top-k, top-p and min-p at a high temperature",
        "真实模型的 logits，平坦的分布：高温下 top-k、top-p 与 min-p 组合",
    ),
]


@functools.cache
def real_rows() -> Batch:
    """Eight rows of a real language model's logits over its 2 000 tokens (see ``REAL_ROWS``)."""
    frozen = real_logits.rows()
    logits = torch.stack([frozen[position] for position, *_ in REAL_ROWS])
    params = [row_params for _, row_params, *_ in REAL_ROWS]
    labels = [label(text, en, zh) for _, _, text, en, zh in REAL_ROWS]
    return Batch(logits, params, target(logits, params), labels)


@functools.cache
def float64_rows() -> Batch:
    """Two float64 rows of 16 tokens."""
    rng = random.Random(39_003)
    rows = [_gauss_row(rng, 16, 1.2) for _ in range(2)]
    params = [RowParams(temperature=1.2, top_p=0.7), RowParams(temperature=0.8, min_p=0.1)]
    return make_batch(
        rows,
        params,
        [
            label("float64, top_p=0.7", "float64, top-p", "float64，top-p"),
            label("float64, min_p=0.1", "float64, min-p", "float64，min-p"),
        ],
        dtype=torch.float64,
    )


@functools.cache
def scalar_rows() -> Batch:
    """Two rows sharing scalar parameters (temperature=0.8, top_k=5, top_p=0.9)."""
    rng = random.Random(39_004)
    rows = [_gauss_row(rng, 12, 0.8) for _ in range(2)]
    params = [RowParams(temperature=0.8, top_k=5, top_p=0.9)] * 2
    scalar = label("scalar parameters", "scalar parameters", "标量参数")
    return make_batch(rows, params, [scalar, scalar])


@functools.cache
def many_rows(count: int = 64) -> Batch:
    """Many small random rows: in float32 about one row in six has a cumulative sum ending below 1,
    where an inverse CDF fed u = 0.99999994 runs past the last token."""
    rng = random.Random(39_005)
    choices = [
        RowParams(),
        RowParams(temperature=0.8, top_k=5),
        RowParams(temperature=1.2, top_p=0.9),
        RowParams(min_p=0.05),
    ]
    publics = [TEMPERATURE_ONLY, TOP_K, TOP_P, MIN_P]
    rows, params, labels = [], [], []
    while len(rows) < count:
        kind = len(rows) % len(choices)
        row, row_params = _gauss_row(rng, 16, 1.5), choices[kind]
        try:
            target(torch.tensor([row]), [row_params])
        except AmbiguousCase:
            continue  # keep only rows with margins at every cut
        rows.append(row)
        params.append(row_params)
        labels.append(label(row_params.describe(), *publics[kind]))
    return make_batch(rows, params, labels)


@functools.cache
def many_rows_repeated(copies: int = 16) -> Batch:
    """Each row of :func:`many_rows` ``copies`` times: single draws fed extreme uniform values."""
    return repeated(many_rows(), copies)


@functools.cache
def each_filter_rows() -> Batch:
    """The first row of :func:`mixed_rows` six times, each under one filter alone (or a top_k that
    keeps the whole vocabulary)."""
    logits = mixed_rows().logits[:1].expand(6, -1).clone()
    params = [
        RowParams(temperature=0.5),
        RowParams(temperature=2.0),
        RowParams(top_k=3),
        RowParams(top_p=0.6),
        RowParams(min_p=0.2),
        RowParams(top_k=10),
    ]
    labels = ["temperature 0.5", "temperature 2", "top_k=3", "top_p=0.6", "min_p=0.2", "top_k=V disables it"]
    return Batch(logits, params, target(logits, params), labels)


@functools.cache
def greedy_rows() -> Batch:
    """Temperature 0 on rows with tied maxima (and -inf): the first maximum wins every draw."""
    inf = NEG_INF
    rows = [[0.5, 2.5, -0.3, 2.5, 0.1], [3.0, -1.0, 3.0, 3.0, inf], [inf, -2.0, -2.0, -5.0, -2.5]]
    params = [RowParams(temperature=0.0)] * 3
    return make_batch(
        rows,
        params,
        [
            label("tied maxima at tokens 1 and 3", "two tied maxima", "两个并列最大值"),
            label("three tied maxima", "three tied maxima", "三个并列最大值"),
            label("-inf first, then a tie", "-inf first, then a tie", "先是 -inf，然后是并列"),
        ],
    )


@functools.cache
def edge_rows() -> Batch:
    """Rows whose first and last tokens are excluded: an inverse CDF that runs off either end draws them."""
    rows = [
        [NEG_INF, 0.3, 1.1, -0.2, 0.8, 0.5, NEG_INF],
        [-3.0, 1.0, 0.2, 2.0, 1.4, 0.6, -2.5],
        [NEG_INF, 2.0, NEG_INF, 1.0, 0.5, NEG_INF, NEG_INF],
    ]
    params = [RowParams(), RowParams(temperature=0.8, top_k=3), RowParams(temperature=1.5, top_p=0.9)]
    return make_batch(
        rows,
        params,
        [
            label("-inf at both ends", "-inf at both ends", "两端都是 -inf"),
            label("top_k=3 excludes both ends", "top-k excludes both ends", "top-k 排除了两端"),
            label("top_p=0.9 and -inf", "top-p and -inf", "top-p 与 -inf"),
        ],
    )


@functools.cache
def top_k_edge_rows() -> Batch:
    """top_k = 1 (on a tie at the top, where every tied token stays), top_k above V, top_k = V
    followed by top-p (so that ignoring every filter and ignoring top_k = 1 differ), and top_k = 3 at
    temperature 1 (so that ignoring top_k = 1, ignoring top-k, keeping k - 1 tokens and making the
    temperature-1 rows greedy all differ on the batch)."""
    tie = [0.3, 1.7, -0.4, 1.7, 0.9, -1.1, 0.2, 1.2, -2.0, 0.6]
    plain = [1.1, -0.3, 0.4, 2.0, -1.2, 0.8, 0.1, -0.6, 1.5, 0.0]
    rows = [tie, plain, plain, plain, plain]
    params = [
        RowParams(top_k=1),
        RowParams(temperature=0.9, top_k=1),
        RowParams(temperature=0.9, top_k=17),
        RowParams(temperature=0.9, top_k=10, top_p=0.8),
        RowParams(top_k=3),
    ]
    labels = [
        label("top_k=1 with two tied maxima", "top-k = 1 on tied maxima", "top-k = 1，最大值并列"),
        label("top_k=1", "top-k = 1", "top-k = 1"),
        label("top_k=17 > V", "top-k larger than the vocabulary", "top-k 大于词表大小"),
        label("top_k=V, top_p=0.8", "top-k equal to the vocabulary size, then top-p", "top-k 等于词表大小，然后 top-p"),
        label("top_k=3 at temperature 1", "top-k", "top-k"),
    ]
    return make_batch(rows, params, labels)


@functools.cache
def single_draw_kinds() -> Batch:
    """The five kinds of row that :func:`single_draw_rows` repeats (row 2 is greedy)."""
    mixed, edges = mixed_rows(), top_k_edge_rows()
    picks = [(mixed, 4), (mixed, 7), (mixed, 6), (edges, 0), (edges, 2)]
    logits = torch.stack([batch.logits[row] for batch, row in picks])
    params = [batch.params[row] for batch, row in picks]
    return Batch(logits, params, target(logits, params), [batch.labels[row] for batch, row in picks])


SINGLE_DRAW_COPIES = 2_000
MIXED_COPIES = 1_000


@functools.cache
def mixed_rows_repeated() -> Batch:
    """Each row of :func:`mixed_rows` ``MIXED_COPIES`` times: many draws per kind of row from few
    draws per row, so a sampler that loops over draws in Python stays fast."""
    return repeated(mixed_rows(), MIXED_COPIES)


@functools.cache
def single_draw_rows() -> Batch:
    """Each kind of :func:`single_draw_kinds` repeated ``SINGLE_DRAW_COPIES`` times, for
    ``num_samples=1``: one draw per row, the call a decoder makes. Rows of one kind together
    give a sample of its distribution."""
    return repeated(single_draw_kinds(), SINGLE_DRAW_COPIES)


@functools.cache
def single_draw_seed_rows() -> Batch:
    """Each kind of :func:`single_draw_kinds` 200 times: enough rows that a correct sampler's
    single draws repeat under another seed with probability far below 1e-12, few enough to be cheap."""
    return repeated(single_draw_kinds(), 200)


def by_kind(draws: torch.Tensor, kinds: int) -> torch.Tensor:
    """Draws of a repeated batch ``[kinds * copies, n]`` regrouped as ``[kinds, copies * n]``: each
    kind's draws row after row, so consecutive draws of one row stay neighbours."""
    return draws.reshape(kinds, -1)


def picked(batch: Batch, rows: list[int]) -> Batch:
    """The rows ``rows`` of ``batch``, in that order (their targets, parameters and labels with them)."""
    index = torch.tensor(rows, dtype=torch.int64)
    exact = Target(batch.exact.probs[index], [batch.exact.exclusions[i] for i in rows])
    return Batch(
        batch.logits[index].contiguous(), [batch.params[i] for i in rows], exact, [batch.labels[i] for i in rows]
    )


@functools.cache
def contract_rows() -> Batch:
    """Rows 0, 2, 4 and 5 of :func:`mixed_rows` (rows 1 and 3 here are twins): the generator contract's
    call, whose rows in another order must each still follow their own target."""
    return picked(mixed_rows(), [0, 2, 4, 5])


# Rows that allow exactly one token, never the first: top_k = 1, one finite logit, min-p and top-p
# leaving the largest alone. Noise that takes log(0) for that token scores every token -inf (or every
# ratio 0), and the first, excluded token wins; an inverse CDF fed 0 lands on an excluded token 0.
SINGLE_TOKEN_ROWS = [
    ([-0.4, 0.3, 1.6, 0.2, -1.1, 0.7, -0.8], RowParams(temperature=0.9, top_k=1), "top_k=1"),
    ([NEG_INF, NEG_INF, NEG_INF, 0.4, NEG_INF, NEG_INF, NEG_INF], RowParams(), "one finite logit"),
    ([0.1, -0.5, 0.6, 2.9, 0.3, -1.0, 0.8], RowParams(min_p=0.9), "min_p=0.9 keeps the largest alone"),
    ([-1.2, 0.2, 0.5, -0.3, 2.2, 0.0, -0.7], RowParams(temperature=0.8, top_p=0.3), "top_p=0.3 keeps one token"),
]


def _single_token_batch(dtype: torch.dtype) -> Batch:
    rows = [row for row, _, _ in SINGLE_TOKEN_ROWS]
    params = [p for _, p, _ in SINGLE_TOKEN_ROWS]
    labels = [label(text, "one token allowed", "只允许一个 token") for _, _, text in SINGLE_TOKEN_ROWS]
    return make_batch(rows, params, labels, dtype=dtype)


@functools.cache
def single_token_rows() -> Batch:
    """:data:`SINGLE_TOKEN_ROWS` in float32 (each row allows one token, never the first)."""
    batch = _single_token_batch(torch.float32)
    assert all(int((row > 0).sum()) == 1 and row[0] == 0 for row in batch.exact.probs)
    return batch


def _joined(first: Batch, second: Batch) -> Batch:
    exact = Target(torch.cat([first.exact.probs, second.exact.probs]), first.exact.exclusions + second.exact.exclusions)
    return Batch(
        torch.cat([first.logits, second.logits]), first.params + second.params, exact, first.labels + second.labels
    )


@functools.cache
def draw_site_rows() -> Batch:
    """float32: :func:`edge_rows` (first and last tokens excluded) and :func:`single_token_rows`."""
    return _joined(edge_rows(), single_token_rows())


@functools.cache
def draw_site_rows64() -> Batch:
    """float64: three rows of full-precision logits, first and last tokens at -inf, whose float64
    cumulative sum of the softmax ends below 1 (an inverse CDF fed 1 - 2^-53 runs past the last allowed
    token), and :data:`SINGLE_TOKEN_ROWS` in float64."""
    rng = random.Random(39_007)
    rows = []
    while len(rows) < 3:
        row = [NEG_INF] + [rng.uniform(-3.0, 3.0) for _ in range(5)] + [NEG_INF]
        if float(torch.softmax(torch.tensor(row, dtype=torch.float64), 0).cumsum(0)[-1]) < 1.0:
            rows.append(row)
    labels = [
        label("non-dyadic float64, -inf at both ends", "float64, -inf at both ends", "float64，两端都是 -inf")
    ] * 3
    return _joined(make_batch(rows, [RowParams()] * 3, labels, dtype=torch.float64), _single_token_batch(torch.float64))
