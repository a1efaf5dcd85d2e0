"""The attack suite on the end of a job and the reuse of its slot (strict, prepared jobs).

A learner who wants to reach the next job in the same slot (or just keep running after its
judging) has to leave something behind that the kill at the end of a job misses. These tests
try what the kill could overlook, then check that nothing of the job is left and that the slot
still serves a clean job.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import pytest
from attack_support import LEVELS, alive, kill_quietly, needs_strict, settled

from judge.engine.runner import judge_file
from judge.exercises.exercise import resolve
from judge.verdicts import Verdict

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())  # exit(2): the calling thread alone

# A process whose main thread has ended while another thread runs on: its leader reads as a zombie
# ("Z" in /proc/PID/stat) although the process is alive. A tree walk that skips zombies skips it.
ZOMBIE_LEADER = f"""
import ctypes
import os
import threading
import time

def spawn():
    pid = os.fork()
    if pid == 0:
        os.setsid()  # out of the worker's process group too
        threading.Thread(target=time.sleep, args=(600,)).start()
        ctypes.CDLL(None).syscall({SYS_EXIT}, 0)  # the main thread ends, the sleeping one does not
    return pid
"""


def _stat(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _running_threads(pid: int) -> int:
    """How many threads of process ``pid`` still run (0: gone, or a plain zombie)."""
    fields = _stat(pid)
    if len(fields) < 18 or (fields[0] == "Z" and int(fields[17]) <= 1):
        return 0
    return int(fields[17])


def _wait_for(condition, timeout_s: float = 20.0) -> bool:
    """Whether ``condition()`` held within ``timeout_s`` (checked again and again; not a timing test)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _leaves_a_zombie_leader(launcher) -> None:
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource

    process = LearnerProcess(LearnerSource(ZOMBIE_LEADER), launcher=launcher)
    pid = 0
    try:
        pid = process.call("spawn", [], {}, timeout_s=30).value
        assert _wait_for(lambda: _stat(pid)[:1] == ["Z"] and _running_threads(pid) >= 1), \
            "the attack did not take: no zombie leader with a running thread"
        process.close()
        settled(launcher, None)
        assert _wait_for(lambda: not _running_threads(pid)), "a process whose leader had ended outlived its job"
    finally:
        process.close()
        if pid:
            kill_quietly(pid)


@pytest.mark.skipif(SYS_EXIT is None, reason="exit(2)'s number is not known for this machine")
@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_a_process_whose_main_thread_ended_does_not_outlive_its_job(level_launcher):
    _leaves_a_zombie_leader(level_launcher)


@needs_strict
@pytest.mark.skipif(SYS_EXIT is None, reason="exit(2)'s number is not known for this machine")
def test_without_cgroups_a_process_whose_main_thread_ended_does_not_outlive_its_job():
    from judge.sandbox import cgroups
    from judge.sandbox.strict import StrictLauncher

    bare = StrictLauncher(slots=1)
    bare.cgroup_support = cgroups.CgroupSupport(0, "left out by the test")
    try:
        _leaves_a_zombie_leader(bare)
    finally:
        bare.close()


SPREADS = """
import os
import time

def spread():
    if os.fork() == 0:
        os.setsid()  # out of the worker's process group: only the keeper (or a cgroup) kills it
        time.sleep(600)
        os._exit(0)
    return os.getpid()
"""


@needs_strict
def test_a_slot_comes_back_only_once_its_job_has_ended_even_when_the_zygote_died():
    # The zygote reports a keeper's end; once it is gone, the reaper must not take the silence for
    # an end (without cgroups, the keeper alone kills what left the process group).
    from attack_support import assert_judge_healthy

    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource
    from judge.sandbox import cgroups, keeper
    from judge.sandbox.strict import StrictLauncher

    bare = StrictLauncher(slots=1)
    bare.cgroup_support = cgroups.CgroupSupport(0, "left out by the test")
    tree: list[int] = []
    try:
        process = LearnerProcess(LearnerSource(SPREADS), launcher=bare)
        worker = process.call("spread", [], {}, timeout_s=30).value
        tree = [process._proc.pid, worker, *(pid for pid, _ in keeper.descendants(process._proc.pid))]
        assert len(tree) >= 3, tree
        os.kill(bare.zygote.pid, 9)
        assert _wait_for(lambda: not bare.zygote.alive)
        process.close()
        assert bare.settle() and bare.free_slots == 1
        assert not [pid for pid in tree if alive(pid)], "a slot came back while its last job still ran"
        assert_judge_healthy(bare)  # a new zygote, and every slot back
    finally:
        bare.close()
        for pid in tree:
            kill_quietly(pid)


@needs_strict
def test_gradings_under_way_when_the_launcher_closes_go_on_and_leave_no_zygote_behind():
    # A careless deployer closes the launcher while gradings run (a grader stopping with a long
    # grading under way): the job running goes on, the next case's launch is served, and the
    # zygote started for it ends with it instead of living as long as the judge.
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    zygotes = [own.zygote]
    try:
        running = LearnerProcess(LearnerSource(SPREADS), launcher=own)
        own.close()
        assert not zygotes[0].alive
        running.call("spread", [], {}, timeout_s=30)  # launched before the close: it goes on
        running.close()
        exercise = resolve("39")
        report = judge_file(exercise, exercise.reference_path, seed=3, suites=("public",), launcher=own)
        assert report.verdict is Verdict.AC, report.message
        zygotes.append(own.zygote)
        assert zygotes[1] is not zygotes[0]
        assert own.settle() and own.free_slots == 1
        assert not zygotes[1].alive, "a zygote started after close() outlived its jobs"
        uids = range(own.base_id, own.base_id + 16)
        assert not [p for p in Path("/proc").iterdir() if p.name.isdigit() and _owner(p) in uids and alive(int(p.name))]
    finally:
        own.close()
        for zygote in zygotes:
            zygote.close()


def _owner(proc: Path) -> int:
    try:
        return proc.stat().st_uid
    except OSError:
        return -1


@needs_strict
def test_a_prepared_job_that_answers_too_late_serves_nothing(monkeypatch):
    # A prepared worker got the job's pipes but its answer came too late (a stalled machine); the
    # launch then starts the job anew on the same pipes. The late one must not read them (it would
    # take the job's source): the judge's end of its socket is closed first, so its answer fails
    # and it ends before it serves.
    import functools
    import signal

    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource
    from judge.sandbox import strict

    own = strict.StrictLauncher(slots=1)
    try:
        first = LearnerProcess(LearnerSource(SPREADS), launcher=own)
        slot = first._proc._slot
        first.close()
        assert own.settle()
        spare = own._spares[slot]
        spare.confirm()
        os.kill(spare.worker, signal.SIGSTOP)  # it will not answer in time
        monkeypatch.setattr(strict.PreparedJob, "start",
                            functools.partialmethod(strict.PreparedJob.start, timeout_s=0.5))
        discard = strict.PreparedJob.discard

        def late_discard(job):  # it wakes up before the keeper kills it
            os.kill(job.worker, signal.SIGCONT)
            time.sleep(0.5)
            discard(job)

        monkeypatch.setattr(strict.PreparedJob, "discard", late_discard)
        own._clean.sort(key=lambda s: s != slot)  # the next launch takes the stopped one's slot
        process = LearnerProcess(LearnerSource(SPREADS), launcher=own, load_timeout_s=5)
        try:
            assert process._proc.worker != spare.worker
            assert process.call("spread", [], {}, timeout_s=5).value == process._proc.worker
        finally:
            process.close()
        monkeypatch.undo()
        assert own.settle() and own.free_slots == 1
        assert not alive(spare.worker)
    finally:
        own.close()


# --- the way a job ends: no core dump ---

DUMPABLE = """
import ctypes

def dumpable():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
    return libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
"""


@needs_strict
def test_a_job_cannot_make_itself_dumpable_again(launcher):
    # Where the host's core_pattern is a pipe (systemd-coredump, apport), RLIMIT_CORE = 0 stops
    # nothing: a dumpable job that dies of SIGSEGV (or SIGXCPU at its CPU limit) hands its whole
    # memory to a root helper, outside its cgroup, onto the host's disk. Dropping to the slot's
    # uid made the worker non-dumpable; it must stay so.
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource

    process = LearnerProcess(LearnerSource(DUMPABLE), launcher=launcher)
    try:
        assert process.call("dumpable", [], {}, timeout_s=30).value == 0
    finally:
        process.close()
    settled(launcher, None)


LEAVES_ITS_CGROUP = """
import glob
import os

def leave():
    moved = []
    targets = ["/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/memory/cgroup.procs", "/sys/fs/cgroup/pids/cgroup.procs",
               "/sys/fs/cgroup/cpuacct/cgroup.procs", "/sys/fs/cgroup/memory/probjudge/cgroup.procs",
               "/sys/fs/cgroup/pids/probjudge/cgroup.procs", "/sys/fs/cgroup/probjudge/cgroup.procs"]
    try:
        targets += glob.glob("/sys/fs/cgroup/*/probjudge/*/cgroup.procs")
    except OSError:
        pass
    for target in targets:
        for name in ("cgroup.procs", "tasks"):
            try:
                with open(os.path.join(os.path.dirname(target), name), "w") as procs:
                    procs.write(str(os.getpid()))
                moved.append(target)
            except OSError:
                pass
    try:
        os.mkdir("/sys/fs/cgroup/memory/probjudge/escape")
        moved.append("made a cgroup")
    except OSError:
        pass
    return moved
"""


@needs_strict
def test_a_job_cannot_leave_its_cgroup(launcher):
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource

    process = LearnerProcess(LearnerSource(LEAVES_ITS_CGROUP), launcher=launcher)
    try:
        assert process.call("leave", [], {}, timeout_s=30).value == []
    finally:
        process.close()
    settled(launcher, None)
