#!/usr/bin/env python3
"""How long judging exercise 39 takes, split into the suite itself, process start-up and the whole CLI.

    .venv/bin/python benchmarks/speed.py [--runs 30] [--starts 5] [--cli-runs 5] [--quick]
                                         [--no-single-thread] [--top 10] [--json PATH]

(a) the suites alone: the reference judged ``--runs`` times with different master seeds by one
    already-started learner process (so neither the child's start nor ``import torch`` counts),
    hidden suite alone and public + hidden; median and p90, and per-case medians. The same again
    with a learner process started under ``OMP_NUM_THREADS=1`` (``--no-single-thread`` skips it):
    on a small shared machine torch's intra-op threads can make the 32 000-token cases many
    times slower.
(b) learner-process start-up: a fresh ``python`` + ``import torch`` + loading the file, until
    the child reports ready (median of ``--starts``), beside a bare ``python -c "import torch"``.
(c) the whole ``python practice/judge.py test 39 solutions/039-sampling/reference.py`` as a
    subprocess, wall clock (median of ``--cli-runs``).

The target for (a) is a median under 0.5 s for the hidden suite.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rich.table import Table  # noqa: E402

from benchmarks._common import EXERCISE_ID, fmt_ms, machine, median, percentile, write_json  # noqa: E402
from benchmarks._common import console as make_console  # noqa: E402
from judge.exercise import resolve  # noqa: E402
from judge.process import LearnerProcess  # noqa: E402
from judge.runner import judge_file  # noqa: E402
from judge.verdicts import Verdict  # noqa: E402

TARGET_S = 0.5
SEED_BASE = 20_261_129


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="judged runs per suite selection (default 30)")
    parser.add_argument("--starts", type=int, default=5, help="learner-process starts to time (default 5)")
    parser.add_argument("--cli-runs", type=int, default=5, help="whole-CLI runs to time (default 5)")
    parser.add_argument("--quick", action="store_true", help="10 runs, 3 starts, 3 CLI runs")
    parser.add_argument("--top", type=int, default=10, help="slowest cases to list (default 10; 0 for all)")
    parser.add_argument("--no-single-thread", action="store_true",
                        help="skip the comparison with a learner process started with OMP_NUM_THREADS=1")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.starts, args.cli_runs = min(args.runs, 10), min(args.starts, 3), min(args.cli_runs, 3)
    console = make_console()
    exercise = resolve(EXERCISE_ID)
    reference = exercise.reference_path
    results: dict = {"machine": machine(), "runs": args.runs}
    console.print(f"[bold]speed[/bold]: exercise {exercise.folder}, reference {reference.relative_to(ROOT)}, "
                  f"torch {results['machine']['torch']}, {results['machine']['cpus']} CPUs")

    # (a) the suites with a reused learner process --------------------------------------------
    # Two learner processes: one with the environment as it is (what the judge does), one whose
    # torch runs single-threaded (OMP_NUM_THREADS=1 reaches the child through _child_environment).
    # Runs are interleaved so both see the same load from whatever else shares the machine.
    inherited = os.environ.get("OMP_NUM_THREADS")
    processes = {"default": LearnerProcess(reference, device="cpu", memory_limit_mb=exercise.memory_limit_mb)}
    if not args.no_single_thread:
        os.environ["OMP_NUM_THREADS"] = "1"
        try:
            processes["omp1"] = LearnerProcess(reference, device="cpu", memory_limit_mb=exercise.memory_limit_mb)
        finally:
            if inherited is None:
                del os.environ["OMP_NUM_THREADS"]
            else:
                os.environ["OMP_NUM_THREADS"] = inherited
    default_label = f"child threads: {inherited or 'torch default'}"
    configs = {
        "hidden": (("hidden",), "default"),
        "public+hidden": (("public", "hidden"), "default"),
    }
    if "omp1" in processes:
        configs["hidden, child OMP_NUM_THREADS=1"] = (("hidden",), "omp1")
        configs["public+hidden, child OMP_NUM_THREADS=1"] = (("public", "hidden"), "omp1")
    load_before = _load()
    try:
        started = time.perf_counter()
        first = judge_file(exercise, reference, seed=SEED_BASE - 1, process=processes["default"])
        cold_ms = (time.perf_counter() - started) * 1000
        _require_ac(first, "warm-up run")
        if "omp1" in processes:
            _require_ac(judge_file(exercise, reference, seed=SEED_BASE - 2, process=processes["omp1"]), "warm-up run")
        suite_times: dict[str, list[float]] = {name: [] for name in configs}
        case_times: dict[str, dict[str, list[float]]] = {"default": {}, "omp1": {}}
        for index in range(args.runs):
            for name, (suites, which) in configs.items():
                report = judge_file(exercise, reference, seed=SEED_BASE + index, suites=suites,
                                    process=processes[which])
                _require_ac(report, f"{name} run {index}")
                suite_times[name].append(report.time_ms)
                if suites == ("public", "hidden"):
                    for case in report.cases:
                        case_times[which].setdefault(f"{case.suite}/{case.name}", []).append(case.time_ms)
    finally:
        for process in processes.values():
            process.close()
    load_after = _load()
    results["load_average_1m"] = {"before": load_before, "after": load_after}

    table = Table(title=f"(a) suites with a reused learner process, {args.runs} runs, distinct seeds")
    for column in ("suites", "median ms", "p90 ms", "min ms", "max ms", f"median < {TARGET_S * 1000:.0f} ms"):
        table.add_column(column, justify="right" if column != "suites" else "left")
    results["suites"] = {}
    for name, times in suite_times.items():
        figures = {"median_ms": median(times), "p90_ms": percentile(times, 90), "min_ms": min(times),
                   "max_ms": max(times), "all_ms": [round(t, 2) for t in times]}
        results["suites"][name] = figures
        ok = figures["median_ms"] < TARGET_S * 1000
        table.add_row(name, fmt_ms(figures["median_ms"]), fmt_ms(figures["p90_ms"]), fmt_ms(figures["min_ms"]),
                      fmt_ms(figures["max_ms"]), "[green]yes[/green]" if ok else "[red]NO[/red]")
    table.caption = (f"rows without a note: {default_label}. First run in this process (builds the frozen cases "
                     f"and their targets): {cold_ms:,.0f} ms, not included. 1-minute load average "
                     f"{load_before} before, {load_after} after")
    results["cold_first_run_ms"] = cold_ms
    console.print(table)

    per_case = sorted(((name, median(times), percentile(times, 90)) for name, times in case_times["default"].items()),
                      key=lambda row: -row[1])
    single = {name: median(times) for name, times in case_times["omp1"].items()}
    total_case_median = sum(m for _, m, _ in per_case)
    shown = per_case if args.top <= 0 else per_case[:args.top]
    table = Table(title=f"per-case times (public+hidden), slowest {len(shown)} of {len(per_case)}")
    columns = ["case", "median ms", "p90 ms", "share of sum"] + (["median ms, OMP_NUM_THREADS=1"] if single else [])
    for column in columns:
        table.add_column(column, justify="right" if column != "case" else "left")
    for name, med, p90 in shown:
        row = [name, fmt_ms(med), fmt_ms(p90), f"{100 * med / total_case_median:.0f} %"]
        if single:
            row.append(fmt_ms(single[name]))
        table.add_row(*row)
    table.caption = (f"sum of per-case medians: {total_case_median:,.0f} ms"
                     + (f"; with OMP_NUM_THREADS=1: {sum(single.values()):,.0f} ms" if single else ""))
    console.print(table)
    results["cases"] = {name: {"median_ms": med, "p90_ms": p90, "median_ms_omp1": single.get(name)}
                        for name, med, p90 in per_case}

    # (b) learner-process start-up -------------------------------------------------------------
    starts = []
    for _ in range(args.starts):
        started = time.perf_counter()
        child = LearnerProcess(reference, device="cpu", memory_limit_mb=exercise.memory_limit_mb)
        starts.append((time.perf_counter() - started) * 1000)
        child.close()
    bare = []
    for _ in range(args.starts):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True, cwd=ROOT)
        bare.append((time.perf_counter() - started) * 1000)
    results["startup"] = {"learner_process_median_ms": median(starts), "learner_process_all_ms": starts,
                          "python_import_torch_median_ms": median(bare), "python_import_torch_all_ms": bare}

    # (c) the whole CLI as a subprocess ----------------------------------------------------------
    command = [sys.executable, "practice/judge.py", "test", EXERCISE_ID, str(reference.relative_to(ROOT))]
    cli = []
    for index in range(args.cli_runs):
        started = time.perf_counter()
        done = subprocess.run(command + ["--seed", str(SEED_BASE + 10_000 + index)], cwd=ROOT,
                              capture_output=True, text=True)
        cli.append((time.perf_counter() - started) * 1000)
        if done.returncode != 0:
            console.print(f"[red]practice/judge.py test exited {done.returncode}[/red]\n{done.stdout[-2000:]}"
                          f"{done.stderr[-2000:]}")
            return 1
    results["cli"] = {"command": " ".join(["python"] + command[1:]), "median_ms": median(cli), "all_ms": cli}

    suite_ms = results["suites"]["public+hidden"]["median_ms"]
    table = Table(title="(b) start-up and (c) the whole command, wall clock")
    for column in ("what", "runs", "median ms", "÷ public+hidden suite"):
        table.add_column(column, justify="right" if column != "what" else "left")
    table.add_row("python -c 'import torch'", str(len(bare)), fmt_ms(median(bare)), f"{median(bare) / suite_ms:.1f}x")
    table.add_row("learner process start (python + torch + file)", str(len(starts)), fmt_ms(median(starts)),
                  f"{median(starts) / suite_ms:.1f}x")
    table.add_row("public+hidden suite, reused process", str(args.runs), fmt_ms(suite_ms), "1.0x")
    table.add_row("practice/judge.py test 39 (whole process)", str(len(cli)), fmt_ms(median(cli)),
                  f"{median(cli) / suite_ms:.1f}x")
    console.print(table)
    overhead = median(cli) - median(starts) - suite_ms
    results["ratios"] = {
        "cli_over_suite": median(cli) / suite_ms,
        "startup_over_suite": median(starts) / suite_ms,
        "cli_minus_startup_minus_suite_ms": overhead,
    }
    console.print(f"whole command = learner start {median(starts):,.0f} ms + suites {suite_ms:,.0f} ms "
                  f"+ the rest {overhead:,.0f} ms (the judge's own python start, import torch, rendering)")
    if args.json:
        write_json(args.json, results)
        console.print(f"wrote {args.json}")
    return 0


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _require_ac(report, what: str) -> None:
    if report.verdict is not Verdict.AC:
        raise SystemExit(f"the reference was not accepted in the {what}: {report.verdict.value}: {report.message}")


if __name__ == "__main__":
    sys.exit(main())
