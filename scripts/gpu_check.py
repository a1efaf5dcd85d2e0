#!/usr/bin/env python3
"""The GPU check: the one command to run the day a machine with CUDA is lent (``scripts/gpu_check.sh``,
``make gpu-check``; docs/testing.md, "The day a GPU is lent").

Without a CUDA device it prints ``no CUDA device: GPU check skipped`` and exits 0, having started
nothing. With one it does, within about five minutes on one H100 and 16 cores:

1. **the CUDA tests**: ``pytest -k cuda`` over the test files that mention CUDA (the convention
   tests/ci_gate.py names for the tests that skip "needs a CUDA device" elsewhere), with a timeout;
2. **every exercise on both devices**: ``practice/judge.py test N FILE --json --seed S`` on its
   reference and on three of its known-wrong solutions (:func:`choose_wrong` says which), each under
   ``--device cuda`` and under ``--device cpu``, ``--jobs`` runs at once (the CUDA tests beside them),
   each with a timeout, none started once the budget is spent;
3. **one line per exercise**: each solution's verdicts cuda/cpu, the reference's judging time on each
   (the report's ``time_ms``) and their ratio; then the CUDA tests' counts, ``PASS`` or ``FAIL`` with
   every reason, and the elapsed time.

The result is FAIL (exit 1) when a CUDA test fails (or, on a GPU, skips for want of one), a reference
is not AC on CUDA, a known-wrong solution is AC on CUDA, CUDA and the CPU give different verdicts, or a
run gives no report (a crash, a timeout, a run on another device than asked, no time left). Everything
goes to ``--out`` (default ``build/gpu-check/``): ``gpu-check.json`` (the plan, each run's verdict,
diagnosis, times and command, the result), ``gpu-check.txt`` (the printed table), and pytest's
``cuda-tests.xml`` (JUnit, read for the counts: never its coloured text) and ``cuda-tests.log``.

``--dry-run`` runs the same plan with ``--device cpu`` in place of CUDA (both columns on the CPU), so
the plan, the runs and the table are tested on a machine without a GPU (tests/test_gpu_check.py);
``--plan`` prints which solutions would be judged and exits.

Exit status: 0 PASS (or skipped: no CUDA), 1 FAIL, 2 the command used wrongly or a package missing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP_LINE = "no CUDA device: GPU check skipped"
WRONG_PER_EXERCISE = 3
DEFAULT_OUT = ROOT / "build" / "gpu-check"
# The runs' budget: the whole check must end within five minutes on one H100 with 16 cores (about 64
# judge runs of 5 to 30 s each, 8 at a time, and the CUDA tests beside them); a run is not started
# past it, and a running one is stopped at it.
DEFAULT_BUDGET_S = 270.0
DEFAULT_RUN_TIMEOUT_S = 150.0
# Packages the check needs beyond the standard library: torch and rich (the judge), whatthepatch (the
# catalogue's patches), transformers (exercise 45's model); pytest and hypothesis for the CUDA tests.
NEEDED = ("torch", "rich", "whatthepatch", "transformers")
NEEDED_FOR_TESTS = ("pytest", "hypothesis")
# Words of a diagnosis that make a mistake one where the devices differ most: CUDA draws from its own
# generators, and its float32 kernels (sums, cumulative sums, softmax) round differently from the CPU's.
GENERATOR_WORDS = ("generator",)
PRECISION_WORDS = ("float32", "float64", "dtype", "overflow", "underflow", "precision")
CHOICE_RULE = (
    "three known-wrong solutions per exercise, one per distinct headline diagnosis (the first by name of "
    "each): the first whose diagnosis is about the generator (CUDA has its own), the first about "
    "precision (float32, dtype, overflow: CUDA's kernels round differently), and the middle one by name "
    "of the others; a category with none gives its place to the others, spread evenly by name"
)


# The plan


@dataclass(frozen=True)
class ExercisePlan:
    """What the check judges of one exercise: the reference and the chosen known-wrong solutions
    (their files as written, ``.py`` or ``.patch``)."""

    folder: str
    number: int
    reference: Path
    wrong: tuple[Path, ...]
    devices: tuple[str, ...] = ("cpu", "cuda")  # where exercise.toml says it is judged

    def solutions(self) -> list[tuple[str, Path]]:
        """(name, file as written) of each solution, the reference first."""
        return [("reference", self.reference)] + [(path.stem, path) for path in self.wrong]


def choose_wrong(catalogue: Sequence[tuple[str, str]], count: int = WRONG_PER_EXERCISE) -> list[str]:
    """The names of ``count`` known-wrong solutions out of ``catalogue`` ((name, headline diagnosis),
    any order), chosen by :data:`CHOICE_RULE`: deterministic, and as different from one another as the
    catalogue allows. Fewer when the catalogue has fewer; a name is chosen once."""
    by_name = sorted(catalogue)
    seen: set[str] = set()
    distinct: list[tuple[str, str]] = []
    for name, diagnosis in by_name:
        key = " ".join(diagnosis.lower().split()).rstrip(".")
        if key not in seen:
            seen.add(key)
            distinct.append((name, diagnosis.lower()))

    def about(words: tuple[str, ...]) -> list[str]:
        return [name for name, diagnosis in distinct if any(word in diagnosis for word in words)]

    generator = about(GENERATOR_WORDS)
    precision = [name for name in about(PRECISION_WORDS) if name not in generator]
    chosen = [group[0] for group in (generator, precision) if group][:count]
    others = [name for name, _ in distinct if name not in generator and name not in precision]
    if len(chosen) < count and others:
        chosen.append(others[len(others) // 2])
    # Too few categories: the rest of the distinct mistakes, then repeated diagnoses, spread by name.
    for pool in ([name for name, _ in distinct], [name for name, _ in by_name]):
        left = [name for name in pool if name not in chosen]
        need = min(count - len(chosen), len(left))
        chosen += [left[(i * len(left)) // need] for i in range(need)] if need > 0 else []
    return chosen[:count]


def make_plan(exercise_ids: Sequence[str] = ()) -> list[ExercisePlan]:
    """The plan for the exercises named (numbers or slugs; default: every exercise), in number order.
    Raises ``ExerciseError`` for an unknown exercise, a missing reference or a catalogue that cannot
    be read."""
    from judge.authoring.catalogue import parse_wrong_solution
    from judge.exercises.exercise import load_all, resolve
    from judge.exercises.folders import ExerciseError

    exercises = [resolve(e) for e in exercise_ids] if exercise_ids else load_all()
    plan = []
    for exercise in sorted({e.number: e for e in exercises}.values(), key=lambda e: e.number):
        if not exercise.reference_path.is_file():
            raise ExerciseError(f"{exercise.folder}: {exercise.reference_path} is missing")
        files = {path.stem: path for path in exercise.wrong_solution_files()}
        catalogue = [(name, str(parse_wrong_solution(path).diagnosis)) for name, path in files.items()]
        wrong = tuple(files[name] for name in choose_wrong(catalogue))
        plan.append(ExercisePlan(exercise.folder, exercise.number, exercise.reference_path, wrong, exercise.devices))
    return plan


def judged_on(plan: Sequence[ExercisePlan], device: str) -> tuple[list[ExercisePlan], list[str]]:
    """The exercises of ``plan`` judged on ``device`` (``cuda:1`` counts as ``cuda``), and a line for
    each of the others: an exercise judged on the CPU only is left out, not failed."""
    kind = device.split(":")[0]
    kept = [exercise for exercise in plan if kind in exercise.devices]
    notes = [
        f"{exercise.folder}: judged on {', '.join(exercise.devices)} only (exercise.toml), left out"
        for exercise in plan
        if kind not in exercise.devices
    ]
    return kept, notes


# Running


@dataclass(frozen=True)
class Job:
    """One judge run: ``role`` is ``test`` (the device under test: CUDA, or the CPU in a dry run) or
    ``baseline`` (the CPU)."""

    exercise: str
    number: int
    solution: str
    path: Path  # the file judged: a patch expanded into this process's private folder
    device: str
    role: str
    source: str = ""  # the file as the catalogue has it, from the project root

    def command(self, python: str, seed: int) -> list[str]:
        return [
            python,
            str(ROOT / "practice" / "judge.py"),
            "test",
            str(self.number),
            str(self.path),
            "--device",
            self.device,
            "--seed",
            str(seed),
            "--json",
        ]


@dataclass
class RunResult:
    """How one run went: ``verdict`` from its JSON report, or ``ERR``/``TIMEOUT``/``NOT RUN`` with
    ``problem`` saying why there is no report."""

    exercise: str
    solution: str
    role: str
    device: str
    verdict: str
    diagnosis: str | None = None
    time_ms: float | None = None  # the report's: the whole judgement, the learner's process start included
    wall_s: float = 0.0  # this run's command, torch's import included
    problem: str = ""
    command: str = ""  # a patch's expanded file in it is removed when the check ends: see ``source``
    source: str = ""


def _tail(text: str, lines: int = 6) -> str:
    return " | ".join(line for line in text.strip().splitlines()[-lines:] if line.strip())


# The commands running now, so that an interrupt (Ctrl-C, SIGTERM) stops them: each runs in a process
# group of its own (for the timeout), out of reach of the terminal's Ctrl-C.
_running: set[subprocess.Popen[str]] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


def _kill_group(process: subprocess.Popen[str]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def stop_all() -> None:
    """Stop every command running now and any started after: the check was interrupted."""
    with _running_lock:
        _stopping.set()
        running = list(_running)
    for process in running:
        _kill_group(process)


def _run_command(command: Sequence[str], timeout_s: float) -> tuple[int | None, str, str]:
    """(exit status, stdout, stderr) of ``command`` run from the project root, in a process group of
    its own so that a timeout stops the learner's process too; status None when it timed out or
    :func:`stop_all` stopped it."""
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    with _running_lock:
        _running.add(process)
        stopping = _stopping.is_set()
    try:
        if stopping:
            _kill_group(process)
        out, err = process.communicate(timeout=timeout_s)
        return (None if stopping else process.returncode), out, err
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, err = process.communicate()
        return None, out, err
    finally:
        with _running_lock:
            _running.discard(process)


def run_job(job: Job, *, python: str, seed: int, timeout_s: float, deadline: float) -> RunResult:
    """Judge ``job``'s file with the CLI and read its JSON report. Not started when less than 5 s of
    the budget (``deadline``, monotonic) is left; stopped at ``timeout_s`` or the deadline."""
    command = job.command(python, seed)
    result = RunResult(
        job.exercise, job.solution, job.role, job.device, "NOT RUN", command=shlex.join(command), source=job.source
    )
    left = deadline - time.monotonic()
    if left < 5:
        result.problem = "not started: the check's time budget was spent"
        return result
    started = time.monotonic()
    status, out, err = _run_command(command, min(timeout_s, left))
    result.wall_s = round(time.monotonic() - started, 2)
    if status is None:
        why = "the check's time budget ran out" if left < timeout_s else f"past its {timeout_s:.0f} s timeout"
        said = f": {_tail(err)}" if err.strip() else ""
        result.verdict, result.problem = "TIMEOUT", f"stopped after {result.wall_s:.0f} s, {why}{said}"
        return result
    try:
        report = json.loads(out)
    except ValueError:
        result.verdict, result.problem = "ERR", f"exit {status} without a JSON report: {_tail(err or out)}"
        return result
    result.verdict = str(report.get("verdict"))
    result.diagnosis = report.get("diagnosis")
    result.time_ms = report.get("time_ms")
    judged_on = str(report.get("device"))
    if judged_on.split(":")[0] != job.device.split(":")[0]:
        result.problem = f"judged on {judged_on}, not {job.device}"
    return result


@dataclass
class TestsResult:
    """The CUDA tests' outcome, from pytest's JUnit XML."""

    files: list[str]
    status: int | None = None  # pytest's exit status; None: timed out or not run
    passed: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # test → reason
    wall_s: float = 0.0
    problem: str = ""
    command: str = ""


def cuda_test_files() -> list[Path]:
    """The test files that mention CUDA: ``-k cuda`` over them selects the CUDA tests. Not this check's
    own tests (tests/test_gpu_check.py): they are about the check, on any machine."""
    own = ROOT / "tests" / "test_gpu_check.py"
    return sorted(
        path
        for path in (ROOT / "tests").rglob("test_*.py")
        if path != own and "cuda" in path.read_text(encoding="utf-8").lower()
    )


def read_junit(xml_text: str, result: TestsResult) -> None:
    """Fill ``result``'s counts from pytest's JUnit XML: passed, failed (errors too) and skipped with
    their reasons."""
    root = ElementTree.fromstring(xml_text)
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("failure") is not None or case.find("error") is not None:
            result.failed.append(name)
        elif (skipped := case.find("skipped")) is not None:
            result.skipped[name] = str(skipped.get("message", "")).removeprefix("Skipped: ")
        else:
            result.passed += 1


def run_cuda_tests(python: str, out: Path, *, timeout_s: float, deadline: float) -> TestsResult:
    """``pytest -k cuda`` over :func:`cuda_test_files`, its JUnit XML and log written under ``out``."""
    files = [str(path.relative_to(ROOT)) for path in cuda_test_files()]
    xml_path, log_path = out / "cuda-tests.xml", out / "cuda-tests.log"
    command = [python, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", "-k", "cuda", f"--junitxml={xml_path}"]
    result = TestsResult(files, command=shlex.join(command + files))
    left = deadline - time.monotonic()
    if left < 5:
        result.problem = "not started: the check's time budget was spent"
        return result
    xml_path.unlink(missing_ok=True)
    started = time.monotonic()
    status, stdout, stderr = _run_command(command + files, min(timeout_s, left))
    result.wall_s = round(time.monotonic() - started, 2)
    result.status = status
    log_path.write_text(stdout + stderr, encoding="utf-8")
    if status is None:
        result.problem = f"stopped after {result.wall_s:.0f} s"
    if xml_path.is_file():
        read_junit(xml_path.read_text(encoding="utf-8"), result)
    elif not result.problem:
        result.problem = f"pytest exited {status} without its JUnit report: {_tail(stdout + stderr)}"
    return result


# The table


@dataclass
class Cell:
    solution: str
    test: RunResult | None
    baseline: RunResult | None


@dataclass
class Row:
    exercise: str
    cells: list[Cell]
    problems: list[str]

    def reference_times(self) -> tuple[float | None, float | None]:
        reference = self.cells[0]
        return (
            reference.test.time_ms if reference.test else None,
            reference.baseline.time_ms if reference.baseline else None,
        )


@dataclass
class Summary:
    rows: list[Row]
    problems: list[str]  # every reason for FAIL, the rows' included

    @property
    def result(self) -> str:
        return "FAIL" if self.problems else "PASS"


def _no_report(run: RunResult | None) -> str:
    if run is None:
        return "no run"
    if run.problem:
        return f"{run.verdict}: {run.problem}" if run.verdict not in ("ERR", "TIMEOUT", "NOT RUN") else run.problem
    return ""


def summarize(
    plan: Sequence[ExercisePlan], runs: Sequence[RunResult], tests: TestsResult | None = None, *, on_gpu: bool = False
) -> Summary:
    """The table and the verdict of the check. A row's problems: a run without a report, a reference
    not AC on the device under test, a known-wrong solution AC there, verdicts that differ between the
    devices. The CUDA tests' problems (:func:`tests_problems`) come after the rows'."""
    found = {(run.exercise, run.solution, run.role): run for run in runs}
    rows, problems = [], []
    for exercise in plan:
        cells, row_problems = [], []
        for name, _ in exercise.solutions():
            test, baseline = found.get((exercise.folder, name, "test")), found.get((exercise.folder, name, "baseline"))
            cells.append(Cell(name, test, baseline))
            where = f"{exercise.folder} {name}"
            missing = [
                f"on {side} ({why})"
                for side, run in (("test", test), ("baseline", baseline))
                if (why := _no_report(run))
            ]
            if missing:
                row_problems.append(f"{where}: no report " + ", ".join(missing))
                continue
            assert test is not None and baseline is not None
            # A dry run has the CPU on both sides: name the side too.
            on_test, on_baseline = (
                (test.device, baseline.device)
                if test.device != baseline.device
                else (f"{test.device} (test)", f"{baseline.device} (baseline)")
            )
            if name == "reference" and test.verdict != "AC":
                row_problems.append(f"{where}: the reference got {test.verdict} on {on_test}, not AC")
            if name != "reference" and test.verdict == "AC":
                row_problems.append(f"{where}: a known-wrong solution was accepted (AC) on {on_test}")
            if test.verdict != baseline.verdict:
                row_problems.append(
                    f"{where}: the verdicts differ: {test.verdict} on {on_test}, {baseline.verdict} on {on_baseline}"
                )
        rows.append(Row(exercise.folder, cells, row_problems))
        problems += row_problems
    if tests is not None:
        problems += tests_problems(tests, on_gpu=on_gpu)
    return Summary(rows, problems)


def tests_problems(tests: TestsResult, *, on_gpu: bool) -> list[str]:
    """Why the CUDA tests fail the check: a failure, no report, none selected, and ``on_gpu`` (not a
    dry run) a test skipped for want of a CUDA device: there is one, so that test did not see it."""
    problems = [f"CUDA tests: {tests.problem}"] if tests.problem else []
    problems += [f"CUDA tests: {name} failed" for name in tests.failed]
    if tests.status not in (0, None) and not tests.failed and not tests.problem:
        problems.append(f"CUDA tests: pytest exited {tests.status}")
    if tests.status is not None and not (tests.passed or tests.failed or tests.skipped):
        problems.append("CUDA tests: none selected")
    if on_gpu:
        problems += [
            f"CUDA tests: {name} skipped on a machine with CUDA ({reason})"
            for name, reason in tests.skipped.items()
            if re.search(r"CUDA device", reason)
        ]
    return problems


def _seconds(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.1f} s"


def format_table(summary: Summary, *, test_label: str, baseline_label: str) -> list[str]:
    """One line per exercise: each solution's verdicts test/baseline, the reference's judging times and
    their ratio, ``ok`` or ``FAIL``."""

    def verdicts(cell: Cell) -> str:
        return f"{cell.test.verdict if cell.test else '-'}/{cell.baseline.verdict if cell.baseline else '-'}"

    table = []
    for row in summary.rows:
        test_ms, baseline_ms = row.reference_times()
        ratio = f"x{test_ms / baseline_ms:.2f}" if test_ms and baseline_ms else "x-"
        times = f"reference {_seconds(test_ms)}/{_seconds(baseline_ms)} {ratio}"
        table.append(
            [row.exercise]
            + [f"{c.solution} {verdicts(c)}" for c in row.cells]
            + [times]
            + ["FAIL" if row.problems else "ok"]
        )
    columns = max((len(line) for line in table), default=0)
    widths = [max((len(line[i]) for line in table if i < len(line)), default=0) for i in range(columns)]
    lines = [
        f"verdicts {test_label}/{baseline_label}: the reference, then three known-wrong solutions; "
        f"the reference's judging time {test_label}/{baseline_label} and their ratio"
    ]
    lines += ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip() for line in table]
    return lines


# The command


def missing_packages(*, with_tests: bool) -> list[str]:
    return [
        name for name in NEEDED + (NEEDED_FOR_TESTS if with_tests else ()) if importlib.util.find_spec(name) is None
    ]


def cuda_available() -> bool:
    """Whether torch sees a CUDA device here (False where torch itself is missing)."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _device_name(dry_run: bool) -> str:
    import torch

    if dry_run:
        return f"CPU only (dry run), torch {torch.__version__}"
    return f"{torch.cuda.get_device_name(0)}, torch {torch.__version__} (CUDA {torch.version.cuda})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scripts/gpu_check.sh",
        description="On a machine with CUDA: the CUDA tests, and every exercise's reference and three "
        "known-wrong solutions judged under --device cuda and --device cpu, one line per exercise.",
    )
    parser.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="folder for the results (default build/gpu-check)"
    )
    parser.add_argument("--dry-run", action="store_true", help="the same plan with --device cpu in place of cuda")
    parser.add_argument("--plan", action="store_true", help="print which solutions would be judged, and exit")
    parser.add_argument("--no-tests", action="store_true", help="leave out the CUDA tests (pytest)")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2), help="runs at once")
    parser.add_argument("--seed", type=int, default=1, help="the master seed of every run (default 1)")
    parser.add_argument("--run-timeout", type=float, default=DEFAULT_RUN_TIMEOUT_S, help="seconds per judge run")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, help="seconds for all runs together")
    return parser


def _say(line: str = "") -> None:
    print(line, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the judge, from a checkout that is not installed
    if not args.plan and not args.dry_run and not cuda_available():
        _say(SKIP_LINE)
        return 0
    missing = missing_packages(with_tests=not args.no_tests and not args.plan)
    if missing:
        _say(
            f"error: Python packages missing here: {', '.join(missing)} (`pip install -e '.[test]'`; "
            "docs/testing.md, 'The day a GPU is lent', says how without a network)"
        )
        return 2
    from judge.exercises.folders import ExerciseError

    try:
        plan = make_plan(args.exercises)
    except ExerciseError as error:
        _say(f"error: {error}")
        return 2
    plan, notes = judged_on(plan, "cpu" if args.dry_run else "cuda")
    for note in notes:
        _say(note)
    if args.plan:
        for exercise in plan:
            _say(f"{exercise.folder}: " + ", ".join(path.name for _, path in exercise.solutions()))
        return 0
    return check(plan, args)


def _jobs(plan: Sequence[ExercisePlan], device: str) -> list[Job]:
    """Every run of the plan: each solution on the device under test and on the CPU, an exercise's
    runs together (a patch expanded once, in this process's private folder)."""
    from judge.exercises.patches import PATCH_SUFFIX, expanded_path

    jobs = []
    for exercise in plan:
        for name, path in exercise.solutions():
            judged = expanded_path(path, exercise.reference) if path.suffix == PATCH_SUFFIX else path
            for role, on in (("test", device), ("baseline", "cpu")):
                source = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
                jobs.append(Job(exercise.folder, exercise.number, name, judged, on, role, source))
    return jobs


def check(plan: Sequence[ExercisePlan], args: argparse.Namespace) -> int:
    """Run the plan (and the CUDA tests), print the table and the result, write ``args.out``."""
    started = time.monotonic()
    deadline = started + args.budget
    device = "cpu" if args.dry_run else "cuda"
    out: Path = args.out.resolve()  # the runs' working folder is the project root
    out.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    jobs = _jobs(plan, device)
    _say(f"GPU check on {_device_name(args.dry_run)}: {_exercises(plan)}, {len(jobs)} runs, {args.jobs} at once")
    try:
        runs, tests = _run_all(jobs, args, python=python, out=out, deadline=deadline)
    except KeyboardInterrupt:
        _say(f"interrupted after {time.monotonic() - started:.0f} s: every run stopped, no result written")
        return 130
    summary = summarize(plan, runs, tests, on_gpu=not args.dry_run)
    elapsed = time.monotonic() - started
    test_label = "cpu(dry run)" if args.dry_run else "cuda"
    lines = format_table(summary, test_label=test_label, baseline_label="cpu")
    if tests is not None:
        lines.append(
            f"CUDA tests: {tests.passed} passed, {len(tests.failed)} failed, {len(tests.skipped)} skipped "
            f"in {tests.wall_s:.0f} s (pytest -k cuda over {len(tests.files)} files)"
        )
    lines.append(
        f"{summary.result}: {_exercises(plan)}, {len(runs)} runs, in {elapsed:.0f} s (budget {args.budget:.0f} s)"
    )
    lines += [f"  {problem}" for problem in summary.problems]
    for line in lines:
        _say(line)
    (out / "gpu-check.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    record = {
        "result": summary.result,
        "problems": summary.problems,
        "elapsed_s": round(elapsed, 1),
        "dry_run": args.dry_run,
        "device_under_test": device,
        "baseline": "cpu",
        "machine": _device_name(args.dry_run),
        "seed": args.seed,
        "choice_of_wrong_solutions": CHOICE_RULE,
        "exercises": [
            {
                "exercise": row.exercise,
                "ok": not row.problems,
                "problems": row.problems,
                "solutions": [
                    {"solution": c.solution, "test": _as_json(c.test), "baseline": _as_json(c.baseline)}
                    for c in row.cells
                ],
            }
            for row in summary.rows
        ],
        "cuda_tests": asdict(tests) if tests is not None else None,
    }
    (out / "gpu-check.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0 if summary.result == "PASS" else 1


def _run_all(
    jobs: Sequence[Job], args: argparse.Namespace, *, python: str, out: Path, deadline: float
) -> tuple[list[RunResult], TestsResult | None]:
    """Every run of ``jobs``, ``args.jobs`` at a time, and the CUDA tests beside them (a thread of their
    own), a line on stderr as each run ends. Ctrl-C or SIGTERM stops every run and raises
    KeyboardInterrupt once they are gone."""

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupted)
    pool = ThreadPoolExecutor(max_workers=max(1, args.jobs) + (0 if args.no_tests else 1))
    try:
        # Submitted first, so the tests start at once and take the pool's extra thread.
        tests_future: Future[TestsResult] | None = None
        if not args.no_tests:
            tests_future = pool.submit(run_cuda_tests, python, out, timeout_s=args.budget, deadline=deadline)
        runs: list[RunResult] = []
        limit = threading.BoundedSemaphore(max(1, args.jobs))

        def limited(job: Job) -> RunResult:
            with limit:
                return run_job(job, python=python, seed=args.seed, timeout_s=args.run_timeout, deadline=deadline)

        futures = [pool.submit(limited, job) for job in jobs]
        for done, future in enumerate(as_completed(futures), 1):
            run = future.result()
            runs.append(run)
            print(
                f"[{done}/{len(jobs)}] {run.exercise} {run.solution} on {run.device} ({run.role}): {run.verdict} "
                f"in {run.wall_s:.1f} s{' - ' + run.problem if run.problem else ''}",
                file=sys.stderr,
                flush=True,
            )
        return runs, tests_future.result() if tests_future is not None else None
    except KeyboardInterrupt:
        stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        signal.signal(signal.SIGTERM, previous)


def _exercises(plan: Sequence[ExercisePlan]) -> str:
    return f"{len(plan)} exercise{'' if len(plan) == 1 else 's'}"


def _as_json(run: RunResult | None) -> dict | None:
    return asdict(run) if run is not None else None


if __name__ == "__main__":
    sys.exit(main())
