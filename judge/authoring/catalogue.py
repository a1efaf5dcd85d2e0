"""Tests of the tests: the reference must pass, every known-wrong solution must fail, diagnosed.

Each ``solutions/NNN-slug/wrong/*.py`` starts with a docstring::

    Mistake: what the code gets wrong, in a sentence or two.

    Diagnosis: the diagnosis the judge must give, in full.

(or ``Diagnosis-prefix:`` with its opening words; see :func:`diagnosis_found` for the rule).
:func:`check_exercise` judges the reference and every wrong solution and says, for each,
whether the judge behaved as promised, and whether the statement's contract list
(``tests/hidden/contract.toml``, :mod:`judge.exercises.clauses`) covers every binding sentence. The
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

from judge.checks.testing import derive_seed
from judge.engine.process import LearnerProcess, LoadFailed, LocalLauncher, ProcessFailed, SandboxFailure
from judge.engine.runner import judge_file
from judge.engine.settling import stopped_early
from judge.exercises.exercise import Exercise
from judge.exercises.folders import ExerciseError
from judge.exercises.patches import PATCH_SUFFIX, StalePatch, expanded_path, patch_header
from judge.exercises.suites import load_suite
from judge.reports.report import Report, is_failure
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
    """Read the ``Mistake:`` and ``Diagnosis:`` (or ``Diagnosis-prefix:``) docstring (of a ``.patch``:
    its header, :mod:`judge.exercises.patches`); raise :class:`ExerciseError` when one is missing or both
    diagnosis forms are given."""
    path = Path(path)
    if path.suffix == PATCH_SUFFIX:
        docstring = patch_header(path.read_text(encoding="utf-8"))
    else:
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
    """Whether the report's headline diagnosis is the one ``phrase`` promises.

    The rule: the headline (:attr:`Report.diagnosis`, JSON ``diagnosis``/``diagnosis_zh``: the
    "Likely mistake" a learner reads first, under the verdict) must *equal* ``phrase``, in English
    or in Chinese, once both are normalized (whitespace runs as one space, case ignored, a final
    full stop ignored). A failing case that names ``phrase`` below another headline does not count:
    the learner is told the headline. With ``prefix`` (default: ``phrase.prefix``, set by a
    ``Diagnosis-prefix:`` line) the headline must instead *start with* ``phrase`` and go on, if at
    all, with a character that is neither a letter nor a digit (``top-k`` never matches ``top-kk``).
    Failure messages are not searched: a phrase found in a message proves nothing about the diagnosis.

    ``report``: a :class:`Report` or its JSON form (as the browser runner returns it).
    """
    as_prefix = getattr(phrase, "prefix", False) if prefix is None else prefix
    return any(_matches(said, phrase, as_prefix) for said in _headline(report))


def _matches(said: str, phrase: str, as_prefix: bool) -> bool:
    wanted, text = normalized_diagnosis(phrase), normalized_diagnosis(said)
    if not wanted:
        return False
    return text == wanted or (as_prefix and text.startswith(wanted) and not text[len(wanted)].isalnum())


def _json(report: Report | dict) -> dict:
    return report.to_json() if isinstance(report, Report) else report


def _headline(report: Report | dict) -> list[str]:
    """The report's own diagnosis, the learner's "Likely mistake", in each language it has."""
    data = _json(report)
    return [str(data[key]) for key in ("diagnosis", "diagnosis_zh") if data.get(key)]


def _case_diagnoses(report: Report | dict) -> list[tuple[str, str]]:
    """(case name, diagnosis in English) of each failing case that names one, in the report's order."""
    return [
        (str(case.get("name")), str(case["diagnosis"]))
        for case in _json(report).get("cases", [])
        if is_failure(case.get("verdict")) and case.get("diagnosis")
    ]


def report_diagnoses(report: Report | dict) -> list[str]:
    """Every diagnosis the report names, the headline first, then each failing case's, once each
    (English): what a learner could read as a named mistake. [] when it names none."""
    headline = [str(_json(report)["diagnosis"])] if _json(report).get("diagnosis") else []
    return list(dict.fromkeys(headline + [text for _, text in _case_diagnoses(report)]))


def diagnosis_problem(report: Report | dict, phrase: str) -> str:
    """Why the report's headline is not the diagnosis ``phrase`` promises, showing both ("" when it is),
    and which failing case names the promised one below another headline, if any does."""
    if diagnosis_found(report, phrase):
        return ""
    kind = "starts with" if getattr(phrase, "prefix", False) else "equals"
    as_prefix = bool(getattr(phrase, "prefix", False))
    below = [name for name, text in _case_diagnoses(report) if _matches(text, phrase, as_prefix)]
    where = f"; case {below[0]} names the promised one, below the headline" if below else ""
    headline = _json(report).get("diagnosis")
    if not headline:
        return (
            f"rejected without a headline diagnosis, so none {kind} the promised {str(phrase)!r} "
            f"(the judge said: {_json(report).get('message') or ''}){where}"
        )
    return (
        f"rejected, but no headline diagnosis {kind} the promised one (the headline is the likely mistake "
        f"a learner reads first): promised {str(phrase)!r}; the headline is {str(headline)!r}{where}"
    )


SUITES = ("public", "hidden")
# too_regular follows from fit
BUDGET_KINDS = ("fit", "pairs", "calibration", "unbiased", "independence", "seeds", "rates")


def browser_suites(exercise: Exercise) -> tuple[str, ...] | None:
    """The suites "Run" judges in the browser (``[browser] suites``), None without a browser variant."""
    return exercise.browser.suites if exercise.browser is not None else None


def budget_suites(exercise: Exercise) -> tuple[str, ...]:
    """The suites whose ``BUDGET`` :func:`budget_problems` verifies: public, hidden and the browser's
    own (``tiny``)."""
    return SUITES + tuple(suite for suite in browser_suites(exercise) or () if suite not in SUITES)


def budget_problems(
    exercise: Exercise, *, seed: int | None = None, device: str = "cpu", launcher: Launcher | None = None
) -> list[str]:
    """Each suite's ``BUDGET`` (:func:`budget_suites`: the browser's tiny suite too) must equal what
    its tests use when the reference runs them.

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
    for suite in budget_suites(exercise):
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


Judged = list[tuple[Report, str]]  # one (report, problem) per master seed; "" where all went as promised


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
    """Judge what a learner may meet of ``exercise`` and say, line by line, whether the judge behaves
    as promised (``jobs`` solutions at a time):

    - the reference and the other correct solutions (``solutions/<exercise>/correct/``) are AC;
    - the untouched starter is rejected, naming no mistake at all (neither the headline nor any case);
    - each wrong solution (``wrong/*.py``, or ``wrong/*.patch`` expanded against the reference, where a
      stale patch fails its line) is rejected with its promised *headline* diagnosis
      (:func:`diagnosis_found`);
    - with a browser variant, each of them judged again on the browser's suites (``public`` and
      ``tiny``, with real torch in a learner process as the server runs it): the same promises,
      except that a wrong solution listed in ``[browser.undetectable]`` must pass there (else the
      list is stale);
    - the statement's contract list (:func:`contract_outcome`), the declared parameters against the
      reference's and the starter's signatures (:func:`params_outcome`), the browser's undetectable
      list (:func:`undetectable_outcome`) and each suite's declared budget (:func:`budget_problems`).

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
    for suite in budget_suites(exercise):
        load_suite(exercise, suite)  # import once, before threads share the module cache
    if not exercise.reference_path.is_file():
        raise ExerciseError(f"{exercise.folder}: {exercise.reference_path} is missing")
    files = exercise.wrong_solution_files()
    if not files:
        raise ExerciseError(f"{exercise.folder}: no known-wrong solutions in {exercise.solutions_root / 'wrong'}")
    wrong: list[WrongSolution | StalePatch] = []
    for path in files:
        try:
            if path.suffix == PATCH_SUFFIX:
                parse_wrong_solution(path)  # a header without its fields is refused before any diff is applied
                path = expanded_path(path, exercise.reference_path)
            wrong.append(parse_wrong_solution(path))
        except StalePatch as stale:
            wrong.append(stale)
    master_seeds: list[int | None] = [seed]
    if seeds > 1:
        master_seeds = [derive_seed(seed or 0, "check", i) for i in range(seeds)]
    browser = browser_suites(exercise)
    also = f", and by {'+'.join(browser)}" if browser else ""

    def judged(
        path: Path, rule: Callable[[Report], str], browser_rule: Callable[[Report], str] | None = None
    ) -> Judged:
        """Each seed's report on public+hidden and its problem, with the browser suites' problem added."""
        reports = _judge_all(exercise, path, master_seeds, device, launcher)
        results = [(report, rule(report)) for report in reports]
        if browser is None:
            return results
        in_browser = _judge_all(exercise, path, master_seeds, device, launcher, suites=browser)
        return [
            (report, "; ".join(p for p in (problem, _in_browser(browser, (browser_rule or rule)(other))) if p))
            for (report, problem), other in zip(results, in_browser, strict=True)
        ]

    def run_accepted(name: str, path: Path) -> CheckOutcome:
        return _aggregate(name, f"accepted{also}", judged(path, _accepted))

    def run_correct(path: Path) -> CheckOutcome:
        """A correct solution: a ``.py``, or a ``.patch`` of the reference (a stale one is a failed line)."""
        try:
            judged_path = expanded_path(path, exercise.reference_path) if path.suffix == PATCH_SUFFIX else path
        except StalePatch as stale:
            report = _plain_report(exercise, Verdict.CE, str(stale))
            return CheckOutcome(f"correct/{path.stem}", "its patch applies to reference.py", report, False, str(stale))
        return run_accepted(f"correct/{path.stem}", judged_path)

    def run_starter() -> CheckOutcome:
        expectation = f"rejected, naming no mistake{also}"
        if not exercise.starter_path.is_file():
            report = _plain_report(exercise, Verdict.CE, f"{exercise.starter_path} is missing")
            return CheckOutcome("starter", expectation, report, False, report.message)
        return _aggregate("starter", expectation, judged(exercise.starter_path, _unnamed_rejection))

    def run_wrong(solution: WrongSolution | StalePatch) -> CheckOutcome:
        if isinstance(solution, StalePatch):
            report = _plain_report(exercise, Verdict.CE, str(solution))
            return CheckOutcome(solution.patch.stem, "its patch applies to reference.py", report, False, str(solution))
        how = "diagnosed as starting with" if solution.diagnosis.prefix else "diagnosed as"
        expectation = f"rejected, {how} '{solution.diagnosis}'"
        browser_rule = None
        if browser is not None and solution.name in _undetectable(exercise):
            expectation += f"; accepted by {'+'.join(browser)} (listed undetectable)"
            browser_rule = _undetectable_passes
        else:
            expectation += also

        def rule(report: Report) -> str:
            problem = _rejected_as_promised(report, solution)
            if problem and stopped_early(report):
                # Where the promised name is, below the headline: the cases a settled run skipped say.
                full = judge_file(
                    exercise,
                    solution.path,
                    seed=report.seed,
                    device=device,
                    suites=tuple(report.suites),
                    launcher=launcher,
                    settle=False,
                )
                problem = _rejected_as_promised(full, solution)
            return problem

        results = judged(solution.path, rule, browser_rule)
        return _aggregate(solution.name, expectation, results)

    def run_budget() -> CheckOutcome:
        problems, report = _budget_check(exercise, seed, device, launcher)
        return CheckOutcome(
            "budget", "each suite's BUDGET equals what it uses", report, not problems, "; ".join(problems)
        )

    tasks: list[Callable[[], CheckOutcome]] = (
        [lambda: run_accepted("reference", exercise.reference_path)]
        + [lambda p=p: run_correct(p) for p in exercise.correct_solution_files()]
        + [run_starter]
        + [lambda s=s: run_wrong(s) for s in wrong]
        + [lambda: contract_outcome(exercise), lambda: params_outcome(exercise)]
        + ([lambda: undetectable_outcome(exercise, files)] if browser else [])
        + [run_budget]
    )
    outcomes: list[CheckOutcome] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        # Interrupted (Ctrl-C), map's iterator cancels the solutions not started; those running finish.
        for outcome in pool.map(lambda task: task(), tasks):
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    return outcomes


def _plain_report(exercise: Exercise, verdict: Verdict, message: str) -> Report:
    """A report of no judging, for a line of ``check`` that reads files only."""
    from judge import JUDGE_VERSION

    return Report(
        exercise={"number": exercise.number, "slug": exercise.slug},
        verdict=verdict,
        cases=[],
        seed=None,
        device="cpu",
        sandbox="none",
        suites=[],
        judge_version=JUDGE_VERSION,
        false_failure_budget={},
        message=message,
    )


def contract_outcome(exercise: Exercise) -> CheckOutcome:
    """``check``'s line for the statement's contract: every binding sentence of the statement is
    listed in ``tests/hidden/contract.toml`` with the cases that check it (:mod:`judge.exercises.clauses`)."""
    from judge.exercises.clauses import ContractError, contract_problems

    try:
        problems = contract_problems(exercise)
    except ContractError as error:
        problems = [str(error)]
    report = _plain_report(exercise, Verdict.WA if problems else Verdict.AC, "; ".join(problems))
    return CheckOutcome(
        "contract", "every binding sentence of the statement has its checks", report, not problems, "; ".join(problems)
    )


def params_outcome(exercise: Exercise) -> CheckOutcome:
    """``check``'s line for ``[functions.X] params``: each is a parameter of ``X`` in the reference and
    in the starter, one the tests can pass by keyword, in the declared order (:mod:`judge.exercises.declared`)."""
    from judge.exercises.declared import declared_param_problems

    problems = declared_param_problems(exercise)
    report = _plain_report(exercise, Verdict.WA if problems else Verdict.AC, "; ".join(problems))
    return CheckOutcome(
        "params",
        "the declared parameters are the reference's and the starter's",
        report,
        not problems,
        "; ".join(problems),
    )


def undetectable_outcome(exercise: Exercise, files: Sequence[Path]) -> CheckOutcome:
    """``check``'s line for ``[browser.undetectable]`` and ``[browser.subset_undetectable]``: every
    name they list is a wrong solution (that each ``undetectable`` one passes the browser's suites is
    checked on its own line; a ``subset_undetectable`` one is caught there, with real torch, and
    passes only under the browser's torch subset, which the Pyodide tests check)."""
    names = {path.stem for path in files}
    listed = exercise.browser.passing if exercise.browser is not None else {}
    unknown = [name for name in listed if name not in names]
    problem = (
        f"[browser.undetectable] or [browser.subset_undetectable] lists {', '.join(unknown)}, "
        f"which is no wrong solution of {exercise.solutions_root.name}/wrong/"
        if unknown
        else ""
    )
    report = _plain_report(exercise, Verdict.WA if unknown else Verdict.AC, problem)
    return CheckOutcome("undetectable", "each listed name is a wrong solution", report, not unknown, problem)


def _undetectable(exercise: Exercise) -> dict[str, str]:
    return exercise.browser.undetectable if exercise.browser is not None else {}


def _in_browser(suites: tuple[str, ...], problem: str) -> str:
    """``problem`` of a judging on the browser's suites, saying so ("" stays "")."""
    return f"on {'+'.join(suites)} (the browser's suites): {problem}" if problem else ""


def _accepted(report: Report) -> str:
    return "" if report.verdict is Verdict.AC else f"got {report.verdict.value}: {report.message}"


def _unnamed_rejection(report: Report) -> str:
    """The untouched starter: rejected, and told of no mistake (it made none: it did nothing)."""
    if report.verdict is Verdict.AC:
        return "was accepted"
    if report.verdict is Verdict.IE:
        return f"internal error: {report.message}"
    named = [f"the headline {str(report.diagnosis)!r}"] if report.diagnosis else []
    named += [f"case {name} {text!r}" for name, text in _case_diagnoses(report)]
    if not named:
        return ""
    return "rejected, but names a mistake the untouched starter cannot have made: " + "; ".join(named)


def _undetectable_passes(report: Report) -> str:
    if report.verdict is Verdict.AC:
        return ""
    return (
        f"listed in [browser.undetectable] but caught ({report.verdict.value}: {report.message}); "
        "remove it from the list"
    )


def _rejected_as_promised(report: Report, solution: WrongSolution) -> str:
    if report.verdict is Verdict.AC:
        return "was accepted"
    if report.verdict is Verdict.IE:
        return f"internal error: {report.message}"
    return diagnosis_problem(report, solution.diagnosis)


def _aggregate(name: str, expectation: str, results: Judged) -> CheckOutcome:
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
    exercise: Exercise,
    path: Path,
    seeds: list[int | None],
    device: str,
    launcher: Launcher | None = None,
    suites: tuple[str, ...] = SUITES,
) -> list[Report]:
    """Judge ``path`` on ``suites`` under each master seed; one learner process serves them while it
    lives (what a fresh process per seed would add is torch's import, for nothing the verdicts depend on)."""
    if len(seeds) == 1:
        return [judge_file(exercise, path, seed=seeds[0], device=device, suites=suites, launcher=launcher)]
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
                    reports.append(  # says why
                        judge_file(exercise, path, seed=seed, device=device, suites=suites, launcher=launcher)
                    )
                    continue
            reports.append(
                judge_file(exercise, path, seed=seed, device=device, suites=suites, process=process, launcher=launcher)
            )
    finally:
        if process is not None:
            process.close()
    return reports
