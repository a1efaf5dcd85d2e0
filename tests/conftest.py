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
# the tests marked `machine_wide`: they measure the whole machine, which other tests running meanwhile
# would disturb (test_host_resources.py's fallocate test: the free disk of /, /tmp and the project). A
# new test that measures or changes something machine-wide takes the same mark. The tests that start
# the strict sandbox (marker `strict_sandbox`) run in the parallel part: each judge has uids of its own
# (`base_id`, per process), job cgroups of its own (the test of a killed judge finds its judge's through
# the sleepers' /proc/PID/cgroup, and removes only those) and marker-named processes. (`xdist_group`
# cannot keep tests on one worker: pytest-xdist 3.8 rewrites `item._nodeid`, which pytest 9 no longer
# reads.) Everything else is independent of other tests.


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
