"""Bad inputs of exercise 42 judged with a name for what failed, on its own evidence (public: the tiny
variant uses it too).

``expect_refused`` judges a list of calls as ``expect_calls_refused`` does (one round trip), and names
the first that fails: a bad call that returns normally names itself ("beam_search() with NaN as
length_penalty is accepted"), one that raises another type than ValueError names that ("... raises
TypeError instead of ValueError": a float max_len reaching ``range``, a real id reaching ``gather``).
The names quote the call's public words, the same in the hidden suite (generated calls) and here.
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.checks.base import CheckFailed, fail, rule
from judge.checks.evidence import Evidence
from judge.checks.refusals import BadCall, expect_calls_refused, expect_raises
from judge.i18n import Bilingual, in_language
from judge.learner.interface import LearnerRaised


def accepted(public: str) -> Bilingual:
    """The diagnosis of a bad call that returned normally (``public``: the call without values)."""
    return Bilingual(
        f"{public} is accepted: the statement refuses it with ValueError",
        f"{in_language(public, 'zh')}没有抛出 ValueError：题面要求拒绝这样的输入",
    )


def raised_instead(public: str, type_name: str) -> Bilingual:
    """The diagnosis of a bad call that raised ``type_name`` instead of a ValueError."""
    return Bilingual(
        f"{public} raises {type_name} instead of ValueError: check the input first and raise ValueError",
        f"{in_language(public, 'zh')}抛出的是 {type_name} 而不是 ValueError：应当先检查输入并抛出 ValueError",
    )


def named(calls: Sequence[BadCall]) -> list[BadCall]:
    """``calls`` with the diagnosis of each one returning normally."""
    out = []
    for c in calls:
        diagnosis = accepted(c.public or c.call) if c.diagnosis is None else c.diagnosis
        out.append(BadCall(c.function, c.call, c.args, c.kwargs, c.public, diagnosis))
    return out


def expect_refused(calls: Sequence[BadCall]) -> int:
    """Every call must raise ValueError with a message (one round trip, ``expect_calls_refused``). On a
    failure the calls are made again one at a time, up to the first that fails, which then fails the case
    with its name: accepted, or another exception type (a NotImplementedError names nothing)."""
    calls = named(calls)
    try:
        return expect_calls_refused(calls)
    except CheckFailed as failed:
        first = failed
    for bad in calls:
        with expect_raises(ValueError, bad.call, bad.public, diagnosis=bad.diagnosis):
            try:
                bad.function(*bad.args, **bad.kwargs)
            except LearnerRaised as raised:
                if not raised.derives_from(ValueError) and not raised.not_implemented and not raised.memory:
                    public = bad.public or bad.call
                    fail(
                        f"{bad.call} must raise ValueError; it raised {raised.described()}: {raised.message}",
                        rule=rule(public, "must raise ValueError", "必须抛出 ValueError"),
                        diagnosis=raised_instead(public, raised.type_name),
                        kind=Evidence.RAISED,
                    )
                raise
    raise first  # one at a time, every call was refused: the learner's function keeps state; the first verdict stands
