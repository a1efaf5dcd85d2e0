"""Checks that test functions call: hard checks first, then hypothesis tests from :mod:`judge.checks.stats`.

A failing check raises :class:`CheckFailed` with a message in the learner's terms (which row,
which token, how often, what was expected) and, where the statistics are involved, the
statistic and p-value. Every randomized check spends its significance level from the run's
:class:`~judge.checks.budget.FalseFailureBudget` and appends a :class:`~judge.reports.report.CheckRecord`.
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import torch

from judge.checks import stats
from judge.checks.evidence import DIAGNOSIS_LIKELIHOOD_RATIO, Evidence, decisive_mistake, multinomial_log_likelihood
from judge.checks.numbers import format_pair
from judge.checks.pairings import HALF_APART_DIAGNOSIS, MIRRORED_DIAGNOSIS, row_pairings
from judge.checks.testing import CheckMisuse, Context, LearnerFunction
from judge.i18n import Bilingual, in_language
from judge.learner.code import qualified_name
from judge.learner.interface import LearnerRaised
from judge.reports import figures
from judge.reports.report import CheckRecord

if TYPE_CHECKING:  # served by __getattr__ at the end: judge.checks.draw_sites imports this module
    from judge.checks.draw_sites import DRAW_SITE_DIAGNOSIS, expect_every_draw_site

# The one place that chooses the statistics of counts: the server's torch twin of the G-test
# (judge/checks/stats_torch.py, kept equal to judge.checks.stats by tests/judge/test_stats_torch.py), or, where
# `torch` is the browser's pure-Python subset, the pure core that decides there (the browser bundle
# leaves stats_torch out, and it refuses to load on the subset).
try:
    from judge.checks import stats_torch
except ImportError:
    stats_torch = None  # type: ignore[assignment]

# The real torch (the server's, the CLI's), not the browser's pure-Python subset: the shortcuts
# below use operations the subset lacks (aminmax, byte views), and the browser keeps the plain ones.
_REAL_TORCH = hasattr(torch, "_C")


def _all_true(mask: torch.Tensor) -> bool:
    """``bool(mask.all())`` for a bool tensor. torch reduces bools one by one but bytes in vector
    lanes (ten times faster over 10^5 entries): on the real torch the bytes are reduced."""
    return bool((mask.view(torch.uint8) if _REAL_TORCH else mask).all())


def _any_true(mask: torch.Tensor) -> bool:
    """``bool(mask.any())`` for a bool tensor, as :func:`_all_true`."""
    return bool((mask.view(torch.uint8) if _REAL_TORCH else mask).any())


__all__ = [
    "CheckFailed",
    "CheckMisuse",
    "Evidence",
    "Label",
    "Outcome",
    "SEEDS_DIAGNOSIS",
    "ROWS_SHARE_DIAGNOSIS",
    "SORTED_DIAGNOSIS",
    "REPEATED_DIAGNOSIS",
    "DEPENDENT_DIAGNOSIS",
    "HALF_APART_DIAGNOSIS",
    "MIRRORED_DIAGNOSIS",
    "row_title",
    "rule",
    "fail",
    "expect",
    "diagnosed",
    "expect_tensor",
    "expect_close",
    "expect_tokens_in_range",
    "expect_support",
    "expect_distribution",
    "best_alternative",
    "explaining_alternatives",
    "expect_independent_within_row",
    "expect_independent_rows",
    "expect_independent_across_rows",
    "expect_different_under_seeds",
    "identical_draws_probability",
    "expect_raises",
    "expect_seed_contract",
    "expect_every_draw_site",
    "DRAW_SITE_DIAGNOSIS",
    "expect_bad_inputs_refused",
    "BadInput",
    "expect_calls_refused",
    "BadCall",
    "ordered_share",
    "token_groups",
    "too_regular",
    "expect_calibrated",
    "expect_unbiased",
    "implied_scale",
    "NARROW_DIAGNOSIS",
    "WIDE_DIAGNOSIS",
    "BIASED_DIAGNOSIS",
]

# An alternative distribution must fit the draws at least this well to be named as the mistake.
DIAGNOSIS_MIN_PVALUE = 1e-3

SEEDS_DIAGNOSIS = Bilingual("the generator argument is ignored or overridden", "忽略或覆盖了 generator 参数")

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


def _context(check: str, ctx: Any) -> None:
    if not isinstance(ctx, Context):
        raise _misuse(check, "ctx", "the test's Context (the second argument of the test function)", ctx)


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


def _target(check: str, argument: str, probs: Any, *, dims: tuple[int, ...], normalized: bool = True) -> torch.Tensor:
    """``probs`` is a floating tensor with ``dims`` dimensions, finite, >= 0 and (when ``normalized``)
    summing to 1 along its last dimension within ``stats.PROBABILITY_SUM_TOLERANCE``; returns it."""
    shapes = " or ".join({1: "[V]", 2: "[B, V]"}[d] for d in dims)
    expected = f"a floating tensor of shape {shapes}"
    if (
        not isinstance(probs, torch.Tensor)
        or not probs.is_floating_point()
        or probs.dim() not in dims
        or probs.shape[-1] == 0
    ):
        raise _misuse(check, argument, expected, probs)
    if not _finite_and_nonnegative(probs):
        raise _misuse(check, argument, f"{expected} of finite probabilities >= 0", probs)
    if normalized:
        totals = probs.to(torch.float64).sum(dim=-1)
        # One row: its sum is a 0-d tensor, and Python's float arithmetic is the same IEEE one.
        worst = abs(float(totals) - 1.0) if totals.dim() == 0 else float((totals - 1.0).abs().max())
        if worst > stats.PROBABILITY_SUM_TOLERANCE:
            raise CheckMisuse(
                check,
                argument,
                f"{expected} whose rows sum to 1",
                f"{_describe(probs)} with a row summing to {1.0 + worst:.6g} or {1.0 - worst:.6g}",
            )
    return probs


def _finite_and_nonnegative(values: torch.Tensor) -> bool:
    """Whether every entry of the floating tensor ``values`` is finite and >= 0 (-0.0 included),
    exactly as ``torch.isfinite(values).all() and not (values < 0).any()`` says, in two cheap passes.

    Targets are validated at every check, and ``isfinite`` takes several passes over tens of
    thousands of entries. A sum is finite only when every term is (NaN and infinities propagate),
    and a sum of terms <= 0 is 0 only when every term is (each partial sum is at least as large
    in magnitude as its largest term). A sum that overflows, in float16 say, is settled the slow way,
    as is every target in the browser (its torch subset has no vectorized sums to gain from).
    """
    if _REAL_TORCH and math.isfinite(float(values.sum())):
        return float(values.clamp(max=0).sum()) == 0.0
    return bool(torch.isfinite(values).all()) and not bool((values < 0).any())


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


def expect(
    condition: bool,
    message: str,
    diagnosis: str | None = None,
    rule: str | None = None,
    *,
    kind: Evidence | str | None = None,
) -> None:
    """A hard check: fail with ``message`` (and the public ``rule``, a Bilingual) unless ``condition``.

    ``condition``: a bool (a one-element tensor counts as its value); ``diagnosis``: the known
    mistake to name, or None; ``kind``: what the failure is evidence of, ``Evidence.VALUE`` when
    the condition compares a well-formed value with the target, ``Evidence.STRUCTURAL`` when it
    checks its type or shape (without one, a :func:`diagnosed` block names none). Raises
    :class:`CheckFailed` when the condition is false; :class:`CheckMisuse` for a tensor of several
    elements (ambiguous: use ``torch.equal`` or ``.all()``), a ``message``/``diagnosis``/``rule``
    that is not a string, or a ``kind`` that is not an Evidence.
    """
    if isinstance(condition, torch.Tensor) and condition.numel() != 1:
        raise _misuse(
            "expect", "condition", "a bool (for a tensor comparison: torch.equal(a, b) or (...).all())", condition
        )
    _text("expect", "message", message)
    _text("expect", "diagnosis", diagnosis, optional=True)
    _text("expect", "rule", rule, optional=True)
    evidence = _kind("expect", kind)
    if not condition:
        raise CheckFailed(message, diagnosis=diagnosis, rule=rule, kind=evidence)


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


def expect_tensor(
    value: Any, *, name: str, shape: Sequence[int], dtype: torch.dtype, device: str | None = None
) -> torch.Tensor:
    """Check a learner's value: a ``torch.Tensor`` of exactly ``shape`` and ``dtype`` (and, when
    ``device`` is given, returned on that device type, as the learner's process saw it); return it.

    ``name``: the function, for messages; ``shape``: a sequence of ints >= 0 (``()`` for a
    scalar tensor). Raises :class:`CheckFailed` (WA) when the value is not such a tensor;
    :class:`CheckMisuse` when ``name``, ``shape``, ``dtype`` or ``device`` is malformed.
    """
    _text("expect_tensor", "name", name)
    try:
        dims = None if isinstance(shape, (str, bytes)) else tuple(shape)
    except TypeError:
        dims = None
    if dims is None or not all(isinstance(n, numbers.Integral) and not isinstance(n, bool) and n >= 0 for n in dims):
        raise _misuse("expect_tensor", "shape", "a sequence of ints >= 0, such as (B, V) or a torch.Size", shape)
    if not isinstance(dtype, torch.dtype):
        raise _misuse("expect_tensor", "dtype", "a torch.dtype, such as torch.int64", dtype)
    if device is not None and not isinstance(device, (str, torch.device)):
        raise _misuse("expect_tensor", "device", "a device name such as ctx.device, or None", device)
    if not isinstance(value, torch.Tensor):
        fail(
            f"{name} must return a torch.Tensor, got {type(value).__name__}",
            rule=rule(name, "did not return a torch.Tensor", "返回的不是 torch.Tensor"),
            kind=Evidence.STRUCTURAL,
        )
    if tuple(value.shape) != tuple(shape):
        fail(
            f"{name} returned shape {list(value.shape)}, expected {list(shape)}",
            rule=rule(name, "returned a tensor of the wrong shape", "返回的张量形状不对"),
            kind=Evidence.STRUCTURAL,
        )
    if value.dtype != dtype:
        fail(
            f"{name} returned dtype {value.dtype}, expected {dtype}",
            rule=rule(
                name, f"returned dtype {value.dtype}, expected {dtype}", f"返回的 dtype 是 {value.dtype}，应为 {dtype}"
            ),
            kind=Evidence.STRUCTURAL,
        )
    origin = getattr(value, "origin_device", None)
    if device is not None and origin is not None and torch.device(origin).type != torch.device(device).type:
        fail(
            f"{name} returned a tensor on {origin}; outputs must stay on the input's device ({device})",
            rule=rule(name, "returned a tensor on another device than its input", "返回的张量不在输入所在的设备上"),
            kind=Evidence.STRUCTURAL,
        )
    return value


def expect_close(
    actual: torch.Tensor,
    expected: torch.Tensor,
    *,
    rtol: float,
    atol: float | torch.Tensor,
    what: str,
    row_labels: Sequence[str] | None = None,
    mistakes: Mistakes = None,
    outcome: Any = "token",
    per_row: bool = False,
) -> None:
    """Elementwise ``|actual - expected| <= atol + rtol * |expected|``, NaN never close, an infinity
    close to the same infinity (and to nothing else).

    ``expected``: a floating tensor ``[B, V]`` (``[V]`` is one row), or, with ``per_row``, ``[B]``:
    one scalar per row (a per-row entropy, a standard error), whose messages name the row alone
    ("row 3: you returned ..."), never a column. ``actual``: the learner's value, which must have
    ``expected``'s shape (any floating dtype: both are compared in float64). On failure the
    message names the worst row and ``outcome`` (the column's noun, ``token`` by default), and
    writes the two numbers with enough digits to differ (:func:`judge.checks.numbers.format_pair`). When
    ``mistakes`` is given (diagnosis -> what that mistake would return, same shape, or a function
    returning that mapping, called only on failure), the diagnosis is the one mistake that
    reproduces the whole output, else the one that reproduces the worst row, and only when that
    mistake's own value there differs from the target; two that both reproduce it (they coincide
    on this case) name none. With ``per_row``, ``atol`` may also be a floating tensor ``[B]`` of
    finite values ``>= 0``: each row's own absolute tolerance (rows of very different scales).

    Raises :class:`CheckFailed` (WA) for a wrong shape, NaN or values out of tolerance;
    :class:`CheckMisuse` for a malformed ``expected`` (not ``[B]`` with ``per_row``), ``rtol``,
    ``atol``, ``what``, ``mistakes`` or ``outcome``.
    """
    check = "expect_close"
    if per_row:
        if not isinstance(expected, torch.Tensor) or expected.dim() != 1 or not expected.is_floating_point():
            raise _misuse(check, "expected", "a floating tensor of shape [B] (per_row: one value per row)", expected)
    elif not isinstance(expected, torch.Tensor) or expected.dim() not in (1, 2) or not expected.is_floating_point():
        raise _misuse(check, "expected", "a floating tensor of shape [B, V] or [V]", expected)
    _tolerance(check, "rtol", rtol)
    if isinstance(atol, torch.Tensor):  # one absolute tolerance per row
        if not per_row or tuple(atol.shape) != tuple(expected.shape) or not atol.is_floating_point():
            raise _misuse(check, "atol", "a number, or with per_row a floating tensor of expected's shape [B]", atol)
        if not _all_true(torch.isfinite(atol) & (atol >= 0)):
            raise _misuse(check, "atol", "finite tolerances >= 0", atol)
        atol_rows = atol.to(torch.float64).unsqueeze(1)
    else:
        _tolerance(check, "atol", atol)
        atol_rows = None
    _text(check, "what", what)
    _mistakes_argument(check, "mistakes", mistakes)
    noun = Outcome.of(check, outcome)
    if not isinstance(actual, torch.Tensor) or tuple(actual.shape) != tuple(expected.shape):
        got = f"shape {list(actual.shape)}" if isinstance(actual, torch.Tensor) else type(actual).__name__
        fail(
            f"{what}: expected a tensor of shape {list(expected.shape)}, got {got}",
            rule=rule(what, "returned a tensor of the wrong shape", "返回的张量形状不对"),
            kind=Evidence.STRUCTURAL,
        )
    if expected.dim() == 1:  # one row, or (per_row) one value per row
        column = 1 if per_row else 0
        given = mistakes
        actual, expected = actual.unsqueeze(column), expected.unsqueeze(column)

        def mistakes():  # the mistakes in the same layout as actual and expected
            return {name: c.unsqueeze(column) if c.dim() == 1 else c for name, c in _mistakes(given).items()}

    actual64 = actual.to(torch.float64)
    expected64 = expected.to(torch.float64)
    bound = atol if atol_rows is None else atol_rows  # a number, or [B, 1]: broadcast along each row
    if _any_true(torch.isnan(actual64)):
        row, token = (torch.isnan(actual64).nonzero()[0]).tolist()
        # A known mistake may produce the NaN (an overflowing softmax, NaN x 0 on padding): name it.
        matching = _matching_mistakes(actual64, expected64, row, _mistakes(mistakes), rtol=rtol, atol=bound)
        diagnosis = matching[0] if len(matching) == 1 else None
        where = "" if per_row else f" at {noun.en} {token}"
        fail(
            f"{what}: {_row_name(row_labels, row)} holds NaN{where}"
            + (f". This matches a known mistake: {diagnosis}" if diagnosis else ""),
            diagnosis=diagnosis,
            rule=rule(what, "holds NaN", "含有 NaN", row=row, labels=row_labels),
            kind=Evidence.STRUCTURAL,
            explained_by=matching if len(matching) > 1 else (),
        )
    excess = (actual64 - expected64).abs() - (bound + rtol * expected64.abs())
    if _all_true(excess <= 0):
        return
    # An infinity equals the same infinity (inf - inf would read as NaN); any other pair with an
    # infinity is as far apart as can be.
    excess = torch.nan_to_num(excess.masked_fill(actual64 == expected64, 0.0), nan=math.inf)
    if _all_true(excess <= 0):
        return
    flat = int(torch.argmax(excess))
    row, token = divmod(flat, expected.shape[-1])
    matching = _matching_mistakes(actual64, expected64, row, _mistakes(mistakes), rtol=rtol, atol=bound)
    diagnosis = matching[0] if len(matching) == 1 else None
    returned, wanted = format_pair(actual64[row, token].item(), expected64[row, token].item())
    where = _row_name(row_labels, row) if per_row else f"{_row_name(row_labels, row)}, {noun.en} {token}"
    row_atol = atol if atol_rows is None else float(atol_rows[row, 0])
    message = (
        f"{what}: {where}: you returned {returned}, expected {wanted} (tolerance {row_atol:g} + {rtol:g} x expected)"
    )
    if diagnosis:
        message += f". This matches a known mistake: {diagnosis}"
    fail(
        message,
        diagnosis=diagnosis,
        rule=rule(what, "the values differ from the target", "数值与目标不一致", row=row, labels=row_labels),
        kind=Evidence.VALUE,
        explained_by=matching if len(matching) > 1 else (),
    )


def _matching_mistakes(
    actual: torch.Tensor,
    expected: torch.Tensor,
    row: int,
    mistakes: Mapping[str, torch.Tensor],
    *,
    rtol: float,
    atol: float | torch.Tensor,
) -> list[str]:
    """The mistakes that reproduce the whole output, else those that reproduce ``row`` (NaN matches
    NaN and an infinity the same infinity: a mistake's output is compared as it is); the failure's
    diagnosis when there is exactly one (:mod:`judge.checks.evidence`: a diagnosis only on its own
    evidence), none when several coincide on this case. A mistake whose own ``row`` is within
    tolerance of the target there is no evidence against the truth, and is left out. ``atol``: a
    number, or a ``[B, 1]`` tensor of one tolerance per row."""

    def close(a: torch.Tensor, b: torch.Tensor, part: Any) -> bool:
        bound = atol if not isinstance(atol, torch.Tensor) else atol[part]
        finite = torch.isfinite(a) & torch.isfinite(b)
        near = finite & ((a - b).abs() <= bound + rtol * b.abs())
        return _all_true(near | (a == b) | (torch.isnan(a) & torch.isnan(b)))

    candidates = {
        name: c.to(torch.float64)
        for name, c in mistakes.items()
        if c.shape == actual.shape and not close(c[row].to(torch.float64), expected[row], row)
    }
    for part in (slice(None), row):
        found = [name for name, candidate in candidates.items() if close(actual[part], candidate[part], part)]
        if found:
            return found
    return []


def _expect_token_ids(
    draws: Any, vocab_size: int, *, what: str, outcome: Outcome = TOKEN, check_range: bool = True
) -> None:
    """``draws`` is a 1-D int64 tensor of ids in ``[0, vocab_size)`` (checks take learner values as
    they come: an unchecked one would make the check itself raise, an IE the learner chose).
    ``check_range=False`` leaves the range to the caller's :func:`_indexed_in_range`."""
    if not isinstance(draws, torch.Tensor) or draws.dtype != torch.int64 or draws.dim() != 1:
        kind = (
            f"a {draws.dtype} tensor of shape {list(draws.shape)}"
            if isinstance(draws, torch.Tensor)
            else type(draws).__name__
        )
        fail(
            f"{what}: the draws must be a 1-D int64 tensor of {outcome.en} ids, got {kind}",
            rule=rule(
                what,
                f"the draws are not a 1-D int64 tensor of {outcome.en} ids",
                f"抽样结果不是一维 int64 的{outcome.zh_word}编号张量",
            ),
            kind=Evidence.STRUCTURAL,
        )
    if check_range:
        expect_tokens_in_range(draws.unsqueeze(0), vocab_size, what=what, outcome=outcome)


def _indexed_in_range(
    lookup: Callable[[], _T], draws: torch.Tensor, vocab_size: int, *, what: str, outcome: Outcome
) -> _T:
    """``lookup()``, an indexing by ``draws`` (int64 ids, their type and shape already checked) that
    torch bounds-checks (gather, index_select, index_add_), failing as :func:`expect_tokens_in_range`
    does for an id outside ``[0, vocab_size)``.

    The range check is a pass of its own over the draws (1.28 million of them for exercise 39's
    mixed rows), and such a lookup checks every index anyway, raising for one out of range or
    negative (tests/judge/test_checks.py pins it): on the real torch the range check runs only once
    the lookup refused, to name the id as before. The browser's subset checks first, as it did.
    """
    if not _REAL_TORCH:
        expect_tokens_in_range(draws, vocab_size, what=what, outcome=outcome)
        return lookup()
    try:
        return lookup()
    except (IndexError, RuntimeError):
        expect_tokens_in_range(draws, vocab_size, what=what, outcome=outcome)  # fails, naming the id
        raise  # refused for another reason: what the lookup after a passed range check raised before


def _token_counts(draws: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """``torch.bincount(draws, minlength=vocab_size)`` of 1-D int64 ids: int64 ``[vocab_size]``. On
    the real torch by ``index_add_``, which refuses an id outside ``[0, vocab_size)`` where bincount
    would size its answer by the largest id (see :func:`_indexed_in_range`)."""
    if not _REAL_TORCH:
        return torch.bincount(draws, minlength=vocab_size)
    ones = torch.ones(1, dtype=torch.int64).expand(draws.shape[0])
    return torch.zeros(vocab_size, dtype=torch.int64).index_add_(0, draws, ones)


def _vocab_size(check: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise _misuse(check, "vocab_size", "an int >= 1 (the number of possible outcomes)", value)


def expect_tokens_in_range(draws: torch.Tensor, vocab_size: int, *, what: str, outcome: Any = "token") -> None:
    """Every draw is a valid id in ``[0, vocab_size)``.

    ``draws``: the learner's integer tensor ``[B, n]`` (``[n]`` is one row); ``outcome``: the
    noun for an outcome in the messages (``token``; see :class:`Outcome`). Raises
    :class:`CheckFailed` (WA) for an id out of range or draws that are not an integer tensor
    of one or two dimensions; :class:`CheckMisuse` for a bad ``vocab_size``, ``what`` or ``outcome``.
    """
    check = "expect_tokens_in_range"
    _vocab_size(check, vocab_size)
    _text(check, "what", what)
    noun = Outcome.of(check, outcome)
    if (
        not isinstance(draws, torch.Tensor)
        or draws.is_floating_point()
        or draws.dtype == torch.bool
        or draws.dim() not in (1, 2)
    ):
        fail(
            f"{what}: the draws must be an integer tensor of {noun.en} ids, got {_describe(draws)}",
            rule=rule(what, f"the draws are not a tensor of {noun.en} ids", f"抽样结果不是{noun.zh_word}编号张量"),
            kind=Evidence.STRUCTURAL,
        )
    if draws.dim() == 1:
        draws = draws.unsqueeze(0)
    # One pass (two for the dtypes aminmax lacks), no [B, n] temporaries: the mask is built only
    # to name the culprit.
    if draws.numel() and not _ids_within(draws, vocab_size):
        bad = (draws < 0) | (draws >= vocab_size)
        row, col = bad.nonzero()[0].tolist()
        fail(
            f"{what}: row {row} drew {noun.en} id {draws[row, col].item()}, outside {noun.range_en()} "
            f"[0, {vocab_size})",
            rule=rule(
                what,
                f"drew a {noun.en} id outside {noun.range_en()}",
                f"抽到了{noun.range_zh()}之外的{noun.zh_word}编号",
                row=row,
            ),
            kind=Evidence.STRUCTURAL,
        )


# torch's aminmax lacks the wider unsigned dtypes; the browser's subset lacks aminmax (and int8, int16, uint8).
_AMINMAX_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8) if _REAL_TORCH else ()


def _ids_within(draws: torch.Tensor, vocab_size: int) -> bool:
    """Whether every entry of the non-empty integer tensor ``draws`` lies in ``[0, vocab_size)``."""
    if draws.dtype in _AMINMAX_DTYPES:
        low, high = torch.aminmax(draws)
        return int(low) >= 0 and int(high) < vocab_size
    return int(draws.min()) >= 0 and int(draws.max()) < vocab_size


def expect_support(
    draws: torch.Tensor,
    probs: torch.Tensor,
    *,
    what: str,
    why_excluded: Callable[[int, int], str],
    row_labels: Sequence[str] | None = None,
    diagnosis: str | None = None,
    alternatives: Mistakes = None,
    outcome: Any = "token",
) -> None:
    """No draw may be an outcome whose target probability is exactly 0.

    ``draws``: the learner's int64 ``[B, n]``; ``probs``: floating ``[B, V]`` (only which entries
    are 0 matters; ``[V]`` is the target of every row, and then ``[n]`` draws are one row);
    ``why_excluded(row, outcome)`` says which rule excludes it. ``alternatives`` (diagnosis ->
    floating ``[B, V]``, or ``[V]`` with a ``[V]`` target; or a function returning that) name the
    mistake whose distribution explains the offending row; ``diagnosis`` names it outright. ``outcome``: the noun in the
    messages (see :class:`Outcome`). This check spends no budget: it cannot fail a correct sampler.

    Raises :class:`CheckFailed` (WA) for a draw of an excluded outcome, an id out of range, or
    draws of the wrong type or number of rows; :class:`CheckMisuse` for a malformed ``probs``,
    ``what``, ``why_excluded``, ``diagnosis``, ``alternatives`` or ``outcome``.
    """
    check = "expect_support"
    probs = _target(check, "probs", probs, dims=(1, 2), normalized=False)
    _text(check, "what", what)
    if not callable(why_excluded):
        raise _misuse(check, "why_excluded", "a function (row, outcome) -> str", why_excluded)
    _text(check, "diagnosis", diagnosis, optional=True)
    _mistakes_argument(check, "alternatives", alternatives)
    noun = Outcome.of(check, outcome)
    if probs.dim() == 1:
        if isinstance(draws, torch.Tensor) and draws.dim() == 1:
            draws = draws.unsqueeze(0)
        rows = draws.shape[0] if isinstance(draws, torch.Tensor) and draws.dim() == 2 else 1
        probs = probs.unsqueeze(0).expand(rows, probs.shape[0])
    if (
        not isinstance(draws, torch.Tensor)
        or draws.dtype != torch.int64
        or draws.dim() != 2
        or draws.shape[0] != probs.shape[0]
    ):
        got = (
            f"a {draws.dtype} tensor of shape {list(draws.shape)}"
            if isinstance(draws, torch.Tensor)
            else type(draws).__name__
        )
        fail(
            f"{what}: the draws must be an int64 tensor of {probs.shape[0]} rows, got {got}",
            rule=rule(what, "the draws have the wrong type or shape", "抽样结果的类型或形状不对"),
            kind=Evidence.STRUCTURAL,
        )
    allowed = probs > 0
    if _REAL_TORCH:  # gathered as bytes, not bools: the same values, in half the time for [8 000, 160] draws
        allowed = allowed.view(torch.uint8)
    drawn = _indexed_in_range(lambda: torch.gather(allowed, 1, draws), draws, probs.shape[-1], what=what, outcome=noun)
    drawn_ok = drawn.view(torch.bool) if drawn.dtype != torch.bool else drawn
    if _all_true(drawn_ok):
        return
    row = int((~drawn_ok).any(dim=1).nonzero()[0])
    tokens, counts = torch.unique(draws[row][~drawn_ok[row]], return_counts=True)
    worst = int(torch.argmax(counts))
    token, count = int(tokens[worst]), int(counts[worst])
    others = len(tokens) - 1
    more = f" (and {others} other excluded {noun.en if others == 1 else noun.plural})" if others else ""
    explaining: list[str] = []
    if alternatives is not None and diagnosis is None:
        observed = torch.bincount(draws[row], minlength=probs.shape[-1])
        # An alternative for a one-row target may be [V] like the target: the same row for every row.
        diagnosis, explaining = _alternatives(
            observed,
            {name: alt[row] if alt.dim() == 2 else alt for name, alt in _mistakes(alternatives).items()},
            truth=probs[row],
        )
    hint = f". This matches a known mistake: {diagnosis}" if diagnosis else ""
    fail(
        f"{what}: {_row_name(row_labels, row)}: {noun.en} {token} was drawn {count} of {draws.shape[1]} times"
        f"{more}; {why_excluded(row, token)}, so it must never be drawn{hint}",
        diagnosis=diagnosis,
        rule=rule(
            what,
            f"drew a {noun.en} that must never be drawn",
            f"抽到了不应被抽到的{noun.zh_word}".rstrip(),
            row=row,
            labels=row_labels,
        ),
        kind=Evidence.VALUE,
        explained_by=explaining if diagnosis is None else (),
    )


def _one_row(check: str, probs: Any, argument: str = "probs") -> torch.Tensor:
    """A one-row target: floating ``[V]`` (``[1, V]`` is accepted as that row), >= 0, summing to 1."""
    probs = _target(check, argument, probs, dims=(1, 2))
    if probs.dim() == 2:
        if probs.shape[0] != 1:
            raise _misuse(
                check,
                argument,
                "the target of one row: a floating tensor of shape [V] (or [1, V]); call the check once per row",
                probs,
            )
        probs = probs[0]
    return probs


def expect_distribution(
    ctx: Context,
    draws: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    alternatives: Mistakes = None,
    public: str | None = None,
    outcome: Any = "token",
) -> stats.GTestResult:
    """Goodness of fit of one row's draws to its target distribution (pooled G-test, Williams).

    ``draws``: the learner's int64 ``[n]``, already checked against the support (an excluded
    outcome drawn here raises ``ValueError`` naming the category: check the support first);
    ``probs``: floating ``[V]`` summing to 1 (``[1, V]`` is that row). ``alternatives`` maps a
    known mistake to the ``[V]`` distribution it would draw from (or is a function returning
    that mapping); when the target is rejected, the best-fitting alternative (if it fits at
    p >= ``DIAGNOSIS_MIN_PVALUE``) is the diagnosis. ``public`` names the row without its values
    (a Bilingual) for the failure's rule; ``label`` by default. ``outcome``: the noun in the
    messages (see :class:`Outcome`). Spends one ``fit`` check of the budget.

    Raises :class:`CheckFailed` (WA) when the draws do not fit or are not a 1-D int64 tensor of
    ids in range; :class:`CheckMisuse` for a malformed ``ctx``, ``probs``, ``label``, ``public``,
    ``alternatives`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the suite's ``BUDGET``.
    """
    check = "expect_distribution"
    _context(check, ctx)
    probs = _one_row(check, probs)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    _mistakes_argument(check, "alternatives", alternatives)
    noun = Outcome.of(check, outcome)
    _expect_token_ids(draws, probs.shape[0], what=label, outcome=noun, check_range=False)
    counts = _indexed_in_range(
        lambda: _token_counts(draws, probs.shape[0]), draws, probs.shape[0], what=label, outcome=noun
    )
    result = _g_test(counts, probs)
    alpha = ctx.budget.spend("fit")
    passed = result.pvalue >= alpha
    record = CheckRecord("fit", label, result.statistic, result.pvalue, alpha, passed, result.df)
    ctx.records.append(record)
    ctx.fit_statistics.append((result.statistic, result.df, result.log_atom))
    if passed:
        return result
    if ctx.visible:  # the counts of a hidden case are never drawn (docs/report.md)
        record.figure = figures.distribution_figure(
            counts.tolist(), probs.tolist(), outcome=noun.en, outcome_zh=noun.zh
        )
    diagnosis, explaining = _alternatives(counts, _mistakes(alternatives), truth=probs)
    where = _largest_gap(counts, probs, noun)
    message = (
        f"{label}: your draws do not follow the target distribution "
        f"(G = {result.statistic:.1f} on {result.df} degrees of freedom, p = {result.pvalue:.3g}, "
        f"threshold {alpha:.3g}){where}"
    )
    if diagnosis:
        message += f". They fit a known mistake instead: {diagnosis}"
    raise CheckFailed(
        message,
        statistic=result.statistic,
        p_value=result.pvalue,
        diagnosis=diagnosis,
        rule=rule(public or label, "the draws do not follow the target distribution", "抽样结果不服从目标分布"),
        kind=Evidence.VALUE,
        explained_by=explaining if diagnosis is None else (),
    )


def _g_test(counts: torch.Tensor, probs: torch.Tensor) -> stats.GTestResult:
    """:func:`judge.checks.stats.g_test` of integer counts ``[V]`` (from ``torch.bincount``) against a
    floating target ``[V]``: :mod:`judge.checks.stats_torch` on the server, the pure core in the browser.
    Raises ValueError as ``g_test`` does (a draw of an excluded outcome names it)."""
    if stats_torch is not None:
        return stats_torch.g_test_counts(counts, probs)
    # Outcomes the target excludes (and the support check kept out of the draws) change neither G
    # nor its degrees of freedom: g_test leaves them out of every bin. Dropping them first spares
    # a pass over tens of thousands of zeros when top-k or top-p leaves a few hundred tokens.
    possible = probs > 0
    if not bool((counts[~possible] == 0).all()):
        return stats.g_test(counts.tolist(), probs.tolist())  # raises: a draw of an excluded outcome
    result = stats.g_test(counts[possible].tolist(), probs[possible].tolist())
    if result.largest_deviation is None:
        return result
    kept = [index for index, keep in enumerate(possible.tolist()) if keep]  # back to the outcome's own id
    category = kept[result.largest_deviation.category]
    return replace(result, largest_deviation=replace(result.largest_deviation, category=category))


def _largest_gap(counts: torch.Tensor, probs: torch.Tensor, outcome: Outcome = TOKEN) -> str:
    """The outcome whose count is furthest from its expectation, in draws (not z: rare ones mislead).
    ``counts``: integer ``[V]``; ``probs``: floating ``[V]``."""
    n = int(counts.sum())
    if stats_torch is not None:
        token = stats_torch.largest_gap(counts, probs)
    else:
        observed, target = counts.tolist(), probs.tolist()
        token = max(range(len(target)), key=lambda i: abs(observed[i] - n * target[i]))
    return (
        f"; the largest gap is {outcome.en} {token}: drawn {int(counts[token])} times, "
        f"expected {n * float(probs[token]):.1f}"
    )


def best_alternative(
    observed: torch.Tensor | Sequence[int],
    alternatives: Mapping[str, torch.Tensor],
    *,
    truth: torch.Tensor | None = None,
) -> str | None:
    """The known mistake whose distribution (floating ``[V]``) the counts ``observed`` (an integer
    ``[V]`` tensor, as ``torch.bincount`` gives, or a list of ``V`` ints) name, or None.

    A mistake is named only on its own evidence (:func:`judge.checks.evidence.decisive_mistake`): it
    fits the counts on its own (pooled G-test, p >= ``DIAGNOSIS_MIN_PVALUE``; a mistake that cannot
    draw an observed outcome is out), and its likelihood of the counts is at least
    ``DIAGNOSIS_LIKELIHOOD_RATIO`` times that of every other listed mistake and of ``truth`` (the
    target, floating ``[V]``, when given). Two mistakes that coincide on this row (their
    distributions equal) name none. Raises :class:`CheckMisuse` when ``alternatives`` is not a
    mapping, or an alternative or ``truth`` is not a ``[V]`` tensor."""
    return _alternatives(observed, alternatives, truth=truth)[0]


def explaining_alternatives(
    observed: torch.Tensor | Sequence[int],
    alternatives: Mapping[str, torch.Tensor],
    *,
    truth: torch.Tensor | None = None,
) -> list[str]:
    """The known mistakes that explain the counts ``observed``, named or not: each fits them on its
    own (as in :func:`best_alternative`) and, when ``truth`` is given, is ``DIAGNOSIS_LIKELIHOOD_RATIO``
    times likelier than it. Several, and :func:`best_alternative` names none: they coincide on this
    row, and no other mistake (a fallback) should be named either. Arguments and misuse as for
    :func:`best_alternative`."""
    return _alternatives(observed, alternatives, truth=truth)[1]


def _alternatives(
    observed: torch.Tensor | Sequence[int], alternatives: Mapping[str, torch.Tensor], *, truth: torch.Tensor | None
) -> tuple[str | None, list[str]]:
    """:func:`best_alternative` and :func:`explaining_alternatives` at once."""
    if not isinstance(alternatives, Mapping):
        raise _misuse("best_alternative", "alternatives", "a mapping diagnosis -> floating [V] tensor", alternatives)
    counts = observed if isinstance(observed, torch.Tensor) else torch.tensor(list(observed), dtype=torch.int64)
    width = counts.shape[0]
    for name, probs in [*alternatives.items(), *([] if truth is None else [("truth", truth)])]:
        if not isinstance(probs, torch.Tensor) or probs.dim() != 1 or probs.shape[0] != width:
            raise _misuse(
                "best_alternative",
                "truth" if name == "truth" and truth is probs else f"alternatives[{name!r}]",
                f"a floating tensor of shape [{width}] (the row's distribution under that mistake)",
                probs,
            )
    drawn = counts > 0
    listed = counts.tolist()
    scores: dict[str, float] = {}
    plausible: list[str] = []
    for name, probs in alternatives.items():
        scores[name] = multinomial_log_likelihood(listed, probs.to(torch.float64).tolist())
        if bool((drawn & (probs == 0)).any()):
            continue  # the mistake could not have drawn these outcomes
        if _g_test(counts, probs).pvalue >= DIAGNOSIS_MIN_PVALUE:
            plausible.append(name)
    target = -math.inf if truth is None else multinomial_log_likelihood(listed, truth.to(torch.float64).tolist())
    explaining = [name for name in plausible if scores[name] - target >= math.log(DIAGNOSIS_LIKELIHOOD_RATIO)]
    return decisive_mistake(scores, target, candidates=plausible), explaining


ROWS_SHARE_DIAGNOSIS = Bilingual("the rows share the same random numbers", "各行共用了同一组随机数")
SORTED_DIAGNOSIS = Bilingual(
    "the draws of a row come out sorted: each draw must be independent of its neighbours, in the order drawn",
    "同一行的抽样结果被排了序：每次抽样都必须与相邻的抽样相互独立，并保持抽出的顺序",
)
REPEATED_DIAGNOSIS = Bilingual(
    "consecutive draws of a row repeat each other (one random number serves several draws)",
    "同一行中相邻的抽样结果互相重复（一个随机数被用于多次抽样）",
)
DEPENDENT_DIAGNOSIS = Bilingual(
    "consecutive draws of a row depend on each other (for example antithetic pairs u and 1 - u): "
    "every draw needs its own independent random number",
    "同一行中相邻的抽样结果相互依赖（例如成对使用 u 与 1 - u）：每次抽样都需要自己独立的随机数",
)
PAIR_GROUPS = 16  # tokens are grouped into at most this many classes before pairs are counted
ORDERED_SHARE = 0.99  # a row whose neighbours are in order this often was sorted, not drawn


def ordered_share(draws: torch.Tensor, probs: torch.Tensor) -> float:
    """How often neighbours of a row of draws are in order (by token id or by probability, either
    way): about 0.5-0.8 for independent draws, 1.0 for a sorted row. ``draws``: int64 ``[n]``."""
    if draws.numel() < 2:
        return 0.0
    order = torch.argsort(probs.to(torch.float64), descending=True, stable=True)
    rank_of = torch.empty(probs.shape[0], dtype=torch.int64)
    rank_of[order] = torch.arange(probs.shape[0])
    rank = rank_of[draws]
    shares = []
    for values in (draws, rank):
        step = values[1:] - values[:-1]
        shares += [float((step >= 0).double().mean()), float((step <= 0).double().mean())]
    return max(shares)


def _dependence_diagnosis(draws: torch.Tensor, probs: torch.Tensor) -> Bilingual:
    """Which dependence of consecutive draws explains ``draws`` (int64 ``[m, n]``, each row in the
    order drawn; target ``probs`` ``[V]``): sorted rows, neighbours that repeat, or another."""
    if ordered_share(draws.reshape(-1), probs) >= ORDERED_SHARE:
        return SORTED_DIAGNOSIS
    half = draws.shape[1] // 2
    first, second = draws[:, 0 : 2 * half : 2], draws[:, 1 : 2 * half : 2]
    agree = float((first == second).double().mean()) if first.numel() else 0.0
    if agree > 2 * float((probs.to(torch.float64) ** 2).sum()) + 0.05:
        return REPEATED_DIAGNOSIS
    return DEPENDENT_DIAGNOSIS


def token_groups(probs: torch.Tensor, groups: int = PAIR_GROUPS) -> torch.Tensor:
    """Map each token to a class: the ``groups - 1`` most probable tokens alone, the rest together
    (tokens of probability 0 join the rest). Returns int64 ``[V]`` of class indices."""
    order = torch.argsort(probs.to(torch.float64), descending=True, stable=True)
    group_of = torch.full((probs.shape[0],), groups - 1, dtype=torch.int64)
    alone = order[: groups - 1]
    alone = alone[probs[alone] > 0]
    group_of[alone] = torch.arange(alone.numel())
    return group_of


def expect_independent_within_row(
    ctx: Context,
    draws: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    public: str | None = None,
    outcome: Any = "token",
) -> stats.GTestResult:
    """The draws of one row must be independent of each other, at every distance: three sets of
    disjoint pairs (:mod:`judge.checks.pairings`) are each tested against the product distribution p x p
    (pooled G-test over classes of outcomes): consecutive draws (1, 2), (3, 4), ...; draws half a
    row apart (j, j + n/2); mirrored draws (j, n - 1 - j).

    Catches antithetic pairs, repeated draws, sorted rows, a second half that reuses the first
    half's random numbers and draws read from both ends of one set of random numbers. ``draws``:
    the learner's int64 ``[n]`` (n >= 2), already checked against the support, or ``[m, n]``: m
    rows of this one target from one call, each paired within itself and the pairs pooled (so a
    dependence at the rows' own distances is found); ``probs``: floating ``[V]`` summing to 1
    (``[1, V]`` is that row). Spends one ``pairs`` check, its level split evenly over the pairings
    (Bonferroni: a row of n >= 4 draws has three, n = 3 two, n = 2 one). Returns the result of the
    pairing with the smallest p-value, that p-value multiplied by the number of pairings (capped
    at 1), so it compares with the check's level. Its diagnosis: ``SORTED_DIAGNOSIS`` (the row
    comes out sorted) whatever pairing failed; for consecutive draws ``REPEATED_DIAGNOSIS``
    (neighbours repeat each other) or ``DEPENDENT_DIAGNOSIS``; ``HALF_APART_DIAGNOSIS`` and
    ``MIRRORED_DIAGNOSIS`` for the others, each only when its own pairing is the one that failed
    (the one with the smallest p-value, the first in the order above on a tie).

    Raises :class:`CheckFailed` (WA) when draws depend on each other or are not a 1-D or 2-D
    int64 tensor of ids in range; :class:`CheckMisuse` for a malformed ``ctx``, ``probs``,
    ``label``, ``public`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the suite's
    ``BUDGET``.
    """
    check = "expect_independent_within_row"
    _context(check, ctx)
    probs = _one_row(check, probs)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    noun = Outcome.of(check, outcome)
    rows = draws if isinstance(draws, torch.Tensor) and draws.dim() == 2 else None
    flat = draws.reshape(-1) if rows is not None else draws
    _expect_token_ids(flat, probs.shape[-1], what=label, outcome=noun, check_range=False)
    if rows is None:
        rows = flat.unsqueeze(0)
    group_of = token_groups(probs)
    groups = int(group_of.max()) + 1
    group_probs = torch.zeros(groups, dtype=torch.float64).index_add_(0, group_of, probs.to(torch.float64))
    # group_of[draws], without advanced indexing's overhead
    classes = _indexed_in_range(
        lambda: group_of.index_select(0, flat), flat, probs.shape[-1], what=label, outcome=noun
    ).reshape(rows.shape)
    joint = torch.outer(group_probs, group_probs).reshape(-1)
    joint = joint / joint.sum()
    pairings = row_pairings(classes)
    tested = [(pairing, _g_test(pairing.joint_counts(groups), joint)) for pairing in pairings]
    # The most significant pairing; where p-values underflow alike, the first of them in order.
    pairing, result = min(tested, key=lambda tried: tried[1].pvalue)
    alpha = ctx.budget.spend("pairs")
    adjusted = replace(result, pvalue=min(1.0, result.pvalue * len(pairings)))
    passed = adjusted.pvalue >= alpha
    ctx.records.append(CheckRecord("pairs", label, adjusted.statistic, adjusted.pvalue, alpha, passed, adjusted.df))
    if passed:
        return adjusted
    if ordered_share(flat, probs) >= ORDERED_SHARE:
        diagnosis = SORTED_DIAGNOSIS
    else:
        diagnosis = pairing.diagnosis or _dependence_diagnosis(rows, probs)
    where = f" of each of the {rows.shape[0]} rows" if draws.dim() == 2 else ""
    raise CheckFailed(
        f"{label}: {pairing.noun} are not independent: the {result.n} pairs {pairing.pairs}{where} "
        f"do not follow the product of the target with itself "
        f"(G = {result.statistic:.1f} on {result.df} degrees of freedom, p = {result.pvalue:.3g}, "
        f"threshold {alpha / len(pairings):.3g})",
        statistic=result.statistic,
        p_value=result.pvalue,
        diagnosis=diagnosis,
        rule=rule(public or label, str(pairing.rule), pairing.rule.zh),
        kind=Evidence.VALUE,
    )


def expect_independent_rows(
    ctx: Context,
    first: torch.Tensor,
    second: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    public: str | None = None,
    outcome: Any = "token",
    diagnosis: str | None = None,
) -> stats.BinomialTailResult:
    """Two rows with the same target, drawn in one call, must not agree more than chance allows
    (exact binomial tail on the number of positions where they agree).

    ``diagnosis`` (a str or Bilingual) replaces the default diagnosis below, for outcomes that
    are not draws (counts per row, say, where "sorted" means nothing).

    Catches one uniform shared across rows. ``first``/``second``: the learner's int64 ``[n]``
    (the same n); ``probs``: floating ``[V]`` summing to 1, the target of both rows. Rows that
    agree because each is sorted are diagnosed as sorted (``SORTED_DIAGNOSIS``), else
    ``ROWS_SHARE_DIAGNOSIS``. Spends one ``independence`` check (fixed level 1e-8).

    Raises :class:`CheckFailed` (WA) when the rows agree too often, or the draws are not 1-D
    int64 tensors of ids in range of one length; :class:`CheckMisuse` for a malformed ``ctx``,
    ``probs``, ``label``, ``public`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the
    suite's ``BUDGET``.
    """
    check = "expect_independent_rows"
    _context(check, ctx)
    probs = _one_row(check, probs)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    _text(check, "diagnosis", diagnosis, optional=True)
    noun = Outcome.of(check, outcome)
    for draws in (first, second):
        _expect_token_ids(draws, probs.shape[-1], what=label, outcome=noun)
    if first.shape != second.shape:
        fail(
            f"{label}: the two rows hold {first.shape[0]} and {second.shape[0]} draws; they must hold as many",
            rule=rule(public or label, "the rows hold different numbers of draws", "各行的抽样次数不一致"),
            kind=Evidence.STRUCTURAL,
        )
    agreements = int((first == second).sum())
    p_agree = float((probs.to(torch.float64) ** 2).sum())
    result = stats.duplicate_agreement_test(agreements, first.shape[0], p_agree)
    alpha = ctx.budget.spend("independence")
    passed = result.pvalue >= alpha
    ctx.records.append(CheckRecord("independence", label, float(agreements), result.pvalue, alpha, passed))
    if not passed:
        sorted_rows = diagnosis is None and all(ordered_share(d, probs) >= ORDERED_SHARE for d in (first, second))
        raise CheckFailed(
            f"{label}: two rows with the same distribution agreed at {agreements} of {first.shape[0]} positions; "
            f"independent draws agree about {result.expected:.0f} times (p = {result.pvalue:.3g}). "
            + (
                f"This matches: {diagnosis}"
                if diagnosis
                else "Each row is sorted, so equal rows line up"
                if sorted_rows
                else "Each row needs its own random numbers"
            ),
            statistic=float(agreements),
            p_value=result.pvalue,
            diagnosis=diagnosis or (SORTED_DIAGNOSIS if sorted_rows else ROWS_SHARE_DIAGNOSIS),
            rule=rule(
                public or label,
                "two rows with the same distribution agree far too often",
                "两个分布相同的行一致的次数远超偶然",
            ),
            kind=Evidence.VALUE,
        )
    return result


def expect_independent_across_rows(
    ctx: Context,
    first: torch.Tensor,
    second: torch.Tensor,
    first_probs: torch.Tensor,
    second_probs: torch.Tensor,
    *,
    label: str,
    public: str | None = None,
    outcome: Any = "token",
) -> stats.GTestResult:
    """Two rows drawn in one call, with targets of their own, must be independent of each other:
    the pairs (draw j of the first row, draw j of the second) are tested against the product of
    their targets ``p_r x p_s`` (pooled G-test over classes of outcomes, as
    :func:`expect_independent_within_row`).

    Catches rows that share random numbers although their targets differ (one uniform per draw
    for the whole batch, fed to each row's inverse CDF), which :func:`expect_independent_rows`
    (duplicated rows only) cannot see. ``first``/``second``: the learner's int64 ``[n]`` of one
    length, or ``[m, n]`` of one shape (m pairs of rows, paired position by position), already
    checked against the support; ``first_probs``/``second_probs``: each row's floating ``[V]``
    target summing to 1 (``[1, V]`` is that row; the two may differ in ``V``). Spends one
    ``pairs`` check. Diagnosis: ``SORTED_DIAGNOSIS`` when both rows come out sorted, else
    ``ROWS_SHARE_DIAGNOSIS``. Returns the test's result.

    Raises :class:`CheckFailed` (WA) when the rows depend on each other, or the draws are not
    int64 tensors of ids in range of one shape; :class:`CheckMisuse` for a malformed ``ctx``,
    target, ``label``, ``public`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the
    suite's ``BUDGET``.
    """
    check = "expect_independent_across_rows"
    _context(check, ctx)
    targets = (_one_row(check, first_probs, "first_probs"), _one_row(check, second_probs, "second_probs"))
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    noun = Outcome.of(check, outcome)
    flats = []
    for draws, probs in zip((first, second), targets, strict=True):
        flat = draws.reshape(-1) if isinstance(draws, torch.Tensor) and draws.dim() == 2 else draws
        _expect_token_ids(flat, probs.shape[0], what=label, outcome=noun, check_range=False)
        flats.append(flat)
    if first.shape != second.shape:
        fail(
            f"{label}: the two rows hold {list(first.shape)} and {list(second.shape)} draws; they must hold as many",
            rule=rule(public or label, "the rows hold different numbers of draws", "各行的抽样次数不一致"),
        )
    classes, marginals = [], []
    for flat, probs in zip(flats, targets, strict=True):
        group_of = token_groups(probs)
        groups = int(group_of.max()) + 1
        marginals.append(torch.zeros(groups, dtype=torch.float64).index_add_(0, group_of, probs.to(torch.float64)))
        classes.append(
            _indexed_in_range(
                functools.partial(torch.index_select, group_of, 0, flat),
                flat,
                probs.shape[0],
                what=label,
                outcome=noun,
            )
        )
    columns = marginals[1].shape[0]
    observed = torch.bincount(classes[0] * columns + classes[1], minlength=marginals[0].shape[0] * columns)
    joint = torch.outer(marginals[0], marginals[1]).reshape(-1)
    result = _g_test(observed, joint / joint.sum())
    alpha = ctx.budget.spend("pairs")
    passed = result.pvalue >= alpha
    ctx.records.append(CheckRecord("pairs", label, result.statistic, result.pvalue, alpha, passed, result.df))
    if passed:
        return result
    sorted_rows = all(ordered_share(flat, probs) >= ORDERED_SHARE for flat, probs in zip(flats, targets, strict=True))
    raise CheckFailed(
        f"{label}: the two rows are not independent of each other: the {result.n} pairs (draw j of the "
        f"first row, draw j of the second) do not follow the product of their targets "
        f"(G = {result.statistic:.1f} on {result.df} degrees of freedom, p = {result.pvalue:.3g}, "
        f"threshold {alpha:.3g}). "
        + ("Each row is sorted, so the rows rise together" if sorted_rows else "Each row needs its own random numbers"),
        statistic=result.statistic,
        p_value=result.pvalue,
        diagnosis=SORTED_DIAGNOSIS if sorted_rows else ROWS_SHARE_DIAGNOSIS,
        rule=rule(public or label, "two rows are not independent of each other", "两行的抽样结果彼此不独立"),
    )


def expect_different_under_seeds(
    ctx: Context,
    first: torch.Tensor,
    second: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    how: str = "two different generator seeds",
    cause: str = "Your code seems to ignore `generator`, or to re-seed torch itself",
    diagnosis: str = SEEDS_DIAGNOSIS,
) -> float:
    """Outputs drawn under two different seeds (``how``) must differ.

    ``first``/``second``: the learner's integer draws ``[B, n]`` (``[n]`` is one row), of one
    shape; ``probs``: floating ``[B, V]``, the target of each row (``[V]``: every row's target).
    The chance that a correct sampler gives identical output is computed exactly and must be
    below the check's alpha (else the case is too small: an exercise bug, raised as
    ``RuntimeError``). Spends one ``seeds`` check (fixed level 1e-12). On failure the message is
    ``"{label}: {how} gave exactly the same N draws (...). {cause}"`` and the diagnosis
    ``diagnosis`` (``SEEDS_DIAGNOSIS`` by default). Returns that chance.

    Raises :class:`CheckFailed` (WA) when the draws are equal, or are not integer tensors of one
    shape with as many rows as ``probs``; :class:`CheckMisuse` for a malformed ``ctx``, ``probs``,
    ``label``, ``how``, ``cause`` or ``diagnosis``.
    """
    check = "expect_different_under_seeds"
    _context(check, ctx)
    probs = _target(check, "probs", probs, dims=(1, 2), normalized=False)
    for argument, value in (("label", label), ("how", how), ("cause", cause), ("diagnosis", diagnosis)):
        _text(check, argument, value)
    for draws in (first, second):
        if not isinstance(draws, torch.Tensor) or draws.dim() not in (1, 2) or draws.is_floating_point():
            fail(
                f"{label}: the draws must be a [rows, num_samples] tensor of ids, got {_describe(draws)}",
                rule=rule(label, "the draws have the wrong shape", "抽样结果的形状不对"),
                kind=Evidence.STRUCTURAL,
            )
    first, second = (d.unsqueeze(0) if d.dim() == 1 else d for d in (first, second))
    if probs.dim() == 1:
        probs = probs.unsqueeze(0).expand(first.shape[0], probs.shape[0])
    if first.shape != second.shape or first.shape[0] != probs.shape[0]:
        fail(
            f"{label}: the two calls returned draws of shapes {list(first.shape)} and {list(second.shape)}; "
            f"both must be [{probs.shape[0]}, num_samples]",
            rule=rule(label, "the draws have the wrong shape", "抽样结果的形状不对"),
            kind=Evidence.STRUCTURAL,
        )
    chance = identical_draws_probability(probs, first.shape[1])
    alpha = ctx.budget.spend("seeds")
    if chance > alpha:
        raise RuntimeError(f"{label}: a correct sampler repeats itself with probability {chance:.3g}; enlarge the case")
    same = bool(torch.equal(first, second))
    ctx.records.append(CheckRecord("seeds", label, float(same), chance if same else 1.0, alpha, not same))
    if same:
        raise CheckFailed(
            f"{label}: {how} gave exactly the same {first.numel()} draws "
            f"(a correct sampler does that with probability {chance:.3g}). {cause}",
            p_value=chance,
            diagnosis=diagnosis,
            rule=rule(label, f"{how} gave the same draws", "两个不同的种子给出了相同的抽样结果"),
            kind=Evidence.VALUE,
        )
    return chance


def identical_draws_probability(probs: torch.Tensor, n: int) -> float:
    """:func:`judge.checks.stats.identical_draws_probability` for float64 ``[B, V]`` targets, in torch (one
    pass over many rows, where the pure-Python version walks every value; a test keeps them equal)."""
    collision = (probs.to(torch.float64) ** 2).sum(dim=-1)
    return math.exp(min(0.0, n * float(torch.log(collision).sum()))) if n else 1.0


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


# --- the recurring blocks: the generator/seed contract and tables of bad inputs ---------------------

DEFAULT_GENERATOR_DIAGNOSIS = Bilingual(
    "with generator=None the draws do not come from torch's default generator (a private generator, "
    "a fixed seed, or another source of randomness)",
    "generator=None 时抽样没有使用 torch 的默认生成器（用了私有生成器、固定种子或其他随机源）",
)


def expect_seed_contract(
    sub: Any,
    ctx: Context,
    draw: Callable[[Any, Any], torch.Tensor],
    probs: torch.Tensor,
    *,
    label: str,
    default_generator: bool = True,
) -> None:
    """The generator contract of a sampling function, in one call:

    1. two calls with generators of the same seed give the same draws (else ``SEEDS_DIAGNOSIS``);
    2. a generator of another seed gives other draws (:func:`expect_different_under_seeds`);
    3. with ``default_generator``: with ``generator=None``, two calls after the same
       ``torch.manual_seed`` give the same draws, and two different ``torch.manual_seed`` values
       other draws (else ``DEFAULT_GENERATOR_DIAGNOSIS``).

    ``draw(source, generator)`` makes one call and returns its draws, checked: it calls the
    learner's function through ``source`` (``sub`` itself, or ``sub.with_global_seed(...)``),
    passing ``generator`` as the function's generator argument (``None``: the default one), and
    returns ``expect_tensor(...)``'s tensor, integer ``[B, n]`` or ``[n]``. ``probs``: floating
    ``[B, V]`` (or ``[V]``) targets, used for the exact chance that a correct sampler repeats
    itself, which must be below 1e-12 (else ``RuntimeError``: draw more). Spends 2 ``seeds``
    checks (1 without ``default_generator``): declare them in the suite's ``BUDGET``.

    Raises :class:`CheckFailed` (WA) when the contract is broken; :class:`CheckMisuse` for a
    malformed argument, or when ``draw`` returns something else than a tensor.
    """
    check = "expect_seed_contract"
    _context(check, ctx)
    if not callable(draw):
        raise _misuse(check, "draw", "a function (source, generator) -> the checked draws", draw)
    for method in ("with_global_seed",):
        if not hasattr(sub, method):
            raise _misuse(check, "sub", "the test's Submission (the first argument of the test function)", sub)
    _target(check, "probs", probs, dims=(1, 2), normalized=False)
    _text(check, "label", label)

    def drawn(source: Any, generator: Any) -> torch.Tensor:
        value = draw(source, generator)
        if not isinstance(value, torch.Tensor):
            raise _misuse(
                check,
                "draw",
                "a function returning the draws as a tensor (check the learner's value "
                "with expect_tensor and return it)",
                value,
            )
        return value

    seed = ctx.fresh_seed(f"{label}: same seed")
    first = drawn(sub, ctx.generator(seed))
    expect(
        torch.equal(first, drawn(sub, ctx.generator(seed))),
        f"{label}: two calls with generators seeded alike returned different draws: every random number "
        "must come from `generator`",
        diagnosis=SEEDS_DIAGNOSIS,
        rule=rule(label, "generators seeded alike gave different draws", "种子相同的生成器给出了不同的抽样结果"),
        kind=Evidence.VALUE,
    )
    expect_different_under_seeds(
        ctx, first, drawn(sub, ctx.generator()), probs, label=f"{label}, two different generator seeds"
    )
    if not default_generator:
        return
    seeded = sub.with_global_seed(ctx.fresh_seed(f"{label}: global seed"))
    first = drawn(seeded, None)
    expect(
        torch.equal(first, drawn(seeded, None)),
        f"{label}: with generator=None, two calls after the same torch.manual_seed returned different draws: "
        "without a generator, use torch's default generator",
        diagnosis=DEFAULT_GENERATOR_DIAGNOSIS,
        rule=rule(
            label, "the same torch.manual_seed gave different draws", "相同的 torch.manual_seed 给出了不同的抽样结果"
        ),
        kind=Evidence.VALUE,
    )
    expect_different_under_seeds(
        ctx,
        first,
        drawn(sub.with_global_seed(ctx.fresh_seed(f"{label}: other global")), None),
        probs,
        label=f"{label} with generator=None",
        how="two different torch.manual_seed values",
        cause="Without a generator, draw from torch's default generator (what "
        "torch.manual_seed seeds), not from a generator or seed of your own",
        diagnosis=DEFAULT_GENERATOR_DIAGNOSIS,
    )


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


# The lower tail is trusted only at levels this far below the most likely single outcome.
LATTICE_MARGIN = 1e-3


def too_regular(
    fit_statistics: Sequence[tuple[float, int, float]], alpha: float
) -> tuple[stats.LowerTailResult, str | None]:
    """Lower-tail test over the fit statistics ``(statistic, df, log_atom)`` of one case (see
    :func:`judge.checks.stats.too_regular_test`); returns it and, when the case is declined, why.

    Declined when the most likely joint outcome of the case's counts has a probability above
    ``alpha * LATTICE_MARGIN``: the statistic is then too discrete (few categories, small or
    lattice expected counts) for its continuous lower tail to hold the level ``alpha``, and
    a correct sampler that lands on its rounded expectation would be called too regular.
    """
    result = stats.too_regular_test(
        [f[0] for f in fit_statistics], [f[1] for f in fit_statistics], [f[2] for f in fit_statistics]
    )
    if result.log_atom is not None and result.log_atom > math.log(alpha * LATTICE_MARGIN):
        return result, (
            f"not tested: the counts of its {len(fit_statistics)} distribution check"
            f"{'s' if len(fit_statistics) != 1 else ''} take so few values that one exact outcome has "
            f"probability about {math.exp(result.log_atom):.2g}, above what the {alpha:.2g} level allows"
        )
    return result, None


def _row_name(labels: Sequence[str] | None, row: int) -> str:
    if labels and row < len(labels):
        return f"row {row} ({labels[row]})"
    return f"row {row}"


# --- estimators: error bars that cover as often as they claim, estimates that are right on average ----

# Known mistakes of an estimator: diagnosis -> {z: coverage of +- z errors} (calibration) or
# diagnosis -> its expected value (unbiasedness); a callable is evaluated only on failure.
CoverageMistakes = Mapping[str, Mapping[float, float]] | Callable[[], Mapping[str, Mapping[float, float]]] | None
BiasMistakes = Mapping[str, float] | Callable[[], Mapping[str, float]] | None

NARROW_DIAGNOSIS = Bilingual(
    "the error bars are too narrow (over-confident): the standard error is too small",
    "误差条太窄（过于自信）：标准误偏小",
)
WIDE_DIAGNOSIS = Bilingual(
    "the error bars are needlessly wide: the standard error is too large",
    "误差条无谓地宽：标准误偏大",
)
BIASED_DIAGNOSIS = Bilingual(
    "the estimator is biased: on average it misses the true value",
    "估计量有偏：平均而言偏离真值",
)


def _learner_floats(value: Any, *, name: str, label: str, public: str | None, length: int | None = None) -> list[float]:
    """The learner's ``[m]`` floating tensor as a list of floats; fails (WA) for anything else,
    for NaN or infinite values, and for a length other than ``length`` (when given)."""
    title = public or label
    if not isinstance(value, torch.Tensor) or value.dim() != 1 or not value.is_floating_point():
        fail(
            f"{label}: {name} must be a 1-D floating tensor, got {_describe(value)}",
            rule=rule(title, f"{name} is not a 1-D floating tensor", f"{name} 不是一维浮点张量"),
            kind=Evidence.STRUCTURAL,
        )
    if length is not None and value.shape[0] != length:
        fail(
            f"{label}: {name} holds {value.shape[0]} values, expected {length}",
            rule=rule(title, f"{name} has the wrong length", f"{name} 的长度不对"),
            kind=Evidence.STRUCTURAL,
        )
    values = value.to(torch.float64).tolist()
    bad = next((i for i, v in enumerate(values) if not math.isfinite(v)), None)
    if bad is not None:
        fail(
            f"{label}: {name}[{bad}] is {values[bad]}; every value must be finite",
            rule=rule(title, f"{name} holds NaN or infinity", f"{name} 含有 NaN 或无穷大"),
            kind=Evidence.STRUCTURAL,
        )
    return values


def _coverage_argument(check: str, coverage: Any) -> dict[float, tuple[float, float]]:
    """``coverage`` as ``{z: (low, high)}``; raises :class:`CheckMisuse` for anything malformed."""
    if not isinstance(coverage, Mapping) or not coverage:
        raise _misuse(check, "coverage", "a non-empty mapping z -> coverage, each z a finite number > 0", coverage)
    out: dict[float, tuple[float, float]] = {}
    for z, value in coverage.items():
        if isinstance(z, bool) or not isinstance(z, numbers.Real) or not math.isfinite(z) or z <= 0:
            raise _misuse(check, "coverage", "a mapping whose keys z are finite numbers > 0", coverage)
        pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
        numeric = len(pair) == 2 and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in pair)
        if not numeric or not 0.0 <= float(pair[0]) <= float(pair[1]) <= 1.0:
            raise _misuse(
                check,
                f"coverage[{z!r}]",
                "a probability in [0, 1], or a pair (low, high) with 0 <= low <= high <= 1",
                value,
            )
        out[float(z)] = (float(pair[0]), float(pair[1]))
    return out


def implied_scale(covered: int, n: int, z: float) -> float:
    """How many times larger the real spread is than the claimed standard errors, read off the
    share of intervals of +- ``z`` errors that covered (normal model): ``z / q`` with ``q`` the
    normal quantile of ``(1 + share) / 2``; ``inf`` when none covered, 0 when all did."""
    if covered == 0:
        return math.inf
    if covered == n:
        return 0.0
    return z / stats.normal_quantile(0.5 + 0.5 * covered / n)


def _coverage_log_likelihood(
    counts: Mapping[float, int], n: int, coverage: Mapping[float, tuple[float, float]]
) -> float:
    """Sum over z of the binomial log-likelihood of the counts, at the coverage in ``[low, high]``
    nearest the observed share (the best member of a composite hypothesis)."""
    total = 0.0
    for z, covered in counts.items():
        low, high = coverage[z]
        total += stats.binom_log_pmf(covered, n, min(max(covered / n, low), high))
    return total


def _best_coverage_mistake(
    counts: Mapping[float, int], n: int, correct: Mapping[float, tuple[float, float]], mistakes: CoverageMistakes
) -> str | None:
    """The known mistake whose coverage the counts name: each count plausible under it (two-sided
    p >= ``DIAGNOSIS_MIN_PVALUE``), and its likelihood of the counts at least
    ``DIAGNOSIS_LIKELIHOOD_RATIO`` times that of the correct coverage and of every other listed
    mistake (:func:`judge.checks.evidence.decisive_mistake`). Raises :class:`CheckMisuse` for a malformed
    mapping."""
    options = _mistakes(mistakes)
    if not isinstance(options, Mapping):
        raise _misuse("expect_calibrated", "mistakes", "a mapping diagnosis -> {z: coverage}", options)
    scores: dict[str, float] = {}
    plausible: list[str] = []
    for name, table in options.items():
        if not isinstance(table, Mapping) or set(map(float, table)) != set(counts):
            raise _misuse(
                "expect_calibrated",
                f"mistakes[{name!r}]",
                f"a mapping with the same z as coverage {sorted(counts)}",
                table,
            )
        # A coverage summed in floating point may land a hair outside [0, 1]: clamp it.
        pairs = {float(z): (min(max(float(c), 0.0), 1.0),) * 2 for z, c in table.items()}
        scores[name] = _coverage_log_likelihood(counts, n, pairs)
        if all(stats.coverage_test(counts[z], n, *pairs[z]).pvalue >= DIAGNOSIS_MIN_PVALUE for z in counts):
            plausible.append(name)
    return decisive_mistake(scores, _coverage_log_likelihood(counts, n, correct), candidates=plausible)


def expect_calibrated(
    ctx: Context,
    estimates: torch.Tensor,
    errors: torch.Tensor,
    truth: float | torch.Tensor,
    *,
    label: str,
    coverage: Mapping[float, float | tuple[float, float]],
    public: str | None = None,
    mistakes: CoverageMistakes = None,
) -> dict[float, stats.CoverageTestResult]:
    """Error bars judged by what they promise: intervals ``estimate +- z * error`` must cover the
    true value as often as a correct procedure's do, no more and no less.

    ``estimates``, ``errors``: the learner's floating ``[m]`` tensors (m independent estimates and
    their standard errors; errors finite and ``>= 0``). ``truth``: a number, or a floating ``[m]``
    tensor (each estimate's own true value). ``coverage``: ``{z: c}``, for each multiplier ``z``
    to test, the probability ``c`` that a *correct* procedure's interval covers: a float when it is
    known exactly (compute it in the test: for a proportion's Wald interval, sum the binomial pmf
    over the outcomes whose interval covers), or ``(low, high)`` when it is only bounded. Each z
    gets an exact two-sided binomial test (:func:`judge.checks.stats.coverage_test`) at ``alpha /
    len(coverage)``, where ``alpha`` is one ``calibration`` unit of the budget; testing two z
    (say 1 and 2) catches errors that are too small *and* errors that are too large.
    ``mistakes``: ``{diagnosis: {z: coverage of that mistake}}`` (or a function returning it):
    the diagnosis is the mistake that explains the counts best, when it explains them better than
    the correct coverage; otherwise the failure is diagnosed generically as too narrow or too
    wide. Returns the result per z.

    Raises :class:`CheckFailed` (WA) when a count is rejected, or the learner's values are not
    finite 1-D floating tensors of one length (errors ``>= 0``); :class:`CheckMisuse` for a
    malformed ``ctx``, ``truth``, ``coverage``, ``label``, ``public`` or ``mistakes``;
    :class:`~judge.checks.budget.BudgetExceeded` past the suite's ``BUDGET``.
    """
    check = "expect_calibrated"
    _context(check, ctx)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    levels = _coverage_argument(check, coverage)
    if mistakes is not None and not callable(mistakes) and not isinstance(mistakes, Mapping):
        raise _misuse(
            check, "mistakes", "a mapping diagnosis -> {z: coverage}, a function returning one, or None", mistakes
        )
    if isinstance(truth, torch.Tensor):
        if truth.dim() != 1 or not truth.is_floating_point() or not bool(torch.isfinite(truth).all()):
            raise _misuse(check, "truth", "a finite number or a finite floating tensor of shape [m]", truth)
        truths = truth.to(torch.float64).tolist()
    elif isinstance(truth, numbers.Real) and not isinstance(truth, bool) and math.isfinite(truth):
        truths = None
    else:
        raise _misuse(check, "truth", "a finite number or a finite floating tensor of shape [m]", truth)
    title = public or label
    values = _learner_floats(
        estimates, name="the estimates", label=label, public=public, length=None if truths is None else len(truths)
    )
    bars = _learner_floats(errors, name="the standard errors", label=label, public=public, length=len(values))
    negative = next((i for i, e in enumerate(bars) if e < 0), None)
    if negative is not None:
        fail(
            f"{label}: standard error {negative} is {bars[negative]}; a standard error is never negative",
            diagnosis=Bilingual("a negative standard error", "标准误为负"),
            rule=rule(title, "a standard error is negative", "标准误出现负值"),
            kind=Evidence.VALUE,
        )
    m = len(values)
    targets = truths if truths is not None else [float(truth)] * m
    alpha = ctx.budget.spend("calibration")
    each = alpha / len(levels)
    counts: dict[float, int] = {}
    results: dict[float, stats.CoverageTestResult] = {}
    made: list[CheckRecord] = []
    for z, (low, high) in levels.items():
        covered = sum(1 for v, e, t in zip(values, bars, targets, strict=True) if abs(v - t) <= z * e)
        counts[z] = covered
        results[z] = stats.coverage_test(covered, m, low, high)
        passed = results[z].pvalue >= each
        record = CheckRecord("calibration", f"{label} (+-{z:g} SE)", float(covered), results[z].pvalue, each, passed)
        made.append(record)
        ctx.records.append(record)
    worst_z = min(results, key=lambda z: results[z].pvalue)
    worst = results[worst_z]
    if worst.pvalue >= each:
        return results
    if ctx.visible:  # one figure for the call, on its last failed record (docs/report.md)
        last_failed = next(record for record in reversed(made) if not record.passed)
        last_failed.figure = figures.calibration_figure(
            m, [(z, counts[z], low, high, results[z].pvalue >= each) for z, (low, high) in levels.items()]
        )
    diagnosis: str | None = _best_coverage_mistake(counts, m, levels, mistakes)
    narrow = worst.direction == "narrow"
    if diagnosis is None:
        diagnosis = NARROW_DIAGNOSIS if narrow else WIDE_DIAGNOSIS
    expected = m * (worst.low if narrow else worst.high)
    scale = implied_scale(worst.covered, m, worst_z)
    if math.isinf(scale):
        how = "; not one interval covered: the standard errors are far too small"
    elif scale == 0.0:
        how = "; every interval covered: the standard errors are far too large"
    else:
        how = f"; the estimates spread about {scale:.3g} times your standard errors (1 when they are right)"
    raise CheckFailed(
        f"{label}: the intervals estimate +- {worst_z:g} x standard error covered the true value "
        f"{worst.covered} of {m} times; correct standard errors cover it about {expected:.0f} times "
        f"(p = {worst.pvalue:.3g}, threshold {each:.3g}){how}. This matches: {diagnosis}",
        statistic=float(worst.covered),
        p_value=worst.pvalue,
        diagnosis=diagnosis,
        rule=rule(
            title,
            "the error bars cover the true value " + ("too rarely (too narrow)" if narrow else "too often (too wide)"),
            "误差条覆盖真值的频率" + ("过低（太窄）" if narrow else "过高（太宽）"),
        ),
        kind=Evidence.VALUE,
    )


def expect_unbiased(
    ctx: Context,
    estimates: torch.Tensor,
    truth: float,
    *,
    std: float | None,
    label: str,
    public: str | None = None,
    mistakes: BiasMistakes = None,
) -> stats.MeanTestResult:
    """Independent estimates must be right on average: a two-sided z-test of their mean.

    ``estimates``: the learner's floating ``[m]`` tensor of independent estimates (check its shape
    first with :func:`expect_tensor`). ``truth``: the true value. ``std``: the exact standard
    deviation of *one* estimate of a correct procedure (compute it in the test), or None to use
    the estimates' sample standard deviation, which needs ``m >= 200``. The mean of m estimates is
    nearly normal (each is usually itself a mean), and the test's normal tail sits under the
    budget's asymptotic safety factor like the G-tests. Spends one ``unbiased`` check.
    ``mistakes``: ``{diagnosis: the expected value of that mistaken estimator}`` (or a function
    returning it): the diagnosis is the nearest one that the mean is consistent with (p >=
    ``DIAGNOSIS_MIN_PVALUE``), else a generic "biased".

    Raises :class:`CheckFailed` (WA) when the mean is off, or the estimates are not a finite 1-D
    floating tensor; :class:`CheckMisuse` for a malformed ``ctx``, ``truth``, ``std``, ``label``,
    ``public`` or ``mistakes``, or ``std=None`` with fewer than 200 estimates;
    :class:`~judge.checks.budget.BudgetExceeded` past the suite's ``BUDGET``.
    """
    check = "expect_unbiased"
    _context(check, ctx)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    if isinstance(truth, bool) or not isinstance(truth, numbers.Real) or not math.isfinite(truth):
        raise _misuse(check, "truth", "a finite number", truth)
    if std is not None:
        _tolerance(check, "std", std)
    if mistakes is not None and not callable(mistakes) and not isinstance(mistakes, Mapping):
        raise _misuse(
            check, "mistakes", "a mapping diagnosis -> expected value, a function returning one, or None", mistakes
        )
    values = _learner_floats(estimates, name="the estimates", label=label, public=public)
    if std is None and len(values) < 200:
        raise _misuse(check, "std", "a number (the sample standard deviation needs at least 200 estimates)", std)
    if len(values) < 2:
        fail(
            f"{label}: {len(values)} estimate(s); the test needs at least 2",
            rule=rule(public or label, "too few estimates were returned", "返回的估计值太少"),
            kind=Evidence.STRUCTURAL,
        )
    result = stats.mean_test(values, float(truth), None if std is None else float(std))
    alpha = ctx.budget.spend("unbiased")
    passed = result.pvalue >= alpha
    ctx.records.append(CheckRecord("unbiased", label, result.z, result.pvalue, alpha, passed))
    if passed:
        return result
    options = _mistakes(mistakes)
    if not isinstance(options, Mapping):
        raise _misuse(check, "mistakes", "a mapping diagnosis -> expected value", options)
    # A mistaken estimator has its own spread: judge the distance to its expected value with the
    # estimates' sample standard error when there are enough of them to measure it.
    spread = result.standard_error
    if len(values) >= 30:
        spread = stats.mean_test(values, result.mean).standard_error

    def log_likelihood(center: float) -> float:
        """The normal log-likelihood of the mean if ``center`` were its expected value (up to a constant)."""
        if spread > 0:
            return -0.5 * ((result.mean - center) / spread) ** 2
        return 0.0 if abs(result.mean - center) <= 1e-12 * max(1.0, abs(center)) else -math.inf

    scores: dict[str, float] = {}
    plausible: list[str] = []
    for name, expected in options.items():
        if isinstance(expected, bool) or not isinstance(expected, numbers.Real) or not math.isfinite(expected):
            raise _misuse(check, f"mistakes[{name!r}]", "a finite number (that mistake's expected value)", expected)
        scores[name] = log_likelihood(float(expected))
        if spread > 0:
            p = 2.0 * stats.normal_sf(abs(result.mean - float(expected)) / spread)
        else:
            p = float(scores[name] == 0.0)
        if p >= DIAGNOSIS_MIN_PVALUE:
            plausible.append(name)
    # Named on its own evidence only: plausible, and far likelier than the truth and every other one.
    diagnosis = decisive_mistake(scores, log_likelihood(float(truth)), candidates=plausible)
    mean_text, truth_text = format_pair(result.mean, result.truth)
    raise CheckFailed(
        f"{label}: the mean of {result.n} estimates is {mean_text} but the true value is {truth_text}, "
        f"{result.z:+.1f} standard errors away (standard error of the mean {result.standard_error:.3g}, "
        f"p = {result.pvalue:.3g}, threshold {alpha:.3g})",
        statistic=result.z,
        p_value=result.pvalue,
        diagnosis=diagnosis or BIASED_DIAGNOSIS,
        rule=rule(
            public or label, "the estimates miss the true value on average (biased)", "估计值的平均偏离真值（有偏）"
        ),
        kind=Evidence.VALUE,
    )


# Checks in modules of their own that build on this one (and so import it): importable from here
# as every other check, each module loaded on first use.
_ELSEWHERE = {
    "expect_every_draw_site": "judge.checks.draw_sites",
    "DRAW_SITE_DIAGNOSIS": "judge.checks.draw_sites",
    **dict.fromkeys(
        (
            "expect_generator_contract",
            "generator_contract_budget",
            "RESEEDED_DIAGNOSIS",
            "DEFAULT_RESEEDED_DIAGNOSIS",
            "GLOBAL_RNG_DIAGNOSIS",
            "POSITION_DIAGNOSIS",
        ),
        "judge.checks.generator_contract",
    ),
}


def __getattr__(name: str) -> Any:
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
