"""Shared fixtures: the project root, exercise 39, and learner files written on the fly."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

from judge.exercise import PROJECT_ROOT, resolve

# CI replays the same generated examples every run (HYPOTHESIS_PROFILE=ci, set by .ci/run), so a
# landing never depends on luck; on a developer's machine each run explores new examples.
settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# `make test` runs the tests on every core (pytest-xdist, `-n auto --dist loadgroup`). Tests that
# start the strict sandbox share one worker and run one after another: one of them asserts that no
# job cgroup outlives a killed judge, machine-wide, and removes stale ones (which another worker's
# job, made a moment ago, would look like). Everything else is independent of other tests.
STRICT_SANDBOX_TESTS = ("security/", "web/test_grading.py", "web/test_graders.py")
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
        if where.startswith(STRICT_SANDBOX_TESTS):
            item.add_marker(pytest.mark.xdist_group("strict-sandbox"))


@pytest.fixture(scope="session")
def exercise39():
    return resolve("39")


@pytest.fixture
def learner_file(tmp_path: Path):
    """Write a learner file from (dedented) source and return its path."""

    def write(source: str, name: str = "solution.py") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def project_root() -> Path:
    return PROJECT_ROOT
