#!/usr/bin/env python3
"""Power of exercise 40's suite: which check kills each known-wrong solution, and at what size.

    .venv/bin/python benchmarks/power_040.py [--reps 1000] [--quick] [--calibration-runs 200]
        [--seed N] [--json PATH]

Every file in ``solutions/040-exact-samplers/wrong/`` is classified (an unclassified file makes
the script exit 1):

* **exact** mistakes: the file's noise-form functions are run on every hidden case the suite
  generates (``cases.py``), under ``--case-seeds`` master seeds (the suite draws new cases for every
  submission); alias tables by their implied distribution, the race and the inverse CDF on
  subnormal weights by their support. A seed whose cases catch the file kills it with probability 1
  (the token comparison is exact); P(kill) is the share of seeds that did, and the killing cases are
  listed.
* **refusal** mistakes: the bad calls the suite generates from the statement's refusal list
  (``specs.py``: every function, one thing wrong per call, and the hand-written ones), under the same
  seeds, are made on the file's functions in this process; one that returns normally (or raises
  anything but a ValueError) kills it.
* **distribution** mistakes (also killed exactly, but ``sample`` is the learner's only path when
  the mistake sits there): for each row of ``cases.sample_rows()`` that gets a fit, the suite's
  decision on draws from the mistaken distribution (``oracle.alternatives``) is simulated: a draw
  of a zero-probability token kills (exact: ``1 - (1 - q)^n``), else the Williams G-test
  (``judge.checks.stats.g_test``) at the suite's per-fit alpha, from ``--reps`` multinomial samples.
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
import json
import random
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judge.checks.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.checks.stats import g_test  # noqa: E402
from judge.checks.tails import binom_sf  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import import_solution, load_suite, suites_module  # noqa: E402

EXERCISE = resolve("40")
load_suite(EXERCISE, "hidden")
load_suite(EXERCISE, "public")
oracle = suites_module(EXERCISE, "hidden.oracle")
cases = suites_module(EXERCISE, "hidden.cases")
hidden = suites_module(EXERCISE, "hidden.hidden")
public = suites_module(EXERCISE, "public.public")
specs = suites_module(EXERCISE, "hidden.specs")
MISTAKES = suites_module(EXERCISE, "public.diagnoses").MISTAKES

NOISE = {"noise_shared_across_rows", "noise_reused_across_draws", "ignores_generator", "private_generator"}
DETERMINISTIC_OTHER = {
    "modifies_input": "the judge's unchanged-inputs check (every call)",
    "reseeds_private_generator": "the generator contract: two calls in a row with one generator repeat (every time)",
    "reseeds_default_generator": "the generator contract: two calls in a row after one torch.manual_seed repeat",
    "manual_seed_inside": "the generator contract: torch's global generator changes in every call given one",
}
SAMPLE_ONLY = {"sample_gumbel_probs_as_logits": ("gumbel", "gumbel_on_probs")}
REFUSAL = {
    "uniform_nan_accepted",
    "logits_posinf_accepted",
    "alias_range_where_used",
    "zero_row_whole_tensor",
    "neginf_row_whole_tensor",
    "num_samples_truncated",
    "unknown_method_fallback",
}
FIT_ROWS = (0, 1, 2)
INDEPENDENCE_ALPHA = 1e-8


def fit_alpha() -> float:
    total = BudgetDeclaration(fit=0) + public.BUDGET + hidden.BUDGET
    return FalseFailureBudget(1e-6, total).alpha("fit")


def load(path: Path):
    return import_solution(path, f"wrong_040_{path.stem}")


def _noise_cases(rng) -> list[tuple[str, str, object]]:
    """Every generated noise-form case of the hidden suite, for one seed: (name, function, case)."""
    out = [(f"cdf_steps[{k}]", "inverse_cdf", c) for k, c in enumerate(cases.cdf_steps(rng))]
    out.append(("cdf_short", "inverse_cdf", cases.cdf_short(rng)))
    out += [(f"cdf_sums[{k}]", "inverse_cdf", c) for k, c in enumerate(cases.cdf_sums(rng))]
    out += [(f"cdf_random[{k}]", "inverse_cdf", c) for k, c in enumerate(cases.cdf_random(rng))]
    for first, second in hidden.PAIRINGS:
        pair = f"{str(first)[-2:]}/{str(second)[-2:]}"
        out.append((f"gumbel {pair}", "gumbel_max", cases.gumbel_case(rng, first, second)))
        out.append((f"race {pair}", "exponential_race", cases.race_case(rng, first, second)))
    out.append(("gumbel ties", "gumbel_max", cases.ties_case(rng, "gumbel_max")))
    out.append(("race ties", "exponential_race", cases.ties_case(rng, "exponential_race")))
    out.append(("race tiny", "exponential_race", cases.race_tiny(rng)))
    out += [(f"alias_draw[{k}]", "alias_draw", c) for k, c in enumerate(cases.alias_draw_cases(rng))]
    return out


def exact_kills(module, seeds: range) -> tuple[float, list[str]]:
    """The share of case seeds whose generated cases the module's noise forms miss, and those cases."""
    killed_seeds, names = 0, set()
    for seed in seeds:
        rng = random.Random(seed)
        killed = []
        for name, function, case in _noise_cases(rng):
            try:
                tokens = getattr(module, function)(**case.arguments())
                if not torch.equal(tokens, case.expected):
                    killed.append(name)
            except Exception:  # noqa: BLE001 - any exception is a failed case (RE)
                killed.append(name)
        subnormal = cases.race_subnormal(rng)
        try:
            tokens = module.exponential_race(**subnormal.arguments())
            if bool((subnormal.kwargs["probs"].gather(1, tokens) == 0).any()):
                killed.append("race subnormal")
        except Exception:  # noqa: BLE001
            killed.append("race subnormal")
        for k, case in enumerate(cases.cdf_subnormal(rng)):
            # Only the support is judged on subnormal weights: an id out of range or of probability 0.
            try:
                tokens = module.inverse_cdf(**case.arguments())
                vocab = case.kwargs["probs"].shape[1]
                outside = bool(((tokens < 0) | (tokens >= vocab)).any())
                if outside or bool((case.kwargs["probs"].gather(1, tokens) == 0).any()):
                    killed.append(f"cdf subnormal[{k}]")
            except Exception:  # noqa: BLE001
                killed.append(f"cdf subnormal[{k}]")
        for name, probs in (("alias_rows", cases.alias_rows(rng)), ("alias_long_rows", cases.alias_long_rows(rng))):
            try:
                accept, alias = module.build_alias(probs.clone())
                implied = oracle.implied(accept.double(), alias)
                target = oracle.distribution(probs)
                valid = bool((accept >= 0).all() and (accept <= 1).all())
                close = torch.allclose(implied, target, rtol=1e-9, atol=1e-12)
                if not (valid and close) or bool((implied[target == 0] != 0).any()):
                    killed.append(name)
            except Exception:  # noqa: BLE001
                killed.append(name)
        killed_seeds += bool(killed)
        names.update(killed)
    return killed_seeds / len(seeds), sorted(names)


def refusal_kills(module, seeds: range) -> tuple[float, list[str]]:
    """The share of seeds whose generated bad calls the module accepts (or refuses with another type)."""
    killed_seeds, kinds = 0, set()

    def generator() -> torch.Generator:
        return torch.Generator().manual_seed(1)

    for seed in seeds:
        rng = random.Random(seed)
        calls = specs.written_refusals(module, rng, generator)
        for name, good in specs.good_calls(rng).items():
            calls += specs.generated_refusals(getattr(module, name), name, good, specs.ARGUMENTS[name], rng)
        good = specs.good_sample(rng, rng.choice(("inverse_cdf", "gumbel", "race", "alias")))
        sampled = specs.generated_refusals(
            module.sample, "sample", good, specs.SAMPLE_ARGUMENTS, rng, extra=lambda: {"generator": generator()}
        )
        calls += sampled + specs.with_other_methods(sampled, good["method"], generator)
        accepted = []
        for call in calls:
            try:
                call.function(*call.args, **call.kwargs)
                accepted.append(str(call.public))
            except ValueError:
                pass
            except Exception:  # noqa: BLE001 - another type is a failed refusal too
                accepted.append(str(call.public))
        killed_seeds += bool(accepted)
        kinds.update(accepted[:1])
    return killed_seeds / len(seeds), sorted(kinds)


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
    parser.add_argument("--case-seeds", type=int, default=30, help="seeds of the generated cases per wrong file")
    parser.add_argument("--quick", action="store_true", help="300 reps, 40 calibration runs, 8 case seeds")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    reps, runs = (300, 40) if args.quick else (args.reps, args.calibration_runs)
    seeds = range(8 if args.quick else args.case_seeds)
    torch.set_num_threads(1)  # as the judge: intra-op threads only wait for one another on a busy machine
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
        elif name in REFUSAL:
            share, kinds = refusal_kills(module, seeds)
            record.update(kind="refusal", check="generated bad calls: " + "; ".join(kinds), p_kill_at_suite_n=share)
        else:
            share, killed = exact_kills(module, seeds)
            key = SAMPLE_ONLY.get(name, (None, name))[1]
            if name in SAMPLE_ONLY or key in alternatives_by_name:
                method, diagnosis = alternatives_by_name[key]
                record.update(
                    kind="distribution",
                    exact_cases=killed,
                    **distribution_power(method, diagnosis, reps, alpha, generator),
                )
                record["p_kill_at_suite_n"] = max(record["p_kill_at_suite_n"], share)
            elif killed:
                record.update(kind="exact", exact_cases=killed, p_kill_at_suite_n=share)
            else:
                record.update(kind="unclassified", p_kill_at_suite_n=0.0)
        failed |= record["p_kill_at_suite_n"] < 0.999 or record["kind"] == "unclassified"
        rows.append(record)
    calib = calibration(runs)
    print(
        f"per-fit alpha {alpha:.3g}; suite n = {hidden.SAMPLE_DRAWS} draws per row; reps {reps}; "
        f"{len(seeds)} seeds of generated cases (exact and refusal: P(kill) is the share of them that kill)"
    )
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
