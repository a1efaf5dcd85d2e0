"""The operators' health report: who may read it, and that every figure is what the rows say."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from web.core.models import ApiToken, Exercise, Grader, Grading, Priority, Role, Status, Submission, User, utcnow
from web.grading.broker import Broker
from web.grading.health import LIVE_WAIT_WARNING_S, health_report, percentiles
from web.grading.tasks import make_celery
from web.services import services

NOW = dt.datetime(2026, 12, 1, 12, 0, 0, tzinfo=dt.UTC)


def _token(app, name: str, role: Role) -> dict:
    with services(app).sessions() as session:
        user = User(name=name, role=role)
        user.set_password("password123")
        token, secret = ApiToken.issue(user)
        session.add_all([user, token])
        session.commit()
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def app(make_site):
    return make_site(start_workers=False)


def _grading(session, submission, *, status, priority=Priority.live, created_s_ago=0.0, took_s=None, lease_s=None,
             published=True):
    created = NOW - dt.timedelta(seconds=created_s_ago)
    row = Grading(submission=submission, status=status, priority=priority, created_at=created,
                  published_at=created if published else None)
    if took_s is not None:
        row.finished_at = created + dt.timedelta(seconds=took_s)
    if lease_s is not None:
        row.lease_expires_at = NOW + dt.timedelta(seconds=lease_s)
    session.add(row)
    return row


def _submission(session) -> Submission:
    user = User(name="learner")
    user.set_password("password123")
    exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
    submission = Submission(user=user, exercise=exercise, code="x = 1\n")
    session.add(submission)
    return submission


def test_only_site_admins_tokens_read_the_report_and_anyone_the_liveness(app):
    client = app.test_client()
    assert client.get("/api/v1/health").status_code == 401
    assert client.get("/api/v1/health", headers=_token(app, "lena", Role.learner)).status_code == 403
    assert client.get("/api/v1/health", headers=_token(app, "ian", Role.instructor)).status_code == 403
    answer = client.get("/api/v1/health", headers=_token(app, "ada", Role.admin))
    assert answer.status_code == 200 and answer.get_json()["status"] == "ok"
    live = client.get("/api/v1/health/live")
    assert live.status_code == 200 and live.get_json() == {"status": "ok"}


def test_the_report_counts_queues_oldest_wait_graders_and_latency_from_the_rows(app):
    sessions = services(app).sessions
    with sessions() as session:
        submission = _submission(session)
        _grading(session, submission, status=Status.queued, created_s_ago=30)
        _grading(session, submission, status=Status.queued, created_s_ago=5, published=False)
        _grading(session, submission, status=Status.queued, priority=Priority.rejudge, created_s_ago=90)
        _grading(session, submission, status=Status.running, lease_s=20)
        _grading(session, submission, status=Status.running, priority=Priority.rejudge, lease_s=-5)  # stalled
        for took in (1.0, 2.0, 3.0, 4.0, 10.0):
            _grading(session, submission, status=Status.done, created_s_ago=100, took_s=took)
        _grading(session, submission, status=Status.done, priority=Priority.rejudge, created_s_ago=100, took_s=50)
        _grading(session, submission, status=Status.done, created_s_ago=7200, took_s=999)  # outside the hour
        session.add_all([
            Grader(name="a:1", host="a", pid=1, kind="celery", slots=2, busy=1, graded=40,
                   started_at=NOW - dt.timedelta(hours=1), last_seen_at=NOW - dt.timedelta(seconds=5)),
            Grader(name="b:2", host="b", pid=2, kind="threads", slots=1, busy=0, graded=3,
                   started_at=NOW - dt.timedelta(hours=1), last_seen_at=NOW - dt.timedelta(seconds=300)),
        ])
        session.commit()
        report = health_report(session, None, now=NOW)
    live, rejudge = report["queues"]["live"], report["queues"]["rejudge"]
    assert (live["waiting"], live["running"], live["stalled"], live["oldest_waiting_s"]) == (2, 1, 0, 30.0)
    assert (rejudge["waiting"], rejudge["running"], rejudge["stalled"], rejudge["oldest_waiting_s"]) == (1, 1, 1, 90.0)
    assert live["broker_depth"] is None and report["broker"] is None  # no broker configured
    assert report["oldest_waiting"]["queue"] == "rejudge" and report["oldest_waiting"]["waiting_s"] == 90.0
    workers = report["workers"]
    assert (workers["seen_last_minute"], workers["slots"], workers["busy"]) == (1, 2, 1)
    assert workers["graders"][0]["name"] == "a:1" and workers["graders"][0]["last_seen_s"] == 5.0
    assert report["latency_s"]["live"] == {"count": 5, "p50": 3.0, "p95": 10.0, "p99": 10.0, "max": 10.0}
    assert report["latency_s"]["rejudge"]["count"] == 1 and report["latency_s"]["rejudge"]["p50"] == 50.0
    assert report["status"] == "degraded" and (
        "1 grading's lease ran out (a grader stopped); they will be taken over" in report["problems"])


def test_the_report_is_degraded_when_gradings_wait_for_nobody_or_too_long(app):
    sessions = services(app).sessions
    with sessions() as session:
        submission = _submission(session)
        _grading(session, submission, status=Status.queued, created_s_ago=LIVE_WAIT_WARNING_S + 1)
        session.commit()
        problems = health_report(session, None, now=NOW)["problems"]
    assert any("no grader was seen" in p for p in problems)
    assert any("has waited" in p for p in problems)


def test_with_a_broker_the_report_shows_its_depth_and_unpublished_gradings_or_that_it_is_down(app):
    sessions = services(app).sessions
    with sessions() as session:
        submission = _submission(session)
        _grading(session, submission, status=Status.queued, published=False)
        session.commit()
        down = health_report(session, Broker(make_celery("redis://127.0.0.1:1/0")), now=NOW)
        memory = make_celery("memory://")
        with memory.connection_for_write() as connection:
            for name in ("probjudge.live", "probjudge.rejudge"):
                connection.default_channel.queue_declare(queue=name)
                connection.default_channel.queue_purge(name)
        Broker(memory).publish([(1, Priority.rejudge), (2, Priority.rejudge)])
        up = health_report(session, Broker(memory), now=NOW)
    assert down["broker"]["reachable"] is False and down["status"] == "degraded"
    assert down["queues"]["live"]["unpublished"] == 1
    assert up["broker"] == {"reachable": True, "error": None}
    assert (up["queues"]["live"]["broker_depth"], up["queues"]["rejudge"]["broker_depth"]) == (0, 2)


def test_percentiles_are_nearest_rank():
    assert percentiles([]) == {"count": 0, "p50": None, "p95": None, "p99": None, "max": None}
    figures = percentiles([float(n) for n in range(1, 101)])
    assert (figures["p50"], figures["p95"], figures["p99"], figures["max"]) == (50.0, 95.0, 99.0, 100.0)
    assert percentiles([2.5])["p99"] == 2.5
