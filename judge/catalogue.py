"""Tests of the tests: the reference must pass, every known-wrong solution must fail, diagnosed.

Each ``solutions/NNN-slug/wrong/*.py`` starts with a docstring::

    Mistake: what the code gets wrong, in a sentence or two.

    Diagnosis: the diagnosis the judge must give, in full.

(or ``Diagnosis-prefix:`` with its opening words; see :func:`diagnosis_found` for the rule).
:func:`check_exercise` judges the reference and every wrong solution and says, for each,
whether the judge behaved as promised, and whether the statement's contract list
(``tests/hidden/contract.toml``, :mod:`judge.clauses`) covers every binding sentence. The
maintainers' ``python practice/judge.py check`` and the project's test suite both use it.
"""

from __future__ import annotations

import ast
import multiprocessing
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judge.exercise import Exercise, ExerciseError
from judge.process import LearnerProcess, LoadFailed, LocalLauncher, ProcessFailed, SandboxFailure
from judge.report import Report
from judge.runner import judge_file
from judge.suites import load_suite
from judge.testing import derive_seed
from judge.verdicts import Verdict

if TYPE_CHECKING:
    from judge.sandbox.launchers import Launcher


class DiagnosisPhrase(str):
    """The diagnosis a wrong solution promises (a ``str``); ``prefix`` is True when the docstring
    gave it as ``Diagnosis-prefix:`` (the opening words of the diagnosis), False for ``Diagnosis:``."""

    prefix: bool

    def __new__(cls, text: str, prefix: bool = False) -> DiagnosisPhrase:
        obj = super().__new__(cls, text)
        obj.prefix = prefix
        return obj

    def __getnewargs__(self) -> tuple[str, bool]:  # type: ignore[override]  # typeshed: tuple[str]; __new__ here takes more
        return (str(self), self.prefix)


@dataclass(frozen=True)
class WrongSolution:
    path: Path
    mistake: str
    diagnosis: DiagnosisPhrase

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


_FIELDS = ("Mistake", "Diagnosis-prefix", "Diagnosis")


def parse_wrong_solution(path: Path) -> WrongSolution:
    """Read the ``Mistake:`` and ``Diagnosis:`` (or ``Diagnosis-prefix:``) docstring; raise
    :class:`ExerciseError` when one is missing or both diagnosis forms are given."""
    try:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except SyntaxError as exc:
        raise ExerciseError(f"{path}: {exc}") from None
    names = "|".join(_FIELDS)
    fields = dict(re.findall(rf"^({names}):\s*(.+?)(?=\n\s*\n|\n(?:{names}):|\Z)", docstring, flags=re.S | re.M))
    if "Mistake" not in fields or ("Diagnosis" not in fields and "Diagnosis-prefix" not in fields):
        raise ExerciseError(f"{path}: the docstring must state 'Mistake:' and 'Diagnosis:'")
    if "Diagnosis" in fields and "Diagnosis-prefix" in fields:
        raise ExerciseError(f"{path}: state either 'Diagnosis:' or 'Diagnosis-prefix:', not both")
    prefix = "Diagnosis" not in fields
    phrase = fields["Diagnosis-prefix" if prefix else "Diagnosis"]
    return WrongSolution(path, " ".join(fields["Mistake"].split()), DiagnosisPhrase(" ".join(phrase.split()), prefix))


def normalized_diagnosis(text: str) -> str:
    """``text`` for comparing diagnoses: runs of whitespace as one space, lower case, no final full stop."""
    return " ".join(str(text).split()).lower().rstrip(".。")


def diagnosis_found(report: Report | dict, phrase: str, *, prefix: bool | None = None) -> bool:
    """Whether the report gives the diagnosis ``phrase`` promises.

    The rule: one of the report's diagnoses (the report's own, the likely mistake a learner reads
    under the verdict, or that of any failing case) must *equal* ``phrase``, in English or in
    Chinese, once both are normalized (whitespace runs as one space, case ignored, a final full
    stop ignored). With ``prefix`` (default: ``phrase.prefix``, set by a ``Diagnosis-prefix:``
    line) the diagnosis must instead *start with* ``phrase`` and go on, if at all, with a
    character that is neither a letter nor a digit (``top-k`` never matches ``top-kk``). Failure
    messages are not searched: a phrase found in a message proves nothing about the diagnosis.

    ``report``: a :class:`Report` or its JSON form (as the browser runner returns it).
    """
    wanted = normalized_diagnosis(phrase)
    if not wanted:
        return False
    as_prefix = getattr(phrase, "prefix", False) if prefix is None else prefix
    for said in _report_diagnoses(report):
        text = normalized_diagnosis(said)
        if text == wanted:
            return True
        if as_prefix and text.startswith(wanted) and not text[len(wanted)].isalnum():
            return True
    return False


def report_diagnoses(report: Report | dict) -> list[str]:
    """The named diagnoses a report gives (its own and each failing case's, in English), once each."""
    return _report_diagnoses(report, ("diagnosis",))


def _report_diagnoses(report: Report | dict, keys: tuple[str, ...] = ("diagnosis", "diagnosis_zh")) -> list[str]:
    """The report's diagnosis and each failing case's (in the languages ``keys`` name), once each."""
    data = report.to_json() if isinstance(report, Report) else report
    failing = [c for c in data.get("cases", []) if c.get("verdict") not in (Verdict.AC.value, Verdict.SK.value)]
    sources = [data] + failing
    return list(dict.fromkeys(str(source[key]) for source in sources for key in keys if source.get(key)))


def diagnosis_problem(report: Report | dict, phrase: str) -> str:
    """Why ``phrase`` does not match the report's diagnoses, showing both texts ("" when it does)."""
    if diagnosis_found(report, phrase):
        return ""
    kind = "starts with" if getattr(phrase, "prefix", False) else "equals"
    said = _report_diagnoses(report, ("diagnosis",))
    if not said:
        data = report.to_json() if isinstance(report, Report) else report
        return (
            f"rejected without a diagnosis, so none {kind} the promised {str(phrase)!r} "
            f"(the judge said: {data.get('message') or ''})"
        )
    return (
        f"rejected, but no diagnosis {kind} the promised one: promised {str(phrase)!r}; "
        f"the judge said {'; '.join(repr(text) for text in said)}"
    )


SUITES = ("public", "hidden")
BUDGET_KINDS = ("fit", "pairs", "calibration", "unbiased", "independence", "seeds")  # too_regular follows from fit


def budget_problems(
    exercise: Exercise, *, seed: int | None = None, device: str = "cpu", launcher: Launcher | None = None
) -> list[str]:
    """Each suite's ``BUDGET`` must equal what its tests use when the reference runs them.

    Using more is refused as it happens (an internal error); declaring more than is used would
    silently lower every check's level, so it is a problem too. Each suite is judged on its own,
    so a problem names the suite and its own declaration. Returns readable problems (none: fine).
    ``launcher`` starts the reference's processes (default: a fresh ``local`` one each).
    """
    return _budget_check(exercise, seed, device, launcher)[0]


def _budget_check(
    exercise: Exercise, seed: int | None, device: str, launcher: Launcher | None = None
) -> tuple[list[str], Report]:
    """:func:`budget_problems`, and the reference's report of the last suite (for the outcome)."""
    problems = []
    for suite in SUITES:
        declared = load_suite(exercise, suite).budget
        report = judge_file(
            exercise, exercise.reference_path, seed=seed, device=device, suites=(suite,), launcher=launcher
        )
        if report.verdict is not Verdict.AC:
            problems.append(
                f"{exercise.suite_path(suite).name}: the reference got {report.verdict.value} "
                f"({report.message}); its budget cannot be verified"
            )
            continue
        checks = report.false_failure_budget.get("checks", {})
        for kind in BUDGET_KINDS:
            used = checks.get(kind, {}).get("used", 0)
            if used != declared.count(kind):
                problems.append(
                    f"{exercise.suite_path(suite).name}: BUDGET declares {kind}={declared.count(kind)} "
                    f"but its tests use {used} ({declared})"
                )
    return problems, report


def check_exercise(
    exercise: Exercise,
    *,
    seed: int | None = None,
    device: str = "cpu",
    jobs: int = 2,
    progress: Callable[[CheckOutcome], None] | None = None,
    seeds: int = 1,
    launcher: Launcher | None = None,
) -> list[CheckOutcome]:
    """Judge the reference, the other correct solutions (``solutions/<exercise>/correct/``: they must
    pass too) and every wrong solution of ``exercise`` (``jobs`` at a time), then verify the
    statement's contract list (:func:`contract_outcome`) and each suite's declared budget
    (:func:`budget_problems`).

    With ``seeds`` > 1 each solution is judged under that many master seeds (derived from
    ``seed``, 0 by default): the reference must pass every time and each wrong solution must fail,
    diagnosed, every time. That is how an author measures a suite's false failures and its power.

    ``launcher`` starts every learner process (a caller checking many exercises passes one
    :class:`~judge.sandbox.launchers.WarmLocalLauncher` for all); by default one is made for this
    call and closed before it returns, however it returns (an interrupt included).
    """
    if launcher is None:
        from judge.sandbox.launchers import WarmLocalLauncher

        with WarmLocalLauncher() as warm:
            return check_exercise(
                exercise, seed=seed, device=device, jobs=jobs, progress=progress, seeds=seeds, launcher=warm
            )
    for suite in SUITES:
        load_suite(exercise, suite)  # import once, before threads share the module cache
    wrong = [parse_wrong_solution(p) for p in exercise.wrong_solutions()]
    if not exercise.reference_path.is_file():
        raise ExerciseError(f"{exercise.folder}: {exercise.reference_path} is missing")
    if not wrong:
        raise ExerciseError(f"{exercise.folder}: no known-wrong solutions in {exercise.solutions_root / 'wrong'}")
    master_seeds: list[int | None] = [seed]
    if seeds > 1:
        master_seeds = [derive_seed(seed or 0, "check", i) for i in range(seeds)]

    def run_reference() -> CheckOutcome:
        return _aggregate(
            "reference",
            "accepted",
            [
                _judge_reference(report)
                for report in _judge_all(exercise, exercise.reference_path, master_seeds, device, launcher)
            ],
        )

    def run_correct(path: Path) -> CheckOutcome:
        return _aggregate(
            f"correct/{path.stem}",
            "accepted",
            [_judge_reference(report) for report in _judge_all(exercise, path, master_seeds, device, launcher)],
        )

    def run_wrong(solution: WrongSolution) -> CheckOutcome:
        how = "diagnosed as starting with" if solution.diagnosis.prefix else "diagnosed as"
        expectation = f"rejected, {how} '{solution.diagnosis}'"
        reports = _judge_all(exercise, solution.path, master_seeds, device, launcher)
        return _aggregate(solution.name, expectation, [_judge_wrong(report, solution) for report in reports])

    def run_contract() -> CheckOutcome:
        return contract_outcome(exercise)

    def run_budget() -> CheckOutcome:
        problems, report = _budget_check(exercise, seed, device, launcher)
        return CheckOutcome(
            "budget", "each suite's BUDGET equals what it uses", report, not problems, "; ".join(problems)
        )

    tasks: list[Callable[[], CheckOutcome]] = (
        [run_reference]
        + [lambda p=p: run_correct(p) for p in exercise.correct_solutions()]
        + [lambda s=s: run_wrong(s) for s in wrong]
        + [run_contract, run_budget]
    )
    outcomes: list[CheckOutcome] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        # Interrupted (Ctrl-C), map's iterator cancels the solutions not started; those running finish.
        for outcome in pool.map(lambda task: task(), tasks):
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    return outcomes


def contract_outcome(exercise: Exercise) -> CheckOutcome:
    """``check``'s line for the statement's contract: every binding sentence of the statement is
    listed in ``tests/hidden/contract.toml`` with the cases that check it (:mod:`judge.clauses`)."""
    from judge import JUDGE_VERSION
    from judge.clauses import ContractError, contract_problems

    try:
        problems = contract_problems(exercise)
    except ContractError as error:
        problems = [str(error)]
    report = Report(
        exercise={"number": exercise.number, "slug": exercise.slug},
        verdict=Verdict.WA if problems else Verdict.AC,
        cases=[],
        seed=None,
        device="cpu",
        sandbox="none",
        suites=[],
        judge_version=JUDGE_VERSION,
        false_failure_budget={},
        message="; ".join(problems),
    )
    return CheckOutcome(
        "contract", "every binding sentence of the statement has its checks", report, not problems, "; ".join(problems)
    )


def _judge_reference(report: Report) -> tuple[Report, str]:
    ok = report.verdict is Verdict.AC
    return report, "" if ok else f"got {report.verdict.value}: {report.message}"


def _judge_wrong(report: Report, solution: WrongSolution) -> tuple[Report, str]:
    if report.verdict is Verdict.AC:
        return report, "was accepted"
    if report.verdict is Verdict.IE:
        return report, f"internal error: {report.message}"
    return report, diagnosis_problem(report, solution.diagnosis)


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


def judge_under_seeds(
    exercise: Exercise,
    path: Path,
    seeds: Sequence[int | None],
    *,
    device: str = "cpu",
    jobs: int = 1,
    launcher: Launcher | None = None,
) -> list[Report]:
    """Judge ``path`` under each master seed of ``seeds``; the reports in the order of ``seeds``.

    With ``jobs`` > 1 the seeds are dealt round-robin to that many worker processes (spawned, so
    none inherits the caller's threads), each with its own learner process: the judge's own
    statistics are pure Python, so threads would wait on one another. Verdicts do not depend on
    the split (each seed's run is what it would be alone). ``launcher`` starts the learner
    processes of this process (default: a fresh ``local`` one); worker processes start their own.
    """
    seeds = list(seeds)
    jobs = max(1, min(jobs, len(seeds) // PER_PROCESS_MIN))
    if jobs == 1:
        return _judge_all(exercise, path, seeds, device, launcher)
    chunks = [seeds[i::jobs] for i in range(jobs)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        parts = list(pool.map(_judge_all, [exercise] * jobs, [path] * jobs, chunks, [device] * jobs))
    reports: list[Report] = []
    for index in range(len(seeds)):
        reports.append(parts[index % jobs][index // jobs])
    return reports


# A worker process costs an import of torch (about two seconds): worth it from this many seeds on.
PER_PROCESS_MIN = 20


def _judge_all(
    exercise: Exercise, path: Path, seeds: list[int | None], device: str, launcher: Launcher | None = None
) -> list[Report]:
    """Judge ``path`` under each master seed; one learner process serves them while it lives (what a
    fresh process per seed would add is torch's import, for nothing the verdicts depend on)."""
    if len(seeds) == 1:
        return [judge_file(exercise, path, seed=seeds[0], device=device, launcher=launcher)]
    launcher = launcher or LocalLauncher()
    reports, process = [], None
    try:
        for seed in seeds:
            if process is not None and not process.alive:
                process.close()
                process = None
            if process is None:
                try:
                    process = LearnerProcess(
                        path,
                        device=device,
                        memory_limit_mb=exercise.memory_limit_mb,
                        load_timeout_s=exercise.time_limit_s,
                        launcher=launcher,
                    )
                except (LoadFailed, ProcessFailed, SandboxFailure):
                    reports.append(judge_file(exercise, path, seed=seed, device=device, launcher=launcher))  # says why
                    continue
            reports.append(judge_file(exercise, path, seed=seed, device=device, process=process, launcher=launcher))
    finally:
        if process is not None:
            process.close()
    return reports
