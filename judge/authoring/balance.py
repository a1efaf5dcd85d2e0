"""Lane balance: how evenly an exercise's declared lane weights split its cases' measured cost.

A grading on several lanes shares its cases by their declared weights only
(:func:`judge.engine.runner.lane_shares`, :func:`judge.checks.testing.lane_weight`), never by timing, so a seed
reproduces which process sees which call. Nothing else keeps the weights true to the cases' cost:
this module measures that cost and says how far apart the lanes finish. It is an author's tool
(``python practice/judge.py lanes NNN``, and one line of advice per exercise in ``check``); it never
takes part in a grading.

A case's cost is its ``time_ms`` in a grading on one lane, the median over several gradings of the
reference: what the case adds to its lane's time, the learner's work, the judge's checks and the
calls' round trips together. (The report's ``cpu_ms`` counts the learner's processes only, not
the judge's checks, which are up to a third of a heavy case: exercise 39's mixed rows spend
about 72 ms in the learner and 32 in the judge.) One lane, so that no other lane of the same
grading competes for the machine; weights and imbalance are ratios, so a machine uniformly
slower changes neither, and each case's median drops its odd slow run.

Timing never decides a test, since a busy machine would then fail it at random (performance is
checked by benchmarks, never by timed tests): the tool exits non-zero only when asked
(``--tolerance``, against the imbalance of the cases' median times), and ``check`` prints the
imbalance as advice (docs/authoring.md, "Lane weights").

The pure part (:func:`suggest_weights`, :func:`suggest_unit`, :func:`keeps_declared`,
:func:`lane_loads`, :func:`imbalance`, :func:`balance`, :class:`Measurement`) takes cost tables
and is tested with made-up ones; only :func:`measure` grades.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.checks.testing import derive_seed
from judge.engine.runner import grade, lane_shares
from judge.exercises.exercise import SUITES, Exercise
from judge.exercises.folders import ExerciseError
from judge.exercises.suites import load_suite
from judge.verdicts import Verdict

if TYPE_CHECKING:
    from judge.sandbox.launchers import Launcher

SITE_LANES = 2  # the site's default (web/core/config.py, PROBJUDGE_LANES)


def suggest_weights(costs: Sequence[float], unit: float | None = None) -> list[int]:
    """Lane weights for cases costing ``costs`` (one each, any unit): ``round(cost / unit)``, at
    least 1, so that weight 1 stays "a case of ordinary size" as :func:`judge.checks.testing.lane_weight`
    defines it. ``unit`` defaults to the median cost (the typical case). Raises ``ValueError``
    for an empty table, a cost that is negative or not finite, or a ``unit`` not above 0.
    """
    if not costs:
        raise ValueError("no costs to weigh")
    if any(not math.isfinite(cost) or cost < 0 for cost in costs):
        raise ValueError(f"costs must be finite and at least 0, got {list(costs)!r}")
    if unit is None:
        unit = statistics.median(costs)
    if not math.isfinite(unit) or unit <= 0:
        raise ValueError(f"the unit must be a finite number above 0, got {unit!r}")
    return [max(1, round(cost / unit)) for cost in costs]


FINEST_STEP = 4  # the suggestions' unit goes down to a quarter of the median case, no further
# How much further apart than sharing by the costs themselves a coarser unit may leave the lanes:
# about what the imbalance moves from one measurement to the next (2-4 % for exercise 39 on a
# quiet machine), so that finer weights, which change more cases, are suggested only for a gain
# a measurement can see.
SLACK = 1.05


def suggest_unit(costs: Sequence[float], lanes: int) -> float:
    """The unit :func:`suggest_weights` should use for ``costs`` on ``lanes`` lanes: the median
    cost over 1, 2, ... :data:`FINEST_STEP`, the first (the smallest weights) whose weights leave
    the lanes within :data:`SLACK` of the imbalance that sharing by the costs themselves gives;
    when none does, the one that leaves them most even (ties: the coarser). Rounding to the
    median case alone can leave the lanes further apart than the weights an author already has.
    Raises ``ValueError`` as :func:`suggest_weights` does, and for ``lanes`` below 1.
    """
    if isinstance(lanes, bool) or not isinstance(lanes, int) or lanes < 1:
        raise ValueError(f"lanes must be a whole number of at least 1, got {lanes!r}")
    median = statistics.median(costs) if costs else 0.0
    units = [median / step for step in range(1, FINEST_STEP + 1)]
    spreads = [_apart(costs, suggest_weights(costs, unit), lanes) for unit in units]  # raises for a bad table
    target = _apart(costs, costs, lanes) * SLACK
    for unit, spread in zip(units, spreads, strict=True):
        if spread <= target:
            return unit
    return units[spreads.index(min(spreads))]  # the first of the most even: the coarser


def keeps_declared(costs: Sequence[float], declared: Sequence[float], lanes: int) -> bool:
    """Whether the ``declared`` weights should stay for ``costs`` on ``lanes`` lanes: they share
    the costs within :data:`SLACK` of sharing by the costs themselves, or no better than the
    suggested weights (:func:`suggest_unit`, :func:`suggest_weights`) do. A change that gains
    less than a measurement can see would only move weights back and forth between measurements.
    Raises ``ValueError`` as :func:`suggest_unit` does, and for tables of two lengths.
    """
    if len(declared) != len(costs):
        raise ValueError("one declared weight per cost")
    suggested = suggest_weights(costs, suggest_unit(costs, lanes))  # raises for a bad table
    return _apart(costs, declared, lanes) <= min(_apart(costs, costs, lanes) * SLACK, _apart(costs, suggested, lanes))


def _apart(costs: Sequence[float], weights: Sequence[float], lanes: int) -> float:
    """The imbalance of ``costs`` shared on ``lanes`` lanes (at most one per case) by ``weights``."""
    return imbalance(lane_loads(costs, lane_shares(list(weights), min(lanes, len(costs)))))


def lane_loads(values: Sequence[float], shares: Sequence[Sequence[int]]) -> list[float]:
    """Each lane's sum of ``values`` (per case) over its share of case numbers."""
    return [sum(values[index] for index in share) for share in shares]


def imbalance(loads: Sequence[float]) -> float:
    """The heavier lane's load over the lighter one's (1.0: even; at least 1.0). One lane or none
    is 1.0; a lighter lane of load 0 beside a busy one is infinite."""
    if len(loads) < 2:
        return 1.0
    heaviest, lightest = max(loads), min(loads)
    if heaviest <= 0:
        return 1.0
    return heaviest / lightest if lightest > 0 else math.inf


@dataclass(frozen=True)
class LaneBalance:
    """How cases shared by ``weights`` load ``lanes`` lanes: each lane's case numbers
    (``shares``, as the runner shares them), their sums of weights and of the cases' median
    costs, and the imbalance of those sums (:func:`imbalance`).

    The medians are taken case by case, then added up: a run slowed down once (another process
    took the core for a moment) moves one case's figures, which its median drops, where it would
    move that run's lanes, whose median over a few runs need not drop it (exercise 39 on a busy
    machine: lanes 1.05 apart from the cases' medians, 1.20 as the median of five runs' own)."""

    lanes: int
    shares: list[list[int]]
    weights: list[float]
    costs: list[float]
    imbalance: float

    def to_json(self) -> dict[str, Any]:
        return {
            "lanes": self.lanes,
            "shares": self.shares,
            "weights": [round(weight, 3) for weight in self.weights],
            "costs_ms": [round(cost, 2) for cost in self.costs],
            "imbalance": round(self.imbalance, 3) if math.isfinite(self.imbalance) else None,
        }


def balance(weights: Sequence[float], runs: Sequence[Sequence[float]], lanes: int) -> LaneBalance:
    """Share cases of ``weights`` between ``lanes`` lanes as a grading does (never more lanes
    than cases) and weigh each lane with each case's median cost over ``runs`` (one cost per
    case each). Raises ``ValueError`` for no cases, no runs, a run of another length, or ``lanes``
    below 1.
    """
    if isinstance(lanes, bool) or not isinstance(lanes, int) or lanes < 1:
        raise ValueError(f"lanes must be a whole number of at least 1, got {lanes!r}")
    if not weights or not runs:
        raise ValueError("no cases or no runs to weigh")
    if any(len(run) != len(weights) for run in runs):
        raise ValueError("every run needs one cost per case")
    shares = lane_shares(list(weights), min(lanes, len(weights)))
    medians = [statistics.median(run[index] for run in runs) for index in range(len(weights))]
    return LaneBalance(
        lanes=len(shares),
        shares=shares,
        weights=lane_loads(weights, shares),
        costs=lane_loads(medians, shares),
        imbalance=imbalance(lane_loads(medians, shares)),
    )


@dataclass(frozen=True)
class CaseCost:
    """One case of the public and hidden suites (in the grading's order): its declared weight and
    its cost in each measured run (``time_ms``, one lane), with the learner's CPU time beside it
    (``cpu_ms``; strict only: the local level reads it in clock ticks of 10 ms, too coarse here)."""

    suite: str
    name: str
    declared: float
    times_ms: tuple[float, ...]
    learner_cpu_ms: tuple[float, ...]

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def median_cpu_ms(self) -> float | None:
        return statistics.median(self.learner_cpu_ms) if self.learner_cpu_ms else None


@dataclass(frozen=True)
class Measurement:
    """The reference of one exercise graded ``runs`` times (after ``warmups``), on one lane, at
    sandbox ``level``: every case's costs."""

    exercise: Exercise
    level: str
    runs: int
    warmups: int
    cases: list[CaseCost]

    def run_costs(self) -> list[list[float]]:
        """Each run's cost per case (the table :func:`balance` takes)."""
        return [[case.times_ms[run] for case in self.cases] for run in range(self.runs)]

    def declared(self, lanes: int) -> LaneBalance:
        """The lanes under the declared weights."""
        return balance([case.declared for case in self.cases], self.run_costs(), lanes)

    def medians(self) -> list[float]:
        """Each case's median cost."""
        return [case.median_ms for case in self.cases]

    def unit_ms(self, lanes: int) -> float:
        """What weight 1 stands for in the suggestions for ``lanes`` lanes (:func:`suggest_unit`)."""
        return suggest_unit(self.medians(), lanes)

    def keeps_declared(self, lanes: int) -> bool:
        """Whether the declared weights should stay (:func:`keeps_declared`)."""
        return keeps_declared(self.medians(), [case.declared for case in self.cases], lanes)

    def suggested_weights(self, lanes: int) -> list[float]:
        """Weights for ``lanes`` lanes: the declared ones where they should stay, else each case's
        median cost in :meth:`unit_ms`, rounded, at least 1."""
        if self.keeps_declared(lanes):
            return [case.declared for case in self.cases]
        return [float(weight) for weight in suggest_weights(self.medians(), self.unit_ms(lanes))]

    def suggested(self, lanes: int) -> LaneBalance:
        """The lanes under :meth:`suggested_weights` (what the same runs would have given)."""
        return balance(self.suggested_weights(lanes), self.run_costs(), lanes)


class ReferenceFailed(ExerciseError):
    """The reference did not pass: its cases' costs say nothing about a passing grading's."""


def measure(exercise: Exercise, launcher: Launcher, *, runs: int = 5, warmups: int = 2, seed: int = 0) -> Measurement:
    """Grade ``exercise``'s reference ``warmups`` times (discarded: the fork server's and the
    judge's caches warm up), then ``runs`` times, each on one lane with ``launcher``, the public
    and hidden suites, master seeds derived from ``seed`` (so two measurements draw alike).

    Raises :class:`ReferenceFailed` when a grading is not AC, ``ValueError`` for ``runs`` below 1
    or ``warmups`` below 0.
    """
    if runs < 1 or warmups < 0:
        raise ValueError(f"runs must be at least 1 and warmups at least 0, got {runs} and {warmups}")
    source = exercise.reference_path.read_text(encoding="utf-8")
    specs = [case for suite in SUITES for case in load_suite(exercise, suite).cases]
    level = getattr(launcher, "level", "local")
    times: list[list[float]] = [[] for _ in specs]
    cpus: list[list[float]] = [[] for _ in specs]
    for run in range(warmups + runs):
        report = grade(
            exercise,
            source,
            launcher=launcher,
            seed=derive_seed(seed, "lanes", run),
            suites=SUITES,
            lanes=1,
        )
        if report.verdict is not Verdict.AC:
            raise ReferenceFailed(
                f"{exercise.folder}: the reference got {report.verdict.value} ({report.message}); "
                "lane costs are measured on a passing reference"
            )
        if run < warmups:
            continue
        found = {(case.suite, case.name): case for case in report.cases}
        for index, spec in enumerate(specs):
            case = found[(spec.suite, spec.name)]
            times[index].append(case.time_ms)
            if case.cpu_ms is not None and level == "strict":
                cpus[index].append(case.cpu_ms)
    return Measurement(
        exercise,
        level,
        runs,
        warmups,
        [
            CaseCost(spec.suite, spec.name, spec.weight, tuple(times[index]), tuple(cpus[index]))
            for index, spec in enumerate(specs)
        ],
    )


def to_json(measured: Measurement, lanes: int, tolerance: float | None = None) -> dict[str, Any]:
    """The measurement for scripts: every case, the lanes under the declared and the suggested
    weights, and whether the declared ones are within ``tolerance`` (None: not asked)."""
    declared = measured.declared(lanes)
    suggested = measured.suggested_weights(lanes)
    unit = measured.unit_ms(lanes)
    return {
        "exercise": measured.exercise.number,
        "slug": measured.exercise.slug,
        "level": measured.level,
        "runs": measured.runs,
        "warmups": measured.warmups,
        "unit_ms": round(unit, 3),
        "unit_step": round(statistics.median(measured.medians()) / unit),  # the unit is the median case over it
        "keeps_declared": measured.keeps_declared(lanes),
        "cases": [
            {
                "suite": case.suite,
                "name": case.name,
                "declared": _number(case.declared),
                "median_ms": round(case.median_ms, 3),
                "learner_cpu_ms": None if case.median_cpu_ms is None else round(case.median_cpu_ms, 1),
                "suggested": _number(weight),
            }
            for case, weight in zip(measured.cases, suggested, strict=True)
        ],
        "declared": declared.to_json(),
        "suggested": measured.suggested(lanes).to_json(),
        "tolerance": tolerance,
        "within_tolerance": None if tolerance is None else declared.imbalance <= tolerance,
    }


def _number(weight: float) -> float | int:
    """A weight as JSON shows it: a whole number as an int."""
    return int(weight) if float(weight).is_integer() else weight
