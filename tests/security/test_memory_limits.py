"""The strict level's memory limits, each tried just under and just past its boundary.

Two limits hold a strict job (:mod:`judge.sandbox.strict`): the job cgroup's memory limit, on
what the job touches, and ``RLIMIT_AS``, a looser guard against one huge reservation (the limit,
what the zygote maps, and ``AS_HEADROOM_MB``). An allocation of terabytes fails with or without
either, so each is tried 32 MB either side of where it stands.
"""

from __future__ import annotations

import pytest

from judge.learner import LearnerSource
from judge.process import LearnerProcess, LearnerRaised, ProcessFailed
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


@pytest.fixture
def hoarder(launcher):
    process = LearnerProcess(LearnerSource(HOARDER), launcher=launcher, memory_limit_mb=LIMIT_MB)
    yield process
    process.close()
    assert launcher.settle()


def test_touched_memory_just_under_the_limit_is_granted_and_just_past_it_is_mle(launcher, hoarder):
    if hoarder._proc._cgroup is None:
        pytest.skip("no job cgroup here: the address space is the limit (tested below)")
    assert hoarder.call("take", [LIMIT_MB - MARGIN_MB], {}, timeout_s=60).value == 1
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
