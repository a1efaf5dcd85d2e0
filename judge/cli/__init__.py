"""The local command line (``probjudge``, or ``python practice/judge.py`` from a clone): a thin
front door over the engine.

``test`` shows its progress line before anything slow happens: this module imports neither torch
nor the judge's heavier modules at import time (the runner, the checks and the renderer are
imported where they are used), so the learner sees the judge start at once.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, Group
from rich.markup import escape
from rich.table import Table

from judge import JUDGE_VERSION
from judge.engine.process import LearnerProcess
from judge.exercises.exercise import PROJECT_ROOT, SUITES, ExerciseError, load_all, resolve
from judge.i18n import LANGUAGES, default_language, t
from judge.verdicts import Verdict, ran_no_case

WORKSPACE = PROJECT_ROOT / "practice" / "workspace"
USAGE_ERROR = 2

if TYPE_CHECKING:  # judge.engine.runner imports torch
    from judge.engine.runner import ProgressCallback
    from judge.reports.report import Report


def workspace_file(folder: str) -> Path:
    return WORKSPACE / f"{folder}.py"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python practice/judge.py", description="ProbJudge: judge sampling exercises with statistical tests."
    )
    parser.add_argument("--version", action="version", version=f"ProbJudge {JUDGE_VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_lang(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sub.add_argument("--lang", choices=LANGUAGES, default=None, help="language of the texts (default: from locale)")
        return sub

    with_lang(commands.add_parser("list", help="list the exercises"))
    show = with_lang(commands.add_parser("show", help="print an exercise's statement"))
    show.add_argument("exercise", help="number (39, 039) or slug (sampling)")
    show.add_argument(
        "--raw",
        action="store_true",
        help="print the Markdown source (default: rendered, with the math as Unicode text)",
    )
    start = with_lang(commands.add_parser("start", help="write the starter to practice/workspace/ (never overwrites)"))
    start.add_argument("exercise")
    test = with_lang(commands.add_parser("test", help="judge your solution: public + hidden tests"))
    test.add_argument("exercise")
    test.add_argument("file", nargs="?", help="your solution (default: practice/workspace/NNN-slug.py)")
    test.add_argument(
        "--public-only", action="store_true", help="run only the public examples (quick; the hidden tests are skipped)"
    )
    test.add_argument("--seed", type=int, default=None, help="master seed, to reproduce a run")
    test.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    test.add_argument("--json", action="store_true", help="print the report as one JSON object on stdout")
    test.add_argument(
        "--junit", metavar="FILE", default=None, help="also write the report to FILE as JUnit XML (for CI tools)"
    )
    test.add_argument(
        "--results-json",
        metavar="FILE",
        default=None,
        help="also write the report to FILE as a Gradescope autograder results.json (docs/gradescope.md)",
    )
    test.add_argument(
        "--browser",
        action="store_true",
        help="run the exercise's browser variant under Node.js, as the site's Run button does",
    )
    test.add_argument(
        "--sandbox",
        choices=("local", "strict"),
        default="local",
        help="isolation level: local (default; your own code) or strict (as a server grades; "
        "needs root and Linux, see `doctor`)",
    )
    solution = with_lang(commands.add_parser("solution", help="print the reference solution and its explanation"))
    solution.add_argument("exercise")
    solution.add_argument(
        "--yes", action="store_true", help="show it without asking first (needed when stdin is not a terminal)"
    )
    check = commands.add_parser(
        "check",
        help="maintainers: references pass, starters name no mistake, known-wrong solutions fail with their "
        "headline diagnosis (docs/authoring.md, 'What check verifies')",
    )
    check.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    check.add_argument("--seed", type=int, default=None)
    check.add_argument("--device", default="cpu")
    check.add_argument("--jobs", type=int, default=2, help="solutions judged at once")
    check.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="N",
        help="judge every solution under N master seeds (derived from --seed): the reference must "
        "pass and each wrong solution fail, diagnosed, every time",
    )
    check.add_argument(
        "--lane-runs",
        type=int,
        default=3,
        metavar="N",
        help="after each exercise, grade its reference N times on one lane and print how far apart "
        "its weights leave the site's lanes (advice, never a failure; 0 skips it; see `lanes`)",
    )
    contract = commands.add_parser(
        "contract", help="authors: the statement's binding sentences and the cases that check each one"
    )
    contract.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    mutation = commands.add_parser(
        "mutation", help="maintainers: judge mutants of each reference with its suites (minutes; make mutation)"
    )
    mutation.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    mutation.add_argument(
        "--sample",
        default=None,
        metavar="N|all",
        help="mutants judged per exercise, a seeded random sample (default 100); 'all' judges every one",
    )
    mutation.add_argument("--seed", type=int, default=0, help="seeds the sample and each mutant's master seed")
    mutation.add_argument("--jobs", type=int, default=2, help="mutants judged at once")
    mutation.add_argument("--strict", action="store_true", help="exit 1 when a mutant survives or errs too (for CI)")
    mutation.add_argument("--json", dest="json_path", metavar="PATH", help="write every mutant's outcome as JSON")
    mutation.add_argument("--markdown", metavar="PATH", help="write the table for docs/benchmarks.md")
    mutation.add_argument("--keep", metavar="DIR", help="write each judged mutant to DIR/NNN-slug/ID.py")
    mutation.add_argument(
        "--operators", default=None, help="comma-separated operator names, e.g. cmp.lt-le,stmt.drop (default: all)"
    )
    lanes = commands.add_parser(
        "lanes", help="authors: measure each case's cost and how evenly the lane weights share it"
    )
    lanes.add_argument("exercise")
    lanes.add_argument("--runs", type=int, default=5, help="measured gradings of the reference (default 5)")
    lanes.add_argument("--warmups", type=int, default=2, help="gradings first, not measured (default 2)")
    lanes.add_argument("--lanes", type=int, default=2, help="lanes to share the cases between (default 2, the site's)")
    lanes.add_argument(
        "--sandbox",
        choices=("auto", "strict", "local"),
        default="auto",
        help="isolation level of the gradings (default: strict where it can run, else local)",
    )
    lanes.add_argument(
        "--tolerance",
        type=float,
        default=None,
        metavar="RATIO",
        help="exit 1 when the declared weights leave the heavier lane more than RATIO times the "
        "lighter one (each case's median time over the runs); without it the command only reports",
    )
    lanes.add_argument("--seed", type=int, default=0, help="master seed the gradings' seeds derive from")
    lanes.add_argument("--json", action="store_true", help="print the measurement as one JSON object")
    new = commands.add_parser("new", help="authors: write a small working exercise to start from (never overwrites)")
    new.add_argument("number", help="the exercise's number, 1 to 999")
    new.add_argument("slug", help="lowercase letters, digits and hyphens, e.g. beam-search")
    new.add_argument("--title-en", default=None, help="the English title (default: from the slug)")
    new.add_argument("--title-zh", default=None, help="the Chinese title (default: a TODO)")
    new.add_argument(
        "--into",
        default=None,
        metavar="FOLDER",
        help="the pack to write into (default: the first exercises folder); the solutions go to "
        "the solutions/ folder beside it",
    )
    with_lang(commands.add_parser("doctor", help="what this machine can judge"))
    submit = with_lang(
        commands.add_parser("submit", help="grade a file on a ProbJudge server and wait for the verdict")
    )
    submit.add_argument("exercise")
    submit.add_argument("file")
    submit.add_argument("--server", required=True, help="the site's URL, e.g. http://127.0.0.1:5000")
    submit.add_argument("--token", required=True, help="your API token")
    submit.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the verdict")
    submit.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    submit.add_argument(
        "--course",
        type=course_choice,
        default=argparse.SUPPRESS,  # absent unless given: the server then picks the course
        help="the course id to submit for, or 'practice' (default: the server's rule, see docs/learners.md)",
    )
    return parser


def course_choice(text: str) -> int | None:
    """``--course``: a course id, or ``practice`` (None: a submission for no course)."""
    if text.strip().lower() == "practice":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a course id nor 'practice'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a course id (ids are positive)")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run one command; ``argv`` defaults to ``sys.argv[1:]`` (the ``probjudge`` entry point)."""
    args = build_parser().parse_args(argv)
    lang = getattr(args, "lang", None) or default_language()
    out = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    try:
        with _terminate_as_interrupt():
            return COMMANDS[args.command](args, lang, out, err)
    except ExerciseError as error:
        err.print(f"[bold red]error:[/] {error}")
        return USAGE_ERROR
    except KeyboardInterrupt:  # the learner's processes, the fork server and the cgroups are cleaned up
        err.print("interrupted")
        return 130


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM and SIGHUP end the command like Ctrl+C, so that every ``finally`` runs (a bare
    SIGTERM would kill the judge at once: its learner processes would still die with their
    keepers, but a strict run would leave its cgroups behind)."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def cmd_list(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """The exercises grouped by the handbook's chapters and sections (judge.exercises.chapters), in its order:
    a heading per chapter and per section, then that section's exercises (columns aligned across
    the groups, so the list reads as one table)."""
    from rich.cells import cell_len
    from rich.markup import escape

    from judge.exercises.chapters import group

    exercises = load_all()
    rows = {e.number: (f"{e.number:03d}", e.slug, e.title(lang), e.difficulty, ", ".join(e.runs_in)) for e in exercises}
    keys = ("number", "slug", "title", "difficulty", "runs_in")
    widths = [max([cell_len(t(key, lang))] + [cell_len(row[i]) for row in rows.values()]) for i, key in enumerate(keys)]
    # Long titles wrap rather than push the other columns off (a column's padding is 2 cells); when
    # that is not enough (a long slug, a narrow terminal), "runs in" wraps at its commas rather
    # than lose its last word to the edge.
    room = out.width - 2 * (len(keys) - 1) - 1
    widths[2] = max(16, min(widths[2], room - sum(widths) + widths[2]))
    over = sum(widths) - room
    if over > 0:
        longest_word = max(cell_len(word) for row in rows.values() for word in row[4].split())
        widths[4] = max(longest_word, widths[4] - over)
    wrapping = ("title", "runs_in")

    def table(header: bool) -> Table:
        made = Table(box=None, header_style="bold", show_header=header, pad_edge=False)
        for key, width in zip(keys, widths, strict=True):
            made.add_column(t(key, lang), min_width=width, max_width=width if key in wrapping else None)
        return made

    if not exercises:
        out.print(table(True))
        return 0
    out.print(table(True))
    for found in group(exercises):
        if found.opens_chapter and found.chapter is not None:
            out.print(f"\n[bold underline]{escape(found.chapter.title.in_language(lang))}[/]")
        if found.section is not None or found.chapter is None:
            out.print(f"\n[bold]{escape(found.title.in_language(lang))}[/]")
        section = table(False)
        for exercise in found.exercises:
            section.add_row(*(escape(cell) for cell in rows[exercise.number]))
        out.print(section)
    return 0


def cmd_show(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """The statement rendered, its math as Unicode text (also into a pipe); ``--raw``: the Markdown."""
    exercise = resolve(args.exercise)
    text = exercise.statement(lang)
    if args.raw:
        out.print(text, markup=False, highlight=False, soft_wrap=True)
    else:
        from judge.reports.render import MathMarkdown

        out.print(MathMarkdown(text))
    return 0


def cmd_start(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    exercise = resolve(args.exercise)
    target = workspace_file(exercise.folder)
    shown = _relative(target)
    if target.exists():
        out.print(t("exists", lang, path=shown))
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    from judge.exercises.starters import starter_text

    target.write_text(starter_text(exercise, lang, "cli"), encoding="utf-8")  # its hints in the CLI's language
    out.print(t("started", lang, path=shown, id=exercise.number))
    return 0


def _test_in_browser(exercise, path: Path, args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """``test --browser``: the tiny variant in Pyodide under Node.js, printed like any report."""
    from judge.browser.node import BrowserRunUnavailable, run_in_node

    if exercise.browser is None:
        err.print(f"[bold red]error:[/] exercise {exercise.number} has no browser variant")
        return USAGE_ERROR
    try:
        with _spinner(err, t("starting_browser", lang), enabled=not args.json):
            report = run_in_node(exercise, path.read_text(encoding="utf-8", errors="replace"), args.seed)
    except BrowserRunUnavailable as error:
        err.print(f"[bold red]error:[/] {error}")
        return USAGE_ERROR
    return _show_and_export(report, args, out, err, lang)


def _show_and_export(report: Report | dict, args: argparse.Namespace, out: Console, err: Console, lang: str) -> int:
    """Print ``report`` (:func:`_show_report`), then write the files ``--junit`` and ``--results-json``
    ask for; the exit code follows the verdict, or is 2 when a file could not be written."""
    code = _show_report(report, args, out, lang)
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


def _export_problem(args: argparse.Namespace, lang: str) -> str | None:
    """Why a file ``--junit`` or ``--results-json`` names cannot be written (said before judging), or None."""
    for target in (args.junit, args.results_json):
        if target is None:
            continue
        path = Path(target)
        if path.is_dir():
            return _cannot_write(target, t("is_folder", lang), lang)
        if not path.parent.is_dir():
            return _cannot_write(target, t("no_folder", lang, folder=_relative(path.parent)), lang)
    return None


def _cannot_write(target: str, reason: str, lang: str) -> str:
    return t("cannot_write", lang, path=target, reason=reason)


def _show_report(report, args: argparse.Namespace, out: Console, lang: str, *, as_json: dict | None = None) -> int:
    """Print ``report`` (a Report or its JSON dict) as JSON (``as_json`` if given) or rendered; exit 0 on AC."""
    data = report if isinstance(report, dict) else report.to_json()
    if args.json:
        print(json.dumps(data if as_json is None else as_json, ensure_ascii=False, indent=2))
    else:
        from judge.reports.render import render_report

        render_report(report, out, lang)
    return 0 if data.get("verdict") == Verdict.AC.value else 1


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
    # From here on everything is slow (torch, the sandbox, the learner's import): the progress line
    # is on screen before any of it starts.
    with _judging_progress(err, lang, enabled=not args.json) as on_case:
        if args.device.startswith("cuda") and not _cuda_available():
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
        return t("no_file", lang, path=_relative(path), id=exercise.number)
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
            exercise, path, seed=args.seed, device=args.device, suites=suites, progress=on_case, process=process
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


@contextlib.contextmanager
def _spinner(err: Console, text: str, *, enabled: bool) -> Iterator[None]:
    """A spinner with ``text`` on ``err`` (a terminal) while the block runs."""
    if not enabled or not err.is_terminal:
        yield
        return
    with err.status(text):
        yield


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


def cmd_solution(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """The reference and its explanation, after the learner says yes: a spoiler is never one
    keystroke away. ``--yes`` skips the question; without it a stdin that is no terminal (a script,
    a pipe) is refused (exit 2) rather than answered for the learner; "no" or end of input: exit 1."""
    exercise = resolve(args.exercise)
    if not args.yes:
        if not sys.stdin.isatty():
            err.print(t("solution_needs_yes", lang, id=exercise.number), markup=False, highlight=False)
            return USAGE_ERROR
        try:
            answer = err.input(t("solution_ask", lang, id=exercise.number) + " ", markup=False)
        except EOFError:
            err.print()  # the prompt's line ends here, not at the message below
            answer = ""
        if answer.strip().lower() not in ("y", "yes", "是"):
            err.print(t("solution_not_shown", lang), markup=False, highlight=False)
            return 1
    code = exercise.reference_path.read_text(encoding="utf-8")
    explanation = exercise.solutions_root / f"explanation.{lang}.md"
    out.rule(t("reference", lang))
    if out.is_terminal:
        from rich.cells import cell_len
        from rich.syntax import Syntax

        # Long lines wrap instead of being cut at the edge; line numbers then show where a line goes on.
        wraps = any(cell_len(line) > out.width for line in code.splitlines())
        out.print(Syntax(code, "python", line_numbers=wraps, word_wrap=True))
    else:
        out.print(code, markup=False, highlight=False, soft_wrap=True)
    if explanation.is_file():
        from judge.reports.render import MathMarkdown

        out.rule(t("explanation", lang))
        out.print(MathMarkdown(explanation.read_text(encoding="utf-8")))
    return 0


def cmd_check(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    from judge.authoring.catalogue import check_exercise
    from judge.sandbox.launchers import WarmLocalLauncher

    exercises = [resolve(i) for i in args.exercises] if args.exercises else load_all()
    all_ok = True
    # One fork server with torch imported for the whole command: each solution's process is forked
    # from it instead of importing torch afresh. Closed at the end, Ctrl-C included.
    with WarmLocalLauncher() as launcher:
        for exercise in exercises:
            out.print(f"[bold]{exercise.number:03d} {exercise.slug}[/]")
            started = time.monotonic()
            outcomes = check_exercise(
                exercise,
                seed=args.seed,
                device=args.device,
                jobs=args.jobs,
                progress=lambda outcome: _show_outcome(out, outcome),
                seeds=args.seeds,
                launcher=launcher,
            )
            failed = [o for o in outcomes if not o.ok]
            all_ok = all_ok and not failed
            out.print(
                f"  {len(outcomes) - len(failed)}/{len(outcomes)} as expected in {time.monotonic() - started:.1f} s"
            )
            reference_passed = any(o.solution == "reference" and o.ok for o in outcomes)
            if args.lane_runs > 0 and reference_passed:
                _lane_advice(exercise, launcher, args.lane_runs, out)
    return 0 if all_ok else 1


def cmd_contract(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """Each binding sentence of the statement and the cases that check it (judge/exercises/clauses.py); exit 1
    when the list in ``tests/hidden/contract.toml`` leaves a sentence uncovered or names what is not there."""
    from judge.exercises.clauses import ContractError, contract_problems, coverage

    exercises = [resolve(i) for i in args.exercises] if args.exercises else load_all()
    all_ok = True
    for exercise in exercises:
        out.print(f"[bold]{exercise.number:03d} {exercise.slug}[/]")
        try:
            table = Table("line", "sentence of statement.en.md", "checked by", show_lines=True)
            for sentence, clauses in coverage(exercise):
                checks = list(dict.fromkeys(check for clause in clauses for check in clause.checks))
                notes = [clause.note for clause in clauses if clause.note]
                table.add_row(
                    str(sentence.line),
                    escape(sentence.text),
                    escape("\n".join(checks + [f"({note})" for note in notes]) or "-"),
                )
            out.print(table)
            problems = contract_problems(exercise)
        except ContractError as error:
            problems = [str(error)]
        for problem in problems:
            out.print(f"  [bold red]problem:[/] {escape(problem)}")
        all_ok = all_ok and not problems
    return 0 if all_ok else 1


def cmd_mutation(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """Mutation testing (judge/authoring/mutation/): each exercise's counts and the lists a human acts on;
    exit 1 for a stale or killed equivalent, or a reference that fails (with ``--strict``, for a
    survivor or a judge error too), 2 for a usage error."""
    try:
        from judge.authoring.mutation.judging import DEFAULT_SAMPLE, mutate_exercise
        from judge.authoring.mutation.operators import OPERATORS, operator_named
        from judge.authoring.mutation.tables import markdown_table, report_lines, to_json
    except ImportError as error:  # cosmic-ray is in the `test` extra, not in a learner's install
        err.print(f"error: mutation testing needs cosmic-ray (pip install -e '.[test]'): {error}", markup=False)
        return USAGE_ERROR
    from judge.sandbox.launchers import WarmLocalLauncher

    if args.sample in (None, ""):
        sample: int | None = DEFAULT_SAMPLE
    elif args.sample == "all":
        sample = None
    elif args.sample.isdigit() and int(args.sample) >= 1:
        sample = int(args.sample)
    else:
        err.print(f"error: --sample takes a whole number of at least 1, or 'all' (got {args.sample!r})", markup=False)
        return USAGE_ERROR
    try:
        operators = [operator_named(n) for n in args.operators.split(",")] if args.operators else list(OPERATORS)
    except KeyError as error:
        err.print(f"error: {error.args[0]}", markup=False)
        return USAGE_ERROR
    exercises = [resolve(i) for i in args.exercises] if args.exercises else load_all()
    runs = []
    with WarmLocalLauncher() as launcher:
        for exercise in exercises:
            with _spinner(err, f"mutating {exercise.number:03d} {exercise.slug}", enabled=True):
                run = mutate_exercise(
                    exercise,
                    sample=sample,
                    seed=args.seed,
                    jobs=args.jobs,
                    launcher=launcher,
                    operators=operators,
                    keep=Path(args.keep) if args.keep else None,
                )
            runs.append(run)
            for line in report_lines(run):
                out.print(line, markup=False, highlight=False, soft_wrap=True)
    for target, text in (
        (args.json_path, lambda: json.dumps(to_json(runs), ensure_ascii=False, indent=1) + "\n"),
        (args.markdown, lambda: markdown_table(runs)),
    ):
        if target:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            Path(target).write_text(text(), encoding="utf-8")
            out.print(f"wrote {target}", markup=False)
    failed = any(run.problems for run in runs)
    if args.strict:
        failed = failed or any(run.count("survived") or run.count("error") for run in runs)
    return 1 if failed else 0


def _lane_advice(exercise, launcher, runs: int, out: Console) -> None:
    """One line after an exercise's check: how far apart its declared weights leave the site's
    lanes, and with the suggested weights. Advice only: timing never fails ``check``, which a
    busy machine would make flaky (docs/authoring.md, "Lane weights")."""
    from judge.authoring.balance import SITE_LANES, ReferenceFailed, measure

    try:
        measured = measure(exercise, launcher, runs=runs, warmups=1)
    except ReferenceFailed as error:  # the check above passed it; a later seed did not
        out.print(f"  lanes: not measured: {error}", markup=False, highlight=False)
        return
    declared = measured.declared(SITE_LANES)
    if measured.keeps_declared(SITE_LANES):
        advice = "keep them"
    else:
        changed = sum(
            case.declared != weight
            for case, weight in zip(measured.cases, measured.suggested_weights(SITE_LANES), strict=True)
        )
        advice = f"{_ratio(measured.suggested(SITE_LANES).imbalance)} with the suggested ones, {changed} changed"
    out.print(
        f"  lanes: {declared.lanes} lanes {_ratio(declared.imbalance)} apart under the declared weights "
        f"({advice}; python practice/judge.py lanes {exercise.number})",
        markup=False,
        highlight=False,
        soft_wrap=True,  # one line, to grep
    )


def _ratio(value: float) -> str:
    return f"{value:.2f}x" if value != float("inf") else "infinitely"


def cmd_lanes(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """Measure the reference's case costs (judge/authoring/balance.py) and show them against the declared
    lane weights; exit 1 only with ``--tolerance``, when the declared weights leave the lanes
    further apart than it (each case's median time over the runs)."""
    exercise = resolve(args.exercise)
    if args.runs < 1 or args.warmups < 0 or args.lanes < 1:
        err.print("[bold red]error:[/] --runs and --lanes must be at least 1, --warmups at least 0")
        return USAGE_ERROR
    if args.tolerance is not None and not args.tolerance >= 1.0:
        err.print("[bold red]error:[/] --tolerance is a ratio of two lanes' times: at least 1.0")
        return USAGE_ERROR
    launcher = _lanes_launcher(args.sandbox, err)
    if launcher is None:
        return USAGE_ERROR
    from judge.authoring.balance import measure, to_json

    try:
        with _spinner(err, f"grading the reference {args.warmups + args.runs} times", enabled=not args.json):
            measured = measure(exercise, launcher, runs=args.runs, warmups=args.warmups, seed=args.seed)
    finally:
        launcher.close()
    data = to_json(measured, args.lanes, args.tolerance)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _show_balance(data, out)
    return 1 if data["within_tolerance"] is False else 0


def _lanes_launcher(level: str, err: Console):
    """A launcher of ``level`` for ``lanes`` (``auto``: strict where it runs, else a warm local
    one, said on ``err``); None, with the reason on ``err``, when strict was asked and cannot run."""
    from judge.sandbox.launchers import WarmLocalLauncher

    if level == "local":
        return WarmLocalLauncher()
    from judge.sandbox.strict import SandboxUnavailable, StrictLauncher

    try:
        return StrictLauncher(slots=1)
    except SandboxUnavailable as error:
        if level == "strict":
            err.print(f"[bold red]error:[/] the strict sandbox is not available here: {error}")
            return None
        err.print(f"note: grading under the local level (strict cannot run here: {error})", markup=False)
        return WarmLocalLauncher()


def _show_balance(data: dict, out: Console) -> None:
    """The measurement of ``lanes`` as tables: each case, then the lanes under both weightings."""
    from judge.authoring.balance import SLACK

    warmups = f"{data['warmups']} warm-up{'' if data['warmups'] == 1 else 's'}"
    out.print(
        f"[bold]{data['exercise']:03d} {escape(data['slug'])}[/]: the reference graded {data['runs']} times "
        f"(after {warmups}) on one lane, {data['level']} sandbox; a case's cost is its median time in "
        "those gradings"
    )
    cases = Table(box=None, header_style="bold", pad_edge=False)
    for heading in ("case", "declared", "median ms", "learner CPU ms", "suggested"):
        cases.add_column(heading, justify="left" if heading == "case" else "right")
    for case in data["cases"]:
        cpu = case["learner_cpu_ms"]
        mark = "" if case["suggested"] == case["declared"] else " *"
        cases.add_row(
            escape(f"{case['suite']}/{case['name']}"),
            f"{case['declared']:g}",
            f"{case['median_ms']:.1f}",
            "-" if cpu is None else f"{cpu:.1f}",
            f"{case['suggested']}{mark}",
        )
    out.print(cases)
    if data["keeps_declared"]:
        out.print(
            f"suggested: the declared weights (they share these times within {SLACK - 1:.0%} of sharing by the "
            "times themselves, or better than new weights would)"
        )
    else:
        step = data["unit_step"]
        unit = "the median case" + (f" / {step}" if step > 1 else "")
        out.print(f"suggested: time / {data['unit_ms']:.2f} ms ({unit}), rounded, at least 1; * differs from declared")
    total = sum(case["median_ms"] for case in data["cases"])
    for title, lanes in (("declared weights", data["declared"]), ("suggested weights", data["suggested"])):
        table = Table(box=None, header_style="bold", pad_edge=False, title=f"lanes under the {title}")
        table.title_justify = "left"
        for heading in ("lane", "cases", "weight", "median ms", "share of cost"):
            table.add_column(heading, justify="right")
        for number, (share, weight, cost) in enumerate(
            zip(lanes["shares"], lanes["weights"], lanes["costs_ms"], strict=True)
        ):
            table.add_row(str(number), str(len(share)), f"{weight:g}", f"{cost:.1f}", f"{cost / total:.0%}")
        out.print(table)
        shown = "infinite" if lanes["imbalance"] is None else f"{lanes['imbalance']:.2f}"
        out.print(f"imbalance (heavier lane / lighter lane, in median ms): {shown}")
    if data["tolerance"] is not None:
        verdict = "within" if data["within_tolerance"] else "[bold red]over[/]"
        out.print(f"declared weights: {verdict} the tolerance of {data['tolerance']:g}")


def cmd_new(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """Write a small working exercise (judge/authoring/scaffold.py); the command only parses and reports."""
    from judge.authoring.scaffold import new_exercise

    written = new_exercise(args.number, args.slug, title_en=args.title_en, title_zh=args.title_zh, into=args.into)
    out.print(f"wrote {len(written)} files:", markup=False)
    for path in written:
        out.print(f"  {_relative(path)}", markup=False)
    number = int(args.number)
    from judge.exercises.exercise import PACKS_VARIABLE, exercise_dirs

    pack = written[0].parent.parent
    if pack not in exercise_dirs():
        out.print(
            f"note: {pack} is not among the packs the judge reads; list it in {PACKS_VARIABLE} "
            "(with the repository's exercises/ if they should stay)",
            markup=False,
        )
    from judge.exercises.chapters import CHAPTERS_FILE, chapters_file

    placed_by = chapters_file(pack)
    if placed_by != pack / CHAPTERS_FILE:
        where = f"take their chapters and sections from {placed_by}" if placed_by else "can name no section"
        out.print(
            f"note: {pack} has no {CHAPTERS_FILE}, so its exercises {where} (a `section` must be one of its "
            f"chapter's there); write {pack / CHAPTERS_FILE} to give the pack its own (docs/authoring.md, "
            '"Chapters and sections")',
            markup=False,
        )
    out.print(
        f"next: python practice/judge.py check {number}   (passes as written), then replace every TODO "
        'in both languages (docs/authoring.md, "Start from the scaffold")',
        markup=False,
    )
    return 0


def _show_outcome(out: Console, outcome) -> None:
    """One line of ``check``: the solution, its verdict and time, and whether that was expected."""
    mark = "[green]ok  [/]" if outcome.ok else "[bold red]FAIL[/]"
    report = outcome.report
    detail = f"  {outcome.problem}" if outcome.problem else ""
    runs = f" {outcome.as_expected}/{outcome.runs} seeds" if outcome.runs > 1 else ""
    # Only the mark is markup: a diagnosis or a solution's name may hold brackets ("[n]").
    out.print(
        mark
        + escape(
            f" {outcome.solution:32} {report.verdict.value:4} "
            f"{report.time_ms / 1000:5.1f} s{runs}  expected {outcome.expectation}{detail}"
        ),
        markup=True,
        highlight=False,
    )


def cmd_doctor(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    environment, has_torch = _environment_table()
    out.print(environment)
    if not has_torch:
        return 1
    out.print(_strict_layers())
    out.print(_exercises_here())
    return 0


def _environment_table() -> tuple[Table, bool]:
    """ProbJudge, Python, the platform, torch, CUDA, how fast a learner process starts, the levels;
    and whether torch is there (without it nothing else can be judged, nor is it probed)."""
    table = Table(box=None, show_header=False)
    table.add_row("ProbJudge", JUDGE_VERSION)
    table.add_row("Python", f"{platform.python_version()} ({sys.executable})")
    table.add_row("Platform", platform.platform())
    try:
        import torch
    except ImportError:
        table.add_row("torch", "[red]not installed[/]: run `make test` or `pip install -e .`")
        return table, False
    table.add_row("torch", torch.__version__)
    if _cuda_available():
        names = ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
        table.add_row("CUDA", f"available: {names} (torch CUDA {torch.version.cuda})")
    else:
        table.add_row("CUDA", "not available (CPU judging only)")
    table.add_row("Learner process", _learner_startup_seconds())
    from judge.exercises import models

    table.add_row("Model tiny-qwen3", models.describe("tiny-qwen3"))
    table.add_row("Model SmolLM2", models.describe("smollm2"))
    table.add_row("Sandbox levels", "local: available (a child process with time and memory limits)")
    return table, True


def _strict_layers() -> Group:
    """Each layer of the strict sandbox, active or missing, and whether strict can run here."""
    from judge.sandbox.layers import missing_required, probe

    layers = probe()
    strict = Table(box=None, header_style="bold", title="strict sandbox layers", title_justify="left")
    for heading in ("layer", "state", "detail"):
        strict.add_column(heading)
    for layer in layers:
        state = "[green]active[/]" if layer.active else ("[red]missing[/]" if layer.required else "[yellow]missing[/]")
        strict.add_row(layer.name, state, layer.detail + ("" if layer.required else " (optional)"))
    missing = missing_required(layers)
    verdict = "strict: " + (
        "[green]available[/]"
        if not missing
        else "[red]unavailable[/] (missing: " + ", ".join(layer.name for layer in missing) + ")"
    )
    return Group(strict, verdict)


def _exercises_here() -> Table:
    """Each exercise, the devices it declares and those it can be judged on here."""
    cuda = _cuda_available()
    exercises = Table(box=None, header_style="bold")
    for heading in ("#", "slug", "devices declared", "can judge here"):
        exercises.add_column(heading)
    for exercise in load_all():
        here = [d for d in exercise.devices if d == "cpu" or (d == "cuda" and cuda)]
        exercises.add_row(f"{exercise.number:03d}", exercise.slug, ", ".join(exercise.devices), ", ".join(here) or "-")
    return exercises


def _learner_startup_seconds() -> str:
    from judge.engine.process import LearnerProcess, LoadFailed, ProcessFailed

    exercises = load_all()
    if not exercises:
        return "no exercises to try"
    exercise = exercises[0]
    started = time.monotonic()
    try:
        with LearnerProcess(exercise.starter_path):
            pass
    except (LoadFailed, ProcessFailed) as error:
        return f"[red]failed[/]: {error}"
    return f"starts and imports torch in {time.monotonic() - started:.1f} s"


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def cmd_submit(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    path = Path(args.file)
    if not path.is_file():
        err.print(f"[bold red]error:[/] no file {args.file}")
        return USAGE_ERROR
    try:
        answer = _submit_and_wait(args, path.read_text(encoding="utf-8"))
    except SystemExit as stop:
        err.print(f"[bold red]error:[/] {stop}")
        return USAGE_ERROR
    url = submission_url(args.server, answer["id"])
    code = _show_report(_report_of_answer(answer), args, out, lang, as_json={**answer, "url": url})
    if not args.json:
        out.print(t("submission_url", lang, url=url), markup=False, highlight=False, soft_wrap=True)
    return code


def submission_url(server: str, submission_id: int) -> str:
    """The submission's page on the site the CLI talks to (``--server``, as the learner reaches it)."""
    return f"{server.rstrip('/')}/submissions/{submission_id}"


def _api_call(args: argparse.Namespace, method: str, url: str, body: dict | None = None) -> dict:
    """One request to the server's API; SystemExit with what went wrong (an HTTP error, no server)."""
    import urllib.error
    import urllib.request

    headers = {"Authorization": f"Bearer {args.token}", "Content-Type": "application/json"}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            message = json.loads(error.read()).get("message", error.reason)
        except ValueError:
            message = error.reason
        raise SystemExit(f"server said {error.code}: {message}") from None
    except urllib.error.URLError as error:
        raise SystemExit(f"cannot reach {args.server}: {error.reason}") from None


def _submit_and_wait(args: argparse.Namespace, code: str) -> dict:
    """Submit ``code`` and wait until the server has graded it (SystemExit past ``--timeout``, naming
    the submission's page: it is graded all the same).

    Each GET asks the server to hold its answer until the verdict is in (``?wait=``, at most 20 s,
    under the request's 30 s timeout); a server that answers early (busy, or older) is asked again
    after half a second."""
    base = args.server.rstrip("/") + "/api/v1"
    body: dict = {"exercise": args.exercise, "code": code}
    if "course" in vars(args):
        body["course"] = args.course  # an id, or None (practice); left out, the server chooses
    created = _api_call(args, "POST", f"{base}/submissions", body)
    deadline = time.monotonic() + args.timeout
    while True:
        wait_s = int(max(0.0, min(20.0, deadline - time.monotonic())))
        answer = _api_call(args, "GET", f"{base}/submissions/{created['id']}?wait={wait_s}")
        if answer["status"] == "done":
            return answer
        if time.monotonic() > deadline:
            raise SystemExit(
                f"no verdict after {args.timeout:.0f} s (submission {created['id']} is {answer['status']};"
                f" its page: {submission_url(args.server, created['id'])})"
            )
        time.sleep(0.5)


def _report_of_answer(answer: dict) -> dict:
    """The server's answer in the shape of a report, for the renderer."""
    cases = answer.get("cases") or []
    return {
        **answer,
        "exercise": {"number": answer["exercise"]},
        "score": answer.get("score") or {"passed": 0, "total": len(cases)},
        "seed": answer.get("seed"),
        "device": answer.get("device") or "server",
        "time_ms": answer.get("time_ms") or 0.0,
        "message": answer.get("message") or "",
        "false_failure_budget": answer.get("false_failure_budget") or {},
        "cases": cases,
        "output": "",
    }


COMMANDS = {
    "submit": cmd_submit,
    "list": cmd_list,
    "show": cmd_show,
    "start": cmd_start,
    "test": cmd_test,
    "solution": cmd_solution,
    "check": cmd_check,
    "contract": cmd_contract,
    "new": cmd_new,
    "lanes": cmd_lanes,
    "mutation": cmd_mutation,
    "doctor": cmd_doctor,
}
