"""Generated legal corners of exercise 42, judged with a name for what failed, on its own evidence.

``judge.checks.arguments`` generates the calls (``specs.py`` says what the statement allows); ``expect_accepted``
judges them as ``expect_contract_accepts`` does and names a legal corner refused with a ValueError, but
only after the good call it was made from returned normally (a function that refuses everything refuses
no corner in particular). The bad inputs: ``public/refusals.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from judge.checks.arguments import Variant, public_call
from judge.checks.base import fail, rule
from judge.checks.evidence import Evidence
from judge.i18n import Bilingual, in_language
from judge.learner.interface import LearnerRaised


def refused_corner(public: str) -> Bilingual:
    """The diagnosis of a legal corner refused with ValueError."""
    return Bilingual(
        f"{public} is refused (ValueError), but the statement allows it",
        f"{in_language(public, 'zh')}抛出了 ValueError，但题面允许这样的输入",
    )


def expect_accepted(
    function: Callable[..., Any],
    name: str,
    good: dict,
    variants: Sequence[Variant],
    check: Callable[[Any, dict, Bilingual], None],
) -> int:
    """The good call, then every legal corner, one at a time: each must return normally and pass
    ``check(value, kwargs, public)`` (the suite's oracle). A corner refused with ValueError is named (the
    good call passed first); any other exception fails the case unnamed."""
    for kwargs, public in [(good, Bilingual(f"{name}() with a good call", f"{name}() 收到合法的调用时"))] + [
        (dict(v.kwargs), public_call(name, v)) for v in variants
    ]:
        try:
            value = function(**kwargs)
        except LearnerRaised as raised:
            if raised.memory or raised.not_implemented:
                raise
            corner = kwargs is not good and raised.derives_from(ValueError)
            fail(
                f"{public} must return normally: the statement allows it; it raised {raised.described()}: "
                f"{raised.message}\n{raised.traceback.strip()}".rstrip(),
                rule=rule(public, "raised an exception on an input the statement allows", "对题面允许的输入抛出了异常"),
                diagnosis=refused_corner(public) if corner else None,
                kind=Evidence.RAISED,
            )
        check(value, kwargs, public)
    return len(variants) + 1
