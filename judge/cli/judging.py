"""``test``: judge the learner's file on this machine (or, with ``--browser``, in Pyodide under
Node.js), show the report and write the exports it asks for.

The progress line is on screen before anything slow starts: the runner (and torch) is imported
only once the learner's own process has been started, so that the two imports overlap.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from judge.cli.common import USAGE_ERROR, cuda_available, relative, require_extras, show_report, spinner, workspace_file
from judge.engine.process import LearnerProcess
from judge.exercises.exercise import SUITES, resolve
from judge.i18n import t
from judge.verdicts import Verdict, ran_no_case

if TYPE_CHECKING:  # judge.engine.runner imports torch
    from judge.engine.runner import ProgressCallback
    from judge.reports.report import Report


def cmd_test(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    exercise = resolve(args.exercise)
    path = Path(args.file) if args.file else workspace_file(exercise.folder)
    problem = _test_usage_problem(exercise, path, args, lang)
    if problem is not None:
        err.print(problem)
        return USAGE_ERROR
    problem = _export_problem(args, lang)
    if problem is not None:
        err.print(problem, style="bold red", markup=False, soft_wrap=True)
        return USAGE_ERROR
    if args.browser:
        return _test_in_browser(exercise, path, args, lang, out, err)
    suites = ("public",) if args.public_only else SUITES
    if "hidden" in suites:  # before anything slow: the hidden tests would fail inside the judge
        require_extras(exercise)
    # From here on everything is slow (torch, the sandbox, the learner's import): the progress line
    # is on screen before any of it starts.
    with _judging_progress(err, lang, enabled=not args.json) as on_case:
        if args.device.startswith("cuda") and not cuda_available():
            err.print(
                "[bold red]error:[/] --device cuda was asked for, but torch sees no CUDA device here "
                "(run `python practice/judge.py doctor`)"
            )
            return USAGE_ERROR
        launcher = _test_launcher(args, err)
        if launcher is False:
            return USAGE_ERROR
        try:
            report = _judge_with_overlap(exercise, path, args, suites, on_case, launcher)
        finally:
            if launcher is not None:
                launcher.close()
    code = _show_and_export(report, args, out, err, lang)
    if args.public_only and not args.json and not ran_no_case(report.verdict.value, report.to_json()["cases"]):
        _say_hidden_skipped(exercise, args, report, out, lang)
    return code


def _test_usage_problem(exercise, path: Path, args: argparse.Namespace, lang: str) -> str | None:
    """What is wrong with how ``test`` was called (printed, exit 2), or None."""
    if not path.is_file():
        return t("no_file", lang, path=relative(path), id=exercise.number)
    if args.device not in ("cpu",) and not args.device.startswith("cuda"):
        return f"[bold red]error:[/] unknown device {args.device!r}; use cpu or cuda"
    if args.device.split(":")[0] not in exercise.devices:
        return (
            f"[bold red]error:[/] exercise {exercise.number} is judged on {', '.join(exercise.devices)}, "
            f"not {args.device}"
        )
    if not args.browser and args.sandbox == "strict" and args.device != "cpu":
        return "[bold red]error:[/] the strict sandbox runs on the CPU only; use --sandbox local for --device cuda"
    return None


def _export_problem(args: argparse.Namespace, lang: str) -> str | None:
    """Why a file ``--junit`` or ``--results-json`` names cannot be written (said before judging), or None."""
    for target in (args.junit, args.results_json):
        if target is None:
            continue
        path = Path(target)
        if path.is_dir():
            return _cannot_write(target, t("is_folder", lang), lang)
        if not path.parent.is_dir():
            return _cannot_write(target, t("no_folder", lang, folder=relative(path.parent)), lang)
    return None


def _cannot_write(target: str, reason: str, lang: str) -> str:
    return t("cannot_write", lang, path=target, reason=reason)


def _test_in_browser(exercise, path: Path, args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """``test --browser``: the tiny variant in Pyodide under Node.js, printed like any report."""
    from judge.browser.node import BrowserRunUnavailable, run_in_node

    if exercise.browser is None:
        err.print(f"[bold red]error:[/] exercise {exercise.number} has no browser variant")
        return USAGE_ERROR
    try:
        with spinner(err, t("starting_browser", lang), enabled=not args.json):
            report = run_in_node(exercise, path.read_text(encoding="utf-8", errors="replace"), args.seed)
    except BrowserRunUnavailable as error:
        err.print(f"[bold red]error:[/] {error}")
        return USAGE_ERROR
    return _show_and_export(report, args, out, err, lang)


def _test_launcher(args: argparse.Namespace, err: Console):
    """The launcher ``--sandbox`` asks for: None (``local``, the default), a strict one, or False
    when strict is not available here (said on ``err``)."""
    if args.sandbox != "strict":
        return None
    from judge.sandbox.strict import SandboxUnavailable, StrictLauncher

    try:
        return StrictLauncher(slots=1)
    except SandboxUnavailable as error:
        err.print(f"[bold red]error:[/] the strict sandbox is not available here: {error}")
        return False


def _judge_with_overlap(
    exercise, path: Path, args: argparse.Namespace, suites: tuple[str, ...], on_case: ProgressCallback | None, launcher
) -> Report:
    """Judge the file, starting the learner's process before this one imports torch (the runner
    does): the two imports then overlap. With ``wait=False`` whatever goes wrong in the learner's
    file is raised, and judged, at first use."""
    process = LearnerProcess(
        path,
        device=args.device,
        memory_limit_mb=exercise.memory_limit_mb,
        wait=False,
        load_timeout_s=exercise.time_limit_s,
        launcher=launcher,
    )
    try:
        from judge.engine.runner import judge_file

        return judge_file(
            exercise,
            path,
            seed=args.seed,
            device=args.device,
            suites=suites,
            progress=on_case,
            process=process,
            sequential=not getattr(args, "fixed", False),
            # A Gradescope score is the sum of the cases passed: every case runs (docs/gradescope.md).
            settle=False if getattr(args, "results_json", None) else None,
        )
    finally:
        process.close()


@contextlib.contextmanager
def _judging_progress(err: Console, lang: str, *, enabled: bool) -> Iterator[ProgressCallback | None]:
    """A progress line on ``err`` (a terminal) from the moment it is entered ("starting your code
    and loading torch", then one step per case); yields the runner's progress callback (None when
    there is no line). It is transient: gone before the report is printed."""
    if not enabled or not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task(t("starting", lang), total=None)

        def on_case(title: str, index: int, total: int) -> None:
            progress.update(task, description=f"{t('judging', lang)}: {title}", completed=index, total=total)

        yield on_case


def _show_and_export(report: Report | dict, args: argparse.Namespace, out: Console, err: Console, lang: str) -> int:
    """Print ``report`` (:func:`show_report`), then write the files ``--junit`` and ``--results-json``
    ask for; the exit code follows the verdict, or is 2 when a file could not be written."""
    code = show_report(report, args, out, lang)
    from judge.reports.exports import junit_xml, results_json

    # A local run shows hidden cases' messages (the learner's own machine): its exports do too.
    writers = [
        (args.junit, lambda: junit_xml(report, full_hidden=True, lang=lang)),
        (args.results_json, lambda: json.dumps(results_json(report, full_hidden=True, lang=lang), ensure_ascii=False)),
    ]
    for target, text in writers:
        if target is None:
            continue
        try:
            Path(target).write_text(text(), encoding="utf-8")
        except OSError as error:
            err.print(
                _cannot_write(target, error.strerror or str(error), lang),
                style="bold red",
                markup=False,
                soft_wrap=True,
            )
            return USAGE_ERROR
        err.print(t("wrote", lang, path=target), markup=False, highlight=False, soft_wrap=True)
    return code


def _say_hidden_skipped(exercise, args: argparse.Namespace, report, out: Console, lang: str) -> None:
    """After a ``--public-only`` run: the hidden tests did not run, and the command that runs them."""
    from judge.exercises.suites import load_suite

    hidden = len(load_suite(exercise, "hidden").cases)
    command = f"python practice/judge.py test {exercise.number}"
    if args.file:
        command += f" {shlex.quote(args.file)}"
    if args.device != "cpu":
        command += f" --device {args.device}"
    passed = report.verdict is Verdict.AC
    out.print()
    out.print(
        t("public_only_passed" if passed else "public_only_failed", lang, hidden=hidden),
        style="bold yellow",
        markup=False,
        highlight=False,
    )
    if report.verdict is Verdict.WA and report.diagnosis is None:
        out.print(t("public_only_no_diagnosis", lang), style="yellow", markup=False, highlight=False)
    out.print(t("run_hidden", lang), style="yellow", markup=False, highlight=False)
    out.print(f"  {command}", markup=False, highlight=False, soft_wrap=True)  # one line, to copy
