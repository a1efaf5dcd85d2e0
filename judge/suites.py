"""The test suites of an exercise: ``tests/<suite>.py`` imported as a package, its ``test_*`` cases.

A suite is a module of test functions (``test_<name>(submission, ctx)``) whose docstring's first
line is the case's English title and a ``zh:`` line its Chinese one, plus an optional ``BUDGET``
(:class:`~judge.budget.BudgetDeclaration`). The suites run in the judge's process, never next to
learner code.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Callable

from judge.budget import BudgetDeclaration
from judge.exercise import Exercise
from judge.testing import Context, Submission


@dataclass(frozen=True)
class CaseSpec:
    """One test function of a suite."""

    suite: str
    name: str
    title: str
    title_zh: str
    function: Callable[[Submission, Context], None]


@dataclass(frozen=True)
class Suite:
    name: str
    cases: tuple[CaseSpec, ...]
    budget: BudgetDeclaration


def load_suite(exercise: Exercise, suite: str) -> Suite:
    """Import ``tests/<suite>.py`` of ``exercise`` (as a package, so it may import its siblings)."""
    module = _import_tests_module(exercise, suite)
    cases = []
    for name, value in vars(module).items():
        if name.startswith("test_") and callable(value) and getattr(value, "__module__", None) == module.__name__:
            title, title_zh = _titles(value.__doc__, name)
            cases.append(CaseSpec(suite, name.removeprefix("test_"), title, title_zh, value))
    budget = getattr(module, "BUDGET", BudgetDeclaration())
    if not isinstance(budget, BudgetDeclaration):
        raise TypeError(f"{exercise.suite_path(suite)}: BUDGET must be a judge.budget.BudgetDeclaration")
    return Suite(suite, tuple(cases), budget)


def _titles(docstring: str | None, name: str) -> tuple[str, str]:
    """English title from the docstring's first line, Chinese from a ``zh:`` line (else the English)."""
    lines = [line.strip() for line in (docstring or "").strip().splitlines()]
    title = lines[0] if lines and lines[0] else name.removeprefix("test_").replace("_", " ")
    title_zh = next((line[3:].strip() for line in lines if line.startswith("zh:")), title)
    return title, title_zh


def _import_tests_module(exercise: Exercise, suite: str) -> ModuleType:
    package = f"_probjudge_tests_{exercise.number:03d}"
    tests_dir = exercise.root / "tests"
    if package not in sys.modules:
        spec = importlib.util.spec_from_file_location(package, tests_dir / "__init__.py",
                                                      submodule_search_locations=[str(tests_dir)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        spec.loader.exec_module(module)
    name = f"{package}.{suite}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, exercise.suite_path(suite))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]
