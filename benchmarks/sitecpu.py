"""Benchmark the site's own CPU per submission: everything the site does for one but judge it.

    .venv/bin/python benchmarks/sitecpu.py [--submissions N] [--warmups N] [--json PATH]

A site in this process (``create_app`` on a fresh SQLite file, no worker threads, rate limits
off as in ``benchmarks/load.py``'s stack) and 40 learners with API tokens. Each submission of
exercise 39's reference goes the way a burst's does, by the queue's own methods and the API:

- ``post_ms``: ``POST /api/v1/submissions`` (token, exercise, queue count, the insert);
- ``claim_ms``: :meth:`GradingQueue.claim` (the claim's transaction);
- ``finish_ms``: :meth:`GradingQueue.finish` with a report judged once beforehand (the result's
  transaction, the report's JSON included);
- ``get_ms``: ``GET /api/v1/submissions/ID?wait=30`` once the verdict is written (what a waiting
  client's request costs when it returns).

CPU time (``time.process_time``; no other thread runs), means over the measured submissions.
Flask's test client stands in for the HTTP server (waitress adds its own per request). Run it
from an older checkout to compare versions; alternate the two and repeat on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from stack import make_learners  # noqa: E402

from judge.engine.process import LocalLauncher  # noqa: E402
from judge.engine.runner import grade  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from web.app import create_app  # noqa: E402
from web.core.config import Settings  # noqa: E402
from web.services import services  # noqa: E402

LEARNERS = 40
PARTS = ("post_ms", "claim_ms", "finish_ms", "get_ms")


def measure(submissions: int, warmups: int) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="sitecpu-"))
    settings = Settings(
        database_url=f"sqlite:///{folder / 'site.db'}", secret_key="bench", sandbox="local", rate_limits=False
    )
    app = create_app(settings, launcher=LocalLauncher(), start_workers=False)
    site = services(app)
    queue = site.queue
    exercise = resolve("39")
    code = exercise.reference_path.read_text()
    report = grade(exercise, code, suites=queue.suites, launcher=LocalLauncher(), lanes=1)
    headers = make_learners(site.sessions, LEARNERS)
    client = app.test_client()
    body = json.dumps({"exercise": "39", "code": code})
    parts: dict[str, list[float]] = {part: [] for part in PARTS}

    def one(index: int) -> tuple[float, ...]:
        who = headers[index % LEARNERS]
        started = time.process_time()
        posted = client.post("/api/v1/submissions", data=body, headers=who)
        after_post = time.process_time()
        assert posted.status_code == 202, posted.data
        claim = queue.claim("bench")
        after_claim = time.process_time()
        assert claim is not None
        assert queue.finish(claim, report)
        after_finish = time.process_time()
        shown = client.get(f"/api/v1/submissions/{posted.get_json()['id']}?wait=30", headers=who)
        after_get = time.process_time()
        assert shown.status_code == 200 and shown.get_json()["verdict"] == "AC"
        return (
            after_post - started,
            after_claim - after_post,
            after_finish - after_claim,
            after_get - after_finish,
        )

    for index in range(warmups):
        one(index)
    for index in range(submissions):
        for part, seconds in zip(PARTS, one(warmups + index), strict=True):
            parts[part].append(seconds * 1000)
    figures = {part: statistics.fmean(values) for part, values in parts.items()}
    figures["total_ms"] = sum(figures[part] for part in PARTS)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--warmups", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = measure(args.submissions, args.warmups)
    for key, value in figures.items():
        print(f"{key:10s} {value:7.2f} ms CPU per submission")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
