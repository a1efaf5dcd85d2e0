#!/usr/bin/env python3
"""Is the judge calibrated? Rejection rates of the reference at relaxed alphas, and uniform p-values.

    .venv/bin/python benchmarks/calibration.py [--runs 200] [--quick] [--seed N] [--threads 1] [--json PATH]

Judges the reference solution of exercise 39 ``--runs`` times (public + hidden, one reused
learner process, distinct master seeds) and collects the p-value of every goodness-of-fit
check (kind "fit": 22 per run), of every within-row pair check (kind "pairs": 2 per run, also
a G-test) and of the "too regular" checks (case ``not_too_regular``: one
lower-tail test per case that ran fit checks: 7 cases, of which the judge declines 2, the public
``top_p=0.8`` row and the scalar rows, so 5 p-values per run). A too-regular test the judge declines
(``judge.checks.distributions.too_regular``: the case's counts are too discrete for a lower tail at its level;
recorded with p = 1 and the reason in its label) is counted apart, not as a p-value.
For a correct sampler each p-value should be uniform on (0, 1), so a check run at level
alpha should reject a fraction alpha of the time. It reports, at alpha = 0.1, 0.01 and
0.001, the observed rejection rate with an exact (Clopper-Pearson) 99 % interval and the
ratio observed / nominal, for all fit checks together and per check label, and for the
too-regular checks together and per case; a Kolmogorov-Smirnov test of the p-values against
U(0, 1) and a 10-bin histogram of the fit p-values; and
the verdicts at the real budget (every run must be AC). The duplicated-row independence
test is listed too: its exact binomial tail is discrete, so it may only run cold (ratio <= 1).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from rich.table import Table  # noqa: E402
from scipy import stats as sps  # noqa: E402

from benchmarks._common import EXERCISE_ID, fmt_p, machine, write_json  # noqa: E402
from benchmarks._common import console as make_console  # noqa: E402
from judge.engine.process import LearnerProcess  # noqa: E402
from judge.engine.runner import TOO_REGULAR_CASE, judge_file  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402

ALPHAS = (0.1, 0.01, 0.001)
CONFIDENCE = 0.99
SEED_STEP = 1_000_003  # master seeds SEED + i * SEED_STEP: distinct, reproducible


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="judged runs of the reference (default 200)")
    parser.add_argument("--quick", action="store_true", help="50 runs")
    parser.add_argument("--seed", type=int, default=39_2026, help="first master seed (default 392026)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads in this process (default 1: the statistics do not depend on it, and on "
                             "a small shared machine one thread is faster; 0 keeps torch's default). The learner "
                             "process always runs one (judge/sandbox/child.py)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures (and every p-value) as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = min(args.runs, 50)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    console = make_console()
    exercise = resolve(EXERCISE_ID)
    info = machine()
    console.print(f"[bold]calibration[/bold]: reference of {exercise.folder} judged {args.runs} times "
                  f"(public + hidden), torch {info['torch']}, {info['cpus']} CPUs, torch threads "
                  f"{args.threads or 'default'}")

    fit: dict[str, list[float]] = defaultdict(list)  # label -> p-values, one per run
    too_regular: dict[str, list[float]] = defaultdict(list)  # case title -> p-values, one per run
    declined: Counter[str] = Counter()  # case title -> runs whose too-regular test was declined
    independence: list[float] = []
    pairs: dict[str, list[float]] = defaultdict(list)  # label -> p-values of the within-row pair test
    verdicts: Counter[str] = Counter()
    failures: list[str] = []
    fit_alpha = None
    started = time.monotonic()
    process = LearnerProcess(exercise.reference_path, device="cpu", memory_limit_mb=exercise.memory_limit_mb)
    try:
        for index in range(args.runs):
            seed = args.seed + index * SEED_STEP
            report = judge_file(exercise, exercise.reference_path, seed=seed, process=process)
            verdicts[report.verdict.value] += 1
            if report.verdict.value != "AC":
                failures.append(f"seed {seed}: {report.verdict.value}: {report.message}")
            for case in report.cases:
                for check in case.checks:
                    if check.kind == "fit":
                        fit[check.label].append(check.p_value)
                        fit_alpha = check.alpha
                    elif check.kind == "too_regular" and case.name == TOO_REGULAR_CASE:
                        title, _, why = check.label.partition(" (not tested")
                        if why:  # declined: no p-value to calibrate
                            declined[title] += 1
                        else:
                            too_regular[check.label].append(check.p_value)
                    elif check.kind == "independence":
                        independence.append(check.p_value)
                    elif check.kind == "pairs":
                        pairs[check.label].append(check.p_value)
    finally:
        process.close()
    elapsed = time.monotonic() - started
    all_fit = [p for values in fit.values() for p in values]
    all_too_regular = [p for values in too_regular.values() for p in values]
    all_pairs = [p for values in pairs.values() for p in values]

    results: dict = {"machine": info, "runs": args.runs, "threads": args.threads, "first_seed": args.seed,
                     "seed_step": SEED_STEP,
                     "seconds": elapsed, "fit_alpha": fit_alpha, "verdicts": dict(verdicts), "failures": failures,
                     "too_regular_declined": dict(declined)}
    if declined:
        console.print("too-regular tests declined by the judge (too discrete to test at their level), runs per case: "
                      + "; ".join(f"{title}: {count} of {args.runs}" for title, count in declined.items()))

    # Rejection rates at relaxed alphas ------------------------------------------------------
    table = Table(title=f"rejection rate of the reference at relaxed alpha "
                        f"({CONFIDENCE:.0%} Clopper-Pearson intervals)")
    for column in ("checks", "p-values", "alpha", "rejected", "rate", f"{CONFIDENCE:.0%} interval",
                   "observed / nominal"):
        table.add_column(column, justify="left" if column == "checks" else "right", no_wrap=column != "checks")
    groups = [("all fit checks", all_fit), ("within-row pairs (G-test)", all_pairs),
              ("too regular (lower tail), all cases", all_too_regular),
              ("independence (exact, discrete)", independence)]
    results["rates"] = []
    for name, values in groups:
        for alpha in ALPHAS:
            row = _rate(values, alpha)
            results["rates"].append({"checks": name, **row})
            low, high = row["interval"]
            table.add_row(name if alpha == ALPHAS[0] else "", str(row["n"]), f"{alpha:g}", str(row["rejected"]),
                          f"{row['rate']:.4f}", f"{low:.4f} – {high:.4f}",
                          f"{_ratio(row['ratio'])} ({_ratio(row['ratio_interval'][0])} – "
                          f"{_ratio(row['ratio_interval'][1])})",
                          style=None if _covers(row) else "red")
        table.add_section()
    table.caption = "observed / nominal with its 99 % interval; red: the interval misses the nominal alpha"
    console.print(table)

    # Uniformity ------------------------------------------------------------------------------
    ks = sps.kstest(all_fit, "uniform")
    ks_too = sps.kstest(all_too_regular, "uniform")
    ks_pairs = sps.kstest(all_pairs, "uniform")
    results["ks_pairs"] = {"statistic": float(ks_pairs.statistic), "pvalue": float(ks_pairs.pvalue),
                           "n": len(all_pairs)}
    results["ks_all_fit"] = {"statistic": float(ks.statistic), "pvalue": float(ks.pvalue), "n": len(all_fit)}
    results["ks_too_regular"] = {"statistic": float(ks_too.statistic), "pvalue": float(ks_too.pvalue),
                                 "n": len(all_too_regular)}
    table = Table(title="uniformity: Kolmogorov-Smirnov against U(0, 1)")
    for column in ("p-values of", "n", "KS D", "KS p-value", "smallest p", "largest p"):
        table.add_column(column, justify="left" if column == "p-values of" else "right")
    table.add_row("all fit checks", str(len(all_fit)), f"{ks.statistic:.4f}", fmt_p(ks.pvalue), fmt_p(min(all_fit)),
                  f"{max(all_fit):.4f}")
    table.add_row("within-row pairs", str(len(all_pairs)), f"{ks_pairs.statistic:.4f}", fmt_p(ks_pairs.pvalue),
                  fmt_p(min(all_pairs)), f"{max(all_pairs):.4f}")
    table.add_row("too regular, all cases", str(len(all_too_regular)), f"{ks_too.statistic:.4f}",
                  fmt_p(ks_too.pvalue), fmt_p(min(all_too_regular)), f"{max(all_too_regular):.4f}")
    console.print(table)

    # Per check label: rejections at each alpha (count, ratio) and KS --------------------------
    expected_hits = ", ".join(f"{args.runs * a:g}" for a in ALPHAS)
    for key, title, first_column, groups_by_label in (
            ("per_label", "per fit check", "check (batch, row)", fit),
            ("per_case_too_regular", "per too-regular check", "case", too_regular)):
        table = Table(title=f"{title} (one p-value per run): rejections, observed / nominal, KS")
        table.add_column(first_column)
        for alpha in ALPHAS:
            table.add_column(f"p < {alpha:g}", justify="right")
        table.add_column("KS p-value", justify="right")
        results[key] = {}
        for label, values in groups_by_label.items():
            rows = [_rate(values, alpha) for alpha in ALPHAS]
            result = sps.kstest(values, "uniform")
            results[key][label] = {"n": len(values), "rates": rows, "ks_statistic": float(result.statistic),
                                   "ks_pvalue": float(result.pvalue)}
            cells = [f"{r['rejected']} ({_ratio(r['ratio'])}x)" for r in rows]
            table.add_row(_short(label), *cells, fmt_p(result.pvalue),
                          style=None if all(_covers(r) for r in rows) else "red")
        ks_p = [v["ks_pvalue"] for v in results[key].values()]
        table.caption = (f"{args.runs} p-values per row; expected rejections {expected_hits}. "
                         f"Smallest of the {len(ks_p)} KS p-values: {fmt_p(min(ks_p))} "
                         f"(one below {1 / len(ks_p):.2f} is expected by chance). Red: a 99 % interval "
                         "misses the nominal alpha")
        console.print(table)

    counts = [0] * 10
    for p in all_fit:
        counts[min(int(p * 10), 9)] += 1
    expected = len(all_fit) / 10
    chi2 = sps.chisquare(counts)
    results["histogram"] = {"counts": counts, "expected_per_bin": expected, "chisquare_pvalue": float(chi2.pvalue)}
    table = Table(title=f"histogram of the {len(all_fit)} fit p-values (10 bins; {expected:.0f} expected per bin)")
    for column in ("bin", "count", "÷ expected", ""):
        table.add_column(column, justify="left" if column in ("bin", "") else "right")
    widest = max(counts)
    for index, count in enumerate(counts):
        bar = "█" * round(40 * count / widest)
        table.add_row(f"[{index / 10:.1f}, {(index + 1) / 10:.1f})", str(count), f"{count / expected:.2f}", bar)
    table.caption = f"chi-square test of the histogram against flat: p = {fmt_p(chi2.pvalue)}"
    console.print(table)

    # Verdicts at the real budget -------------------------------------------------------------
    summary = ", ".join(f"{verdict} {count}" for verdict, count in sorted(verdicts.items()))
    colour = "green" if not failures else "red"
    console.print(f"verdicts at the real budget (fit alpha {fit_alpha:.3g} per check): [{colour}]{summary}[/{colour}] "
                  f"of {args.runs} runs ({elapsed:.0f} s)")
    for line in failures:
        console.print(f"[red]{line}[/red]")
    if args.json:
        results["pvalues"] = {"fit": dict(fit), "pairs": dict(pairs), "too_regular": dict(too_regular),
                              "independence": independence}
        write_json(args.json, results)
        console.print(f"wrote {args.json}")
    return 0 if not failures else 1


def _rate(values: list[float], alpha: float) -> dict:
    n = len(values)
    rejected = sum(1 for p in values if p < alpha)  # the judge fails a check when p < alpha
    interval = sps.binomtest(rejected, n).proportion_ci(confidence_level=CONFIDENCE, method="exact") if n else None
    low, high = (interval.low, interval.high) if interval else (math.nan, math.nan)
    return {"n": n, "alpha": alpha, "rejected": rejected, "rate": rejected / n if n else math.nan,
            "interval": [low, high], "ratio": (rejected / n) / alpha if n else math.nan,
            "ratio_interval": [low / alpha, high / alpha]}


SHORT_PREFIXES = {
    "sample with per-row parameters, ": "mixed, ",
    "sample over 32 000 tokens, ": "zipf 32k, ",
    "sample on float64 logits, ": "float64, ",
    "sample with scalar parameters, ": "scalar, ",
    "sample(top_p=0.8)": "public, sample(top_p=0.8)",
}


def _short(label: str) -> str:
    for prefix, short in SHORT_PREFIXES.items():
        if label.startswith(prefix):
            return short + label[len(prefix):]
    return label


def _covers(row: dict) -> bool:
    low, high = row["interval"]
    return low <= row["alpha"] <= high


def _ratio(value: float) -> str:
    return f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
