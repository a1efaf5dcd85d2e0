"""Where the repository's exercises live, and the error every loader of an exercise raises.

The smallest piece of :mod:`judge.exercises`: :mod:`~judge.exercises.exercise` (an exercise's
folder), :mod:`~judge.exercises.chapters` (the pack's ``chapters.toml``, whose default is the
repository's) and :mod:`~judge.exercises.patches` (wrong solutions as patches) all build on it
and import nothing of one another through it.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
EXERCISES_DIR = PROJECT_ROOT / "exercises"  # the repository's pack, the default one


class ExerciseError(Exception):
    """An exercise folder is malformed, or an exercise id names nothing."""
