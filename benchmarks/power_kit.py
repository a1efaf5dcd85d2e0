"""What the per-exercise power benchmarks of 49-53 share (not a benchmark itself).

Each ``power_0NN.py`` measures two things: its catalogue judged under several master seeds (every
wrong solution rejected with its promised diagnosis each time, the reference accepted), and the
power of its statistical checks at the alphas of a judged run on the server (public + hidden
suites). The first, and the alphas, are the same code for every exercise: here.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge.authoring.catalogue import check_exercise  # noqa: E402
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.exercises.exercise import Exercise  # noqa: E402
from judge.exercises.suites import load_suite, suites_module  # noqa: E402

SERVER_SUITES = ("public", "hidden")
# Rows of check_exercise's outcome that are checks of the exercise's files, not judged solutions.
NOT_SOLUTIONS = frozenset({"contract", "params", "budget", "undetectable", "starter"})


def server_budget(exercise: Exercise) -> FalseFailureBudget:
    """The false-failure budget of one judged run on the server: the public and hidden suites'
    declarations together; ``.alpha(kind)`` is one check's alpha."""
    for suite in SERVER_SUITES:
        load_suite(exercise, suite)
    declared = sum((suites_module(exercise, f"{s}.{s}").BUDGET for s in SERVER_SUITES), BudgetDeclaration())
    return FalseFailureBudget(exercise.false_failure_budget, declared)


@dataclass(frozen=True)
class Catalogue:
    """Each judged solution's runs and how many went as promised."""

    rows: list[dict]

    @property
    def ok(self) -> bool:
        """Every run of every solution went as promised."""
        return all(row["runs"] == row["as_expected"] for row in self.rows)

    def print(self, exercise: Exercise, seeds: int, seconds: float) -> None:
        print(f"exercise {exercise.number}: {seeds} master seeds, {seconds:.0f} s")
        print(f"{'solution':34} as promised")
        for row in self.rows:
            print(f"{row['solution']:34} {row['as_expected']}/{row['runs']}")


def catalogue_under_seeds(exercise: Exercise, seeds: int) -> Catalogue:
    """``check_exercise(seeds=...)``, the solutions' rows only."""
    return Catalogue(
        [
            {"solution": o.solution, "runs": o.runs, "as_expected": o.as_expected}
            for o in check_exercise(exercise, seeds=seeds)
            if o.solution not in NOT_SOLUTIONS
        ]
    )
