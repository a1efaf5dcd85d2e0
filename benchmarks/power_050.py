#!/usr/bin/env python3
"""Power of exercise 50's suite against its catalogue, and the reference's false failures.

    .venv/bin/python benchmarks/power_050.py [--seeds 5] [--instances 20] [--json PATH]

Two measurements:

* **The catalogue under several master seeds** (``check_exercise(seeds=N)``): for every known-wrong
  solution, in how many runs it was rejected with its promised headline diagnosis; for the reference
  and ``correct/``, in how many it was accepted.
* **The variance promise, exactly**: for ``--instances`` instances of each method the hidden suite can
  draw, the Chernoff threshold of the mean square of (estimate - mu) at the calibration alpha, and the
  Chernoff bound on the probability that plain Monte Carlo's estimates in the method's place stay below
  it (one minus the power against no variance reduction at all); the suite keeps only instances where
  that bound is below 1e-6.

Exits 1 when a catalogued mistake is not killed, diagnosed, in every run, or the reference fails once.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.power_kit import catalogue_under_seeds, server_budget  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import suites_module  # noqa: E402


def variance_power(exercise, instances: int, alpha: float) -> dict[str, list[tuple[float, float, float]]]:
    """Per method: (the method's variance / plain's, the threshold / plain's, the miss bound) per instance."""
    stats = suites_module(exercise, "hidden.stats50")
    oracle = suites_module(exercise, "hidden.oracle")
    out: dict[str, list[tuple[float, float, float]]] = {}
    for method in ("antithetic", "stratified", "control_variate"):
        rows = []
        for seed in range(instances):
            inst = stats.instance(random.Random(50_000 + seed), method)
            plain = oracle.plain_outcomes(inst.p, inst.f, inst.n)
            threshold = oracle.chernoff_threshold(inst.law, inst.mu, stats.ROWS, alpha)
            plain_var = oracle.variance(plain, inst.mu)
            miss = oracle.chernoff_miss(plain, inst.mu, stats.ROWS, threshold)
            rows.append((oracle.variance(inst.law, inst.mu) / plain_var, threshold / plain_var, miss))
        out[method] = rows
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    exercise = resolve("50")
    started = time.monotonic()
    catalogue = catalogue_under_seeds(exercise, args.seeds)
    ok = catalogue.ok
    alpha = server_budget(exercise).alpha("calibration")
    power = variance_power(exercise, args.instances, alpha)
    catalogue.print(exercise, args.seeds, time.monotonic() - started)
    print(f"variance promise (calibration alpha {alpha:.3g}, {args.instances} instances each):")
    for method, values in power.items():
        ratios = [r for r, _, _ in values]
        misses = [m for _, _, m in values]
        ok &= max(misses) <= 1e-6
        print(
            f"  {method:16} variance / plain {min(ratios):.3f}..{max(ratios):.3f}, "
            f"threshold / plain {max(t for _, t, _ in values):.3f} at most, P(plain passes) <= {max(misses):.2g}"
        )
    if args.json:
        args.json.write_text(json.dumps({"catalogue": catalogue.rows, "variance_power": power}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
