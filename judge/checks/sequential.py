"""Staged checks: draw a sample in stages and stop at the first stage whose evidence rejects.

A wrong sampler usually shows itself in a small part of the sample a case draws; a correct one
must draw it all. :func:`staged` draws ``total`` units (draws, rows, copies: the caller's choice)
in cumulative stages of :data:`STAGES` (a sixteenth, a quarter, all of it: x4 per stage, as
StochasticGrade grows its samples) and runs the case's checks after each stage on everything drawn
so far. The false-failure budget of those checks is spent across the stages by a stated rule
(docs/statistics.md, "Sequential verdicts"):

- each check's alpha is split by the cumulative spending :data:`SPENT`: a twentieth of it at the
  first stage, another twentieth at the second, the remaining nine tenths at the last;
- a correct submission fails the sequence only if it fails at some stage, so by the union bound
  the sequence fails it with probability at most ``alpha * (1/20 + 1/20 + 9/10) = alpha``: each
  check is charged to the run's budget exactly once, at its full alpha, whatever the stages;
- the union bound needs no joint law of the stages' statistics (the pooled G-test's bins change
  with the sample size, so the stages are not the Brownian sequence Pocock's and O'Brien-Fleming's
  boundaries assume); it gives away the correlation between nested stages, which costs little:
  a G-test's critical value grows like ``2 ln(1/alpha)``, so nine tenths of alpha at the last
  stage raises it by about 0.21 (the power at the full sample is unchanged to the precision
  benchmarks/power.py measures), and a twentieth at an early stage by about 6, nothing against a
  mistake that shows in a sixteenth of the draws (its G grows in proportion to them).

No early accept: a stage that does not reject always draws the next, and only the last stage can
pass. A stage that rejects settles the check's verdict; if its failure names no mistake, the rest
is drawn anyway so that a diagnosis has all the evidence (a rejection at the full sample is then
reported; if that one passes, the early rejection stands). ``ctx.sequential`` False (a fixed run,
``grade(..., sequential=False)``) draws everything in one stage at the full alpha.

Only the checks' bookkeeping changes: the records and fit statistics of a stage that passed are
dropped (the too-regular test sees the final sample's fits only), and a failure's message says at
which stage, after how many of the units, it was found.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from judge.checks.base import CheckFailed, CheckMisuse
from judge.checks.budget import Spending
from judge.checks.testing import Context, _context

__all__ = ["STAGES", "SPENT", "MIN_FIRST_STAGE", "Stage", "stage_plan", "staged"]

STAGES = (1 / 16, 1 / 4, 1.0)  # cumulative share of the sample drawn by each stage
SPENT = (1 / 20, 1 / 10, 1.0)  # cumulative share of each check's alpha spent by each stage
# A first stage smaller than this many units is no stage: the sample is drawn in one.
MIN_FIRST_STAGE = 16

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Stage:
    """One stage of a staged check: its number (1-based) of ``of``, the units drawn so far
    (``size`` of ``total``) and the share of each check's alpha it may spend (``share``)."""

    number: int
    of: int
    size: int
    total: int
    share: float

    @property
    def last(self) -> bool:
        return self.number == self.of


def stage_plan(total: int, *, sequential: bool = True) -> list[Stage]:
    """The stages that draw ``total`` units (an int >= 1): cumulative sizes ``ceil(t * total)`` for
    ``t`` in :data:`STAGES`, each spending its increment of :data:`SPENT`; one stage at share 1 when
    ``sequential`` is False or the first stage would hold fewer than :data:`MIN_FIRST_STAGE` units.
    The shares add up to 1. Raises ``ValueError`` for a ``total`` that is not an int >= 1."""
    if isinstance(total, bool) or not isinstance(total, int) or total < 1:
        raise ValueError(f"total must be a whole number of at least 1, got {total!r}")
    if not sequential or math.ceil(STAGES[0] * total) < MIN_FIRST_STAGE:
        return [Stage(1, 1, total, total, 1.0)]
    sizes = [min(total, math.ceil(t * total)) for t in STAGES]
    shares = [spent - before for spent, before in zip(SPENT, (0.0, *SPENT[:-1]), strict=True)]
    return [
        Stage(k + 1, len(STAGES), size, total, share) for k, (size, share) in enumerate(zip(sizes, shares, strict=True))
    ]


class _StageBudget:
    """What a stage's checks see as ``ctx.budget``: each alpha times the stage's share. The n-th check
    of a kind is charged to the run's budget (once, at its full alpha) by the first stage that runs it,
    usually the first; a stage that runs more checks than an earlier one (one that stopped at a
    rejection, say) charges the new ones, and past the suite's declaration raises
    :class:`~judge.checks.budget.BudgetExceeded` as any check would."""

    def __init__(self, budget: Spending, stage: Stage, charged: dict[str, int]) -> None:
        self._budget, self._stage, self._charged = budget, stage, charged
        self._used: dict[str, int] = {}

    def spend(self, kind: str) -> float:
        self._used[kind] = self._used.get(kind, 0) + 1
        if self._used[kind] > self._charged.get(kind, 0):  # this check's first run: charge the run
            self._budget.spend(kind)
            self._charged[kind] = self._used[kind]
        return self.alpha(kind)

    def alpha(self, kind: str) -> float:
        return self._budget.alpha(kind) * self._stage.share

    def __getattr__(self, name: str) -> Any:
        return getattr(self._budget, name)


def staged(
    ctx: Context,
    total: int,
    draw: Callable[[int, int], T],
    check: Callable[[Sequence[T], Stage], R],
    *,
    unit: str = "draws",
) -> R:
    """Draw ``total`` units in the stages of :func:`stage_plan` and run ``check`` after each.

    ``draw(start, count)`` draws the units ``[start, start + count)`` (one learner call, say) and
    returns them; ``check(parts, stage)`` checks everything drawn so far (``parts``: each stage's
    draws, in order; it joins them as its checks need) and raises :class:`CheckFailed` to reject.
    The checks it runs spend the run's budget through ``ctx.budget`` as usual; here they see each
    alpha times the stage's share (see the module's docstring). ``unit`` names the units in a
    failure's message ("after 250 of 4000 draws"). Returns what the last stage's ``check``
    returned. Raises the first rejecting stage's :class:`CheckFailed` when it names a mistake (its
    message says the stage); when it names none, the whole sample's failure if that rejects too
    (with its own evidence, named or not), else the early one. :class:`CheckMisuse` for a ``ctx``
    that is not the test's or a ``total`` that is not an int >= 1.
    """
    _context("staged", ctx)
    try:
        plan = stage_plan(total, sequential=ctx.sequential)
    except ValueError:
        raise CheckMisuse("staged", "total", "a whole number of units >= 1", repr(total)) from None
    budget = ctx.budget
    charged: dict[str, int] = {}
    parts: list[T] = []
    # An early rejection that named nothing: its failure, records and fit statistics, set aside while
    # the rest is drawn for the diagnosis's evidence (reported only if the whole sample passes).
    early: tuple[CheckFailed, list, list] | None = None
    drawn = 0
    try:
        for stage in plan:
            parts.append(draw(drawn, stage.size - drawn))
            drawn = stage.size
            records, fits = len(ctx.records), len(ctx.fit_statistics)
            ctx.budget = _StageBudget(budget, stage, charged)
            try:
                result = check(parts, stage)
            except CheckFailed as failure:
                if stage.of > 1:
                    _say_stage(failure, ctx, records, stage, unit)
                if failure.diagnosis or stage.last:
                    raise  # the verdict, with everything the stages drew as its evidence
                if early is None:  # settled here: set aside, and draw on for a name
                    early = (failure, ctx.records[records:], ctx.fit_statistics[fits:])
                del ctx.records[records:]
                del ctx.fit_statistics[fits:]
                continue
            finally:
                ctx.budget = budget
            if not stage.last:  # passed an early stage: only the whole sample's checks are reported
                del ctx.records[records:]
                del ctx.fit_statistics[fits:]
            elif early is not None:  # the whole sample passed after an early rejection: that one stands
                stands, early_records, early_fits = early
                ctx.records[records:] = early_records
                ctx.fit_statistics[fits:] = early_fits
                raise stands
        return result
    finally:
        ctx.budget = budget


def _say_stage(failure: CheckFailed, ctx: Context, records: int, stage: Stage, unit: str) -> None:
    """Mark ``failure`` and the checks recorded at ``stage`` with the stage it was found at."""
    where = f"stage {stage.number} of {stage.of}, after {stage.size} of {stage.total} {unit}"
    failure.message = f"{failure.message} [{where}]"
    failure.args = (failure.message,)
    ctx.records[records:] = [replace(record, label=f"{record.label} [{where}]") for record in ctx.records[records:]]
