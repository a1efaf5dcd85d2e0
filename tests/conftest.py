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


# `make test` runs the tests on every core (pytest-xdist, `-n auto`), then, alone and in one process,
# the modules marked `strict_sandbox` (tests/security/test_*.py, tests/web/test_grading.py and
# test_graders.py): one of them asserts, machine-wide, that no job cgroup outlives a killed judge and
# removes stale ones, which another test's strict job, made a moment ago, would look like. A new
# module that starts the strict sandbox takes the same `pytestmark`. (`xdist_group` would keep them
# on one worker, but pytest-xdist 3.8 cannot group under pytest 9: it rewrites `item._nodeid`,
# which pytest 9 no longer reads.) Everything else is independent of other tests.


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
