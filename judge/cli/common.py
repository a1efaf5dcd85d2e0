"""What the commands of :mod:`judge.cli` share: the exit code of a usage error, the learner's
workspace, how a path and a report are shown, a spinner, whether CUDA is there.

Imports nothing slow (no torch, no runner: see :mod:`judge.cli`); what it shows a report with is
imported when a report is shown.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from judge.exercises.folders import PROJECT_ROOT
from judge.extras import require
from judge.verdicts import Verdict

if TYPE_CHECKING:
    from judge.reports.report import Report

WORKSPACE = PROJECT_ROOT / "practice" / "workspace"
USAGE_ERROR = 2


def workspace_file(folder: str) -> Path:
    """The learner's file for the exercise in ``folder`` (``NNN-slug``): what ``start`` writes and
    ``test`` judges when no file is named."""
    return WORKSPACE / f"{folder}.py"


def relative(path: Path) -> str:
    """``path`` as the learner would type it from here: relative to the working folder when it is
    under it, else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def show_report(
    report: Report | dict, args: argparse.Namespace, out: Console, lang: str, *, as_json: dict | None = None
) -> int:
    """Print ``report`` (a Report or its JSON dict) as JSON (``as_json`` if given) or rendered; exit 0 on AC."""
    data = report if isinstance(report, dict) else report.to_json()
    if args.json:
        print(json.dumps(data if as_json is None else as_json, ensure_ascii=False, indent=2))
    else:
        from judge.reports.render import render_report

        render_report(report, out, lang)
    return 0 if data.get("verdict") == Verdict.AC.value else 1


@contextlib.contextmanager
def spinner(err: Console, text: str, *, enabled: bool) -> Iterator[None]:
    """A spinner with ``text`` on ``err`` (a terminal) while the block runs."""
    if not enabled or not err.is_terminal:
        yield
        return
    with err.status(text):
        yield


def cuda_available() -> bool:
    """Whether torch is installed and sees a CUDA device (imports torch: call it only once the
    command has shown that it started)."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def require_extras(exercise) -> None:
    """Raise :class:`judge.extras.MissingExtra` when the extras ``exercise`` declares for its hidden
    tests are not installed here (exercise 45's real model: ``models``)."""
    for extra in exercise.extras:
        require(extra, what="extra_judging")
