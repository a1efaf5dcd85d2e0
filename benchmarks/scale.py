#!/usr/bin/env python3
"""Grading under a deadline-night load: the in-process default, 1 and 2 Celery worker processes,
and a learner's verdict while a course rejudge runs. Loopback only, bounded in count and time.

    .venv/bin/python benchmarks/scale.py [--burst 60] [--paced 12] [--interval 1.5] [--rejudge 120]
                                         [--quick] [--json PATH]

Every grading is exercise 39's reference or one of its wrong solutions, under the strict sandbox
where it can run (else ``local``), submitted through the site's API by 20 learners.

(a) **Throughput**: ``--burst`` submissions handed in at once (3 per learner: under the limit of
    5 waiting), with (1) the default: SQLite, two grading threads in the site's process; (2) one
    Celery worker process (one thread) and (3) two, on PostgreSQL and Redis. Submissions per
    minute (from the first submission to the last verdict) and p50/p95 submission-to-verdict
    latency (grading rows: created to finished), and the ratios between them.
(b) **Live work during a course rejudge**, with two worker processes in the two layouts of
    docs/deploying.md: both on both queues (live first), and one of them on the live queue alone.
    In each, ``--paced`` submissions, one every ``--interval`` seconds, on a quiet system, then
    the same while ``--rejudge`` rejudge gradings (of the burst's submissions) wait in the
    rejudge queue. With one worker on live alone, the live p50 and p95 under the rejudge must stay
    within 1.5x of the quiet ones (exit status 1 otherwise); with both on both queues a learner
    may wait for the grading each worker is finishing, which the figures show.

Needs Debian's ``postgresql`` and ``redis-server`` (``scripts/services.py`` starts throwaway ones).
The figures go to docs/benchmarks.md ("Grading on many machines").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "scripts"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from services import local_services  # noqa: E402
from stack import Stack, fresh_database  # noqa: E402

from web.grading.health import percentiles  # noqa: E402

LEARNERS = 20
LIVE_TARGET = 1.5  # live latency during a rejudge, as a multiple of the quiet figure
TIME_CAP_S = 900.0  # the whole benchmark stops (and says so) past this


@dataclass
class Run:
    name: str
    submissions: int
    per_minute: float
    p50_s: float
    p95_s: float


def _codes() -> list[str]:
    from judge.exercises.exercise import resolve

    exercise = resolve("39")
    wrong = exercise.wrong_solutions()[:3]  # sorted; a wrong/*.patch expanded against the reference
    return [exercise.reference_path.read_text()] + [path.read_text() for path in wrong]


def _wait(stack: Stack, ids: list[int], deadline: float) -> dict[int, tuple[float, float]]:
    """Wait until the current gradings of submissions ``ids`` finish; (created, finished) epoch seconds each."""
    from sqlalchemy import select

    from web.core.models import Grading, Status

    sessions = stack.sessions()
    wanted = set(ids)
    while time.monotonic() < deadline:
        with sessions() as session:
            rows = session.execute(
                select(Grading.submission_id, Grading.status, Grading.created_at, Grading.finished_at).where(
                    Grading.submission_id.in_(wanted), Grading.rejudge_id.is_(None), Grading.priority == 0
                )
            ).all()
        if len(rows) == len(wanted) and all(status is Status.done for _, status, _, _ in rows):
            return {
                submission: (created.timestamp(), finished.timestamp()) for submission, _, created, finished in rows
            }
        time.sleep(0.2)
    raise TimeoutError(f"gradings still unfinished at the time cap ({TIME_CAP_S:.0f} s)")


def _as_run(name: str, times: dict[int, tuple[float, float]]) -> Run:
    latencies = [finished - created for created, finished in times.values()]
    span = max(f for _, f in times.values()) - min(c for c, _ in times.values())
    figures = percentiles(latencies)  # the health report's nearest-rank percentiles
    return Run(name, len(times), 60.0 * len(times) / span, figures["p50"], figures["p95"])


def burst(stack: Stack, count: int, deadline: float) -> tuple[Run, list[int]]:
    headers = stack.learners(LEARNERS)
    codes = _codes()
    ids = [stack.submit(headers[index % LEARNERS], codes[index % len(codes)], exercise=39) for index in range(count)]
    return _as_run("burst", _wait(stack, ids, deadline)), ids


def paced(stack: Stack, count: int, interval: float, deadline: float) -> Run:
    headers = stack.learners(count)
    reference = _codes()[0]
    ids = []
    for index in range(count):
        started = time.monotonic()
        ids.append(stack.submit(headers[index], reference, exercise=39))
        time.sleep(max(0.0, interval - (time.monotonic() - started)))
    return _as_run("paced", _wait(stack, ids, deadline))


def queue_rejudges(stack: Stack, submission_ids: list[int], count: int) -> int:
    """Queue ``count`` rejudge gradings of ``submission_ids`` (cycled) and publish them, as a course
    rejudge does (one INSERT, then one publish of everything queued)."""
    from web.core.config import Settings
    from web.core.models import Grading, Priority, Status
    from web.grading.broker import Broker
    from web.grading.queue import GradingQueue
    from web.grading.tasks import app_for

    settings = Settings(database_url=stack.database_url, secret_key="stack", broker_url=stack.broker_url)
    sessions = stack.sessions()
    with sessions() as session:
        session.add_all(
            Grading(
                submission_id=submission_ids[index % len(submission_ids)],
                status=Status.queued,
                priority=Priority.rejudge,
            )
            for index in range(count)
        )
        session.commit()
    queue = GradingQueue(sessions, None, workers=0, broker=Broker(app_for(settings)))
    queue.wake()
    return count


def _stack(where: Path, shape: dict, postgresql: str | None, redis: str | None) -> Stack:
    where.mkdir()
    stack = Stack(where, fresh_database(postgresql, where), broker_url=redis, lease_s=30, sweep_s=30, **shape)
    stack.start()
    return stack


def _live_during_rejudge(stack: Stack, runs: dict[str, Run], layout: str, ids: list[int], args, deadline) -> None:
    runs[f"{layout}: quiet"] = paced(stack, args.paced, args.interval, deadline)
    queue_rejudges(stack, ids, args.rejudge)
    runs[f"{layout}: during a rejudge"] = paced(stack, args.paced, args.interval, deadline)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=60)
    parser.add_argument("--paced", type=int, default=12)
    parser.add_argument("--interval", type=float, default=1.5)
    parser.add_argument("--rejudge", type=int, default=120)
    parser.add_argument("--quick", action="store_true", help="smaller counts (about 4 minutes on 2 cores)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.quick:
        args.burst, args.paced, args.rejudge = 24, 6, 60
    deadline = time.monotonic() + TIME_CAP_S
    runs: dict[str, Run] = {}
    with tempfile.TemporaryDirectory(prefix="probjudge-bench-") as temporary, local_services() as servers:
        folder = Path(temporary)
        configurations = [
            ("in-process (SQLite, 2 threads in the site)", dict(graders=0, site_workers=2), None, None),
            ("1 Celery worker process", dict(graders=1, threads=1), servers.postgresql_url, servers.redis_url),
            ("2 Celery worker processes", dict(graders=2, threads=1), servers.postgresql_url, servers.redis_url),
        ]
        # Live work during a rejudge, in the two layouts of docs/deploying.md: both workers take
        # both queues (live first), and one of them keeps to live work alone.
        layouts = [
            ("both workers on both queues", None),
            ("one worker on live alone", dict(graders=2, live_only=1, threads=1)),
        ]
        for number, (name, shape, postgresql, redis) in enumerate(configurations):
            stack = _stack(folder / f"stack{number}", shape, postgresql, redis)
            try:
                runs[name], ids = burst(stack, args.burst, deadline)
                if number == len(configurations) - 1:
                    _live_during_rejudge(stack, runs, layouts[0][0], ids, args, deadline)
            finally:
                stack.stop()
        stack = _stack(folder / "layout", layouts[1][1], servers.postgresql_url, servers.redis_url)
        try:
            _, ids = burst(stack, min(args.burst, 24), deadline)
            _live_during_rejudge(stack, runs, layouts[1][0], ids, args, deadline)
        finally:
            stack.stop()

    default = runs[configurations[0][0]]
    print(f"{'configuration':46} {'per minute':>10} {'p50 s':>7} {'p95 s':>7}  vs in-process")
    for name, _, _, _ in configurations:
        run = runs[name]
        print(
            f"{name:46} {run.per_minute:10.1f} {run.p50_s:7.2f} {run.p95_s:7.2f}  "
            f"{run.per_minute / default.per_minute:.2f}x"
        )
    one, two = runs[configurations[1][0]], runs[configurations[2][0]]
    print(f"2 worker processes vs 1: {two.per_minute / one.per_minute:.2f}x the throughput")
    ratios = []
    for layout, _ in layouts:
        quiet, busy = runs[f"{layout}: quiet"], runs[f"{layout}: during a rejudge"]
        p50_ratio, p95_ratio = busy.p50_s / quiet.p50_s, busy.p95_s / quiet.p95_s
        ratios.append(max(p50_ratio, p95_ratio))
        print(
            f"live, one every {args.interval} s, {layout}: quiet p50 {quiet.p50_s:.2f} s p95 {quiet.p95_s:.2f} s; "
            f"during a rejudge of {args.rejudge}: p50 {busy.p50_s:.2f} s p95 {busy.p95_s:.2f} s "
            f"({p50_ratio:.2f}x, {p95_ratio:.2f}x)"
        )
    print(
        f"target: live within {LIVE_TARGET}x of quiet with one worker on live alone: "
        f"{'met' if ratios[1] <= LIVE_TARGET else 'NOT met'} ({ratios[1]:.2f}x)"
    )
    if args.json:
        args.json.write_text(json.dumps({name: asdict(run) for name, run in runs.items()}, indent=2))
    return 0 if ratios[1] <= LIVE_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
