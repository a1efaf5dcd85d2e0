"""Sequential verdicts against fixed ones: what a grading costs, wrong and correct, both ways.

    .venv/bin/python benchmarks/sequential.py [--exercises 39 43 ...] [--seeds N] [--json PATH]

Judges each exercise's catalogue (every ``wrong/`` solution) and its correct solutions (the
reference and ``correct/``) twice under the same master seeds: ``sequential=False`` (every case
runs on its whole sample, as before issue 38) and ``sequential=True`` (the default: the run stops
at the first case that names a mistake, judge/engine/settling.py, and staged cases stop at the
first stage that rejects, judge/checks/sequential.py). One warm launcher serves every grading, so
process starts are the same both ways; the figures per solution are the learner's time inside its
functions (``timing.learner_ms``), the calls, and the wall time to the verdict with and without the
process start.

It reports, per exercise, the mean of each figure over the wrong solutions and over the correct
ones, fixed against sequential, as ratios (fixed / sequential: above 1 is cheaper), and checks
what sequential verdicts promise: the same verdict and the same headline diagnosis as the fixed
run for every solution and seed. The issue's targets: wrong submissions at least 3x cheaper on
average, correct ones at most 1.1x dearer. Exit 1 when a verdict or headline differs.

Learner time, not CPU: per call, the learner's process reports the time inside the function; on a
shared machine it moves with load, so both ways are judged interleaved, solution by solution.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from judge.checks.testing import derive_seed  # noqa: E402
from judge.engine.runner import judge_file  # noqa: E402
from judge.exercises.exercise import Exercise, load_all, resolve  # noqa: E402
from judge.exercises.patches import PATCH_SUFFIX, expanded_path  # noqa: E402
from judge.sandbox.launchers import WarmLocalLauncher  # noqa: E402

DEFAULT_EXERCISES = ("39", "43")


def _solutions(exercise: Exercise) -> list[tuple[str, str, Path]]:
    """(kind, name, path) of each solution judged: the wrong ones, then the correct ones."""

    def path_of(path: Path) -> Path:
        return expanded_path(path, exercise.reference_path) if path.suffix == PATCH_SUFFIX else path

    wrong = [("wrong", p.stem, path_of(p)) for p in sorted(exercise.wrong_solution_files())]
    correct_dir = exercise.solutions_root / "correct"
    others = sorted(correct_dir.glob("*.py")) + sorted(correct_dir.glob(f"*{PATCH_SUFFIX}"))
    correct = [("correct", "reference", exercise.reference_path)] + [("correct", p.stem, path_of(p)) for p in others]
    return wrong + correct


def _judged(exercise: Exercise, path: Path, seed: int, sequential: bool, launcher) -> dict:
    started = time.monotonic()
    report = judge_file(exercise, path, seed=seed, sequential=sequential, launcher=launcher).to_json()
    wall_ms = (time.monotonic() - started) * 1000
    timing = report["timing"]
    return {
        "verdict": report["verdict"],
        "diagnosis": report["diagnosis"],
        "learner_ms": timing["learner_ms"],
        "calls": timing["calls"],
        "wall_ms": wall_ms,
        "wall_after_start_ms": wall_ms - timing["start_ms"],
        "cases_run": sum(case["verdict"] != "SK" for case in report["cases"]),
    }


FIGURES = ("learner_ms", "calls", "wall_ms", "wall_after_start_ms")


def measure(exercise: Exercise, seeds: int, launcher, console: Console) -> dict:
    """Every solution of ``exercise`` judged both ways under ``seeds`` master seeds."""
    rows = []
    for kind, name, path in _solutions(exercise):
        for number in range(seeds):
            seed = derive_seed(20261207, exercise.number, name, number)
            fixed = _judged(exercise, path, seed, False, launcher)
            sequential = _judged(exercise, path, seed, True, launcher)
            same = (fixed["verdict"], fixed["diagnosis"]) == (sequential["verdict"], sequential["diagnosis"])
            rows.append(
                {"kind": kind, "solution": name, "seed": seed, "fixed": fixed, "sequential": sequential, "same": same}
            )
            if not same:
                console.print(
                    f"[red]{exercise.number} {name}: fixed {fixed['verdict']} {fixed['diagnosis']!r}, "
                    f"sequential {sequential['verdict']} {sequential['diagnosis']!r}"
                )
    summary = {}
    for kind in ("wrong", "correct"):
        chosen = [row for row in rows if row["kind"] == kind]
        summary[kind] = {
            figure: {
                "fixed": statistics.fmean(row["fixed"][figure] for row in chosen),
                "sequential": statistics.fmean(row["sequential"][figure] for row in chosen),
            }
            for figure in FIGURES
        } | {"solutions": len(chosen) // seeds}
    return {
        "exercise": exercise.number,
        "seeds": seeds,
        "rows": rows,
        "summary": summary,
        "all_same": all(row["same"] for row in rows),
    }


def _ratio(pair: dict) -> float:
    return pair["fixed"] / pair["sequential"] if pair["sequential"] else float("inf")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--exercises",
        nargs="*",
        default=list(DEFAULT_EXERCISES),
        help="exercise numbers (default 39 43; 'all' for every exercise)",
    )
    parser.add_argument("--seeds", type=int, default=1, help="master seeds per solution (default 1)")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    console = Console()
    numbers = (
        [e.number for e in load_all() if e.wrong_solution_files()] if args.exercises == ["all"] else args.exercises
    )
    results = []
    with WarmLocalLauncher() as launcher:
        for number in numbers:
            exercise = resolve(str(number))
            started = time.monotonic()
            results.append(measure(exercise, args.seeds, launcher, console))
            console.print(f"exercise {exercise.number}: {time.monotonic() - started:.0f} s")
    table = Table(title="Fixed against sequential verdicts (mean per grading; ratio = fixed / sequential)")
    for column in (
        "exercise",
        "solutions",
        "learner ms",
        "ratio",
        "calls",
        "ratio",
        "wall ms (after start)",
        "ratio",
        "same verdicts",
    ):
        table.add_column(column, justify="left" if column == "exercise" else "right")
    for result in results:
        for kind in ("wrong", "correct"):
            s = result["summary"][kind]
            table.add_row(
                f"{result['exercise']} {kind}",
                str(s["solutions"]),
                f"{s['learner_ms']['fixed']:.0f} → {s['learner_ms']['sequential']:.0f}",
                f"{_ratio(s['learner_ms']):.2f}",
                f"{s['calls']['fixed']:.0f} → {s['calls']['sequential']:.0f}",
                f"{_ratio(s['calls']):.2f}",
                f"{s['wall_after_start_ms']['fixed']:.0f} → {s['wall_after_start_ms']['sequential']:.0f}",
                f"{_ratio(s['wall_after_start_ms']):.2f}",
                "yes" if result["all_same"] else "NO",
            )
    console.print(table)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0 if all(result["all_same"] for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
