"""Check an exercise's browser variant the way the browser runs it: reference AC, wrong ones caught.

    python -m judge.browser.catalogue 39 [--seed S] [--seeds N] [--also DIR ...] [--only-also]

Runs in a fresh interpreter with the torch subset installed as ``torch`` (so nothing of real
torch can help), judges the reference, the exercise's other correct solutions and every
known-wrong solution on the browser variant (under seeds S, S+1, ... S+N-1), and prints one
JSON object per solution and seed (see :func:`outcome`). ``--also DIR`` judges the ``*.py`` files
of DIR too: a file whose docstring states ``Mistake:``/``Diagnosis:`` is a wrong solution, any
other a correct one (the browser's own tests keep such files: samplers in other styles, mistakes
only the browser checks), and
``--only-also`` leaves out the exercise's other solutions.
:func:`problems` states the contract: the reference passes, the correct files pass or are skipped
("not available in the browser": numpy, an operation the subset lacks), the exercise's
``[browser.undetectable]`` and ``[browser.subset_undetectable]`` lists hold exactly the wrong
solutions that pass, every other one
fails with its diagnosis. The Pyodide tests apply the same functions to reports from Node.js.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

from judge.exercises.exercise import BrowserVariant, Exercise
from judge.exercises.folders import ExerciseError
from judge.reports.report import first_failure

REFERENCE = "reference"


def solutions(exercise: Exercise) -> list[tuple[str, str, str | None]]:
    """(name, source, expected diagnosis) of the reference and the other correct solutions (diagnosis
    None, in that order) and of each known-wrong solution."""
    from judge.authoring.catalogue import parse_wrong_solution

    found: list[tuple[str, str, str | None]] = [(REFERENCE, exercise.reference_path.read_text(), None)]
    found += [(f"correct/{path.stem}", path.read_text(), None) for path in exercise.correct_solutions()]
    for path in exercise.wrong_solutions():
        found.append((path.stem, path.read_text(), parse_wrong_solution(path).diagnosis))
    return found


def solutions_in(folder: Path) -> list[tuple[str, str, str | None]]:
    """(name, source, expected diagnosis) of each ``*.py`` in ``folder``: None for a correct one."""
    from judge.authoring.catalogue import parse_wrong_solution

    found: list[tuple[str, str, str | None]] = []
    for path in sorted(Path(folder).glob("*.py")):
        source = path.read_text(encoding="utf-8")
        wrong = "Mistake:" in (ast.get_docstring(ast.parse(source)) or "")
        found.append((path.stem, source, parse_wrong_solution(path).diagnosis if wrong else None))
    return found


def outcome(exercise: Exercise, name: str, expected_diagnosis: str | None, report: dict) -> dict:
    """What one report says about one solution, as the checks and the power benchmark read it."""
    from judge.authoring.catalogue import diagnosis_found

    first = (first_failure(report.get("cases", [])) or {}).get("name")
    return {
        "name": name,
        "verdict": report["verdict"],
        "message": report.get("message"),
        "diagnosis": report.get("diagnosis"),
        "expected_diagnosis": expected_diagnosis,
        "diagnosed": expected_diagnosis is not None and diagnosis_found(report, expected_diagnosis),
        "caught_by": first,
        "undetectable": _browser(exercise).passing.get(name),
    }


def problems(exercise: Exercise, outcomes: list[dict]) -> list[str]:
    """Everything in ``outcomes`` (one seed) that breaks the browser variant's contract; [] when it holds."""
    found = []
    for result in outcomes:
        name, verdict = result["name"], result["verdict"]
        if result["expected_diagnosis"] is None:  # the reference, or another correct solution
            # SK: another correct solution needs what the browser lacks (numpy, an operation of
            # torch's the subset does not have); the learner is told to submit, never that it is wrong.
            if verdict != "AC" and (name == REFERENCE or verdict != "SK"):
                found.append(f"{'the reference' if name == REFERENCE else name} gets {verdict}: {result['message']}")
        elif name in _browser(exercise).passing:
            if verdict != "AC":
                found.append(f"{name} is listed as undetectable but gets {verdict}")
        elif verdict in ("AC", "IE"):
            found.append(f"{name} gets {verdict} on the browser variant")
        elif not result["diagnosed"]:
            found.append(f"{name}: diagnosed {result['diagnosis']!r}, expected {result['expected_diagnosis']!r}")
    return found


def _browser(exercise: Exercise) -> BrowserVariant:
    if exercise.browser is None:
        raise ExerciseError(f"exercise {exercise.number} has no browser variant")
    return exercise.browser


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge.browser.catalogue")
    parser.add_argument("exercise")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--seeds", type=int, default=1, help="how many consecutive seeds")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="DIR",
        help="judge the *.py files of DIR too (wrong ones state Mistake:/Diagnosis:)",
    )
    parser.add_argument(
        "--only-also", action="store_true", help="of the exercise's own solutions, judge only the reference"
    )
    args = parser.parse_args(argv)

    import judge.browser.torchlike as subset

    subset.install()  # before anything imports torch
    from judge.browser.run import run_browser_variant
    from judge.exercises.exercise import resolve

    exercise = resolve(args.exercise)
    if exercise.browser is None:
        print(f"exercise {exercise.number} has no browser variant", file=sys.stderr)
        return 2
    extra = [solution for folder in args.also for solution in solutions_in(Path(folder))]
    own = solutions(exercise)[:1] if args.only_also else solutions(exercise)
    for name, source, expected in own + extra:
        for seed in range(args.seed, args.seed + args.seeds):
            report = json.loads(run_browser_variant(str(exercise.root), source, seed))
            print(json.dumps({**outcome(exercise, name, expected, report), "seed": seed}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
