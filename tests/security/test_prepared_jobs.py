"""Jobs prepared ahead (confined before their launch): one job each, and each looks fresh.

The strict launcher's reaper confines a job for a slot it has just cleaned, so that the next
launch only hands it its descriptors. Such a job must serve one job at most, and the learner
must not tell it from a job started at the launch: fresh scratch directory, random generators
of its own, nothing of an earlier job.
"""

from __future__ import annotations

import stat

import pytest
from attack_support import alive, needs_strict

pytestmark = pytest.mark.strict_sandbox

LOOKS = """
import os
import random

import torch

def look():
    names = sorted(os.listdir("."))
    with open("left-by-an-earlier-job", "w") as mark:
        mark.write("x")
    return {"cwd": os.getcwd(), "files": names, "uid": os.getuid(), "random": random.random(),
            "torch": float(torch.rand(1)), "pid": os.getpid()}
"""


def _run(launcher) -> tuple[dict, int, int]:
    """One job of LOOKS: what it saw, its worker and its slot."""
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource

    process = LearnerProcess(LearnerSource(LOOKS), launcher=launcher)
    try:
        seen = process.call("look", [], {}, timeout_s=30).value
        return seen, process._proc.worker, process._proc._slot
    finally:
        process.close()


@needs_strict
def test_a_prepared_job_serves_one_job_and_looks_like_a_fresh_one():
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    try:
        fresh, fresh_worker, slot = _run(own)
        assert own.settle()
        spare = own._spares[slot]  # the reaper prepared the slot's next job
        spare.confirm()
        assert spare.worker != fresh_worker and alive(spare.worker)
        seen, worker, again = _run(own)
        assert (worker, again) == (spare.worker, slot), "the launch did not use the prepared job"
        assert slot not in own._spares or own._spares[slot] is not spare, "a prepared job was filed twice"
        assert own.settle() and not alive(worker), "a prepared job outlived its one job"
        assert spare.direct.fileno() == -1  # the judge's end of its socket is closed: no second job
        # What the learner sees: the same place, an empty scratch (not the earlier job's file),
        # random generators of its own.
        assert seen["files"] == fresh["files"] == []
        assert (seen["cwd"], seen["uid"]) == (fresh["cwd"], fresh["uid"])
        assert seen["random"] != fresh["random"] and seen["torch"] != fresh["torch"]
        third, third_worker, _ = _run(own)
        assert third_worker not in (fresh_worker, worker) and third["files"] == []
        assert own.free_slots == 1
    finally:
        own.close()


@needs_strict
def test_a_prepared_job_for_another_memory_limit_is_discarded_and_the_job_starts_as_ever():
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)  # two slots: a job prepared in each, for 4096 MB and for 2048 MB
    try:
        _, _, slot = _run(own)
        assert own.settle()
        other = own._spares[slot]
        other.confirm()
        for limit in (2048, 1024):  # the second finds no job prepared for it: one is discarded
            process = LearnerProcess(LearnerSource(LOOKS), launcher=own, memory_limit_mb=limit)
            try:
                assert process._proc.worker != other.worker
                assert process._proc.memory_mb == limit
                process.call("look", [], {}, timeout_s=30)
            finally:
                process.close()
            assert own.settle() and own.free_slots == 1
        assert not alive(other.worker)
        assert other.cgroup is None or not any(d.exists() for d in other.cgroup.dirs)
    finally:
        own.close()


@needs_strict
def test_closing_the_launcher_ends_its_prepared_jobs():
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    try:
        _run(own)
        assert own.settle()
        workers = own.prepared_workers()
        assert workers and all(alive(pid) for pid in workers)
    finally:
        own.close()
    assert not [pid for pid in workers if alive(pid)]


SETTINGS = """
import os
import resource
import signal
import stat
import tempfile

import numpy
import torch

def settings():
    fds = {}
    for fd in range(1024):
        try:
            fds[fd] = stat.S_IFMT(os.fstat(fd).st_mode)
        except OSError:
            pass
    limits = {name: str(resource.getrlimit(getattr(resource, name)))
              for name in dir(resource) if name.startswith("RLIMIT_")}
    handlers = {sig.name: str(signal.getsignal(sig))
                for sig in signal.valid_signals() if isinstance(sig, signal.Signals)}
    umask = os.umask(0o22)
    os.umask(umask)
    return {"fd kinds": sorted(fds.values()), "stdout is stderr": os.path.sameopenfile(1, 2),
            "limits": limits, "handlers": handlers,
            "blocked": sorted(map(int, signal.pthread_sigmask(signal.SIG_BLOCK, []))),
            "umask": umask, "cwd": os.getcwd(), "environment": dict(os.environ), "tempdir": tempfile.gettempdir(),
            "ids": [os.getresuid(), os.getresgid(), os.getgroups()], "threads": torch.get_num_threads(),
            "session leader": os.getsid(0) == os.getpid(), "group leader": os.getpgid(0) == os.getpid(),
            "seed": str(torch.initial_seed()), "numpy seeded from 32 bits": _from_32_bits(numpy.random.get_state()[1])}

def _from_32_bits(key):
    # MT19937 seeded with one 32-bit integer: each word of its key follows from the one before.
    return int(key[1]) == (1812433253 * (int(key[0]) ^ (int(key[0]) >> 30)) + 1) & 0xFFFFFFFF
"""


@needs_strict
def test_a_prepared_job_runs_under_the_same_settings_as_a_job_started_at_its_launch():
    # What a verdict could depend on (limits, signals, descriptors, environment, identity) is the
    # same whichever way the job started; only the seeds differ, as between any two jobs. Neither
    # holds a socket (the judge's, or the zygote's).
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    try:
        seen, spares = [], []
        for _ in range(2):  # the first starts at its launch, the second was prepared
            process = LearnerProcess(LearnerSource(SETTINGS), launcher=own)
            try:
                value = process.call("settings", [], {}, timeout_s=30).value
                seen.append((process._proc._slot, process._proc.worker, value))
            finally:
                process.close()
            assert own.settle()
            own._clean.sort(key=lambda slot: slot != seen[0][0])  # the same slot, hence the same uid
            spares.append(own._spares[seen[0][0]])
            spares[-1].confirm()
        (fresh_slot, _, fresh), (prepared_slot, worker, prepared) = seen
        assert fresh_slot == prepared_slot and worker == spares[0].worker, "the launch did not use the prepared job"
        assert fresh.pop("seed") != prepared.pop("seed")
        # numpy's global generator as a fresh process seeds it (from more than 32 bits of entropy:
        # with 2**32 seeds, two jobs in some 77 000 would draw the same numbers)
        assert not fresh["numpy seeded from 32 bits"]
        assert stat.S_IFSOCK not in fresh["fd kinds"]
        assert fresh == prepared
    finally:
        own.close()


@needs_strict
@pytest.mark.parametrize("ending", ["worker", "keeper"])
def test_a_prepared_job_that_died_is_discarded_and_the_job_starts_as_ever(ending):
    # Killed from outside while it waits (the OOM killer, an operator): a worker without its keeper
    # must not serve the job (nobody would end its tree), a dead worker cannot.
    import os
    import signal

    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    try:
        _, _, slot = _run(own)
        assert own.settle()
        spare = own._spares[slot]
        spare.confirm()
        os.kill(spare.worker if ending == "worker" else spare.pid, signal.SIGKILL)
        if ending == "keeper":  # the zygote reports it (a keeper's end is how the judge knows of it)
            assert own.zygote.exit_status(spare.pid, 10) is not None
        own._clean.sort(key=lambda s: s != slot)  # the next launch takes the dead one's slot
        seen, worker, again = _run(own)
        assert again == slot and worker != spare.worker
        assert seen["files"] == []
        assert own.settle() and own.free_slots == 1
        assert not alive(spare.worker) and not alive(spare.pid)
        assert spare.cgroup is None or not any(d.exists() for d in spare.cgroup.dirs)
    finally:
        own.close()


LEAVES = """
import ctypes
import os

PLACES = [".", os.environ.get("HOME", "."), os.environ.get("TMPDIR", "."), "/tmp", "/var/tmp", "/dev/shm",
          "/tmp/probjudge-slots", "/run", "/dev/mqueue"]
KEY = 0x706A6B31  # a SysV shared memory key

def leave(mark):
    libc = ctypes.CDLL(None, use_errno=True)
    left = [place for place in PLACES if _write(os.path.join(place, "pj-left-" + mark))]
    segment = libc.shmget(KEY, 4096, 0o1666)  # IPC_CREAT | 0666
    return {"files": left, "shm": segment >= 0}

def find(mark):
    libc = ctypes.CDLL(None, use_errno=True)
    found = [place for place in PLACES if os.path.exists(os.path.join(place, "pj-left-" + mark))]
    return {"files": found, "shm": libc.shmget(KEY, 0, 0) >= 0}

def _write(path):
    try:
        with open(path, "w") as mark:
            mark.write("x")
        return True
    except OSError:
        return False
"""


@needs_strict
def test_nothing_a_job_leaves_anywhere_reaches_the_next_job_of_its_slot():
    # Files in every place a job might write, and a SysV shared memory segment: the next job of
    # the same slot (same uid, a job prepared there) finds none of them.
    import secrets

    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    mark = secrets.token_hex(4)
    try:
        first = LearnerProcess(LearnerSource(LEAVES), launcher=own)
        try:
            slot = first._proc._slot
            left = first.call("leave", [mark], {}, timeout_s=30).value
        finally:
            first.close()
        assert own.settle()
        assert left["files"] and left["shm"], left  # the job could write its scratch, and make a segment
        own._clean.sort(key=lambda s: s != slot)
        spare = own._spares[slot]
        spare.confirm()
        second = LearnerProcess(LearnerSource(LEAVES), launcher=own)
        try:
            assert (second._proc._slot, second._proc.worker) == (slot, spare.worker)
            assert second.call("find", [mark], {}, timeout_s=30).value == {"files": [], "shm": False}
        finally:
            second.close()
        assert own.settle() and own.free_slots == 1
    finally:
        own.close()
