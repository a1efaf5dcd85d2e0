#!/usr/bin/env python3
"""What the server's torch twin of the G-test (judge/checks/stats_torch.py) saves over the pure core.

    .venv/bin/python benchmarks/fit_speed.py [--reps 20] [--gradings 10] [--warmups 3] [--json PATH]

(a) one G-test on exercise 39's size, a 32 000-category Zipf target and 20 000 draws: the pure
    core as judge/checks/distributions.py calls it in the browser (``stats.g_test(counts.tolist(), probs.tolist())``), the torch
    twin with its cache cleared (a target seen for the first time) and warm (a frozen case judged
    again); median of ``--reps``, interleaved.
(b) the parent's CPU (``time.process_time``) per grading of exercise 39's reference, public +
    hidden, one reused ``local`` launcher, with judge/checks/distributions.py on the torch twin and on the pure core
    (``distributions.stats_torch = None``: what the browser runs), interleaved; ``--warmups`` gradings of
    each first, then the median of ``--gradings``. The learner's own CPU is another process's and
    is not counted.

Both arms decide alike (tests/judge/test_stats_torch.py); only the time differs. Torch runs on
one intra-op thread, as the runner sets it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from benchmarks._common import EXERCISE_ID, fmt_ms, machine, median, write_json  # noqa: E402
from judge.checks import distributions  # noqa: E402
from judge.checks import stats, stats_torch  # noqa: E402
from judge.engine.runner import grade  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.sandbox import launcher_for  # noqa: E402
from judge.verdicts import Verdict  # noqa: E402

SEED_BASE = 20_261_116


def one_fit(reps: int) -> dict[str, float]:
    weights = 1.0 / torch.arange(1, 32_001, dtype=torch.float64) ** 1.1
    probs = weights / weights.sum()
    draws = torch.multinomial(probs, 20_000, replacement=True, generator=torch.Generator().manual_seed(16))
    counts = torch.bincount(draws, minlength=32_000)
    arms = {
        "pure": lambda: stats.g_test(counts.tolist(), probs.tolist()),
        "torch_cold": lambda: (stats_torch.clear_cache(), stats_torch.g_test_counts(counts, probs)),
        "torch_warm": lambda: stats_torch.g_test_counts(counts, probs),
    }
    times: dict[str, list[float]] = {name: [] for name in arms}
    for _ in range(reps):
        for name, run in arms.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: 1000 * median(values) for name, values in times.items()}


def gradings(count: int, warmups: int) -> dict[str, float]:
    exercise = resolve(EXERCISE_ID)
    source = (ROOT / "solutions" / exercise.folder / "reference.py").read_text(encoding="utf-8")
    launcher = launcher_for("local")
    twin = distributions.stats_torch
    arms = {"torch": twin, "pure": None}
    cpu: dict[str, list[float]] = {name: [] for name in arms}
    for round_ in range(warmups + count):
        for name, module in arms.items():
            distributions.stats_torch = module
            start = time.process_time()
            report = grade(exercise, source, launcher=launcher, seed=SEED_BASE + round_)
            spent = time.process_time() - start
            if report.verdict != Verdict.AC:
                raise SystemExit(f"the reference got {report.verdict.name} ({name}): {report.message}")
            if round_ >= warmups:
                cpu[name].append(spent)
    distributions.stats_torch = twin
    return {name: 1000 * median(values) for name, values in cpu.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="G-tests per arm in (a) (default 20)")
    parser.add_argument("--gradings", type=int, default=10, help="measured gradings per arm in (b) (default 10)")
    parser.add_argument("--warmups", type=int, default=3, help="unmeasured gradings per arm first (default 3)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)

    fit = one_fit(args.reps)
    print("(a) one G-test, 32 000 categories, 20 000 draws (median ms)")
    print(
        f"    pure core {fmt_ms(fit['pure'])}   torch cold {fmt_ms(fit['torch_cold'])}   "
        f"torch warm {fmt_ms(fit['torch_warm'])}"
    )
    cold, warm = fit["pure"] / fit["torch_cold"], fit["pure"] / fit["torch_warm"]
    print(f"    pure / cold = {cold:.1f}x   pure / warm = {warm:.1f}x")
    parent = gradings(args.gradings, args.warmups)
    print(f"(b) parent CPU per grading of exercise {EXERCISE_ID}'s reference (median ms of {args.gradings})")
    print(
        f"    pure core {fmt_ms(parent['pure'])}   torch twin {fmt_ms(parent['torch'])}   "
        f"ratio {parent['pure'] / parent['torch']:.2f}x"
    )
    if args.json:
        write_json(args.json, {"machine": machine(), "one_fit_ms": fit, "parent_cpu_ms": parent})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
