"""Rows whose answer is exact although the draws are random, and every draw site at its extremes.

A row whose event holds only tokens of weight 0 must estimate exactly 0, and its complement exactly 1,
whatever the draws: a deterministic check, so it is safe at the extreme uniforms too (0 and the
largest float below 1, legal values of ``torch.rand``), where inverse CDFs run off the end of a row
and unclamped logarithms blow up. The rows are built to make that likely:

- **non-dyadic weights whose ``sum()`` is not the last entry of their ``cumsum()``**, and for which the
  largest uniform below 1 times ``sum()`` lands *beyond* ``cumsum()[-1]``: an inverse CDF that scales
  u by one and searches the other runs off the end there;
- **a weight of 0 at both ends** of each row, so that running off the end (clamped to the last token)
  or taking u = 0 as the first token draws a token of weight 0;
- **tiny weights** (about 1e-25 in float32, 1e-300 in float64) among exact zeros (about half the row),
  where ``p + eps`` or ``log(p + eps)`` hands the zeros most of the row.

Public on purpose: the tiny variant runs it with its own seed; the hidden suite with the case's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from judge.checks.base import fail
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.evidence import Evidence
from judge.i18n import Bilingual

from .answers41 import check_probability_answer, event_probabilities
from .diagnoses import MISTAKES

TINY = {torch.float32: 1e-25, torch.float64: 1e-300}  # a weight far below any eps a learner might add
_TRIES = 20_480  # random rows tried for one whose largest uniform runs past its cumsum (0.5 to 5 % do)
_BLOCK = 256  # of them, tried at once


@dataclass(frozen=True)
class ExactRows:
    """One call's inputs and what each row must estimate: ``certain[b]`` is 0.0, 1.0 or None (random)."""

    probs: torch.Tensor  # [B, V]
    event: torch.Tensor  # [B, V] bool
    num_samples: int
    certain: tuple[float | None, ...]
    kinds: tuple[str, ...]  # what each row is, for messages


def _runs_past(probs: torch.Tensor, rows: list[int]) -> bool:
    """Whether the largest float below 1 times each of ``rows``' ``sum(dim=1)`` (as the batch computes it,
    keepdim or not) lands beyond that row's ``cumsum(dim=1)[-1]``."""
    return set(rows) <= set(_past_rows(probs))


KINDS = (
    "weights past their cumsum, event of weight 0",
    "ordinary weights",
    "weights past their cumsum, event of every positive weight",
    "tiny weights among zeros, event of weight 0",
    "ordinary weights",
    "tiny weights among zeros, event of every positive weight",
)
CERTAIN = (0.0, None, 1.0, 0.0, None, 1.0)


def assemble(
    past: list[float],
    tiny: list[float],
    ordinary: list[list[float]],
    chosen: list[list[bool]],
    dtype: torch.dtype,
    num_samples: int,
) -> ExactRows:
    """The six rows from their parts: ``past`` (zeros at both ends) with the event of its zeros, then of its
    other tokens; ``tiny`` (zeros at both ends and between) alike; the two ``ordinary`` rows with their
    ``chosen`` events between them."""
    probs = torch.tensor([past, ordinary[0], past, tiny, ordinary[1], tiny], dtype=dtype)
    zero = [[w == 0 for w in weights] for weights in (past, tiny)]
    other = [[not z for z in row] for row in zero]
    event = torch.tensor([zero[0], chosen[0], other[0], zero[1], chosen[1], other[1]], dtype=torch.bool)
    return ExactRows(probs, event, num_samples, CERTAIN, KINDS)


def exact_rows(rng: random.Random, dtype: torch.dtype, num_samples: int, past: list[float] | None = None) -> ExactRows:
    """Six rows (:func:`assemble`) of one vocabulary size V in [12, 20] (torch sums shorter rows in the
    cumsum's order) drawn from ``rng``: tiny weights about ``TINY``, ordinary weights and events, and the
    weights of the first kind drawn again until the batch runs past its cumsum (0.5 to 5 % of draws do;
    ``_TRIES`` at most), unless ``past`` gives them (the browser's frozen rows: no search there)."""
    size = len(past) if past is not None else rng.randint(12, 20)
    # About half of the tiny row is exact zeros: weight added to every token would land mostly there.
    tiny = [0.0] + [TINY[dtype] * rng.uniform(0.5, 2.0) * (rng.random() < 0.5) for _ in range(size - 2)] + [0.0]
    tiny[rng.randrange(1, size - 1)] = TINY[dtype]  # never a row of zeros
    ordinary = [[rng.uniform(0.05, 3.0) for _ in range(size)] for _ in range(2)]
    chosen = [[rng.random() < 0.5 for _ in range(size)] for _ in range(2)]
    if past is not None:
        return assemble(past, tiny, ordinary, chosen, dtype, num_samples)
    rows = None
    for _ in range(_TRIES // _BLOCK):
        # A block of candidates at once (a row's sum does not depend on the rows beside it), then the one
        # found checked again inside the batch itself.
        block = [[0.0] + [rng.uniform(0.05, 3.0) for _ in range(size - 2)] + [0.0] for _ in range(_BLOCK)]
        for index in _past_rows(torch.tensor(block, dtype=dtype)):
            rows = assemble(block[index], tiny, ordinary, chosen, dtype, num_samples)
            if _runs_past(rows.probs, [0, 2]):
                return rows
    return rows or assemble(block[0], tiny, ordinary, chosen, dtype, num_samples)


def _past_rows(candidates: torch.Tensor) -> list[int]:
    """The rows of ``candidates`` that run past their cumsum (as :func:`_runs_past` judges a batch)."""
    below_one = torch.tensor(1.0 - torch.finfo(candidates.dtype).eps / 2, dtype=candidates.dtype)
    last = candidates.cumsum(dim=1)[:, -1]
    past = (below_one * candidates.sum(dim=1) > last) & (below_one * candidates.sum(dim=1, keepdim=True)[:, 0] > last)
    return past.nonzero().flatten().tolist()


def check_exact_rows(rows: ExactRows, value, ctx, what: str, *, name_zero_weight: bool = True) -> None:
    """The answer to ``rows``: frequencies, standard errors of their own estimates, and the certain rows
    exact. With ``name_zero_weight`` (ordinary random numbers), a certain row that estimates strictly
    between 0 and 1 names a drawn zero-weight token (an inverted mask would give exactly 1 or 0 on every
    such row instead: it is named elsewhere); at a pushed draw site the site is named instead."""
    batch, n, dtype = rows.probs.shape[0], rows.num_samples, rows.probs.dtype
    truth = event_probabilities(rows.probs, rows.event)
    estimate, _, counts = check_probability_answer(value, ctx, rows=batch, n=n, dtype=dtype, what=what, truth=truth)
    wrong = [row for row, certain in enumerate(rows.certain) if certain is not None and float(estimate[row]) != certain]
    if not wrong:
        return
    # A certain row of tiny weights strictly between 0 and n drew some tokens of weight 0 (its event holds
    # all of them, or none) while the rows of ordinary weights, where a little weight added to every token
    # is invisible, are right: an inverted mask gives exactly n or 0 instead, and a count that is no count
    # of draws (the event's size, say) is wrong on the ordinary rows too.
    tiny_rows = [row for row, kind in enumerate(rows.kinds) if kind.startswith("tiny")]
    ordinary_right = not any(rows.certain[row] is not None and row not in tiny_rows for row in wrong)
    between = name_zero_weight and ordinary_right and any(0 < int(counts[row]) < n for row in wrong)
    row = wrong[0]
    fail(
        f"{what}: row {row} ({rows.kinds[row]}) estimated {float(estimate[row]):.9g} (k = {int(counts[row])} of {n}); "
        f"its event has probability {rows.certain[row]:g}, so every draw is "
        + ("outside it: a token of weight 0 is never drawn" if rows.certain[row] == 0 else "inside it")
        + (f" ({len(wrong)} such rows wrong)" if len(wrong) > 1 else ""),
        diagnosis=MISTAKES["zero_weight_counted"] if between else None,
        rule=Bilingual(
            "estimate_probability: an event of probability 0 or 1 is not estimated exactly",
            "estimate_probability：概率为 0 或 1 的事件没有被精确估计",
        ),
        kind=Evidence.VALUE,
    )


def check_exact_rows_at_extremes(sub, ctx, rows: ExactRows, *, label: str) -> int:
    """``rows`` judged once with ordinary random numbers and once with each draw site of the call pushed
    to 0 and to the largest float below 1 (:func:`judge.checks.draw_sites.expect_every_draw_site`); the ordinary
    run's failure is its own, a pushed run's names the draw site. Returns the number of sites pushed."""

    def call(source, generator):
        return source.estimate_probability(rows.probs, rows.event, rows.num_samples, generator=generator)

    def check(value, what):
        check_exact_rows(rows, value, ctx, what, name_zero_weight=what == label)

    return expect_every_draw_site(sub, ctx, call, check, label=label)
