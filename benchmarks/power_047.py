#!/usr/bin/env python3
"""Power of exercise 47's suite against its catalogue, and the reference's false failures.

    .venv/bin/python benchmarks/power_047.py [--quick] [--seeds 10] [--reps 400] [--seed N] [--json PATH]

Two measurements:

* **judged**: every file of ``solutions/047-typical-epsilon-eta/wrong/`` (patches expanded against the
  reference), the reference and ``correct/*.py`` are judged by the real suites (public + hidden) under
  ``--seeds`` master seeds. Reported per wrong solution: the share of seeds that reject it, the share
  whose headline diagnosis is its ``Diagnosis:`` line, and the first failing case; per correct solution,
  its false failures (expected 0: the bound is 1e-6 per run).
* **draws alone**: a sampler whose ``truncated_probs`` is right but whose draws follow a catalogued
  mistake's distribution is caught by the fits of ``test_draws`` only. For each distribution mistake and
  each row of the hidden draw batches where its distribution differs from the target, ``--reps`` sets of
  the suite's 20 000 draws are drawn from the mistake and G-tested at the run's fit alpha: the kill
  probability of its best row (the case fails when any row does). Mistakes whose rows are not
  distributions (not renormalized: ``torch.multinomial`` draws from the target anyway) or NaN are left
  out. The reference's own draws are G-tested the same way at relaxed alphas (0.01, 0.001) to show the
  test is calibrated.

Exits 1 when a wrong solution survives a seed or is named otherwise, or a correct solution fails one.
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

from judge.authoring.catalogue import diagnosis_found, judge_under_seeds, parse_wrong_solution  # noqa: E402
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.checks.stats import g_test  # noqa: E402
from judge.checks.testing import derive_seed  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import load_suite, suites_module  # noqa: E402

EXERCISE = resolve("47")


def parts():
    for suite in ("hidden", "public"):
        load_suite(EXERCISE, suite)
    return {name: suites_module(EXERCISE, f"hidden.{name}") for name in ("hidden", "oracle")} | {
        "public": suites_module(EXERCISE, "public.public")
    }


def fit_alpha(modules) -> float:
    declared = modules["public"].BUDGET + modules["hidden"].BUDGET
    return FalseFailureBudget(1e-6, BudgetDeclaration() + declared).alpha("fit")


def judged(seeds: int, seed: int) -> dict:
    master = [derive_seed(seed, "power 47", i) for i in range(seeds)]
    out = {}
    for path, wrong in [(p, True) for p in EXERCISE.wrong_solutions()] + [
        (p, False) for p in [EXERCISE.reference_path, *EXERCISE.correct_solutions()]
    ]:
        started = time.perf_counter()
        reports = judge_under_seeds(EXERCISE, path, master)
        rejected = [r for r in reports if r.verdict.name != "AC"]
        row = {"seeds": len(reports), "rejected": len(rejected), "seconds": round(time.perf_counter() - started, 1)}
        if wrong:
            parsed = parse_wrong_solution(path)
            row["named"] = sum(diagnosis_found(r, parsed.diagnosis) for r in rejected)
            row["first_case"] = sorted({next(c.name for c in r.cases if c.verdict.name != "AC") for r in rejected})
        out[path.stem] = row
        print(f"{path.stem:32} {row}", flush=True)
    return out


def draws_alone(modules, reps: int, seed: int, alpha: float) -> dict:
    oracle, hidden = modules["oracle"], modules["hidden"]
    torch.manual_seed(seed)
    out = {}
    for mistake in oracle.DISTRIBUTION_MISTAKES:
        best = None
        for name, batch in hidden.DRAW_BATCHES.items():
            wrong = oracle.mistaken(batch.call, mistake)
            for row in hidden._fit_rows(batch.exact):
                target, law = batch.exact[row], wrong[row]
                if not bool(torch.isfinite(law).all()) or abs(float(law.sum()) - 1) > 1e-6:
                    continue
                if torch.allclose(law, target, atol=1e-12) or bool((law[target == 0] > 0).any()):
                    # equal, or a draw of a cut token: the support check kills it on the first such draw
                    if not torch.allclose(law, target, atol=1e-12):
                        p_cut = float(law[target == 0].sum())
                        p_kill = 1 - (1 - p_cut) ** hidden.DRAWS
                        best = max(best or (0.0, ""), (p_kill, f"{name} row {row} (support)"))
                    continue
                counts = torch.distributions.Multinomial(hidden.DRAWS, probs=law).sample((reps,))
                kills = sum(g_test(c.long().tolist(), target.tolist()).pvalue < alpha for c in counts)
                best = max(best or (0.0, ""), (kills / reps, f"{name} row {row}"))
        out[mistake] = None if best is None else {"p_kill": best[0], "where": best[1]}
        print(f"{mistake:32} {out[mistake]}", flush=True)
    calibration = {}
    batch = hidden.DRAW_BATCHES["eta"]
    for row in hidden._fit_rows(batch.exact):
        torch.manual_seed(derive_seed(seed, "calibration", row) % 2**31)
        counts = torch.distributions.Multinomial(hidden.DRAWS, probs=batch.exact[row]).sample((reps,))
        p = [g_test(c.long().tolist(), batch.exact[row].tolist()).pvalue for c in counts]
        calibration[f"eta row {row}"] = {str(a): sum(v < a for v in p) / reps for a in (0.01, 0.001)}
    return {"mistakes": out, "reference_rejections": calibration}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 seeds and 100 repetitions")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    seeds, reps = (3, 100) if args.quick else (args.seeds, args.reps)
    modules = parts()
    alpha = fit_alpha(modules)
    print(f"fit alpha {alpha:.3g}; {hidden_draws(modules)} draws per row")
    result = {"fit_alpha": alpha, "draws_alone": draws_alone(modules, reps, args.seed, alpha)}
    result["judged"] = judged(seeds, args.seed)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    bad = [
        name
        for name, row in result["judged"].items()
        if ("named" in row and (row["rejected"] < row["seeds"] or row["named"] < row["seeds"]))
        or ("named" not in row and row["rejected"])
    ]
    if bad:
        print("not as expected:", ", ".join(bad))
    return 1 if bad else 0


def hidden_draws(modules) -> int:
    return modules["hidden"].DRAWS


if __name__ == "__main__":
    raise SystemExit(main())
