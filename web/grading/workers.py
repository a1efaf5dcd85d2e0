"""``python -m web grade``: grading workers in their own process, beside (or far from) the site.

With ``PROBJUDGE_BROKER_URL`` set, this is a Celery worker (:mod:`web.grading.tasks`) taking grading ids
from the broker, live queue first; without, worker threads poll the database.

Any number of these may run, on this machine or on others that reach the same database; they
share nothing but the database (see :mod:`web.grading.queue` for the claim, lease and write rules).
Each process keeps its own sandbox (a strict level's fork server is per process, never shared
over the network). SIGTERM or Ctrl+C finishes the gradings under way and stops; a grader
killed outright has its gradings taken over by the others when their leases run out.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading

from web.core.config import Settings
from web.core.database import make_engine, session_factory, upgrade
from web.core.heap import freeze_start_up


def run_graders(workers: int | None = None, queues: str | None = None) -> int:
    """Grade until told to stop; return an exit status (2 for a configuration the site refuses).

    ``queues`` (with a broker only): ``"live"`` makes a worker that grades learners' submissions
    and never a rejudge (the lane that keeps live latency flat during a course rejudge),
    ``"rejudge"`` the opposite; default both, live first.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        settings = Settings.from_environment()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    count = workers if workers is not None else max(settings.workers, 1)
    if count < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    if settings.broker_url is not None:
        try:
            chosen = broker_queues(queues)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        return run_celery_worker(settings, count, chosen)
    if queues is not None:
        print("error: --queues needs PROBJUDGE_BROKER_URL (graders that poll the database take both)", file=sys.stderr)
        return 2

    from judge.sandbox import launcher_for
    from web.grading.queue import GradingQueue, worker_name

    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        launcher = launcher_for(
            settings.sandbox, allow_weaker=settings.allow_weaker_sandbox, slots=settings.sandbox_slots(count)
        )
    except RuntimeError as error:  # the sandbox refused: strict is unavailable and no fallback is allowed
        print(f"error: {error}", file=sys.stderr)
        return 2
    queue = GradingQueue(
        session_factory(engine), launcher, workers=count, lease_s=settings.lease_s, lanes=settings.lanes
    )
    stop = threading.Event()

    def _stop(_signum, _frame) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    freeze_start_up()
    queue.start()
    print(
        f"ProbJudge grader {worker_name()} is grading with {count} workers (database: {settings.database_url}; "
        f"sandbox: {launcher.level}; lease {settings.lease_s:.0f} s)",
        flush=True,
    )
    try:
        while not stop.wait(1.0):
            pass
    finally:
        print("stopping: finishing the gradings under way (queued ones stay queued)", flush=True)
        queue.stop()
        launcher.close()
        engine.dispose()
    return 0


def broker_queues(names: str | None) -> list[str]:
    """``"live,rejudge"`` (or None) → the broker's queue names, live first; ``ValueError`` for others."""
    from web.grading.broker import LIVE_QUEUE, REJUDGE_QUEUE

    known = {"live": LIVE_QUEUE, "rejudge": REJUDGE_QUEUE}
    wanted = [part.strip() for part in (names or "live,rejudge").split(",") if part.strip()]
    unknown = [part for part in wanted if part not in known]
    if unknown or not wanted:
        raise ValueError(f"--queues takes live, rejudge or live,rejudge; got {names!r}")
    return [known[name] for name in ("live", "rejudge") if name in wanted]


def run_celery_worker(settings: Settings, count: int, queues: list[str] | None = None) -> int:
    """Run a Celery worker with ``count`` grading threads on ``queues`` (default both) until SIGTERM
    (warm shutdown: the gradings under way finish) or SIGQUIT/SIGKILL (they are taken over when
    their leases run out)."""
    from web.grading.broker import QUEUES
    from web.grading.queue import worker_name
    from web.grading.tasks import app_for, worker_state

    upgrade(settings.database_url)
    try:
        worker_state(count)  # the sandbox starts now: a refusal is an error here, not in a task
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    app = app_for(settings)
    queues = queues or list(QUEUES)
    argv = [
        "worker",
        "--pool=threads",
        f"--concurrency={count}",
        f"--queues={','.join(queues)}",
        f"--hostname=probjudge-{os.getpid()}@%h",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
    ]
    print(
        f"ProbJudge grader {worker_name()} takes gradings from the broker with {count} threads "
        f"(queues: {', '.join(queues)}; database: {settings.database_url})",
        flush=True,
    )
    freeze_start_up()
    app.worker_main(argv)
    return 0


def run_beat() -> int:
    """``python -m web beat``: Celery beat, which sends the periodic sweep (one per site is enough;
    more are harmless)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_environment()
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if settings.broker_url is None:
        print(
            "error: set PROBJUDGE_BROKER_URL (redis://HOST:6379/0): beat sends the sweep to the broker", file=sys.stderr
        )
        return 2
    from web.core.config import INSTANCE_DIR
    from web.grading.tasks import app_for

    INSTANCE_DIR.mkdir(parents=True, exist_ok=True)
    schedule = os.environ.get("PROBJUDGE_BEAT_SCHEDULE") or str(INSTANCE_DIR / "celerybeat-schedule")
    print(f"ProbJudge beat: a sweep every {settings.sweep_s:.0f} s through {settings.broker_url}", flush=True)
    app_for(settings).start(["beat", f"--schedule={schedule}", "--loglevel=INFO"])
    return 0
