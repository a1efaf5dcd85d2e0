#!/usr/bin/env python3
"""Power of exercise 49's suite against its catalogue, and the reference's false failures.

    .venv/bin/python benchmarks/power_049.py [--seeds 10] [--reps 200] [--json PATH]

Three measurements:

* **The catalogue under several master seeds** (``check_exercise(seeds=N)``): for every known-wrong
  solution, in how many runs it was rejected with its promised headline diagnosis; for the reference
  and ``correct/``, in how many it was accepted (a false failure would show here, but at the bound of
  1e-6 per submission none is expected in any feasible number of runs: the bound is the budget's).
* **The statistical mistakes, exactly**: ``generate_start_logits`` is killed by the G-test of 6 000
  sequences (hidden) against their exact law; its power is simulated from the mistake's own exact law
  (``--reps`` multinomial samples per generated automaton, at the fit alpha of public + hidden), over
  20 automata the hidden suite can draw. ``inverse_cdf_past_end`` is killed only where some row's
  renormalized cumulative sum ends below the largest float under 1: the share of the hidden extreme
  cases (both dtypes, 128 rows of 32 tokens) where the mistake's own ``constrained_probs`` leaves such a
  row, over 200 seeds.
* **Deterministic kills** (every other mistake): exact values, refusals, a disallowed token at a pushed
  draw site or in a sequence, copies identical: the catalogue run shows them.

Exits 1 when a catalogued mistake is not killed, diagnosed, in every run, or the reference fails once.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.power_kit import catalogue_under_seeds, server_budget  # noqa: E402
from judge.checks.stats import g_test  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.patches import expanded_path  # noqa: E402
from judge.exercises.suites import import_solution, suites_module  # noqa: E402

TARGET = 0.999


def sequence_power(exercise, reps: int, alpha: float, automata: int = 20) -> list[float]:
    """P(the hidden G-test of 6 000 sequences rejects) when they follow the start-logits mistake's law."""
    oracle = suites_module(exercise, "hidden.oracle")
    cases = suites_module(exercise, "hidden.cases")
    hidden = suites_module(exercise, "hidden.hidden")
    powers = []
    torch.manual_seed(49)
    for seed in range(automata):
        state_logits, transitions, start = cases.sequence_case(10_000 + seed)
        _, law = oracle.sequence_law(state_logits, transitions, start, hidden.SEQUENCE_STEPS)
        _, wrong = oracle.sequence_law(state_logits, transitions, start, hidden.SEQUENCE_STEPS, logits_state=start)
        if torch.allclose(law, wrong):
            continue  # the mistake draws from the target itself here: nothing to detect
        counts = torch.distributions.Multinomial(hidden.SEQUENCE_ROWS, probs=wrong).sample((reps,))
        rejected = sum(g_test([int(c) for c in row], law.tolist()).pvalue < alpha for row in counts)
        powers.append(rejected / reps)
    return powers


def past_end_share(exercise, seeds: int) -> float:
    """The share of seeds whose hidden extreme cases hold a row the past-end mistake gets wrong at u -> 1."""
    cases = suites_module(exercise, "hidden.cases")
    path = expanded_path(exercise.solutions_root / "wrong" / "inverse_cdf_past_end.patch", exercise.reference_path)
    wrong = import_solution(path, "past_end_049")
    caught = 0
    for seed in range(seeds):
        hit = False
        for dtype in (torch.float32, torch.float64):
            case = cases.extreme_case(1000 + seed, dtype)
            probs = wrong.constrained_probs(**case.kwargs())
            u = torch.tensor(1.0, dtype=dtype).nextafter(torch.tensor(0.0, dtype=dtype))
            hit = hit or bool((probs.cumsum(dim=1)[:, -1] < u).any())
        caught += hit
    return caught / seeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    exercise = resolve("49")
    started = time.monotonic()
    catalogue = catalogue_under_seeds(exercise, args.seeds)
    ok = catalogue.ok
    alpha = server_budget(exercise).alpha("fit")
    powers = sequence_power(exercise, args.reps, alpha)
    share = past_end_share(exercise, 200)
    ok &= min(powers) >= TARGET and share >= TARGET
    catalogue.print(exercise, args.seeds, time.monotonic() - started)
    print(
        f"generate_start_logits: G-test power over {len(powers)} automata (fit alpha {alpha:.3g}): "
        f"min {min(powers):.3f}, mean {sum(powers) / len(powers):.3f}"
    )
    print(f"inverse_cdf_past_end: a row short of 1 at u -> 1 in {share:.3f} of 200 seeds' extreme cases")
    if args.json:
        args.json.write_text(
            json.dumps({"catalogue": catalogue.rows, "sequence_power": powers, "past_end_share": share})
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
