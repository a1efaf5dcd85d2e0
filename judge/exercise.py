"""Exercises on disk: ``exercises/NNN-slug/exercise.toml`` plus statements, starter and tests.

An exercise is named by its number (``39``, ``039``), its slug (``sampling``) or its folder
name (``039-sampling``). Solutions live apart, in ``solutions/NNN-slug/``.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EXERCISES_DIR = PROJECT_ROOT / "exercises"
SOLUTIONS_DIR = PROJECT_ROOT / "solutions"
LANGUAGES = ("en", "zh")
SUITES = ("public", "hidden")  # what the CLI and the server judge
BROWSER_SUITES = ("public", "tiny")  # what the browser may judge: the hidden suite never leaves the server


class ExerciseError(Exception):
    """An exercise folder is malformed, or an exercise id names nothing."""


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
    """What "Run" judges in the browser: public suites and the files they need, never hidden ones."""

    suites: tuple[str, ...]
    files: tuple[str, ...]  # relative to the exercise folder; exercise.toml is always sent
    time_limit_s: float  # for the whole run
    undetectable: dict[str, str]  # known-wrong solution name -> why the tiny sizes cannot catch it


# The wall-clock cap of a test case, as a multiple of its CPU-time limit (established judges use
# 2-3x): a correct solution's wall time stretches by the load of the machine, its CPU time does not.
WALL_FACTOR = 3.0


@dataclass(frozen=True)
class Exercise:
    """One exercise as declared by its ``exercise.toml``."""

    number: int
    slug: str
    titles: dict[str, str]
    difficulty: str
    tags: tuple[str, ...]
    chapter: str
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

    @property
    def wall_cap_s(self) -> float:
        """The wall-clock cap of one test case: for code that sleeps or blocks, never for slow code
        (that is the CPU limit's job, which load on the machine does not change)."""
        return self.wall_limit_s if self.wall_limit_s is not None else WALL_FACTOR * self.time_limit_s

    @property
    def folder(self) -> str:
        return f"{self.number:03d}-{self.slug}"

    @property
    def solutions_root(self) -> Path:
        return SOLUTIONS_DIR / self.folder

    def title(self, lang: str = "en") -> str:
        return self.titles.get(lang) or self.titles["en"]

    def statement(self, lang: str = "en") -> str:
        if lang not in LANGUAGES:
            raise ExerciseError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        return (self.root / f"statement.{lang}.md").read_text(encoding="utf-8")

    @property
    def starter_path(self) -> Path:
        return self.root / "starter.py"

    def suite_path(self, suite: str) -> Path:
        if suite not in SUITES + BROWSER_SUITES:
            raise ExerciseError(f"unknown suite {suite!r}")
        return self.root / "tests" / f"{suite}.py"

    @property
    def reference_path(self) -> Path:
        return self.solutions_root / "reference.py"

    def wrong_solutions(self) -> list[Path]:
        return sorted((self.solutions_root / "wrong").glob("*.py"))

    def correct_solutions(self) -> list[Path]:
        """Correct solutions built differently from the reference (other algorithms): each must pass."""
        return sorted((self.solutions_root / "correct").glob("*.py"))

    def content_hash(self) -> str:
        """SHA-256 over every file of the exercise folder, so a changed exercise is noticed."""
        digest = hashlib.sha256()
        for path in sorted(p for p in self.root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(self.root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
        return digest.hexdigest()

    def summary(self) -> dict:
        """The ``exercise`` object of a report."""
        return {"number": self.number, "slug": self.slug, "title": self.title("en"), "content_hash": self.content_hash()}


def load_exercise(folder: Path) -> Exercise:
    """Parse ``folder/exercise.toml``; raise :class:`ExerciseError` naming the file and field."""
    path = folder / "exercise.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ExerciseError(f"{path}: {exc}") from None
    try:
        functions = tuple(
            FunctionSpec(name, tuple(spec["params"])) for name, spec in data["functions"].items()
        )
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
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ExerciseError(f"{path}: missing or invalid field {exc}") from None
    if exercise.folder != folder.name:
        raise ExerciseError(f"{path}: number/slug say {exercise.folder!r} but the folder is {folder.name!r}")
    for lang in LANGUAGES:
        if lang not in exercise.titles:
            raise ExerciseError(f"{path}: title.{lang} is missing")
    return exercise


def _browser_variant(table: dict | None, path: Path, folder: Path) -> BrowserVariant | None:
    if table is None:
        return None
    suites = tuple(table.get("suites", ("public",)))
    leaked = [s for s in suites if s not in BROWSER_SUITES]
    if leaked:
        raise ExerciseError(f"{path}: browser.suites may hold only {', '.join(BROWSER_SUITES)}; got {leaked}")
    files = tuple(table.get("files", ("tests/__init__.py", *(f"tests/{s}.py" for s in suites))))
    for name in files:
        relative = Path(name)
        if relative.is_absolute() or ".." in relative.parts or not (folder / relative).is_file():
            raise ExerciseError(f"{path}: browser.files: {name!r} is not a file of the exercise")
        if relative.name in ("hidden.py", "oracle.py", "cases.py"):
            raise ExerciseError(f"{path}: browser.files must not send {name!r} to the browser")
    return BrowserVariant(suites, files, float(table.get("time_limit_s", 30.0)),
                          {str(k): str(v) for k, v in table.get("undetectable", {}).items()})


def load_all(exercises_dir: Path = EXERCISES_DIR) -> list[Exercise]:
    """Every exercise, ordered by number."""
    folders = sorted(p for p in exercises_dir.iterdir() if (p / "exercise.toml").is_file())
    return sorted((load_exercise(p) for p in folders), key=lambda e: e.number)


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


def resolve(exercise_id: str, exercises_dir: Path = EXERCISES_DIR) -> Exercise:
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
