#!/usr/bin/env python3
"""Power of exercise 40's suite: which check kills each known-wrong solution, and at what size.

    .venv/bin/python benchmarks/power_040.py [--reps 1000] [--quick] [--calibration-runs 200]
        [--seed N] [--json PATH]

Every file in ``solutions/040-exact-samplers/wrong/`` is classified (an unclassified file makes
the script exit 1):

* **exact** mistakes: the file's noise-form functions are run on every frozen hidden case
  (``cases.py``; alias tables by their implied distribution). A case whose tokens differ kills
  the file with probability 1, whatever the seed; the killing cases are listed.
* **distribution** mistakes (also killed exactly, but ``sample`` is the learner's only path when
  the mistake sits there): for each row of ``cases.sample_rows()`` that gets a fit, the suite's
  decision on draws from the mistaken distribution (``oracle.alternatives``) is simulated: a draw
  of a zero-probability token kills (exact: ``1 - (1 - q)^n``), else the Williams G-test
  (``judge.stats.g_test``) at the suite's per-fit alpha, from ``--reps`` multinomial samples.
  Reported: P(kill) at the suite's n (``hidden.SAMPLE_DRAWS``), and the smallest n on a doubling
  then 1.15x grid whose estimated P(kill) over the best row reaches 0.999.
* **noise** mistakes (``noise_shared_across_rows``, ``noise_reused_across_draws``) and the
  generator mistakes (``ignores_generator``, ``private_generator``): the wrong file's own
  ``sample`` is run at the suite's sizes and the check that kills it is applied; the chance that
  it survives is computed exactly (identical twin rows, constant rows, equal draws under two
  seeds).
* ``modifies_input``: the judge's check that inputs are unchanged (deterministic).

Calibration: the reference's ``sample`` is run ``--calibration-runs`` times per method on the
fit rows; the share of fit p-values below 0.01 and 0.05 should be close to those levels (a
correct sampler is rejected at the suite's alpha with probability alpha).

Exits 1 if a wrong solution is not killed with probability >= 0.999 at the suite's sizes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.exercise import resolve  # noqa: E402
from judge.stats import binom_sf, g_test  # noqa: E402
from judge.suites import load_suite, suites_module  # noqa: E402

EXERCISE = resolve("40")
load_suite(EXERCISE, "hidden")
load_suite(EXERCISE, "public")
oracle = suites_module(EXERCISE, "hidden.oracle")
cases = suites_module(EXERCISE, "hidden.cases")
hidden = suites_module(EXERCISE, "hidden.hidden")
public = suites_module(EXERCISE, "public.public")
MISTAKES = suites_module(EXERCISE, "public.diagnoses").MISTAKES

NOISE = {"noise_shared_across_rows", "noise_reused_across_draws", "ignores_generator", "private_generator"}
DETERMINISTIC_OTHER = {
    "modifies_input": "the judge's unchanged-inputs check (every call)",
    "reseeds_private_generator": "the generator contract: two calls in a row with one generator repeat (every time)",
    "reseeds_default_generator": "the generator contract: two calls in a row after one torch.manual_seed repeat",
    "manual_seed_inside": "the generator contract: torch's global generator changes in every call given one",
}
SAMPLE_ONLY = {"sample_gumbel_probs_as_logits": ("gumbel", "gumbel_on_probs")}
FIT_ROWS = (0, 1, 2)
INDEPENDENCE_ALPHA = 1e-8


def fit_alpha() -> float:
    total = BudgetDeclaration(fit=0) + public.BUDGET + hidden.BUDGET
    return FalseFailureBudget(1e-6, total).alpha("fit")


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"wrong_040_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def exact_kills(module) -> list[str]:
    """The frozen hidden cases whose exact answer the module's noise forms miss."""
    killed = []
    for name in cases.FROZEN_CASE_NAMES:
        case = getattr(cases, name)()
        function = {"cdf": "inverse_cdf", "gum": "gumbel_max", "rac": "exponential_race", "ali": "alias_draw"}[name[:3]]
        try:
            tokens = getattr(module, function)(**case.arguments())
            if not torch.equal(tokens, case.expected):
                killed.append(name)
        except Exception:  # noqa: BLE001 - any exception is a failed case (RE)
            killed.append(name)
    for name, probs in (("alias_rows", cases.alias_rows()), ("alias_long_rows", cases.alias_long_rows())):
        try:
            accept, alias = module.build_alias(probs.clone())
            implied = oracle.implied(accept.double(), alias)
            target = oracle.distribution(probs)
            if not torch.allclose(implied, target, rtol=1e-9, atol=1e-12) or bool((implied[target == 0] != 0).any()):
                killed.append(name)
        except Exception:  # noqa: BLE001
            killed.append(name)
    return killed


def kill_probability(
    target: torch.Tensor, wrong: torch.Tensor, n: int, reps: int, alpha: float, generator: torch.Generator
) -> float:
    """P(the suite rejects n draws from ``wrong`` in one row whose target is ``target``)."""
    outside = float(wrong[target == 0].sum())
    survive_support = (1.0 - outside) ** n
    if survive_support < 1e-12:
        return 1.0
    inside = wrong.clone()
    inside[target == 0] = 0.0
    inside = inside / inside.sum()
    counts = torch.distributions.Multinomial(n, probs=inside).sample((reps,))
    target_list = target.tolist()
    passes = sum(1 for row in counts.tolist() if g_test([int(c) for c in row], target_list).pvalue >= alpha)
    return 1.0 - survive_support * passes / reps


def smallest_n(target, wrong, reps, alpha, generator, ceiling: int) -> int | None:
    n = 8
    while n <= 4 * ceiling and kill_probability(target, wrong, n, reps, alpha, generator) < 0.999:
        n *= 2
    if n > 4 * ceiling:
        return None
    low = n // 2
    m = max(8, low)
    while m < n:
        if kill_probability(target, wrong, m, reps, alpha, generator) >= 0.999:
            return m
        m = max(m + 1, int(m * 1.15))
    return n


def distribution_power(method: str, diagnosis: str, reps: int, alpha: float, generator) -> dict:
    probs = cases.sample_rows()
    target = oracle.distribution(probs)
    wrong = oracle.alternatives(probs, method)[diagnosis]
    n_suite = hidden.SAMPLE_DRAWS
    survive = 1.0
    best = None
    for row in FIT_ROWS:
        if torch.allclose(wrong[row], target[row], atol=1e-9):
            continue
        survive *= 1.0 - kill_probability(target[row], wrong[row], n_suite, reps, alpha, generator)
        need = smallest_n(target[row], wrong[row], reps, alpha, generator, n_suite)
        if need is not None and (best is None or need < best[1]):
            best = (row, need)
    return {
        "method": method,
        "p_kill_at_suite_n": 1.0 - survive,
        "suite_n": n_suite,
        "best_row": best[0] if best else None,
        "smallest_n": best[1] if best else None,
    }


def noise_power(name: str, module) -> dict:
    probs = cases.sample_rows()
    target = oracle.distribution(probs)
    n = hidden.SAMPLE_DRAWS
    survive = 1.0
    how = ""
    for method in ("inverse_cdf", "gumbel", "race", "alias"):
        if name in ("noise_shared_across_rows", "noise_reused_across_draws"):
            draws = module.sample(probs.clone(), n, method, generator=torch.Generator().manual_seed(40))
            if name == "noise_shared_across_rows":
                agree = int((draws[0] == draws[3]).sum())
                chance = float((target[0] ** 2).sum())
                p_value = binom_sf(agree - 1, n, chance)
                survive *= 1.0 if p_value >= INDEPENDENCE_ALPHA else 0.0
                how = f"twin rows agree at {agree}/{n} positions (chance {chance:.3f}); binomial tail at 1e-8"
            else:
                constant = bool((draws == draws[:, :1]).all(dim=1).any())
                survive *= 0.0 if constant else 1.0
                how = "every draw of a row is the same token (hard check)"
        else:
            seed_draws = hidden.SEED_DRAWS
            repeat = float(((target**2).sum(dim=1) ** seed_draws).prod())
            if name == "ignores_generator":
                a = module.sample(probs.clone(), seed_draws, method, generator=torch.Generator().manual_seed(1))
                b = module.sample(probs.clone(), seed_draws, method, generator=torch.Generator().manual_seed(1))
                survive *= repeat if not torch.equal(a, b) else 1.0
                how = (
                    f"same-seed generators give different draws; survives only by repeating itself (p <= {repeat:.2g})"
                )
            else:
                torch.manual_seed(1)
                a = module.sample(probs.clone(), seed_draws, method)
                torch.manual_seed(2)
                b = module.sample(probs.clone(), seed_draws, method)
                survive *= repeat if torch.equal(a, b) else 1.0
                how = f"two torch.manual_seed values give the same draws (a correct sampler: p = {repeat:.2g})"
    return {"check": how, "p_kill_at_suite_n": 1.0 - survive}


def calibration(runs: int) -> dict:
    reference = load(ROOT / "solutions" / "040-exact-samplers" / "reference.py")
    probs = cases.sample_rows()
    target = oracle.distribution(probs)
    p_values = []
    generator = torch.Generator().manual_seed(4040)
    for _ in range(runs):
        for method in ("inverse_cdf", "gumbel", "race", "alias"):
            draws = reference.sample(probs, hidden.SAMPLE_DRAWS, method, generator=generator)
            for row in FIT_ROWS:
                counts = torch.bincount(draws[row], minlength=probs.shape[1]).tolist()
                p_values.append(g_test(counts, target[row].tolist()).pvalue)
    return {
        "fits": len(p_values),
        "share_below_0.01": sum(p < 0.01 for p in p_values) / len(p_values),
        "share_below_0.05": sum(p < 0.05 for p in p_values) / len(p_values),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--calibration-runs", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="300 reps, 40 calibration runs")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    reps, runs = (300, 40) if args.quick else (args.reps, args.calibration_runs)
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    alpha = fit_alpha()
    started = time.time()
    rows, failed = [], False
    alternatives_by_name = {}
    for method in ("inverse_cdf", "gumbel", "race", "alias"):
        for diagnosis in oracle.alternatives(cases.sample_rows(), method):
            name = next(key for key, value in MISTAKES.items() if value == diagnosis)
            alternatives_by_name[name] = (method, diagnosis)
    for path in EXERCISE.wrong_solutions():  # a wrong/*.patch expanded against the reference
        name = path.stem
        module = load(path)
        record: dict = {"name": name}
        if name in NOISE:
            record.update(kind="noise", **noise_power(name, module))
        elif name in DETERMINISTIC_OTHER:
            record.update(kind="deterministic", check=DETERMINISTIC_OTHER[name], p_kill_at_suite_n=1.0)
        else:
            killed = exact_kills(module)
            key = SAMPLE_ONLY.get(name, (None, name))[1]
            if name in SAMPLE_ONLY or key in alternatives_by_name:
                method, diagnosis = alternatives_by_name[key]
                record.update(
                    kind="distribution",
                    exact_cases=killed,
                    **distribution_power(method, diagnosis, reps, alpha, generator),
                )
                if killed:
                    record["p_kill_at_suite_n"] = 1.0
            elif killed:
                record.update(kind="exact", exact_cases=killed, p_kill_at_suite_n=1.0)
            else:
                record.update(kind="unclassified", p_kill_at_suite_n=0.0)
        failed |= record["p_kill_at_suite_n"] < 0.999 or record["kind"] == "unclassified"
        rows.append(record)
    calib = calibration(runs)
    print(f"per-fit alpha {alpha:.3g}; suite n = {hidden.SAMPLE_DRAWS} draws per row; reps {reps}")
    print(f"{'wrong solution':34} {'kind':13} {'P(kill)':>8} {'smallest n':>10}  killed by")
    for r in rows:
        smallest = r.get("smallest_n")
        by = ", ".join(r.get("exact_cases", [])) or r.get("check", "")
        if r["kind"] == "distribution":
            by = (f"fit row {r['best_row']} ({r['method']}); " if r.get("best_row") is not None else "") + (
                "exact: " + ", ".join(r["exact_cases"]) if r["exact_cases"] else ""
            )
        print(f"{r['name']:34} {r['kind']:13} {r['p_kill_at_suite_n']:8.4f} {smallest if smallest else '-':>10}  {by}")
    print(
        f"calibration: {calib['fits']} reference fits, share p < 0.01: {calib['share_below_0.01']:.4f}, "
        f"p < 0.05: {calib['share_below_0.05']:.4f}"
    )
    print(f"{time.time() - started:.1f} s")
    if args.json:
        args.json.write_text(json.dumps({"alpha": alpha, "rows": rows, "calibration": calib}, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
