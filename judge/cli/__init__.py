"""The local command line (``probjudge``, or ``python practice/judge.py`` from a clone): a thin
front door over the engine. :func:`main` parses (:mod:`judge.cli.parser`) and runs one command;
the commands live by who runs them:

- :mod:`judge.cli.learning`: ``list``, ``show``, ``start``, ``solution`` (a learner reading);
- :mod:`judge.cli.judging`: ``test`` (a learner's file judged here, or in Pyodide);
- :mod:`judge.cli.submit`: ``submit`` (a file sent to a server);
- :mod:`judge.cli.authoring`: ``new``, ``check``, ``contract``, ``mutation``, ``lanes`` (an author);
- :mod:`judge.cli.doctor`: ``doctor`` (what this machine can judge);
- :mod:`judge.cli.common`: what they share (exit codes, the workspace, showing a report).

``test`` shows its progress line before anything slow happens: no module here imports torch nor
the judge's heavier modules at import time (the runner, the checks and the renderer are imported
where they are used), so the learner sees the judge start at once.

May import (the top of ``judge-layers``): every other package of the judge (``judge.browser``,
``judge.authoring``, ``judge.engine``, ``judge.exercises``, ``judge.checks``, ``judge.reports``,
``judge.sandbox``, ``judge.learner``, ``judge.extras``, ``judge.i18n``, ``judge.verdicts``), rich;
never the site.

Imported by: ``practice/judge.py`` and the ``probjudge`` console script only.
"""

from __future__ import annotations

import contextlib
import signal
import threading

from rich.console import Console

from judge.cli.authoring import cmd_check, cmd_contract, cmd_lanes, cmd_mutation, cmd_new
from judge.cli.common import USAGE_ERROR
from judge.cli.doctor import cmd_doctor
from judge.cli.judging import cmd_test
from judge.cli.learning import cmd_list, cmd_show, cmd_solution, cmd_start
from judge.cli.parser import build_parser
from judge.cli.submit import cmd_submit
from judge.exercises.folders import ExerciseError
from judge.extras import MissingExtra
from judge.i18n import default_language

__all__ = ["COMMANDS", "USAGE_ERROR", "build_parser", "main"]


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
    except MissingExtra as error:  # an optional dependency a command needs: say which extra, no traceback
        err.print(error.error_line(lang), style="bold red", markup=False, soft_wrap=True)
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
