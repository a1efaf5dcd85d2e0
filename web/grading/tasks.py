"""The Celery app: grading workers on any number of machines, and the periodic sweep.

Start them with ``python -m web grade`` (a worker, when ``PROBJUDGE_BROKER_URL`` is set) and
``python -m web beat`` (the schedule of the sweep: one per site), or with Celery's own commands:
``celery -A web.grading.tasks worker`` and ``celery -A web.grading.tasks beat``. Configuration is the site's
(:class:`web.core.config.Settings`, from the environment).

A task carries only a grading id. The worker claims that grading in the database with the same
rules as every other worker (:meth:`web.grading.queue.GradingQueue.claim`): a task for a grading that
is already done, or that another worker holds under a live lease, does nothing. So a message
delivered twice (Celery delivers at least once), or published again by the sweep, never grades
twice, and the result is written once, guarded by the grading's state and attempt.

Each worker process keeps its own sandbox (one launcher, one strict fork server per machine's
process, never shared over the network), judges in a pool of threads (``worker_pool="threads"``,
``PROBJUDGE_WORKERS`` of them), and renews its claims' leases from a heartbeat thread, as the
database-polling graders do. A worker killed outright stops renewing; when its lease runs out the
sweep publishes the grading again and another worker takes it over (one more attempt).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from celery import Celery, signals
from kombu import Queue
from sqlalchemy import Engine

from judge.engine.process import Launcher
from web.core.config import Settings
from web.grading.broker import GRADE_TASK, LIVE_QUEUE, QUEUES, SWEEP_TASK, Broker
from web.grading.queue import GradingQueue, worker_name

log = logging.getLogger("probjudge.tasks")


def make_celery(broker_url: str, *, workers: int = 1, sweep_s: float = 30.0) -> Celery:
    """A Celery app for ``broker_url`` with the settings at-least-once grading needs.

    - ``task_acks_late`` + ``worker_prefetch_multiplier=1``: a message is acknowledged after its
      grading, and a worker thread holds one message at a time, so a dead worker's message is not
      lost and a busy worker hoards no live work.
    - Two queues, consumed live first (``queue_order_strategy="sorted"``).
    - Short connect timeouts and bounded publish retries: a request never hangs on a dead broker.
    - No result backend: results are in the database.
    """
    app = Celery("probjudge", broker=broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        task_queues=[Queue(name, routing_key=name) for name in QUEUES],
        task_default_queue=LIVE_QUEUE,
        broker_transport_options={
            "queue_order_strategy": "sorted",
            # A message a dead worker held comes back after this long; the sweep usually
            # republishes its grading much sooner (when the grading's lease runs out).
            "visibility_timeout": 1800,
            "socket_connect_timeout": 2,
            "socket_timeout": 10,
        },
        broker_connection_timeout=2,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a worker waits for Redis to come back, forever
        worker_pool="threads",
        worker_concurrency=max(workers, 1),
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        enable_utc=True,
        timezone="UTC",
        beat_schedule={
            "sweep": {
                "task": SWEEP_TASK,
                "schedule": sweep_s,
                # The sweep is quick: it goes with live work, and a late one is dropped, not piled up.
                "options": {"queue": LIVE_QUEUE, "expires": sweep_s},
            }
        },
    )
    app.task(name=GRADE_TASK, acks_late=True, ignore_result=True)(_grade)
    app.task(name=SWEEP_TASK, ignore_result=True)(_sweep)
    return app


@dataclass
class _WorkerState:
    """What one worker process grades with, built once (at ``worker_init`` or the first task)."""

    settings: Settings
    engine: Engine
    launcher: Launcher
    queue: GradingQueue


_state: _WorkerState | None = None
_state_lock = threading.Lock()


def worker_state(slots: int | None = None) -> _WorkerState:
    """This process's grading state, built on first use: database, sandbox, heartbeat."""
    global _state
    with _state_lock:
        if _state is None:
            from judge.sandbox import launcher_for
            from web.core.database import make_engine, session_factory, upgrade

            settings = Settings.from_environment()
            count = max(slots or settings.workers, 1)
            upgrade(settings.database_url)
            engine = make_engine(settings.database_url)
            launcher = launcher_for(
                settings.sandbox, allow_weaker=settings.allow_weaker_sandbox, slots=settings.sandbox_slots(count)
            )
            queue = GradingQueue(
                session_factory(engine),
                launcher,
                workers=0,
                lease_s=settings.lease_s,
                kind="celery",
                slots=count,
                lanes=settings.lanes,
            )
            queue.start_heartbeat()
            _state = _WorkerState(settings, engine, launcher, queue)
            log.info(
                "grader %s: %d threads, sandbox %s, lease %.0f s",
                worker_name(),
                count,
                launcher.level,
                settings.lease_s,
            )
        return _state


def _close_worker_state() -> None:
    global _state
    with _state_lock:
        if _state is not None:
            _state.queue.stop()
            _state.launcher.close()
            _state.engine.dispose()
            _state = None


MAX_GRADING_ID = 2**31 - 1  # the id column is PostgreSQL's INTEGER


def _grade(grading_id: int) -> str:
    """Claim grading ``grading_id`` and judge it; "skipped" when it is not this worker's to grade,
    "refused" (logged) when the argument is not a grading id at all (never rounded to one)."""
    if isinstance(grading_id, bool) or not isinstance(grading_id, int) or not 1 <= grading_id <= MAX_GRADING_ID:
        log.error("probjudge.grade takes a grading id (an integer from 1 to %d), got %r", MAX_GRADING_ID, grading_id)
        return "refused"
    state = worker_state()
    claim = state.queue.claim(worker_name(threading.current_thread().name), grading_id=grading_id)
    if claim is None:
        return "skipped"
    return "written" if state.queue.grade_claimed(claim) else "dropped"


def _sweep() -> str:
    """Publish again what the broker never got or lost (see :mod:`web.grading.sweeping`)."""
    from web.grading.sweeping import sweep

    state = worker_state()
    swept = sweep(state.queue.sessions, Broker(app_for(state.settings)))
    return str(swept)


_apps: dict[tuple[str, int, float], Celery] = {}
_apps_lock = threading.Lock()


def app_for(settings: Settings) -> Celery:
    """The Celery app for ``settings``' broker (one per process and configuration)."""
    if settings.broker_url is None:
        raise ValueError("PROBJUDGE_BROKER_URL is not set: there is no Celery app without a broker")
    key = (settings.broker_url, max(settings.workers, 1), settings.sweep_s)
    with _apps_lock:
        if key not in _apps:
            _apps[key] = make_celery(settings.broker_url, workers=key[1], sweep_s=settings.sweep_s)
        return _apps[key]


@signals.worker_init.connect
def _on_worker_init(sender=None, **_kwargs) -> None:
    worker_state(getattr(sender, "concurrency", None))


@signals.worker_shutdown.connect
def _on_worker_shutdown(**_kwargs) -> None:
    _close_worker_state()


def _app_from_environment() -> Celery:
    """For ``celery -A web.grading.tasks``: the app the environment configures (``PROBJUDGE_BROKER_URL``)."""
    settings = Settings.from_environment()
    if settings.broker_url is None:
        raise SystemExit("error: set PROBJUDGE_BROKER_URL (redis://HOST:6379/0) to run Celery workers")
    return app_for(settings)


def __getattr__(name: str) -> Celery:
    # `celery -A web.grading.tasks` looks up `app` (or `celery`) here; built on demand so that importing
    # this module (the site does) needs no broker configured.
    if name in ("app", "celery"):
        return _app_from_environment()
    raise AttributeError(name)
