"""Hypothesis tests that decide whether a submission's random draws fit their targets.

The judge cannot compare random output with an expected answer, so it asks instead how
likely the observed draws would be if the submission sampled correctly, and fails it only
when that probability falls below a small, budgeted alpha (see ``docs/statistics.md`` and
``judge/checks/budget.py``).  This module holds the tests behind those decisions, on the exact
distribution tails of :mod:`judge.checks.tails` (chi-square, binomial, normal):

* pooling of sparse categories by *expected* count;
* the tests themselves: Williams-corrected G-test (goodness of fit), the lower-tail
  "too regular" test over all cases, the duplicated-row agreement test, and the chance
  that two honest runs with different seeds print the same output;
* the estimators' tests: the coverage test of error bars (an exact two-sided binomial test
  against a composite null) and the unbiasedness z-test of a mean of estimates.

It is pure Python on the standard library (and :mod:`judge.checks.tails`) only, because the
same file runs in the browser under Pyodide; scipy is used only in the tests, to cross-check
these numbers.  Every test returns a small frozen dataclass (as ``scipy.stats`` does) so a
learner can read what was measured, not just a p-value.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from judge.checks.tails import (
    _deviance_term,
    _require_count,
    _require_finite,
    _require_probability,
    binom_cdf,
    binom_sf,
    chi2_cdf,
    chi2_sf,
    normal_sf,
)

__all__ = [
    "Deviation",
    "GTestResult",
    "LowerTailResult",
    "BinomialTailResult",
    "CoverageTestResult",
    "MeanTestResult",
    "coverage_test",
    "mean_test",
    "pool_bins",
    "g_test",
    "too_regular_test",
    "duplicate_agreement_test",
    "identical_draws_probability",
]

# Probabilities handed to the tests must sum to 1 within this (targets are built in float64).
PROBABILITY_SUM_TOLERANCE = 1e-6


# ---------------------------------------------------------------------------------------
# Result records
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deviation:
    """The category whose count is furthest from its expectation, in standard units.

    ``z = (observed - expected) / sqrt(expected)`` is the Pearson residual: roughly a
    standard normal value when the sampler is correct and ``expected`` is not tiny.
    """

    category: int
    observed: int
    expected: float
    z: float


@dataclass(frozen=True)
class GTestResult:
    """Outcome of :func:`g_test`.

    ``statistic`` is the Williams-corrected G (``raw_statistic / williams_q``); ``pvalue``
    is its upper chi-square tail with ``df = bins - 1``.  When nothing is testable (no
    draws, or fewer than 2 pooled bins) ``df`` is 0, the statistics are 0.0 and ``pvalue``
    is 1.0.  ``largest_deviation`` looks at the unpooled categories, to tell a learner
    which token is most off; it is ``None`` only when ``n == 0``, and ``williams_q`` is
    then 1.0.
    """

    statistic: float
    df: int
    pvalue: float
    n: int
    bins: int
    raw_statistic: float
    williams_q: float
    largest_deviation: Deviation | None
    log_atom: float = 0.0  # see log_largest_outcome_probability (0.0: nothing was testable)


@dataclass(frozen=True)
class LowerTailResult:
    """A chi-square statistic judged by its *lower* tail: ``pvalue = chi2_cdf(statistic, df)``.

    ``log_atom`` (when the caller gave the fits' atoms) is the log of the estimated probability
    of the single most likely outcome of all the fits together: the asymptotic lower tail is
    trustworthy only far below it (see :func:`log_largest_outcome_probability`).
    """

    statistic: float
    df: int
    pvalue: float
    log_atom: float | None = None


@dataclass(frozen=True)
class BinomialTailResult:
    """A count judged by its exact upper tail: ``pvalue = P(X >= statistic)``, X ~ Binomial(n, p)."""

    statistic: int
    n: int
    p: float
    expected: float
    pvalue: float


@dataclass(frozen=True)
class CoverageTestResult:
    """Outcome of :func:`coverage_test`: ``covered`` of ``n`` intervals held the true value.

    Under the null the coverage probability lies in ``[low, high]``. ``p_low = P(X <= covered)``
    at ``low`` (too few covers: error bars too narrow), ``p_high = P(X >= covered)`` at ``high``
    (too many: too wide); ``pvalue = min(1, 2 min(p_low, p_high))``; ``direction`` is
    ``"narrow"`` or ``"wide"``, whichever tail is smaller (``"narrow"`` on a tie).
    """

    covered: int
    n: int
    low: float
    high: float
    p_low: float
    p_high: float
    pvalue: float
    direction: str


@dataclass(frozen=True)
class MeanTestResult:
    """Outcome of :func:`mean_test`: is the mean of ``n`` estimates consistent with ``truth``?

    ``standard_error`` is that of the mean (``std / sqrt(n)``); ``z = (mean - truth) /
    standard_error``; ``pvalue`` the two-sided normal tail ``P(|Z| >= |z|)``.
    """

    mean: float
    truth: float
    n: int
    standard_error: float
    z: float
    pvalue: float


# ---------------------------------------------------------------------------------------
# Input validation
# ---------------------------------------------------------------------------------------


def _require_counts(values: Sequence[int], name: str) -> list[int]:
    """Counts as a list of ints, validated in bulk (the per-element path only names the culprit)."""
    try:
        counts = list(map(operator.index, values))
    except TypeError:
        counts = []
    if len(counts) != len(values) or (counts and min(counts) < 0):
        for index, value in enumerate(values):
            _require_count(value, f"{name}[{index}]")
    return counts


def _require_non_negative_finite(values: Sequence[float], name: str, what: str) -> list[float]:
    """Floats, validated in bulk (a NaN or infinity makes the sum non-finite)."""
    floats = list(map(float, values))
    if floats and (min(floats) < 0.0 or not math.isfinite(sum(floats))):
        for index, value in enumerate(floats):
            if not (value >= 0.0 and math.isfinite(value)):
                raise ValueError(f"{name}[{index}] must be a finite {what} >= 0, got {value!r}")
    return floats


def _require_distribution(probs: Sequence[float], name: str) -> list[float]:
    values = _require_non_negative_finite(probs, name, "probability")
    total = math.fsum(values)
    if abs(total - 1.0) > PROBABILITY_SUM_TOLERANCE:
        raise ValueError(f"{name} must sum to 1 (within {PROBABILITY_SUM_TOLERANCE:g}), got {total!r}")
    return values


# ---------------------------------------------------------------------------------------
# The estimators' tests
# ---------------------------------------------------------------------------------------


def coverage_test(covered: int, n: int, low: float, high: float | None = None) -> CoverageTestResult:
    """Did ``covered`` of ``n`` independent intervals hold the truth as often as they should?

    The null hypothesis: each interval covers independently with a probability in ``[low,
    high]`` (one value when ``high`` is None: the coverage computed exactly; a range when it is
    only bounded). The test is exact and two-sided: ``P(X <= covered)`` at ``low`` and ``P(X >=
    covered)`` at ``high`` (the least extreme member of the composite null on each side), the
    smaller one doubled. Raises ValueError unless ``0 <= covered <= n`` are integers and ``0 <=
    low <= high <= 1``.
    """
    covered = _require_count(covered, "covered")
    n = _require_count(n, "n")
    if covered > n:
        raise ValueError(f"covered ({covered}) cannot exceed n ({n})")
    low = _require_probability(low, "low")
    high = low if high is None else _require_probability(high, "high")
    if high < low:
        raise ValueError(f"high ({high!r}) must be >= low ({low!r})")
    p_low = binom_cdf(covered, n, low)
    p_high = binom_sf(covered, n, high)
    return CoverageTestResult(
        covered=covered,
        n=n,
        low=low,
        high=high,
        p_low=p_low,
        p_high=p_high,
        pvalue=min(1.0, 2.0 * min(p_low, p_high)),
        direction="narrow" if p_low <= p_high else "wide",
    )


def mean_test(values: Sequence[float], truth: float, std: float | None = None) -> MeanTestResult:
    """Two-sided z-test that ``values`` (independent estimates) have mean ``truth``.

    ``std``: the exact standard deviation of one estimate under the null (or None: the sample
    standard deviation, with n - 1). The mean is summed with ``math.fsum``. With a known ``std``
    of 0 (or a sample std of 0) the test is exact: p = 1 when the mean equals ``truth`` (to
    1e-12 relative), else 0. Raises ValueError for fewer than 2 values, a non-finite value or
    truth, or a negative or non-finite ``std``.
    """
    data = [_require_finite(v, f"values[{i}]") for i, v in enumerate(values)]
    n = len(data)
    if n < 2:
        raise ValueError(f"need at least 2 values, got {n}")
    truth = _require_finite(truth, "truth")
    mean = math.fsum(data) / n
    if std is None:
        spread = math.sqrt(math.fsum((v - mean) ** 2 for v in data) / (n - 1))
    else:
        spread = _require_finite(std, "std")
        if spread < 0:
            raise ValueError(f"std must be >= 0, got {std!r}")
    standard_error = spread / math.sqrt(n)
    if standard_error == 0.0:
        same = abs(mean - truth) <= 1e-12 * max(1.0, abs(truth))
        return MeanTestResult(mean, truth, n, 0.0, 0.0 if same else math.copysign(math.inf, mean - truth), float(same))
    z = (mean - truth) / standard_error
    return MeanTestResult(mean, truth, n, standard_error, z, min(1.0, 2.0 * normal_sf(abs(z))))


# ---------------------------------------------------------------------------------------
# Pooling and the tests
# ---------------------------------------------------------------------------------------


def pool_bins(expected: Sequence[float], min_expected: float = 10.0) -> list[list[int]]:
    """Group categories so that every group expects at least ``min_expected`` draws.

    Categories with ``expected > 0`` are sorted by expected count, ascending (ties keep
    index order), and accumulated into the current group until its expected sum reaches
    ``min_expected``; a trailing group that stays short is merged into the previous one.
    So every group reaches ``min_expected`` whenever the total does.  Returns lists of
    category indices, groups in the order built.  Categories with expected 0 are left out
    (support is checked elsewhere).  Bins depend on expected counts only: choosing them
    from observed counts would make the test's null distribution wrong.  Raises ValueError
    for a negative, NaN or infinite expected count, or a negative or non-finite
    ``min_expected``.
    """
    values = _require_non_negative_finite(expected, "expected", "count")
    min_expected = float(min_expected)
    if not (min_expected >= 0.0 and math.isfinite(min_expected)):
        raise ValueError(f"min_expected must be a finite number >= 0, got {min_expected!r}")

    return _pool_validated(values, min_expected)


def _pool_validated(values: list[float], min_expected: float) -> list[list[int]]:
    positive = [index for index, e in enumerate(values) if e > 0.0]
    positive.sort(key=values.__getitem__)  # stable: ties stay in index order
    groups: list[list[int]] = []
    current: list[int] = []
    current_sum = 0.0
    for index in positive:
        current.append(index)
        current_sum += values[index]
        if current_sum >= min_expected:
            groups.append(current)
            current = []
            current_sum = 0.0
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def _largest_deviation(observed: list[int], expected: list[float]) -> Deviation | None:
    best_index = -1
    best_z_squared = -1.0
    for index, (o, e) in enumerate(zip(observed, expected, strict=True)):
        if e > 0.0:
            z_squared = (o - e) * (o - e) / e
            if z_squared > best_z_squared:
                best_index, best_z_squared = index, z_squared
    if best_index < 0:
        return None
    e = expected[best_index]
    o = observed[best_index]
    return Deviation(category=best_index, observed=o, expected=e, z=(o - e) / math.sqrt(e))


def g_test(observed: Sequence[int], probs: Sequence[float], min_expected: float = 10.0) -> GTestResult:
    """Goodness of fit of category counts to target probabilities (G-test, Williams-corrected).

    ``observed[i]`` is how often category i was drawn (an integer >= 0) and ``probs[i]`` its
    target probability; the two must have the same length and ``probs`` must sum to 1
    within 1e-6 (it is renormalized to sum exactly 1).  With ``n = sum(observed)``, the
    expected counts ``n * probs`` are pooled by :func:`pool_bins`; over the k pooled bins

        G = 2 * sum O ln(O / E),   q = 1 + (k + 1) / (6 n),   statistic = G / q,

    and the p-value is the chi-square upper tail with ``k - 1`` degrees of freedom.  With
    no draws or fewer than 2 bins, df is 0 and the p-value 1.0.

    Raises ValueError for mismatched lengths, a bad count or probability, probabilities
    that do not sum to 1, or any draw of a category whose probability is 0 (the support
    check should have caught it first; the message names the category).
    """
    if len(observed) != len(probs):
        raise ValueError(f"observed has {len(observed)} categories but probs has {len(probs)}")
    counts = _require_counts(observed, "observed")
    targets = _require_distribution(probs, "probs")
    min_expected = float(min_expected)
    if not (min_expected >= 0.0 and math.isfinite(min_expected)):
        raise ValueError(f"min_expected must be a finite number >= 0, got {min_expected!r}")
    if 0.0 in targets:
        for index, (o, p) in enumerate(zip(counts, targets, strict=True)):
            if p == 0.0 and o > 0:
                raise ValueError(f"category {index} was drawn {o} times but its target probability is 0")

    n = sum(counts)
    if n == 0:
        return GTestResult(0.0, 0, 1.0, 0, 0, 0.0, 1.0, None)

    scale = n / math.fsum(targets)
    expected = [scale * p for p in targets]
    groups = _pool_validated(expected, min_expected)
    bins = len(groups)
    williams_q = 1.0 + (bins + 1) / (6.0 * n)
    deviation = _largest_deviation(counts, expected)
    if bins < 2:
        return GTestResult(0.0, 0, 1.0, n, bins, 0.0, williams_q, deviation)

    # sum O ln(O/E) equals sum [O ln(O/E) + E - O] because the E sum to n; the second form
    # has non-negative terms and is computed without cancellation.
    raw = 2.0 * math.fsum(
        _deviance_term(
            float(sum(map(counts.__getitem__, group))),
            math.fsum(map(expected.__getitem__, group)),
        )
        for group in groups
    )
    statistic = raw / williams_q
    df = bins - 1
    pooled_expected = [math.fsum(map(expected.__getitem__, group)) for group in groups]
    return GTestResult(
        statistic=statistic,
        df=df,
        pvalue=chi2_sf(statistic, df),
        n=n,
        bins=bins,
        raw_statistic=raw,
        williams_q=williams_q,
        largest_deviation=deviation,
        log_atom=log_largest_outcome_probability(pooled_expected),
    )


def log_largest_outcome_probability(expected: Sequence[float]) -> float:
    """Log of the probability of the single most likely vector of counts of a multinomial with
    (pooled) expected counts ``expected`` (all > 0), by the local central limit theorem:

        P(mode) ~ sqrt(2 pi n) * prod_j (2 pi E_j) ** -1/2,   n = sum E_j,

    capped at 0 (a probability).  Accurate within a few percent once every ``E_j`` is 10 or
    more (what :func:`pool_bins` guarantees); the callers keep a margin of 1 000 on top of it.

    Why it matters: a statistic computed from counts takes discrete values, and the lowest of
    them (counts equal to their rounded expectation) has about this probability.  The chi-square
    *lower* tail treats the statistic as continuous, so it can only be trusted at levels far
    below this atom: a fair coin tossed 4 000 times at p = 0.3 lands exactly on 1 200 heads with
    probability 1.4 %, where the continuous tail says G = 0 has probability 0.
    """
    values = [float(e) for e in expected]
    if len(values) < 2 or any(not (e > 0.0) or not math.isfinite(e) for e in values):
        return 0.0
    n = math.fsum(values)
    log_atom = 0.5 * math.log(2.0 * math.pi * n) - 0.5 * math.fsum(math.log(2.0 * math.pi * e) for e in values)
    return min(0.0, log_atom)


def too_regular_test(
    statistics: Sequence[float], dfs: Sequence[int], log_atoms: Sequence[float] | None = None
) -> LowerTailResult:
    """Do the goodness-of-fit statistics, taken together, fit *too* well?

    Independent chi-square statistics add up to a chi-square whose df is the sum of theirs.
    A correct sampler puts the sum near its mean; deterministic "perfect" fakes (e.g.
    drawing exact quantiles) put it far below, which the *lower* tail
    ``pvalue = chi2_cdf(sum(statistics), sum(dfs))`` detects.  Empty input or a total df of
    0 gives pvalue 1.0.  ``log_atoms`` (one per statistic, from :class:`GTestResult`) add up to
    the result's ``log_atom``: the fits are independent, so the most likely joint outcome has
    the product of their probabilities.  Raises ValueError for mismatched lengths, a negative
    or non-finite statistic, or a df that is not an integer >= 0.
    """
    if len(statistics) != len(dfs):
        raise ValueError(f"{len(statistics)} statistics but {len(dfs)} degrees of freedom")
    values = [_require_finite(s, f"statistics[{i}]") for i, s in enumerate(statistics)]
    for index, s in enumerate(values):
        if s < 0.0:
            raise ValueError(f"statistics[{index}] must be >= 0, got {s!r}")
    degrees = [_require_count(df, f"dfs[{i}]") for i, df in enumerate(dfs)]
    total = math.fsum(values)
    total_df = sum(degrees)
    log_atom = None
    if log_atoms is not None:
        if len(log_atoms) != len(values):
            raise ValueError(f"{len(values)} statistics but {len(log_atoms)} atoms")
        log_atom = math.fsum(min(0.0, _require_finite(a, f"log_atoms[{i}]")) for i, a in enumerate(log_atoms))
    if total_df == 0:
        return LowerTailResult(statistic=total, df=0, pvalue=1.0, log_atom=log_atom)
    return LowerTailResult(statistic=total, df=total_df, pvalue=chi2_cdf(total, total_df), log_atom=log_atom)


def duplicate_agreement_test(agreements: int, n: int, p_agree: float) -> BinomialTailResult:
    """Do two duplicated rows agree more often than independent draws would?

    Two rows with the same target, drawn independently, agree at a position with
    probability ``p_agree = sum_j p_j ** 2``, so over ``n`` positions the agreements are
    Binomial(n, p_agree); ``pvalue = P(X >= agreements)`` exactly.  A sampler that reuses
    one uniform across rows agrees far too often.  Raises ValueError unless
    ``0 <= agreements <= n`` are integers and ``0 <= p_agree <= 1``.
    """
    agreements = _require_count(agreements, "agreements")
    n = _require_count(n, "n")
    p_agree = _require_probability(p_agree, "p_agree")
    if agreements > n:
        raise ValueError(f"agreements ({agreements}) cannot exceed n ({n})")
    return BinomialTailResult(
        statistic=agreements,
        n=n,
        p=p_agree,
        expected=n * p_agree,
        pvalue=binom_sf(agreements, n, p_agree),
    )


def identical_draws_probability(probs_rows: Sequence[Sequence[float]], n: int) -> float:
    """Chance that two independent correct runs of ``n`` draws per row print identical output.

    Equals ``prod over rows of (sum_j p_j ** 2) ** n``, computed in log space (it may
    underflow to 0.0).  A seed check that demands different output for different seeds
    falsely fails a correct sampler with exactly this probability.  Each row must be a
    probability vector (non-negative, summing to 1 within 1e-6) and ``n`` an integer >= 0;
    otherwise ValueError.
    """
    n = _require_count(n, "n")
    log_probability = 0.0
    for row_index, row in enumerate(probs_rows):
        values = _require_distribution(row, f"probs_rows[{row_index}]")
        collision = math.fsum(p * p for p in values)
        log_probability += n * math.log(collision) if n else 0.0
    return math.exp(log_probability)
