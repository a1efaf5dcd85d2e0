"""Checks of exact values: the hard checks a correct submission never fails.

:func:`expect` (a condition, with its message and public rule), :func:`expect_tensor` (a
learner's value is a tensor of this shape, dtype and device) and :func:`expect_close` (values
within tolerance of the target, naming the known mistake that reproduces them). They spend no
significance level: a failure is certain, not a statistical judgement.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from judge.checks.base import (
    CheckFailed,
    Mistakes,
    Outcome,
    _all_true,
    _any_true,
    _kind,
    _mistakes,
    _mistakes_argument,
    _misuse,
    _row_name,
    _text,
    _tolerance,
    fail,
    rule,
)
from judge.checks.evidence import Evidence
from judge.checks.numbers import format_pair

__all__ = ["expect", "expect_tensor", "expect_close"]


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
