#!/usr/bin/env python3
"""ProbJudge on your own machine: list exercises, read them, start, test, check.

    python practice/judge.py list
    python practice/judge.py show 39 [--lang zh] [--raw]
    python practice/judge.py start 39
    python practice/judge.py test 39 [FILE] [--public-only] [--seed N] [--device cpu|cuda] [--json]
    python practice/judge.py solution 39 [--yes]
    python practice/judge.py check [IDS ...] [--lane-runs N]
    python practice/judge.py lanes 39 [--runs N] [--lanes N] [--tolerance RATIO] [--json]
    python practice/judge.py mutation [IDS ...] [--sample N|all] [--strict] [--json PATH] [--markdown PATH]
    python practice/judge.py doctor

``show`` and ``solution`` write formulas as Unicode text and wrap long lines; ``test`` shows its
progress at once, prints each distinct error once, and after ``--public-only`` says what it skipped.

Exit status: ``test`` exits 0 only when the verdict is AC (1 otherwise); ``check`` exits 0 when
every reference passes, every starter fails naming no mistake and every known-wrong solution fails
with its headline diagnosis, on the server's suites and the browser's (the lanes' imbalance it
prints is advice, never a failure); ``lanes`` exits 1 only with ``--tolerance``, when
the declared lane weights leave the lanes further apart than it; ``mutation`` exits 1 for a stale
or killed entry of a ``mutants.toml`` (for a survivor too with ``--strict``); 2 means the
command itself was used wrongly (unknown exercise, missing file, ...).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# From a clone, without `pip install`: the project this script sits in. (Installed, the same
# commands are `probjudge ...`.)
PROJECT_ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
# The project's package folders: on sys.path themselves, their modules (judge/checks/numbers.py) would
# shadow the standard library's.
PACKAGE_FOLDERS = (PROJECT_ROOT / "judge", PROJECT_ROOT / "web")


def _resolved(entry: str) -> Path | None:
    try:
        return Path(entry or ".").resolve()
    except OSError:
        return None


def _inside(where: Path, folder: Path) -> bool:
    return where == folder or folder in where.parents


def judge_path(path: list[str], pythonpath: str) -> list[str]:
    """``path`` (``sys.path``) as the judge needs it: the project first; then the interpreter's
    own entries (standard library, site-packages); then what ``PYTHONPATH`` added, last, so that
    nothing on it (a learner's random.py, an impostor judge) shadows a module the judge imports;
    without this script's folder (it holds this very file, judge.py, which would shadow the judge
    package), the project again, or a folder inside the project's packages."""
    # An empty entry (PYTHONPATH=":/x", as `export PYTHONPATH=$PYTHONPATH:/x` makes) is the
    # working folder to Python: it goes last too, or a random.py there would shadow the stdlib.
    from_env = {_resolved(entry) for entry in pythonpath.split(os.pathsep)} if pythonpath else set()
    own, added = [], []
    for entry in path:
        where = _resolved(entry)
        if where is None or where in (HERE, PROJECT_ROOT) or any(_inside(where, f) for f in PACKAGE_FOLDERS):
            continue
        (added if where in from_env else own).append(entry)
    return [str(PROJECT_ROOT), *own, *added]


sys.path[:] = judge_path(sys.path, os.environ.get("PYTHONPATH", ""))

from judge.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
