"""How exercise 45 compares a learner's answers with the target: shared by the public, tiny and hidden suites.

Public on purpose: it holds no answers, only the comparisons and the wording of failures.
Expected values and what each known mistake returns arrive from the caller (the hidden oracle,
or values frozen for the browser); a failure names the first mistake that reproduces the output.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence

import torch

from judge.checks import Evidence, expect_close, expect_tensor, fail, rule
from judge.i18n import Bilingual
from judge.learner import LearnerRaised
from judge.numbers import format_pair

from .diagnoses import NOT_IDENTITY, VALID_REFUSED, ZERO_GROUP

# float32: sums over a few thousand tokens, each term good to ~1e-7 relative; float64: near machine precision.
TOLERANCE = {torch.float32: (1e-5, 1e-4), torch.float64: (1e-10, 1e-10)}
# A quantized weight may differ from the target by rounding of the scale (a few float32 ulps of
# max|w| / 7); one quantization step is the scale itself, so 1e-5 of it separates the two.
QUANTIZE_RTOL = 1e-5
# A mistaken quantizer is named when it reproduces this share of the elements.
QUANTIZE_MATCH = 0.999

Mistakes = Callable[[], Mapping[Bilingual, Sequence]]


def check_counts(ctx, value, expected: Sequence[int], *, what: str, labels: Sequence[str], mistakes: Mistakes) -> None:
    """``tokens_for_mass``'s value: int64 [B] on the run's device, equal to ``expected`` row by row."""
    out = expect_tensor(value, name="tokens_for_mass", shape=(len(expected),), dtype=torch.int64, device=ctx.device)
    got = [int(k) for k in out.tolist()]
    wrong = [row for row, (a, e) in enumerate(zip(got, expected, strict=True)) if a != e]
    if not wrong:
        return
    diagnosis = next((text for text, counts in mistakes().items() if list(counts) == got), None)
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
    nan_diagnosis: Bilingual | None = None,
) -> torch.Tensor:
    """A [B] floating value of ``dtype`` on the run's device, close to ``expected``; returns it.

    ``nan_diagnosis``: what NaN or an infinity in the output means in this case (an overflow, 0 x log 0).
    """
    out = expect_tensor(value, name=name, shape=(len(expected),), dtype=dtype, device=ctx.device)
    rtol, atol = TOLERANCE[dtype]
    actual = out.to(torch.float64).reshape(-1, 1)
    if nan_diagnosis is not None and not bool(torch.isfinite(actual).all()):
        row = int((~torch.isfinite(actual)).nonzero()[0, 0])
        held, wanted = format_pair(actual[row, 0].item(), expected[row])
        fail(
            f"{what}: row {row} ({labels[row]}) holds {held}; expected {wanted}. "
            f"This matches a known mistake: {nan_diagnosis}",
            diagnosis=nan_diagnosis,
            rule=rule(what, "holds NaN or an infinity", "含有 NaN 或无穷大", row=row, labels=labels),
            kind=Evidence.STRUCTURAL,
        )
    expect_close(
        actual.reshape(-1),
        torch.tensor(expected, dtype=torch.float64),
        rtol=rtol,
        atol=atol,
        what=what,
        row_labels=labels,
        mistakes=lambda: {
            text: torch.as_tensor(got, dtype=torch.float64).reshape(-1) for text, got in mistakes().items()
        },
        per_row=True,
    )
    return out


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
    is each element's group scale. ``zero_groups``: bool ``[out, in]``, the elements of all-zero groups.
    """
    out = expect_tensor(
        value, name="fake_quantize_int4", shape=tuple(weight.shape), dtype=weight.dtype, device=ctx.device
    )
    actual = out.to(torch.float64)
    if zero_groups is not None and bool(zero_groups.any()):
        broken = ~torch.isfinite(actual) & zero_groups
        if bool(broken.any()):
            row, column = (int(i) for i in broken.nonzero()[0])
            fail(
                f"{what}: element ({row}, {column}) of an all-zero group is {actual[row, column].item()}, expected 0. "
                f"This matches a known mistake: {ZERO_GROUP}",
                diagnosis=ZERO_GROUP,
                rule=rule(what, "an all-zero group does not stay zero", "全零的组没有保持为零"),
            )
    tolerance = QUANTIZE_RTOL * scales
    ok = _agree(actual, expected, tolerance) | _agree(actual, alternative, tolerance)
    if bool(ok.all()):
        return
    diagnosis = None
    for text, candidate in mistakes().items():
        candidate = torch.as_tensor(candidate, dtype=torch.float64)
        if candidate.shape != actual.shape:
            continue
        reproduced = _agree(actual, candidate, 1e-4 * scales + 1e-12) | (actual.isnan() & candidate.isnan())
        # The mistake must also explain the failure: where the output is wrong, the mistake's own
        # value must be wrong too (else a mistake that equals the target there, like half_up away
        # from exact halves, would name every small deviation).
        accepted = _agree(candidate, expected, tolerance) | _agree(candidate, alternative, tolerance)
        if (
            float(reproduced.double().mean()) >= QUANTIZE_MATCH
            and bool(reproduced[~ok].all())
            and not bool(accepted[~ok].any())
        ):
            diagnosis = text
            break
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
