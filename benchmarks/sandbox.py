"""Benchmark the strict sandbox: per-job overhead, warm submission-to-verdict, throughput.

    .venv/bin/python benchmarks/sandbox.py [--jobs N] [--submissions N] [--fresh N] [--workers N] [--json PATH]

(a) Per-job overhead: from handing a job to the zygote until the learner's code has run and
    answered (a file whose import records the time), median over --jobs jobs.
(b) Submission to verdict for exercise 39 (public + hidden) under strict, warm zygote, median
    over --submissions; beside it, the same with a fresh `python` + `import torch` per job (the
    local level), in the same run, as a ratio.
(c) Throughput: reference submissions graded per minute with --workers threads sharing one
    launcher (one sandbox slot per worker) for --seconds seconds.

Needs root and the strict layers (see `python practice/judge.py doctor`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judge.engine.process import LearnerProcess  # noqa: E402
from judge.engine.runner import judge_file  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.sandbox.strict import StrictLauncher  # noqa: E402

PROBE = '''
import time
LOADED_AT = time.time()

def loaded_at():
    return LOADED_AT
'''


def per_job_overhead(launcher: StrictLauncher, jobs: int) -> list[float]:
    """Milliseconds from the spawn request to the learner's module being executed."""
    samples = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "probe.py"
        path.write_text(PROBE)
        for _ in range(jobs):
            started = time.time()
            with LearnerProcess(path, launcher=launcher) as process:
                loaded, _ = process.call("loaded_at", [], {}, timeout_s=10)
            samples.append((loaded - started) * 1000)
    return samples


def submission_times(exercise, jobs: int, launcher=None) -> list[float]:
    samples = []
    for seed in range(jobs):
        started = time.perf_counter()
        report = judge_file(exercise, exercise.reference_path, seed=seed, launcher=launcher)
        samples.append((time.perf_counter() - started) * 1000)
        assert report.verdict.value == "AC", report.message
    return samples


def throughput(exercise, launcher: StrictLauncher, workers: int, seconds: float) -> float:
    done = []
    stop = time.monotonic() + seconds

    def work(worker: int) -> None:
        seed = worker * 100_000
        while time.monotonic() < stop:
            report = judge_file(exercise, exercise.reference_path, seed=seed, launcher=launcher)
            done.append(report.verdict.value)
            seed += 1

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(v == "AC" for v in done)
    return len(done) / ((time.monotonic() - started) / 60)


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"median_ms": statistics.median(ordered), "p90_ms": ordered[int(0.9 * (len(ordered) - 1))],
            "min_ms": ordered[0], "runs": len(ordered)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=30)
    parser.add_argument("--submissions", type=int, default=20)
    parser.add_argument("--fresh", type=int, default=5, help="submissions with a fresh process each (local level)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args(argv)

    exercise = resolve("39")
    started = time.perf_counter()
    launcher = StrictLauncher(slots=max(2, options.workers))
    zygote_ms = (time.perf_counter() - started) * 1000
    try:
        overhead = summary(per_job_overhead(launcher, options.jobs))
        strict = summary(submission_times(exercise, options.submissions, launcher))
        fresh = summary(submission_times(exercise, options.fresh))
        per_minute = throughput(exercise, launcher, options.workers, options.seconds)
    finally:
        launcher.close()
    figures = {"zygote_start_ms": zygote_ms, "per_job_overhead": overhead, "strict_warm_submission": strict,
               "fresh_process_submission": fresh, "fresh_over_strict": fresh["median_ms"] / strict["median_ms"],
               "throughput_per_minute": per_minute, "workers": options.workers}
    print(f"zygote start (imports torch once):      {zygote_ms:8.0f} ms")
    print(f"per-job overhead, hand-off to learner:  {overhead['median_ms']:8.1f} ms median "
          f"(p90 {overhead['p90_ms']:.1f}, {overhead['runs']} jobs; target < 20 ms)")
    print(f"exercise 39 submission, strict, warm:   {strict['median_ms']:8.0f} ms median "
          f"(p90 {strict['p90_ms']:.0f}; target < 500 ms)")
    print(f"exercise 39 submission, fresh process:  {fresh['median_ms']:8.0f} ms median "
          f"({figures['fresh_over_strict']:.1f}x the warm strict time)")
    print(f"throughput, {options.workers} workers:                {per_minute:8.0f} submissions per minute")
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
