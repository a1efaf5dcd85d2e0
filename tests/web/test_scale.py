"""Grading on many machines, for real: the site, Celery worker processes and beat, on throwaway
PostgreSQL and Redis servers (``scripts/services.py``).

- The scenario of ``make test-scale`` (``scripts/scale_test.py``): 200 submissions from 50
  learners, each graded exactly once with the right verdict, while one worker is killed with
  SIGKILL mid-grading and Redis is restarted without its data.
- Live work first: with a course rejudge queued ahead of it, a learner's submission waits for at
  most the grading each worker thread is finishing.

Without Debian's ``postgresql`` and ``redis-server`` these skip, or fail when
``PROBJUDGE_REQUIRE_SERVICES=1`` (``.ci/run`` sets it, and stops before the tests when it cannot
install them).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))

from scale_test import run_scenario  # noqa: E402
from services import ServiceError, local_services  # noqa: E402
from stack import REFERENCE, Stack, fresh_database  # noqa: E402

# Grader processes start the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox


@pytest.fixture(scope="module")
def servers():
    try:
        with local_services(postgresql=True, redis=True) as found:
            yield found
    except ServiceError as error:
        if os.environ.get("PROBJUDGE_REQUIRE_SERVICES") == "1":
            pytest.fail(f"PROBJUDGE_REQUIRE_SERVICES=1 but the servers cannot start: {error}")
        pytest.skip(f"no PostgreSQL/Redis servers here: {error}")


def test_two_workers_grade_200_submissions_exactly_once_through_a_killed_worker_and_a_redis_restart(
    servers, tmp_path
):
    outcome = run_scenario(tmp_path, fresh_database(servers.postgresql_url, tmp_path), servers.redis_url,
                           servers.restart_redis)
    print(outcome.summary())
    assert outcome.passed, outcome.summary()
    assert outcome.graded_once == outcome.right_verdicts == 200 and outcome.taken_over == 1


def test_a_learners_submission_goes_before_a_queued_course_rejudge(servers, tmp_path):
    from sqlalchemy import func, select

    from web.core.config import Settings
    from web.core.models import Grading, Priority, Status
    from web.grading.broker import Broker
    from web.grading.queue import GradingQueue
    from web.grading.tasks import app_for

    stack = Stack(tmp_path, fresh_database(servers.postgresql_url, tmp_path), broker_url=servers.redis_url,
                  graders=1, threads=1, sleep_s=0.3, lease_s=30, sweep_s=30)
    try:
        stack.start()
        learner, *others = stack.learners(4)
        first = stack.submit(learner, REFERENCE)
        sessions = stack.sessions()
        _wait_for(sessions, lambda session: session.get(Grading, first).status is Status.done)
        # A course rejudge: 20 gradings queued and published at once, as web.teaching.rejudging does.
        with sessions() as session:
            session.add_all(Grading(submission_id=first, status=Status.queued, priority=Priority.rejudge)
                            for _ in range(20))
            session.commit()
        settings = Settings(database_url=stack.database_url, secret_key="test", broker_url=servers.redis_url)
        GradingQueue(sessions, None, workers=0, broker=Broker(app_for(settings))).wake()
        _wait_for(sessions, lambda session: session.scalar(
            select(Grading.id).where(Grading.status == Status.done, Grading.priority == Priority.rejudge)))
        # Three learners at once: taking the queues in turn (round robin) would put rejudges between them.
        live = [stack.submit(headers, REFERENCE) for headers in others]
        _wait_for(sessions, lambda session: session.scalar(select(func.count()).select_from(Grading).where(
            Grading.submission_id.in_(live), Grading.status == Status.done)) == len(live))
        with sessions() as session:
            lives = session.scalars(select(Grading).where(Grading.submission_id.in_(live))).all()
            arrived, last_started = min(g.created_at for g in lives), max(g.started_at for g in lives)
            rejudges = session.scalars(select(Grading).where(Grading.priority == Priority.rejudge)).all()
            overtaking = [g for g in rejudges if g.started_at is not None and arrived < g.started_at < last_started]
            left = [g for g in rejudges if g.status is not Status.done]
        # One worker thread: it finishes the rejudge in hand, then takes the live ones (a rejudge it
        # had already taken off the queue when the first live one arrived may start a moment later).
        assert len(overtaking) <= 1, f"{len(overtaking)} rejudge gradings started among the learners'"
        assert len(left) >= 10, "the rejudge should still have been running: the test proves nothing"
    finally:
        stack.stop()


def _wait_for(sessions, ready, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sessions() as session:
            if ready(session):
                return
        time.sleep(0.05)
    raise AssertionError("timed out")
