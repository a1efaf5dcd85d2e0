"""Benchmark the CPU a strict grading costs, and how much of it is not the learner's own calls.

    .venv/bin/python benchmarks/jobcpu.py [--gradings N] [--warmups N] [--json PATH]

Grades exercise 39's reference --warmups times, then --gradings times, with one strict launcher
(``launcher_for("strict", slots=2)``: needs root and the strict layers), and reports per grading:

- ``judge_cpu_ms``: the judging process's CPU (``time.process_time``, every thread);
- ``zygote_tree_cpu_ms``: the fork server's whole tree (its own and its reaped children's
  utime+stime+cutime+cstime from ``/proc``, read once the launcher has settled): keepers,
  workers, their confinement, loading and exit, and the learner's calls;
- ``cases_cpu_ms``: what the cases charged the learner (``sum(case.cpu_ms)``: the job's cgroup);
- ``job_overhead_cpu_ms``: the tree's CPU beside the cases' (forking, confining, keeping, loading
  and ending the job; the child's bookkeeping around each call is not in it: the cases count it).

CPU time, not wall time: it moves little when the machine is shared. It measures any version of
the judge alike (run it from an older checkout to compare); the warm-ups also let the fork
server finish its one-time work (its huge-page collapse) before the measured gradings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judge.engine.runner import grade  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.sandbox import launcher_for  # noqa: E402

SOLUTION = Path(__file__).resolve().parents[1] / "solutions" / "039-sampling" / "reference.py"
_TICKS = os.sysconf("SC_CLK_TCK")


def _tree_cpu_s(pid: int) -> float:
    """utime + stime + cutime + cstime of ``pid`` (its reaped descendants included), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / _TICKS


def measure(gradings: int, warmups: int) -> dict:
    exercise = resolve("39")
    source = SOLUTION.read_text()
    launcher = launcher_for("strict", slots=2)
    try:
        for _ in range(warmups):
            grade(exercise, source, launcher=launcher)
        launcher.settle()
        time.sleep(1.0)  # the fork server's idle-time work, before the measured gradings
        zygote = launcher.zygote.pid
        tree_before, judge_before, cases = _tree_cpu_s(zygote), time.process_time(), 0.0
        for _ in range(gradings):
            report = grade(exercise, source, launcher=launcher)
            cases += sum(case.cpu_ms or 0.0 for case in report.cases)
        launcher.settle()
        time.sleep(0.5)  # the last keeper reaped, its time in the zygote's cutime
        tree = (_tree_cpu_s(zygote) - tree_before) * 1000 / gradings
        judge = (time.process_time() - judge_before) * 1000 / gradings
    finally:
        launcher.close()
    cases /= gradings
    return {
        "gradings": gradings,
        "judge_cpu_ms": round(judge, 1),
        "zygote_tree_cpu_ms": round(tree, 1),
        "cases_cpu_ms": round(cases, 1),
        "job_overhead_cpu_ms": round(tree - cases, 1),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gradings", type=int, default=20)
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    options = parser.parse_args(argv)
    result = measure(options.gradings, options.warmups)
    print(json.dumps(result, indent=2))
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
