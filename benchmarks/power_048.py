#!/usr/bin/env python3
"""Power of exercise 48's suite: which check kills each known-wrong solution, under every seed, and the
margins of its randomness checks.

    .venv/bin/python benchmarks/power_048.py [--seeds 5] [--reference-seeds 20] [--quick] [--json PATH]

Exercise 48's mistakes are of two kinds. Most are caught by hard checks (a greedy token, a
log-probability outside the tolerance, a token that changes when the batch does, the global generator
touched, a draw site at an extreme, a bad input accepted). The randomness mistakes are caught by checks
whose chance of failing a correct sampler is computed exactly, and which the mistake fails on every
run: requests that differ only in their seed (or their offset) tied, and requests whose (seed, offset)
pairs collide under seed + offset, seed XOR offset or K * seed + offset agreeing at every position.
This script measures:

* every file of ``solutions/048-batched-sampler/wrong/`` judged (public + hidden) under ``--seeds``
  master seeds: the verdict, the first failing case, and whether the headline diagnosis equals the
  file's ``Diagnosis:`` under every seed (P(kill): the share of seeds that kill it with it);
* the reference under ``--reference-seeds`` seeds: its false failures and the suite's time;
* for each randomness check, the chance that a correct sampler fails it (the seeds checks: every draw
  repeated, ``prod (sum p^2)^n``; the collision checks: the exact binomial tail of 200 agreements in
  200 pairs against the check's level) next to what the mistake gives (identical draws: killed).

``--quick`` uses 1 seed per wrong solution and 3 for the reference. Exits 1 if a wrong solution
survives a seed or gets another diagnosis, or if the reference fails a seed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from benchmarks._common import (  # noqa: E402
    catalogue_kills,
    console,
    machine,
    reference_runs,
    spaced_seeds,
    warm_launcher,
    write_json,
)
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import load_suite, suites_module  # noqa: E402

EXERCISE_ID = "48"


def randomness_margins(exercise) -> list[dict]:
    """Each randomness check: the chance that a correct sampler fails it, and the mistakes it kills."""
    load_suite(exercise, "hidden")
    cases = suites_module(exercise, "hidden.cases")
    fit = cases.same_row(cases.FIT_LOGITS, cases.FIT_PARAMS, torch.float32, 1).probs[0]
    pair = cases.same_row(cases.PAIR_LOGITS, cases.PAIR_PARAMS, torch.float64, 1).probs[0]
    collide = float((fit**2).sum())
    agree = float((pair**2).sum())
    rows = [
        {
            "check": "seeds differ, one offset (150 vs 150 requests)",
            "log10_false_failure": 150 * math.log10(collide),
            "kills": "seed_shift_32 (the seed lost: every token equal)",
        },
        {
            "check": "other requests' seeds changed (299 requests)",
            "log10_false_failure": 299 * math.log10(collide),
            "kills": "batch_generator (tokens unchanged)",
        },
        {
            "check": "offsets o..o+999 against o+1000..o+1999",
            "log10_false_failure": 1000 * math.log10(collide),
            "kills": "offset_ignored (every token equal)",
        },
        {
            "check": "collisions: 200 of 200 pairs agree (each family)",
            "log10_false_failure": 200 * math.log10(agree),
            "kills": "seed_plus_offset, seed_xor_offset, seed_times_1000 (each in its family)",
        },
    ]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="master seeds per wrong solution")
    parser.add_argument("--reference-seeds", type=int, default=20, help="master seeds for the reference")
    parser.add_argument("--quick", action="store_true", help="1 seed per wrong solution, 3 for the reference")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.reference_seeds = 1, 3
    exercise = resolve(EXERCISE_ID)
    started = time.monotonic()
    with warm_launcher() as launcher:  # one fork server for every learner process of the run
        rows = catalogue_kills(exercise, spaced_seeds(args.seeds, 48_000), launcher)
        reference = reference_runs(exercise, spaced_seeds(args.reference_seeds, 4_800_000), launcher)
    margins = randomness_margins(exercise)
    out = console()
    from rich.table import Table

    table = Table(title=f"Exercise 48: every known mistake under {args.seeds} seeds")
    for column in ("mistake", "verdict", "killed by (first failing case)", "failing", "P(kill)", "diagnosed"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["mistake"],
            row["verdict"],
            row["killed_by"],
            f"{row['failing_cases']}/{row['cases']}",
            f"{row['p_kill']:.0f}",
            "yes" if row["diagnosed_every_seed"] else "NO",
        )
    out.print(table)
    checks = Table(title="Randomness checks: a correct sampler's chance of failing them (log10)")
    for column in ("check", "log10 P(correct fails)", "kills"):
        checks.add_column(column)
    for row in margins:
        checks.add_row(row["check"], f"{row['log10_false_failure']:.0f}", row["kills"])
    out.print(checks)
    out.print(
        f"reference: {reference['failures']} failures in {reference['seeds']} seeds; suite "
        f"{reference['suite_ms_median']:.0f} ms wall, {reference['suite_cpu_ms_median']:.0f} ms CPU of the "
        f"learner (median); slowest case {reference['slowest_case']}"
    )
    out.print(f"measured in {time.monotonic() - started:.0f} s")
    bad = [r["mistake"] for r in rows if not (r["killed_every_seed"] and r["diagnosed_every_seed"])]
    if args.json:
        write_json(
            args.json,
            {"machine": machine(), "wrong": rows, "reference": reference, "margins": margins, "seeds": args.seeds},
        )
    if bad or reference["failures"]:
        out.print(f"[red]not killed with the promised diagnosis: {bad}; reference failures: {reference['failures']}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
