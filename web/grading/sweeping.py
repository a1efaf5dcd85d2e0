"""The periodic sweep: the database is the source of truth, the broker only a way to wake workers.

Run every ``PROBJUDGE_SWEEP_SECONDS`` by Celery beat (``python -m web beat``) as the task
``probjudge.sweep``, :func:`sweep` publishes again, from the grading rows:

1. **never published**: ``queued`` gradings with no ``published_at`` older than ``grace_s``
   (the broker was down when they were submitted, or the site died between commit and publish);
2. **lease run out**: ``running`` gradings whose lease expired and that were not published since
   (their worker died or hangs: another worker takes them over, one more attempt);
3. **lost by the broker**: when a queue holds fewer messages than the database has gradings
   waiting for it (``queued``, or ``running`` under a lease that ran out: Redis restarted without
   its data, say, or a takeover message was lost), the waiting gradings published longest ago, as
   many as are missing (a queue is first in, first out, so those are the ones a restart
   or a worker in mid-delivery took).

Publishing twice is harmless: a task for a grading that is done or held does nothing (see
:mod:`web.grading.tasks`). Each grading is marked published (``published_at``) by a conditional UPDATE
before it is sent, so two sweeps running at once do not both publish it.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, Select, func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from web.core.models import Grading, Priority, Status, database_now
from web.grading.broker import LIVE_QUEUE, QUEUES, Broker, BrokerUnavailable

log = logging.getLogger("probjudge.sweep")
GRACE_S = 5.0  # a grading younger than this may still be on its way to the broker: left alone


@dataclass(frozen=True)
class Swept:
    """How many gradings a sweep published again, by reason (``lost`` is None when the broker's
    depth could not be read)."""

    never_published: int
    lease_expired: int
    lost: int | None

    def __str__(self) -> str:
        lost = "unknown (broker unreachable)" if self.lost is None else str(self.lost)
        return (
            f"published again: {self.never_published} never published, {self.lease_expired} lease expired, {lost} lost"
        )


def _in_queue(name: str):
    return Grading.priority <= Priority.live if name == LIVE_QUEUE else Grading.priority > Priority.live


def sweep(sessions: sessionmaker[Session], broker: Broker, *, grace_s: float = GRACE_S) -> Swept:
    """Publish again what the broker should hold and does not (the module docstring says what)."""
    with sessions() as session:
        now = database_now(session)
    cutoff = now - dt.timedelta(seconds=grace_s)
    never = _republish(
        sessions,
        broker,
        select(Grading.id, Grading.priority, Grading.published_at)
        .where(Grading.status == Status.queued, Grading.published_at.is_(None), Grading.created_at < cutoff)
        .order_by(Grading.priority, Grading.id),
        now,
    )
    expired = _republish(
        sessions,
        broker,
        select(Grading.id, Grading.priority, Grading.published_at)
        .where(
            Grading.status == Status.running,
            Grading.lease_expires_at < now,
            or_(Grading.published_at.is_(None), Grading.published_at < Grading.lease_expires_at),
        )
        .order_by(Grading.priority, Grading.id),
        now,
    )
    try:
        depth = broker.depth()
    except BrokerUnavailable as error:
        log.warning("sweep: %s", error)
        return Swept(never, expired, None)
    lost = 0
    for name in QUEUES:
        published = (
            # Waiting for a worker: queued, or running under a lease that ran out (its takeover
            # message may be the one that was lost).
            or_(Grading.status == Status.queued, (Grading.status == Status.running) & (Grading.lease_expires_at < now)),
            Grading.published_at.is_not(None),
            Grading.published_at < cutoff,
            _in_queue(name),
        )
        with sessions() as session:
            waiting = session.scalar(select(func.count()).select_from(Grading).where(*published)) or 0
        missing = waiting - depth.get(name, 0)
        if missing > 0:
            log.warning("sweep: %s holds %d messages for %d waiting gradings", name, depth.get(name, 0), waiting)
            query = (
                select(Grading.id, Grading.priority, Grading.published_at)
                .where(*published)
                .order_by(Grading.published_at, Grading.id)
                .limit(missing)
            )
            lost += _republish(sessions, broker, query, now)
    if never or expired or lost:
        log.warning("sweep: published again %d never published, %d lease expired, %d lost", never, expired, lost)
    return Swept(never, expired, lost)


def _republish(sessions: sessionmaker[Session], broker: Broker, query: Select, now: dt.datetime) -> int:
    """Mark each row of ``query`` published (only if no other sweep did meanwhile), then send them.

    Rows the broker did not take get their previous ``published_at`` back; return how many it took.
    """
    with sessions() as session:
        rows = session.execute(query).all()
        mine: list[tuple[int, int, Any]] = []
        for grading_id, priority, before in rows:
            same = Grading.published_at.is_(None) if before is None else Grading.published_at == before
            marked = cast(
                CursorResult[Any],
                session.execute(
                    update(Grading)
                    .where(Grading.id == grading_id, same)
                    .values(published_at=now)
                    .execution_options(synchronize_session=False)
                ),
            )
            if marked.rowcount == 1:
                mine.append((grading_id, priority, before))
        session.commit()
    if not mine:
        return 0
    sent = set(broker.publish([(grading_id, priority) for grading_id, priority, _ in mine]))
    unsent = [(grading_id, before) for grading_id, _, before in mine if grading_id not in sent]
    if unsent:
        with sessions() as session:
            for grading_id, before in unsent:
                session.execute(
                    update(Grading)
                    .where(Grading.id == grading_id, Grading.published_at == now)
                    .values(published_at=before)
                    .execution_options(synchronize_session=False)
                )
            session.commit()
    return len(sent)
