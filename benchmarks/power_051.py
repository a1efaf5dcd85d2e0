#!/usr/bin/env python3
"""Power of exercise 51's suite against its catalogue, and the reference's false failures.

    .venv/bin/python benchmarks/power_051.py [--seeds 10] [--reps 2000] [--json PATH]

Two measurements:

* **The catalogue under several master seeds** (``check_exercise(seeds=N)``): for every known-wrong
  solution, in how many runs it was rejected with its promised headline diagnosis; for the reference
  and ``correct/``, in how many it was accepted (a false failure would show here, but at the bound of
  1e-6 per submission none is expected in any feasible number of runs: the bound is the budget's).
* **The statistical kills, simulated exactly**: ``samples_from_p`` meets the hidden G-test of each
  draw target's 1 500 responses (read off group_size = 1 estimates) at the fit alpha of public +
  hidden, its responses drawn from p (``--reps`` multinomial samples); and the hidden z-test of 5 000
  group means (group_size 8), whose shift from E_q[g] is exact for each mistake that survives to it
  (drawn from p, unclipped, weights not normalized): the power of a two-sided z-test at the unbiased
  alpha, from the mistake's own mean and standard deviation; and the second z-test, 4 000 groups of 4
  among 5 responses, against ``draws_without_replacement``.

Every other mistake is killed by a hard check (exact values, a padding value, exact zeros of an equal
group, an unreadable estimate, the generator contract's seeded clauses): the catalogue run shows them.

Exits 1 when a catalogued mistake is not killed, diagnosed, in every run, or the reference fails once.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.power_kit import catalogue_under_seeds, server_budget  # noqa: E402
from judge.checks.stats import g_test  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import suites_module  # noqa: E402

TARGET = 0.999


def draws_power(exercise, reps: int, alpha: float) -> list[float]:
    """P(the hidden G-test of each target's responses rejects) when they are drawn from p instead of q."""
    draws = suites_module(exercise, "public.draws51")
    hidden = suites_module(exercise, "hidden.hidden")
    torch.manual_seed(51)
    powers = []
    for p, q, _ in draws.TARGETS:
        counts = torch.distributions.Multinomial(hidden.DRAW_COPIES, probs=torch.tensor(p)).sample((reps,))
        live = [i for i, qi in enumerate(q) if qi > 0]
        rejected = sum(g_test([int(row[i]) for i in live], [q[i] for i in live]).pvalue < alpha for row in counts)
        powers.append(rejected / reps)
    return powers


def mean_power(exercise, alpha: float) -> dict[str, float]:
    """The hidden z-test's power against each mistake whose estimates are still readable there."""
    draws = suites_module(exercise, "public.draws51")
    hidden = suites_module(exercise, "hidden.hidden")
    p, q, a = draws.TARGETS[0]
    truth = draws.expected_value(p, q, a)
    se = draws.standard_deviation(p, q, a) / math.sqrt(hidden.UNBIASED_GROUP * hidden.UNBIASED_ROWS)
    normal = statistics.NormalDist()
    z = -normal.inv_cdf(alpha / 2)
    shifted = {
        "samples_from_p": draws.expected_value(p, q, a, draw_from=p),
        "sample_unclipped": draws.expected_value(p, q, a, clip=False),
    }
    out = {}
    for name, mean in shifted.items():
        shift = abs(mean - truth) / se
        out[name] = normal.cdf(shift - z) + normal.cdf(-shift - z)
    # The second z-test: groups of 4 among target 1's 5 responses, where drawing without replacement
    # moves the mean (the spread of one group measured as independent draws', an upper bound).
    p, q, a = draws.TARGETS[1]
    se = draws.standard_deviation(p, q, a) / math.sqrt(hidden.SMALL_GROUP * hidden.SMALL_GROUP_ROWS)
    mean = draws.without_replacement_value(p, q, a, hidden.SMALL_GROUP)
    shift = abs(mean - draws.expected_value(p, q, a)) / se
    out["draws_without_replacement"] = normal.cdf(shift - z) + normal.cdf(-shift - z)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    exercise = resolve("51")
    started = time.monotonic()
    catalogue = catalogue_under_seeds(exercise, args.seeds)
    ok = catalogue.ok
    spent = server_budget(exercise)
    fit_alpha, unbiased_alpha = spent.alpha("fit"), spent.alpha("unbiased")
    powers = draws_power(exercise, args.reps, fit_alpha)
    means = mean_power(exercise, unbiased_alpha)
    ok &= min(powers) >= TARGET and min(means.values()) >= TARGET
    catalogue.print(exercise, args.seeds, time.monotonic() - started)
    print(
        f"samples_from_p: G-test power per target (fit alpha {fit_alpha:.3g}, {args.reps} reps): "
        + ", ".join(f"{x:.4f}" for x in powers)
    )
    print(
        f"z-test of the mean (unbiased alpha {unbiased_alpha:.3g}): "
        + ", ".join(f"{name} {value:.6f}" for name, value in means.items())
    )
    if args.json:
        args.json.write_text(json.dumps({"catalogue": catalogue.rows, "draws_power": powers, "mean_power": means}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
