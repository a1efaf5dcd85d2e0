"""How exercise 45 compares a learner's answers with the target: shared by the public, tiny and hidden suites.

Public on purpose: it holds no answers, only the comparisons and the wording of failures.
Expected values and what each known mistake returns arrive from the caller (the hidden oracle,
values frozen for the browser, or a mistake's formula run on the inputs: ``mistaken.py``); a
failure names a mistake only when it alone, of those listed, reproduces the output.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence

import torch

from judge.checks.base import fail, rule
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_close, expect_tensor
from judge.checks.numbers import format_pair
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

from . import mistaken
from .diagnoses import NOT_IDENTITY, OVERFLOW, VALID_REFUSED, ZERO_GROUP, ZERO_LOG_ZERO

# float32: sums over a few thousand tokens, each term good to ~1e-7 relative; float64: near machine precision.
TOLERANCE = {torch.float32: (1e-5, 1e-4), torch.float64: (1e-10, 1e-10)}
# A quantized weight may differ from the target by rounding of the scale (a few float32 ulps of
# max|w| / 7); one quantization step is the scale itself, so 1e-5 of it separates the two.
QUANTIZE_RTOL = 1e-5
# A mistaken quantizer is named when it reproduces this share of the elements.
QUANTIZE_MATCH = 0.999

Mistakes = Callable[[], Mapping[Bilingual, Sequence]]
# Mistakes whose output holds NaN or an infinity: (diagnosis, float64 [B]) pairs, several forms of
# one mistake allowed (a diagnosis may repeat).
NonFinite = Callable[[], Sequence[tuple[Bilingual, torch.Tensor]]]


def _only(names: Sequence[str]) -> str | None:
    """The one diagnosis ``names`` hold (repeats allowed), or None for none or two different ones."""
    distinct = list(dict.fromkeys(names))
    return distinct[0] if len(distinct) == 1 else None


def check_counts(
    ctx,
    value,
    expected: Sequence[int],
    *,
    what: str,
    labels: Sequence[str],
    mistakes: Mistakes,
    accepted: Sequence[tuple[int, int]] | None = None,
) -> None:
    """``tokens_for_mass``'s value: int64 [B] on the run's device, equal to ``expected`` row by row.

    ``accepted``: per row, the lowest and highest count accepted (a legal corner whose cut lies
    within 1e-4 of the mass accepts both sides); by default exactly ``expected``. A mistake is named
    when its counts equal the output and no other listed mistake's do.
    """
    out = expect_tensor(value, name="tokens_for_mass", shape=(len(expected),), dtype=torch.int64, device=ctx.device)
    got = [int(k) for k in out.tolist()]
    bounds = list(accepted) if accepted is not None else [(e, e) for e in expected]
    wrong = [row for row, (a, (low, high)) in enumerate(zip(got, bounds, strict=True)) if not low <= a <= high]
    if not wrong:
        return
    diagnosis = _only([text for text, counts in mistakes().items() if list(counts) == got])
    row = wrong[0]
    fail(
        f"{what}: row {row} ({labels[row]}): you returned {got[row]} tokens, expected {expected[row]}"
        + (f" ({len(wrong)} of {len(got)} rows differ)" if len(wrong) > 1 else "")
        + (f". This matches a known mistake: {diagnosis}" if diagnosis else ""),
        diagnosis=diagnosis,
        rule=rule(
            what, "the number of tokens differs from the target", "token 个数与目标不一致", row=row, labels=labels
        ),
    )


def check_values(
    ctx,
    value,
    expected: Sequence[float],
    dtype,
    *,
    name: str,
    what: str,
    labels: Sequence[str],
    mistakes: Mistakes,
    non_finite: NonFinite | None = None,
) -> torch.Tensor:
    """A [B] floating value of ``dtype`` on the run's device, close to ``expected``; returns it.

    ``non_finite``: the mistakes that give NaN or an infinity here, each with its own output (an
    overflow, 0 x log 0: ``mistaken.py``). An output holding NaN or an infinity names the mistake
    whose output is NaN, +inf and -inf in exactly the same rows, when only one such mistake does.
    """
    out = expect_tensor(value, name=name, shape=(len(expected),), dtype=dtype, device=ctx.device)
    rtol, atol = TOLERANCE[dtype]
    actual = out.to(torch.float64).reshape(-1, 1)
    if non_finite is not None and not bool(torch.isfinite(actual).all()):
        row = int((~torch.isfinite(actual)).nonzero()[0, 0])
        held, wanted = format_pair(actual[row, 0].item(), expected[row])
        pattern = _non_finite_pattern(actual.reshape(-1))
        diagnosis = _only(
            [text for text, got in non_finite() if _non_finite_pattern(got.to(torch.float64).reshape(-1)) == pattern]
        )
        fail(
            f"{what}: row {row} ({labels[row]}) holds {held}; expected {wanted}"
            + (f". This matches a known mistake: {diagnosis}" if diagnosis else ""),
            diagnosis=diagnosis,
            rule=rule(what, "holds NaN or an infinity", "含有 NaN 或无穷大", row=row, labels=labels),
            kind=Evidence.STRUCTURAL,
        )
    flat = actual.reshape(-1)

    def reproducing() -> dict:
        """The listed mistakes that reproduce every row within the tolerance, and are finite: one that
        matches the worst row alone, or one whose infinities meet the output's, is no evidence of
        itself on a case of many rows (Σ min of -inf logits is -inf, whatever the mistake)."""
        found = {}
        for text, got in mistakes().items():
            got = torch.as_tensor(got, dtype=torch.float64).reshape(-1)
            if tuple(got.shape) != tuple(flat.shape) or not bool(torch.isfinite(got).all()):
                continue
            if bool(((flat - got).abs() <= atol + rtol * got.abs()).all()):
                found[text] = got
        return found

    expect_close(
        flat,
        torch.tensor(expected, dtype=torch.float64),
        rtol=rtol,
        atol=atol,
        what=what,
        row_labels=labels,
        mistakes=reproducing,
        per_row=True,
    )
    return out


def entropy_non_finite(logits: torch.Tensor, temperature) -> NonFinite:
    """The entropy mistakes that give NaN, each form with its own output on these inputs (``non_finite``)."""

    def found() -> list[tuple[Bilingual, torch.Tensor]]:
        forms = [(ZERO_LOG_ZERO, v) for v in mistaken.zero_log_zero(logits, temperature)]
        return forms + [(OVERFLOW, v) for v in mistaken.overflow(logits, temperature)]

    return found


def entropy_overflow_values(logits: torch.Tensor, temperature) -> dict[Bilingual, torch.Tensor]:
    """The overflow mistake's finite form (NaN probabilities dropped by torch.where): a value mistake,
    listed only where some row keeps an entropy above 0 under it (a row that does not overflow): an
    output of zeros alone is what many other mistakes give too."""
    dropped = mistaken.overflow(logits, temperature)[1]
    return {OVERFLOW: dropped} if bool((dropped.abs() > 1e-3).any()) else {}


def _non_finite_pattern(values: torch.Tensor) -> tuple[list[bool], list[bool], list[bool]]:
    """Which entries are NaN, +inf and -inf."""
    return (
        torch.isnan(values).tolist(),
        torch.isposinf(values).tolist(),
        torch.isneginf(values).tolist(),
    )


def _agree(actual: torch.Tensor, target: torch.Tensor, tolerance: torch.Tensor) -> torch.Tensor:
    return (actual - target).abs() <= tolerance


def check_quantized(
    ctx,
    value,
    weight: torch.Tensor,
    *,
    expected: torch.Tensor,
    alternative: torch.Tensor,
    scales: torch.Tensor,
    what: str,
    mistakes: Mistakes,
    zero_groups: torch.Tensor | None = None,
) -> None:
    """``fake_quantize_int4``'s value against the target, element by element.

    ``expected``, ``alternative``, ``scales``: float64 ``[out, in]``; ``alternative`` is the other
    rounding where w / scale lies a hair from a half (elsewhere it equals ``expected``); ``scales``
    is each element's group scale. ``zero_groups``: bool ``[out, in]``, the elements of all-zero groups;
    NaN in exactly those (a division by their zero scale, and nowhere else) names that mistake. A
    listed mistake is named when it alone reproduces the output and explains every wrong element.
    """
    out = expect_tensor(
        value, name="fake_quantize_int4", shape=tuple(weight.shape), dtype=weight.dtype, device=ctx.device
    )
    actual = out.to(torch.float64)
    if zero_groups is not None and bool(zero_groups.any()):
        broken = ~torch.isfinite(actual) & zero_groups
        if bool(broken.any()):
            row, column = (int(i) for i in broken.nonzero()[0])
            named = bool(torch.equal(torch.isnan(actual), zero_groups))
            fail(
                f"{what}: element ({row}, {column}) of an all-zero group is {actual[row, column].item()}, expected 0"
                + (f". This matches a known mistake: {ZERO_GROUP}" if named else ""),
                diagnosis=ZERO_GROUP if named else None,
                rule=rule(what, "an all-zero group does not stay zero", "全零的组没有保持为零"),
            )
    tolerance = QUANTIZE_RTOL * scales
    ok = _agree(actual, expected, tolerance) | _agree(actual, alternative, tolerance)
    if bool(ok.all()):
        return
    named = []
    for text, candidate in mistakes().items():
        candidate = torch.as_tensor(candidate, dtype=torch.float64)
        if candidate.shape != actual.shape:
            continue
        # Relative to each group's scale only: an absolute slack would call every tiny group alike.
        reproduced = _agree(actual, candidate, 1e-4 * scales) | (actual.isnan() & candidate.isnan())
        # The mistake must also explain the failure: where the output is wrong, the mistake's own
        # value must be wrong too (else a mistake that equals the target there, like half_up away
        # from exact halves, would name every small deviation).
        accepted = _agree(candidate, expected, tolerance) | _agree(candidate, alternative, tolerance)
        if (
            float(reproduced.double().mean()) >= QUANTIZE_MATCH
            and bool(reproduced[~ok].all())
            and not bool(accepted[~ok].any())
        ):
            named.append(text)
    diagnosis = _only(named)
    bad = (~ok).nonzero()
    row, column = (int(i) for i in bad[0])
    returned, wanted = format_pair(actual[row, column].item(), expected[row, column].item(), digits=8)
    fail(
        f"{what}: element ({row}, {column}): you returned {returned}, expected "
        f"{wanted} (its group's scale is {scales[row, column].item():.6g}); "
        f"{len(bad)} of {actual.numel()} elements differ"
        + (f". This matches a known mistake: {diagnosis}" if diagnosis else ""),
        diagnosis=diagnosis,
        rule=rule(what, "the quantized weights differ from the target", "量化后的权重与目标不一致"),
    )


def check_identity(ctx, accept: torch.Tensor, tv: torch.Tensor, *, what: str, labels: Sequence[str]) -> None:
    """The learner's own outputs: acceptance_rate = 1 - total_variation on every row."""
    rtol, atol = TOLERANCE[accept.dtype] if accept.dtype in TOLERANCE else TOLERANCE[torch.float32]
    a, t = accept.to(torch.float64).tolist(), tv.to(torch.float64).tolist()
    for row, (x, y) in enumerate(zip(a, t, strict=True)):
        if not (math.isfinite(x) and math.isfinite(y)) or abs(x - (1 - y)) > 2 * atol:
            rate, identity = format_pair(x, 1 - y)
            fail(
                f"{what}: row {row} ({labels[row]}): acceptance_rate returned {rate} and total_variation "
                f"{y:.6g}, but the acceptance rate must equal 1 - TV = {identity}. This matches a known mistake: "
                f"{NOT_IDENTITY}",
                diagnosis=NOT_IDENTITY,
                rule=rule(
                    what,
                    "acceptance_rate is not 1 - total_variation",
                    "acceptance_rate 不等于 1 - total_variation",
                    row=row,
                    labels=labels,
                ),
            )


@contextlib.contextmanager
def refused() -> Iterator[None]:
    """A ValueError the learner raises on a valid input gets ``VALID_REFUSED``."""
    try:
        yield
    except LearnerRaised as raised:
        if raised.derives_from(ValueError) and getattr(raised, "diagnosis", None) is None:
            raised.diagnosis = VALID_REFUSED
        raise
