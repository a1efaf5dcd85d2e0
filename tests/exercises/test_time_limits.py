"""Time limits never depend on load: a case's limit is the learner's CPU time, and each exercise's
reference stays under a third of it even beside two busy processes. (Every other correct solution
is held to that third too, by ``test_check_passes`` in test_catalogue.py, which judges them all
anyway: judging each again here, with both cores taken, cost minutes of make test for nothing new.)"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from judge.engine.runner import judge_file
from judge.exercises.exercise import load_all
from judge.verdicts import Verdict

REFERENCES = [(exercise, exercise.reference_path) for exercise in load_all()]


# A bare interpreter that says it is running, then spins. (multiprocessing's spawn children re-imported
# this module, torch and the judge first: seconds each before they spun, and up to 10 s more in the
# teardown, waiting for one still importing to see its stop event.)
BUSY = "import sys\nprint('busy', flush=True)\nwhile True:\n    sum(range(10_000))\n"


@pytest.fixture
def two_busy_processes():
    """Two processes that keep both of this machine's cores busy while the test runs, from its start."""
    workers = [subprocess.Popen([sys.executable, "-c", BUSY], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for worker in workers:
            assert worker.stdout.readline() == "busy\n"  # spinning before the judging starts
        yield
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()
            worker.stdout.close()


@pytest.mark.parametrize("exercise, path", REFERENCES, ids=lambda v: getattr(v, "folder", "reference"))
def test_references_pass_with_a_wide_margin_beside_two_busy_processes(exercise, path, two_busy_processes):
    assert os.cpu_count() is not None
    report = judge_file(exercise, path, seed=11)
    assert report.verdict is Verdict.AC, report.message
    worst = max(report.cases, key=lambda case: case.cpu_ms or 0.0)
    # At most a third of the limit: a machine three times slower would still pass.
    assert worst.cpu_ms <= exercise.time_limit_s * 1000 / 3, (worst.name, worst.cpu_ms)
