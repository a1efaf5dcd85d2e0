"""Calls expected to raise, sent in one request (``op: refusals``): the same reports as one call
at a time, for every way a learner can answer them, and a refusals reply that is checked like
every other message of the learner's process."""

from __future__ import annotations

import re

import pytest
import torch

from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed, CheckMisuse
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.checks.testing import Context, Submission
from judge.engine.process import MAX_REFUSALS, MAX_REFUSALS_PAYLOAD, LearnerProcess
from judge.engine.runner import judge_file
from judge.learner import protocol, wire
from judge.learner.interface import CallOptions, CallResult, LearnerRaised
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict
from tests.judge.refusals_support import batched_and_one_by_one, refusals_exercise

TESTS = '''
import torch

from judge.checks.exact import expect
from judge.checks.refusals import BadCall, BadInput, expect_bad_inputs_refused, expect_calls_refused


def test_table(sub, ctx):
    """A table of bad inputs over two functions

    zh: 两个函数的非法输入表
    """
    x = torch.arange(4.0)
    expect_calls_refused([
        BadCall(getattr(sub, name), f"{name}() with bad input {k}", args=(x,), kwargs={"k": k},
                public=f"{name}() with a bad input", diagnosis=f"accepted bad input {k}" if k == 3 else None)
        for k in range(1, 6) for name in ("refuse", "other")
    ])


def test_one_function(sub, ctx):
    """The same through expect_bad_inputs_refused

    zh: 经由 expect_bad_inputs_refused
    """
    expect_bad_inputs_refused(sub.refuse, [(f"k = {k}", {"k": k}) for k in (7, 8)], args=(torch.ones(2),))


def test_after(sub, ctx):
    """A case after the tables, in the same process

    zh: 之后的用例
    """
    expect(sub.refuse(torch.ones(2), k=0) == 0, "refuse(k=0) returns 0")
'''

# Each learner answers the calls of the tables (k = 1..5 for both functions, then 7 and 8);
# k = 0 is the good input of the last case.
COMMON = "import os, sys, time\nimport torch\n\nCALLS = [0]\n\n"
LEARNERS = {
    "refuses everything": "def refuse(x, k):\n    if k:\n        raise ValueError(f'bad k {k}')\n    return 0\n",
    "accepts k = 3": "def refuse(x, k):\n    if k and k != 3:\n        raise ValueError('bad')\n    return 0\n",
    "raises TypeError at k = 2": (
        "def refuse(x, k):\n    if k == 2:\n        raise TypeError('no')\n    if k:\n        raise ValueError('bad')\n"
        "    return 0\n"
    ),
    "no message at k = 4": "def refuse(x, k):\n    if k:\n        raise ValueError('' if k == 4 else 'bad')\n    return 0\n",
    "blank message": "def refuse(x, k):\n    if k:\n        raise ValueError('   ')\n    return 0\n",
    "a message blank where the judge cuts it": (
        "def refuse(x, k):\n    if k:\n        raise ValueError(' ' * 5000 + 'x')\n    return 0\n"
    ),
    "a subclass of its own": (
        "class Bad(ValueError):\n    pass\n\ndef refuse(x, k):\n    if k:\n        raise Bad('bad')\n    return 0\n"
    ),
    "a standard subclass": "def refuse(x, k):\n    if k:\n        raise UnicodeError('bad')\n    return 0\n",
    "dies at k = 3": "def refuse(x, k):\n    if k == 3:\n        os._exit(3)\n    if k:\n        raise ValueError('bad')\n    return 0\n",
    "exits at k = 2": "def refuse(x, k):\n    if k == 2:\n        sys.exit(0)\n    if k:\n        raise ValueError('bad')\n    return 0\n",
    "runs out of memory at k = 5": (
        "def refuse(x, k):\n    if k == 5:\n        raise MemoryError('out of memory')\n    if k:\n        raise ValueError('bad')\n"
        "    return 0\n"
    ),
    "changes its input at k = 3": (
        "def refuse(x, k):\n    if k == 3:\n        x += 1\n        return 0\n    if k:\n        raise ValueError('bad')\n"
        "    return 0\n"
    ),
    "returns what the wire cannot carry": (
        "def refuse(x, k):\n    if k == 4:\n        return object()\n    if k:\n        raise ValueError('bad')\n    return 0\n"
    ),
    "a message that cannot be shown": (
        "class Odd(ValueError):\n    def __str__(self):\n        raise RuntimeError('no')\n\n"
        "def refuse(x, k):\n    if k:\n        raise Odd()\n    return 0\n"
    ),
    "keeps count": (
        "def refuse(x, k):\n    CALLS[0] += 1\n    if k and CALLS[0] < 6:\n        raise ValueError(f'call {CALLS[0]}')\n"
        "    return CALLS[0]\n"
    ),
    "prints as it goes": (
        "def refuse(x, k):\n    print('refusing', k, 'x' * 10000)\n    if k:\n        raise ValueError('bad')\n    return 0\n"
    ),
}


FAILING_PROCESSES = {"dies at k = 3", "exits at k = 2"}


def _learner(body: str) -> str:
    return COMMON + body + "\n\ndef other(x, k):\n    return refuse(x, k)\n"


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    folder = tmp_path_factory.mktemp("refusals") / "907-refusals"
    return refusals_exercise(folder, TESTS, ("x", "k"), time_limit_s=1.0, wall_limit_s=5.0)


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


def _summary(report, batch_names: bool = False) -> tuple:
    """What a report says; with ``batch_names``, a message that names one function of a table
    where a process failed names both, as a batch's does (which call was running is the
    learner's side's to know)."""

    def named(message: str) -> str:
        return re.sub(r"(during |^)(refuse|other)\(\)(?! with)", r"\1refuse() or other()", message, count=1)

    cases = [
        (c.name, c.verdict, named(c.message) if batch_names and c.name == "table" else c.message, c.diagnosis, c.rule)
        for c in report.cases
    ]
    message = named(report.message) if batch_names and report.cases[0].verdict is not Verdict.AC else report.message
    return report.verdict, message, report.diagnosis, cases, report.false_failure_budget


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_a_batch_gives_the_report_of_one_call_at_a_time(name, exercise, warm, learner_file, monkeypatch):
    path = learner_file(_learner(LEARNERS[name]))
    batched, one_by_one = batched_and_one_by_one(exercise, path, monkeypatch, seed=907, launcher=warm)
    assert _summary(batched) == _summary(one_by_one, batch_names=name in FAILING_PROCESSES)
    if name not in FAILING_PROCESSES:  # a batch cut short by a death answered none of its calls
        assert batched.timing["calls"] == one_by_one.timing["calls"]
    if name == "refuses everything":
        assert batched.verdict is Verdict.AC, batched.message


def test_every_call_of_a_table_goes_in_one_request(exercise, warm, learner_file, monkeypatch):
    exchanges = []
    original = LearnerProcess._exchange

    def counting(self, request, *args, **kwargs):
        exchanges.append((request["op"], len(request.get("calls", [None]))))
        return original(self, request, *args, **kwargs)

    monkeypatch.setattr(LearnerProcess, "_exchange", counting)
    report = judge_file(exercise, learner_file(_learner(LEARNERS["refuses everything"])), seed=1, launcher=warm)
    assert report.verdict is Verdict.AC, report.message
    assert exchanges == [("refusals", 10), ("refusals", 2), ("call", 1)]
    assert report.timing["calls"] == 13


@pytest.mark.parametrize(
    ("body", "verdict"),
    [
        ("def refuse(x, k):\n    while k == 3:\n        pass\n    raise ValueError('bad')\n", Verdict.TLE),
        ("def refuse(x, k):\n    if k == 3:\n        time.sleep(60)\n    raise ValueError('bad')\n", Verdict.TLE),
    ],
    ids=["spins", "sleeps"],
)
def test_a_call_that_does_not_end_stops_the_batch_as_tle(body, verdict, exercise, warm, learner_file):
    """The verdict of one call at a time; the message names the batch's functions (the judge
    cannot tell which of its calls was running)."""
    report = judge_file(exercise, learner_file(_learner(body)), seed=5, launcher=warm)
    table = report.cases[0]
    assert table.verdict is verdict, table.message
    assert "refuse() or other() did not finish" in table.message or "refuse() or other() used up" in table.message


class _InProcess:
    """A learner without batches (as the browser's is): each call on its own."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    def call(self, function, args, kwargs, *, timeout_s, options=CallOptions(), **cpu):
        self.seen.append((function, kwargs["k"]))
        if kwargs["k"] == 2:
            return CallResult(0)
        raise LearnerRaised(protocol.ExceptionInfo("ValueError", "bad", None, "", False, ("builtins.ValueError",)))


def test_a_learner_without_batches_takes_the_calls_one_at_a_time_up_to_the_first_accepted():
    learner = _InProcess()
    ctx = Context(seed=1, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration()))
    sub = Submission(learner, ("refuse", "other"), lambda: ctx)  # type: ignore[arg-type]
    calls = [
        BadCall(getattr(sub, f), f"{f}() with k = {k}", kwargs={"k": k}) for k in range(4) for f in ("refuse", "other")
    ]
    with pytest.raises(CheckFailed, match=r"^refuse\(\) with k = 2 must raise ValueError; it returned normally"):
        expect_calls_refused(calls)
    assert learner.seen == [("refuse", 0), ("other", 0), ("refuse", 1), ("other", 1), ("refuse", 2)]


@pytest.mark.parametrize(
    "calls, message",
    [
        ([], "argument `calls` must be a non-empty list of BadCall; got a list of 0 items"),
        ("refuse", "argument `calls` must be a non-empty list of BadCall; got the string"),
        (
            [("refuse", {})],
            "argument `calls[0]` must be a BadCall(function, call, args=(), kwargs={}, ...); got a tuple",
        ),
        # one message for every malformed BadCall: the three below cannot be told apart by it
        ([BadCall("not callable", "call")], "argument `calls[0]` must be a BadCall("),  # type: ignore[arg-type]
        ([BadCall(print, "call", args="abc")], "argument `calls[0]` must be a BadCall("),
        ([BadCall(print, "call", kwargs={1: 2})], "argument `calls[0]` must be a BadCall("),  # type: ignore[dict-item]
    ],
)
def test_a_malformed_batch_is_the_exercises_mistake(calls, message):
    with pytest.raises(CheckMisuse, match=re.escape(message)):
        expect_calls_refused(calls)


INFO = {"type": "ValueError", "message": "bad", "line": 3, "traceback": "", "memory": False, "mro": ["builtins.ValueError"]}


@pytest.mark.parametrize(
    "header, message",
    [
        (  # more refusals than calls
            {"refused": [INFO, INFO, INFO], "refused_ms": [0.1, 0.1, 0.1]},
            "3 refusals for a batch of 2 calls",
        ),
        ({"refused": [INFO], "refused_ms": []}, "'refused' and 'refused_ms' must be lists of the same length"),
        ({"refused": INFO, "refused_ms": [0.1]}, "'refused' and 'refused_ms' must be lists of the same length"),
        ({"refused": [INFO, INFO], "refused_ms": [0.1, -1.0]}, "'elapsed_ms' must be a finite, non-negative number"),
        ({"refused": [INFO, {**INFO, "memory": "no"}], "refused_ms": [0.1, 0.1]}, "'memory' must be true or false"),
        (
            {"refused": [INFO, INFO], "refused_ms": [0.1, 0.1], "ok": True, "value": 1, "elapsed_ms": 0.1},
            "unexpected field 'elapsed_ms' after every call was refused",
        ),
        ({"refused": [INFO], "refused_ms": [0.1]}, "expected exactly one of ok, raised"),  # a call unaccounted for
        (
            {"refused": [INFO], "refused_ms": [0.1], "ok": True, "raised": INFO, "elapsed_ms": 0.1},
            "expected exactly one of ok, raised",
        ),
        ({"refused_ms": [0.1, 0.1]}, "'refused' and 'refused_ms' must be lists of the same length"),
    ],
)
def test_a_refusals_reply_that_does_not_account_for_every_call_is_refused(header, message):
    with pytest.raises(wire.WireError, match=re.escape(message)):
        protocol.refusals_reply(header, 2)


def test_a_refusals_reply_in_order():
    every = protocol.refusals_reply({"refused": [INFO, INFO], "refused_ms": [0.5, 1]}, 2)
    assert [info.type_name for info in every.refused] == ["ValueError", "ValueError"]
    assert every.refused_ms == (0.5, 1.0) and every.stopped is None
    stopped = protocol.refusals_reply(
        {"refused": [INFO], "refused_ms": [0.5], "ok": True, "value": 3, "elapsed_ms": 2, "modified": ["x"]}, 3
    )
    assert stopped.stopped == protocol.Returned(3, 2.0, ("x",))


class _Sent(Exception):
    """Raised in place of sending a request: the test looks at what would have gone."""


def _sent(monkeypatch, calls) -> tuple[dict, bytes] | None:
    """The request (and its header's bytes) ``refusals`` sends for ``calls``; None when it sends none."""
    sent = []

    def capture(self, request, payloads, *args, body=None, **kwargs):
        assert len(payloads) == len(request["tensors"])
        sent.append((request, body))
        raise _Sent

    monkeypatch.setattr(LearnerProcess, "_exchange", capture)
    try:
        outcomes = object.__new__(LearnerProcess).refusals(calls, ["ValueError"], timeout_s=1.0)
    except _Sent:
        request, body = sent[0]
        assert body == wire.encode_header(request)  # sent as it was measured
        assert wire.frame_fits(body, request["tensors"], max_bytes=MAX_REFUSALS_PAYLOAD)
        assert wire.frame_fits(body, request["tensors"])  # what the child's read_frame takes
        return request, body
    assert outcomes == []
    return None


def _calls(count: int, **kwargs) -> list:
    return [("refuse", [], {"k": k, **kwargs}) for k in range(count)]


def _nest(depth: int):
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("calls", "sent"),
    [
        (_calls(300), MAX_REFUSALS),
        (_calls(300, g=[torch.ones(1)] * 5), wire.MAX_TENSORS // 5),  # tensors: 204 calls, 1020 tensors
        (_calls(20, g=torch.empty(2 << 20)), MAX_REFUSALS_PAYLOAD // (8 << 20)),  # 8 MiB each: 7 of them
        # 13 MiB each: 4 of them (52 MiB); a fifth (65 MiB) is past the 64 MiB the child reads.
        (_calls(6, g=torch.empty(13 << 18)), 4),
        (_calls(60, g="x" * 100_000), wire.MAX_HEADER_BYTES // 100_050),  # the header's bytes: 41 calls
        (_calls(5, g=[0] * 80_000), wire.MAX_NODES // 80_000),  # values: 2 calls
        (_calls(2) + _calls(3, g=_nest(40)), 2),  # nesting: the calls before the one too deep
        (_calls(3) + _calls(1, g=2**63) + _calls(2), 3),  # an integer the child cannot read
        (_calls(3, g=_nest(40)), None),  # the first call alone does not fit: none
    ],
    ids=["calls", "tensors", "payload", "payload near the child's bound",
         "header bytes", "values", "nesting", "integer", "none"],
)
def test_a_batch_holds_the_longest_run_of_calls_that_one_frame_takes(calls, sent, monkeypatch):
    request = _sent(monkeypatch, calls)
    if sent is None:
        assert request is None
        return
    assert request is not None and len(request[0]["calls"]) == sent
    assert [call["kwargs"]["k"] for call in request[0]["calls"]] == list(range(sent))
    if sent < len(calls):  # one call more would not have fitted
        longer = _sent(monkeypatch, calls[: sent + 1])
        assert longer is not None and len(longer[0]["calls"]) == sent
