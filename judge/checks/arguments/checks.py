"""The two checks a hidden suite runs from a function's contract: every generated bad call is refused
(:func:`expect_contract_refusals`), every legal corner is accepted (:func:`expect_contract_accepts`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from judge.checks.arguments.base import ArgumentSpec, Variant, misuse
from judge.checks.arguments.generate import bad_variants, legal_variants
from judge.checks.arguments.ranges import zh
from judge.checks.base import fail, rule
from judge.checks.evidence import Evidence
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.checks.testing import Context
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

Extra = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


def _function_name(check: str, function: Any, name: Any) -> str:
    if not callable(function):
        raise misuse(check, "function", "the learner's function, such as sub.sample", function)
    if name is not None and not isinstance(name, str):
        raise misuse(check, "name", "a str or None", name)
    return name or str(getattr(function, "__name__", "the function"))


def _extra_kwargs(check: str, extra: Extra, arguments: Mapping[str, ArgumentSpec]) -> Callable[[], dict[str, Any]]:
    """A function giving the keyword arguments every call adds (a fresh ``ctx.generator()`` each time)."""
    if extra is not None and not callable(extra) and not isinstance(extra, Mapping):
        raise misuse(check, "extra", "a mapping of keyword arguments, a function returning one, or None", extra)

    def more() -> dict[str, Any]:
        given = dict(extra() if callable(extra) else (extra or {}))
        clash = sorted(set(given) & set(arguments))
        if clash:
            raise misuse(check, "extra", "keyword arguments that no spec describes", clash)
        return given

    return more


def public_call(function: str, variant: Variant) -> Bilingual:
    """A generated call in words that quote no value, for rules: ``"sample() with probs holding NaN"``
    / ``"sample() 收到含 NaN 的 probs 时"`` (``function``: the function's name)."""
    return Bilingual(f"{function}() with {variant.public}", zh(f"{function}() 收到 {variant.public.zh} 时"))


def _context(check: str, ctx: Any) -> None:
    if not isinstance(ctx, Context):
        raise misuse(check, "ctx", "the test's Context (the second argument of the test function)", ctx)


def contract_refusals(
    function: Callable[..., Any],
    good: Mapping[str, Any],
    arguments: Mapping[str, ArgumentSpec],
    rng: random.Random,
    *,
    extra: Extra = None,
    name: str | None = None,
    diagnose: Callable[[Variant], str | None] | None = None,
) -> list[BadCall]:
    """The calls :func:`~judge.checks.arguments.generate.bad_inputs` makes from ``good``, as :class:`BadCall`s
    of ``function`` (keyword arguments only, plus ``extra``): ``call`` quotes the bad value
    (``"sample() with probs holding NaN at [1, 3]"``), ``public`` does not (``"sample() with probs
    holding NaN"``); ``diagnose(variant)`` names the mistake of a call that returns (None: none).
    Raises :class:`~judge.checks.base.CheckMisuse` as ``bad_inputs`` does, and for a ``function`` that
    is not callable or an ``extra`` that names a described argument."""
    return _refusal_calls("contract_refusals", function, good, arguments, rng, extra, name, diagnose)


def _refusal_calls(
    check: str,
    function: Any,
    good: Any,
    arguments: Any,
    rng: Any,
    extra: Extra,
    name: Any,
    diagnose: Callable[[Variant], str | None] | None = None,
) -> list[BadCall]:
    label = _function_name(check, function, name)
    more = _extra_kwargs(check, extra, arguments)
    return [
        BadCall(
            function,
            f"{label}() with {variant.description}",
            kwargs={**variant.kwargs, **more()},
            public=public_call(label, variant),
            diagnosis=diagnose(variant) if diagnose is not None else None,
        )
        for variant in bad_variants(check, good, arguments, rng)
    ]


def expect_contract_refusals(
    function: Callable[..., Any],
    ctx: Context,
    *,
    good: Mapping[str, Any],
    arguments: Mapping[str, ArgumentSpec],
    extra: Extra = None,
    name: str | None = None,
    exception: type[BaseException] = ValueError,
) -> int:
    """Every bad call the contract gives must raise ``exception`` (or a subclass) with a message.

    ``function``: the learner's function (``sub.sample``); ``good``: the keyword arguments of a call
    the statement allows; ``arguments``: each described argument's spec (what it allows, what it
    ``refuse``\\ s); ``extra``: keyword arguments every call adds, or a function returning them (a fresh
    ``ctx.generator()``); ``name``: the function in messages. The calls are drawn under
    ``ctx.fresh_seed("contract refusals: NAME")`` and checked by
    :func:`~judge.checks.refusals.expect_calls_refused` (one round trip for all of them). Spends no budget.
    Returns the number of calls.

    Raises :class:`~judge.checks.base.CheckFailed` (WA) at the first call accepted, or refused with
    another exception or without a message; :class:`~judge.checks.base.CheckMisuse` for a malformed
    argument or a good call its specs refuse.
    """
    check = "expect_contract_refusals"
    _context(check, ctx)
    label = _function_name(check, function, name)
    rng = random.Random(ctx.fresh_seed(f"contract refusals: {label}"))
    calls = _refusal_calls(check, function, good, arguments, rng, extra, label)
    return expect_calls_refused(calls, exception=exception)


def expect_contract_accepts(
    function: Callable[..., Any],
    ctx: Context,
    *,
    good: Mapping[str, Any],
    arguments: Mapping[str, ArgumentSpec],
    extra: Extra = None,
    check: Callable[[Any, Variant], None] | None = None,
    name: str | None = None,
) -> int:
    """Every legal corner the contract gives (exact zeros, u = 0, B = 1, ...) must return normally, and
    pass ``check`` where the suite gives one.

    Arguments as :func:`expect_contract_refusals`; ``check(value, variant)`` (optional) checks the
    learner's return value for one corner with the suite's oracle: ``variant.kwargs`` are the call's
    described arguments (``extra`` not included), ``variant.description`` / ``variant.public`` say
    what the corner is, with and without values; it raises :class:`~judge.checks.base.CheckFailed` (``fail``,
    ``expect_close``, ...). One call at a time, in order, under ``ctx.fresh_seed("contract corners:
    NAME")``. Spends no budget. Returns the number of calls.

    Raises :class:`~judge.checks.base.CheckFailed` (WA) at the first call that raises (``"sample() with
    exact zeros in probs: raised an exception on an input the statement allows"``: a refusal of a
    legal input, or a crash on it) or that ``check`` fails; a call that runs out of memory stays MLE.
    :class:`~judge.checks.base.CheckMisuse` for a malformed argument or a good call its specs refuse.
    """
    who = "expect_contract_accepts"
    _context(who, ctx)
    label = _function_name(who, function, name)
    if check is not None and not callable(check):
        raise misuse(who, "check", "a function check(value, variant), or None", check)
    more = _extra_kwargs(who, extra, arguments)
    variants = legal_variants(who, good, arguments, random.Random(ctx.fresh_seed(f"contract corners: {label}")))
    for variant in variants:
        call = f"{label}() with {variant.description}"
        try:
            value = function(**variant.kwargs, **more())
        except LearnerRaised as raised:
            if raised.memory or raised.not_implemented:  # MLE, or a function not written yet: no WA of ours
                raise
            fail(
                f"{call} must return normally: the statement allows it; it raised {raised.described()}: "
                f"{raised.message}\n{raised.traceback.strip()}".rstrip(),
                rule=rule(
                    public_call(label, variant),
                    "raised an exception on an input the statement allows",
                    "对题面允许的输入抛出了异常",
                ),
                kind=Evidence.RAISED,
            )
        if check is not None:
            check(value, variant)
    return len(variants)
