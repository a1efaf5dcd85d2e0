#!/usr/bin/env python3
"""Power of exercise 44's suite: the smallest size that kills each known-wrong solution, and the
calibration of the reference.

    .venv/bin/python benchmarks/power_044.py [--quick] [--reps 400] [--seed N] [--json PATH]

Every file in ``solutions/044-importance-sampling/wrong/`` is classified by the check that kills it
(a file in no table is reported as unclassified, and the script exits 1):

* **coverage mistakes** (``COVERAGE``): standard errors of another size. Over m rows of n = 20 draws
  the count of intervals covering E_p[f] is exactly Binomial(m, c') with c' the mistake's exact
  coverage (``checks44.coverage_of``: a sum over every split of the draws), so the chance that the
  exact two-sided test at z rejects (alpha = the calibration alpha / 2) is a finite sum. Reported:
  that chance at the suite's m (the better of z = 1 and 2, a lower bound) and the smallest m
  (doubling, then bisection) where it reaches 0.999. These mistakes are also killed on every run
  by the public draw check (each standard error must be the one its draws give), which is why
  ``se_population_variance`` (coverage 0.625 against 0.632: no practical m) is in the catalogue.
* **bias mistakes** (``BIAS``): estimates of another mean (draws from p; a cap not applied). The
  z-test of the mean of m estimates, each with the mistake's exact mean and standard deviation
  (sums over the 4 outcomes): power from the normal law, the smallest m likewise.
* **law mistakes** (``LAW``): draws that are not independent within a row (antithetic pairs; without
  replacement, which also raises where n > V). The split of each row's 4 draws among 5 outcomes
  (``draws44.check_law``) is fitted to the multinomial law by the G-test at the fit alpha; the
  mistake's splits follow its own exact law (``readable44``), so the power is simulated: m splits
  drawn from that law, ``--law-reps`` times, the share the G-test rejects.
* **hard mistakes** (``HARD``): deterministic checks kill them on every run (``check 44`` shows it).

The calibration of the reference: its count of covering intervals is Binomial(m, c), so the exact
rejection probability of the coverage test at relaxed alphas (0.1, 0.01, 0.001) is computed, and
the reference itself is run ``--reps`` times at the hidden suite's sizes (CPU, torch): the p-values
of the coverage, bias and truncated-bias tests counted below each alpha (expected: about alpha, or
below for the discrete coverage test). ``--quick`` lowers ``--reps`` to 100. Exits 1 when a mistake
is killed with probability below 0.999 at the suite's size or a file is unclassified.
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

from judge.checks.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.checks.stats import coverage_test, g_test, mean_test  # noqa: E402
from judge.checks.tails import binom_log_pmf, normal_quantile, normal_sf  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import import_solution, load_suite, suites_module  # noqa: E402

TARGET = 0.999
COVERAGE = {
    "se_divides_by_n": "se_divides_by_n",
    "se_unweighted": "se_unweighted",
    "se_population_variance": "se_population_variance",
}
# Wrong file -> (cap of the check, the draws' distribution, their weights' cap): the mistake's y = w f.
BIAS = {
    "samples_from_p": "samples_from_p",
    "sampler_ignores_cap": "sampler_ignores_cap",
}
HARD = {
    "inverted_log_weights": "exact values (expect_close), public hand example",
    "naive_exp": "exact values: NaN at log-weights of 900 (public), inf where the sum of e^709 overflows",
    "ordinary_is_self_normalized": "exact values, public hand example (unnormalized row)",
    "ordinary_softmax_mean": "exact values, public hand example",
    "sn_is_ordinary": "exact values, public hand example (unnormalized row)",
    "ess_unnormalized": "exact values, public hand example",
    "ess_n_over_mean_square": "exact values, public hand example",
    "ess_numerator_not_squared": "exact values, public hand example",
    "clip_after_normalizing": "exact values of truncated_estimate, public hand example",
    "clip_floor": "exact values of truncated_estimate, public hand example",
    "clip_log_cap": "exact values of truncated_estimate, public hand example",
    "sampler_self_normalized": "draw check: an estimate is no mean of w f over 20 draws (every run)",
    "exp_each_side": "exact values: NaN on the public float32 sequence log-probabilities",
    "ordinary_sum_overflows": "exact values: inf where the sum of e^709 (e^88 in float32) overflows, public",
    "log_of_f": "exact values: NaN where f < 0, public near-overflow rows",
    "clip_after_max_shift": "exact values of truncated_estimate, public hand example",
    "truncated_self_normalized": "exact values of truncated_estimate, public hand example",
    "ess_entropy": "exact values, public hand example",
    "ess_cv_sample_variance": "exact values, public hand example",
    "int_cap_refused": "public hand example calls truncated_estimate with cap = 2 (an int)",
    "batch_of_one_squeezed": "output shapes: public draw check on a batch of one row",
    "rejects_zero_probabilities": "public zero-probability case: raises on valid input",
    "zero_weight_nan": "public zero-probability case: NaN where p = q = 0",
    "rows_share_uniforms": "independence: identical rows all agree (32 pairs hidden, 8 tiny), p < 1e-17",
    "sampler_seeds_itself": "seeds: a second seed gives the same 8 estimates (chance 1e-18), hidden and tiny",
}
HARD |= {
    "generator_reseeded_each_call": "generator contract: two successive calls on one generator repeat each other",
    "global_rng_with_generator": "generator contract: the global RNG moves (or the draws ignore the generator)",
    "default_generator_private": "generator contract: generator=None must follow torch.manual_seed",
    "inverse_cdf_left": "every draw site at 0: rows with q = 0 at the start, a draw where q = 0 read off",
    "inverse_cdf_unscaled": "every draw site at the largest float below 1: cumsum ending below 1",
    "cap_on_product": "readable rows with a cap: the estimate is no mean of min(w, cap) f over the draws",
    "clip_two_sided": "exact truncated_estimate where weights lie below 1/cap",
    "ordinary_sum_before_dividing": "exact ordinary estimate on near-overflow rows (inf)",
    "ess_in_float32": "exact ESS of float64 batches: float32 precision is outside the tolerance",
    "ess_float64_output": "output dtype of effective_sample_size on float32 inputs",
    "f_not_checked": "generated bad inputs: NaN / inf in f",
    "integer_tensors_accepted": "generated bad inputs: int64 / int32 / bool tensors",
    "one_d_accepted": "generated bad inputs: 1-D tensors",
    "negative_p_accepted": "generated bad inputs: negative p or q",
    "q_cover_not_checked": "generated bad inputs: q = 0 where p > 0",
    "zero_row_of_q_accepted": "generated bad inputs: a row of q without a positive value, V = 0",
    "num_samples_one_accepted": "generated bad inputs: num_samples = 1",
    "no_sample_accepted": "generated bad inputs: N = 0",
    "cap_nan_inf_accepted": "generated bad inputs: cap NaN / inf",
}
# Wrong file -> its name in draws44.MISTAKES (the law of its splits is an alternative of the fit).
TINY_LAW_ROWS = 200  # tiny.py: draws44.check_law(sub, ctx, count=200)
LAW = {"antithetic_draws": "antithetic_draws", "draws_without_replacement": "draws_without_replacement"}
DRAW_CHECK = "standard errors read off the draws (public draw check), every run"


def suite_parts():
    exercise = resolve("44")
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise, suite)
    parts = {
        name: suites_module(exercise, f"{folder}.{name}")
        for name, folder in (
            ("hidden", "hidden"),
            ("public", "public"),
            ("tiny", "public"),
            ("checks44", "public"),
            ("draws44", "public"),
        )
    }
    return exercise, parts


def alphas(parts) -> dict[str, dict[str, float]]:
    """The calibration and unbiased alphas of a judged run: server (public + hidden), browser (public + tiny)."""
    result = {}
    for where, suites in (("server", ("public", "hidden")), ("browser", ("public", "tiny"))):
        declared = sum((parts[s].BUDGET for s in suites), BudgetDeclaration())
        budget = FalseFailureBudget(1e-6, declared)
        result[where] = {kind: budget.alpha(kind) for kind in ("calibration", "unbiased", "fit")}
    return result


def rejection_probability(m: int, c_null: float, c_true: float, alpha: float) -> float:
    """P(the exact two-sided coverage test at ``alpha`` rejects) when the count is Binomial(m, c_true)."""
    total = 0.0
    for k in range(m + 1):
        if coverage_test(k, m, c_null).pvalue < alpha:
            total += math.exp(binom_log_pmf(k, m, c_true))
    return min(1.0, total)


def coverage_power(checks, mistake: str, m: int, alpha: float) -> float:
    per_z = alpha / len(checks.COVERAGE)
    wrong = checks.COVERAGE_MISTAKES[mistake]
    return max(rejection_probability(m, c, wrong[z], per_z) for z, c in checks.COVERAGE.items())


def bias_moments(checks, mistake: str) -> tuple[float, float, float | None]:
    """(mean, sd of one draw's y) of the mistaken estimator, and the cap of the check that meets it."""
    if mistake == "samples_from_p":
        return (*checks.moments(checks.weighted_values(checks.F), checks.P), None)
    return (*checks.moments(checks.weighted_values(checks.F)), 2.0)


def bias_power(checks, mistake: str, n: int, m: int, alpha: float) -> float:
    """P(|z| > threshold) for the mean of m estimates of the mistake, tested against the null's mean and sd."""
    wrong_mean, wrong_sd, cap = bias_moments(checks, mistake)
    truth, sd = checks.moments(checks.weighted_values(checks.F, cap))
    threshold = normal_quantile(1 - alpha / 2)
    scale = sd / math.sqrt(n * m)
    spread = wrong_sd / math.sqrt(n * m) / scale
    shift = (wrong_mean - truth) / scale
    return normal_sf((threshold - shift) / spread) + normal_sf((threshold + shift) / spread)


def law_power(parts, mistake: str, m: int, alpha: float, reps: int, seed: int = 0) -> float:
    """P(the fit G-test of m splits at ``alpha`` rejects) when the splits follow the mistake's exact law
    (simulated, ``reps`` times)."""
    draws = parts["draws44"]
    truth, alternatives = draws.laws(draws.LAW_Q[0], draws.LAW_P[0], draws.LAW_DRAWS)
    law = alternatives[draws.MISTAKES[mistake]]
    generator = torch.Generator().manual_seed(seed)
    counts = torch.multinomial(law.expand(reps, -1), m, replacement=True, generator=generator)
    observed = torch.nn.functional.one_hot(counts, law.numel()).sum(dim=1)
    expected = truth.tolist()
    rejected = sum(g_test(row, expected).pvalue < alpha for row in observed.tolist())
    return rejected / reps


def smallest(power, suite_m: int) -> int | None:
    """The smallest m with power(m) >= TARGET (doubling from 8, then bisection), or None past 64 x the suite's."""
    high = 8
    while power(high) < TARGET:
        high *= 2
        if high > 64 * suite_m:
            return None
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if power(middle) >= TARGET else (middle, high)
    return high


def reference_calibration(exercise, parts, reps: int, seed: int, levels=(0.1, 0.01, 0.001)) -> dict:
    """Run the reference's sample_estimate ``reps`` times at the hidden suite's sizes; count small p-values."""
    reference = import_solution(exercise.reference_path, "reference_044")
    hidden, checks = parts["hidden"], parts["checks44"]
    n = checks.CALIBRATION_DRAWS
    generator = torch.Generator().manual_seed(seed)
    truth, sd = checks.moments(checks.weighted_values(checks.F))
    capped, capped_sd = checks.moments(checks.weighted_values(checks.F, hidden.TRUNCATED_CAP))
    calibration_inputs = checks.inputs(hidden.CALIBRATION_ROWS, dtype=torch.float32)
    unbiased_inputs = checks.inputs(hidden.UNBIASED_ROWS)
    truncated_inputs = checks.inputs(hidden.TRUNCATED_ROWS)
    pvalues: dict[str, list[float]] = {f"coverage z={z:g}": [] for z in checks.COVERAGE}
    pvalues |= {"bias": [], "truncated bias": []}
    for _ in range(reps):
        estimate, se = reference.sample_estimate(*calibration_inputs, n, generator=generator)
        values, errors = estimate.double().tolist(), se.double().tolist()
        for z, c in checks.COVERAGE.items():
            covered = sum(abs(v - truth) <= z * e for v, e in zip(values, errors, strict=True))
            pvalues[f"coverage z={z:g}"].append(coverage_test(covered, len(values), c).pvalue)
        estimate, _ = reference.sample_estimate(*unbiased_inputs, hidden.UNBIASED_DRAWS, generator=generator)
        pvalues["bias"].append(mean_test(estimate.tolist(), truth, sd / math.sqrt(hidden.UNBIASED_DRAWS)).pvalue)
        estimate, _ = reference.sample_estimate(
            *truncated_inputs, hidden.TRUNCATED_DRAWS, cap=hidden.TRUNCATED_CAP, generator=generator
        )
        std = capped_sd / math.sqrt(hidden.TRUNCATED_DRAWS)
        pvalues["truncated bias"].append(mean_test(estimate.tolist(), capped, std).pvalue)
    m = hidden.CALIBRATION_ROWS
    exact = {
        f"coverage z={z:g}": {str(a): rejection_probability(m, c, c, a) for a in levels}
        for z, c in checks.COVERAGE.items()
    }
    observed = {name: {str(a): sum(v < a for v in values) / reps for a in levels} for name, values in pvalues.items()}
    return {"reps": reps, "rows": m, "draws": n, "exact_rejection": exact, "observed_rejection": observed}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions of the reference (100)")
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--law-reps", type=int, default=2000)
    args = parser.parse_args(argv)
    reps = 100 if args.quick else args.reps
    started = time.perf_counter()
    exercise, parts = suite_parts()
    hidden, checks = parts["hidden"], parts["checks44"]
    tiny = parts["tiny"]
    browser = {
        "calibration": tiny.CALIBRATION_ROWS,
        "unbiased": tiny.UNBIASED_ROWS,
        "truncated": tiny.TRUNCATED_ROWS,
        "law": TINY_LAW_ROWS,
    }
    levels = alphas(parts)
    # (rows of the check, its draws) per place: calibration, unbiased, truncated.
    sizes = {
        "server": {
            "calibration": hidden.CALIBRATION_ROWS,
            "unbiased": hidden.UNBIASED_ROWS,
            "truncated": hidden.TRUNCATED_ROWS,
            "law": parts["draws44"].LAW_ROWS,
        },
        "browser": browser,
    }
    n = checks.CALIBRATION_DRAWS
    rows, failed = [], False
    for path in exercise.wrong_solutions():  # by name; a wrong/*.patch expanded
        name = path.stem
        if name in COVERAGE:
            row = {"mistake": name, "check": f"calibration (exact coverage); also {DRAW_CHECK}"}
            for where in sizes:
                m = sizes[where]["calibration"]
                power = lambda m_, a=levels[where]["calibration"], k=COVERAGE[name]: coverage_power(checks, k, m_, a)  # noqa: E731
                row[where] = {"m": m, "power": power(m), "smallest_m": smallest(power, m), "killed": 1.0}
        elif name in BIAS:
            cap = bias_moments(checks, BIAS[name])[2]
            row = {"mistake": name, "check": "unbiased (z-test of the mean)" + ("" if cap is None else ", cap = 2")}
            for where in sizes:
                m = sizes[where]["unbiased" if cap is None else "truncated"]
                power = lambda m_, a=levels[where]["unbiased"], k=BIAS[name]: bias_power(checks, k, n, m_, a)  # noqa: E731
                row[where] = {"m": m, "power": power(m), "smallest_m": smallest(power, m)}
                row[where]["killed"] = row[where]["power"]
        elif name in LAW:
            row = {"mistake": name, "check": "split law of a row's 4 draws (fit G-test, simulated)"}
            law_reps = 200 if args.quick else args.law_reps
            for where in sizes:
                m = sizes[where]["law"]
                power = lambda m_, a=levels[where]["fit"], k=LAW[name], r=law_reps: law_power(parts, k, m_, a, r)  # noqa: E731
                row[where] = {"m": m, "power": power(m), "smallest_m": smallest(power, m)}
                # Without replacement also raises wherever n > V (generated corners): killed on every run.
                row[where]["killed"] = 1.0 if name == "draws_without_replacement" else row[where]["power"]
        elif name in HARD:
            row = {"mistake": name, "check": HARD[name]}
            row |= {where: {"power": 1.0, "killed": 1.0} for where in sizes}
        else:
            row = {
                "mistake": name,
                "check": "UNCLASSIFIED",
                "server": {"power": 0.0, "killed": 0.0},
                "browser": {"power": 0.0, "killed": 0.0},
            }
            failed = True
        if name in exercise.browser.undetectable:  # listed in exercise.toml: the browser runs no such check
            row["browser"] = {"power": 0.0, "killed": 0.0}
        if row["server"]["killed"] < TARGET:
            failed = True
        rows.append(row)
    calibration = reference_calibration(exercise, parts, reps, args.seed)
    seconds = time.perf_counter() - started

    print(f"Exercise 44: power against each known mistake (target {TARGET}); alphas {levels}")
    head = f"{'server m':>8} {'power':>9} {'min m':>6} {'browser m':>9} {'power':>9} {'min m':>6}"
    print(f"{'mistake':28} {'check':58} {head}")
    for row in rows:
        s, b = row["server"], row["browser"]
        print(
            f"{row['mistake']:28} {row['check'][:58]:58} {s.get('m', ''):>8} {s['power']:>9.6f} "
            f"{s.get('smallest_m') or '':>6} {b.get('m', ''):>9} {b['power']:>9.6f} {b.get('smallest_m') or '':>6}"
        )
    print(
        f"\nReference, {calibration['reps']} runs at the hidden sizes ({calibration['rows']} rows x "
        f"{calibration['draws']} draws for coverage): rejection rate at relaxed alphas (exact for the coverage test)"
    )
    for name, observed in calibration["observed_rejection"].items():
        exact = calibration["exact_rejection"].get(name, {})
        print(
            f"  {name:16} "
            + "  ".join(
                f"alpha {a}: {v:.3f}" + (f" (exact {exact[a]:.4f})" if a in exact else "") for a, v in observed.items()
            )
        )
    print(f"\n{seconds:.1f} s")
    if args.json:
        args.json.write_text(
            json.dumps({"alphas": levels, "mistakes": rows, "reference": calibration, "seconds": seconds}, indent=2)
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
