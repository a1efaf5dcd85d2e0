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
from judge.process import LearnerProcess, LoadFailed, LocalLauncher, ProcessFailed, SandboxFailure
from judge.runner import judge_file
from judge.suites import load_suite
from judge.testing import derive_seed
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
    runs: int = 1  # master seeds judged
    as_expected: int = 1  # of which behaved as promised


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


SUITES = ("public", "hidden")
BUDGET_KINDS = ("fit", "pairs", "independence", "seeds")  # too_regular follows from fit


def budget_problems(exercise: Exercise, *, seed: int | None = None, device: str = "cpu") -> list[str]:
    """Each suite's ``BUDGET`` must equal what its tests use when the reference runs them.

    Using more is refused as it happens (an internal error); declaring more than is used would
    silently lower every check's level, so it is a problem too. Each suite is judged on its own,
    so a problem names the suite and its own declaration. Returns readable problems (none: fine).
    """
    return _budget_check(exercise, seed, device)[0]


def _budget_check(exercise: Exercise, seed: int | None, device: str) -> tuple[list[str], Report]:
    """:func:`budget_problems`, and the reference's report of the last suite (for the outcome)."""
    problems = []
    for suite in SUITES:
        declared = load_suite(exercise, suite).budget
        report = judge_file(exercise, exercise.reference_path, seed=seed, device=device, suites=(suite,))
        if report.verdict is not Verdict.AC:
            problems.append(f"{exercise.suite_path(suite).name}: the reference got {report.verdict.value} "
                            f"({report.message}); its budget cannot be verified")
            continue
        checks = report.false_failure_budget.get("checks", {})
        for kind in BUDGET_KINDS:
            used = checks.get(kind, {}).get("used", 0)
            if used != declared.count(kind):
                problems.append(f"{exercise.suite_path(suite).name}: BUDGET declares {kind}={declared.count(kind)} "
                                f"but its tests use {used} ({declared})")
    return problems, report


def check_exercise(exercise: Exercise, *, seed: int | None = None, device: str = "cpu", jobs: int = 2,
                   progress: Callable[[CheckOutcome], None] | None = None,
                   seeds: int = 1) -> list[CheckOutcome]:
    """Judge the reference, the other correct solutions (``solutions/<exercise>/correct/``: they must
    pass too) and every wrong solution of ``exercise`` (``jobs`` at a time), then verify each
    suite's declared budget (:func:`budget_problems`).

    With ``seeds`` > 1 each solution is judged under that many master seeds (derived from
    ``seed``, 0 by default): the reference must pass every time and each wrong solution must fail,
    diagnosed, every time. That is how an author measures a suite's false failures and its power.
    """
    for suite in SUITES:
        load_suite(exercise, suite)  # import once, before threads share the module cache
    wrong = [parse_wrong_solution(p) for p in exercise.wrong_solutions()]
    if not exercise.reference_path.is_file():
        raise ExerciseError(f"{exercise.folder}: {exercise.reference_path} is missing")
    if not wrong:
        raise ExerciseError(f"{exercise.folder}: no known-wrong solutions in {exercise.solutions_root / 'wrong'}")
    master_seeds = [seed] if seeds <= 1 else [derive_seed(seed or 0, "check", i) for i in range(seeds)]

    def run_reference() -> CheckOutcome:
        return _aggregate("reference", "accepted",
                          [_judge_reference(report) for report in _judge_all(exercise, exercise.reference_path,
                                                                              master_seeds, device)])

    def run_correct(path: Path) -> CheckOutcome:
        return _aggregate(f"correct/{path.stem}", "accepted",
                          [_judge_reference(report) for report in _judge_all(exercise, path, master_seeds, device)])

    def run_wrong(solution: WrongSolution) -> CheckOutcome:
        expectation = f"rejected, diagnosed as '{solution.diagnosis}'"
        reports = _judge_all(exercise, solution.path, master_seeds, device)
        return _aggregate(solution.name, expectation, [_judge_wrong(report, solution) for report in reports])

    def run_budget() -> CheckOutcome:
        problems, report = _budget_check(exercise, seed, device)
        return CheckOutcome("budget", "each suite's BUDGET equals what it uses", report, not problems,
                            "; ".join(problems))

    tasks: list[Callable[[], CheckOutcome]] = [run_reference] + \
        [lambda p=p: run_correct(p) for p in exercise.correct_solutions()] + \
        [lambda s=s: run_wrong(s) for s in wrong] + [run_budget]
    outcomes: list[CheckOutcome] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for outcome in pool.map(lambda task: task(), tasks):
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    return outcomes


def _judge_reference(report: Report) -> tuple[Report, str]:
    ok = report.verdict is Verdict.AC
    return report, "" if ok else f"got {report.verdict.value}: {report.message}"


def _judge_wrong(report: Report, solution: WrongSolution) -> tuple[Report, str]:
    if report.verdict is Verdict.AC:
        return report, "was accepted"
    if report.verdict is Verdict.IE:
        return report, f"internal error: {report.message}"
    if not diagnosis_found(report, solution.diagnosis):
        return report, f"rejected, but the judge said: {report.diagnosis or report.message}"
    return report, ""


def _aggregate(name: str, expectation: str, results: list[tuple[Report, str]]) -> CheckOutcome:
    """One outcome over every seed: the first problem's report, or the last report."""
    bad = [(report, problem) for report, problem in results if problem]
    if not bad:
        outcome = CheckOutcome(name, expectation, results[-1][0], True)
    else:
        report, problem = bad[0]
        if len(results) > 1:
            problem = f"{len(bad)} of {len(results)} seeds went wrong; first (seed {report.seed}): {problem}"
        outcome = CheckOutcome(name, expectation, report, False, problem)
    outcome.runs, outcome.as_expected = len(results), len(results) - len(bad)
    return outcome


def _judge_all(exercise: Exercise, path: Path, seeds: list[int | None], device: str) -> list[Report]:
    """Judge ``path`` under each master seed; one learner process serves them while it lives (what a
    fresh process per seed would add is torch's import, for nothing the verdicts depend on)."""
    if len(seeds) == 1:
        return [judge_file(exercise, path, seed=seeds[0], device=device)]
    launcher = LocalLauncher()
    reports, process = [], None
    try:
        for seed in seeds:
            if process is not None and not process.alive:
                process.close()
                process = None
            if process is None:
                try:
                    process = LearnerProcess(path, device=device, memory_limit_mb=exercise.memory_limit_mb,
                                             load_timeout_s=exercise.time_limit_s, launcher=launcher)
                except (LoadFailed, ProcessFailed, SandboxFailure):
                    reports.append(judge_file(exercise, path, seed=seed, device=device))  # reports why
                    continue
            reports.append(judge_file(exercise, path, seed=seed, device=device, process=process, launcher=launcher))
    finally:
        if process is not None:
            process.close()
    return reports
