"""Fixtures of the attack suites: a strict launcher per module, a quick exercise 39, a fake database.

Tests that need the strict sandbox use the ``launcher`` fixture (or
``attack_support.needs_strict``), which skips them with the reason where a required layer is missing; attacks on the ``local`` level run
everywhere.
"""

from __future__ import annotations

import dataclasses
import os

import pytest
from attack_support import CANARY, DATABASE, MISSING

from judge.engine.process import LocalLauncher
from judge.exercises.exercise import resolve


@pytest.fixture(scope="module")
def launcher():
    if MISSING:
        pytest.skip("strict sandbox unavailable here: " + ", ".join(layer.name for layer in MISSING))
    from judge.sandbox.strict import StrictLauncher

    os.environ["PROBJUDGE_ATTACK_CANARY"] = CANARY
    # A short slot wait: a leaked slot turns the next grading into IE within seconds, not a hang.
    launcher = StrictLauncher(slots=2, cpu_seconds=20, slot_wait_s=20)
    yield launcher
    launcher.close()
    os.environ.pop("PROBJUDGE_ATTACK_CANARY", None)


@pytest.fixture(scope="module")
def quick_exercise():
    # Public cases only, 2 s per case and 1 GB: hangs and hoards cost seconds, not minutes.
    return dataclasses.replace(resolve("39"), time_limit_s=2.0, memory_limit_mb=1024)


@pytest.fixture(scope="module")
def database():
    path = DATABASE
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"SQLite format 3\0 secret rows {CANARY}")
    yield path
    path.unlink()


@pytest.fixture
def level_launcher(request):
    """The launcher of the test's level (``LEVELS``, indirect): strict is the module's launcher."""
    if request.param == "local":
        return LocalLauncher()
    return request.getfixturevalue("launcher")
