"""Grader processes beside the site, without a broker: `python -m web serve` (grading too) and two
`python -m web grade` on one database (SQLite file or PostgreSQL) grade 100 submissions exactly
once, and a grader killed mid-job loses nothing. The scenario is `make test-scale`'s
(scripts/scale_test.py), which runs it with Celery on Redis in tests/web/test_scale.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from web.serve import missing_assets

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from scale_test import run_scenario  # noqa: E402

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox


def test_two_graders_and_the_site_grade_each_submission_once_and_take_over_a_killed_one(tmp_path, database_url):
    if missing_assets():
        pytest.skip("the browser assets are not built (`make assets`); `serve` refuses to start without them")
    outcome = run_scenario(tmp_path, database_url, None, None, submissions=100, learners=25, site_workers=1)
    assert outcome.passed, outcome.summary()
    assert outcome.graded_once == outcome.right_verdicts == 100 and outcome.taken_over == 1
