#!/usr/bin/env python3
"""Power of exercise 53's suite against its catalogue, and the reference's false failures.

    .venv/bin/python benchmarks/power_053.py [--seeds 10] [--reps 200] [--cases 20] [--json PATH]

Two measurements:

* **The catalogue under several master seeds** (``check_exercise(seeds=N)``): for every known-wrong
  solution, in how many runs it was rejected with its promised headline diagnosis; for the reference
  and ``correct/``, in how many it was accepted (a false failure would show here, but at the bound of
  1e-6 per submission none is expected in any feasible number of runs: the bound is the budget's).
* **The law mistakes, exactly**: each hidden law case (generated.py) is aimed at some mistakes; for
  ``--cases`` master seeds' instances, ``--reps`` multinomial samples of the case's rows drawn from the
  mistake's own exact law, G-tested against the truth at the fit alpha of public + hidden: the share
  rejected. A mistake outside the support (a draw of law 0) is rejected by the support check: 1.

Exits 1 when a catalogued mistake is not killed, diagnosed, in every run, a law case's power is below
0.999, or the reference fails once.
"""

from __future__ import annotations

import argparse
import json
import random
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


def _power(truth: list[float], wrong: list[float], rows: int, reps: int, alpha: float) -> float:
    if any(w > 1e-12 and t <= 0 for t, w in zip(truth, wrong, strict=True)):
        return 1.0  # the support check rejects a draw of law 0 at once, almost surely
    keep = [i for i, t in enumerate(truth) if t > 0]
    counts = torch.distributions.Multinomial(rows, probs=torch.tensor(wrong, dtype=torch.float64)).sample((reps,))
    law = [truth[i] for i in keep]
    return sum(g_test([int(c[i]) for i in keep], law).pvalue < alpha for c in counts) / reps


def law_powers(exercise, cases: int, reps: int, alpha: float) -> dict[str, list[float]]:
    """Mistake -> its power on each generated instance aimed at it."""
    checks = suites_module(exercise, "public.checks53")
    generated = suites_module(exercise, "hidden.generated")
    hidden = suites_module(exercise, "hidden.hidden")
    rows = hidden.LAW_ROWS
    torch.manual_seed(53)
    out: dict[str, list[float]] = {}
    for seed in range(cases):
        for which, aim in enumerate(generated.CANDIDATES_AIMED):
            case = generated.candidate_case(random.Random(f"{seed}:candidates:{which}"), rows, aim)
            truth = checks.candidates_law(case.p, case.q, case.candidates)
            for rule in aim:
                wrong = checks.candidates_law(case.p, case.q, case.candidates, rule)
                out.setdefault(rule, []).append(_power(truth, wrong, rows, reps, alpha))
        for which in range(2):
            case = generated.tree_case(random.Random(f"{seed}:tree:{which}"), rows)
            truth = checks.tree_law(case.parents, case.tokens, case.ps, case.qs)
            for rule in generated.TREE_AIMED:
                wrong = checks.tree_law(case.parents, case.tokens, case.ps, case.qs, rule)
                out.setdefault(rule, []).append(_power(truth, wrong, rows, reps, alpha))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    exercise = resolve("53")
    started = time.monotonic()
    catalogue = catalogue_under_seeds(exercise, args.seeds)
    ok = catalogue.ok
    alpha = server_budget(exercise).alpha("fit")
    powers = law_powers(exercise, args.cases, args.reps, alpha)
    ok &= all(min(p) >= TARGET for p in powers.values())
    catalogue.print(exercise, args.seeds, time.monotonic() - started)
    print(f"law cases: G-test power from each mistake's exact law (fit alpha {alpha:.3g}, {args.reps} samples)")
    for rule, values in sorted(powers.items()):
        print(f"  {rule:26} min {min(values):.3f}  mean {sum(values) / len(values):.3f}  over {len(values)} instances")
    if args.json:
        args.json.write_text(json.dumps({"catalogue": catalogue.rows, "law_power": powers}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
