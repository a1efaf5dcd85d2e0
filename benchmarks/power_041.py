#!/usr/bin/env python3
"""Power of exercise 41's suite: the smallest size that kills each known-wrong solution, and the
calibration of the reference.

    .venv/bin/python benchmarks/power_041.py [--quick] [--reps 400] [--seed N] [--json PATH]

Every file in ``solutions/041-monte-carlo-error/wrong/`` is classified by the check that kills it
(a file in neither table is reported as unclassified, and the script exits 1):

* **coverage mistakes** (``COVERAGE``): their error bars have another coverage than the Wald
  interval's. Each answer's standard errors are first checked exactly against the formula of their
  own estimates (answers41), which kills all of them on every run; the power reported is the
  calibration test's alone, the second line. The count of intervals that cover P(event) among the
  suite's m rows is exactly
  Binomial(m, c') with c' the mistake's exact coverage (``wald.coverage`` with the mistake's
  procedure), so the chance that the exact two-sided test at z rejects (alpha = the suite's
  calibration alpha / 2, public + hidden declared together) is a finite sum. Reported: that chance
  at the hidden suite's m = 1 000 rows of 400 draws (a lower bound: the better of z = 1 and 2),
  and the smallest m (doubling, then bisection) where it reaches 0.999, also for the tiny variant
  (250 rows of 50 draws).
* **bias mistakes** (``BIAS``): their estimates have another mean than P(event) on the bias check's
  mixed rows (softmax of the probabilities, rows not normalized, row 0's event, the complement);
  the z-test of the mean over m rows, with the exact mean of the mistaken estimate (averaged over
  the rows) and its binomial standard deviation: power from the normal law, the smallest m likewise.
* **dependent draws** (``DEPENDENT``): antithetic pairs (u, 1 - u) within a row. The independence
  case's counts of few draws (rows of P(event) = 1/2, n odd in {3, 5, 7} then even) follow another law
  than Binomial(n, 1/2): k = (n - 1) / 2 + Bernoulli(1/2) for odd n. Power: the pooled G-test at the
  fit alpha over ``--reps`` simulated calls (the worst odd n), and the smallest number of rows.
* **zero weights drawn** (``ZERO_WEIGHT``): weights smoothed by 1e-12 give the zeros of the tiny rows
  (about half of them) nearly all the mass; the certain-event case misses only when both tiny rows of
  its float64 call come out right, (1 - z)^n z^n with z the zeros' share: computed over 200 seeds'
  rows, the worst reported.
* **hard mistakes** (``HARD``): deterministic checks kill them on every run (generated instances
  built so: ``tests/exercises/test_041_monte_carlo_error.py`` asserts it over many seeds); the table
  says which (``check NNN --seeds 30`` shows it).

The calibration of the reference: the correct procedure's count is Binomial(m, c), so the exact
rejection probability of the coverage test at relaxed alphas (0.1, 0.01, 0.001) is computed, and
the reference itself is run ``--reps`` times at the hidden suite's size (CPU, torch), its p-values
of the coverage and the bias tests counted below each alpha (expected: about alpha, or below for
the discrete coverage test). ``--quick`` lowers ``--reps`` to 100. Exits 1 when a mistake is
killed with probability below 0.999 at the suite's size or a file is unclassified.
"""

from __future__ import annotations

import argparse
import json
import math
import random
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
# Wrong file -> the key of wald.MISTAKEN_PROCEDURES whose intervals it returns.
COVERAGE = {
    "prob_se_divides_by_n": "se_divides_by_n",
    "prob_se_is_variance": "se_is_variance",
    "prob_se_not_divided": "se_not_divided",
    "wide_error_bars": "wide_error_bars",
    "se_times_z": "se_times_z",
}
# Wrong file -> the key of checks41.mixed_mistakes giving its mean estimate on the bias check's mixed rows.
BIAS = {
    "softmax_of_probs": "softmax_of_probs",
    "unnormalized_probs": "unnormalized_probs",
    "event_of_row_0": "event_of_row_0",
    "complement_event": "complement_event",
}
# Wrong file -> the within-row dependence its counts show in the independence case (few draws, p = 1/2).
DEPENDENT = {"antithetic_draws": "antithetic"}
ZERO_WEIGHT = {"zero_weight_smoothed": 1e-12}
HARD = {
    "se_divides_by_n": "exact standard errors (expect_close), every mean case",
    "population_variance": "exact standard errors (expect_close), n = 2, 3, 10, 50",
    "se_is_variance": "exact standard errors (expect_close), every mean case",
    "se_not_divided": "exact standard errors (expect_close), every mean case",
    "naive_variance": "exact standard errors, float32 rows near 10 000 (the large-offset case)",
    "smoothed_estimate": "every estimate must be a frequency k / n",
    "exact_probability": "every estimate must be a frequency k / n",
    "shared_across_rows": "rows' counts agree at every position (independence, exact tail: p < 1e-300)",
    "ignores_generator": "same generator seed, different results (survives with chance < 1e-18)",
    "private_generator": "two global seeds give the same results (survives with chance < 1e-18)",
    "one_sample": "exact samples_needed cases",
    "not_squared": "exact samples_needed cases",
    "rounds_down": "exact samples_needed cases",
    "not_strict": "whole-number bounds (exact samples_needed cases)",
    "not_an_int": "samples_needed must return an int",
    "estimate_divides_by_n_minus_1": "every estimate must be a frequency k / n",
    "se_true_p": "exact standard errors from the counts (public example, 3 rows)",
    "stratified_draws": "rows' counts agree too often (independence, exact tail: p < 1e-100)",
    "float32_estimates": "the dtype of float64 probs (the bias check's rows)",
    "welford_float32": "exact means, float32 rows in two blocks: the running mean stalls (every seed)",
    "inexact_bound": "whole-number bounds that float rounding misses (0.375, 2.0625, 2.0; generated)",
    "one_pass_float64": "exact standard errors, float64 rows 10^4.5 to 10^5 times their spread",
    "reseeded_generator": "two calls with one generator repeat (chance < 1e-12 for a correct one)",
    "float_bound": "generated whole-number bounds of non-dyadic floats (>= 2 missed per seed)",
    "decimal_fraction": "generated whole-number bounds of non-dyadic floats (>= 2 missed per seed)",
    "se_nan_one_draw": "num_samples = 1: standard error exactly 0 (corners, certain events)",
    "bool_accepted": "a bool where a number belongs must raise ValueError",
    "float_count_accepted": "a float num_samples must raise ValueError",
    "type_error_for_non_numbers": "a string or None must raise ValueError, not TypeError",
    "inverse_cdf_past_the_end": "certain events at the largest uniform, rows past their cumsum",
}
for _name in COVERAGE:
    HARD.setdefault(_name, "the standard error of each estimate, exactly (every answer); calibration too")


def suite_parts():
    exercise = resolve("41")
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise, suite)
    parts = {
        name: suites_module(exercise, f"{folder}.{name}")
        for name, folder in (
            ("hidden", "hidden"),
            ("public", "public"),
            ("tiny", "public"),
            ("wald", "public"),
            ("checks41", "public"),
            ("extremes41", "public"),
        )
    }
    return exercise, parts


def alphas(parts) -> dict[str, dict[str, float]]:
    """The calibration, unbiased and fit alphas of a judged run: server (public + hidden), browser (public + tiny)."""
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


def coverage_power(wald, n: int, p: float, m: int, procedure, alpha: float) -> float:
    """The better z's rejection probability (a lower bound on the check's power)."""
    correct, _ = wald.calibration_targets(n, p)
    per_z = alpha / len(correct)
    return max(rejection_probability(m, correct[z], wald.coverage(n, p, z, procedure), per_z) for z in correct)


def bias_power(n: int, p: float, p_wrong: float, m: int, alpha: float) -> float:
    """P(|z| > threshold) for the mean of m estimates of mean p_wrong, tested against p with sd(p)."""
    threshold = normal_quantile(1 - alpha / 2)
    scale = math.sqrt(p * (1 - p) / n / m)
    spread = math.sqrt(p_wrong * (1 - p_wrong) / n / m) / scale
    shift = (p_wrong - p) / scale
    return normal_sf((threshold - shift) / spread) + normal_sf((threshold + shift) / spread)


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


def antithetic_counts(n: int, m: int, generator: torch.Generator) -> list[int]:
    """The counts of ``m`` rows of n draws with P(event) = 1/2 drawn as antithetic coin flips: the first
    half's uniforms u, the second half's 1 - u (the catalogued antithetic_draws)."""
    half = torch.rand(m, (n + 1) // 2, generator=generator, dtype=torch.float64)
    u = torch.cat([half, 1 - half], dim=1)[:, :n]
    return (u < 0.5).sum(dim=1).tolist()


def dependent_power(n: int, m: int, alpha: float, reps: int, seed: int) -> float:
    """The share of ``reps`` simulated calls whose counts the independence case's G-test rejects."""
    generator = torch.Generator().manual_seed(seed)
    target = [math.exp(binom_log_pmf(k, n, 0.5)) for k in range(n + 1)]
    rejected = 0
    for _ in range(reps):
        counts = antithetic_counts(n, m, generator)
        observed = [counts.count(k) for k in range(n + 1)]
        rejected += g_test(observed, target).pvalue < alpha
    return rejected / reps


def zero_weight_miss(parts, seeds: int = 200) -> float:
    """The largest chance, over ``seeds`` seeds' float64 certain-event rows, that smoothing the weights by
    1e-12 leaves both tiny rows right: (1 - z)^n z^n, z the zeros' share of the smoothed tiny row, n from
    the case's range (its smallest, 8)."""
    extremes41 = parts["extremes41"]
    worst = 0.0
    for seed in range(seeds):
        rows = extremes41.exact_rows(random.Random(seed), torch.float64, 8)
        tiny = rows.probs[3] + 1e-12
        z = float(tiny[rows.probs[3] == 0].sum() / tiny.sum())
        worst = max(worst, (1 - z) ** rows.num_samples * z**rows.num_samples)
    return worst


def reference_calibration(exercise, parts, reps: int, seed: int, levels=(0.1, 0.01, 0.001)) -> dict:
    """Run the reference's estimate_probability ``reps`` times at the hidden suite's size; count small p-values."""
    reference = import_solution(exercise.reference_path, "reference_041")
    hidden, checks41, wald = parts["hidden"], parts["checks41"], parts["wald"]
    p = checks41.event_probability(hidden.EVENT)
    m, n = hidden.CALIBRATION_ROWS, hidden.CALIBRATION_DRAWS
    correct, _ = wald.calibration_targets(n, p)
    probs = torch.tensor([checks41.PROBS] * m, dtype=torch.float32)
    event = torch.zeros(m, len(checks41.PROBS), dtype=torch.bool)
    event[:, list(hidden.EVENT)] = True
    generator = torch.Generator().manual_seed(seed)
    pvalues: dict[str, list[float]] = {f"coverage z={z:g}": [] for z in correct} | {"bias": []}
    for _ in range(reps):
        estimate, se = reference.estimate_probability(probs, event, n, generator=generator)
        values, errors = estimate.double().tolist(), se.double().tolist()
        for z, c in correct.items():
            covered = sum(abs(v - p) <= z * e for v, e in zip(values, errors, strict=True))
            pvalues[f"coverage z={z:g}"].append(coverage_test(covered, m, c).pvalue)
        pvalues["bias"].append(mean_test(values, p, math.sqrt(p * (1 - p) / n)).pvalue)
    exact = {
        f"coverage z={z:g}": {str(a): rejection_probability(m, c, c, a) for a in levels} for z, c in correct.items()
    }
    observed = {name: {str(a): sum(v < a for v in values) / reps for a in levels} for name, values in pvalues.items()}
    return {"reps": reps, "rows": m, "draws": n, "exact_rejection": exact, "observed_rejection": observed}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions of the reference (100)")
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    reps = 100 if args.quick else args.reps
    started = time.perf_counter()
    exercise, parts = suite_parts()
    hidden, tiny, wald, checks41 = parts["hidden"], parts["tiny"], parts["wald"], parts["checks41"]
    levels = alphas(parts)
    rows, failed = [], False
    sizes = {"server": (hidden, levels["server"]), "browser": (tiny, levels["browser"])}
    for path in exercise.wrong_solutions():  # by name; a wrong/*.patch expanded
        name = path.stem
        if name in COVERAGE:
            procedure = wald.MISTAKEN_PROCEDURES[COVERAGE[name]]
            # Killed on every run by the exact standard errors; the calibration test's own power beside it.
            row = {"mistake": name, "check": "exact standard errors; calibration power shown", "hard": True}
            for where, (suite, alpha) in sizes.items():
                n, p, m = suite.CALIBRATION_DRAWS, checks41.event_probability(suite.EVENT), suite.CALIBRATION_ROWS
                power = lambda rows_, n=n, p=p, f=procedure, a=alpha["calibration"]: coverage_power(  # noqa: E731
                    wald, n, p, rows_, f, a
                )
                row[where] = {"m": m, "power": power(m), "smallest_m": smallest(power, m)}
        elif name in BIAS:
            row = {"mistake": name, "check": "unbiased (z-test of the mean)"}
            for where, (suite, alpha) in sizes.items():
                n, p, m = suite.UNBIASED_DRAWS, checks41.event_probability(suite.EVENT), suite.UNBIASED_ROWS
                wrong = checks41.mixed_mistakes(m, suite.EVENT)[BIAS[name]]
                power = lambda rows_, n=n, p=p, w=wrong, a=alpha["unbiased"]: bias_power(n, p, w, rows_, a)  # noqa: E731
                row[where] = {"m": m, "power": power(m), "smallest_m": smallest(power, m)}
        elif name in DEPENDENT:
            row = {"mistake": name, "check": "independence within a row (counts of few draws, G-test)"}
            for where, (suite, alpha) in sizes.items():
                m = 2 * suite.INDEPENDENCE_PAIRS

                def power(rows_, a=alpha["fit"]):
                    return min(dependent_power(n, rows_, a, max(50, reps // 4), args.seed) for n in (3, 5, 7))

                row[where] = {"m": m, "power": power(m), "smallest_m": smallest(power, m)}
        elif name in ZERO_WEIGHT:
            miss = zero_weight_miss(parts)
            check = "certain events, tiny weights among zeros (worst seed of 200)"
            row = {"mistake": name, "check": check, "server": {"power": 1 - miss}, "browser": {"power": 1 - miss}}
        elif name in HARD:
            row = {"mistake": name, "check": HARD[name], "server": {"power": 1.0}, "browser": {"power": 1.0}}
        else:
            row = {"mistake": name, "check": "UNCLASSIFIED", "server": {"power": 0.0}, "browser": {"power": 0.0}}
            failed = True
        if row["server"]["power"] < TARGET and not row.get("hard"):
            failed = True
        rows.append(row)
    calibration = reference_calibration(exercise, parts, reps, args.seed)
    seconds = time.perf_counter() - started

    print(f"Exercise 41: power against each known mistake (target {TARGET}); alphas {levels}")
    head = f"{'server m':>8} {'power':>9} {'min m':>6} {'browser m':>9} {'power':>9} {'min m':>6}"
    print(f"{'mistake':22} {'check':58} {head}")
    for row in rows:
        s, b = row["server"], row["browser"]
        print(
            f"{row['mistake']:22} {row['check'][:58]:58} {s.get('m', ''):>8} {s['power']:>9.6f} "
            f"{s.get('smallest_m') or '':>6} {b.get('m', ''):>9} {b['power']:>9.6f} {b.get('smallest_m') or '':>6}"
        )
    print(
        f"\nReference, {calibration['reps']} runs of {calibration['rows']} rows x {calibration['draws']} draws: "
        "rejection rate at relaxed alphas (observed; exact for the coverage test)"
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
