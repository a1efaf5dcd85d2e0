"""The test suites of an exercise: ``tests/{public,hidden}/<suite>.py`` imported as a package, its
``test_*`` cases.

A suite is a module of test functions (``test_<name>(submission, ctx)``) whose docstring's first
line is the case's English title and a ``zh:`` line its Chinese one, plus an optional ``BUDGET``
(:class:`~judge.checks.budget.BudgetDeclaration`) and an optional ``prepare()``: the judge's own slow
set-up (loading a model, building cached cases), which the runner calls once before the suite's
first case, outside every case's clock, so that no case's wall clock depends on it. The suites
run in the judge's process, never next to learner code.

``tests/`` is imported as a synthetic package whose name is unique to the exercise's folder and
content (:func:`suites_package`), with ``public`` and ``hidden`` as its subpackages: a hidden module
imports a public one as ``from ..public.diagnoses import MISTAKES``. Two packs' exercises with the
same number never share modules. The modules stay imported for the life of the process, and with
them what they cache (frozen cases, exact targets: ``functools.cache`` in the suites), so a warm
grader builds none of it again; an edited exercise has another content hash, so its next grading
imports it afresh (and the old modules are dropped) instead of judging with stale cases. A public
module that imports from ``hidden/`` is refused when the package is first imported
(:func:`judge.exercises.exercise.public_import_problems`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from judge.checks.budget import BudgetDeclaration
from judge.checks.testing import LANE_WEIGHT_ATTRIBUTE, Context, Submission, valid_lane_weight
from judge.exercises.exercise import SUITE_FOLDERS, Exercise, public_import_problems
from judge.exercises.folders import ExerciseError
from judge.reports.report import HIDDEN, PUBLIC


@dataclass(frozen=True)
class CaseSpec:
    """One test function of a suite."""

    suite: str
    name: str
    title: str
    title_zh: str
    function: Callable[[Submission, Context], None]
    weight: float = 1.0  # its share of a grading's work, for balancing lanes (judge.checks.testing.lane_weight)


@dataclass(frozen=True)
class Suite:
    name: str
    cases: tuple[CaseSpec, ...]
    budget: BudgetDeclaration
    prepare: Callable[[], None] | None = None  # the suite's set-up, run before its first case


def load_suite(exercise: Exercise, suite: str, *, content_hash: str | None = None) -> Suite:
    """Import ``tests/public/<suite>.py`` or ``tests/hidden/<suite>.py`` of ``exercise`` (as a package,
    so it may import its siblings, and a hidden suite the public modules).

    ``content_hash``: :meth:`~judge.exercises.exercise.Exercise.content_hash`, when the caller has just taken
    it (a grading takes it once, for its report and each of its suites); None takes it here."""
    module = _import_tests_module(exercise, suite, content_hash)
    cases = []
    for name, value in vars(module).items():
        if name.startswith("test_") and callable(value) and getattr(value, "__module__", None) == module.__name__:
            title, title_zh = _titles(value.__doc__, name)
            weight = getattr(value, LANE_WEIGHT_ATTRIBUTE, 1.0)
            if not valid_lane_weight(weight):
                raise TypeError(f"{exercise.suite_path(suite)}: {name}'s lane weight must be a finite number above 0")
            cases.append(CaseSpec(suite, name.removeprefix("test_"), title, title_zh, value, weight))
    budget = getattr(module, "BUDGET", BudgetDeclaration())
    if not isinstance(budget, BudgetDeclaration):
        raise TypeError(f"{exercise.suite_path(suite)}: BUDGET must be a judge.checks.budget.BudgetDeclaration")
    prepare = getattr(module, "prepare", None)
    if prepare is not None and not callable(prepare):
        raise TypeError(f"{exercise.suite_path(suite)}: prepare must be a function of no arguments")
    return Suite(suite, tuple(cases), budget, prepare)


def _titles(docstring: str | None, name: str) -> tuple[str, str]:
    """English title from the docstring's first line, Chinese from a ``zh:`` line (else the English)."""
    lines = [line.strip() for line in (docstring or "").strip().splitlines()]
    title = lines[0] if lines and lines[0] else name.removeprefix("test_").replace("_", " ")
    title_zh = next((line[3:].strip() for line in lines if line.startswith("zh:")), title)
    return title, title_zh


def suites_package(exercise: Exercise, content_hash: str | None = None) -> str:
    """The module name of ``exercise``'s ``tests/`` package: its number and a hash of its folder
    and of its content (:meth:`~judge.exercises.exercise.Exercise.content_hash`, taken here unless given)."""
    folder = os.path.abspath(exercise.root)
    digest = exercise.content_hash() if content_hash is None else content_hash
    where = hashlib.sha256(f"{folder}\0{digest}".encode()).hexdigest()[:12]
    return f"_probjudge_tests_{exercise.number:03d}_{where}"


_IMPORTED: dict[str, str] = {}  # an exercise's folder -> the name of its suites package in sys.modules
# Held while a suites package or module is looked up or imported. A module enters sys.modules before
# its body runs: without the lock a second grading thread (a site's two workers starting on one
# exercise) would take a half-executed suite and run only the cases defined so far. Reentrant: a
# suite's body may itself ask for a module of its exercise.
_IMPORT_LOCK = threading.RLock()


def _forget_older_content(folder: str, package: str) -> None:
    """Drop the modules of ``folder``'s previous content when ``package`` (its current one) replaces
    it: an exercise edited many times under a long-running site keeps one copy, not one per edit.
    A grading still running on the old modules keeps its references and finishes with them."""
    previous = _IMPORTED.get(folder)
    _IMPORTED[folder] = package
    if previous is None or previous == package:
        return
    for name in [m for m in sys.modules if m == previous or m.startswith(previous + ".")]:
        sys.modules.pop(name, None)


def suites_module(exercise: Exercise, name: str) -> ModuleType:
    """A module of ``exercise``'s tests by its dotted name under ``tests/`` (``"hidden.oracle"``),
    imported as the suites import it (the same module object, the same caches)."""
    with _IMPORT_LOCK:
        return importlib.import_module(f"{_ensure_packages(exercise)}.{name}")


def import_solution(path: Path, name: str | None = None) -> ModuleType:
    """A trusted solution file (a reference, a ``correct/`` or ``wrong/`` file, an expanded patch)
    imported as a module, for the judge's own tools: exercises' tests, benchmarks, oracles. Never a
    learner's file: that runs only in the learner's process. ``name`` defaults to one made from the
    path; the module is not added to ``sys.modules``. Raises what importing the file raises."""
    path = Path(path)
    module_name = name or f"_probjudge_solution_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ExerciseError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ensure_packages(exercise: Exercise, content_hash: str | None = None) -> str:
    package = suites_package(exercise, content_hash)
    if package not in sys.modules:
        _forget_older_content(os.path.abspath(exercise.root), package)
        problems = public_import_problems(exercise)
        if problems:
            raise ExerciseError("; ".join(problems))
        _package(package, exercise.tests_dir)
    for folder in (PUBLIC, HIDDEN):
        if f"{package}.{folder}" not in sys.modules and (exercise.tests_dir / folder).is_dir():
            _package(f"{package}.{folder}", exercise.tests_dir / folder)
    return package


def _package(name: str, folder) -> None:
    """A package module for ``folder``: its ``__init__.py`` when it has one (optional), else empty."""
    init = folder / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    else:
        spec = importlib.util.spec_from_loader(name, loader=None, is_package=True)
        assert spec is not None  # from a name alone: never None
        spec.submodule_search_locations = [str(folder)]
    assert spec is not None  # from a path ending in .py: never None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if spec.loader is not None:
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise


def _import_tests_module(exercise: Exercise, suite: str, content_hash: str | None = None) -> ModuleType:
    """The suite's module, imported whole (see ``_IMPORT_LOCK``)."""
    with _IMPORT_LOCK:
        return _import_tests_module_locked(exercise, suite, content_hash)


def _import_tests_module_locked(exercise: Exercise, suite: str, content_hash: str | None = None) -> ModuleType:
    path = exercise.suite_path(suite)  # an unknown suite is an ExerciseError
    package = _ensure_packages(exercise, content_hash)
    name = f"{package}.{SUITE_FOLDERS[suite]}.{suite}"
    if name not in sys.modules:
        if not path.is_file():
            raise ExerciseError(f"{exercise.folder}: the {suite} suite needs {path.relative_to(exercise.root)}")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None  # a path ending in .py has a source loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]
