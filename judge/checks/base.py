"""What every family of checks shares: the failure a check raises and the words it uses.

:class:`CheckFailed` (a learner's WA, with its public ``rule``), :class:`CheckMisuse` (an
exercise's test called a check wrongly: IE, never the learner's fault), :func:`fail`,
:func:`rule`, :func:`row_title`, :class:`Label` (a row's description, with a value-free public
one), :class:`Outcome` (the noun for one outcome of a draw) and :func:`diagnosed` (name a known
mistake for the failures of a block). The families build on it:
:mod:`judge.checks.exact`, :mod:`judge.checks.distributions`, :mod:`judge.checks.independence`,
:mod:`judge.checks.generator_contract`, :mod:`judge.checks.refusals`,
:mod:`judge.checks.estimators` (``judge/checks/__init__.py`` lists what each one holds).

The names with a leading underscore (``_text``, ``_misuse``, ``_tolerance``...) check the
arguments an exercise passes to a check: the families share them, exercises do not call them.
It imports nothing of the families, nor :mod:`judge.checks.testing` (which raises
:class:`CheckFailed` for an input changed in place), so that every one of them can import it.
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import torch

from judge.checks.evidence import Evidence
from judge.i18n import Bilingual, in_language
from judge.learner.interface import LearnerRaised

__all__ = [
    "CheckFailed",
    "CheckMisuse",
    "Label",
    "Outcome",
    "TOKEN",
    "row_title",
    "rule",
    "fail",
    "diagnosed",
]

# The real torch (the server's, the CLI's), not the browser's pure-Python subset: the shortcuts
# here and in the families use operations the subset lacks (aminmax, byte views), and the browser
# keeps the plain ones.
_REAL_TORCH = hasattr(torch, "_C")


def _all_true(mask: torch.Tensor) -> bool:
    """``bool(mask.all())`` for a bool tensor. torch reduces bools one by one but bytes in vector
    lanes (ten times faster over 10^5 entries): on the real torch the bytes are reduced."""
    return bool((mask.view(torch.uint8) if _REAL_TORCH else mask).all())


def _any_true(mask: torch.Tensor) -> bool:
    """``bool(mask.any())`` for a bool tensor, as :func:`_all_true`."""
    return bool((mask.view(torch.uint8) if _REAL_TORCH else mask).any())


# Known mistakes: diagnosis -> what that mistake returns. A callable is evaluated only when a check
# fails, so computing the mistakes costs nothing for a correct submission.
Mistakes = Mapping[str, torch.Tensor] | Callable[[], Mapping[str, torch.Tensor]] | None


_T = TypeVar("_T")


def _mistakes(mistakes: Mapping[str, _T] | Callable[[], Mapping[str, _T]] | None) -> Mapping[str, _T]:
    """The mapping of known mistakes: ``{}`` for None, a function's result, else the mapping itself."""
    if mistakes is None:
        return {}
    return mistakes() if callable(mistakes) else mistakes


# --- argument checks: an exercise's misuse of a check is CheckMisuse, never a learner's verdict ------


class CheckMisuse(TypeError):
    """An exercise's test called a check or a helper wrongly: a bug in the exercise, never the learner's.

    The message names the check, the argument, what was expected and what was given. The runner
    turns it, like any exception of a test, into IE for the learner and logs it with the details;
    an author sees it in ``python practice/judge.py check`` (stderr) and in the exception itself.
    """

    def __init__(self, check: str, argument: str, expected: str, given: str) -> None:
        self.check, self.argument, self.expected, self.given = check, argument, expected, given
        super().__init__(
            f"{check}(): argument `{argument}` must be {expected}; got {given} "
            "(a mistake in the exercise's tests, not in the learner's code)"
        )

    def __reduce__(self):  # pickles with its four parts, not its message
        return (type(self), (self.check, self.argument, self.expected, self.given))


def _describe(value: Any) -> str:
    """What ``value`` is, for a misuse message: a tensor's dtype and shape, a number, a type."""
    if isinstance(value, torch.Tensor):
        return f"a {value.dtype} tensor of shape {list(value.shape)}"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, numbers.Number):
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, str):
        return f"the string {value[:60]!r}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} item{'s' if len(value) != 1 else ''}"
    return f"a {type(value).__name__}"


def _misuse(check: str, argument: str, expected: str, value: Any) -> CheckMisuse:
    return CheckMisuse(check, argument, expected, _describe(value))


def _text(check: str, argument: str, value: Any, *, optional: bool = False) -> None:
    """``value`` is a string (a :class:`Bilingual` or :class:`Label` is one), or None when ``optional``."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise _misuse(check, argument, "a str (or a Bilingual)" + (" or None" if optional else ""), value)


def _tolerance(check: str, argument: str, value: Any) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not (math.isfinite(value) and float(value) >= 0)
    ):
        raise _misuse(check, argument, "a finite number >= 0", value)


def _mistakes_argument(check: str, argument: str, value: Any) -> None:
    if value is not None and not callable(value) and not isinstance(value, Mapping):
        raise _misuse(check, argument, "a mapping diagnosis -> tensor, a function returning one, or None", value)


@dataclass(frozen=True)
class Outcome:
    """The noun for one outcome of a draw in a check's messages: ``token`` (the default),
    ``side`` for a coin, ``face`` for a die, in English and Chinese.

    Checks take ``outcome=`` as a plain string (used in both languages), a
    :class:`~judge.i18n.Bilingual` (``Bilingual("side", "面")``) or a pair ``("side", "面")``.
    The English plural adds an ``s`` unless the noun ends in one.
    """

    en: str = "token"
    zh: str = "token"

    @classmethod
    def of(cls, check: str, value: Any) -> Outcome:
        if isinstance(value, Outcome):
            return value
        if isinstance(value, Bilingual):
            found = (str(value), value.zh)
        elif isinstance(value, str):
            found = (value, value)
        elif isinstance(value, tuple) and len(value) == 2:
            found = value
        else:
            raise _misuse(check, "outcome", "a noun: a str, a Bilingual or an (English, Chinese) pair", value)
        if not all(isinstance(word, str) and word.strip() for word in found):
            raise _misuse(check, "outcome", "a noun: a str, a Bilingual or an (English, Chinese) pair", value)
        return cls(found[0].strip(), found[1].strip())

    @property
    def plural(self) -> str:
        return self.en if self.en.endswith("s") else self.en + "s"

    @property
    def zh_word(self) -> str:
        """The Chinese noun as it stands in a sentence: a Latin word spaced from the characters."""
        return f" {self.zh} " if self.zh.isascii() else self.zh

    def range_en(self) -> str:
        return "the vocabulary" if self.en == "token" else f"the possible {self.plural}"

    def range_zh(self) -> str:
        return "词表" if self.zh == "token" else f"可能的{self.zh_word.strip()}"


TOKEN = Outcome()


class CheckFailed(AssertionError):
    """A check failed: the submission gets WA with this message.

    ``message`` may quote the case's inputs (values, counts, parameters): a site shows it only
    for public cases. ``rule`` says which rule failed and on which row, in words that quote no
    input value (a :class:`~judge.i18n.Bilingual`): what a learner sees of a failing hidden case.
    ``kind`` says what the failure is evidence of (:class:`~judge.checks.evidence.Evidence`): what
    :func:`diagnosed` may name; None for a failure whose kind its check did not state (evidence of
    no particular mistake). ``explained_by``: the listed mistakes that explain the failure alike,
    so that none was named (they coincide on this case); a :func:`diagnosed` block names no other
    mistake for it either.
    """

    def __init__(
        self,
        message: str,
        *,
        statistic: float | None = None,
        p_value: float | None = None,
        diagnosis: str | None = None,
        rule: str | None = None,
        kind: Evidence | None = None,
        explained_by: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.statistic = statistic
        self.p_value = p_value
        self.diagnosis = diagnosis
        self.rule = rule
        self.kind = kind
        self.explained_by = tuple(explained_by)


class Label(str):
    """A row's description: the full text (it may quote the row's parameters) and, in
    ``.public``, a :class:`Bilingual` one that quotes no value, safe to show for hidden cases."""

    public: Bilingual

    def __new__(cls, text: str, public: Bilingual) -> Label:
        obj = super().__new__(cls, text)
        obj.public = public
        return obj

    def __getnewargs__(self) -> tuple[str, Bilingual]:  # type: ignore[override]  # typeshed: tuple[str]; __new__ here takes more
        return (str(self), self.public)


def row_title(what: str, row: int, labels: Sequence[str] | None = None) -> Bilingual:
    """``what`` (a Bilingual or plain name), row ``row`` and the row's value-free label, in both languages."""
    label = labels[row] if labels and row < len(labels) else None
    public = getattr(label, "public", None)
    return Bilingual(
        f"{what}, row {row}" + (f" ({public})" if public else ""),
        f"{in_language(what, 'zh')}，第 {row} 行" + (f"（{public.zh}）" if public else ""),
    )


def _row_name(labels: Sequence[str] | None, row: int) -> str:
    if labels and row < len(labels):
        return f"row {row} ({labels[row]})"
    return f"row {row}"


def rule(what: str, en: str, zh: str, *, row: int | None = None, labels: Sequence[str] | None = None) -> Bilingual:
    """The public rule of a failure: ``what`` (a Bilingual or plain name), the row, what went wrong.

    ``en``/``zh``: what went wrong, quoting no input value (hidden cases show only this).
    Raises :class:`CheckMisuse` when ``what``, ``en`` or ``zh`` is not a string.
    """
    for argument, value in (("what", what), ("en", en), ("zh", zh)):
        _text("rule", argument, value)
    head = row_title(what, row, labels) if row is not None else what
    return Bilingual(f"{head}: {en}", f"{in_language(head, 'zh')}：{zh}")


def _kind(check: str, value: Any, argument: str = "kind") -> Evidence | None:
    """``value`` as an :class:`Evidence` (its value, such as ``"value"``, will do), or None for None."""
    if value is None or isinstance(value, Evidence):
        return value
    try:
        return Evidence(value)
    except ValueError:
        raise _misuse(check, argument, "an Evidence (structural, value or raised) or None", value) from None


def fail(message: str, **details: Any) -> None:
    """Fail the case now: raise :class:`CheckFailed` with ``message`` and ``details`` (``statistic``,
    ``p_value``, ``diagnosis``, ``rule``, ``kind``: see :class:`CheckFailed`). Raises
    :class:`CheckMisuse` when ``message`` is not a string or ``kind`` not an Evidence."""
    _text("fail", "message", message)
    if "kind" in details:
        details["kind"] = _kind("fail", details["kind"])
    raise CheckFailed(message, **details)


_NAMEABLE = frozenset({Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED})


@contextlib.contextmanager
def diagnosed(
    diagnosis: str, *, raised_only: bool = False, evidence: Collection[Evidence | str] | None = None
) -> Iterator[None]:
    """Name ``diagnosis`` for a failure inside the block that is its evidence and has no diagnosis
    of its own: by default a *value* failure only (a value or distribution that differs from the
    target: :class:`~judge.checks.evidence.Evidence`); with ``raised_only``, only an exception the
    learner's code raised; with ``evidence``, the kinds listed (``Evidence.STRUCTURAL``,
    ``Evidence.VALUE``, ``Evidence.RAISED``, or their names), for a block whose every failure is
    about the mistake (the same call already passed without the block's twist, say).

    A wrong type, shape, dtype, an id out of range or a NaN is not evidence of a mistake in the
    values (unless ``evidence`` says so); a NotImplementedError (a function not written yet) is
    evidence of none, ever; a failure whose kind its check did not state is named by no block.
    A failure that listed mistakes explain alike (``CheckFailed.explained_by``: they coincide on
    the case, so none was named) gets no other name from the block either. Failures after the
    block keep their own (a diagnosis belongs to the check that failed, never to an earlier step).
    Raises :class:`CheckMisuse` when ``diagnosis`` is not a string, or for ``evidence`` that is not
    a collection of evidence kinds, or is given with ``raised_only``.
    """
    _text("diagnosed", "diagnosis", diagnosis)
    if evidence is not None and raised_only:
        raise _misuse("diagnosed", "evidence", "None when raised_only is given (it names raised only)", evidence)
    if evidence is None:
        kinds = frozenset({Evidence.RAISED} if raised_only else {Evidence.VALUE})
    elif isinstance(evidence, (str, bytes)) or not isinstance(evidence, Collection) or not evidence:
        raise _misuse("diagnosed", "evidence", "a collection of Evidence kinds (structural, value, raised)", evidence)
    else:
        kinds = frozenset(_kind("diagnosed", kind, "evidence") for kind in evidence)  # type: ignore[misc]  # None is refused
        if not kinds <= _NAMEABLE:
            raise _misuse("diagnosed", "evidence", "kinds among structural, value and raised", evidence)
    try:
        yield
    except CheckFailed as failure:
        if failure.diagnosis is None and failure.kind in kinds and not failure.explained_by:
            failure.diagnosis = diagnosis
        raise
    except LearnerRaised as raised:
        if raised.diagnosis is None and Evidence.RAISED in kinds and not raised.not_implemented:
            raised.diagnosis = diagnosis
        raise
