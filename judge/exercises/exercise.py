"""Exercises on disk: ``exercises/NNN-slug/exercise.toml`` plus statements, starter and tests.

An exercise is named by its number (``39``, ``039``), its slug (``sampling``) or its folder
name (``039-sampling``).

The tests of an exercise are split by trust, and the folder decides (docs/authoring.md):

    tests/public/   what a learner and the browser may receive: public.py, tiny.py, their helpers
    tests/hidden/   what never leaves the judge: hidden.py and its helpers (oracle, frozen cases)

Modules under ``hidden/`` may import public ones (``from ..public.x import y``), never the
reverse (:func:`public_import_problems`). The browser receives ``exercise.toml`` and every file
under ``tests/public/``: a file added under ``hidden/`` cannot leak by its name.

Exercises come in packs: a pack is a folder laid out like the repository's ``exercises/``, and
its solutions live in the ``solutions/`` folder beside it (``<pack>/../solutions/NNN-slug/``).
``PROBJUDGE_EXERCISES`` lists the packs (``os.pathsep``-separated); unset, the one pack is the
repository's ``exercises/``. A course keeps its private exercises, their hidden tests and
references, in a pack outside the repository.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from judge.exercises.chapters import ChaptersError, chapters_file, load_chapters, place
from judge.exercises.folders import EXERCISES_DIR, PROJECT_ROOT, ExerciseError
from judge.exercises.patches import PATCH_SUFFIX, expanded_path
from judge.exercises.probes import Probes, parse_probes
from judge.extras import EXTRAS
from judge.reports.report import HIDDEN, PUBLIC  # the two folders under tests/

SOLUTIONS_DIR = PROJECT_ROOT / "solutions"  # its solutions (a pack's solutions: the folder beside it)
PACKS_VARIABLE = "PROBJUDGE_EXERCISES"
LANGUAGES = ("en", "zh")
SUITES = ("public", "hidden")  # what the CLI and the server judge
BROWSER_SUITES = ("public", "tiny")  # what the browser may judge: the hidden suite never leaves the server

SUITE_FOLDERS = {"public": PUBLIC, "tiny": PUBLIC, "hidden": HIDDEN}  # where each suite's module lives
_NOT_SENT = ("__pycache__",)  # never part of tests/public/'s files (bytecode of the judge's own imports)


@dataclass(frozen=True)
class FunctionSpec:
    """A function the learner must define, with the parameter names the tests pass."""

    name: str
    params: tuple[str, ...]

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


@dataclass(frozen=True)
class BrowserVariant:
    """What "Run" judges in the browser: suites under ``tests/public/`` (it receives that folder only)."""

    suites: tuple[str, ...]
    time_limit_s: float  # for the whole run
    undetectable: dict[str, str]  # known-wrong solution name -> why the tiny sizes cannot catch it
    # Known-wrong solution name -> why the browser's torch subset cannot catch it where real torch,
    # on the same tiny suites, does (the subset's float32 sum() is correctly rounded, torch's is not).
    subset_undetectable: dict[str, str] = field(default_factory=dict)

    @property
    def passing(self) -> dict[str, str]:
        """Every known-wrong solution the browser lets through, with why: both lists."""
        return {**self.undetectable, **self.subset_undetectable}


# The wall-clock cap of a test case, as a multiple of its CPU-time limit (established judges use
# 2-3x): a correct solution's wall time stretches by the load of the machine, its CPU time does not.
WALL_FACTOR = 3.0
WRITE_THE_TEST = "write-the-test"  # the learner writes a statistical test (judge.exercises.write_the_test)
EXERCISE_KINDS = ("function", WRITE_THE_TEST)


@dataclass(frozen=True)
class Exercise:
    """One exercise as declared by its ``exercise.toml``."""

    number: int
    slug: str
    titles: dict[str, str]
    difficulty: str
    tags: tuple[str, ...]
    chapter: str  # the chapter's id or English title (see judge.exercises.chapters)
    functions: tuple[FunctionSpec, ...]
    time_limit_s: float  # the learner's CPU time for one test case (the judge's own work never counts)
    memory_limit_mb: int
    devices: tuple[str, ...]
    runs_in: tuple[str, ...]  # "local", "server", "browser"
    false_failure_budget: float
    root: Path = field(compare=False)
    browser: BrowserVariant | None = None
    wall_limit_s: float | None = None  # wall clock for one test case; None: WALL_FACTOR x time_limit_s
    inputs_read_only: bool = True  # a call that changes its tensor arguments in place fails
    section: str = ""  # the id of the chapter's section the exercise belongs to (judge.exercises.chapters)
    # The optional dependencies (judge/extras.py: "models"...) its hidden tests import: the CLI and
    # the autograder say which to install before judging, instead of failing inside the judge.
    extras: tuple[str, ...] = ()
    # The calls that fingerprint a submission's draws ([similarity]; judge.exercises.probes).
    similarity: Probes = field(default_factory=Probes, compare=False)
    # "function" (the learner writes the functions the tests call) or "write-the-test" (the learner
    # writes a statistical test the judge measures: [write_the_test], judge.exercises.write_the_test).
    kind: str = "function"

    @property
    def wall_cap_s(self) -> float:
        """The wall-clock cap of one test case's learner calls, together: for code that sleeps or
        blocks, never for slow code (that is the CPU limit's job, which load on the machine does not
        change). The judge's own work between the calls is not charged to it."""
        return self.wall_limit_s if self.wall_limit_s is not None else WALL_FACTOR * self.time_limit_s

    @property
    def folder(self) -> str:
        return f"{self.number:03d}-{self.slug}"

    @property
    def pack(self) -> Path:
        """The folder of exercises this one belongs to."""
        return Path(os.path.abspath(self.root)).parent

    @property
    def solutions_root(self) -> Path:
        """``solutions/NNN-slug/`` in the ``solutions/`` folder beside the exercise's pack."""
        return self.pack.parent / "solutions" / self.folder

    def title(self, lang: str = "en") -> str:
        return self.titles.get(lang) or self.titles["en"]

    def statement(self, lang: str = "en") -> str:
        if lang not in LANGUAGES:
            raise ExerciseError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        return (self.root / f"statement.{lang}.md").read_text(encoding="utf-8")

    @property
    def starter_path(self) -> Path:
        return self.root / "starter.py"

    @property
    def tests_dir(self) -> Path:
        return self.root / "tests"

    @property
    def public_dir(self) -> Path:
        """``tests/public/``: everything here may reach the learner and the browser."""
        return self.tests_dir / PUBLIC

    @property
    def hidden_dir(self) -> Path:
        """``tests/hidden/``: nothing here ever leaves the judge's process."""
        return self.tests_dir / HIDDEN

    def suite_path(self, suite: str) -> Path:
        if suite not in SUITE_FOLDERS:
            raise ExerciseError(f"unknown suite {suite!r}")
        return self.tests_dir / SUITE_FOLDERS[suite] / f"{suite}.py"

    def public_files(self) -> list[Path]:
        """Every file under ``tests/public/`` (sorted): what the browser receives besides exercise.toml.

        A link is refused (:class:`ExerciseError`): it could point into ``hidden/`` or anywhere.
        """
        found = []
        for path in sorted(self.public_dir.rglob("*")):
            relative = path.relative_to(self.public_dir)
            if any(part in _NOT_SENT for part in relative.parts):
                continue
            if path.is_symlink():
                raise ExerciseError(f"{path}: a link under tests/public/ is refused (it could lead out of it)")
            if path.is_file():
                found.append(path)
        return found

    @property
    def reference_path(self) -> Path:
        return self.solutions_root / "reference.py"

    def wrong_solution_files(self) -> list[Path]:
        """The catalogue of known-wrong solutions as written: ``wrong/*.py`` and ``wrong/*.patch``
        (patches against the reference, :mod:`judge.exercises.patches`), sorted by name. Two files of one name
        are an :class:`ExerciseError`."""
        return self._solution_files("wrong")

    def wrong_solutions(self) -> list[Path]:
        """Each known-wrong solution as a Python file to judge or import, sorted by name: a ``.py`` as it
        is, a ``.patch`` expanded against the reference (:func:`judge.exercises.patches.expanded_path`; raises
        :class:`~judge.exercises.patches.StalePatch`, an :class:`ExerciseError`, when one no longer applies)."""
        return self._expanded(self.wrong_solution_files())

    def correct_solution_files(self) -> list[Path]:
        """Correct solutions built differently from the reference, as written: ``correct/*.py`` (another
        algorithm) and ``correct/*.patch`` (the reference with one part done another way), sorted by name."""
        return self._solution_files("correct")

    def correct_solutions(self) -> list[Path]:
        """Each correct solution other than the reference as a Python file (patches expanded as in
        :meth:`wrong_solutions`): each must pass."""
        return self._expanded(self.correct_solution_files())

    def _solution_files(self, folder: str) -> list[Path]:
        files = sorted(
            (p for p in (self.solutions_root / folder).glob("*") if p.suffix in (".py", PATCH_SUFFIX) and p.is_file()),
            key=lambda p: (p.stem, p.suffix),
        )
        twice = sorted({a.stem for a, b in itertools.pairwise(files) if a.stem == b.stem})
        if twice:
            raise ExerciseError(f"{self.solutions_root / folder}: {', '.join(twice)} is both a .py and a .patch")
        return files

    def _expanded(self, files: list[Path]) -> list[Path]:
        return [expanded_path(path, self.reference_path) if path.suffix == PATCH_SUFFIX else path for path in files]

    def content_hash(self) -> str:
        """SHA-256 over every file of the exercise folder, so a changed exercise is noticed."""
        digest = hashlib.sha256()
        for path in sorted(p for p in self.root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(self.root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
        return digest.hexdigest()

    def summary(self, content_hash: str | None = None) -> dict:
        """The ``exercise`` object of a report (``content_hash``: :meth:`content_hash`, taken here unless given)."""
        return {
            "number": self.number,
            "slug": self.slug,
            "title": self.title("en"),
            "content_hash": self.content_hash() if content_hash is None else content_hash,
        }


def load_exercise(folder: Path) -> Exercise:
    """Parse ``folder/exercise.toml``; raise :class:`ExerciseError` naming the file and field.

    Parsed once per process while the file holds the same bytes: a site resolves the exercise of
    every grading, and parsing every pack's TOML each time cost milliseconds a grading. The key is
    the content, not the file's size and time (an edit can keep both: a copy or archive that sets
    the time, a coarse clock). What the parse checks beyond the file (the ``tests/`` layout) is
    checked on every load.
    """
    path = folder / "exercise.toml"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ExerciseError(f"{path}: {exc}") from None
    exercise = _parsed_exercise(folder, raw)
    _check_tests_layout(folder)  # a file strayed into tests/ leaves exercise.toml as it was
    return exercise


@lru_cache(maxsize=512)
def _parsed_exercise(folder: Path, raw: bytes) -> Exercise:
    """:func:`load_exercise`'s work on the bytes of ``folder/exercise.toml``."""
    path = folder / "exercise.toml"
    try:
        # Newlines as read_text() gives them (universal newlines), as before the cache.
        data = tomllib.loads(raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n"))
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(f"{path}: {exc}") from None
    try:
        functions = tuple(FunctionSpec(name, tuple(spec["params"])) for name, spec in data["functions"].items())
        judging = data.get("judging", {})
        exercise = Exercise(
            number=int(data["number"]),
            slug=str(data["slug"]),
            titles=dict(data["title"]),
            difficulty=str(data["difficulty"]),
            tags=tuple(data.get("tags", ())),
            chapter=str(data.get("chapter", "")),
            functions=functions,
            time_limit_s=float(judging.get("time_limit_s", 10.0)),
            memory_limit_mb=int(judging.get("memory_limit_mb", 4096)),
            devices=tuple(judging.get("devices", ("cpu",))),
            runs_in=tuple(data.get("runs_in", ("local", "server"))),
            false_failure_budget=float(judging.get("false_failure_budget", 1e-6)),
            root=folder,
            browser=_browser_variant(data.get("browser"), path, folder),
            wall_limit_s=float(judging["wall_limit_s"]) if "wall_limit_s" in judging else None,
            inputs_read_only=bool(judging.get("inputs_read_only", True)),
            section=str(data.get("section", "")),
            extras=tuple(str(name) for name in judging.get("extras", ())),
            similarity=parse_probes(data.get("similarity"), {f.name: f.params for f in functions}, path),
            kind=str(data.get("kind", "function")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ExerciseError(f"{path}: missing or invalid field {exc}") from None
    _check_tests_layout(folder)
    if exercise.folder != folder.name:
        raise ExerciseError(f"{path}: number/slug say {exercise.folder!r} but the folder is {folder.name!r}")
    for lang in LANGUAGES:
        if lang not in exercise.titles:
            raise ExerciseError(f"{path}: title.{lang} is missing")
    if exercise.kind not in EXERCISE_KINDS:
        raise ExerciseError(f"{path}: kind {exercise.kind!r} is not one of {', '.join(EXERCISE_KINDS)}")
    if (exercise.kind == WRITE_THE_TEST) != ("write_the_test" in data):
        raise ExerciseError(f"{path}: a [write_the_test] table goes with kind = {WRITE_THE_TEST!r}, and only with it")
    unknown = [name for name in exercise.extras if name not in EXTRAS]
    if unknown:
        raise ExerciseError(f"{path}: judging.extras names {', '.join(unknown)}; the extras are {', '.join(EXTRAS)}")
    _check_place(exercise, path)
    return exercise


def _check_place(exercise: Exercise, path: Path) -> None:
    """A ``section`` must be one of its chapter's, as the ``chapters.toml`` that places the pack's
    exercises lists them (the pack's own, else the repository's: :func:`judge.exercises.chapters.chapters_file`)."""
    try:
        chapters = load_chapters(exercise.pack)
    except ChaptersError as exc:
        raise ExerciseError(str(exc)) from None
    if not exercise.section or not chapters:  # none at all: the browser, which is sent no chapters.toml
        return
    chapter, section = place(exercise, chapters)
    if chapter is None:
        known = ", ".join(repr(c.id) for c in chapters)
        raise ExerciseError(f"{path}: chapter {exercise.chapter!r} is not in {chapters_file(exercise.pack)} ({known})")
    if section is None:
        known = ", ".join(repr(s.id) for s in chapter.sections)
        raise ExerciseError(
            f"{path}: section {exercise.section!r} is not a section of {chapter.id!r}; choose one of {known} "
            f"(as {chapters_file(exercise.pack)} lists them)"
        )


def _browser_variant(table: dict | None, path: Path, folder: Path) -> BrowserVariant | None:
    if table is None:
        return None
    suites = tuple(table.get("suites", ("public",)))
    leaked = [s for s in suites if s not in BROWSER_SUITES]
    if leaked:
        raise ExerciseError(f"{path}: browser.suites may hold only {', '.join(BROWSER_SUITES)}; got {leaked}")
    if "files" in table:
        raise ExerciseError(
            f"{path}: browser.files is not read any more: the browser receives every file "
            f"under tests/{PUBLIC}/ and nothing else; remove the list"
        )
    for suite in suites:
        if not (folder / "tests" / PUBLIC / f"{suite}.py").is_file():
            raise ExerciseError(f"{path}: browser suite {suite!r} needs tests/{PUBLIC}/{suite}.py")
    return BrowserVariant(
        suites,
        float(table.get("time_limit_s", 30.0)),
        {str(k): str(v) for k, v in table.get("undetectable", {}).items()},
        {str(k): str(v) for k, v in table.get("subset_undetectable", {}).items()},
    )


def _check_tests_layout(folder: Path) -> None:
    """``tests/`` holds the two trust folders and nothing else: every test file says where it may go."""
    tests = folder / "tests"
    if not tests.is_dir():
        return  # an exercise without tests yet: loading a suite says what is missing
    strays = sorted(p.name for p in tests.iterdir() if p.name not in (PUBLIC, HIDDEN, *_NOT_SENT))
    if strays:
        raise ExerciseError(
            f"{tests}: holds only {PUBLIC}/ (a learner and the browser may see it) and {HIDDEN}/ "
            f"(never leaves the judge); move {', '.join(strays)} into one of them"
        )


def public_import_problems(exercise: Exercise) -> list[str]:
    """Imports in ``tests/public/`` that reach into ``tests/hidden/`` (or the judge's package of the
    tests by name): public modules must work where hidden ones are absent, the browser. [] when none.

    Hidden modules may import public ones (``from ..public.diagnoses import MISTAKES``).
    """
    problems = []
    for path in exercise.public_files():
        if path.suffix != ".py":
            continue
        package = path.parent.relative_to(exercise.tests_dir).parts  # ("public", ...) for tests/public/...
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
            problems.append(f"{path}: {exc}")
            continue
        shown = path.relative_to(exercise.root).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[: len(package) - (node.level - 1)] if node.level - 1 <= len(package) else None
                target = None if base is None else (*base, *(node.module.split(".") if node.module else ()))
                names = [alias.name for alias in node.names]
                if target is None or target[:1] == (HIDDEN,) or (target == () and HIDDEN in names):
                    problems.append(
                        f"{shown}:{node.lineno}: a public module imports from tests/{HIDDEN}/ "
                        "(only the reverse is allowed)"
                    )
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(m.startswith("_probjudge_tests") for m in modules):
                    problems.append(
                        f"{shown}:{node.lineno}: import the exercise's own modules relatively "
                        f"(from .x import y), never by the judge's package name"
                    )
    return problems


def exercise_dirs() -> list[Path]:
    """The packs to read: ``PROBJUDGE_EXERCISES`` (folders separated by ``os.pathsep``), else the
    repository's ``exercises/``. A listed folder that does not exist is an :class:`ExerciseError`."""
    raw = os.environ.get(PACKS_VARIABLE, "")
    entries = [entry.strip() for entry in raw.split(os.pathsep) if entry.strip()]
    if not entries:
        return [EXERCISES_DIR]
    dirs: list[Path] = []
    for entry in entries:
        folder = Path(entry).expanduser()
        if not folder.is_dir():
            raise ExerciseError(
                f"{PACKS_VARIABLE}: {entry!r} is not a folder (it lists folders of exercises, "
                f"separated by {os.pathsep!r})"
            )
        folder = Path(os.path.abspath(folder))
        if folder not in dirs:
            dirs.append(folder)
    return dirs


def _packs(exercises_dir: Path | str | Iterable[Path | str] | None) -> list[Path]:
    if exercises_dir is None:
        return exercise_dirs()
    if isinstance(exercises_dir, (str, os.PathLike)):
        return [Path(exercises_dir)]
    return [Path(folder) for folder in exercises_dir]


def load_all(exercises_dir: Path | str | Iterable[Path | str] | None = None) -> list[Exercise]:
    """Every exercise of the packs, ordered by number: ``exercises_dir`` (one folder or several),
    else the configured packs (:func:`exercise_dirs`).

    Two exercises with the same number or slug are an :class:`ExerciseError` naming both folders.
    """
    exercises: list[Exercise] = []
    by_number: dict[int, Exercise] = {}
    by_slug: dict[str, Exercise] = {}
    for pack in _packs(exercises_dir):
        if not pack.is_dir():
            raise ExerciseError(f"{pack}: no such folder of exercises")
        for folder in sorted(p for p in pack.iterdir() if (p / "exercise.toml").is_file()):
            exercise = load_exercise(folder)
            keys: tuple[tuple[Any, dict[Any, Exercise], str], ...] = (
                (exercise.number, by_number, "number"),
                (exercise.slug, by_slug, "slug"),
            )
            for key, seen, what in keys:
                other = seen.setdefault(key, exercise)
                if other is not exercise:
                    raise ExerciseError(
                        f"two exercises declare {what} {key!r}: {other.root} and {exercise.root}; "
                        "numbers and slugs must be unique across all packs"
                    )
            exercises.append(exercise)
    return sorted(exercises, key=lambda e: e.number)


# Exercise numbers have three digits; a longer run of digits names nothing (and int() of
# thousands of digits is slow, then refused by Python's conversion limit).
MAX_NUMBER_DIGITS = 6


def _exercise_number(wanted: str, exercise_id: object) -> int | None:
    """``wanted`` as an exercise number; None when it is not one (a slug or a folder name).

    Only ASCII digits count: ``str.isdigit`` also accepts "²" or "٣", which ``int()`` refuses
    or reads as another number. Raises :class:`ExerciseError` for such strings and for runs of
    digits longer than :data:`MAX_NUMBER_DIGITS`.
    """
    if not wanted.isdigit():
        return None
    if not wanted.isascii() or len(wanted) > MAX_NUMBER_DIGITS:
        shown = str(exercise_id)
        shown = shown if len(shown) <= 20 else shown[:20] + "…"
        raise ExerciseError(f"no exercise {shown!r}: an exercise number is 1 to {MAX_NUMBER_DIGITS} digits 0-9")
    return int(wanted)


def resolve(exercise_id: str, exercises_dir: Path | str | Iterable[Path | str] | None = None) -> Exercise:
    """Find an exercise by number, slug or folder name; raise :class:`ExerciseError` with the choices."""
    wanted = str(exercise_id).strip().lower()
    number = _exercise_number(wanted, exercise_id)
    exercises = load_all(exercises_dir)
    for exercise in exercises:
        if number is not None and number == exercise.number:
            return exercise
        if wanted in (exercise.slug, exercise.folder):
            return exercise
    known = ", ".join(f"{e.number} ({e.slug})" for e in exercises)
    raise ExerciseError(f"no exercise {exercise_id!r}; known exercises: {known}")
