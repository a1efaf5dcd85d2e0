#!/usr/bin/env python3
"""Power of exercise 46's suite: which check kills each known-wrong solution, under several seeds, the
power of its one statistical mistake, and the reference's false failures.

    .venv/bin/python benchmarks/power_046.py [--seeds 5] [--reference-seeds 20] [--reps 2000] [--quick] [--json PATH]

* Every file of ``solutions/046-penalties/wrong/`` is judged (public + hidden) under ``--seeds`` master
  seeds: the verdict, the first failing case, the case that names the mistake, and P(kill with the
  promised diagnosis) over the seeds. Most mistakes are deterministic (an exact value, an accepted bad
  input, an input changed in place, the generator): the seed cannot change their verdict.
* ``penalties_after_temperature`` is the one a fit must see: its draws follow the filters of the
  penalized logits / T instead of penalized logits / T. Its power per row is simulated: ``--reps`` sets
  of counts drawn from the mistake's exact distribution (the oracle), each G-tested against the target at
  the run's fit alpha (server: public + hidden; browser: public + tiny); the case rejects when any of its
  rows does. Reported per case (hidden ``sampler_rows``: 4 000 draws; public ``sampler_worked_example``:
  2 000; tiny ``tiny_sampler``: 600).
* The reference is judged under ``--reference-seeds`` seeds: it must pass every one.

``--quick``: 1 seed per wrong solution, 3 for the reference, 300 repetitions. Exits 1 if a wrong
solution survives a seed or gets another diagnosis, a simulated power is below 0.999, or the reference
fails a seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
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
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.checks.stats import g_test  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import load_suite, suites_module  # noqa: E402

EXERCISE_ID = "46"
TARGET = 0.999


def parts(exercise) -> dict:
    for suite in ("public", "hidden", "tiny"):
        load_suite(exercise, suite)
    names = {"oracle": "hidden", "cases": "hidden", "hidden": "hidden", "public": "public", "tiny": "public"}
    names |= {"frozen46": "public"}
    return {name: suites_module(exercise, f"{folder}.{name}") for name, folder in names.items()}


def fit_alpha(modules: dict, suites: tuple[str, ...]) -> float:
    declared = sum((modules[s].BUDGET for s in suites), BudgetDeclaration())
    return FalseFailureBudget(1e-6, declared).alpha("fit")


def case_power(target: torch.Tensor, mistaken: torch.Tensor, draws: int, alpha: float, reps: int, seed: int) -> float:
    """P(some row's G-test rejects the target at ``alpha``) when each row's ``draws`` follow ``mistaken``."""
    generator = torch.Generator().manual_seed(seed)
    rejected = 0
    for _ in range(reps):
        for row in range(target.shape[0]):
            if int((target[row] > 0).sum()) < 2 or torch.equal(target[row], mistaken[row]):
                continue
            tokens = torch.multinomial(mistaken[row], draws, replacement=True, generator=generator)
            counts = torch.bincount(tokens, minlength=target.shape[1]).tolist()
            if any(c > 0 and p == 0 for c, p in zip(counts, target[row].tolist(), strict=True)):
                rejected += 1  # a draw outside the support: the support check rejects outright
                break
            if g_test(counts, target[row].tolist()).pvalue < alpha:
                rejected += 1
                break
    return rejected / reps


def statistical_power(modules: dict, reps: int) -> list[dict]:
    oracle, cases, public, frozen = modules["oracle"], modules["cases"], modules["public"], modules["frozen46"]
    server, browser = fit_alpha(modules, ("public", "hidden")), fit_alpha(modules, ("public", "tiny"))
    hidden_call = cases.sampler_batch()
    worked = public.worked_example()
    worked2 = {k: torch.cat([v, v]) if isinstance(v, torch.Tensor) else v for k, v in worked.items()}
    worked2 |= {"top_k": torch.tensor([2.0, 0.0]), "temperature": torch.tensor([1.0, 0.5])}
    tiny_call = frozen.sampler_rows()
    rows = []
    for case, call, draws, alpha, where in (
        ("hidden sampler_rows", hidden_call, modules["hidden"].SAMPLER_DRAWS, server, "server"),
        ("public sampler_worked_example", worked2, public.DRAWS, server, "server"),
        ("public sampler_worked_example", worked2, public.DRAWS, browser, "browser"),
        ("tiny tiny_sampler", tiny_call, modules["tiny"].DRAWS, browser, "browser"),
    ):
        target = oracle.sampler_probs(call)
        mistaken = oracle.sampler_probs(call, after_temperature=True)
        rows.append(
            {
                "case": case,
                "where": where,
                "draws": draws,
                "alpha": alpha,
                "power": case_power(target, mistaken, draws, alpha, reps, seed=46),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="master seeds per wrong solution")
    parser.add_argument("--reference-seeds", type=int, default=20, help="master seeds for the reference")
    parser.add_argument("--reps", type=int, default=2000, help="simulated runs per statistical case")
    parser.add_argument("--quick", action="store_true", help="1 seed per wrong solution, 3 for the reference")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.reference_seeds, args.reps = 1, 3, 300
    exercise = resolve(EXERCISE_ID)
    started = time.monotonic()
    modules = parts(exercise)
    power = statistical_power(modules, args.reps)
    with warm_launcher() as launcher:
        rows = catalogue_kills(exercise, spaced_seeds(args.seeds, 46_000), launcher)
        reference = reference_runs(exercise, spaced_seeds(args.reference_seeds, 4_600_000), launcher)
    out = console()
    from rich.table import Table

    table = Table(title=f"Exercise 46: every known mistake under {args.seeds} seeds")
    for column in ("mistake", "verdict", "killed by (first failing case)", "named by", "failing", "P(kill)"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["mistake"],
            row["verdict"],
            row["killed_by"],
            row["diagnosed_by"],
            f"{row['failing_cases']}/{row['cases']}",
            f"{row['p_kill']:.2f}",
        )
    out.print(table)
    stats = Table(title=f"penalties_after_temperature: simulated power ({args.reps} runs per case)")
    for column in ("case", "run", "draws per row", "fit alpha", "P(reject)"):
        stats.add_column(column)
    for row in power:
        stats.add_row(row["case"], row["where"], str(row["draws"]), f"{row['alpha']:.2e}", f"{row['power']:.4f}")
    out.print(stats)
    out.print(
        f"reference: {reference['failures']} failures in {reference['seeds']} seeds; suite "
        f"{reference['suite_ms_median']:.0f} ms wall, {reference['suite_cpu_ms_median']:.0f} ms CPU of the "
        f"learner (median); slowest case {reference['slowest_case']}"
    )
    out.print(f"measured in {time.monotonic() - started:.0f} s")
    bad = [r["mistake"] for r in rows if not (r["killed_every_seed"] and r["diagnosed_every_seed"])]
    weak = [f"{r['case']} ({r['where']})" for r in power if r["power"] < TARGET and r["case"].startswith("hidden")]
    if args.json:
        write_json(
            args.json,
            {"machine": machine(), "wrong": rows, "reference": reference, "seeds": args.seeds, "power": power},
        )
    if bad or weak or reference["failures"]:
        out.print(
            f"[red]not killed with the promised diagnosis: {bad}; weak: {weak}; reference: {reference['failures']}"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
