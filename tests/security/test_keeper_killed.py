"""A learner's code that kills its keeper (the process that watches it and reports how it ended)
is a runtime error of the learner's, never taken for a process the kernel killed out of memory."""

from __future__ import annotations

from attack_support import assert_contained, grade

from judge.engine.process import LocalLauncher
from judge.verdicts import Verdict


def test_killing_the_keeper_is_a_runtime_error_not_out_of_memory(tmp_path, quick_exercise):
    report = grade(LocalLauncher(), quick_exercise, tmp_path, """
        os.kill(os.getppid(), signal.SIGKILL)  # the keeper: the worker's parent
        os._exit(0)
    """)
    assert_contained(report, level="local")
    assert report.verdict is Verdict.RE and "keeper" in report.message, report.message


def test_a_worker_killed_by_sigkill_is_still_told_as_out_of_memory(tmp_path, quick_exercise):
    report = grade(LocalLauncher(), quick_exercise, tmp_path, "os.kill(os.getpid(), signal.SIGKILL)")
    assert_contained(report, level="local")
    assert report.verdict is Verdict.MLE and "SIGKILL" in report.message, report.message
