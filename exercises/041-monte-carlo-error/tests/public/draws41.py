"""The draws behind ``estimate_probability``'s counts: independent within a row and across rows, and
the generator's whole contract.

The function returns counts, not draws, so every promise about the draws is tested through the
count k of each row:

- **within a row**: rows of few draws (n in 2..7) whose event has probability exactly 1/2 in every
  order of the tokens (a vocabulary order, a sorted one, a coin flip of the event's probability).
  Independent draws give k ~ Binomial(n, 1/2); antithetic pairs (u, 1 - u) at any distance
  (neighbours, half a row apart, mirrored) give k = n / 2 every time, stratified draws nearly so,
  repeated draws 0 or n, half as many draws counted twice only even k. One pooled G-test of the
  counts against the binomial per call (a ``fit``);
- **across rows**: the same call alternates two targets that any shared uniform ties (``[a, a, 0]`` and
  ``[2b, b, b]``, events at the start or the end of the row): the pairs (k of row 2i, k of row 2i + 1)
  are tested against the product of their binomials (a ``pairs`` check);
- **the generator**: :func:`judge.checks.generator_contract.expect_generator_contract` on the counts of a batch of five
  targets (two of them twins) repeated, each row's counts its "draws" and Binomial(n, p) its target.

Public on purpose: the tiny variant calls the same functions with its own sizes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import torch

from judge.checks.base import CheckFailed
from judge.checks.distributions import expect_distribution
from judge.checks.generator_contract import (
    DEFAULT_GENERATOR_DIAGNOSIS,
    DEFAULT_RESEEDED_DIAGNOSIS,
    RESEEDED_DIAGNOSIS,
    SEEDS_DIAGNOSIS,
    expect_generator_contract,
    generator_contract_budget,
)
from judge.checks.independence import ROWS_SHARE_DIAGNOSIS, SORTED_DIAGNOSIS, expect_independent_across_rows
from judge.i18n import Bilingual

from . import wald
from .answers41 import check_probability_answer, event_probabilities
from .diagnoses import MISTAKES

COUNT = ("count", "次数")  # the outcome of one estimate, in messages: its count of hits k in [0, n]


def count_probs(n: int, p: float) -> torch.Tensor:
    """The distribution of the count k of hits, Binomial(n, p), as a float64 [n + 1] target."""
    pmf = torch.tensor(wald.binomial_pmf(n, p), dtype=torch.float64)
    return pmf / pmf.sum()


# --- independence within and across rows --------------------------------------------------------------


def halves(rng: random.Random, pairs_of_rows: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``2 * pairs_of_rows`` rows of three tokens: even rows ``[a, a, 0]`` (event: token 0 or token 1,
    by the seed), odd rows ``[2b, b, b]`` (event: token 0), each with its own non-dyadic a and b, in
    float64. Every event has probability exactly 1/2, and a uniform shared by the two rows of a pair
    makes their counts equal or complementary in vocabulary order, sorted order and coin flips alike."""
    side = rng.randrange(2)
    probs, event = [], []
    for _ in range(pairs_of_rows):
        a, b = rng.uniform(0.1, 10.0), rng.uniform(0.1, 10.0)
        probs += [[a, a, 0.0], [2 * b, b, b]]
        event += [[side == 0, side == 1, False], [True, False, False]]
    return torch.tensor(probs, dtype=torch.float64), torch.tensor(event, dtype=torch.bool)


def dispersion_diagnosis(counts: torch.Tensor, n: int, p: float) -> Bilingual | None:
    """``draws_not_independent`` when the counts vary, their mean is n p (z below 4) and their variance is
    off the binomial's by more than a factor 1.4 either way: the shape of dependent draws, not a bias
    (named elsewhere) nor a count without randomness (constant: nothing to say about the draws)."""
    values = [float(k) for k in counts.tolist()]
    m = len(values)
    mean = math.fsum(values) / m
    variance = math.fsum((v - mean) ** 2 for v in values) / (m - 1) if m > 1 else 0.0
    binomial = n * p * (1 - p)
    if variance == 0 or abs(mean - n * p) > 4 * math.sqrt(binomial / m):
        return None
    ratio = variance / binomial
    return MISTAKES["draws_not_independent"] if ratio < 1 / 1.4 or ratio > 1.4 else None


def check_counts_independent(sub, ctx, pairs_of_rows: int, n: int, *, label: str, public: Bilingual) -> None:
    """One call on :func:`halves` rows with ``n`` draws each: every count fits Binomial(n, 1/2) (one
    ``fit``: draws of a row that depend on each other), then the counts of the two rows of each pair are
    independent (one ``pairs``: rows sharing random numbers)."""
    probs, event = halves(ctx.rng, pairs_of_rows)
    rows = probs.shape[0]
    value = sub.estimate_probability(probs, event, n, generator=ctx.generator())
    _, _, counts = check_probability_answer(
        value, ctx, rows=rows, n=n, dtype=probs.dtype, what=label, truth=event_probabilities(probs, event)
    )
    target = count_probs(n, 0.5)
    # Counts that take one value per target over the whole call (every [a, a, 0] row alike, every [2b, b, b]
    # row alike) come from rows sharing their numbers, from no randomness, or from antithetic pairs at an
    # even n: no one of them is named on this evidence (the generator's contract tells the first two apart).
    single = all(bool((part == part[0]).all()) for part in (counts[0::2], counts[1::2]))
    try:
        expect_distribution(
            ctx,
            counts,
            target,
            label=f"{label}: the counts k of the {rows} rows against Binomial({n}, 1/2)",
            public=Bilingual(f"{public}: the counts of the rows", f"{public.zh}：各行的次数"),
            outcome=COUNT,
        )
        expect_independent_across_rows(
            ctx,
            counts[0::2],
            counts[1::2],
            target,
            target,
            label=f"{label}: the counts of rows 2i and 2i + 1 (different targets, one call)",
            public=Bilingual(f"{public}: neighbouring rows", f"{public.zh}：相邻的行"),
            outcome=COUNT,
        )
    except CheckFailed as failure:
        if single:
            failure.diagnosis = None
        elif failure.diagnosis is None:  # the fit: dependent draws within a row, on their own evidence
            failure.diagnosis = dispersion_diagnosis(counts, n, 0.5)
        raise


# --- the generator contract -----------------------------------------------------------------------------

# Five rows of the generator contract: (event, as token ids of checks41.PROBS), the third the second's twin.
CONTRACT_EVENTS: tuple[tuple[int, ...], ...] = ((2,), (1, 2), (1, 2), (0, 1), (0, 1, 2, 6))
TWINS = (1, 2)


def contract_inputs(weights: Sequence[float], events: Sequence[Sequence[int]] = CONTRACT_EVENTS):
    """The five base rows (float32 ``weights`` each, one event each) and their P(event)."""
    size = len(weights)
    probs = torch.tensor([list(weights)] * len(events), dtype=torch.float32)
    mask = torch.tensor([[v in e for v in range(size)] for e in events], dtype=torch.bool)
    return probs, mask, event_probabilities(probs, mask)


def generator_budget(rows: int = len(CONTRACT_EVENTS)):
    """What :func:`check_generator_contract` spends: the contract with positions and twins."""
    return generator_contract_budget(rows, positions=True, twins=TWINS)


def check_generator_contract(
    sub, ctx, weights: Sequence[float], n: int, copies: int, position_copies: int, *, label: str
) -> None:
    """The generator contract of ``estimate_probability`` (``generator_contract_budget``, with positions
    and twins): the batch holds the five base rows ``copies`` times over (``position_copies`` times, in
    the order given, for the positions clause), and base row i's "draws" are its counts in every copy."""
    probs, mask, truth = contract_inputs(weights)
    base = probs.shape[0]
    targets = torch.stack([count_probs(n, p) for p in truth])

    drawn: list[torch.Tensor] = []

    def draw(source, generator, rows=None):
        order = list(range(base)) if rows is None else list(rows)
        repeat = copies if rows is None else position_copies
        index = torch.tensor(order * repeat, dtype=torch.int64)
        value = source.estimate_probability(probs[index], mask[index], n, generator=generator)
        _, _, counts = check_probability_answer(
            value, ctx, rows=len(index), n=n, dtype=probs.dtype, what=label, truth=[truth[i] for i in index]
        )
        drawn.append(counts.reshape(repeat, base).T.contiguous())
        return drawn[-1]

    try:
        expect_generator_contract(
            sub, ctx, draw, targets, label=label, public=label, positions=True, twins=TWINS, outcome=COUNT
        )
    except CheckFailed as failure:
        # The twins' counts over the copies are no draws in order: "sorted" (a constant run is) means nothing
        # there, and identical rows that agree too often share their random numbers.
        if failure.diagnosis == SORTED_DIAGNOSIS:
            failure.diagnosis = ROWS_SHARE_DIAGNOSIS
        # Counts that never vary over the copies of any row carry no randomness at all: whatever seed clause
        # failed, nothing says what the generator was used for.
        elif (
            failure.diagnosis in GENERATOR_DIAGNOSES and drawn and all(bool((row == row[0]).all()) for row in drawn[-1])
        ):
            failure.diagnosis = None
        raise


GENERATOR_DIAGNOSES = (
    SEEDS_DIAGNOSIS,
    DEFAULT_GENERATOR_DIAGNOSIS,
    RESEEDED_DIAGNOSIS,
    DEFAULT_RESEEDED_DIAGNOSIS,
)
