"""Benchmark what a learner process costs beside the learner's own work: calls, start and close.

    .venv/bin/python benchmarks/calls.py [--gradings N] [--warmups N] [--level strict|local] [--json PATH]

Grades exercise 39's reference (public + hidden) --warmups times, then --gradings times, all with
one launcher (``launcher_for(level)``, default ``strict``: needs root and the strict layers), and
reports medians over the measured gradings of:

- calls per grading, their wall (from encoding a request to the decoded answer, as the judge
  sees it), the time the learner's side reports inside the learner's functions (each call's
  clamped to its wall; a call that raised counts none here, whatever the version), and the
  difference per call: the per-call overhead (encode, pipes, the child's decode and checks,
  reply, decode); the same over the calls that returned a value only;
- the learner process's start (``LearnerProcess(...)`` until its file is loaded) and close;
- the learner's CPU time per grading (the kernel's figure: ``sum(case.cpu_ms)``), and the whole
  grading's wall.

The figures come from wrapping ``LearnerProcess`` here, not from the code measured, so the script
measures any version of the judge alike (run it from an older checkout to compare).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judge.engine import process as process_module  # noqa: E402
from judge.engine.runner import judge_file  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.sandbox import launcher_for  # noqa: E402

LearnerProcess = process_module.LearnerProcess


class Recorder:
    """Wraps LearnerProcess's constructor, ``call`` and ``close`` to time them."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, float, bool]] = []  # (wall s, reported s clamped to the wall, returned)
        self.starts: list[float] = []
        self.closes: list[float] = []
        self._originals = (LearnerProcess.__init__, LearnerProcess.call, LearnerProcess.close)

    def install(self) -> None:
        init, call, close = self._originals
        recorder = self

        def timed_init(process, *args, **kwargs):
            started = time.perf_counter()
            init(process, *args, **kwargs)
            recorder.starts.append(time.perf_counter() - started)

        def timed_call(process, *args, **kwargs):
            started = time.perf_counter()
            reported, returned = 0.0, False
            try:
                result = call(process, *args, **kwargs)
                reported, returned = result.elapsed_ms / 1000, True
                return result
            finally:
                wall = time.perf_counter() - started
                recorder.calls.append((wall, min(max(reported, 0.0), wall), returned))

        def timed_close(process):
            already = getattr(process, "_closed", False)
            started = time.perf_counter()
            close(process)
            if not already:
                recorder.closes.append(time.perf_counter() - started)

        LearnerProcess.__init__, LearnerProcess.call, LearnerProcess.close = timed_init, timed_call, timed_close

    def uninstall(self) -> None:
        LearnerProcess.__init__, LearnerProcess.call, LearnerProcess.close = self._originals

    def clear(self) -> None:
        self.calls.clear()
        self.starts.clear()
        self.closes.clear()


def measure(level: str, gradings: int, warmups: int) -> dict:
    exercise = resolve("39")
    launcher = launcher_for(level)
    recorder = Recorder()
    recorder.install()
    rows = []
    try:
        for index in range(warmups + gradings):
            recorder.clear()
            started = time.perf_counter()
            report = judge_file(exercise, exercise.reference_path, seed=index, launcher=launcher)
            total = time.perf_counter() - started
            if report.verdict.value != "AC":
                raise SystemExit(f"the reference was not AC: {report.message}")
            if index < warmups:
                continue
            wall = sum(w for w, _, _ in recorder.calls)
            learner = sum(r for _, r, _ in recorder.calls)
            returned = [(w, r) for w, r, ok in recorder.calls if ok]
            rows.append(
                {
                    "calls": len(recorder.calls),
                    "calls_wall_ms": wall * 1000,
                    "learner_ms": learner * 1000,
                    "overhead_per_call_ms": (wall - learner) / max(1, len(recorder.calls)) * 1000,
                    "returned_calls": len(returned),
                    "overhead_per_returned_call_ms": sum(w - r for w, r in returned) / max(1, len(returned)) * 1000,
                    "start_ms": sum(recorder.starts) * 1000,
                    "close_ms": sum(recorder.closes) * 1000,
                    "learner_cpu_ms": sum(case.cpu_ms or 0.0 for case in report.cases),
                    "grading_ms": total * 1000,
                }
            )
    finally:
        recorder.uninstall()
        launcher.close()
    return {key: round(statistics.median(row[key] for row in rows), 3) for key in rows[0]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gradings", type=int, default=10)
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--level", default="strict", choices=("strict", "local"))
    parser.add_argument("--json", type=Path, default=None)
    options = parser.parse_args(argv)
    medians = measure(options.level, options.gradings, options.warmups)
    result = {"level": options.level, "gradings": options.gradings, "medians": medians}
    print(json.dumps(result, indent=2))
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
