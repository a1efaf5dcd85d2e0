"""Checks that a learner's function refuses what it must: bad inputs raise, with a message.

:func:`expect_raises` (a block whose call must raise), :func:`expect_bad_inputs_refused` (a
table of :class:`BadInput` rows against one function) and :func:`expect_calls_refused` (a list
of :class:`BadCall`, sent to the learner's process in one request). None spends budget.
The tables that :mod:`judge.checks.arguments` derives from a function's argument specs end here.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.checks.base import _misuse, _text, fail, rule
from judge.checks.evidence import Evidence
from judge.checks.testing import LearnerFunction
from judge.learner.code import qualified_name
from judge.learner.interface import LearnerRaised

__all__ = ["expect_raises", "BadInput", "expect_bad_inputs_refused", "BadCall", "expect_calls_refused"]


@contextlib.contextmanager
def expect_raises(
    exception: type[BaseException], call: str, public: str | None = None, diagnosis: str | None = None
) -> Iterator[None]:
    """The learner's function must raise ``exception`` (or a subclass: ``isinstance``, judged by the
    names of the raised exception's classes) inside the block, with a message.

    ``exception``: an exception class, such as ``ValueError``; ``call`` describes the call for
    the message (it may quote the inputs); ``public`` (default ``call``) the same without input
    values; ``diagnosis`` names the mistake when the call returns normally. A class of the
    learner's merely named like ``exception`` (not derived from it) is another type. Raises
    :class:`CheckFailed` (WA) when the call returns, raises another type, or raises without a
    message; :class:`CheckMisuse` for a malformed ``exception``, ``call``, ``public`` or ``diagnosis``.
    """
    if not (isinstance(exception, type) and issubclass(exception, BaseException)):
        raise _misuse("expect_raises", "exception", "an exception class, such as ValueError", exception)
    _text("expect_raises", "call", call)
    _text("expect_raises", "public", public, optional=True)
    _text("expect_raises", "diagnosis", diagnosis, optional=True)
    name = exception.__name__
    must = rule(public or call, f"must raise {name}", f"必须抛出 {name}")
    try:
        yield
    except LearnerRaised as raised:
        kind = Evidence.NOT_IMPLEMENTED if raised.not_implemented else Evidence.RAISED
        if not raised.derives_from(exception):
            fail(f"{call} must raise {name}; it raised {raised.described()}: {raised.message}", rule=must, kind=kind)
        if not raised.message.strip():
            fail(
                f"{call} raised {raised.described()} without a message; say what is wrong with the input",
                rule=rule(public or call, f"raised {name} without a message", f"抛出的 {name} 没有说明"),
                kind=kind,
            )
        return
    fail(f"{call} must raise {name}; it returned normally", rule=must, diagnosis=diagnosis, kind=Evidence.VALUE)


@dataclass(frozen=True)
class BadInput:
    """One row of a bad-input table: the call's keyword arguments and what is wrong with them.

    ``description`` may quote the values (the message); ``public`` says the same without them
    (the rule a hidden case shows; ``description`` by default); ``diagnosis`` names the
    mistake when the call is accepted (None: no known mistake).
    """

    description: str
    kwargs: Mapping[str, Any]
    public: str | None = None
    diagnosis: str | None = None


def expect_bad_inputs_refused(
    function: Callable[..., Any],
    table: Sequence[BadInput | tuple],
    *,
    args: Sequence[Any] = (),
    extra: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
    exception: type[BaseException] = ValueError,
    name: str | None = None,
) -> int:
    """Each row of ``table`` must be refused: ``function(*args, **row.kwargs, **extra)`` raises
    ``exception`` (or a subclass) with a message (:func:`expect_raises`, row by row, in order).

    ``function``: a learner's function through the submission (``sub.sample``); ``table``: rows
    as :class:`BadInput`, or tuples ``(description, kwargs)`` / ``(description, kwargs, public,
    diagnosis)``; ``args``: the positional arguments of every call (the good inputs); ``extra``:
    keyword arguments of every call, or a function returning them, called once per call (for a
    fresh ``ctx.generator()`` each time); ``name``: the function's name in messages (default
    ``function.__name__``). The message of a failing row is
    ``"{name}() with {description} must raise {exception}; it returned normally"``. Spends no
    budget. Returns the number of rows checked.

    Raises :class:`CheckFailed` (WA) at the first row accepted, or refused with another
    exception or without a message; :class:`CheckMisuse` for a malformed argument or row.
    """
    check = "expect_bad_inputs_refused"
    if not callable(function):
        raise _misuse(check, "function", "the learner's function, such as sub.sample", function)
    if isinstance(table, (str, bytes, Mapping)) or not isinstance(table, Sequence) or not table:
        raise _misuse(check, "table", "a non-empty list of BadInput or (description, kwargs) tuples", table)
    if isinstance(args, (str, bytes)) or not isinstance(args, Sequence):
        raise _misuse(check, "args", "a sequence of positional arguments", args)
    if extra is not None and not callable(extra) and not isinstance(extra, Mapping):
        raise _misuse(check, "extra", "a mapping of keyword arguments, a function returning one, or None", extra)
    _text(check, "name", name, optional=True)
    name = name or getattr(function, "__name__", "the function")
    rows = []
    for index, row in enumerate(table):
        if isinstance(row, tuple) and len(row) in (2, 4):
            row = BadInput(*row)
        if (
            not isinstance(row, BadInput)
            or not isinstance(row.description, str)
            or not isinstance(row.kwargs, Mapping)
            or not all(isinstance(k, str) for k in row.kwargs)
        ):
            raise _misuse(
                check,
                f"table[{index}]",
                "a BadInput, or a tuple (description: str, kwargs: dict) or (description, kwargs, public, diagnosis)",
                row,
            )
        _text(check, f"table[{index}].public", row.public, optional=True)
        _text(check, f"table[{index}].diagnosis", row.diagnosis, optional=True)
        rows.append(row)
    calls = [
        BadCall(
            function,
            f"{name}() with {row.description}",
            args=tuple(args),
            kwargs={**row.kwargs, **(extra() if callable(extra) else (extra or {}))},
            public=f"{name}() with {row.public or row.description}",
            diagnosis=row.diagnosis,
        )
        for row in rows
    ]
    return expect_calls_refused(calls, exception=exception)


@dataclass(frozen=True)
class BadCall:
    """One call that must be refused: ``function(*args, **kwargs)``, described for messages.

    ``function``: a learner's function through the submission (``sub.sample``), or any callable;
    ``call`` describes the call for the message and may quote the inputs (``"sample() with
    NaN logits"``); ``public`` says the same without input values (the rule a hidden case shows;
    ``call`` by default); ``diagnosis`` names the mistake when the call returns normally.
    """

    function: Callable[..., Any]
    call: str
    args: Sequence[Any] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    public: str | None = None
    diagnosis: str | None = None


def expect_calls_refused(calls: Sequence[BadCall], *, exception: type[BaseException] = ValueError) -> int:
    """Each call must raise ``exception`` (or a subclass) with a message: :func:`expect_raises`
    around each, in order. Spends no budget; returns the number of calls checked.

    Calls of one submission's functions (``sub.NAME``, under the same options) go to the learner's
    process in one request (:meth:`judge.engine.process.LearnerProcess.refusals`), which runs them in
    order and stops at the first one not refused, as this check does: the outcome, messages
    included, is the same as the calls one after the other, for one round trip. The message of a
    failing call is ``"{call} must raise {exception}; it returned normally"`` (or names what it
    raised instead). A call that takes too long fails the case as TLE, with a message that names
    the batch's functions.

    Raises :class:`CheckFailed` (WA) at the first call accepted, or refused with another exception
    or without a message; :class:`CheckMisuse` for a malformed argument.
    """
    check = "expect_calls_refused"
    if not (isinstance(exception, type) and issubclass(exception, BaseException)):
        raise _misuse(check, "exception", "an exception class, such as ValueError", exception)
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence) or not calls:
        raise _misuse(check, "calls", "a non-empty list of BadCall", calls)
    for index, bad in enumerate(calls):
        if (
            not isinstance(bad, BadCall)
            or not callable(bad.function)
            or isinstance(bad.args, (str, bytes))
            or not isinstance(bad.args, Sequence)
            or not isinstance(bad.kwargs, Mapping)
            or not all(isinstance(k, str) for k in bad.kwargs)
        ):
            raise _misuse(check, f"calls[{index}]", "a BadCall(function, call, args=(), kwargs={}, ...)", bad)
        _text(check, f"calls[{index}].call", bad.call)
        _text(check, f"calls[{index}].public", bad.public, optional=True)
        _text(check, f"calls[{index}].diagnosis", bad.diagnosis, optional=True)
    for bad, call in zip(calls, _refusal_calls(calls, exception), strict=True):
        with expect_raises(exception, bad.call, bad.public, diagnosis=bad.diagnosis):
            call()
    return len(calls)


def _refusal_calls(calls: Sequence[BadCall], exception: type[BaseException]) -> list[Callable[[], Any]]:
    """A function per call that makes it (or replays it, when the learner took them all in one
    request: see :meth:`judge.checks.testing.Submission._refusals`)."""
    functions = [bad.function for bad in calls]
    learners = [f for f in functions if isinstance(f, LearnerFunction)]
    if len(learners) == len(calls) and all(f.submission is learners[0].submission for f in learners):
        accept = _accepted_names(exception)
        batch = [(f.name, tuple(bad.args), dict(bad.kwargs)) for f, bad in zip(learners, calls, strict=True)]
        return learners[0].submission._refusals(batch, accept)
    return [functools.partial(bad.function, *bad.args, **bad.kwargs) for bad in calls]


def _accepted_names(exception: type[BaseException]) -> list[str]:
    """The class names :func:`expect_raises` takes for ``exception``: its own qualified name, which
    every subclass's exception lists among its classes (the learner's side stops a batch of
    refusals on the same rule)."""
    return [qualified_name(exception)]
