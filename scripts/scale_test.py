"""``make test-scale``: grading on many machines, with a worker killed and Redis restarted mid-run.

The site, two Celery worker processes and beat run on throwaway PostgreSQL and Redis servers
(loopback, their own data directories: ``scripts/services.py``). 50 learners hand in 200
submissions through the API, half right and half wrong. Meanwhile one worker is killed with
SIGKILL while it holds a grading, and Redis is restarted without its data (every message waiting
in it is lost) while submissions keep coming.

It passes when every submission has exactly one grading, finished, with the right verdict; each
grading was started once, except the killed worker's, which the other worker took over (attempt
2) and finished. It prints one line: ``graded N/N exactly once, ...``. ``tests/web/test_scale.py``
runs the same scenario in ``make test``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import REFERENCE, WRONG, Stack, fresh_database  # noqa: E402 - after the path is set


@dataclass(frozen=True)
class Outcome:
    submissions: int
    graded_once: int
    right_verdicts: int
    taken_over: int
    sweep_published: int
    p50_s: float
    p95_s: float
    elapsed_s: float
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        line = (
            f"graded {self.graded_once}/{self.submissions} exactly once, "
            f"right verdicts {self.right_verdicts}/{self.submissions}, "
            f"{self.taken_over} taken over from the killed worker, "
            f"{self.sweep_published} published again after the Redis restart, "
            f"submission to verdict p50 {self.p50_s:.2f} s p95 {self.p95_s:.2f} s, in {self.elapsed_s:.0f} s"
        )
        return line if self.passed else line + "; FAILED: " + "; ".join(self.problems)


def run_scenario(
    folder: Path,
    database_url: str,
    broker_url: str | None,
    restart_redis: Callable[[], None] | None,
    *,
    submissions: int = 200,
    learners: int = 50,
    site_workers: int = 0,
    timeout_s: float = 600.0,
) -> Outcome:
    """Run the scenario of the module docstring on a fresh database; never raises for a failed check.

    Without ``broker_url`` it is the default configuration's: graders that poll the database
    (and ``site_workers`` threads in the site), nothing to restart. Every process that grades
    must have written results (a check that the work was shared).
    """
    from sqlalchemy import func, select

    from judge.verdicts import Verdict
    from web.core.models import Grading, Status, Submission
    from web.grading.health import percentiles

    started = time.monotonic()
    stack = Stack(
        folder,
        database_url,
        broker_url=broker_url,
        graders=2,
        threads=1,
        site_workers=site_workers,
        lease_s=10,  # heartbeats every 3.3 s: a loaded machine (tests run in parallel) never misses one
        sweep_s=1,
        sleep_s=0.2,
    )
    problems: list[str] = []
    expected: dict[int, Verdict] = {}
    try:
        stack.start()
        headers = stack.learners(learners)
        sessions = stack.sessions()
        victim = stack.grader_processes[0]
        marker = f":{victim.popen.pid}:"
        held = None
        sweeps_before = 0
        for index in range(submissions):
            code = REFERENCE if index % 2 == 0 else WRONG
            # Learners take turns, so nobody has more than 5 submissions waiting (the site's limit).
            expected[stack.submit(headers[index % learners], code)] = Verdict.AC if index % 2 == 0 else Verdict.WA
            if index == submissions // 4:
                held = _kill_while_holding(sessions, victim, marker)
            if index == submissions // 2 and restart_redis is not None:
                sweeps_before = _sweep_count(stack)
                restart_redis()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with sessions() as session:
                waiting = session.scalar(select(func.count()).select_from(Grading).where(Grading.status != Status.done))
            if not waiting:
                break
            time.sleep(0.5)
        else:
            problems.append(f"{waiting} gradings still unfinished after {timeout_s:.0f} s")
        with sessions() as session:
            rows = session.scalars(select(Submission).order_by(Submission.id)).all()
            once = [s for s in rows if len(s.gradings) == 1 and s.gradings[0].status is Status.done]
            right = [s for s in rows if s.current is not None and s.current.verdict is expected.get(s.id)]
            if len(rows) != submissions:
                problems.append(f"{len(rows)} submissions stored, {submissions} sent")
            if len(once) != len(rows):
                problems.append(f"{len(rows) - len(once)} submissions without exactly one finished grading")
            if len(right) != len(rows):
                problems.append(f"{len(rows) - len(right)} wrong verdicts")
            gradings = [g for s in rows for g in s.gradings]
            restarted = [g for g in gradings if g.attempts != 1]
            taken_over = [g for g in restarted if g.id == held and g.attempts == 2 and marker not in (g.worker or "")]
            if held is None:
                problems.append("the victim never held a grading")
            elif len(taken_over) != 1 or len(restarted) != 1:
                problems.append(
                    "exactly the killed worker's grading should have been started twice; attempts: "
                    + ", ".join(f"grading {g.id}: {g.attempts} by {g.worker}" for g in restarted)
                )
            writers = {(g.worker or "").split(":")[1] for g in gradings if g.attempts == 1 and g.worker}
            expected_writers = {str(p.popen.pid) for p in stack.grader_processes[1:]}
            if site_workers:
                expected_writers.add(str(stack.processes[0].popen.pid))
            if not expected_writers <= writers:
                problems.append(f"not every grading process wrote results: {sorted(expected_writers - writers)}")
            latencies = [
                (g.finished_at - g.created_at).total_seconds()
                for g in gradings
                if g.finished_at is not None and g.created_at is not None
            ]
        sweep_published = _sweep_count(stack) - sweeps_before
        figures = percentiles(latencies)  # the health report's nearest-rank percentiles
        return Outcome(
            submissions=submissions,
            graded_once=len(once),
            right_verdicts=len(right),
            taken_over=len(taken_over),
            sweep_published=sweep_published,
            p50_s=figures["p50"] or 0.0,
            p95_s=figures["p95"] or 0.0,
            elapsed_s=time.monotonic() - started,
            problems=tuple(problems),
        )
    finally:
        stack.stop()


def _kill_while_holding(sessions, victim, marker: str) -> int | None:
    """SIGKILL ``victim`` while it holds a grading; return that grading's id (None: never held).

    The victim is frozen (SIGSTOP) before the check that it still holds the grading, so it cannot
    finish it between the check and the kill; if it had finished, it is thawed and watched again.
    """
    import signal

    from sqlalchemy import select

    from web.core.models import Grading, Status

    def holding():
        with sessions() as session:
            return session.scalar(
                select(Grading.id).where(Grading.status == Status.running, Grading.worker.contains(marker))
            )

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if holding() is not None:
            os.killpg(victim.popen.pid, signal.SIGSTOP)
            held = holding()
            if held is not None:
                victim.kill()
                return held
            os.killpg(victim.popen.pid, signal.SIGCONT)
        time.sleep(0.02)
    return None


def _sweep_count(stack: Stack) -> int:
    """Gradings the sweeps published again so far, from the workers' logs."""
    import re

    total = 0
    for process in stack.grader_processes:
        for line in list(process.lines):
            found = re.search(r"published again: (\d+) never published, (\d+) lease expired, (\d+) lost", line)
            if found:
                total += sum(int(part) for part in found.groups())
    return total


@contextlib.contextmanager
def servers() -> Iterator[tuple[str, str, Callable[[], None]]]:
    """Throwaway PostgreSQL and Redis servers of its own (Redis is restarted on purpose, so never
    one that something else uses)."""
    from services import local_services

    # A folder of its own under the system's temporary directory: as root, PostgreSQL runs as the
    # postgres user, who must be able to reach it.
    with local_services(postgresql=True, redis=True) as found:
        yield found.postgresql_url, found.redis_url, found.restart_redis


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--learners", type=int, default=50)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="probjudge-scale-") as temporary:
        folder = Path(temporary)
        with servers() as (postgresql, redis, restart):
            database = fresh_database(postgresql, folder)
            outcome = run_scenario(
                folder / "stack", database, redis, restart, submissions=args.submissions, learners=args.learners
            )
    print(outcome.summary(), flush=True)
    return 0 if outcome.passed else 1


if __name__ == "__main__":
    sys.exit(main())
