#!/usr/bin/env python3
"""ProbJudge on your own machine: list exercises, read them, start, test, check.

    python practice/judge.py list
    python practice/judge.py show 39 [--lang zh] [--raw]
    python practice/judge.py start 39
    python practice/judge.py test 39 [FILE] [--public-only] [--seed N] [--device cpu|cuda] [--json]
    python practice/judge.py solution 39
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

import sys
from pathlib import Path

# From a clone, without `pip install`: the project this script sits in. (Installed, the same
# commands are `probjudge ...`.)
PROJECT_ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


def _same_folder(entry: str, folder: Path) -> bool:
    try:
        return Path(entry or ".").resolve() == folder
    except OSError:
        return False


# This script's folder (first on sys.path, and maybe on PYTHONPATH too) holds this very file,
# judge.py, which would shadow the judge package; any other judge on PYTHONPATH must not win either.
sys.path[:] = [entry for entry in sys.path if not _same_folder(entry, HERE) and not _same_folder(entry, PROJECT_ROOT)]
sys.path.insert(0, str(PROJECT_ROOT))

from judge.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
