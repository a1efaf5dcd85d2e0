"""The checks of exercise 41, shared by the browser's tiny suite and the hidden suite.

Public on purpose: the rules are the statement's, and the browser needs them. ``tiny.py`` and
``../hidden/hidden.py`` call these functions with their own cases and sizes; the expected values
come from the caller (the hidden oracle, or numbers frozen in ``tiny.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from fractions import Fraction

import torch

from judge.checks.base import CheckFailed, diagnosed, fail
from judge.checks.estimators import expect_calibrated, expect_unbiased
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import expect_seed_contract
from judge.checks.independence import ROWS_SHARE_DIAGNOSIS, expect_independent_rows
from judge.checks.refusals import BadCall, BadInput, expect_bad_inputs_refused, expect_calls_refused
from judge.checks.tails import normal_sf
from judge.i18n import Bilingual

from . import wald
from .answers41 import check_probability_answer, event_probabilities, pair
from .diagnoses import MISTAKES
from .draws41 import COUNT, count_probs, dispersion_diagnosis

# The distribution every estimate_probability case draws from (float32 holds these values).
PROBS = [0.3105, 0.2210, 0.1650, 0.1150, 0.0835, 0.0550, 0.0400, 0.0100]
ESTIMATE = Bilingual("estimate_probability", "estimate_probability")


# --- mean_and_standard_error ---------------------------------------------------------------


@dataclass(frozen=True)
class MeanCase:
    """A batch of samples and its exact answer (float64), with what each known mistake's error would be."""

    samples: torch.Tensor  # [B, n], float32 or float64 (float16 or bfloat16 in the legal corners)
    mean: torch.Tensor  # [B] float64
    se: torch.Tensor  # [B] float64
    mistaken_se: dict[str, torch.Tensor]  # diagnosis -> [B] float64
    public: Bilingual


def check_mean_case(
    sub, ctx, case: MeanCase, *, diagnosis: Bilingual | None = None, mean_diagnosis: Bilingual | None = None
) -> None:
    """One call of ``mean_and_standard_error``: dtype, shape, device, then both outputs to rounding.

    Tolerances: the mean within :func:`mean_ulps` ulps of the batch's largest |x|; the error within a relative
    :func:`se_tolerance`, plus 8 ulps of the largest |x| over sqrt(n) (a constant row's error is 0 up
    to that rounding). A wrong or NaN standard error gets ``diagnosis`` when given, a wrong mean
    ``mean_diagnosis``: only :func:`check_offset_case` gives them, after the same deviations near 0
    passed; a wrong type, shape or dtype, or an exception, is evidence of neither.
    """
    check_mean_answer(
        ctx, case, sub.mean_and_standard_error(case.samples), diagnosis=diagnosis, mean_diagnosis=mean_diagnosis
    )


def check_mean_answer(
    ctx, case: MeanCase, answer, *, diagnosis: Bilingual | None = None, mean_diagnosis: Bilingual | None = None
) -> None:
    """What ``mean_and_standard_error(case.samples)`` returned (``answer``), checked as :func:`check_mean_case` says."""
    rows, n = case.samples.shape
    dtype = case.samples.dtype
    eps = torch.finfo(dtype).eps
    scale = float(case.samples.abs().max())
    mean, se = pair(answer, "mean_and_standard_error")
    mean = expect_tensor(mean, name="mean_and_standard_error (the mean)", shape=(rows,), dtype=dtype, device=ctx.device)
    se = expect_tensor(
        se, name="mean_and_standard_error (the standard error)", shape=(rows,), dtype=dtype, device=ctx.device
    )
    with diagnosed(mean_diagnosis) if mean_diagnosis else nullcontext():
        expect_close(
            mean,
            case.mean,
            rtol=0.0,
            atol=mean_ulps(dtype) * eps * scale,
            what=_what(case, "the mean", "均值"),
            per_row=True,
        )
    # Shape and dtype are checked above: what fails here is the value, or a NaN, which is a variance
    # gone negative (E[x^2] - E[x]^2 cancels to below 0 where the mean dwarfs the spread; a
    # variance of squared deviations never is): both are evidence of ``diagnosis`` in the offset case.
    evidence = (Evidence.VALUE, Evidence.STRUCTURAL)
    with diagnosed(diagnosis, evidence=evidence) if diagnosis else nullcontext():
        expect_close(
            se,
            case.se,
            rtol=se_tolerance(dtype),
            atol=8 * eps * scale / math.sqrt(n),
            what=_what(case, "the standard error", "标准误"),
            mistakes=case.mistaken_se,
            per_row=True,
        )


def mean_ulps(dtype: torch.dtype) -> int:
    """The statement's tolerance of a mean, in units of the dtype's epsilon times the batch's largest
    |value|: 8, and 64 in float64, where torch.var_mean's or a Python running mean wanders over 1 000
    values near 10^5 (measured up to 12)."""
    return 64 if dtype == torch.float64 else 8


def se_tolerance(dtype: torch.dtype) -> float:
    """The statement's relative tolerance of a standard error: 1e-3 (float32), 1e-9 (float64), ten
    machine epsilons (float16, bfloat16)."""
    if dtype == torch.float32:
        return 1e-3
    if dtype == torch.float64:
        return 1e-9
    return 10 * torch.finfo(dtype).eps


def shifted_near_zero(samples: torch.Tensor) -> torch.Tensor:
    """``samples`` with each row moved by a whole number near its first value, so that it lies near 0
    (a constant row by its own value, to exactly 0, which any formula gets right): the same deviations
    exactly (``x - c`` is exact for c within a factor 2 of x), so the same standard errors. Raises
    ValueError where a shift would round (values too far apart in one row)."""
    first = samples[:, :1].to(torch.float64)
    constant = (samples == samples[:, :1]).all(dim=1, keepdim=True)
    shift = torch.where(constant, first, first.round())
    moved = samples - shift.to(samples.dtype)
    if not torch.equal(moved.to(torch.float64) + shift, samples.to(torch.float64)):
        raise ValueError("shifted_near_zero(): a row's shift is not exact")
    return moved


def two_blocks_case(start: float, step: float, first: int, n: int, dtype: torch.dtype, public: Bilingual) -> MeanCase:
    """One row of ``first`` values ``start`` then ``n - first`` values ``start + step`` (both as ``dtype``
    holds them), with its exact mean and standard error (fractions: the row's variance is
    step^2 first (n - first) / (n (n - 1)))."""
    held = torch.tensor([start, start + step], dtype=dtype).to(torch.float64).tolist()
    low, high = Fraction(held[0]), Fraction(held[1])
    gap = high - low
    mean = low + gap * (n - first) / n
    variance = gap * gap * first * (n - first) / (n * (n - 1))
    se = math.sqrt(variance / n)
    mistaken = {
        MISTAKES["se_divides_by_n"]: [math.sqrt(variance) / n],
        MISTAKES["se_is_variance"]: [float(variance / n)],
        MISTAKES["se_not_divided"]: [math.sqrt(variance)],
    }
    as_tensor = lambda values: torch.tensor(values, dtype=torch.float64)  # noqa: E731
    return MeanCase(
        torch.tensor([[held[0]] * first + [held[1]] * (n - first)], dtype=dtype),
        as_tensor([float(mean)]),
        as_tensor([se]),
        {d: as_tensor(v) for d, v in mistaken.items()},
        public,
    )


def check_offset_case(sub, ctx, case: MeanCase, near_zero: MeanCase) -> None:
    """Rows far from 0 (``case``), after the same deviations near 0 (``near_zero``: its samples are
    :func:`shifted_near_zero` of the case's) passed: a failure that only the offset brings is named (a
    wrong standard error, or NaN: the one-pass variance; a wrong mean: a running mean in float32), any
    other is the near call's own."""
    check_mean_case(sub, ctx, near_zero)
    check_mean_case(
        sub, ctx, case, diagnosis=MISTAKES["naive_variance"], mean_diagnosis=MISTAKES["float32_running_mean"]
    )


def _what(case: MeanCase, en: str, zh: str) -> Bilingual:
    """The name of one output in messages and rules: the case's value-free title, in both languages."""
    return Bilingual(
        f"mean_and_standard_error ({case.public}): {en}", f"mean_and_standard_error（{case.public.zh}）：{zh}"
    )


def check_mean_bad_inputs(sub) -> None:
    """A row of one sample, a 1-D or integer tensor, NaN or inf raise ValueError."""
    ok = torch.tensor([[1.0, 2.0, 4.0]])
    expect_bad_inputs_refused(
        sub.mean_and_standard_error,
        [
            BadInput(
                "samples of shape [2, 1] (one sample per row)",
                {"samples": torch.tensor([[1.0], [2.0]])},
                public="one sample per row",
            ),
            BadInput("a 1-D tensor of shape [3]", {"samples": ok[0]}, public="a 1-D tensor"),
            BadInput("an int64 tensor", {"samples": torch.tensor([[1, 2, 4]])}, public="an integer tensor"),
            BadInput("samples holding NaN", {"samples": torch.tensor([[1.0, float("nan"), 4.0]])}),
            BadInput("samples holding inf", {"samples": torch.tensor([[1.0, 2.0, float("inf")]])}),
        ],
        name="mean_and_standard_error",
    )


# --- estimate_probability -------------------------------------------------------------------


def event_probability(event: Sequence[int], *, softmax: bool = False) -> float:
    """P(event) under ``PROBS`` as float32 holds them, in float64 (sum over the event / sum of the row);
    with ``softmax``, under softmax(PROBS) instead (a known mistake: probabilities taken for logits)."""
    probs = torch.tensor(PROBS, dtype=torch.float32).to(torch.float64)
    if softmax:
        probs = probs.exp()
    return float(probs[list(event)].sum() / probs.sum())


# Mixed rows (the bias check): row b holds PROBS rotated by b % V places, times SCALES[(b // V) % 4], and
# its event rotated alike. Every row has the same P(event), but a row's raw values no longer sum to 1
# (powers of two: float32 and float64 hold the scaled values exactly) and its event sits elsewhere.
SCALES = (1.0, 0.5, 2.0, 4.0)


def layout(rows: int, *, mixed: bool = False) -> list[tuple[int, float]]:
    """(rotation, scale) of each row: all (0, 1) unless ``mixed``."""
    if not mixed:
        return [(0, 1.0)] * rows
    size = len(PROBS)
    return [(b % size, SCALES[(b // size) % len(SCALES)]) for b in range(rows)]


def _inputs(
    rows: int, event: Sequence[int], *, mixed: bool = False, dtype: torch.dtype = torch.float32
) -> tuple[torch.Tensor, torch.Tensor]:
    size = len(PROBS)
    held = [float(v) for v in torch.tensor(PROBS, dtype=torch.float32).tolist()]  # PROBS as float32 holds them
    probs, mask = [], []
    for shift, scale in layout(rows, mixed=mixed):
        probs.append([held[(v - shift) % size] * scale for v in range(size)])
        mask.append([(v - shift) % size in event for v in range(size)])
    return torch.tensor(probs, dtype=dtype), torch.tensor(mask, dtype=torch.bool)


def mixed_mistakes(rows: int, event: Sequence[int]) -> dict[str, float]:
    """The mean estimate of each known bias mistake over ``rows`` mixed rows (see ``layout``)."""
    held = [float(v) for v in torch.tensor(PROBS, dtype=torch.float32).tolist()]
    size, p = len(PROBS), event_probability(event)
    rows_layout = layout(rows, mixed=True)
    first = {(v + rows_layout[0][0]) % size for v in event}  # row 0's event, as positions
    softmax = unnormalized = row_zero = 0.0
    for shift, scale in rows_layout:
        weights = [math.exp(v * scale) for v in held]
        softmax += sum(weights[v] for v in event) / sum(weights)
        unnormalized += p * scale * sum(held)
        row_zero += sum(held[(v - shift) % size] for v in first) / sum(held)
    return {
        "softmax_of_probs": softmax / rows,
        "unnormalized_probs": unnormalized / rows,
        "event_of_row_0": row_zero / rows,
        "complement_event": 1 - p,
    }


def estimates(
    source,
    ctx,
    rows: int,
    event: Sequence[int],
    n: int,
    generator,
    *,
    what: str,
    mixed: bool = False,
    dtype: torch.dtype = torch.float32,
) -> tuple:
    """One call of ``estimate_probability`` on ``rows`` copies of ``PROBS`` (rotated and scaled when
    ``mixed``) in ``dtype``; both outputs checked, and the estimates checked to be frequencies k / n.
    Returns (estimates, errors, counts k as int64 [rows])."""
    probs, mask = _inputs(rows, event, mixed=mixed, dtype=dtype)
    value = source.estimate_probability(probs, mask, n, generator=generator)
    return check_probability_answer(
        value, ctx, rows=rows, n=n, dtype=dtype, what=what, truth=event_probabilities(probs, mask)
    )


def check_calibration(sub, ctx, rows: int, event: Sequence[int], n: int) -> None:
    """``rows`` estimates of P(event) from ``n`` draws each: rows independent, intervals covering at their rate.

    Spends one ``independence`` check (the counts of the first half of the rows against the second) and
    one ``calibration`` check (coverage at z = 1 and 2, exact Wald coverage from :mod:`wald`).
    """
    p = event_probability(event)
    label = f"estimate_probability, {rows} rows of {n} draws (P(event) = {p:.4f})"
    public = Bilingual(
        f"estimate_probability, {rows} rows of {n} draws", f"estimate_probability，{rows} 行，每行抽 {n} 次"
    )
    estimate, se, counts = estimates(sub, ctx, rows, event, n, ctx.generator(), what=label)
    half = rows // 2
    # Counts are no draws in order: "sorted" would mislead. Rows that repeat each other's counts (which
    # still vary from row to row) share their random numbers; counts that agree too often without that,
    # around the right mean, vary unlike Binomial(n, p) counts (a row's draws are not independent:
    # stratified, repeated). Counts that never vary come from no draws at all: nothing is named.
    varies = bool((counts != counts[0]).any())
    shared = varies and bool((counts[:half] == counts[half : 2 * half]).float().mean() > 0.9)
    try:
        expect_independent_rows(
            ctx,
            counts[:half],
            counts[half : 2 * half],
            count_probs(n, p),
            outcome=COUNT,
            label=f"{label}: the counts of rows 0..{half - 1} against rows {half}..{2 * half - 1}",
            public=public,
            diagnosis=ROWS_SHARE_DIAGNOSIS,
        )
    except CheckFailed as failure:
        failure.diagnosis = ROWS_SHARE_DIAGNOSIS if shared else dispersion_diagnosis(counts, n, p)
        raise
    coverage, mistakes = wald.calibration_targets(n, p)
    expect_calibrated(ctx, estimate, se, p, label=label, public=public, coverage=coverage, mistakes=mistakes)


def check_unbiased(sub, ctx, rows: int, event: Sequence[int], n: int) -> None:
    """``rows`` estimates from ``n`` draws each average to P(event) (one ``unbiased`` check).

    The rows are mixed (``layout``) and float64: each row normalized by its own sum, its own event,
    and the dtype of ``probs`` kept; all of that is invisible on identical float32 rows summing to 1.
    """
    p = event_probability(event)
    label = f"estimate_probability, {rows} rows of {n} draws (P(event) = {p:.4f})"
    public = Bilingual(
        f"estimate_probability, {rows} rows of {n} draws", f"estimate_probability，{rows} 行，每行抽 {n} 次"
    )
    estimate, _, counts = estimates(
        sub, ctx, rows, event, n, ctx.generator(), what=label, mixed=True, dtype=torch.float64
    )
    try:
        expect_unbiased(ctx, estimate, p, std=math.sqrt(p * (1 - p) / n), label=label, public=public)
    except CheckFailed as failure:
        failure.diagnosis = (
            _rows_repeat(counts, n, p) or _bias_mistake(estimate, mixed_mistakes(rows, event)) or failure.diagnosis
        )
        raise


def _rows_repeat(counts: torch.Tensor, n: int, p: float) -> Bilingual | None:
    """The rows diagnosis when rows given the same inputs (the same mixed ``layout``) repeat each other's
    count of hits far more often than independent Binomial(n, p) counts agree (the sum of the squared
    pmf): rows sharing one set of random numbers do that, and their mean then varies like one row's,
    which the test of the mean reads as a bias. None otherwise."""
    groups: dict[tuple[int, float], list[int]] = {}
    for row, key in enumerate(layout(counts.shape[0], mixed=True)):
        groups.setdefault(key, []).append(row)
    pairs = [(a, b) for members in groups.values() for a, b in zip(members, members[1:], strict=False)]
    if not pairs or not bool((counts != counts[0]).any()):
        return None  # no pairs, or counts that never vary: no random numbers to share
    agree = sum(int(counts[a]) == int(counts[b]) for a, b in pairs) / len(pairs)
    chance = math.fsum(v * v for v in wald.binomial_pmf(n, p))
    return ROWS_SHARE_DIAGNOSIS if agree > (1 + chance) / 2 else None


def _bias_mistake(estimate: torch.Tensor, means: dict[str, float]) -> Bilingual | None:
    """The known mistake whose mean the estimates' mean fits best (p >= 1e-3), else None.

    Measured with the estimates' own spread, not a correct estimator's: a mistaken estimate near 0.25 or
    0.5 varies more than one near P(event), and the null's standard error would reject its own mean.
    """
    values = [float(v) for v in estimate.tolist()]
    m = len(values)
    mean = math.fsum(values) / m
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (m - 1) / m) if m > 1 else 0.0
    best, best_p = None, 1e-3
    for name, expected in means.items():
        p = 2 * normal_sf(abs(mean - expected) / spread) if spread > 0 else float(abs(mean - expected) < 1e-12)
        if p >= best_p:
            best, best_p = MISTAKES[name], p
    return best


def check_seeds(sub, ctx, rows: int, event: Sequence[int], n: int) -> None:
    """The generator decides the draws; without one, torch's default generator does (2 ``seeds`` checks).

    The draws are compared through each row's count k, whose distribution Binomial(n, p) gives the
    exact chance that a correct estimator repeats itself under another seed.
    """
    p = event_probability(event)

    def draw(source, generator):
        return estimates(source, ctx, rows, event, n, generator, what="estimate_probability")[2].unsqueeze(1)

    expect_seed_contract(sub, ctx, draw, count_probs(n, p).expand(rows, n + 1), label="estimate_probability")


def check_probability_bad_inputs(sub, ctx) -> None:
    """A negative or NaN probability, a row of zeros, an event of another shape or dtype, num_samples < 1."""
    probs, mask = _inputs(2, [2])
    negative = probs.clone()
    negative[1, 0] = -0.1
    nan = probs.clone()
    nan[0, 3] = float("nan")
    zeros = probs.clone()
    zeros[1] = 0.0
    expect_bad_inputs_refused(
        sub.estimate_probability,
        [
            BadInput(
                "a probability of -0.1",
                {"probs": negative, "event": mask, "num_samples": 10},
                public="a negative probability",
            ),
            BadInput("a probability NaN", {"probs": nan, "event": mask, "num_samples": 10}),
            BadInput("a row of zeros", {"probs": zeros, "event": mask, "num_samples": 10}),
            BadInput(
                "an event of shape [2, 7]",
                {"probs": probs, "event": mask[:, :7], "num_samples": 10},
                public="an event of another shape",
            ),
            BadInput(
                "an event of dtype int64",
                {"probs": probs, "event": mask.to(torch.int64), "num_samples": 10},
                public="an event that is not bool",
            ),
            BadInput("num_samples = 0", {"probs": probs, "event": mask, "num_samples": 0}),
        ],
        extra=lambda: {"generator": ctx.generator()},
        name="estimate_probability",
    )


# --- samples_needed -------------------------------------------------------------------------


@dataclass(frozen=True)
class NeededCase:
    """Inputs of ``samples_needed``, the answers accepted, and what each known mistake returns."""

    delta: float
    sigma: float
    num_se: float
    accepted: tuple[int, ...]  # one value, or two when the bound lies within 1e-9 of a whole number
    mistaken: dict[str, int]  # mistake name (a key of MISTAKES) -> its answer
    whole: bool = False  # the bound is exactly a whole number N (only N + 1 is accepted)


# Mistakes that land far from the answer: recognised within one unit (they may round either way).
GROSS = ("one_sample", "not_squared")


def check_samples_needed(sub, cases: Sequence[NeededCase]) -> None:
    """Every case in one go: an int each, accepted; a wrong batch is matched against the known mistakes."""
    answers = []
    for case in cases:
        value = sub.samples_needed(case.delta, case.sigma, case.num_se)
        call = f"samples_needed(delta={case.delta!r}, sigma={case.sigma!r}, num_se={case.num_se!r})"
        expect(
            isinstance(value, int) and not isinstance(value, bool),
            f"{call} returned {value!r} of type {type(value).__name__}; return a Python int",
            diagnosis=MISTAKES["not_an_int"],
            rule=Bilingual("samples_needed: did not return an int", "samples_needed：返回值不是 int"),
        )
        answers.append((call, case, value))
    wrong = [(call, case, value) for call, case, value in answers if value not in case.accepted]
    if not wrong:
        return
    # The mistake that reproduces every answer, if only one does (one case alone may fit several).
    exact = [name for name in cases[0].mistaken if all(value == case.mistaken[name] for _, case, value in answers)]
    near = [name for name in GROSS if all(abs(value - case.mistaken[name]) <= 1 for _, case, value in answers)]
    found = exact if exact else near
    diagnosis = MISTAKES[found[0]] if len(found) == 1 else None
    if not found and _inexact(answers, wrong):
        diagnosis = MISTAKES["inexact_arithmetic"]
    call, case, value = wrong[0]
    expected = " or ".join(str(a) for a in case.accepted)
    fail(
        f"{call} returned {value}; expected {expected}"
        + (f" ({len(wrong)} of {len(answers)} cases wrong)" if len(wrong) > 1 else ""),
        diagnosis=diagnosis,
        rule=Bilingual("samples_needed: the number of samples is wrong", "samples_needed：样本数不对"),
    )


def _inexact(answers: Sequence[tuple[str, NeededCase, int]], wrong: Sequence[tuple[str, NeededCase, int]]) -> bool:
    """The evidence of a bound computed inexactly: every wrong answer is N at a bound of exactly N, and
    another bound of exactly a whole number came out right (so the strictness of the inequality is
    understood: rounding decides which whole-number bounds fall short)."""
    below = all(case.whole and value == case.accepted[0] - 1 for _, case, value in wrong)
    right = any(case.whole and value in case.accepted for _, case, value in answers)
    return below and right


def check_needed_bad_inputs(sub) -> None:
    """delta, sigma or num_se <= 0, NaN or inf raise ValueError."""
    expect_bad_inputs_refused(
        sub.samples_needed,
        [
            BadInput("delta = 0", {"delta": 0.0, "sigma": 1.0, "num_se": 2.0}),
            BadInput("delta = -0.1", {"delta": -0.1, "sigma": 1.0, "num_se": 2.0}, public="a negative delta"),
            BadInput("sigma = 0", {"delta": 0.1, "sigma": 0.0, "num_se": 2.0}),
            BadInput("num_se = -2", {"delta": 0.1, "sigma": 1.0, "num_se": -2.0}, public="a negative num_se"),
            BadInput("num_se = 0", {"delta": 0.1, "sigma": 1.0, "num_se": 0.0}),
            BadInput("delta = nan", {"delta": float("nan"), "sigma": 1.0, "num_se": 2.0}, public="a NaN delta"),
            BadInput("sigma = inf", {"delta": 0.1, "sigma": float("inf"), "num_se": 2.0}, public="an infinite sigma"),
        ],
        name="samples_needed",
    )


# --- arguments of the wrong type ------------------------------------------------------------


def check_type_refusals(sub, ctx, rng) -> None:
    """Arguments of types the statement refuses: for each number of ``samples_needed`` a string, None, a
    list, a 0-d tensor and a bool (True is an int in Python); for ``num_samples`` a whole float and a bool.
    A bool or a float accepted is named (the call returned: its own evidence), and so is another
    exception than ValueError for a non-number (the call raised it while the good call returned: a type
    never checked)."""
    needed = {"delta": rng.choice((0.125, 0.5, 0.7)), "sigma": rng.choice((1.0, 1.5, 1.2)), "num_se": 2.0}
    probs, mask = _inputs(2, [2])
    # The good calls first, outside the diagnosed blocks: a function that raises on every input raises no
    # evidence about types.
    sub.samples_needed(**needed)
    sub.estimate_probability(probs, mask, 5, generator=ctx.generator())
    numbers = []
    for bad_of, described, public, diagnosis in (
        (repr, "a string", "a string", None),
        (lambda good: None, "None", "None", None),
        (lambda good: [good], "a list", "a list", None),
        (torch.tensor, "a 0-d tensor", "a tensor", None),
        (lambda good: True, "True (a bool)", "a bool", MISTAKES["bool_accepted"]),
    ):
        for name, good in needed.items():
            bad = bad_of(good)
            numbers.append(
                BadCall(
                    sub.samples_needed,
                    f"samples_needed() with {name} = {bad!r} ({described})",
                    kwargs={**needed, name: bad},
                    public=Bilingual(
                        f"samples_needed() with {name} given as {public}", f"samples_needed() 的 {name} 为{_ZH[public]}"
                    ),
                    diagnosis=diagnosis,
                )
            )
    with diagnosed(MISTAKES["number_type_not_value_error"], raised_only=True):
        expect_calls_refused(numbers)
    counts = [
        BadCall(
            sub.estimate_probability,
            f"estimate_probability() with num_samples = {bad!r} ({described})",
            kwargs={"probs": probs, "event": mask, "num_samples": bad, "generator": ctx.generator()},
            public=Bilingual(
                f"estimate_probability() with num_samples given as {public}",
                f"estimate_probability() 的 num_samples 为{_ZH[public]}",
            ),
            diagnosis=diagnosis,
        )
        for bad, described, public, diagnosis in (
            (float(rng.randint(2, 20)), "a whole float", "a float", MISTAKES["float_count_accepted"]),
            (True, "a bool", "a bool", MISTAKES["bool_accepted"]),
        )
    ]
    with diagnosed(MISTAKES["count_type_not_value_error"], raised_only=True):
        expect_calls_refused(counts)


_ZH = {
    "a string": "字符串",
    "None": " None",
    "a bool": " bool",
    "a list": "列表",
    "a tensor": "张量",
    "a float": "浮点数",
}
