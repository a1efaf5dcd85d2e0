"""sample_estimate's draws judged through readable rows (:mod:`readable44`), shared by the hidden suite and the
browser's tiny suite (at its own sizes): every uniform source at its extremes, the law of the draws within a
row and across rows, and the generator contract.

Every check reads each row's draws off its estimate first, so that a statistical check only ever sees
draws that are draws (an unreadable estimate fails as such, never as a "dependence" or a "seed").
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import torch

from judge.checks.base import CheckFailed
from judge.checks.distributions import expect_distribution
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.generator_contract import (
    DEFAULT_GENERATOR_DIAGNOSIS,
    DEFAULT_RESEEDED_DIAGNOSIS,
    RESEEDED_DIAGNOSIS,
    SEEDS_DIAGNOSIS,
    expect_generator_contract,
)
from judge.checks.independence import expect_independent_across_rows
from judge.i18n import Bilingual

from . import readable44 as readable
from .diagnoses import MISTAKES
from .readable44 import ESTIMATE, ReadableRows, extreme_rows, readable_rows


def check_extremes(sub, ctx, dtypes: Sequence[torch.dtype] = (torch.float64, torch.float32)) -> int:
    """Each draw site of the call (torch.rand, uniform_, randint, ...) pushed to 0 and to the largest float
    below 1, in each of ``dtypes``: every estimate still reads as draws of outcomes with q > 0."""
    pushed = 0
    for dtype in dtypes:
        rows = extreme_rows(random.Random(ctx.fresh_seed(f"extreme rows {dtype}")), dtype)

        def call(source, generator, rows=rows):
            return source.sample_estimate(**rows.kwargs(), generator=generator)

        label = f"{ESTIMATE} ({rows.public})"

        def check(value, what, rows=rows, label=label):
            readable.check_readable(
                ctx,
                rows,
                value,
                what=f"{ESTIMATE}({rows.public}), {what}",
                public=f"{ESTIMATE}, {rows.public}",
                # Named only where a site was pushed: the same call passed with ordinary random numbers.
                zero_q_diagnosis=None if what == label else MISTAKES["zero_q_drawn"],
            )

        pushed += expect_every_draw_site(sub, ctx, call, check, label=label)
    return pushed


# --- the law of the draws: within a row, across rows ------------------------------------------------------

LAW_ROWS, LAW_DRAWS = 1000, 4
# Five outcomes for four draws: a mean over all outcomes (the draws ignored) is no mean of four draws, and
# draws without replacement stay possible.
LAW_Q = ((0.35, 0.25, 0.2, 0.12, 0.08), (0.1, 0.3, 0.2, 0.3, 0.1))
LAW_P = ((0.1, 0.2, 0.3, 0.2, 0.2), (0.3, 0.1, 0.2, 0.2, 0.2))


def law_rows(rng: random.Random, count: int = LAW_ROWS) -> ReadableRows:
    """``count`` rows of each of two targets, interleaved (A, B, A, B, ...), LAW_DRAWS draws per row."""
    targets = readable_rows(LAW_Q, LAW_P, n=LAW_DRAWS, dtype=torch.float64, rng=rng, public=Bilingual("", ""))
    rows = targets.take([b % 2 for b in range(2 * count)])
    return ReadableRows(
        rows.p,
        rows.q,
        rows.f,
        rows.n,
        None,
        rows.y,
        rows.digit,
        Bilingual(
            f"{2 * count} rows of two alternating targets, {LAW_DRAWS} draws each",
            f"{2 * count} 行，两个目标交替出现，每行抽 {LAW_DRAWS} 次",
        ),
    )


def split_ids(rows: ReadableRows, counts: Sequence[tuple[int, ...]]) -> torch.Tensor:
    """Each row's split as its index in :func:`readable44.splits` order (one V for every row)."""
    order = readable.splits(rows.p.shape[1], rows.n)
    index = {k: i for i, k in enumerate(order)}
    return torch.tensor([index[k] for k in counts], dtype=torch.int64)


def laws(q: Sequence[float], p: Sequence[float], n: int) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The split law of n independent draws from q, and each known dependence's (without replacement,
    antithetic pairs) and drawing from p instead, as ``[S]`` tensors in splits order."""
    order = readable.splits(len(q), n)
    truth = readable.law_tensor(readable.multinomial_law(q, n), order)
    alternatives = {
        MISTAKES["draws_without_replacement"]: readable.law_tensor(readable.without_replacement_law(q, n), order),
        MISTAKES["antithetic_draws"]: readable.law_tensor(readable.antithetic_law(q, n), order),
        MISTAKES["samples_from_p"]: readable.law_tensor(readable.multinomial_law(p, n), order),
    }
    return truth, alternatives


def check_law(sub, ctx, count: int = LAW_ROWS) -> None:
    """The split of each row's draws among the outcomes follows the multinomial law of independent draws
    (one fit, on the first target's rows), and the rows of the two targets are independent of each other
    (one pairs check): antithetic, stratified or without-replacement draws change the first, rows that share
    their random numbers the second."""
    rows = law_rows(random.Random(ctx.fresh_seed("law rows")), count)
    what = f"{ESTIMATE}({rows.public})"
    value = sub.sample_estimate(**rows.kwargs(), generator=ctx.generator())
    counts = readable.check_readable(ctx, rows, value, what=what, public=f"{ESTIMATE}, {rows.public}")
    ids = split_ids(rows, counts)
    first, second = ids[0::2], ids[1::2]
    truth_a, alternatives = laws(LAW_Q[0], LAW_P[0], LAW_DRAWS)
    truth_b, _ = laws(LAW_Q[1], LAW_P[1], LAW_DRAWS)
    outcome = ("split of a row's draws", "一行抽样的分配")
    expect_distribution(
        ctx,
        first,
        truth_a,
        label=f"{what}: the splits of the first target's rows among its {len(LAW_Q[0])} outcomes",
        public=Bilingual(
            f"{ESTIMATE}: how a row's draws split among the outcomes", f"{ESTIMATE}：一行的抽样在各结果间的分配"
        ),
        alternatives=alternatives,
        outcome=outcome,
    )
    expect_independent_across_rows(
        ctx,
        first,
        second,
        truth_a,
        truth_b,
        label=f"{what}: rows of the two targets side by side",
        public=Bilingual(f"{ESTIMATE}: rows of different targets", f"{ESTIMATE}：目标不同的各行"),
        outcome=outcome,
    )


# --- the generator contract --------------------------------------------------------------------------------

CONTRACT_COPIES, CONTRACT_DRAWS, POSITION_COPIES = 6, 4, 300
CONTRACT_Q = (
    (0.35, 0.25, 0.2, 0.12, 0.08),
    (0.08, 0.35, 0.25, 0.2, 0.12),
    (0.2, 0.2, 0.2, 0.2, 0.2),
    (0.05, 0.05, 0.1, 0.1, 0.7),
)
CONTRACT_P = (
    (0.1, 0.2, 0.3, 0.2, 0.2),
    (0.2, 0.2, 0.2, 0.2, 0.2),
    (0.3, 0.25, 0.2, 0.15, 0.1),
    (0.2, 0.2, 0.2, 0.2, 0.2),
)


def contract_targets() -> tuple[ReadableRows, torch.Tensor]:
    """The targets of the generator contract (readable, float64) and each one's split law ``[T, S]``."""
    rows = readable_rows(
        CONTRACT_Q,
        CONTRACT_P,
        n=CONTRACT_DRAWS,
        dtype=torch.float64,
        rng=random.Random(44_044),
        public=Bilingual("4 targets", "4 个目标"),
    )
    order = readable.splits(len(CONTRACT_Q[0]), CONTRACT_DRAWS)
    law = torch.stack([readable.law_tensor(readable.multinomial_law(q, CONTRACT_DRAWS), order) for q in CONTRACT_Q])
    return rows, law


def check_generator(
    sub, ctx, copies: int = CONTRACT_COPIES, position_copies: int = POSITION_COPIES, positions: bool = True
) -> None:
    """:func:`judge.checks.generator_contract.expect_generator_contract` on the splits read off the estimates:
    the seed decides, the generator advances, torch's default generator is used (and advanced) with
    generator=None and left alone with a generator given, and rows follow their own inputs wherever they
    stand in the batch."""
    targets, law = contract_targets()
    count = targets.p.shape[0]

    first: list[torch.Tensor] = []

    def draw(source, generator, rows=None):
        order = list(range(count)) if rows is None else list(rows)
        many = copies if rows is None else position_copies
        batch = targets.take([order[t] for _ in range(many) for t in range(count)])
        what = f"{ESTIMATE}({count} targets x {many} rows of {CONTRACT_DRAWS} draws)"
        value = source.sample_estimate(**batch.kwargs(), generator=generator)
        counts = readable.check_readable(ctx, batch, value, what=what, public=f"{ESTIMATE}, {count} targets")
        ids = split_ids(batch, counts).reshape(many, count).T.contiguous()
        first.append(ids)
        return ids

    try:
        expect_generator_contract(
            sub,
            ctx,
            draw,
            law,
            label=f"{ESTIMATE}({count} targets, {CONTRACT_DRAWS} draws per row)",
            public=Bilingual(ESTIMATE, ESTIMATE),
            positions=positions,
            outcome=("split of a row's draws", "一行抽样的分配"),
        )
    except CheckFailed as failure:
        # Draws that never vary within one call (every copy of every target drew alike: without replacement
        # on as many outcomes as draws, say) repeat under any seed: that is no evidence about the generator.
        if failure.diagnosis in SEED_DIAGNOSES and first and not _varies(first[0]):
            failure.diagnosis = None
        raise


SEED_DIAGNOSES = (SEEDS_DIAGNOSIS, DEFAULT_GENERATOR_DIAGNOSIS, RESEEDED_DIAGNOSIS, DEFAULT_RESEEDED_DIAGNOSIS)


def _varies(ids: torch.Tensor) -> bool:
    """Whether some target's copies drew different splits in this call."""
    return any(len(set(row.tolist())) > 1 for row in ids)
