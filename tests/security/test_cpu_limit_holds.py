"""Attacks on the CPU-time limit: code that needs more CPU than a case allows is TLE, however it hides.

The limit is a case's CPU time, read from the kernel (never what the learner's process says), and
the wall clock is only a cap for code that sleeps. Here the wall cap is far above what the
attacks need, so only the CPU limit can stop them: every attack burns four times the case's CPU
time and must end in TLE, never AC.
"""

from __future__ import annotations

import dataclasses
import textwrap

import pytest
from attack_support import LEVELS, write_source

from judge.engine.runner import judge_file
from judge.exercises.exercise import load_exercise
from judge.verdicts import Verdict

pytestmark = pytest.mark.strict_sandbox

LIMIT_S = 0.5  # the case's CPU time
BURN_S = 2.0  # what each attack uses in all
WALL_S = 30.0  # far above BURN_S, even on a loaded machine: only the CPU limit can stop an attack


def _exercise(tmp_path, tests: str):
    """A one-function exercise (``double(x)``) whose public suite is ``tests``."""
    folder = tmp_path / "990-cpu"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "exercise.toml").write_text(
        textwrap.dedent("""
        number = 990
        slug = "cpu"
        difficulty = "easy"
        [title]
        en = "CPU"
        zh = "CPU"
        [functions.double]
        params = ["x"]
    """)
    )
    (folder / "tests" / "public" / "public.py").write_text(textwrap.dedent(tests))
    (folder / "tests" / "hidden" / "hidden.py").write_text("")
    return dataclasses.replace(load_exercise(folder), time_limit_s=LIMIT_S, wall_limit_s=WALL_S)


ONE_CALL = """
from judge.checks.exact import expect

def test_one_call(sub, ctx):
    expect(sub.double(2) == 4, "double(2) must be 4")
"""


def _grade(launcher, tmp_path, tests: str, source: str):
    return judge_file(
        _exercise(tmp_path, tests), write_source(tmp_path, source), seed=1, suites=("public",), launcher=launcher
    )


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_printing_all_the_time_does_not_hide_cpu_time(level_launcher, tmp_path):
    """Output wakes the judge up (it drains it) long before each CPU check is due; the checks still come."""
    report = _grade(
        level_launcher,
        tmp_path,
        ONE_CALL,
        f"""
        import os, time

        def double(x):
            end, next_print = time.process_time() + {BURN_S}, 0.0
            while time.process_time() < end:
                if time.monotonic() > next_print:
                    os.write(1, b".")
                    next_print = time.monotonic() + 0.001
            return 2 * x
    """,
    )
    assert report.cases[0].verdict is Verdict.TLE, report.cases[0].message
    assert "CPU time" in report.cases[0].message


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_an_answer_trickled_byte_by_byte_does_not_hide_cpu_time(level_launcher, tmp_path):
    """A reply frame whose header is padded with spaces, sent one space at a time while computing:
    the judge wakes up for every byte, and must still check the CPU time on schedule."""
    report = _grade(
        level_launcher,
        tmp_path,
        ONE_CALL,
        f"""
        import json, os, struct, sys, time

        def double(x):
            frame = sys._getframe()
            while "outbox" not in frame.f_locals:  # child.serve's: the result pipe
                frame = frame.f_back
            fd = frame.f_locals["outbox"].fd
            body = json.dumps({{"ok": True, "value": 2 * x, "elapsed_ms": 1.0, "modified": [], "tensors": []}})
            length = 100_000
            os.write(fd, b"PJ1" + struct.pack(">I", length))
            sent, end, next_space = 0, time.process_time() + {BURN_S}, 0.0
            while time.process_time() < end:
                if time.monotonic() > next_space and sent < length - len(body):
                    os.write(fd, b" ")  # JSON allows white space before the object
                    sent, next_space = sent + 1, time.monotonic() + 0.001
            os.write(fd, b" " * (length - len(body) - sent) + body.encode())
            time.sleep(60)  # the answer is out; the child's own reply never comes
    """,
    )
    assert report.cases[0].verdict is Verdict.TLE, report.cases[0].message
    assert "CPU time" in report.cases[0].message


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_short_calls_that_add_up_past_the_case_limit_are_tle(level_launcher, tmp_path):
    """Each call answers before a CPU check is due; together they use four times the case's limit."""
    calls = 40
    tests = f"""
        from judge.checks.exact import expect

        def test_many_calls(sub, ctx):
            for x in range({calls}):
                expect(sub.double(x) == 2 * x, "double doubles")
    """
    report = _grade(
        level_launcher,
        tmp_path,
        tests,
        f"""
        import time

        def double(x):
            end = time.process_time() + {BURN_S / calls}
            while time.process_time() < end:
                pass
            return 2 * x
    """,
    )
    case = report.cases[0]
    assert case.verdict is Verdict.TLE, case.message
    assert "CPU time" in case.message


AUTOREAPED = f"""
    import os, signal, time

    def double(x):
        # Children that the kernel reaps by itself (SIGCHLD ignored) add their CPU time to no parent.
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        for _ in range(10):
            done, tell = os.pipe()
            if os.fork() == 0:
                end = time.process_time() + {BURN_S / 10}
                while time.process_time() < end:
                    pass
                os._exit(0)
            os.close(tell)
            os.read(done, 1)  # end-of-file: the child is gone
            os.close(done)
        return 2 * x
"""


@pytest.mark.parametrize(
    "level_launcher",
    [
        pytest.param(
            "local",
            marks=pytest.mark.xfail(
                strict=True,
                reason="at the local level the CPU time is what /proc says of the job's process tree, and the "
                "kernel adds the time of a child it reaps by itself (SIGCHLD ignored) to no parent: only a "
                "cgroup counts it, and the local level has none (it does not stop code that sets out to cheat)",
            ),
        ),
        LEVELS[1],
    ],
    indirect=True,
)
def test_children_the_kernel_reaps_by_itself_still_count(level_launcher, tmp_path):
    report = _grade(level_launcher, tmp_path, ONE_CALL, AUTOREAPED)
    assert report.cases[0].verdict is Verdict.TLE, report.cases[0].message
