"""The strict level's limits (memory, processes, open files), each tried just under and just past
its boundary.

Two limits hold a strict job (:mod:`judge.sandbox.strict`): the job cgroup's memory limit, on
what the job touches, and ``RLIMIT_AS``, a looser guard against one huge reservation (the limit,
what the zygote maps, and ``AS_HEADROOM_MB``). An allocation of terabytes fails with or without
either, so each is tried 32 MB either side of where it stands. The process and open-file limits
(64 and 256, docs/security.md) were only met by a fork bomb: each is tried 8 short of and 8 past.
"""

from __future__ import annotations

import pytest

from judge.engine.process import LearnerProcess, LearnerRaised, ProcessFailed
from judge.learner.interface import LearnerSource
from judge.sandbox.strict import AS_HEADROOM_MB
from judge.verdicts import Verdict

pytestmark = pytest.mark.strict_sandbox

LIMIT_MB = 512
MARGIN_MB = 32  # the job's own use past the fork (measured: 480 MB of 512 are granted)

HOARDER = """
import torch

def take(megabytes):
    held = torch.ones(megabytes << 20, dtype=torch.uint8)  # every page written: the cgroup counts it
    return int(held[-1])

def reserve(megabytes):
    held = torch.empty(megabytes << 20, dtype=torch.uint8)  # never touched: only the address space
    return held.numel() >> 20
"""


@pytest.fixture(params=["with cgroups", "rlimits alone"])
def hoarder(request):
    launcher = request.getfixturevalue("launcher" if request.param == "with cgroups" else "bare_launcher")
    process = LearnerProcess(LearnerSource(HOARDER), launcher=launcher, memory_limit_mb=LIMIT_MB)
    assert (process._proc._cgroup is not None) is (request.param == "with cgroups")
    yield process
    process.close()
    assert launcher.settle()


def test_touched_memory_just_under_the_limit_is_granted_and_just_past_it_is_mle(hoarder):
    """With a cgroup, its OOM kill ends the job (MLE); without one, the address space refuses the
    allocation (the learner's MemoryError, MLE too)."""
    assert hoarder.call("take", [LIMIT_MB - MARGIN_MB], {}, timeout_s=60).value == 1
    if hoarder._proc._cgroup is None:
        with pytest.raises(LearnerRaised) as raised:
            hoarder.call("take", [LIMIT_MB + MARGIN_MB], {}, timeout_s=60)
        assert raised.value.memory, raised.value
        return
    with pytest.raises(ProcessFailed) as failed:
        hoarder.call("take", [LIMIT_MB + MARGIN_MB], {}, timeout_s=60)
    assert failed.value.verdict is Verdict.MLE, failed.value


def test_a_reservation_past_the_address_space_guard_is_refused(hoarder):
    """Untouched memory costs the cgroup nothing: RLIMIT_AS alone refuses it, just past its headroom."""
    headroom = LIMIT_MB + (AS_HEADROOM_MB if hoarder._proc._cgroup is not None else 0)
    under = headroom - MARGIN_MB
    assert hoarder.call("reserve", [under], {}, timeout_s=60).value == under
    with pytest.raises(LearnerRaised) as raised:
        hoarder.call("reserve", [headroom + MARGIN_MB], {}, timeout_s=60)
    assert raised.value.memory, raised.value


COUNTER = """
import os, time

def processes(count):
    started = []
    try:
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            started.append(pid)
    except OSError as error:
        return f"refused after {len(started)}: {type(error).__name__}"
    finally:
        for pid in started:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    return len(started)

def open_files(count):
    opened = []
    try:
        for _ in range(count):
            opened.append(os.dup(1))
    except OSError as error:
        return f"refused after {len(opened)}: {error.strerror}"
    finally:
        for fd in opened:
            os.close(fd)
    return len(opened)
"""


@pytest.fixture(scope="module")
def bare_launcher(launcher):
    """A strict launcher without cgroups (as on a machine that has none): rlimits alone hold."""
    from judge.sandbox import cgroups
    from judge.sandbox.strict import StrictLauncher

    bare = StrictLauncher(slots=1)
    bare.cgroup_support = cgroups.CgroupSupport(0, "left out by the test")
    yield bare
    bare.close()


@pytest.mark.parametrize("cgroup", ["with cgroups", "rlimits alone"])
def test_processes_just_under_the_limit_start_and_just_past_it_are_refused(request, cgroup):
    """pids.max and RLIMIT_NPROC both say 64; without cgroups RLIMIT_NPROC alone must hold."""
    launcher = request.getfixturevalue("launcher" if cgroup == "with cgroups" else "bare_launcher")
    limit = 64  # docs/security.md: pids.max and RLIMIT_NPROC
    with LearnerProcess(LearnerSource(COUNTER), launcher=launcher) as process:
        assert (process._proc._cgroup is not None) is (cgroup == "with cgroups")
        assert process.call("processes", [limit - 8], {}, timeout_s=60).value == limit - 8
        # The worker itself is one of the job's processes: it may start limit - 1 more.
        past = process.call("processes", [limit + 8], {}, timeout_s=60).value
    assert past == f"refused after {limit - 1}: BlockingIOError", past
    assert launcher.settle()


def test_open_files_just_under_the_limit_open_and_just_past_it_are_refused(launcher):
    limit = 256  # docs/security.md: RLIMIT_NOFILE
    held = 16  # at most, by the worker itself (its standard streams, pipes and torch's)
    with LearnerProcess(LearnerSource(COUNTER), launcher=launcher) as process:
        assert process.call("open_files", [limit - held - 8], {}, timeout_s=60).value == limit - held - 8
        past = process.call("open_files", [limit + 8], {}, timeout_s=60).value
    assert isinstance(past, str) and past.endswith("Too many open files"), past
    assert launcher.settle()
