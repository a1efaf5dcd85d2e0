"""Red team (issue 15): attacks on many-machine grading, written without the author's notes.

Each failed when written, and pins the fix: a takeover message the broker lost is published
again; a task's argument is never rounded to another grading's id nor crashes past the column;
leases and heartbeats use the database's clock, so a grader whose clock is off neither loses its
gradings nor looks alive after it died. The rest pin promises no other test pinned. Same fixtures
and FakeBroker as test_many_machines.py: SQLite and, with PROBJUDGE_TEST_POSTGRESQL_URL, PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from sqlalchemy import select

import web.core.models
import web.grading.health
import web.grading.queue
import web.grading.sweeping
import web.grading.tasks
from judge.verdicts import Verdict
from tests.web import test_many_machines
from tests.web.test_health import _token
from tests.web.test_many_machines import (
    FakeBroker,
    _age,
    _age_published,
    _queue,
    _report,
    _submit,
)
from web.core.database import make_engine, session_factory
from web.core.models import Grading, Role, Status, utcnow
from web.grading.broker import LIVE_QUEUE
from web.grading.health import health_report
from web.grading.sweeping import sweep
from web.services import EXTENSION_KEY, services

world = test_many_machines.world  # the fixture


# --- a grading stuck forever ----------------------------------------------------------------


def test_a_takeover_message_the_broker_lost_is_published_again(world):
    # A worker dies; its lease runs out; the sweep publishes the grading again (published_at =
    # now, after the lease). Redis then restarts without its data (or the worker that took the
    # message is killed before claiming). The grading is `running`, so the "lost" pass (queued
    # only) never counts it, and the "lease expired" pass wants published_at < lease_expires_at,
    # which is false from now on: nobody publishes it again, ever. Stuck `running` forever.
    broker = FakeBroker()
    queue = _queue(world, broker)
    [grading_id] = _submit(world, queue)
    assert queue.claim("worker-dead", grading_id=grading_id) is not None
    broker.held[LIVE_QUEUE].clear()  # the dead worker held the message
    _age(
        world,
        600,
        lease_expires_at=utcnow() - dt.timedelta(seconds=300),
        published_at=utcnow() - dt.timedelta(seconds=600),
    )
    assert sweep(world, broker).lease_expired == 1
    broker.lose_everything()  # Redis restarts without its data before any worker took it
    _age_published(world, 300)  # five minutes of sweeps later
    for _ in range(3):
        sweep(world, broker)
    assert broker.depth()[LIVE_QUEUE] >= 1 or len(broker.published) > 2, (
        "the grading is running with an expired lease, nothing in the broker, and no sweep publishes it"
    )


# --- a task with a bogus argument -------------------------------------------------------------


@pytest.fixture
def worker(world, monkeypatch):
    """web.grading.tasks' worker state with a queue over the test database (no sandbox: judge is faked)."""
    queue = _queue(world, kind="celery", slots=1)
    queue.judge = lambda _claim: _report(Verdict.WA)
    monkeypatch.setattr(web.grading.tasks, "_state", web.grading.tasks._WorkerState(None, None, None, queue))
    return queue


def test_a_task_with_a_fractional_id_grades_no_other_grading(world, worker):
    # The task does int(grading_id): 7.9 (or true, which is 1) becomes a real grading's id.
    [grading_id] = _submit(world, worker)
    try:
        outcome = web.grading.tasks._grade(grading_id + 0.9)
    except (TypeError, ValueError):
        outcome = "refused"
    with world() as session:
        status = session.get(Grading, grading_id).status
    assert outcome in ("refused", "skipped") and status is Status.queued, (
        f"_grade({grading_id + 0.9}) graded grading {grading_id}"
    )


@pytest.mark.parametrize("bogus", [2**31, 2**63])
def test_a_task_for_an_id_beyond_the_column_does_nothing(world, worker, bogus):
    # Like a task for an id that does not exist (10**6 is pinned): no crash, "skipped".
    # PostgreSQL's integer column refuses 2**31 (DataError); SQLite's driver refuses 2**63.
    assert web.grading.tasks._grade(bogus) in ("skipped", "refused")


# --- clocks of many machines ------------------------------------------------------------------


def _skew_python_clock(monkeypatch, clock) -> None:
    """The grader machine's clock, as the web code reads it in Python (the fix reads the database's)."""
    for module in (web.core.models, web.grading.queue, web.grading.sweeping, web.grading.health):
        monkeypatch.setattr(module, "utcnow", clock, raising=False)


def test_a_grader_whose_clock_is_behind_does_not_lose_its_live_grading(world, monkeypatch):
    # Leases are computed with each machine's own clock (utcnow() in Python), not the database's.
    # A grader 60 s behind writes a lease that is already over for everyone else: any other
    # worker takes the grading over at once, and the first worker's judging is thrown away.
    queue = _queue(world)
    [grading_id] = _submit(world, queue)
    real = web.core.models.utcnow
    _skew_python_clock(monkeypatch, lambda: real() - dt.timedelta(seconds=60))
    slow = queue.claim("worker-slow-clock", grading_id=grading_id)
    _skew_python_clock(monkeypatch, real)
    assert slow is not None
    assert queue.claim("worker-b", grading_id=grading_id) is None, (
        "a grading claimed a moment ago under a 30 s lease was taken over at once"
    )


def test_a_grader_whose_clock_is_ahead_is_not_counted_alive_after_it_stopped(world, monkeypatch):
    # The Grader row's last_seen_at is the grader machine's clock too. A grader 5 min ahead that
    # stopped 2 min ago is "seen -180 s ago": counted alive, with slots, for 5 more minutes.
    queue = _queue(world, kind="celery", slots=4)
    real = web.core.models.utcnow
    _skew_python_clock(monkeypatch, lambda: real() + dt.timedelta(seconds=300))
    queue.heartbeat()  # its last beat, then it dies
    _skew_python_clock(monkeypatch, real)
    with world() as session:
        report = health_report(session, None, now=real() + dt.timedelta(seconds=120))
    assert report["workers"]["seen_last_minute"] == 0, report["workers"]["graders"]


# --- the health endpoints ---------------------------------------------------------------------


def test_liveness_says_503_not_500_when_the_database_is_gone(make_site, monkeypatch):
    app = make_site(start_workers=False)
    dead = session_factory(make_engine("postgresql+psycopg://nobody:x@127.0.0.1:1/nothing"))
    monkeypatch.setitem(app.extensions, EXTENSION_KEY, dataclasses.replace(services(app), sessions=dead))
    answer = app.test_client().get("/api/v1/health/live")
    assert answer.status_code == 503 and answer.get_json() == {"status": "unavailable"}


def test_refused_health_requests_carry_no_figures(make_site):
    # Pin: a 401 / 403 says why, and nothing of the report (queues, graders, broker error).
    app = make_site(start_workers=False)
    client = app.test_client()
    for headers in (
        {},
        {"Authorization": "Bearer nonsense"},
        _token(app, "lena", Role.learner),
        _token(app, "ian", Role.instructor),
    ):
        answer = client.get("/api/v1/health", headers=headers)
        body = answer.get_data(as_text=True)
        assert answer.status_code in (401, 403)
        assert not any(word in body for word in ("queues", "graders", "broker", "latency", "waiting"))


# --- pins: the sweep and publishing -----------------------------------------------------------


class HalfBroker(FakeBroker):
    """Takes ``room`` messages, then goes down (Redis dying mid-publish)."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room

    def publish(self, gradings):
        taken = super().publish(list(gradings)[: self.room])
        self.room -= len(taken)
        return taken


def test_a_broker_that_dies_mid_publish_leaves_the_rest_for_the_sweep_once(world):
    broker = HalfBroker(2)
    queue = _queue(world, None)
    ids = _submit(world, queue, 4)
    queue.broker = broker
    assert queue.wake() is None
    with world() as session:
        published = {g.id: g.published_at is not None for g in session.scalars(select(Grading))}
    assert published == {ids[0]: True, ids[1]: True, ids[2]: False, ids[3]: False}
    broker.room = 10
    _age(world, 60)
    swept = sweep(world, broker)
    assert swept.never_published == 2 and [g for g, _ in broker.published] == ids


def test_the_lost_pass_never_republishes_a_grading_a_live_worker_holds(world):
    # Pin: the broker holds nothing while a worker grades (the message is its own), and that is
    # not a loss: no duplicate per sweep for running work.
    broker = FakeBroker()
    queue = _queue(world, broker)
    [grading_id] = _submit(world, queue)
    assert queue.claim("worker-a", grading_id=grading_id) is not None
    broker.held[LIVE_QUEUE].clear()
    _age_published(world, 60)
    for _ in range(3):
        swept = sweep(world, broker)
        assert (swept.never_published, swept.lease_expired, swept.lost) == (0, 0, 0)
    assert len(broker.published) == 1


def test_a_republished_task_for_a_done_grading_rewrites_nothing(world, worker):
    # Pin, through the task itself: the duplicate is "skipped" and the stored result stays.
    [grading_id] = _submit(world, worker)
    assert web.grading.tasks._grade(grading_id) == "written"
    worker.judge = lambda _claim: _report(Verdict.AC)
    assert web.grading.tasks._grade(grading_id) == "skipped"
    with world() as session:
        row = session.get(Grading, grading_id)
        assert (row.verdict, row.attempts) == (Verdict.WA, 1)
