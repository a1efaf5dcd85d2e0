#!/usr/bin/env python3
"""Power of exercise 54's judging against its catalogue of wrong tests, and the reference test's rates.

    .venv/bin/python benchmarks/power_054.py [--runs 200] [--seeds 0] [--json PATH]

Exercise 54 is a write-the-test exercise: the learner's test is judged by its false-failure rate
against correct samplers (200 runs, the case fails at F >= 30) and its miss rate against each
catalogued mistaken sampler (80 runs, fails at K >= 26). Two measurements:

* **Each test's own rates, simulated in this process** (no sandbox: the tests are this repository's
  files): ``--runs`` runs against the correct samplers in turn give its false-failure rate, and as
  many against each mistake its miss rate; each with a fresh seed, within the same budget of calls
  and draws as the judge's host. From those rates, exact binomial tails give the probability that
  each case of a judging fails, and the probability that the judging rejects the test at all. The
  reference and ``correct/*`` should be rejected with probability ~0 (their rates are far inside
  alpha and the power); every ``wrong/*`` with probability ~1.
* **The catalogue under master seeds** (``--seeds N``, default 0: ``check 54 --seeds N``, minutes a
  seed): each wrong test rejected with its promised headline in every run.

Exits 1 when a wrong test is rejected with probability below 0.999 or a correct one above 1e-3.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import types
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judge.authoring.catalogue import check_exercise  # noqa: E402
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import load_suite, suites_module  # noqa: E402
from judge.exercises.write_the_test import WriteTheTest, binomial_tail, load_sampler, threshold  # noqa: E402
from judge.learner.hosts import HostFunction  # noqa: E402

TARGET = 0.999


class OverBudget(Exception):
    """A run went over its budget: the judge fails the case whatever the test returns."""


def one_run(test, sampler, host, kit: WriteTheTest, seed: int) -> bool | None:
    """The test's answer on one run (None: over the budget, raised, or not a bool: the case fails)."""
    fn, cost = host(sampler, torch.Generator().manual_seed(seed))
    budget = HostFunction(fn, calls=kit.calls_per_run, units=kit.units_per_run, cost=cost)

    def proxy(*args, **kwargs):
        header, value = budget.answer(list(args), dict(kwargs))
        if "host_raised" in header:
            raised = header["host_raised"]
            raise (ValueError if raised["type"] == "ValueError" else RuntimeError)(raised["message"])
        return value

    try:
        answer = test(proxy)
    except Exception:  # noqa: BLE001 - a test that raises fails its case (RE)
        return None
    return answer if type(answer) is bool and budget.violation is None else None


def rates(test, kit: WriteTheTest, host, runs: int) -> dict[str, float]:
    """The share of runs that fail: answering False on correct samplers, True on each mistake (a run
    that raises or goes over the budget counts as failing either way)."""
    correct = [load_sampler(path, kit.patch_base) for path in kit.correct]
    measured = {
        "false_failures": sum(one_run(test, correct[r % len(correct)], host, kit, r) is not True for r in range(runs))
        / runs
    }
    for mistake in kit.mistakes:
        sampler = load_sampler(mistake.sampler, kit.patch_base)
        measured[mistake.name] = (
            sum(one_run(test, sampler, host, kit, 10_000 + r) is not False for r in range(runs)) / runs
        )
    return measured


def rejection(measured: dict[str, float], kit: WriteTheTest, delta: float) -> tuple[float, dict[str, float]]:
    """P(each case fails) from the measured rates, and P(the judging rejects) (cases independent)."""
    cases = {
        "false_failures": binomial_tail(
            kit.correct_runs, measured["false_failures"], threshold(kit.correct_runs, kit.alpha, delta)
        )
    }
    limit = threshold(kit.mistake_runs, 1 - kit.power, delta)
    for name, rate in measured.items():
        if name != "false_failures":
            cases[name] = binomial_tail(kit.mistake_runs, rate, limit)
    passes = 1.0
    for p in cases.values():
        passes *= 1 - p
    return 1 - passes, cases


def module_of(path: Path) -> types.ModuleType:
    return load_sampler(path, None) if path.suffix == ".py" else load_sampler(path, resolve("54").reference_path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(1)
    exercise = resolve("54")
    kit = WriteTheTest.load(exercise.root)
    load_suite(exercise, "hidden")
    host = suites_module(exercise, "hidden.host").host
    delta = FalseFailureBudget(exercise.false_failure_budget, kit.budget() + BudgetDeclaration()).alpha("rates")
    started = time.monotonic()
    tests = {"reference": exercise.reference_path}
    tests |= {f"correct/{p.stem}": p for p in exercise.correct_solutions()}
    tests |= {f"wrong/{p.stem}": p for p in exercise.wrong_solution_files()}
    ok, rows = True, []
    for name, path in tests.items():
        measured = rates(module_of(path).test_sampler, kit, host, args.runs)
        rejected, cases = rejection(measured, kit, delta)
        wrong = name.startswith("wrong/")
        ok &= rejected >= TARGET if wrong else rejected <= 1e-3
        rows.append({"test": name, "rates": measured, "case_fails": cases, "rejected": rejected})
        worst = max((k for k in measured if k != "false_failures"), key=lambda k: measured[k])
        print(
            f"{name:42} false failures {measured['false_failures']:.3f}  worst miss {measured[worst]:.3f} ({worst})"
            f"  P(rejected) {rejected:.4f}",
            flush=True,
        )
    print(f"exercise 54: {args.runs} runs per rate, delta {delta:.3g} per case, {time.monotonic() - started:.0f} s")
    catalogue = []
    if args.seeds:
        for outcome in check_exercise(exercise, seeds=args.seeds):
            if outcome.solution.startswith(("wrong/", "reference", "correct/")) or "/" not in outcome.solution:
                catalogue.append(
                    {"solution": outcome.solution, "runs": outcome.runs, "as_expected": outcome.as_expected}
                )
                ok &= outcome.runs == outcome.as_expected
                print(f"{outcome.solution:42} as promised {outcome.as_expected}/{outcome.runs}")
    if args.json:
        args.json.write_text(json.dumps({"delta": delta, "tests": rows, "catalogue": catalogue}, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
