#!/usr/bin/env python3
"""How long judging exercise 39 takes, split into the suite itself, process start-up and the whole CLI.

    .venv/bin/python benchmarks/speed.py [--runs 30] [--starts 5] [--cli-runs 5] [--thread-reps 20]
                                         [--contenders 2] [--quick] [--top 10] [--json PATH]

(a) the suites alone: the reference judged ``--runs`` times with different master seeds by one
    already-started learner process (so neither the child's start nor ``import torch`` counts),
    hidden suite alone and public + hidden, interleaved; median and p90, and per-case medians.
    The learner process runs torch single-threaded (``judge/sandbox/child.py``).
(b) learner-process start-up: a fresh ``python`` + ``import torch`` + loading the file, until
    the child reports ready (median of ``--starts``), beside a bare ``python -c "import torch"``
    timed until the import is done and until the process has exited (torch's teardown is ~0.4 s).
(c) the whole ``python practice/judge.py test 39 solutions/039-sampling/reference.py`` as a
    subprocess, wall clock (median of ``--cli-runs``).
(d) why the learner process is single-threaded: the reference's ``sampling_probs`` on the
    [3, 32 000] batch in this process, ``--thread-reps`` calls with torch's default thread count
    and as many with one thread, interleaved (0 skips it); once as the machine is, once while
    ``--contenders`` other processes run torch ops with torch's default threads (started and
    killed by this script). On a small machine whose cores are busy, torch's thread pool can
    make this call several times slower: that is why the learner process uses one thread.

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

import torch  # noqa: E402
from rich.table import Table  # noqa: E402

from benchmarks._common import (  # noqa: E402
    EXERCISE_ID,
    fmt_ms,
    load_exercise_tests,
    machine,
    median,
    percentile,
    write_json,  # noqa: E402
)
from benchmarks._common import console as make_console  # noqa: E402
from judge.engine.process import LearnerProcess  # noqa: E402
from judge.engine.runner import judge_file  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import import_solution
from judge.verdicts import Verdict  # noqa: E402

TARGET_S = 0.5
SEED_BASE = 20_261_129


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="judged runs per suite selection (default 30)")
    parser.add_argument("--starts", type=int, default=5, help="learner-process starts to time (default 5)")
    parser.add_argument("--cli-runs", type=int, default=5, help="whole-CLI runs to time (default 5)")
    parser.add_argument("--quick", action="store_true", help="10 runs, 3 starts, 3 CLI runs, 10 thread reps")
    parser.add_argument("--top", type=int, default=10, help="slowest cases to list (default 10; 0 for all)")
    parser.add_argument("--thread-reps", type=int, default=20,
                        help="(d) calls per thread setting (default 20; 0 skips it)")
    parser.add_argument("--contenders", type=int, default=2,
                        help="(d) also measure while this many other torch processes keep the cores busy "
                             "(default 2; 0 skips it)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.starts, args.cli_runs = min(args.runs, 10), min(args.starts, 3), min(args.cli_runs, 3)
        args.thread_reps = min(args.thread_reps, 10)
    console = make_console()
    exercise = resolve(EXERCISE_ID)
    reference = exercise.reference_path
    results: dict = {"machine": machine(), "runs": args.runs}
    console.print(f"[bold]speed[/bold]: exercise {exercise.folder}, reference {reference.relative_to(ROOT)}, "
                  f"torch {results['machine']['torch']}, {results['machine']['cpus']} CPUs")

    # (a) the suites with a reused learner process --------------------------------------------
    # The learner process runs torch single-threaded (judge/sandbox/child.py), whatever OMP_NUM_THREADS says.
    process = LearnerProcess(reference, device="cpu", memory_limit_mb=exercise.memory_limit_mb)
    configs = {"hidden": ("hidden",), "public+hidden": ("public", "hidden")}
    load_before = _load()
    try:
        started = time.perf_counter()
        first = judge_file(exercise, reference, seed=SEED_BASE - 1, process=process)
        cold_ms = (time.perf_counter() - started) * 1000
        _require_ac(first, "warm-up run")
        suite_times: dict[str, list[float]] = {name: [] for name in configs}
        case_times: dict[str, list[float]] = {}
        for index in range(args.runs):
            for name, suites in configs.items():  # interleaved: both see the same load
                report = judge_file(exercise, reference, seed=SEED_BASE + index, suites=suites, process=process)
                _require_ac(report, f"{name} run {index}")
                suite_times[name].append(report.time_ms)
                if name == "public+hidden":
                    for case in report.cases:
                        case_times.setdefault(f"{case.suite}/{case.name}", []).append(case.time_ms)
    finally:
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
    table.caption = (f"learner process single-threaded (judge/sandbox/child.py). First run in this process (builds the "
                     f"frozen cases and their targets): {cold_ms:,.0f} ms, not included. 1-minute load average "
                     f"{load_before} before, {load_after} after")
    results["cold_first_run_ms"] = cold_ms
    console.print(table)

    per_case = sorted(((name, median(times), percentile(times, 90)) for name, times in case_times.items()),
                      key=lambda row: -row[1])
    total_case_median = sum(m for _, m, _ in per_case)
    shown = per_case if args.top <= 0 else per_case[:args.top]
    table = Table(title=f"per-case times (public+hidden), slowest {len(shown)} of {len(per_case)}")
    for column in ("case", "median ms", "p90 ms", "share of sum"):
        table.add_column(column, justify="right" if column != "case" else "left")
    for name, med, p90 in shown:
        table.add_row(name, fmt_ms(med), fmt_ms(p90), f"{100 * med / total_case_median:.0f} %")
    table.caption = f"sum of per-case medians: {total_case_median:,.0f} ms"
    console.print(table)
    results["cases"] = {name: {"median_ms": med, "p90_ms": p90} for name, med, p90 in per_case}

    # (b) learner-process start-up -------------------------------------------------------------
    starts = []
    for _ in range(args.starts):
        started = time.perf_counter()
        child = LearnerProcess(reference, device="cpu", memory_limit_mb=exercise.memory_limit_mb)
        starts.append((time.perf_counter() - started) * 1000)
        child.close()
    bare_imported, bare_exited = [], []
    for _ in range(args.starts):
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", "import sys, torch; sys.stdout.write('.'); sys.stdout.flush()"],
                                 cwd=ROOT, stdout=subprocess.PIPE)
        child.stdout.read(1)
        bare_imported.append((time.perf_counter() - started) * 1000)
        child.wait()
        child.stdout.close()
        bare_exited.append((time.perf_counter() - started) * 1000)
    results["startup"] = {"learner_process_median_ms": median(starts), "learner_process_all_ms": starts,
                          "python_import_torch_median_ms": median(bare_imported),
                          "python_import_torch_all_ms": bare_imported,
                          "python_import_torch_and_exit_median_ms": median(bare_exited),
                          "python_import_torch_and_exit_all_ms": bare_exited}

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
    for label, values in (("python -c 'import torch', until imported", bare_imported),
                          ("python -c 'import torch', until the process exits", bare_exited)):
        table.add_row(label, str(len(values)), fmt_ms(median(values)), f"{median(values) / suite_ms:.1f}x")
    table.add_row("learner process start (python + torch + file, until ready)", str(len(starts)),
                  fmt_ms(median(starts)),
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
                  f"+ the rest {overhead:,.0f} ms: the judge's own python + import torch, building the frozen cases "
                  f"(the first-run cost above), rendering, and both interpreters' exit")

    # (d) why the learner process is single-threaded: one torch call, here, torch's default threads vs 1
    if args.thread_reps > 0 and torch.get_num_threads() > 1:
        results["threads"] = {"alone": _thread_check(exercise, args.thread_reps)}
        if args.contenders > 0:
            results["threads"]["contended"] = _thread_check(exercise, args.thread_reps, args.contenders)
        table = Table(title=f"(d) the reference's sampling_probs on the [3, 32 000] batch in this process, "
                            f"{args.thread_reps} calls per setting, interleaved")
        for column in ("machine", f"median ms, {torch.get_num_threads()} threads (torch default)",
                       "median ms, 1 thread", "load average"):
            table.add_column(column, justify="left" if column == "machine" else "right")
        for name, figures in results["threads"].items():
            label = "as it is" if name == "alone" else f"+ {args.contenders} busy torch processes"
            table.add_row(label, fmt_ms(figures["default_median_ms"]), fmt_ms(figures["one_median_ms"]),
                          str(figures["load_average_1m"]))
        table.caption = "why judge/sandbox/child.py sets torch.set_num_threads(1)"
        console.print(table)

    if args.json:
        write_json(args.json, results)
        console.print(f"wrote {args.json}")
    return 0


# A busy torch process with torch's default threads; it stops by itself after 2 minutes if never killed.
CONTENDER = ("import time, torch\nx = torch.randn(3, 32000)\nend = time.monotonic() + 120\n"
             "while time.monotonic() < end:\n    torch.softmax(x, 1).sort(dim=1)\n")


def _thread_check(exercise, reps: int, contenders: int = 0) -> dict:
    """Median time of the reference's sampling_probs on the zipf batch, torch's default threads vs 1,
    optionally while ``contenders`` other processes run torch with its default threads (as other
    judges or jobs on the same machine would)."""
    cases = sys.modules[f"{load_exercise_tests(exercise)}.hidden.cases"]
    batch = cases.zipf_rows()
    params = batch.param_tensors()
    reference = import_solution(exercise.reference_path, "_bench_reference")
    default = torch.get_num_threads()
    times: dict[int, list[float]] = {default: [], 1: []}
    others = [subprocess.Popen([sys.executable, "-c", CONTENDER]) for _ in range(contenders)]
    try:
        if others:
            time.sleep(3.0)  # let them import torch and get going
        for _ in range(reps + 1):  # the first round warms up and is dropped
            for threads in times:
                torch.set_num_threads(threads)
                started = time.perf_counter()
                reference.sampling_probs(batch.logits, **params)
                times[threads].append((time.perf_counter() - started) * 1000)
        load = _load()
    finally:
        torch.set_num_threads(default)
        for other in others:
            other.kill()
            other.wait()
    return {"default_threads": default, "default_median_ms": median(times[default][1:]),
            "one_median_ms": median(times[1][1:]), "default_all_ms": times[default][1:], "one_all_ms": times[1][1:],
            "contenders": contenders, "load_average_1m": load}


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
