"""``python -m web grade``: grading workers in their own process, beside (or far from) the site.

With ``PROBJUDGE_BROKER_URL`` set, this is a Celery worker (:mod:`web.tasks`) taking grading ids
from the broker, live queue first; without, worker threads poll the database.

Any number of these may run, on this machine or on others that reach the same database; they
share nothing but the database (see :mod:`web.grading` for the claim, lease and write rules).
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

from web.config import Settings
from web.database import make_engine, session_factory, upgrade


def run_graders(workers: int | None = None) -> int:
    """Grade until told to stop; return an exit status (2 for a configuration the site refuses)."""
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
        return run_celery_worker(settings, count)

    from judge.sandbox import launcher_for
    from web.grading import GradingQueue, worker_name

    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        launcher = launcher_for(settings.sandbox, allow_weaker=settings.allow_weaker_sandbox, slots=count)
    except RuntimeError as error:  # the sandbox refused: strict is unavailable and no fallback is allowed
        print(f"error: {error}", file=sys.stderr)
        return 2
    queue = GradingQueue(session_factory(engine), launcher, workers=count, lease_s=settings.lease_s)
    stop = threading.Event()

    def _stop(_signum, _frame) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
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


def run_celery_worker(settings: Settings, count: int, extra: list[str] | None = None) -> int:
    """Run a Celery worker with ``count`` grading threads until SIGTERM (warm shutdown: the gradings
    under way finish) or SIGQUIT/SIGKILL (they are taken over when their leases run out)."""
    from web.broker import QUEUES
    from web.grading import worker_name
    from web.tasks import app_for, worker_state

    upgrade(settings.database_url)
    try:
        worker_state(count)  # the sandbox starts now: a refusal is an error here, not in a task
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    app = app_for(settings)
    argv = [
        "worker",
        "--pool=threads",
        f"--concurrency={count}",
        f"--queues={','.join(QUEUES)}",
        f"--hostname=probjudge-{os.getpid()}@%h",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        *(extra or []),
    ]
    print(
        f"ProbJudge grader {worker_name()} takes gradings from the broker with {count} threads "
        f"(queues: {', '.join(QUEUES)}, live first; database: {settings.database_url})",
        flush=True,
    )
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
    from web.config import INSTANCE_DIR
    from web.tasks import app_for

    INSTANCE_DIR.mkdir(parents=True, exist_ok=True)
    schedule = os.environ.get("PROBJUDGE_BEAT_SCHEDULE") or str(INSTANCE_DIR / "celerybeat-schedule")
    print(f"ProbJudge beat: a sweep every {settings.sweep_s:.0f} s through {settings.broker_url}", flush=True)
    app_for(settings).start(["beat", f"--schedule={schedule}", "--loglevel=INFO"])
    return 0
