#!/usr/bin/env python3
"""The diff page's worst inputs: the old quadratic difflib diff against the bounded one.

    .venv/bin/python benchmarks/diff_worst_case.py [--repeats 3] [--served]

For each input (two attempts a learner could submit), times, best of ``--repeats``, the diff
the page used to run (``difflib.SequenceMatcher(autojunk=False)``, copied here as it was) and
:func:`web.teaching.diffing.code_diff`, and prints both and their ratio, with the bounded diff's steps
and whether it was too large or coarse. The target: the worst input the page diffs takes well
under 100 ms. Inputs over the limits are answered "too large" (the second column is that
answer's cost); the old diff took seconds on them.

``--served`` also measures what the diffs did to the rest of the site: 8 diff requests (each a
different pair of two 36 KB attempts, so the cache does not help) go to a site served by a pool
of 4 threads (a small gunicorn), then the liveness probe; it prints how long the probe waited,
with the old diff patched in and with the bounded one.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import random
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from web.teaching.diffing import MAX_LINES, code_diff  # noqa: E402  (after the path is set)


def old_diff(old: str, new: str) -> int:
    """What ``web.teaching.diffing.code_diff`` did before it was bounded: its rows' count."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    return sum(i2 - i1 + j2 - j1 for group in matcher.get_grouped_opcodes(3) for _, i1, i2, j1, j2 in group)


def random_lines(count: int, seed: int, width: int = 30) -> str:
    rng = random.Random(seed)
    return "".join("".join(rng.choice("abcdefghij ") for _ in range(width)) + "\n" for _ in range(count))


def inputs() -> dict[str, tuple[str, str]]:
    half = MAX_LINES // 2 - 1
    rng = random.Random(3)
    return {
        "36 KB random lines": (random_lines(1200, 1), random_lines(1200, 2)),
        "36 KB one repeated line (over the limit)": ("x = 1\n" * 6000, "x = 1\n" * 3000 + "y\n" + "x = 1\n" * 3000),
        f"{MAX_LINES - 1} repeated lines, one changed": ("x\n" * (MAX_LINES - 1), "x\n" * half + "y\n" + "x\n" * half),
        "two blocks swapped": ("a\n" * half + "b\n" * half, "b\n" * half + "a\n" * half),
        "alternating lines": ("a\nb\n" * half, "b\na\n" * half),
        "two symbols, random": (
            "".join(rng.choice("ab\n") for _ in range(3 * MAX_LINES // 2)),
            "".join(rng.choice("ab\n") for _ in range(3 * MAX_LINES // 2)),
        ),
        "one 36 KB line": ("a" * 36_000, "b" * 36_000),
    }


def best(repeats: int, run) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def old_code_diff(old: str, new: str):
    """The old diff's cost with the new diff's answer shape (for the served measurement)."""
    from web.teaching.diffing import CodeDiff

    old_diff(old, new)
    return CodeDiff([], 0, 0)


def probe_wait(patched: bool, threads: int = 4, requests: int = 8) -> float:
    """Seconds the liveness probe waited behind ``requests`` diffs on a pool of ``threads``."""
    from unittest import mock

    from judge.engine.process import LocalLauncher
    from web.app import create_app
    from web.core.config import Settings
    from web.core.models import Exercise, Role, Submission
    from web.services import services
    from web.teaching import diffing

    folder = tempfile.mkdtemp(prefix="diff-bench-")
    settings = Settings(
        database_url=f"sqlite:///{folder}/site.db", secret_key="bench", workers=1, sandbox="local", rate_limits=False
    )
    app = create_app(settings, launcher=LocalLauncher(), start_workers=False)
    app.config["WTF_CSRF_ENABLED"] = False
    from sqlalchemy import select

    from web.accounts.users import create_user

    with services(app).sessions() as session:
        user = create_user(session, "ann", "password123", Role.learner)
        exercise = session.scalars(select(Exercise)).first()
        big = "x = 1\n" * 6000
        ids = []
        for n in range(2 * requests):
            row = Submission(user=user, exercise=exercise, code=big[: len(big) - 6 * (n % 7)] + f"y = {n}\n")
            session.add(row)
            session.flush()
            ids.append(row.id)
        session.commit()
    clients = []
    for _ in range(threads):
        client = app.test_client()
        client.post("/auth/sign-in", data={"name": "ann", "password": "password123"})
        clients.append(client)
    pool = ThreadPoolExecutor(max_workers=threads)
    patch = mock.patch.object(diffing, "code_diff", old_code_diff) if patched else contextlib.nullcontext()
    with patch:
        for n in range(requests):
            pool.submit(lambda n=n: clients[n % threads].get(f"/submissions/{ids[2 * n]}/diff/{ids[2 * n + 1]}"))
        asked = time.perf_counter()
        probe = pool.submit(lambda: app.test_client().get("/api/v1/health/live"))
        assert probe.result().status_code == 200
        waited = time.perf_counter() - asked
        pool.shutdown(wait=True)
    services(app).queue.stop()
    return waited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--served", action="store_true", help="also time the liveness probe behind 8 diffs")
    args = parser.parse_args()
    print(f"{'input':45s} {'before ms':>10s} {'after ms':>9s} {'ratio':>7s}  steps / answer")
    worst_after = 0.0
    for name, (old, new) in inputs().items():
        before = best(args.repeats, lambda old=old, new=new: old_diff(old, new))
        after = best(args.repeats, lambda old=old, new=new: code_diff(old, new))
        diff = code_diff(old, new)
        answer = "too large" if diff.too_large else ("coarse" if diff.coarse else "exact")
        worst_after = max(worst_after, after)
        print(f"{name:45s} {before * 1e3:10.1f} {after * 1e3:9.1f} {before / after:7.1f}  {diff.steps} / {answer}")
    print(f"worst after: {worst_after * 1e3:.1f} ms (target: well under 100 ms)")
    if args.served:
        before, after = probe_wait(patched=True), probe_wait(patched=False)
        print(
            f"liveness probe behind 8 diffs on 4 threads: before {before:.2f} s, after {after:.3f} s"
            f" (ratio {before / after:.0f})"
        )


if __name__ == "__main__":
    main()
