#!/usr/bin/env python3
"""Power of exercise 42's suite: which check kills each known-wrong solution, under every seed.

    .venv/bin/python benchmarks/power_042.py [--seeds 5] [--reference-seeds 20] [--quick] [--json PATH]

Exercise 42's learner code draws nothing, and every check is exact: a wrong solution is killed by a
hard check (a token that differs, a value outside the tolerance, an exception, an accepted bad input,
a refused legal corner) or it is not. But the hidden inputs are drawn under each case's seed (random
models with any eos_id, tie models from templates, generated bad inputs and corners), so the master
seed changes the instances a mistake meets. This script measures what the catalogue needs:

* every file of ``solutions/042-sequence-decoding/wrong/`` (``.py`` and ``.patch``) is judged (public
  + hidden) under ``--seeds`` master seeds; reported: the verdict, the first case that fails (the check
  that kills it), how many cases fail, and whether the judge's headline diagnosis equals the file's
  promised ``Diagnosis:`` under every seed. P(kill) is the share of seeds that kill it with that
  diagnosis (a drawn case that missed a mistake under some seed would show here below 1);
* the reference is judged under ``--reference-seeds`` seeds: it must pass every one (false failures:
  0, as a deterministic judge allows), and its per-case time and CPU time give the suite's time.

``--quick`` uses 1 seed per wrong solution and 3 for the reference (a smoke test: each judged file
starts one learner process, which imports torch). Exits 1 if a wrong solution survives a seed or
gets another diagnosis, or if the reference fails a seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

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

EXERCISE_ID = "42"


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
        rows = catalogue_kills(exercise, spaced_seeds(args.seeds, 42_000), launcher)
        reference = reference_runs(exercise, spaced_seeds(args.reference_seeds, 4_200_000), launcher)
    out = console()
    from rich.table import Table

    table = Table(title=f"Exercise 42: every known mistake under {args.seeds} seeds")
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
    out.print(
        f"reference: {reference['failures']} failures in {reference['seeds']} seeds; suite "
        f"{reference['suite_ms_median']:.0f} ms wall, {reference['suite_cpu_ms_median']:.0f} ms CPU of the "
        f"learner (median); slowest case {reference['slowest_case']}"
    )
    out.print(f"measured in {time.monotonic() - started:.0f} s")
    bad = [r["mistake"] for r in rows if not (r["killed_every_seed"] and r["diagnosed_every_seed"])]
    if args.json:
        write_json(args.json, {"machine": machine(), "wrong": rows, "reference": reference, "seeds": args.seeds})
    if bad or reference["failures"]:
        out.print(f"[red]not killed with the promised diagnosis: {bad}; reference failures: {reference['failures']}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
