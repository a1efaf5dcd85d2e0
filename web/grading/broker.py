"""Grading ids handed to Celery, and what the broker holds: the site's side of many-machine grading.

With ``PROBJUDGE_BROKER_URL`` set, a grading stays a row in the database (the queue of record,
see :mod:`web.grading.queue`); the broker only carries its id, as a task ``probjudge.grade`` on one of
two queues: :data:`LIVE_QUEUE` for learners' submissions and :data:`REJUDGE_QUEUE` for rejudges.
Workers consume both and always look at the live queue first (Redis transport option
``queue_order_strategy="sorted"``: the names sort live first), and each worker thread holds at
most one message (late acknowledgement, prefetch 1). So a course rejudge delays a learner's
verdict by at most the grading each worker thread is finishing.

Publishing never raises: a broker that is down leaves the grading unpublished in the database
(``published_at`` NULL), and the periodic sweep (:mod:`web.grading.sweeping`) publishes it later.
Python's Celery is the library made for this (acknowledgements, reconnection, queue routing,
periodic tasks); nothing here re-implements it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from web.core.models import Priority

if TYPE_CHECKING:
    from celery import Celery

log = logging.getLogger("probjudge.broker")

GRADE_TASK = "probjudge.grade"
SWEEP_TASK = "probjudge.sweep"
LIVE_QUEUE = "probjudge.live"
REJUDGE_QUEUE = "probjudge.rejudge"
QUEUES = (LIVE_QUEUE, REJUDGE_QUEUE)  # in the order workers look at them (also sorted by name)
# A publish tries the broker this many more times before it gives up and leaves the grading to
# the sweep: a submit request must not hang while Redis restarts.
PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0.0, "interval_step": 0.25, "interval_max": 0.5}


class BrokerUnavailable(RuntimeError):
    """The broker could not be reached (its error is the ``__cause__``)."""


def queue_for(priority: int) -> str:
    """The queue a grading of ``priority`` goes to: live work at or before :attr:`Priority.live`."""
    return LIVE_QUEUE if priority <= Priority.live else REJUDGE_QUEUE


class Broker:
    """Publishes grading ids to the Celery app's broker and reads its queues' depths."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def publish(self, gradings: Iterable[tuple[int, int]]) -> list[int]:
        """Hand each ``(grading id, priority)`` to the broker, in order; return the ids it took.

        Stops at the first failure (the broker is down): the rest stay unpublished, for the sweep.
        Never raises.
        """
        sent: list[int] = []
        pending = list(gradings)
        if not pending:
            return sent
        try:
            with self.app.producer_or_acquire() as producer:
                for grading_id, priority in pending:
                    self.app.send_task(
                        GRADE_TASK,
                        args=[grading_id],
                        queue=queue_for(priority),
                        producer=producer,
                        retry=True,
                        retry_policy=PUBLISH_RETRY,
                    )
                    sent.append(grading_id)
        except Exception as error:  # noqa: BLE001 - any transport error: the sweep publishes later
            log.warning(
                "the broker did not take %d of %d gradings (%s: %s); the sweep will publish them",
                len(pending) - len(sent),
                len(pending),
                type(error).__name__,
                error,
            )
        return sent

    def depth(self) -> dict[str, int]:
        """Messages waiting in each queue (not those a worker holds). Raises :class:`BrokerUnavailable`."""
        from kombu.exceptions import ChannelError

        try:
            with self.app.connection_for_read() as connection:
                connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0.2, timeout=3)
                channel = connection.default_channel
                found: dict[str, int] = {}
                for name in QUEUES:
                    try:
                        found[name] = int(channel.queue_declare(queue=name, passive=True).message_count)
                    except ChannelError:  # never declared, or empty (Redis deletes empty lists)
                        found[name] = 0
                return found
        except Exception as error:  # noqa: BLE001 - reported as unreachable, whatever the transport said
            raise BrokerUnavailable(f"the broker is unreachable ({type(error).__name__}: {error})") from error
