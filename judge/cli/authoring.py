"""The commands an exercise's author runs: ``new`` (a scaffold), ``check`` (the catalogue of
solutions), ``contract`` (the statement's sentences and their checks), ``mutation`` and ``lanes``
(the reference's case costs against the declared lane weights)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from judge.cli.common import USAGE_ERROR, relative, require_extras, spinner
from judge.exercises.exercise import WRITE_THE_TEST, load_all, resolve
from judge.extras import require


def cmd_new(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    """Write a small working exercise (judge/authoring/scaffold.py); the command only parses and reports."""
    from judge.authoring.scaffold import new_exercise

    written = new_exercise(args.number, args.slug, title_en=args.title_en, title_zh=args.title_zh, into=args.into)
    out.print(f"wrote {len(written)} files:", markup=False)
    for path in written:
        out.print(f"  {relative(path)}", markup=False)
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


def cmd_check(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    exercises = [resolve(i) for i in args.exercises] if args.exercises else load_all()
    for exercise in exercises:  # all up front: not after minutes of the exercises before it
        require_extras(exercise)
    from judge.authoring.catalogue import check_exercise
    from judge.sandbox.launchers import WarmLocalLauncher

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
    # cosmic-ray is in the `test` extra, not in a learner's install: said before torch loads
    require("test", modules=("cosmic_ray", "parso"), what="extra_mutation")
    from judge.authoring.mutation.judging import DEFAULT_SAMPLE, mutate_exercise
    from judge.authoring.mutation.operators import OPERATORS, operator_named
    from judge.authoring.mutation.tables import markdown_table, report_lines, to_json
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
    # A write-the-test exercise's reference is a statistical test: a mutant of it is another test,
    # which the kind already judges by its rates (its catalogue of wrong tests), at hundreds of runs a
    # mutant. Named, it is refused; in a run over every exercise, it is skipped with a line.
    tests = [e for e in exercises if e.kind == WRITE_THE_TEST]
    for exercise in tests:
        (err if args.exercises else out).print(
            f"{exercise.number:03d} {exercise.slug}: mutation testing does not apply to a write-the-test exercise "
            "(its reference is a test; its wrong tests in solutions/.../wrong/ measure the judging instead; "
            "docs/authoring.md, 'Write-the-test exercises')",
            markup=False,
        )
    if tests and args.exercises:
        return USAGE_ERROR
    exercises = [e for e in exercises if e.kind != WRITE_THE_TEST]
    runs = []
    with WarmLocalLauncher() as launcher:
        for exercise in exercises:
            with spinner(err, f"mutating {exercise.number:03d} {exercise.slug}", enabled=True):
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
        with spinner(err, f"grading the reference {args.warmups + args.runs} times", enabled=not args.json):
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
