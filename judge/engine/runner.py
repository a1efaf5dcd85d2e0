"""Judge a learner's source against an exercise's suites and produce a :class:`~judge.reports.report.Report`.

The one runner behind every front door (CLI, web queue, maintainers' ``check``, the browser):
:func:`grade` takes the source as text, :func:`judge_file` reads a file first. The learner's
code runs in a :class:`~judge.learner.interface.Learner` (a :class:`~judge.engine.process.LearnerProcess` on a
machine); test functions, expected values and every check stay in this process.

A judging goes in named steps (:class:`_Run`): load the suites and the false-failure budget,
start the learner and check its signatures, run the cases (replacing a learner that dies),
add the too-regular case, then the verdict, message and diagnosis.

:func:`grade` never raises for anything the learner's code does, and a sandbox that cannot
run a job ends that job in IE, not in an exception. Every process it starts, restarts included,
runs at the level of the first (the launcher given, or the one of the process given), and each
case records the level that ran it. Messages never carry the judge's own traceback or the
server's paths: an internal error logs its details under a reference the learner can quote.
"""

from __future__ import annotations

import logging
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from judge import JUDGE_VERSION
from judge.checks.base import CheckFailed
from judge.checks.budget import BudgetDeclaration, CaseBudget, FalseFailureBudget
from judge.checks.distributions import too_regular
from judge.checks.evidence import Evidence
from judge.checks.testing import SEED_BITS, Context, Submission, derive_seed
from judge.engine.settling import Settlement
from judge.engine.timesplit import TimeSplit
from judge.exercises.exercise import Exercise
from judge.exercises.suites import CaseSpec, load_suite
from judge.i18n import Bilingual, bilingual
from judge.learner.interface import (
    DEFAULT_FILENAME,
    CallTiming,
    Learner,
    LearnerRaised,
    LearnerSource,
    LoadFailed,
    ProcessFailed,
    SandboxFailure,
)
from judge.learner.protocol import FunctionInfo
from judge.reports.redaction import redact_report
from judge.reports.report import HIDDEN, CaseResult, CheckRecord, Report, first_failure, is_failure
from judge.verdicts import Verdict

if TYPE_CHECKING:  # the sandbox is not in the browser's bundle
    from judge.engine.probing import Fingerprint
    from judge.sandbox.launchers import Launcher

MAX_RESTARTS = 2  # after this many dead processes, the remaining cases are skipped
TOO_REGULAR_CASE = "not_too_regular"
# What a learner sees of a hidden case that raised: its type and text are the learner's code's to choose.
RAISED_RULE = Bilingual("your code raised an exception", "你的代码抛出了异常")
log = logging.getLogger("probjudge.runner")

ProgressCallback = Callable[[str, int, int], None]  # (case title, index, total)


def signature_problems(exercise: Exercise, functions: Mapping[str, FunctionInfo]) -> list[Bilingual]:
    """Compare the learner's functions with the exercise's declared ones; return readable problems,
    each in English and Chinese (:func:`signature_message` joins them into the report's message)."""
    problems = []
    for spec in exercise.functions:
        found = functions.get(spec.name)
        if found is None:
            problems.append(
                bilingual(
                    "your file does not define `{signature}`",
                    "你的文件没有定义 `{signature}`",
                    signature=spec.signature,
                )
            )
            continue
        params = found.params
        names = {p.name for p in params}
        takes_kwargs = any(p.kind == "VAR_KEYWORD" for p in params)
        missing = [n for n in spec.params if n not in names and not takes_kwargs]
        extra = [
            p.name
            for p in params
            if p.name not in spec.params
            and not p.has_default
            and p.kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")
        ]
        positional_only = [p.name for p in params if p.kind == "POSITIONAL_ONLY" and p.name != spec.params[0]]
        if missing or extra or positional_only:
            detail = []
            if missing:
                detail.append(bilingual("missing {names}", "缺少 {names}", names=_code_names(missing)))
            if extra:
                detail.append(bilingual("extra required {names}", "多出必填参数 {names}", names=_code_names(extra)))
            if positional_only:
                detail.append(
                    bilingual("positional-only {names}", "仅限位置参数 {names}", names=_code_names(positional_only))
                )
            problems.append(
                bilingual(
                    "`{found}` must be `{wanted}` ({detail})",
                    "`{found}` 应当是 `{wanted}`（{detail}）",
                    found=found.signature,
                    wanted=spec.signature,
                    detail=_joined(detail),
                )
            )
    return problems


def _code_names(names: list[str]) -> Bilingual:
    """Parameter names as code, listed in each language (``a`, `b`` / ``a`、`b``)."""
    return Bilingual(", ".join(f"`{n}`" for n in names), "、".join(f"`{n}`" for n in names))


def _joined(parts: list[Bilingual]) -> Bilingual:
    """``parts`` as one text, separated by a semicolon in each language."""
    return Bilingual("; ".join(str(p) for p in parts), "；".join(p.zh for p in parts))


def signature_message(problems: list[Bilingual]) -> Bilingual:
    """The report's message for a file whose functions do not match the exercise's."""
    return _joined(problems)


def lane_shares(weights: list[float], lanes: int) -> list[list[int]]:
    """Split cases of ``weights`` (their :func:`judge.checks.testing.lane_weight`, in the suites' order)
    between ``lanes`` lanes: each lane's case numbers, ascending.

    Heaviest first (ties in the suites' order), each case goes to the lane with the least weight
    so far (ties: the lowest lane). It depends on the weights only, never on timing, so a seed
    reproduces which process sees which call; with equal weights, lane ``k`` gets cases ``k``,
    ``k + lanes``, ...
    """
    loads = [0.0] * lanes
    shares: list[list[int]] = [[] for _ in range(lanes)]
    for index in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        lane = min(range(lanes), key=lambda k: (loads[k], k))
        loads[lane] += weights[index]
        shares[lane].append(index)
    return [sorted(share) for share in shares]


def grade(
    exercise: Exercise,
    source: str,
    *,
    launcher: Launcher | None = None,
    seed: int | None = None,
    suites: tuple[str, ...] = ("public", "hidden"),
    device: str = "cpu",
    progress: ProgressCallback | None = None,
    filename: str = DEFAULT_FILENAME,
    import_dir: str | Path | None = None,
    process: Learner | None = None,
    lanes: int = 1,
    fingerprint: bool = False,
    sequential: bool = True,
    settle: bool | None = None,
) -> Report:
    """Judge the learner's ``source`` (text); never raises for anything the learner's code does.

    ``seed`` (the master seed) reproduces a run; a fresh one is drawn when None. ``launcher``
    chooses the sandbox level of the processes started here (default: the level of ``process``
    if given, else ``local``). ``filename`` is the short name the learner's tracebacks show;
    ``import_dir`` (``local`` only) is where its helper modules sit. ``process`` lets a caller
    reuse a learner it started on this source (it is not closed here, unless it dies): a
    process that dies is replaced by one of the same level. The first call sets this process's
    torch to one intra-op thread (see :func:`_judge_on_one_thread`).

    ``lanes`` (at least 1): how many learner processes run the cases at once, each in its own
    thread here. Each lane runs its share of the cases (:func:`lane_shares`, by the cases'
    declared weights) in order, whatever the machine's load, so a seed still reproduces a run;
    each lane replaces its own dead process (at most :data:`MAX_RESTARTS` times). The report is
    assembled in the suites' order. A run that cannot start processes (an in-process learner, a
    process given without a launcher) uses one lane; a launcher with ``slots`` (the strict
    sandbox) gives at most that many.
    Raises ``ValueError`` for ``lanes`` below 1. ``fingerprint``: after the cases, the report's
    ``fingerprint`` of the exercise's probes (:mod:`judge.engine.probing`; asked by the site only).
    ``sequential`` (the default): the run stops once a failing case names a mistake
    (:mod:`judge.engine.settling`), and staged checks draw in stages, stopping at the first that
    rejects (:mod:`judge.checks.sequential`); False runs every case on its whole sample.
    ``settle`` (default: as ``sequential``) decides the first alone: False where a score counts the
    cases passed (a course's submission on the site), which then all run, staged or not.
    """
    learner_source = LearnerSource(source, filename, str(import_dir) if import_dir is not None else None)
    return _Run(
        exercise,
        learner_source,
        launcher=launcher,
        seed=seed,
        suites=tuple(suites),
        device=device,
        progress=progress,
        process=process,
        lanes=lanes,
        fingerprint=fingerprint,
        sequential=sequential,
        settle=settle,
    ).report()


def judge_file(
    exercise: Exercise,
    path: Path,
    *,
    seed: int | None = None,
    device: str = "cpu",
    suites: tuple[str, ...] = ("public", "hidden"),
    progress: ProgressCallback | None = None,
    process: Learner | None = None,
    launcher: Launcher | None = None,
    lanes: int = 1,
    fingerprint: bool = False,
    sequential: bool = True,
    settle: bool | None = None,
) -> Report:
    """Judge the learner's file at ``path``: :func:`grade` on its text, named as the file is named,
    with its folder for helper modules. A file that cannot be read, is not UTF-8 or is too large
    is CE (the same messages whatever the level); ``process``, ``launcher``, ``lanes``,
    ``fingerprint``, ``sequential`` and ``settle`` as for :func:`grade`.
    """
    try:
        learner_source, unreadable = LearnerSource.from_file(Path(path)), None
    except LoadFailed as failure:
        learner_source, unreadable = None, failure
    return _Run(
        exercise,
        learner_source,
        launcher=launcher,
        seed=seed,
        suites=tuple(suites),
        device=device,
        progress=progress,
        process=process,
        unreadable=unreadable,
        lanes=lanes,
        fingerprint=fingerprint,
        sequential=sequential,
        settle=settle,
    ).report()


_ONE_THREAD = False


def _judge_on_one_thread() -> None:
    """Run the judge's own tensor work (oracles, targets, statistics) on one thread, once per process.

    Its tensors are small, and gradings already run side by side, one per core. torch's default
    intra-op threads wait for one another on a busy machine: exercise 45's suite took 0.65 s of
    case time on one thread and 6 s on two at load 18, and a case's wall clock counts the judge's
    work, so a verdict could have depended on the machine's load. (Learner processes set their own
    one thread in the sandbox's child.)
    """
    global _ONE_THREAD
    if not _ONE_THREAD:
        import torch

        torch.set_num_threads(1)
        _ONE_THREAD = True


@dataclass
class _Lane:
    """One learner process's share of a run: its cases (:func:`lane_shares`), its current process
    (replaced when it dies, at most :data:`MAX_RESTARTS` times) and where its time went."""

    number: int
    process: Learner | None = None
    owned: bool = True  # closed by the run at the end (a process the caller gave is the caller's)
    started: bool = False  # a first process was started or given: the next start is a restart
    restarts: int = 0
    last_output: str = ""  # what the last process that died printed, when none is left at the end
    # A caller's process: its call totals so far (it may have served other runs); None once counted.
    given_timing: CallTiming | None = None
    split: TimeSplit = field(default_factory=TimeSplit)
    busy_s: float = 0.0  # this lane's thread's wall time (the lanes after the first)

    def output(self) -> str:
        """The tail of what this lane's learner printed (its last process's, or the last dead one's)."""
        return self.process.output_tail() if self.process is not None else self.last_output


class _Run:
    """One judging: its suites and budget, its lanes of learners (restarted when they die), its report."""

    def __init__(
        self,
        exercise: Exercise,
        source: LearnerSource | None,
        *,
        launcher: Launcher | None,
        seed: int | None,
        suites: tuple[str, ...],
        device: str,
        progress: ProgressCallback | None,
        process: Learner | None,
        unreadable: LoadFailed | None = None,
        lanes: int = 1,
        fingerprint: bool = False,
        sequential: bool = True,
        settle: bool | None = None,
    ) -> None:
        if isinstance(lanes, bool) or not isinstance(lanes, int) or lanes < 1:
            raise ValueError(f"lanes must be a whole number of at least 1, got {lanes!r}")
        self.exercise = exercise
        self.source = source
        self.device = device
        self.progress = progress
        self.progress_lock = threading.Lock()
        self.unreadable = unreadable
        self.fingerprint = fingerprint
        self.sequential = sequential
        self.settlement = Settlement(enabled=sequential if settle is None else settle)
        self.master_seed = secrets.randbits(SEED_BITS) if seed is None else int(seed)
        _judge_on_one_thread()
        self.started = time.monotonic()
        # Read and hashed once: the suites' package is named by it, and the report carries it.
        self.content_hash = exercise.content_hash()
        self.specs, self.budget, self.prepares = self._load_suites(suites)
        if launcher is None and process is not None:
            launcher = getattr(process, "launcher", None)  # restarts keep the level (None: cannot restart)
        self.launcher = launcher
        self.level = process.sandbox if process is not None else (launcher.level if launcher else "local")
        self.restartable = (process is None or launcher is not None) and source is not None
        # More lanes need processes started here; never more lanes than cases, nor than the
        # launcher's sandbox slots: a lane past them would wait for a slot its own run holds
        # until the end, then fail its cases as internal errors.
        room = getattr(launcher, "slots", None)
        most = room if isinstance(room, int) and not isinstance(room, bool) and room >= 1 else lanes
        count = min(lanes, most, max(1, len(self.specs))) if self.restartable else 1
        self.lanes = [_Lane(number) for number in range(count)]
        first = self.lanes[0]
        first.process = process
        first.owned = process is None
        first.started = process is not None
        first.given_timing = getattr(process, "call_timing", None)
        self.fit_groups: list[tuple[str, list[tuple[float, int, float]]]] = []
        self.probed: Fingerprint | None = None  # the probes' hashes and times, when they ran
        self.result = Report(
            exercise=exercise.summary(self.content_hash),
            verdict=Verdict.AC,
            cases=[],
            seed=self.master_seed,
            device=device,
            sandbox=self.level,
            suites=list(suites),
            judge_version=JUDGE_VERSION,
            false_failure_budget={},
        )

    @property
    def process(self) -> Learner | None:
        """The first lane's current learner (the one whose signatures were checked)."""
        return self.lanes[0].process

    def _load_suites(
        self, suites: tuple[str, ...]
    ) -> tuple[list[CaseSpec], FalseFailureBudget, list[tuple[str, Callable[[], None]]]]:
        """Every case of the suites, in order, the run's false-failure budget, and each suite's set-up."""
        loaded = [load_suite(self.exercise, s, content_hash=self.content_hash) for s in suites]
        declared = BudgetDeclaration()
        for suite in loaded:
            declared = declared + suite.budget
        specs = [case for suite in loaded for case in suite.cases]
        prepares = [(suite.name, suite.prepare) for suite in loaded if suite.prepare is not None]
        return specs, FalseFailureBudget(self.exercise.false_failure_budget, declared), prepares

    def _prepare_suites(self) -> bool:
        """Run each suite's ``prepare()`` (the judge's own set-up, before any case's clock starts).
        False, with every case IE and the reason logged, when one raises: a bug of the judge or
        of the exercise, never the learner's."""
        for suite, prepare in self.prepares:
            try:
                prepare()
            except Exception as error:  # noqa: BLE001 - reported as the judge's fault, whatever it is
                message = _internal_error(
                    "the judge could not prepare its tests",
                    f"{suite}.prepare: {type(error).__name__}: {error}",
                    exc_info=True,
                )
                self.result.cases = [
                    CaseResult(c.name, c.suite, c.title, Verdict.IE, message, title_zh=c.title_zh) for c in self.specs
                ]
                return False
        return True

    def report(self) -> Report:
        """Load, check the signatures, run every case, decide: the finished report."""
        if not self._start_and_check_signatures():
            return self._finish()
        assert self.process is not None  # set by a successful _start_and_check_signatures
        self.result.environment = {"torch": self.process.torch_version, "python": sys.version.split()[0]}
        try:
            if self._prepare_suites():
                self._run_cases()
                self._probe()
        finally:
            for lane in self.lanes:
                self._close(lane)
        self.result.verdict = _submission_verdict(self.result.cases)
        self._say_first_failure()
        return self._finish()

    def _probe(self) -> None:
        """The report's fingerprint when asked for (:func:`judge.engine.probing.take_fingerprint`): after
        the cases and their output tail, on the first lane's live process, on the CPU; never a verdict."""
        process = self.lanes[0].process
        if self.fingerprint and self.device == "cpu" and process is not None and process.alive:
            from judge.engine.probing import take_fingerprint

            self.probed = take_fingerprint(self.exercise, process)
            self.result.fingerprint = self.probed.hashes

    def _close(self, lane: _Lane) -> None:
        """Close ``lane``'s process if the run owns it, and count its calls."""
        if lane.process is None:
            return
        if lane.owned:
            closing = time.monotonic()
            lane.process.close()
            lane.split.end_s += time.monotonic() - closing
        self._count_calls(lane)

    def _start(self, lane: _Lane) -> Learner:
        from judge.engine.process import LearnerProcess

        if self.unreadable is not None:
            raise self.unreadable
        assert self.source is not None  # None only for a file that could not be read (unreadable)
        starting = time.monotonic()
        try:
            return LearnerProcess(
                self.source,
                device=self.device,
                memory_limit_mb=self.exercise.memory_limit_mb,
                load_timeout_s=self.exercise.time_limit_s,
                launcher=self.launcher,
            )
        finally:
            lane.split.start_s += time.monotonic() - starting

    def _start_and_check_signatures(self) -> bool:
        """Start the first lane's learner (unless given) and compare its functions with the
        exercise's; False (every case SK, the report says why) when it did not load or its
        signatures are wrong."""
        first = self.lanes[0]
        try:
            if first.process is None:
                first.started = True
                first.process = self._start(first)
            problems = signature_problems(self.exercise, first.process.functions)
            if problems:
                raise LoadFailed(Verdict.CE, signature_message(problems))
        except (LoadFailed, ProcessFailed, SandboxFailure) as failure:  # did not load, or died/hung while importing
            if first.owned and first.process is not None:
                first.process.close()
            self.result.verdict, self.result.message = _load_outcome(failure)
            self.result.cases = [
                CaseResult(c.name, c.suite, c.title, Verdict.SK, "not run: the file did not load", title_zh=c.title_zh)
                for c in self.specs
            ]
            return False
        return True

    def _run_cases(self) -> None:
        """Every case, each lane its share in order (the first lane in this thread, the others in
        their own), replacing learners that die; then the too-regular case over what passed."""
        count = len(self.lanes)
        outcomes: dict[int, _Outcome] = {}
        shares = lane_shares([case.weight for case in self.specs], count)
        failures: list[BaseException] = []
        threads = [
            threading.Thread(
                target=self._run_lane_in_thread,
                args=(lane, shares[lane.number], outcomes, failures),
                name=f"probjudge-lane-{lane.number}",
                daemon=True,
            )
            for lane in self.lanes[1:]
        ]
        for thread in threads:
            thread.start()
        try:
            self._run_lane(self.lanes[0], shares[0], outcomes)
        finally:
            for thread in threads:
                thread.join()
        if failures:  # a bug of the judge in another lane's thread: raised here, as it would be in one lane
            raise failures[0]
        deciding = self.settlement.deciding
        for index, case in enumerate(self.specs):
            if deciding is not None and index > deciding:  # run or not, dropped: see judge.engine.settling
                self.result.cases.append(self.settlement.settled(case, self.specs[deciding]))
                spent = outcomes[index][2] if index in outcomes else None
                if spent is not None:  # another lane ran it meanwhile: its spending is not reported
                    self.budget.take_back(spent)
                continue
            result, fit_statistics, _ = outcomes[index]
            if fit_statistics:
                self.fit_groups.append((case.title, fit_statistics))
            self.result.cases.append(result)
        if self.fit_groups and deciding is None:
            self.result.cases.append(_too_regular_case(self.fit_groups, self.budget))
        elif self.fit_groups and deciding is not None:
            self.result.cases.append(self.settlement.settled(_too_regular_result(), self.specs[deciding]))
        outputs = [lane.output() for lane in self.lanes]
        # Each lane's tail on lines of its own, in the lanes' order.
        last = len(outputs) - 1
        self.result.output = "".join(
            o + "\n" if o and not o.endswith("\n") and number < last else o for number, o in enumerate(outputs)
        )

    def _run_lane_in_thread(
        self,
        lane: _Lane,
        share: list[int],
        outcomes: dict[int, _Outcome],
        failures: list[BaseException],
    ) -> None:
        started = time.monotonic()
        try:
            self._run_lane(lane, share, outcomes)
        except BaseException as error:  # noqa: BLE001 - handed to the run's thread, which raises it
            failures.append(error)
        finally:
            lane.busy_s = time.monotonic() - started

    def _run_lane(self, lane: _Lane, share: list[int], outcomes: dict[int, _Outcome]) -> None:
        """Run the cases numbered ``share`` (in order) on ``lane``'s learner; each outcome goes
        into ``outcomes`` under its case's number (one key per thread: no lock needed)."""
        for index in share:
            case = self.specs[index]
            if self.settlement.skip(index):
                continue
            if self.progress:
                with self.progress_lock:
                    self.progress(case.title, index, len(self.specs))
            failed = self._learner_for(lane, case)
            if failed is not None:
                outcomes[index] = (failed, [], None)
                continue
            assert lane.process is not None  # _learner_for started one, or reported why not
            outcomes[index] = _run_case(
                case, lane.process, self.exercise, self.master_seed, self.device, self.budget, self.sequential
            )
            self.settlement.record(index, outcomes[index][0])

    def _learner_for(self, lane: _Lane, case: CaseSpec) -> CaseResult | None:
        """Make sure ``lane`` has a live learner ready for ``case``; the case's result when it cannot run."""
        if lane.process is not None and not lane.process.alive:
            death = _ended_by_itself(lane.process)
            # Dead, so closed here even when the caller owns it (close is idempotent): that
            # frees its pipes, scratch, cgroups and sandbox slot for the new process.
            lane.process.close()
            lane.last_output = lane.process.output_tail()  # kept readable after close
            self._count_calls(lane)
            lane.process = None
            if death is not None:  # between two answers: a failure, never a free restart
                return CaseResult(
                    case.name,
                    case.suite,
                    case.title,
                    death.verdict,
                    f"not run: {death}",
                    title_zh=case.title_zh,
                    sandbox=self.level,
                )
        if lane.process is not None:
            return None
        restart = lane.started  # a lane's first process is not a restart
        if restart and (lane.restarts >= MAX_RESTARTS or not self.restartable):
            return CaseResult(
                case.name,
                case.suite,
                case.title,
                Verdict.SK,
                "not run: your process died too often",
                title_zh=case.title_zh,
            )
        lane.restarts += restart
        lane.started = True
        try:
            lane.process = self._start(lane)
        except (LoadFailed, ProcessFailed, SandboxFailure) as failure:
            verdict, message = _load_outcome(failure)
            doing = "restarting your process" if restart else "starting another process for your code"
            return CaseResult(
                case.name,
                case.suite,
                case.title,
                verdict,
                f"{doing} failed: {message}",
                title_zh=case.title_zh,
                sandbox=self.level,
            )
        lane.owned = True
        return None

    def _count_calls(self, lane: _Lane) -> None:
        """Add ``lane``'s current process's calls to its time split (the run is done with it)."""
        assert lane.process is not None  # called while a process is current
        lane.split.add_process(lane.process, lane.given_timing)
        lane.given_timing = None  # a restarted process is the run's own, counted from zero

    def _say_first_failure(self) -> None:
        """The report's message: its first failure's (:meth:`Report.first_failure`). Its diagnosis (the
        headline's "Likely mistake"): that of the first failing case, in the cases' order, that names
        one; a failing case that names another is shown as "also consistent with" (docs/report.md)."""
        failing = self.result.first_failure(skipped=True)
        if failing is not None:
            self.result.message = f"{failing.title}: {failing.message}"
            self.result.diagnosis = next(
                (c.diagnosis for c in self.result.cases if c.diagnosis and is_failure(c.verdict)), None
            )

    def _finish(self) -> Report:
        self.result.false_failure_budget = self.budget.summary()
        total_s = time.monotonic() - self.started
        self.result.time_ms = total_s * 1000
        split = TimeSplit()
        for lane in self.lanes:
            split.add(lane.split)
        self.result.timing = split.as_report(total_s + sum(lane.busy_s for lane in self.lanes))
        if len(self.lanes) > 1:
            self.result.timing["lanes"] = len(self.lanes)
        if self.probed is not None:
            self.result.timing.update(self.probed.timing())
        return redact_report(self.result)


def _load_outcome(failure: LoadFailed | ProcessFailed | SandboxFailure) -> tuple[Verdict, str]:
    """The verdict and message for a file that could not be (re)loaded."""
    if isinstance(failure, SandboxFailure):
        return Verdict.IE, _internal_error(f"the sandbox could not run your code: {failure}", failure.detail)
    if isinstance(failure, LoadFailed):
        return failure.verdict, failure.message
    return failure.verdict, bilingual(
        "while loading your file: {message}", "加载你的文件时：{message}", message=failure.message
    )


def _internal_error(public: str, detail: str, exc_info: bool = False) -> str:
    """Log ``detail`` for the operator under a fresh reference; the message a learner may see."""
    reference = secrets.token_hex(4)
    log.error("internal error %s: %s (%s)", reference, public, detail, exc_info=exc_info)
    return f"{public} (not your fault; internal error {reference})"


# A case's result, its fit statistics (when it passed) and what it spent of the budget (None: it never ran).
_Outcome = tuple[CaseResult, list[tuple[float, int, float]], CaseBudget | None]


def _run_case(
    case: CaseSpec,
    process: Learner,
    exercise: Exercise,
    master_seed: int,
    device: str,
    budget: FalseFailureBudget,
    sequential: bool = True,
) -> _Outcome:
    """Run one test function; return its result, its fit statistics when it passed, and what it spent."""
    case_seed = derive_seed(master_seed, case.suite, case.name)
    # The limit is the learner's CPU time (what load on the machine does not stretch), read from
    # the kernel; the wall clock only caps code that sleeps or blocks, and only the time spent in
    # the learner's calls is charged to it. The judge's own work between calls (cases, targets,
    # statistics) runs in this process and counts against neither.
    cpu_clock = getattr(process, "cpu_time_s", None)  # None: an in-process learner (the browser's)
    cpu_start = cpu_clock() if cpu_clock else 0.0
    spent = CaseBudget(budget)
    ctx = Context(
        seed=case_seed,
        device=device,
        budget=spent,
        wall_left_s=exercise.wall_cap_s,
        cpu_deadline=cpu_start + exercise.time_limit_s if cpu_clock else float("inf"),
        cpu_limit_s=exercise.time_limit_s,
        visible=case.suite != HIDDEN,
        sequential=sequential,
    )
    submission = Submission(
        process, tuple(f.name for f in exercise.functions), lambda: ctx, inputs_read_only=exercise.inputs_read_only
    )
    result = CaseResult(
        case.name, case.suite, case.title, Verdict.AC, seed=case_seed, title_zh=case.title_zh, sandbox=process.sandbox
    )
    started = time.perf_counter()
    try:
        case.function(submission, ctx)
    except CheckFailed as failure:
        result.verdict = Verdict.WA
        result.message = failure.message
        result.statistic, result.p_value = failure.statistic, failure.p_value
        # A function not written yet is evidence of no mistake, whoever set a diagnosis.
        result.diagnosis = None if failure.kind is Evidence.NOT_IMPLEMENTED else failure.diagnosis
        result.rule = failure.rule or Bilingual(f"{case.title}: a check failed", f"{case.title_zh}：检查未通过")
    except LearnerRaised as raised:
        result.verdict = Verdict.MLE if raised.memory else Verdict.RE
        # Labelled as the learner's: its type name and text are the submission's to choose.
        result.message = "your code raised an exception:\n" + (raised.traceback.strip() or str(raised))
        result.diagnosis = None if raised.not_implemented else raised.diagnosis
        result.rule = RAISED_RULE
    except ProcessFailed as failure:
        result.verdict = failure.verdict
        result.message = str(failure)
    except Exception as error:  # noqa: BLE001 - a bug in the judge or the exercise, never the learner's
        result.verdict = Verdict.IE
        result.message = _internal_error(
            "this test failed inside the judge",
            f"{case.suite}/{case.name}: {type(error).__name__}: {error}",
            exc_info=True,
        )
    result.time_ms = (time.perf_counter() - started) * 1000
    if cpu_clock:
        result.cpu_ms = max(0.0, cpu_clock() - cpu_start) * 1000
        if result.verdict is Verdict.AC and result.cpu_ms > exercise.time_limit_s * 1000:
            # Each call's CPU time is checked while it runs, but not more often than every 100 ms
            # (judge.engine.pipes.CPU_WATCH_INTERVAL_S): calls that each answer sooner are checked here,
            # all together, so the limit holds for the case however its calls split the work.
            result.verdict = Verdict.TLE
            result.message = (
                f"your calls used up the test case's CPU time of {exercise.time_limit_s:g} s "
                f"({result.cpu_ms / 1000:.2f} s in all)"
            )
    result.checks = ctx.records
    result.not_implemented = list(ctx.not_implemented)
    if result.statistic is None and ctx.records:
        decisive = min(ctx.records, key=lambda r: r.p_value / r.alpha if r.alpha else float("inf"))
        result.statistic, result.p_value = decisive.statistic, decisive.p_value
    return result, (ctx.fit_statistics if result.verdict is Verdict.AC else []), spent


def _too_regular_result() -> CaseResult:
    """The judge's own too-regular case, passed until a test says otherwise (a fresh one each time)."""
    return CaseResult(TOO_REGULAR_CASE, "judge", "Draws are not too regular", Verdict.AC, title_zh="抽样结果不过分规整")


def _too_regular_case(
    fit_groups: list[tuple[str, list[tuple[float, int, float]]]], budget: FalseFailureBudget
) -> CaseResult:
    """One lower-tail test per case that ran fit checks (summing a case's rows, not the whole run's:
    a long-tail row whose pooled counts look random would dilute the others)."""
    started = time.perf_counter()
    case = _too_regular_result()
    for title, statistics in fit_groups:
        alpha = budget.spend("too_regular")
        test, declined = too_regular(statistics, alpha)
        if declined:  # its statistic is too discrete for a lower tail at this level: say so, never fail
            case.checks.append(
                CheckRecord("too_regular", f"{title} ({declined})", test.statistic, 1.0, alpha, True, test.df)
            )
            continue
        passed = test.pvalue >= alpha
        case.checks.append(CheckRecord("too_regular", title, test.statistic, test.pvalue, alpha, passed, test.df))
        if not passed and case.verdict is Verdict.AC:
            case.verdict = Verdict.WA
            case.message = (
                f"{title}: over its {len(statistics)} distribution checks your draws fit the target far "
                f"better than random draws can (G = {test.statistic:.3g} on {test.df} degrees of freedom, "
                f"lower-tail p = {test.pvalue:.3g}). Real samples fluctuate; draws that are too regular "
                "come from a deterministic scheme (quantiles, stratification), not from random sampling"
            )
            case.diagnosis = Bilingual("the draws are too regular to be random", "抽样结果过于规整，不像是随机抽样")
            case.rule = Bilingual(
                f"{title}: the draws fit the target far better than random draws can",
                f"{title}：抽样结果与目标的吻合程度远超随机抽样所能达到的",
            )
    decisive = min(case.checks, key=lambda r: r.p_value)
    case.statistic, case.p_value = decisive.statistic, decisive.p_value
    case.time_ms = (time.perf_counter() - started) * 1000
    return case


def _submission_verdict(cases: list[CaseResult]) -> Verdict:
    """IE if any case is IE, else the first failing case's verdict; a case not run is never a pass (RE)."""
    if any(c.verdict is Verdict.IE for c in cases):
        return Verdict.IE
    failing = first_failure(cases)
    if failing is not None:
        return failing.verdict
    if any(c.verdict is Verdict.SK for c in cases):
        return Verdict.RE  # skipped because the learner's process kept dying
    return Verdict.AC


def _ended_by_itself(process) -> ProcessFailed | None:
    """Why a dead process ended, unless the judge ended it (``ended`` is LearnerProcess's)."""
    ended = getattr(process, "ended", None)
    return ended("the time between two test cases") if ended is not None else None
