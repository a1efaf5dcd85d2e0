"""What an operator watches: queue depths, the oldest waiting grading, graders alive, latency.

:func:`health_report` reads it all from the database (the queue of record) and, with a broker,
the broker's own depth per queue; ``GET /api/v1/health`` serves it to site admins' API tokens,
and ``GET /api/v1/health/live`` answers anyone (a load balancer) whether the site reaches its
database. ``docs/deploying.md`` says what each figure means and when to act.

A report is ``degraded`` (with its ``problems``, in English: operators' words) when the broker
is unreachable, when gradings wait and no grader was seen in the last minute, when the oldest
waiting live grading waits longer than :data:`LIVE_WAIT_WARNING_S`, or when gradings' leases ran
out (a grader died; the sweep or another worker will take them over).
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge.i18n import format_text
from web.core.models import Grader, Grading, Status, as_utc, database_now
from web.grading.broker import LIVE_QUEUE, REJUDGE_QUEUE, Broker, BrokerUnavailable, queue_for

SEEN_WINDOW_S = 60.0  # a grader whose heartbeat is older than this is not counted as alive
LATENCY_WINDOW_S = 3600.0  # latency percentiles over the gradings finished in the last hour
LATENCY_SAMPLE = 20_000  # at most this many of them (the newest), to bound the work per request
LIVE_WAIT_WARNING_S = 120.0


def _queue_name(priority: int) -> str:
    """The report's name of the queue a grading of ``priority`` goes to (web.grading.broker decides)."""
    return "live" if queue_for(priority) == LIVE_QUEUE else "rejudge"


BROKER_QUEUES = {"live": LIVE_QUEUE, "rejudge": REJUDGE_QUEUE}  # the report's names -> the broker's


def percentiles(values: list[float]) -> dict[str, Any]:
    """Count, p50, p95, p99 and max of ``values`` (seconds, rounded to ms); None figures for none."""
    if not values:
        return {"count": 0, "p50": None, "p95": None, "p99": None, "max": None}
    ordered = sorted(values)

    def rank(q: float) -> float:  # the nearest-rank percentile: the ceil(q * n)-th smallest
        return round(ordered[max(math.ceil(q * len(ordered)), 1) - 1], 3)

    return {"count": len(ordered), "p50": rank(0.5), "p95": rank(0.95), "p99": rank(0.99), "max": round(ordered[-1], 3)}


def health_report(session: Session, broker: Broker | None, *, now: dt.datetime | None = None) -> dict[str, Any]:
    """The operator's view (the module docstring says what is in it). Never raises for a broker
    that is down: that is reported."""
    now = now or database_now(session)
    problems: list[str] = []
    empty = {"waiting": 0, "running": 0, "stalled": 0, "unpublished": 0, "oldest_waiting_s": None, "broker_depth": None}
    queues: dict[str, dict[str, Any]] = {name: dict(empty) for name in ("live", "rejudge")}
    waiting_rows = session.execute(
        select(Grading.priority, func.count(), func.min(Grading.created_at))
        .where(Grading.status == Status.queued)
        .group_by(Grading.priority)
    ).all()
    for priority, count, oldest in waiting_rows:
        figures = queues[_queue_name(priority)]
        figures["waiting"] += count
        age = (now - as_utc(oldest)).total_seconds()
        if figures["oldest_waiting_s"] is None or age > figures["oldest_waiting_s"]:
            figures["oldest_waiting_s"] = round(age, 3)
    running_rows = session.execute(
        select(Grading.priority, Grading.lease_expires_at).where(Grading.status == Status.running)
    ).all()
    for priority, lease in running_rows:
        figures = queues[_queue_name(priority)]
        figures["running"] += 1
        if lease is not None and as_utc(lease) < now:
            figures["stalled"] += 1
    if broker is not None:
        for priority, count in session.execute(
            select(Grading.priority, func.count())
            .where(Grading.status == Status.queued, Grading.published_at.is_(None))
            .group_by(Grading.priority)
        ).all():
            queues[_queue_name(priority)]["unpublished"] += count

    oldest_row = session.execute(
        select(Grading.id, Grading.priority, Grading.created_at)
        .where(Grading.status == Status.queued)
        .order_by(Grading.created_at, Grading.id)
        .limit(1)
    ).first()
    oldest_waiting = (
        None
        if oldest_row is None
        else {
            "grading_id": oldest_row[0],
            "queue": _queue_name(oldest_row[1]),
            "waiting_s": round((now - as_utc(oldest_row[2])).total_seconds(), 3),
        }
    )

    broker_figures: dict[str, Any] | None = None
    if broker is not None:
        broker_figures = {"reachable": True, "error": None}
        try:
            depth = broker.depth()
            for name in ("live", "rejudge"):
                queues[name]["broker_depth"] = depth.get(BROKER_QUEUES[name], 0)
        except BrokerUnavailable as error:
            broker_figures = {"reachable": False, "error": str(error)}
            problems.append(f"the broker is unreachable: {error}")

    seen_since = now - dt.timedelta(seconds=SEEN_WINDOW_S)
    graders = session.scalars(select(Grader).where(Grader.last_seen_at >= seen_since).order_by(Grader.name)).all()
    workers = {
        "seen_last_minute": len(graders),
        "slots": sum(grader.slots for grader in graders),
        "busy": sum(grader.busy for grader in graders),
        "graders": [
            {
                "name": grader.name,
                "kind": grader.kind,
                "slots": grader.slots,
                "busy": grader.busy,
                "graded": grader.graded,
                "last_seen_s": round((now - as_utc(grader.last_seen_at)).total_seconds(), 3),
                "started_at": as_utc(grader.started_at).isoformat(),
            }
            for grader in graders
        ],
    }

    since = now - dt.timedelta(seconds=LATENCY_WINDOW_S)
    finished = session.execute(
        select(Grading.priority, Grading.created_at, Grading.finished_at)
        .where(Grading.status == Status.done, Grading.finished_at >= since)
        .order_by(Grading.finished_at.desc())
        .limit(LATENCY_SAMPLE)
    ).all()
    latencies: dict[str, list[float]] = {"live": [], "rejudge": []}
    for priority, created, done in finished:
        assert done is not None  # selected as finished
        latencies[_queue_name(priority)].append((as_utc(done) - as_utc(created)).total_seconds())

    total_waiting = queues["live"]["waiting"] + queues["rejudge"]["waiting"]
    if total_waiting and not graders:
        problems.append(f"{total_waiting} gradings wait and no grader was seen in the last {SEEN_WINDOW_S:.0f} s")
    live_wait = queues["live"]["oldest_waiting_s"]
    if live_wait is not None and live_wait > LIVE_WAIT_WARNING_S:
        problems.append(f"a learner's submission has waited {live_wait:.0f} s for a grader")
    stalled = queues["live"]["stalled"] + queues["rejudge"]["stalled"]
    if stalled:
        problems.append(
            format_text(
                "{count:# grading's lease|# gradings' leases} ran out (a grader stopped); they will be taken over",
                count=stalled,
            )
        )
    return {
        "status": "degraded" if problems else "ok",
        "problems": problems,
        "generated_at": now.isoformat(),
        "database": session.get_bind().dialect.name,
        "broker": broker_figures,
        "queues": queues,
        "oldest_waiting": oldest_waiting,
        "workers": workers,
        "latency_s": {
            "window_s": LATENCY_WINDOW_S,
            "live": percentiles(latencies["live"]),
            "rejudge": percentiles(latencies["rejudge"]),
        },
    }
