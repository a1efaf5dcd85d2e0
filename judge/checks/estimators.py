"""Checks of estimators: error bars that cover as often as they claim, estimates right on average.

:func:`expect_calibrated` counts how often ``+- z`` standard errors cover the truth (one
``calibration`` check, an exact binomial test per ``z``); :func:`expect_unbiased` tests the mean
of the estimates against the truth (one ``unbiased`` check). Both name the listed mistake that
explains the failure (``NARROW_DIAGNOSIS``, ``WIDE_DIAGNOSIS``, ``BIASED_DIAGNOSIS`` by default).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

import torch

from judge.checks import stats, tails
from judge.checks.base import CheckFailed, _describe, _mistakes, _misuse, _text, _tolerance, fail, rule
from judge.checks.evidence import DIAGNOSIS_MIN_PVALUE, Evidence, decisive_mistake
from judge.checks.numbers import format_pair
from judge.checks.testing import Context, _context
from judge.i18n import Bilingual
from judge.reports import figures
from judge.reports.report import CheckRecord

__all__ = [
    "expect_calibrated",
    "expect_unbiased",
    "implied_scale",
    "NARROW_DIAGNOSIS",
    "WIDE_DIAGNOSIS",
    "BIASED_DIAGNOSIS",
]


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
    return z / tails.normal_quantile(0.5 + 0.5 * covered / n)


def _coverage_log_likelihood(
    counts: Mapping[float, int], n: int, coverage: Mapping[float, tuple[float, float]]
) -> float:
    """Sum over z of the binomial log-likelihood of the counts, at the coverage in ``[low, high]``
    nearest the observed share (the best member of a composite hypothesis)."""
    total = 0.0
    for z, covered in counts.items():
        low, high = coverage[z]
        total += tails.binom_log_pmf(covered, n, min(max(covered / n, low), high))
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
            p = 2.0 * tails.normal_sf(abs(result.mean - float(expected)) / spread)
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
