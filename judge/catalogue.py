"""Tests of the tests: the reference must pass, every known-wrong solution must fail, diagnosed.

Each ``solutions/NNN-slug/wrong/*.py`` starts with a docstring::

    Mistake: what the code gets wrong, in a sentence or two.

    Diagnosis: a phrase the judge's diagnosis or failure message must contain.

:func:`check_exercise` judges the reference and every wrong solution and says, for each,
whether the judge behaved as promised. The maintainers' ``python practice/judge.py check``
and the project's test suite both use it.
"""

from __future__ import annotations

import ast
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from judge.exercise import Exercise, ExerciseError
from judge.report import Report
from judge.runner import judge_file, load_suite
from judge.verdicts import Verdict


@dataclass(frozen=True)
class WrongSolution:
    path: Path
    mistake: str
    diagnosis: str

    @property
    def name(self) -> str:
        return self.path.stem


@dataclass
class CheckOutcome:
    """How one solution fared: ``ok`` is True when the judge did what the catalogue promises."""

    solution: str
    expectation: str  # "accepted" or "rejected, diagnosed as '<phrase>'"
    report: Report
    ok: bool
    problem: str = ""


def parse_wrong_solution(path: Path) -> WrongSolution:
    """Read the ``Mistake:``/``Diagnosis:`` docstring; raise :class:`ExerciseError` when it is missing."""
    try:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except SyntaxError as exc:
        raise ExerciseError(f"{path}: {exc}") from None
    fields = dict(re.findall(r"^(Mistake|Diagnosis):\s*(.+?)(?=\n\s*\n|\n(?:Mistake|Diagnosis):|\Z)", docstring,
                             flags=re.S | re.M))
    if "Mistake" not in fields or "Diagnosis" not in fields:
        raise ExerciseError(f"{path}: the docstring must state 'Mistake:' and 'Diagnosis:'")
    return WrongSolution(path, " ".join(fields["Mistake"].split()), " ".join(fields["Diagnosis"].split()))


def diagnosis_found(report: Report | dict, phrase: str) -> bool:
    """Whether ``phrase`` appears in the report's diagnosis or in a failing case's diagnosis or message.

    ``report``: a :class:`Report` or its JSON form (as the browser runner returns it).
    """
    data = report.to_json() if isinstance(report, Report) else report
    texts = [data.get("diagnosis") or "", data.get("message") or ""]
    for case in data.get("cases", []):
        if case.get("verdict") not in (Verdict.AC.value, Verdict.SK.value):
            texts += [case.get("diagnosis") or "", case.get("message") or ""]
    wanted = phrase.lower()
    return any(wanted in text.lower() for text in texts)


def check_exercise(exercise: Exercise, *, seed: int | None = None, device: str = "cpu", jobs: int = 2,
                   progress: Callable[[CheckOutcome], None] | None = None) -> list[CheckOutcome]:
    """Judge the reference and every wrong solution of ``exercise`` (``jobs`` at a time)."""
    for suite in ("public", "hidden"):
        load_suite(exercise, suite)  # import once, before threads share the module cache
    wrong = [parse_wrong_solution(p) for p in exercise.wrong_solutions()]
    if not exercise.reference_path.is_file():
        raise ExerciseError(f"{exercise.folder}: {exercise.reference_path} is missing")
    if not wrong:
        raise ExerciseError(f"{exercise.folder}: no known-wrong solutions in {exercise.solutions_root / 'wrong'}")

    def run_reference() -> CheckOutcome:
        report = judge_file(exercise, exercise.reference_path, seed=seed, device=device)
        ok = report.verdict is Verdict.AC
        return CheckOutcome("reference", "accepted", report, ok, "" if ok else f"got {report.verdict.value}: {report.message}")

    def run_wrong(solution: WrongSolution) -> CheckOutcome:
        report = judge_file(exercise, solution.path, seed=seed, device=device)
        expectation = f"rejected, diagnosed as '{solution.diagnosis}'"
        if report.verdict is Verdict.AC:
            return CheckOutcome(solution.name, expectation, report, False, "was accepted")
        if report.verdict is Verdict.IE:
            return CheckOutcome(solution.name, expectation, report, False, f"internal error: {report.message}")
        if not diagnosis_found(report, solution.diagnosis):
            said = report.diagnosis or report.message
            return CheckOutcome(solution.name, expectation, report, False, f"rejected, but the judge said: {said}")
        return CheckOutcome(solution.name, expectation, report, True)

    tasks: list[Callable[[], CheckOutcome]] = [run_reference] + [lambda s=s: run_wrong(s) for s in wrong]
    outcomes: list[CheckOutcome] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for outcome in pool.map(lambda task: task(), tasks):
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    return outcomes
