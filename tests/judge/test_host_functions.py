"""Host functions (judge/learner/hosts.py): a function of the judge's process the learner's code calls.

The samplers a write-the-test exercise hands the learner's test are solutions, so they run in the
judge's process and the learner receives a proxy whose calls travel as callback frames. Every such
frame is hostile: a learner may forge one, flood the judge with them, send huge tensors, keep the
proxy past its call or use it from a thread. Each case below is the learner's fault (a refusal,
RE), never the judge's (IE), at every sandbox level this machine runs.
"""

from __future__ import annotations

import time

import pytest
import torch

from judge.engine.process import LearnerProcess, LearnerRaised, ProcessFailed
from judge.learner.hosts import FLOOD_SLACK, HostFunction
from judge.verdicts import Verdict

LEVELS = ["local", "strict"]


@pytest.fixture(scope="module")
def strict_launcher():
    from judge.sandbox.layers import missing_required

    missing = missing_required()
    if missing:
        pytest.skip("strict sandbox unavailable here: " + ", ".join(layer.name for layer in missing))
    from judge.sandbox.strict import StrictLauncher

    launcher = StrictLauncher(slots=1, slot_wait_s=20.0)
    yield launcher
    launcher.close()


@pytest.fixture(scope="module")
def warm_local_launcher():
    from judge.sandbox.launchers import WarmLocalLauncher

    with WarmLocalLauncher() as launcher:
        yield launcher


@pytest.fixture(params=LEVELS)
def learner(request, tmp_path):
    """``learner(source)``: a LearnerProcess running ``source`` at the test's sandbox level (``local``
    forked from a warm fork server: a fresh process per test, without torch's import each time)."""
    launcher = request.getfixturevalue("strict_launcher" if request.param == "strict" else "warm_local_launcher")
    started: list[LearnerProcess] = []

    def make(source: str) -> LearnerProcess:
        path = tmp_path / f"solution_{len(started)}.py"
        path.write_text(source)
        process = LearnerProcess(path, launcher=launcher)
        started.append(process)
        return process

    yield make
    for process in started:
        process.close()


def doubler(calls: int = 5, units: int = 100, max_bytes: int = 1 << 20) -> HostFunction:
    """A host that doubles a tensor; each call costs the tensor's length; a negative entry is refused."""

    def double(x):
        if not isinstance(x, torch.Tensor):
            raise ValueError("x must be a tensor")
        if bool((x < 0).any()):
            raise ValueError("x must not be negative")
        return 2 * x

    return HostFunction(double, calls=calls, units=units, cost=lambda args, kwargs: len(args[0]), max_bytes=max_bytes)


CALLS_IT = """
import torch
def run(f, n=1):
    out = None
    for _ in range(n):
        out = f(torch.arange(4.0))
    return out
"""


def test_a_call_reaches_the_host_and_its_value_comes_back(learner):
    host = doubler()
    value = learner(CALLS_IT).call("run", [], {"f": host, "n": 2}, timeout_s=30).value
    assert torch.equal(value, torch.tensor([0.0, 2.0, 4.0, 6.0]))
    assert (host.made, host.used, host.violation) == (2, 8, None)


def test_the_host_s_value_error_reaches_the_learner_as_value_error(learner):
    source = """
import torch
def run(f):
    try:
        f(torch.tensor([-1.0]))
    except ValueError as error:
        return "ValueError: " + str(error)
"""
    assert learner(source).call("run", [], {"f": doubler()}, timeout_s=30).value == "ValueError: x must not be negative"


def test_a_call_over_the_budget_raises_runtime_error_and_is_recorded(learner):
    source = """
import torch
def run(f):
    seen = []
    for _ in range(4):
        try:
            f(torch.zeros(40))
            seen.append("ok")
        except RuntimeError:
            seen.append("refused")
    return seen
"""
    host = doubler(units=100)
    assert learner(source).call("run", [], {"f": host}, timeout_s=30).value == ["ok", "ok", "refused", "refused"]
    assert host.used == 80 and "at most 100" in host.violation


def test_too_many_calls_are_refused_then_flooding_stops_the_process(learner):
    host = doubler(calls=3, units=10**9)
    source = """
import torch
def run(f):
    while True:
        try:
            f(torch.zeros(1))
        except RuntimeError:
            pass
"""
    with pytest.raises(ProcessFailed) as failed:
        learner(source).call("run", [], {"f": host}, timeout_s=30)
    assert failed.value.verdict is Verdict.RE and "flooded" in str(failed.value)
    assert host.made == 3 + FLOOD_SLACK + 1 and "at most 3 times" in host.violation


def test_an_oversize_tensor_is_refused_without_being_decoded(learner):
    source = """
import torch
def run(f):
    try:
        f(torch.zeros(10_000))
    except ValueError as error:
        return str(error)
"""
    host = doubler(max_bytes=1000)
    message = learner(source).call("run", [], {"f": host}, timeout_s=30).value
    assert "more than 1000" in message and host.used == 0


def test_the_proxy_stops_working_when_its_call_returns(learner):
    source = """
import torch
KEPT = []
def keep(f):
    KEPT.append(f)
    return 1
def later():
    try:
        KEPT[0](torch.zeros(1))
    except RuntimeError as error:
        return str(error)
"""
    process = learner(source)
    host = doubler()
    assert process.call("keep", [], {"f": host}, timeout_s=30).value == 1
    assert "only during the call" in process.call("later", [], {}, timeout_s=30).value
    assert host.made == 0


def test_a_forged_callback_of_an_earlier_call_is_the_learner_s_error(learner):
    source = """
import torch
KEPT = []
def keep(f):
    KEPT.append(f)
    return 1
def forge():
    proxy = KEPT[0]
    return proxy._exchange(proxy._key, [torch.zeros(1)], {})
"""
    process = learner(source)
    assert process.call("keep", [], {"f": doubler()}, timeout_s=30).value == 1
    with pytest.raises(ProcessFailed) as failed:
        process.call("forge", [], {}, timeout_s=30)
    assert failed.value.verdict is Verdict.RE


def test_a_callback_naming_another_host_is_the_learner_s_error(learner):
    source = """
import torch
def run(f):
    return f._exchange(f._key + 1000, [torch.zeros(1)], {})
"""
    with pytest.raises(ProcessFailed) as failed:
        learner(source).call("run", [], {"f": doubler()}, timeout_s=30)
    assert failed.value.verdict is Verdict.RE and "host function" in str(failed.value)


def test_a_malformed_callback_frame_is_the_learner_s_error(learner):
    source = """
import sys
def run(f):
    wire = sys.modules["judge.learner.wire"]
    outbox = f._exchange.__self__.outbox
    wire.write_frame(outbox, {"callback": {"host": f._key, "args": "not a list", "kwargs": {}}, "tensors": []})
    return wire.read_frame(f._exchange.__self__.inbox)
"""
    with pytest.raises(ProcessFailed) as failed:
        learner(source).call("run", [], {"f": doubler()}, timeout_s=30)
    assert failed.value.verdict is Verdict.RE and "'args'" in str(failed.value)


def test_the_proxy_refuses_other_threads(learner):
    source = """
import threading, torch
def run(f):
    seen = []
    def other():
        try:
            f(torch.zeros(1))
        except RuntimeError as error:
            seen.append(str(error))
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    return seen
"""
    host = doubler()
    (message,) = learner(source).call("run", [], {"f": host}, timeout_s=30).value
    assert "thread" in message and host.made == 0


def test_a_learner_that_never_calls_the_proxy_returns_as_usual(learner):
    host = doubler()
    assert learner("def run(f):\n    return 7\n").call("run", [], {"f": host}, timeout_s=30).value == 7
    assert host.made == 0


def test_arguments_the_wire_cannot_carry_are_the_learner_s_type_error(learner):
    source = """
def run(f):
    try:
        f(object())
    except TypeError as error:
        return "TypeError"
"""
    assert learner(source).call("run", [], {"f": doubler()}, timeout_s=30).value == "TypeError"


def test_the_host_s_time_is_not_the_learner_s_cpu_time(learner):
    """The host spins for 0.6 s of the judge's CPU while the learner's CPU deadline is 0.3 s away."""

    def spin(x):
        end = time.process_time() + 0.6
        while time.process_time() < end:
            pass
        return x

    process = learner(CALLS_IT)
    process.call("run", [], {"f": doubler(), "n": 0}, timeout_s=30)  # warmed up
    host = HostFunction(spin, calls=5)
    deadline = process.cpu_time_s() + 0.3
    value = process.call("run", [], {"f": host}, timeout_s=30, cpu_deadline_s=deadline, cpu_limit_s=0.3).value
    assert torch.equal(value, torch.arange(4.0)) and host.made == 1


def test_an_exception_the_learner_raises_after_a_callback_is_its_own(learner):
    source = """
import torch
def run(f):
    f(torch.zeros(1))
    raise KeyError("mine")
"""
    with pytest.raises(LearnerRaised) as raised:
        learner(source).call("run", [], {"f": doubler()}, timeout_s=30)
    assert raised.value.type_name == "KeyError"


def test_the_host_s_time_is_not_charged_to_the_call_s_wall_clock(learner):
    """Three callbacks of 0.4 s each in a call allowed 0.8 s of wall clock: the host's 1.2 s are the judge's."""

    def slow(x):
        time.sleep(0.4)
        return x

    host = HostFunction(slow, calls=5)
    value = learner(CALLS_IT).call("run", [], {"f": host, "n": 3}, timeout_s=0.8).value
    assert torch.equal(value, torch.arange(4.0)) and host.made == 3 and host.seconds >= 1.2
