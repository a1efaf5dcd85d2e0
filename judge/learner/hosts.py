"""Host functions: a callable of the judge's process that the learner's code may call, over the wire.

A write-the-test exercise (:mod:`judge.exercises.write_the_test`) hands the learner's test a
sampler it may call but never read: the sampler is a solution, and solutions never enter the
learner's process. The test's argument is a :class:`HostFunction` on the judge's side, sent as
``{"$host": key}``; the learner's side (:mod:`judge.sandbox.child`) turns it into a
:class:`HostProxy`, a Python function that writes a *callback* frame and blocks until the judge
answers it. While a call is out, the judge's call loop (:meth:`judge.engine.process.LearnerProcess.call`)
answers each callback by running the host function on the decoded arguments, then keeps waiting
for the call's own reply.

Messages (the header of one :mod:`judge.learner.wire` frame):
  learner -> judge: ``{"callback": {"host": KEY, "args": [...], "kwargs": {...}}}``, validated by
          :func:`judge.learner.protocol.callback` (a key of the current call only, bounded sizes)
  judge -> learner: ``{"host_value": VALUE}`` or ``{"host_raised": {"type", "message"}}`` (type
          ``ValueError`` for input the host refuses, ``RuntimeError`` for a call over its budget)

Every callback is hostile input, like every other frame. The judge's side keeps a budget per
host function (calls, and units of work such as draws, with the cost of each call computed
before it runs): a call over it is refused (``RuntimeError`` on the learner's side) and recorded
as a :attr:`HostFunction.violation`, which the exercise turns into a failed case; a learner that
goes on calling far past the budget is flooding, and the process is stopped (RE). The host's
time runs in the judge's process, so it is never charged as the learner's CPU time; the wall clock
of the call still bounds it.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

# Callbacks past a host function's budget that are still answered (refused) before the learner's
# process is stopped for flooding: room for a test that catches the refusal once or twice.
FLOOD_SLACK = 16
# Keys of host functions: never one twice in this judge process (a learner process may outlive a
# case), so a callback that names an earlier call's host is always a forgery.
_KEYS = itertools.count(1)
HOST_ERRORS = ("ValueError", "RuntimeError")  # what the learner's side raises for a refused callback


class HostViolation(Exception):
    """A callback the learner's process may not make at all (flooding past the refusals): RE."""


class HostFunction:
    """``fn`` offered to one learner call, with its budget.

    ``calls``: how many times the learner may call it; ``units``/``cost``: the work it may ask for
    (``cost(args, kwargs)``, an int, computed before ``fn`` runs, may raise ``ValueError`` for an
    input ``fn`` refuses); ``max_bytes``: the tensor bytes one callback may carry (past it the call
    raises ``ValueError`` on the learner's side, without being decoded). ``fn`` raises
    ``ValueError`` for input it refuses (passed on to the learner); anything else it raises is the
    exercise's bug (IE).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        calls: int,
        units: int | None = None,
        cost: Callable[[list[Any], dict[str, Any]], int] | None = None,
        max_bytes: int = 1 << 20,
        name: str = "the host function",
    ) -> None:
        self.key = next(_KEYS)
        self.fn, self.calls, self.units, self.cost, self.max_bytes, self.name = fn, calls, units, cost, max_bytes, name
        self.made = 0  # callbacks received (refused ones included)
        self.used = 0  # units spent by the calls that ran
        self.violation: str | None = None  # the first budget the learner's code went over, in words
        self.seconds = 0.0  # time spent answering callbacks: refunded from the call's wall clock

    def answer(self, args: list[Any], kwargs: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        """The reply to one callback: ``({"host_value": ...}, value)`` or ``({"host_raised": ...}, None)``.

        Raises :class:`HostViolation` for a callback past the budget and its slack (flooding).
        """
        self.made += 1
        if self.made > self.calls + FLOOD_SLACK:
            raise HostViolation(f"{self.name} was called more than {self.calls + FLOOD_SLACK} times in one call")
        if self.made > self.calls:
            return self._over(f"{self.name} may be called at most {self.calls} times per run")
        try:
            units = int(self.cost(args, kwargs)) if self.cost is not None else 0
        except ValueError as error:
            return _raised("ValueError", str(error)), None
        if self.units is not None and self.used + units > self.units:
            return self._over(f"{self.name} may draw at most {self.units} in total per run ({self.used} drawn already)")
        try:
            value = self.fn(*args, **kwargs)
        except ValueError as error:
            return _raised("ValueError", str(error) or "invalid input"), None
        self.used += units
        return {"host_value": None}, value

    def oversize(self, nbytes: int) -> dict[str, Any]:
        """The reply to a callback whose tensors hold ``nbytes`` bytes, past ``max_bytes``."""
        self.made += 1
        if self.made > self.calls + FLOOD_SLACK:
            raise HostViolation(f"{self.name} was called more than {self.calls + FLOOD_SLACK} times in one call")
        return _raised(
            "ValueError", f"{self.name}'s arguments hold {nbytes} bytes of tensors, more than {self.max_bytes}"
        )

    def _over(self, what: str) -> tuple[dict[str, Any], None]:
        if self.violation is None:
            self.violation = what
        return _raised("RuntimeError", f"over the budget: {what}"), None


def _raised(kind: str, message: str) -> dict[str, Any]:
    return {"host_raised": {"type": kind, "message": message[:500]}}


class HostSpec:
    """A host function as the learner's side receives it: only its key."""

    __slots__ = ("key",)

    def __init__(self, key: int) -> None:
        self.key = int(key)

    def __repr__(self) -> str:
        return f"<host function {self.key}>"


class HostProxy:
    """On the learner's side: the function standing for host function ``key`` during one call.

    ``exchange(key, args, kwargs)`` writes a callback frame and returns the judge's answer (or raises
    its refusal); ``open`` is cleared when the call returns. Only the thread that made the call
    may use it.
    """

    def __init__(
        self, key: int, exchange: Callable[[int, list[Any], dict[str, Any]], Any], name: str = "sample_fn"
    ) -> None:
        self._key, self._exchange, self.__name__ = key, exchange, name
        self._thread = threading.get_ident()
        self.open = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.open:
            raise RuntimeError(f"{self.__name__} works only during the call it was given to")
        if threading.get_ident() != self._thread:
            raise RuntimeError(f"{self.__name__} works only in the thread that runs the call it was given to")
        return self._exchange(self._key, list(args), dict(kwargs))

    def __repr__(self) -> str:
        return f"<{self.__name__}: a function of the judge>"


def collect(value: Any, found: dict[int, HostFunction] | None = None) -> dict[int, HostFunction]:
    """The host functions inside a call's arguments (lists, tuples and dicts searched), by key."""
    found = {} if found is None else found
    if isinstance(value, HostFunction):
        found[value.key] = value
    elif isinstance(value, (list, tuple)):
        for item in value:
            collect(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            collect(item, found)
    return found
