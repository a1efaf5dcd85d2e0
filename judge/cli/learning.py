"""The commands a learner reads with: ``list``, ``show``, ``start`` and ``solution``."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from judge.cli.common import USAGE_ERROR, relative, workspace_file
from judge.exercises.exercise import load_all, resolve
from judge.i18n import t


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
    shown = relative(target)
    if target.exists():
        out.print(t("exists", lang, path=shown))
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    from judge.exercises.starters import starter_text

    target.write_text(starter_text(exercise, lang, "cli"), encoding="utf-8")  # its hints in the CLI's language
    out.print(t("started", lang, path=shown, id=exercise.number))
    return 0


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
