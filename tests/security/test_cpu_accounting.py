"""The strict level's CPU time and memory reads: one read of the job's cgroup, and still every process.

:meth:`judge.sandbox.strict.StrictChild.cpu_time_s` reads the job's cgroup where the kernel
accounts CPU time there (cgroup v1's ``cpuacct``, v2's ``cpu.stat``) instead of walking
``/proc``: what the learner's code starts (a double-forked grandchild in its own session
included) is counted, what ended stays counted, and nothing the learner does lowers it.
"""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from judge.engine.process import LearnerProcess
from judge.learner.interface import LearnerSource
from judge.sandbox import cgroups, keeper

SPINNERS = textwrap.dedent(
    """
    import os, time

    def _spin(seconds):
        started = time.process_time()
        while time.process_time() - started < seconds:
            pass

    def spin(seconds):
        _spin(seconds)
        return 1

    def spin_in_a_grandchild(seconds):
        # Its own session, and its parent gone: only the keeper (or the cgroup) still holds it.
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                _spin(seconds)
                os.write(1, b"SPUN\\n")
            os._exit(0)
        os.wait()
        return 1
    """
)


@pytest.fixture
def spinner(launcher, tmp_path):
    path = tmp_path / "spinner.py"
    path.write_text(SPINNERS)
    process = LearnerProcess(LearnerSource.from_file(path), launcher=launcher)
    yield process
    process.close()


def _wait_for_output(process: LearnerProcess, text: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while text not in process.output_tail():
        assert time.monotonic() < deadline, f"no {text!r} within {timeout_s} s"
        time.sleep(0.05)


def test_the_job_cgroup_accounts_cpu_where_the_kernel_does(spinner):
    job = spinner._proc._cgroup
    if job is None:
        pytest.skip("no job cgroup here")
    if job.support.version == 1:
        assert job.accounts_cpu is job.support.cpu_accounting
        assert (len(job.dirs) == 3) is job.support.cpu_accounting  # the worker joins the cpuacct group too


def test_the_learners_own_cpu_time_is_counted(spinner):
    before = spinner.cpu_time_s()
    spinner.call("spin", [0.3], {}, timeout_s=60)
    used = spinner.cpu_time_s() - before
    assert 0.25 <= used < 5.0, used


def test_a_double_forked_grandchilds_cpu_time_is_counted_after_it_ended(spinner):
    before = spinner.cpu_time_s()
    spinner.call("spin_in_a_grandchild", [0.4], {}, timeout_s=60)
    _wait_for_output(spinner, "SPUN")
    time.sleep(0.2)  # it has printed; let it exit and be reaped
    used = spinner.cpu_time_s() - before
    assert used >= 0.35, used


def test_the_cgroup_figure_agrees_with_the_process_tree(spinner):
    job = spinner._proc._cgroup
    if job is None or not job.accounts_cpu:
        pytest.skip("the kernel does not account CPU time per cgroup here")
    tree_before, cgroup_before = keeper.tree_cpu_seconds(spinner._proc.pid), spinner.cpu_time_s()
    spinner.call("spin", [0.5], {}, timeout_s=60)
    tree = keeper.tree_cpu_seconds(spinner._proc.pid) - tree_before
    counted = spinner.cpu_time_s() - cgroup_before
    assert abs(tree - counted) < 0.1, (tree, counted)  # /proc counts in ticks of 10 ms


def test_the_figure_stays_readable_and_never_goes_back_after_close(launcher, spinner):
    """Read once the job's cgroup is gone (the launcher's reaper removes it after close): the
    figure is the work done (0.3 s spun, at least), not 0, and not below any figure read before."""
    job = spinner._proc._cgroup
    spinner.call("spin", [0.3], {}, timeout_s=60)
    last = spinner.cpu_time_s()
    assert last >= 0.25, last
    spinner.close()
    assert launcher.settle(), "the launcher's reaper did not finish"
    if job is not None:
        assert not any(d.exists() for d in job.dirs), "the job's cgroup was not removed"
    after = spinner.cpu_time_s()
    assert after >= last >= 0.25, (last, after)
    assert spinner.cpu_time_s() == after  # readable again, and the same: nothing runs any more


def test_memory_reads_use_the_open_files_and_stop_cleanly_once_removed(launcher, spinner):
    job = spinner._proc._cgroup
    if job is None:
        pytest.skip("no job cgroup here")
    assert not spinner._proc.memory_exceeded()
    spinner.call("spin", [0.2], {}, timeout_s=60)
    read_last = job.cpu_seconds()
    job.remove()  # what the launcher does at the end of the job (another thread may be reading)
    assert not any(d.exists() for d in job.dirs)
    assert not spinner._proc.memory_exceeded()
    if not job.accounts_cpu:
        assert read_last is None and job.cpu_seconds() is None
    else:  # the last figure read, which counted the spin: not None, not 0
        assert read_last >= 0.15 and job.cpu_seconds() == read_last, (read_last, job.cpu_seconds())


def test_stale_cpu_accounting_cgroups_are_removed_too():
    support = cgroups.detect()
    if support.version != 1 or not support.cpu_accounting:
        pytest.skip("no cgroup v1 cpuacct hierarchy here")
    stale = cgroups.ROOT / "cpuacct" / cgroups.GROUP / "slot-stale-test"
    stale.mkdir(parents=True, exist_ok=True)
    stale_time = time.time() - 2 * cgroups.STALE_AFTER_S
    os.utime(stale, (stale_time, stale_time))
    try:
        cgroups.remove_stale(support)
        assert not stale.exists()
    finally:
        if stale.exists():
            stale.rmdir()
