"""The attack suite, part 4: resources are bounded on the host, not only in the learner's process.

- Disk: what the learner prints goes through a pipe; ``fallocate`` on its output (which took
  6 GB when the output was a file) fails, and nothing a strict job does takes host disk.
- Output: a print storm ends in RE, and the judge keeps a few kB of it.
- Nothing a submission starts outlives its judging, at every level: not a forked child that
  ignores SIGTERM, not a double-forked grandchild in its own session, not when the cgroup layer
  is missing, and not when the judge itself is killed.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from attack_support import (
    LEVELS,
    alive,
    assert_contained,
    assert_judge_healthy,
    grade,
    kill_quietly,
    marker,
    needs_strict,
    processes_named,
    renamer,
    write_attack,
)

from judge.engine.runner import judge_file
from judge.exercises.exercise import resolve
from judge.exercises.folders import PROJECT_ROOT
from judge.verdicts import Verdict

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

HOST_DISKS = ("/", "/tmp", str(PROJECT_ROOT))
ALLOWED_DISK_GROWTH = 256 << 20  # other tests and logs may write a little meanwhile; 6 GB is the attack


def _free_bytes() -> dict[str, int]:
    return {disk: shutil.disk_usage(disk).free for disk in HOST_DISKS}


FALLOCATE = """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
    results = []
    targets = [(fd, f"fd {fd}") for fd in range(0, 64)]
    try:
        targets.append((os.open("big.bin", os.O_CREAT | os.O_WRONLY), "a file in the scratch"))
    except OSError as exc:
        results.append("blocked creating a file: " + type(exc).__name__)
    try:
        targets.append((os.memfd_create("hoard"), "a memfd"))
    except (OSError, AttributeError) as exc:
        results.append("blocked memfd: " + type(exc).__name__)
    for fd, what in targets:
        if libc.fallocate(fd, 1, 0, 6 << 30) == 0:  # 1 = FALLOC_FL_KEEP_SIZE: the size stays 0
            results.append("ALLOCATED 6 GB on " + what)
    raise RuntimeError(" | ".join(results) or "nothing allocated")
"""


# Measures the host's free disk: run alone, after the parallel tests (tests/conftest.py says why).
@pytest.mark.machine_wide
@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_fallocate_on_the_output_takes_no_host_disk(level_launcher, quick_exercise, tmp_path):
    before = _free_bytes()
    report = grade(level_launcher, quick_exercise, tmp_path, FALLOCATE)
    after = _free_bytes()
    assert report.verdict is Verdict.RE
    assert "ALLOCATED 6 GB on fd 1" not in report.message and "ALLOCATED 6 GB on fd 2" not in report.message
    if level_launcher.level == "strict":
        assert "ALLOCATED" not in report.message, report.message  # seccomp refuses fallocate and memfd_create
    for disk in HOST_DISKS:
        assert before[disk] - after[disk] < ALLOWED_DISK_GROWTH, f"{disk} lost {(before[disk] - after[disk]) >> 20} MB"
    assert_contained(report, level=level_launcher.level)
    assert_judge_healthy(level_launcher)


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_a_print_storm_is_a_runtime_error_and_the_judge_keeps_a_few_kilobytes(level_launcher, quick_exercise,
                                                                               tmp_path):
    exercise = dataclasses.replace(quick_exercise, time_limit_s=30.0)
    report = grade(level_launcher, exercise, tmp_path, """
        line = "y" * 65535 + "\\n"
        while True:
            sys.stdout.write(line)
    """)
    assert report.cases[0].verdict is Verdict.RE
    assert "printed more than 16 MB" in report.cases[0].message
    assert 0 < len(report.output) <= 4000
    assert_contained(report, level=level_launcher.level)
    assert_judge_healthy(level_launcher)


def _leaves_processes_behind(name: str) -> str:
    """Attack body: a forked child that ignores SIGTERM, and a double-forked grandchild in its own session."""
    return f"""
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            {renamer(name)}
            time.sleep(600)
            os._exit(0)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                {renamer(name)}
                time.sleep(600)
            os._exit(0)
        time.sleep(0.5)
        raise RuntimeError("left two sleepers behind")
    """


def _wait_until_gone(name: str, timeout_s: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while (left := processes_named(name)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_nothing_a_submission_starts_outlives_its_judging(level_launcher, quick_exercise, tmp_path):
    name = marker()
    try:
        report = grade(level_launcher, quick_exercise, tmp_path, _leaves_processes_behind(name))
        assert report.verdict is Verdict.RE
        assert not processes_named(name), "a process the submission started outlived its judging"
        assert_contained(report, level=level_launcher.level)
    finally:
        for pid in processes_named(name):
            kill_quietly(pid)


@needs_strict
def test_without_cgroups_the_keeper_still_kills_what_left_the_session(quick_exercise, tmp_path):
    from judge.sandbox import cgroups
    from judge.sandbox.strict import StrictLauncher

    bare = StrictLauncher(slots=1)
    bare.cgroup_support = cgroups.CgroupSupport(0, "left out by the test")
    name = marker()
    try:
        report = grade(bare, quick_exercise, tmp_path, _leaves_processes_behind(name))
        assert report.verdict is Verdict.RE
        assert not processes_named(name), "without cgroups, a process of the job outlived it"
        assert_judge_healthy(bare)
    finally:
        bare.close()
        for pid in processes_named(name):
            kill_quietly(pid)


# The judge itself goes away in the middle of a case: the sleepers must follow it.
JUDGE_ENDINGS = [
    ("local", signal.SIGKILL), ("local", signal.SIGTERM),
    pytest.param("strict", signal.SIGKILL, marks=needs_strict),
    pytest.param("strict", signal.SIGTERM, marks=needs_strict),
]


def _job_cgroups_of(pids: list[int]) -> set[Path]:
    """The job cgroup directories that hold ``pids`` (from /proc/PID/cgroup): this judge's own, never
    another test's, so the test may run beside others that grade under the strict sandbox."""
    from judge.sandbox import cgroups

    found = set()
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            _, controllers, path = line.split(":", 2)
            if not path.startswith(f"/{cgroups.GROUP}/"):
                continue
            # v2: one unified line; v1: one line per hierarchy (memory, pids), each mounted under ROOT/name.
            hierarchy = cgroups.ROOT if not controllers else cgroups.ROOT / controllers.split(",")[0]
            found.add(hierarchy / path.lstrip("/"))
    return found


def _existing(paths: set[Path]) -> set[Path]:
    return {path for path in paths if path.is_dir()}


@pytest.mark.parametrize("level, ending", JUDGE_ENDINGS)
def test_nothing_outlives_a_judge_that_is_killed(tmp_path, level, ending):
    name = marker()
    body = _leaves_processes_behind(name).replace('raise RuntimeError("left two sleepers behind")',
                                                  "time.sleep(600)")
    path = write_attack(tmp_path, body)
    command = [sys.executable, str(PROJECT_ROOT / "practice" / "judge.py"), "test", "39", str(path), "--public-only",
               "--sandbox", level]
    judge = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=PROJECT_ROOT)
    try:
        deadline = time.monotonic() + 120
        while len(processes_named(name)) < 2 and time.monotonic() < deadline and judge.poll() is None:
            time.sleep(0.1)
        sleepers = processes_named(name)
        assert len(sleepers) == 2, "the attack did not start its sleepers"
        job_cgroups = _job_cgroups_of(sleepers)
        if level == "strict":
            from judge.sandbox import cgroups

            support = cgroups.detect()
            if support.available:  # v1: a memory, a pids (and a cpuacct, where mounted) cgroup; v2: one
                assert len(job_cgroups) == (1 if support.version == 2 else 2 + support.cpu_accounting), job_cgroups
        judge.send_signal(ending)
        judge.wait(timeout=30)
        left = _wait_until_gone(name)
        assert not left, f"{len(left)} process(es) outlived a judge ended by {ending.name}"
        if level == "strict":
            from judge.sandbox import cgroups

            if ending == signal.SIGTERM:  # the judge ends like on Ctrl+C: it removes its cgroups itself
                assert not _existing(job_cgroups), _existing(job_cgroups)
            else:  # killed outright: the next launcher removes them once they are stale (and empty:
                # the job's last process may still be exiting, so try for a while). Ours are aged past
                # STALE_AFTER_S rather than removing with older_than_s=0, which would also remove other
                # tests' fresh, empty job cgroups (made a moment ago, about to be joined).
                left_behind = _existing(job_cgroups)
                stale = time.time() - 2 * cgroups.STALE_AFTER_S
                deadline = time.monotonic() + 20
                while _existing(job_cgroups) and time.monotonic() < deadline:
                    for path in _existing(job_cgroups):
                        os.utime(path, (stale, stale))
                    cgroups.remove_stale(cgroups.detect())
                    time.sleep(0.2)
                assert not _existing(job_cgroups), left_behind
    finally:
        if judge.poll() is None:
            judge.kill()
        for pid in processes_named(name):
            kill_quietly(pid)


def test_the_local_keeper_reports_the_workers_fate(tmp_path):
    # The keeper exits the way its worker did, so "killed by SIGXCPU" still reads as TLE, and an
    # exit status still reads as RE with that status.
    exercise = dataclasses.replace(resolve("39"), time_limit_s=5.0)
    report = judge_file(exercise, write_attack(tmp_path, "os._exit(7)"), seed=1, suites=("public",))
    assert "exited (status 7)" in report.cases[0].message
    report = judge_file(exercise, write_attack(tmp_path, "os.kill(os.getpid(), signal.SIGXCPU)"), seed=1,
                        suites=("public",))
    assert report.cases[0].verdict is Verdict.TLE and "CPU time" in report.cases[0].message


# --- the end of a job: close() kills it at once; its slot comes back once nothing of it is left ---

CLOSING = """
import os
import sys
import time

def busy(x):
    print("last words", flush=False)
    sys.stdout.write("unflushed tail")
    return x

def spread():
    # A grandchild in a session of its own, and a child that ignores SIGTERM.
    if os.fork() == 0:
        os.setsid()
        time.sleep(600)
        os._exit(0)
    if os.fork() == 0:
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
        os._exit(0)
    return os.getpid()
"""


@needs_strict
@pytest.mark.parametrize("without_cgroups", [False, True])
def test_close_kills_the_job_at_once_and_the_reaper_leaves_nothing_of_it(without_cgroups, tmp_path):
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource
    from judge.sandbox import cgroups, keeper
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    if without_cgroups:
        own.cgroup_support = cgroups.CgroupSupport(0, "left out by the test")
    try:
        for _ in range(3):  # and again: the next job finds a clean slot at once
            process = LearnerProcess(LearnerSource(CLOSING), launcher=own)
            assert own.free_slots == 0
            job = process._proc
            worker = process.call("spread", [], {}, timeout_s=30).value
            process.call("busy", [1], {}, timeout_s=30)
            tree = [job.pid, worker, *(pid for pid, _ in keeper.descendants(job.pid))]
            assert len(tree) >= 4, tree  # keeper, worker, and what the worker started
            dirs = list(job._cgroup.dirs) if job._cgroup is not None else []
            assert bool(dirs) is not without_cgroups and all(d.exists() for d in dirs)
            process.close()
            assert not process.alive
            assert own.settle(), "the reaper did not finish the job"
            assert own.free_slots == 1, "the slot did not come back"
            assert not [d for d in dirs if d.exists()], "the reaper left the job's cgroups"
            assert not [pid for pid in tree if alive(pid)], "a process of the job outlived its reaping"
            tail = process.output_tail()
            assert "last words" in tail and "unflushed tail" in tail  # readable after close
            assert not own.zygote._exits, "the zygote's report of the ended keeper was kept"
    finally:
        own.close()


@needs_strict
def test_a_killed_jobs_slot_is_not_reused_before_its_keeper_has_ended(monkeypatch):
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource, SandboxFailure
    from judge.sandbox import strict

    own = strict.StrictLauncher(slots=1, slot_wait_s=1)
    reaped: list[int] = []
    hold = threading.Event()
    finish = strict.StrictChild._finish

    def slow_finish(job):
        hold.wait(30)
        finish(job)
        reaped.append(job._slot)
        assert not alive(job.pid)  # the keeper ended before the slot went back

    monkeypatch.setattr(strict.StrictChild, "_finish", slow_finish)
    try:
        first = LearnerProcess(LearnerSource(CLOSING), launcher=own)
        first_slot, first_keeper = first._proc._slot, first._proc.pid
        first.close()  # returns while the reaper is held
        second = LearnerProcess(LearnerSource(CLOSING), launcher=own)  # the other clean slot
        assert second._proc._slot != first_slot
        second.close()
        with pytest.raises(SandboxFailure, match="no sandbox slot became free"):
            LearnerProcess(LearnerSource(CLOSING), launcher=own)  # both slots still being reaped
        hold.set()
        third = LearnerProcess(LearnerSource(CLOSING), launcher=own)
        assert not alive(first_keeper)
        assert third._proc._slot in reaped
        third.close()
        assert own.free_slots == 1
    finally:
        hold.set()
        own.close()


@needs_strict
def test_many_gradings_leave_no_process_and_no_cgroup_behind():
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=2)
    exercise = resolve("39")
    keepers: list[int] = []
    dirs: list[Path] = []
    original = own.launch

    def launch(**kwargs):
        job = original(**kwargs)
        keepers.append(job.pid)
        dirs.extend(job._cgroup.dirs if job._cgroup is not None else [])
        return job

    own.launch = launch  # type: ignore[method-assign]
    try:
        for seed in range(12):
            report = judge_file(exercise, exercise.reference_path, seed=seed, suites=("public",), launcher=own)
            assert report.verdict is Verdict.AC, report.message
        assert own.settle() and own.free_slots == 2
        assert len(keepers) == 12 and not [pid for pid in keepers if alive(pid)]
        uids = range(own.base_id, own.base_id + 16)
        spares = own.prepared_workers()  # confined ahead for the next jobs, and nothing else
        owned = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _owner(p) in uids and int(p.name) not in spares]
        assert not owned, "a process of a slot's uid outlived its job"
        assert bool(dirs) is own.cgroup_support.available
        assert not [d for d in dirs if d.exists()], "a job's cgroup was left behind"
    finally:
        own.close()


def _owner(proc: Path) -> int:
    try:
        return proc.stat().st_uid
    except OSError:
        return -1

