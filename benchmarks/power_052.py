#!/usr/bin/env python3
"""Power of exercise 52's suite against its catalogue, the reference's coverage, and the coverage test's reach.

    .venv/bin/python benchmarks/power_052.py [--seeds 3] [--datasets 16000] [--json PATH]

Three measurements:

* **The catalogue under several master seeds** (``check_exercise(seeds=N)``): for every known-wrong
  solution, in how many runs it was rejected with its promised headline diagnosis; for the reference and
  ``correct/``, in how many it was accepted.
* **The reference's coverage** on each hidden coverage case (``hidden/coverage.py``), over ``--datasets``
  data sets drawn as the suite draws them: the band the statement promises (0.84, 0.93) must hold it with
  room to spare (the rate's standard error is about 0.0024 at 16 000 data sets).
* **The coverage test's reach**: for each case's number of data sets and the calibration alpha of a
  judged run (public + hidden), the coverage below the band (and above it) that the exact binomial test
  rejects with probability 0.999. A one-sided interval at level 0.9 covers about 0.78, a resample of n / 2
  or an unpaired interval on paired data about 0.97 to 1.

Exits 1 when a catalogued mistake is not killed, diagnosed, in every run, the reference fails once, or
its coverage leaves the band by less than 3 standard errors.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.power_kit import catalogue_under_seeds, server_budget  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import import_solution, suites_module  # noqa: E402

TARGET = 0.999


def _binom_cdf(k: int, n: int, p: float) -> float:
    if p <= 0:
        return 1.0
    if p >= 1:
        return 1.0 if k >= n else 0.0
    logs = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p) + (n - i) * math.log1p(-p)
        for i in range(k + 1)
    ]
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(v - top) for v in logs))


def reach(m: int, band: tuple[float, float], alpha: float) -> tuple[float, float]:
    """The coverages below and above the band that the two-sided test (alpha/2 a side) rejects at 0.999."""
    low_k = max((k for k in range(m + 1) if _binom_cdf(k, m, band[0]) <= alpha / 2), default=-1)
    high_k = min((k for k in range(m + 1) if 1 - _binom_cdf(k - 1, m, band[1]) <= alpha / 2), default=m + 1)
    below = max((c / 1000 for c in range(1000) if _binom_cdf(low_k, m, c / 1000) >= TARGET), default=0.0)
    above = min((c / 1000 for c in range(1001) if 1 - _binom_cdf(high_k - 1, m, c / 1000) >= TARGET), default=1.0)
    return below, above


def reference_coverage(exercise, datasets: int) -> dict[str, float]:
    coverage = suites_module(exercise, "hidden.coverage")
    ref = import_solution(exercise.reference_path, "reference_052")
    level, resamples = coverage.LEVEL, coverage.RESAMPLES
    calls = {
        coverage.MEAN_LOGNORMAL.name: lambda g, m: ref.bootstrap_ci(
            coverage.lognormal(g, m, 60), "mean", level, resamples, "percentile", generator=g
        ),
        coverage.MEAN_ACCEPTED.name: lambda g, m: ref.bootstrap_ci(
            coverage.accepted(g, m, 40).float(), "mean", level, resamples, "bca", generator=g
        ),
        coverage.MEDIAN_LOGNORMAL.name: lambda g, m: ref.bootstrap_ci(
            coverage.lognormal(g, m, 41), "median", level, resamples, "percentile", generator=g
        ),
        coverage.P90_EXPONENTIAL.name: lambda g, m: ref.bootstrap_ci(
            coverage.exponential(g, m, 60), "p90", level, resamples, "bca", generator=g
        ),
        coverage.PAIRED.name: lambda g, m: ref.difference_ci(
            *coverage.paired(g, m), True, level, resamples, generator=g
        ),
        coverage.UNPAIRED.name: lambda g, m: ref.difference_ci(
            *coverage.unpaired(g, m), False, level, resamples, generator=g
        ),
    }
    truths = {
        case.name: case.truth
        for case in (
            coverage.MEAN_LOGNORMAL,
            coverage.MEAN_ACCEPTED,
            coverage.MEDIAN_LOGNORMAL,
            coverage.P90_EXPONENTIAL,
            coverage.PAIRED,
            coverage.UNPAIRED,
        )
    }
    rates = {}
    for name, call in calls.items():
        g = torch.Generator().manual_seed(52)
        covered = 0
        for _ in range(datasets // 1000):
            ends = call(g, 1000).double()
            covered += int(((ends[:, 0] <= truths[name]) & (ends[:, 1] >= truths[name])).sum())
        rates[name] = covered / (datasets // 1000 * 1000)
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--datasets", type=int, default=16000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    exercise = resolve("52")
    started = time.monotonic()
    catalogue = catalogue_under_seeds(exercise, args.seeds)
    ok = catalogue.ok
    catalogue.print(exercise, args.seeds, time.monotonic() - started)
    checks = suites_module(exercise, "public.checks52")
    coverage = suites_module(exercise, "hidden.coverage")
    band = checks.COVERAGE_BAND
    alpha = server_budget(exercise).alpha("calibration")
    rates = reference_coverage(exercise, args.datasets)
    se = math.sqrt(0.9 * 0.1 / args.datasets)
    sizes = {
        c.name: c.rows
        for c in (
            coverage.MEAN_LOGNORMAL,
            coverage.MEAN_ACCEPTED,
            coverage.MEDIAN_LOGNORMAL,
            coverage.P90_EXPONENTIAL,
            coverage.PAIRED,
            coverage.UNPAIRED,
        )
    }
    print(f"coverage band {band}, calibration alpha {alpha:.3g}; the reference over {args.datasets} data sets:")
    reaches = {}
    for name, rate in rates.items():
        below, above = reach(sizes[name], band, alpha)
        reaches[name] = (below, above)
        inside = band[0] + 3 * se < rate < band[1] - 3 * se
        ok &= inside
        print(f"  {name:70} {rate:.4f}  (m = {sizes[name]}: rejects <= {below:.3f} or >= {above:.3f} at 0.999)")
    if args.json:
        args.json.write_text(
            json.dumps({"catalogue": catalogue.rows, "coverage": rates, "reach": reaches, "alpha": alpha})
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
