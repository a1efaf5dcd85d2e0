"""What the browser (or the Node.js runner) loads into Pyodide: the engine's pure-Python modules
and one exercise's browser files. Built from the source tree on demand, so it never goes stale.

The engine bundle holds only code that is public anyway (the judge's runner, checks, statistics
and the torch subset): the modules :mod:`judge.browser.subset` lists, the one list that
``.importlinter``'s ``browser-subset`` contract checks too. An exercise's files are its
``exercise.toml`` and every file under its ``tests/public/`` folder. The folder decides, not a
list of names: nothing under ``tests/hidden/`` is ever read here, and the solutions live outside
the exercise folder.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from functools import lru_cache
from pathlib import Path

from judge.browser.subset import BROWSER_SUBSET, NOT_SHIPPED
from judge.exercises.exercise import Exercise
from judge.exercises.folders import ExerciseError

JUDGE_ROOT = Path(__file__).resolve().parents[1]
_ZIP_TIME = (2026, 1, 1, 0, 0, 0)  # fixed timestamps: the same sources give the same bytes (and ETag)


def _module_files(name: str) -> list[Path]:
    """The files of module or package ``name`` (``judge.x.y``): a package's whole tree."""
    path = JUDGE_ROOT.parent.joinpath(*name.split("."))
    if path.is_dir():
        return sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
    return [path.with_suffix(".py")]


def _engine_files() -> list[Path]:
    """The judge's files Pyodide loads: :data:`~judge.browser.subset.BROWSER_SUBSET` (less
    ``NOT_SHIPPED``) and the ``__init__.py`` of each package above them, sorted."""
    left_out = {path for name in NOT_SHIPPED for path in _module_files(name)}
    files = {path for name in BROWSER_SUBSET for path in _module_files(name)} - left_out
    for name in BROWSER_SUBSET:
        parts = name.split(".")
        files |= {JUDGE_ROOT.parent.joinpath(*parts[:end], "__init__.py") for end in range(1, len(parts))}
    return sorted(files)


@lru_cache(maxsize=1)
def _engine_bundle(stamp: tuple) -> tuple[bytes, str]:
    del stamp  # part of the cache key only
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in _engine_files():
            info = zipfile.ZipInfo(f"judge/{path.relative_to(JUDGE_ROOT).as_posix()}", _ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    data = buffer.getvalue()
    return data, digest(data)


def _current_bundle() -> tuple[bytes, str]:
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in _engine_files())
    return _engine_bundle(stamp)


def engine_bundle() -> bytes:
    """A zip of ``judge/…`` for Pyodide (rebuilt when a source file changes)."""
    return _current_bundle()[0]


def engine_digest() -> str:
    """The content hash of :func:`engine_bundle` (its ETag and cache-busting version)."""
    return _current_bundle()[1]


def exercise_files(exercise: Exercise) -> dict[str, str]:
    """Relative path → text of what the browser gets of ``exercise``: its exercise.toml and every file
    under ``tests/public/`` (:meth:`Exercise.public_files`), never anything else.

    Raises ``ValueError`` for an exercise without a browser variant, :class:`ExerciseError` for a
    public file that is not UTF-8 text.
    """
    if exercise.browser is None:
        raise ValueError(f"exercise {exercise.number} has no browser variant")
    files = {"exercise.toml": (exercise.root / "exercise.toml").read_text(encoding="utf-8")}
    for path in exercise.public_files():
        try:
            files[path.relative_to(exercise.root).as_posix()] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ExerciseError(f"{path}: the browser receives text files only ({exc})") from None
    return files


def digest(data: bytes | dict[str, str]) -> str:
    """A short content hash (for ETags and cache-busting URLs)."""
    if isinstance(data, dict):
        data = "\0".join(f"{k}\0{v}" for k, v in sorted(data.items())).encode()
    return hashlib.sha256(data).hexdigest()[:16]
