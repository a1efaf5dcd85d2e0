#!/usr/bin/env python3
"""A warm site against a fresh process: verdict latency, throughput, and where one grading's time goes.

    .venv/bin/python benchmarks/load.py [--cli-runs 5] [--cli-pairs 3] [--latency 10] [--burst 120]
                                        [--split 10] [--lanes 2] [--quick] [--json PATH]

Everything is exercise 39's reference, loopback only, bounded in count and time (``TIME_CAP_S``).

(a) **Fresh CLI**: the whole ``python practice/judge.py test 39 solutions/039-sampling/reference.py``
    run as a new process, ``--cli-runs`` times one after the other (median wall clock); then
    ``--cli-pairs`` rounds of two such processes at once (gradings per minute).
(b) **The site, warm**: ``python -m web serve`` on SQLite with two grading threads in its process
    (the default deployment), each grading on ``--lanes`` learner processes (``PROBJUDGE_LANES``,
    default 2 as on a site) under the strict sandbox where this machine offers it. After a warm-up
    (every grading thread judges twice), ``--latency`` submissions one after the other, each timed
    from the POST to the answer of a GET of the submission through the API that waits for its
    verdict (``?wait=30``, what the page and ``practice/judge.py submit`` do): median. Then
    ``--burst`` submissions handed in at once (3 per learner):
    gradings per minute from the first submission's creation to the last verdict.
(c) **One grading, split**: after the site stops, ``--split`` more gradings of the same submission
    on one lane (so that the parts add up to its wall time),
    claimed, judged and written in this process by the grading queue's own methods (the ones the
    site's workers call), with the same sandbox. The database's share is the claim plus the
    write; the report's ``timing`` splits the rest into learner start, the learner's functions,
    transfer (encode, pipe, decode on both sides), the judge's own work and the learner's close.

The targets (issue 16): (b)'s latency at least ``TARGET_RATIO`` times faster than (a)'s single run,
(b)'s throughput at least ``TARGET_RATIO`` times (a)'s pairs, and the judge's own work under a
third of a grading. Exit status 1 when one is missed. Figures go to docs/benchmarks.md ("Load").
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "scripts"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from stack import Stack, fresh_database  # noqa: E402

from benchmarks._common import machine  # noqa: E402

TARGET_RATIO = 12.0
JUDGE_SHARE_TARGET = 1 / 3
TIME_CAP_S = 900.0
LEARNERS = 40  # the burst's authors: 3 submissions each stays under the limit of waiting ones
SPLIT_PARTS = ("start_ms", "learner_ms", "transfer_ms", "judge_ms", "end_ms")


@dataclass
class Figures:
    machine: dict
    cli_s: list[float] = field(default_factory=list)
    cli_pairs_per_minute: float = 0.0
    sandbox: str = ""
    lanes: int = 2
    latency_s: list[float] = field(default_factory=list)
    burst_per_minute: float = 0.0
    burst_p50_s: float = 0.0
    split_ms: dict[str, float] = field(default_factory=dict)

    @property
    def cli_median_s(self) -> float:
        return statistics.median(self.cli_s)

    @property
    def latency_median_s(self) -> float:
        return statistics.median(self.latency_s)

    @property
    def latency_ratio(self) -> float:
        return self.cli_median_s / self.latency_median_s

    @property
    def throughput_ratio(self) -> float:
        return self.burst_per_minute / self.cli_pairs_per_minute

    @property
    def judge_share(self) -> float:
        return self.split_ms["judge_ms"] / self.split_ms["grading_ms"]


def _reference() -> Path:
    from judge.exercises.exercise import resolve

    return resolve("39").reference_path


def _cli_command() -> list[str]:
    return [sys.executable, str(ROOT / "practice" / "judge.py"), "test", "39", str(_reference())]


def fresh_cli(runs: int) -> list[float]:
    """Wall seconds of ``runs`` whole CLI runs, one after the other (each must print AC)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(_cli_command(), cwd=ROOT, capture_output=True, text=True, timeout=300)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"the CLI did not accept the reference:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return times


def fresh_cli_pairs(rounds: int) -> float:
    """Gradings per minute of whole CLI runs started two at a time, ``rounds`` times."""
    started = time.perf_counter()
    for _ in range(rounds):
        pair = [subprocess.Popen(_cli_command(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        pair.append(subprocess.Popen(_cli_command(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        if any(process.wait(timeout=300) != 0 for process in pair):
            raise RuntimeError("a CLI run of the pair did not accept the reference")
    return 60.0 * 2 * rounds / (time.perf_counter() - started)


def _get(stack: Stack, headers: dict[str, str], submission_id: int) -> dict:
    """The submission through the API, once its verdict is in (or after 30 s)."""
    url = f"http://127.0.0.1:{stack.port}/api/v1/submissions/{submission_id}?wait=30"
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


def verdict_latency(stack: Stack, headers: dict[str, str], code: str) -> float:
    """Seconds from POSTing ``code`` to a GET of it through the API that shows a verdict (AC)."""
    deadline = time.monotonic() + 120
    started = time.perf_counter()
    submission_id = stack.submit(headers, code, exercise=39)
    while True:
        view = _get(stack, headers, submission_id)
        if view["status"] == "done":
            elapsed = time.perf_counter() - started
            if view["verdict"] != "AC":
                raise RuntimeError(f"the reference got {view['verdict']}: {view.get('message')}")
            return elapsed
        if time.monotonic() > deadline:
            raise TimeoutError(f"submission {submission_id} had no verdict after 120 s")


def burst(stack: Stack, code: str, count: int) -> tuple[float, float]:
    """Gradings per minute and median latency (s) of ``count`` submissions handed in at once."""
    from sqlalchemy import select

    from web.core.models import Grading, Status

    headers = stack.learners(LEARNERS)
    ids = [stack.submit(headers[index % LEARNERS], code, exercise=39) for index in range(count)]
    sessions = stack.sessions()
    deadline = time.monotonic() + TIME_CAP_S
    while time.monotonic() < deadline:
        with sessions() as session:
            rows = session.execute(
                select(Grading.status, Grading.created_at, Grading.finished_at, Grading.verdict).where(
                    Grading.submission_id.in_(ids)
                )
            ).all()
        if len(rows) == count and all(status is Status.done for status, _, _, _ in rows):
            wrong = [verdict for _, _, _, verdict in rows if verdict.value != "AC"]
            if wrong:
                raise RuntimeError(f"{len(wrong)} gradings of the reference were not AC: {wrong[:5]}")
            span = (max(f for _, _, f, _ in rows) - min(c for _, c, _, _ in rows)).total_seconds()
            return 60.0 * count / span, statistics.median((f - c).total_seconds() for _, c, f, _ in rows)
        # The span comes from the rows' own times, so looking rarely loses nothing, and leaves
        # the site the CPU each look takes (a query of every row of the burst).
        time.sleep(1.0)
    raise TimeoutError("the burst was not graded within the time cap")


def split_one_grading(database_url: str, submission_id: int, sandbox: str, runs: int) -> dict[str, float]:
    """Median milliseconds of each part of one grading, judged here by the queue's own methods."""
    from judge.sandbox import launcher_for
    from web.core.database import make_engine, session_factory
    from web.core.models import Grading, Priority, Status
    from web.grading.queue import GradingQueue

    sessions = session_factory(make_engine(database_url))
    launcher = launcher_for(sandbox)
    queue = GradingQueue(sessions, launcher, workers=0)
    parts: dict[str, list[float]] = {key: [] for key in (*SPLIT_PARTS, "database_ms", "grading_ms")}
    try:
        for index in range(runs + 2):  # two warm-ups: the fork server and the suites' caches
            with sessions() as session:
                grading = Grading(submission_id=submission_id, status=Status.queued, priority=Priority.live)
                session.add(grading)
                session.commit()
                grading_id = grading.id
            started = time.perf_counter()
            claim = queue.claim(grading_id=grading_id)
            claimed = time.perf_counter()
            assert claim is not None
            report = queue.judge(claim)
            judged = time.perf_counter()
            if not queue.finish(claim, report) or report.verdict.value != "AC":
                raise RuntimeError(f"grading {grading_id}: {report.verdict.value} {report.message}")
            finished = time.perf_counter()
            if index < 2:
                continue
            for key in SPLIT_PARTS:
                parts[key].append(report.timing[key])
            parts["database_ms"].append(1000 * ((claimed - started) + (finished - judged)))
            parts["grading_ms"].append(1000 * (finished - started))
    finally:
        launcher.close()
    return {key: statistics.median(values) for key, values in parts.items()}


def site(figures: Figures, folder: Path, args: argparse.Namespace) -> None:
    """(b) and (c): the warm site's latency and burst, then one grading split."""
    stack = Stack(folder, fresh_database(None, folder), graders=0, site_workers=2, lease_s=60, lanes=args.lanes)
    figures.lanes = args.lanes
    stack.start()
    code = _reference().read_text()
    try:
        figures.sandbox = stack.environment()["PROBJUDGE_SANDBOX"]
        headers = stack.learners(1)[0]
        for _ in range(4):  # each grading thread judges twice: the fork server, imports, caches are warm
            verdict_latency(stack, headers, code)
        figures.latency_s = [verdict_latency(stack, headers, code) for _ in range(args.latency)]
        figures.burst_per_minute, figures.burst_p50_s = burst(stack, code, args.burst)
        last = stack.submit(headers, code, exercise=39)
    finally:
        stack.stop()
    figures.split_ms = split_one_grading(stack.database_url, last, figures.sandbox, args.split)


def report(figures: Figures, args: argparse.Namespace) -> bool:
    """Print the figures; True when every target is met."""
    split = figures.split_ms
    print(f"machine: {figures.machine}")
    print(
        f"(a) fresh CLI, one at a time: median {figures.cli_median_s:.2f} s over {len(figures.cli_s)} runs "
        f"({', '.join(f'{t:.2f}' for t in figures.cli_s)}); "
        f"two at a time: {figures.cli_pairs_per_minute:.1f} per minute"
    )
    print(
        f"(b) warm site ({figures.sandbox} sandbox, SQLite, 2 grading threads of {figures.lanes} lane(s) each): "
        "submission to verdict through "
        f"the API, median {figures.latency_median_s * 1000:.0f} ms over {len(figures.latency_s)} "
        f"(min {min(figures.latency_s) * 1000:.0f}, max {max(figures.latency_s) * 1000:.0f}; one GET with "
        f"?wait=30); {args.burst} at once: {figures.burst_per_minute:.1f} per minute "
        f"(median latency {figures.burst_p50_s:.1f} s)"
    )
    print(f"(c) one grading on one lane, median of {args.split}, {split['grading_ms']:.0f} ms from claim to result:")
    labels = {
        "database_ms": "database (claim + result, two transactions)",
        "start_ms": "learner process start and load",
        "learner_ms": "learner's functions",
        "transfer_ms": "transfer (encode, pipe, decode)",
        "judge_ms": "judge's own work (cases, targets, statistics, report)",
        "end_ms": "learner process close",
    }
    for key, label in labels.items():
        print(f"    {label:56} {split[key]:7.1f} ms  {split[key] / split['grading_ms']:6.1%}")
    targets = [
        ("verdict latency vs a fresh CLI run", figures.latency_ratio, TARGET_RATIO),
        ("throughput vs fresh CLI runs two at a time", figures.throughput_ratio, TARGET_RATIO),
    ]
    met = True
    for name, ratio, target in targets:
        ok = ratio >= target
        met &= ok
        print(f"target {name}: {ratio:.1f}x (at least {target:g}x) {'met' if ok else 'NOT met'}")
    ok = figures.judge_share < JUDGE_SHARE_TARGET
    met &= ok
    print(f"target judge's own work under a third of a grading: {figures.judge_share:.1%} {'met' if ok else 'NOT met'}")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli-runs", type=int, default=5, help="fresh CLI runs one at a time (default 5)")
    parser.add_argument("--cli-pairs", type=int, default=3, help="rounds of two fresh CLI runs at once (default 3)")
    parser.add_argument("--latency", type=int, default=10, help="warm submissions one after the other (default 10)")
    parser.add_argument("--burst", type=int, default=120, help="submissions handed in at once (default 120)")
    parser.add_argument("--split", type=int, default=10, help="gradings split into parts (default 10)")
    parser.add_argument(
        "--lanes", type=int, default=2, help="the site's PROBJUDGE_LANES in (b) (default 2, the site's default)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="3 CLI runs, 2 pairs, 6 latencies, a burst of 60, 6 splits"
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.cli_runs, args.cli_pairs, args.latency = (
            min(args.cli_runs, 3),
            min(args.cli_pairs, 2),
            min(args.latency, 6),
        )
        args.burst, args.split = min(args.burst, 60), min(args.split, 6)
    if (
        min(args.cli_runs, args.cli_pairs, args.latency, args.burst, args.split, args.lanes) < 1
        or args.burst > 3 * LEARNERS
    ):
        parser.error(f"every count must be at least 1, and --burst at most {3 * LEARNERS}")
    figures = Figures(machine=machine())
    figures.cli_s = fresh_cli(args.cli_runs)
    figures.cli_pairs_per_minute = fresh_cli_pairs(args.cli_pairs)
    with tempfile.TemporaryDirectory(prefix="probjudge-load-") as temporary:
        site(figures, Path(temporary) / "site", args)
    met = report(figures, args)
    if args.json:
        data = asdict(figures)
        data.update(
            latency_ratio=figures.latency_ratio,
            throughput_ratio=figures.throughput_ratio,
            judge_share=figures.judge_share,
        )
        args.json.write_text(json.dumps(data, indent=2))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
