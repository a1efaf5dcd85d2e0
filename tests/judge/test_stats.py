"""judge/checks/stats.py: exact tails cross-checked against scipy, pooling properties, the tests' contracts.

scipy is a test-only dependency here: the module under test must stay pure Python.
"""

from __future__ import annotations

import ast
import math
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from scipy import stats as scipy_stats

from judge.checks import stats, tails
from judge.checks.stats import (
    BinomialTailResult,
    Deviation,
    GTestResult,
    LowerTailResult,
    duplicate_agreement_test,
    g_test,
    identical_draws_probability,
    pool_bins,
    too_regular_test,
)
from judge.checks.tails import binom_sf, chi2_cdf, chi2_sf, regularized_gamma_p, regularized_gamma_q

# The pure-Python statistics the browser runs: the tests and the tails they stand on.
PURE_SOURCES = (Path(stats.__file__), Path(tails.__file__))
RELATIVE_TOLERANCE = 1e-9
# Below this scipy's own binomial tail drifts (checked against mpmath); ours stays at ~1e-13.
SCIPY_ACCURATE_DOWN_TO = 1e-250


def assert_close(got: float, want: float, rel: float = RELATIVE_TOLERANCE) -> None:
    assert got == pytest.approx(want, rel=rel, abs=1e-300), f"got {got!r}, scipy says {want!r}"


def zipf_probs(vocabulary: int, exponent: float = 1.1) -> list[float]:
    weights = [1.0 / (rank + 1) ** exponent for rank in range(vocabulary)]
    total = math.fsum(weights)
    return [w / total for w in weights]


def quantile_counts(probs: list[float], n: int) -> list[int]:
    """The 'perfect' deterministic fake: floor(n p) per category, remainders to the largest."""
    counts = [math.floor(n * p) for p in probs]
    by_remainder = sorted(range(len(probs)), key=lambda i: n * probs[i] - counts[i], reverse=True)
    for i in by_remainder[: n - sum(counts)]:
        counts[i] += 1
    return counts


# --------------------------------------------------------------------------- pure Python


@pytest.mark.parametrize("source", PURE_SOURCES, ids=lambda path: path.name)
def test_stats_imports_only_the_standard_library(source: Path) -> None:
    """stats.py imports the standard library and tails.py; tails.py the standard library only."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports would pull in judge modules Pyodide lacks"
            imported.add(node.module)
    allowed = {"judge.checks.tails"} if source.name == "stats.py" else set()
    non_stdlib = {name for name in imported if name.split(".")[0] not in sys.stdlib_module_names} - allowed
    assert not non_stdlib, f"judge/checks/{source.name} must run in Pyodide; it imports {sorted(non_stdlib)}"


# --------------------------------------------------------------------------- chi-square tails

CHI2_DFS = [1, 2, 3, 7, 10, 50, 100, 1_000, 10_000, 100_000]
TAIL_PROBABILITIES = [0.5, 0.05, 1e-6, 1e-12, 1e-100, 1e-250]


@pytest.mark.parametrize("df", CHI2_DFS)
@pytest.mark.parametrize("tail", TAIL_PROBABILITIES)
def test_chi2_sf_matches_scipy_into_the_extreme_upper_tail(df: int, tail: float) -> None:
    x = scipy_stats.chi2.isf(tail, df)
    assert_close(chi2_sf(x, df), scipy_stats.chi2.sf(x, df))


@pytest.mark.parametrize("df", CHI2_DFS)
@pytest.mark.parametrize("tail", TAIL_PROBABILITIES)
def test_chi2_cdf_matches_scipy_into_the_extreme_lower_tail(df: int, tail: float) -> None:
    x = scipy_stats.chi2.ppf(tail, df)
    assert_close(chi2_cdf(x, df), scipy_stats.chi2.cdf(x, df))


def test_chi2_sf_with_two_df_is_exactly_exponential_down_to_1e_minus_300() -> None:
    for x in [1e-8, 0.3, 2.0, 40.0, 400.0, 1_380.0]:
        assert_close(chi2_sf(x, 2), math.exp(-x / 2), rel=1e-12)


def test_chi2_tails_at_the_edges() -> None:
    assert chi2_sf(0.0, 5) == 1.0
    assert chi2_sf(-3.0, 5) == 1.0
    assert chi2_cdf(0.0, 5) == 0.0
    assert chi2_cdf(-3.0, 5) == 0.0
    assert chi2_sf(math.inf, 5) == 0.0
    assert chi2_cdf(math.inf, 5) == 1.0
    # Huge arguments underflow quietly instead of overflowing or looping.
    assert chi2_sf(1e6, 1) == 0.0
    assert chi2_sf(1e6, 100_000) == 0.0
    assert chi2_cdf(1e6, 100_000) == 1.0
    assert chi2_cdf(1e3, 100_000) == 0.0


@settings(max_examples=200, deadline=None)
@given(
    df=st.floats(min_value=0.5, max_value=2e5),
    ratio=st.floats(min_value=0.0, max_value=10.0),
)
def test_chi2_tails_are_complementary_and_in_range(df: float, ratio: float) -> None:
    x = df * ratio
    upper, lower = chi2_sf(x, df), chi2_cdf(x, df)
    assert 0.0 <= upper <= 1.0 and 0.0 <= lower <= 1.0
    assert upper + lower == pytest.approx(1.0, abs=1e-12)


# --------------------------------------------------------------------------- incomplete gamma


@pytest.mark.parametrize("a", [0.05, 0.5, 1.0, 2.5, 17.3, 250.0, 4_999.5, 50_000.0])
@pytest.mark.parametrize("ratio", [1e-3, 0.2, 0.9, 1.0, 1.1, 3.0, 20.0])
def test_regularized_gammas_match_scipy_on_a_grid(a: float, ratio: float) -> None:
    x = a * ratio
    assert_close(regularized_gamma_p(a, x), special.gammainc(a, x))
    assert_close(regularized_gamma_q(a, x), special.gammaincc(a, x))


@settings(max_examples=300, deadline=None)
@given(
    a=st.floats(min_value=0.05, max_value=1e4),
    log_ratio=st.floats(min_value=-3.0, max_value=1.5),
)
def test_regularized_gammas_match_scipy(a: float, log_ratio: float) -> None:
    x = a * 10.0**log_ratio
    assert_close(regularized_gamma_p(a, x), special.gammainc(a, x))
    assert_close(regularized_gamma_q(a, x), special.gammaincc(a, x))


@pytest.mark.parametrize(("x", "rel"), [
    # Each branch of the asymptotic series from where it starts; the shortcut past 500 leaves out
    # a term of ~2.5e-17, 1.5e-13 of the value at 500.
    (15.01, 1e-13), (15.5, 1e-13), (20.0, 1e-13), (35.01, 1e-13), (50.0, 1e-13), (80.01, 1e-13),
    (200.0, 1e-13), (500.0, 1e-13), (500.01, 2e-13), (1e4, 1e-13), (1e8, 1e-13),
])
def test_stirlings_error_keeps_its_relative_accuracy_on_every_branch(x: float, rel: float) -> None:
    """What the saddle-point binomial and the large-a gamma prefactor rest on: agreement with a
    50-digit reference, relative to the error itself (it is ~1 / (12 x), and is subtracted)."""
    import mpmath  # torch's own dependency (through sympy): always there where the suite runs
    mpmath.mp.dps = 50
    big = mpmath.mpf(x)
    want = mpmath.loggamma(big + 1) - (big + mpmath.mpf("0.5")) * mpmath.log(big) + big - mpmath.log(
        mpmath.sqrt(2 * mpmath.pi))
    assert abs((mpmath.mpf(tails._stirling_error(x)) - want) / want) < rel


def test_a_numpy_float32_argument_is_computed_in_double_precision() -> None:
    """A check may hand over a value it read from a float32 array; the tail is computed from that
    value as a Python float, not in float32 arithmetic (7 digits)."""
    for a, x in ((2.5, np.float32(3.7)), (40.0, np.float32(38.2))):
        assert regularized_gamma_p(a, x) == regularized_gamma_p(a, float(x))
        assert regularized_gamma_q(a, x) == regularized_gamma_q(a, float(x))
        assert type(regularized_gamma_p(a, x)) is float


@pytest.mark.parametrize("make", [
    lambda: stats.coverage_test(600, 1000, 0.64, 0.70),
    lambda: stats.mean_test([1.0, 2.0, 4.0], 2.0),
    lambda: g_test([480, 340, 180], [0.5, 0.3, 0.2]),
    lambda: duplicate_agreement_test(30, 100, 0.2),
    lambda: too_regular_test([1.0, 2.0], [2, 3]),
])
def test_a_tests_result_cannot_be_altered_once_made(make) -> None:
    """A result is the record a verdict is built from: no later step may rewrite its p-value."""
    import dataclasses

    result = make()
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'pvalue'"):
        result.pvalue = 1.0
    assert result == make() and hash(result) == hash(make())


def test_regularized_gamma_at_zero_and_infinity() -> None:
    assert regularized_gamma_p(3.0, 0.0) == 0.0
    assert regularized_gamma_q(3.0, 0.0) == 1.0
    assert regularized_gamma_p(3.0, math.inf) == 1.0
    assert regularized_gamma_q(3.0, math.inf) == 0.0


@pytest.mark.parametrize(
    "a, x, message",
    [
        (0.0, 1.0, "shape a must be a finite number > 0, got 0.0"),
        (-1.0, 1.0, "shape a must be a finite number > 0, got -1.0"),
        (math.nan, 1.0, "shape a must be a finite number > 0, got nan"),
        (math.inf, 1.0, "shape a must be a finite number > 0, got inf"),
        (1.0, -0.5, "x must be >= 0, got -0.5"),
        (1.0, math.nan, "x must be >= 0, got nan"),
    ],
)
def test_regularized_gammas_reject_bad_arguments(a: float, x: float, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        regularized_gamma_p(a, x)
    with pytest.raises(ValueError, match=re.escape(message)):
        regularized_gamma_q(a, x)


@pytest.mark.parametrize(
    "x, df, message",
    [
        (math.nan, 3, "chi-square statistic must not be NaN"),
        (1.0, 0, "degrees of freedom must be a finite number > 0, got 0.0"),
        (1.0, -2, "degrees of freedom must be a finite number > 0, got -2.0"),
        (1.0, math.nan, "degrees of freedom must be a finite number > 0, got nan"),
    ],
)
def test_chi2_tails_reject_bad_arguments(x: float, df: float, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        chi2_sf(x, df)
    with pytest.raises(ValueError, match=re.escape(message)):
        chi2_cdf(x, df)


@pytest.mark.parametrize("x, method", [(50.0, "series"), (200.0, "continued fraction")])
def test_incomplete_gamma_raises_instead_of_looping_forever(monkeypatch, x: float, method: str) -> None:
    monkeypatch.setattr(tails, "_max_iterations", lambda a: 2)
    with pytest.raises(ArithmeticError, match=f"incomplete gamma {method} did not converge for a=100.0, x={x}"):
        regularized_gamma_q(100.0, x)


# --------------------------------------------------------------------------- binomial tail


@pytest.mark.parametrize("n", [1, 7, 100, 20_000, 1_000_000])
@pytest.mark.parametrize("p", [1e-6, 0.003, 0.25, 0.5, 0.97])
def test_binom_sf_matches_scipy(n: int, p: float) -> None:
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    ks = {1, 2, n // 2, n, int(mean), int(mean) + 1, int(mean + 4 * sd) + 1, int(mean + 30 * sd) + 3}
    for k in sorted(k for k in ks if 0 < k <= n):
        want = scipy_stats.binom.sf(k - 1, n, p)
        if want > SCIPY_ACCURATE_DOWN_TO:
            assert_close(binom_sf(k, n, p), want)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=300),
    p=st.floats(min_value=0.0, max_value=1.0),
    data=st.data(),
)
def test_binom_sf_matches_scipy_for_small_n(n: int, p: float, data) -> None:
    k = data.draw(st.integers(min_value=-2, max_value=n + 2))
    want, got = scipy_stats.binom.sf(k - 1, n, p), binom_sf(k, n, p)
    if want > SCIPY_ACCURATE_DOWN_TO:
        assert_close(got, want)
    else:  # scipy's incomplete beta loses digits this deep; only the order of magnitude is checked
        assert got < SCIPY_ACCURATE_DOWN_TO * 1e10


def test_binom_sf_edges_are_exact() -> None:
    assert binom_sf(0, 10, 0.3) == 1.0
    assert binom_sf(-4, 10, 0.3) == 1.0
    assert binom_sf(11, 10, 0.3) == 0.0
    assert binom_sf(1, 10, 0.0) == 0.0
    assert binom_sf(10, 10, 1.0) == 1.0
    assert binom_sf(10, 10, 0.5) == 0.5**10
    assert binom_sf(0, 0, 0.5) == 1.0


@pytest.mark.parametrize(
    "k, n, p, message",
    [
        (1.5, 10, 0.5, "k must be an integer, got 1.5"),
        (1, -1, 0.5, "n must be >= 0, got -1"),
        (1, 10, 1.5, "p must lie in [0, 1], got 1.5"),
        (1, 10, -0.1, "p must lie in [0, 1], got -0.1"),
        (1, 10, math.nan, "p must lie in [0, 1], got nan"),
    ],
)
def test_binom_sf_rejects_bad_arguments(k, n, p, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        binom_sf(k, n, p)


# --------------------------------------------------------------------------- pooling

expected_counts = st.lists(
    st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=200.0)), min_size=0, max_size=60
)


@settings(max_examples=200, deadline=None)
@given(expected=expected_counts, min_expected=st.floats(min_value=0.5, max_value=50.0))
def test_pool_bins_partition_the_positive_categories(expected: list[float], min_expected: float) -> None:
    groups = pool_bins(expected, min_expected)
    pooled = [i for group in groups for i in group]
    assert sorted(pooled) == [i for i, e in enumerate(expected) if e > 0]
    assert all(groups), "no empty bins"


@settings(max_examples=200, deadline=None)
@given(expected=expected_counts, min_expected=st.floats(min_value=0.5, max_value=50.0))
def test_every_bin_expects_enough_when_the_total_does(expected: list[float], min_expected: float) -> None:
    groups = pool_bins(expected, min_expected)
    if sum(expected) >= min_expected * (1 + 1e-12):
        assert all(sum(expected[i] for i in group) >= min_expected for group in groups)
    else:
        assert len(groups) <= 1


@settings(max_examples=200, deadline=None)
@given(expected=expected_counts, min_expected=st.floats(min_value=0.5, max_value=50.0))
def test_pool_bins_walks_categories_in_ascending_expected_order(expected: list[float], min_expected: float) -> None:
    pooled = [i for group in pool_bins(expected, min_expected) for i in group]
    assert pooled == sorted(pooled, key=lambda i: (expected[i], i))


def test_pool_bins_merges_a_short_trailing_group_into_the_previous_one() -> None:
    assert pool_bins([4.0, 0.0, 6.0, 3.0, 9.0], 10.0) == [[3, 0, 2, 4]]
    assert pool_bins([4.0, 0.0, 6.0, 3.0, 10.0, 2.0], 10.0) == [[5, 3, 0, 2], [4]]
    assert pool_bins([4.0, 6.0, 3.0, 5.0], 10.0) == [[2, 0, 3, 1]]
    assert pool_bins([1.0, 2.0], 10.0) == [[0, 1]]
    assert pool_bins([], 10.0) == []
    assert pool_bins([0.0, 0.0], 10.0) == []


@settings(max_examples=100, deadline=None)
@given(
    weights=st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=2, max_size=40).filter(
        lambda w: sum(w) > 0.1
    ),
    n=st.integers(min_value=1, max_value=5_000),
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
)
def test_bins_do_not_depend_on_what_was_observed(weights, n, seeds) -> None:
    total = math.fsum(weights)
    probs = [w / total for w in weights]
    support = [i for i, p in enumerate(probs) if p > 0]
    results = []
    for seed in seeds:
        counts = [0] * len(probs)
        for i in random.Random(seed).choices(support, weights=[probs[i] for i in support], k=n):
            counts[i] += 1
        results.append(g_test(counts, probs))
    bins = len(pool_bins([n * p for p in probs]))
    assert results[0].bins == results[1].bins == bins
    assert results[0].williams_q == results[1].williams_q


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_pool_bins_rejects_bad_expected_counts(bad: float) -> None:
    with pytest.raises(ValueError, match=r"expected\[1\]"):
        pool_bins([3.0, bad, 4.0])


@pytest.mark.parametrize("bad", [-1.0, -1e-300, math.nan, math.inf])
def test_pool_bins_and_g_test_refuse_a_min_expected_that_is_negative_or_not_finite(bad: float) -> None:
    message = re.escape(f"min_expected must be a finite number >= 0, got {bad!r}")
    with pytest.raises(ValueError, match=message):
        pool_bins([3.0, 4.0], bad)
    with pytest.raises(ValueError, match=message):
        g_test([3, 4], [0.5, 0.5], bad)
    assert pool_bins([3.0, 4.0], 0.0) == [[0], [1]]  # the boundary itself is a valid minimum


# --------------------------------------------------------------------------- G-test


def pooled_counts(observed: list[int], probs: list[float], min_expected: float = 10.0):
    n = sum(observed)
    groups = pool_bins([n * p for p in probs], min_expected)
    return (
        [sum(observed[i] for i in group) for group in groups],
        [math.fsum(n * probs[i] for i in group) for group in groups],
    )


@pytest.mark.parametrize("seed", range(4))
def test_g_test_matches_scipy_power_divergence_on_the_same_bins(seed: int) -> None:
    rng = np.random.default_rng(seed)
    probs = zipf_probs(2_000)
    observed = rng.multinomial(3_000, probs).tolist()
    result = g_test(observed, probs)
    pooled_observed, pooled_expected = pooled_counts(observed, probs)
    reference = scipy_stats.power_divergence(
        pooled_observed, pooled_expected, lambda_="log-likelihood"
    )
    assert result.bins == len(pooled_observed)
    assert result.df == result.bins - 1
    assert result.n == 3_000
    assert_close(result.raw_statistic, reference.statistic)
    assert result.williams_q == pytest.approx(1 + (result.bins + 1) / (6 * 3_000))
    assert result.statistic == pytest.approx(result.raw_statistic / result.williams_q)
    assert_close(result.pvalue, scipy_stats.chi2.sf(result.statistic, result.df))


@settings(max_examples=100, deadline=None)
@given(
    weights=st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=2, max_size=30).filter(
        lambda w: sum(w) > 0.1
    ),
    n=st.integers(min_value=1, max_value=2_000),
    seed=st.integers(0, 2**32 - 1),
    min_expected=st.sampled_from([1.0, 5.0, 10.0]),
)
def test_g_test_raw_statistic_matches_scipy(weights, n, seed, min_expected) -> None:
    total = math.fsum(weights)
    probs = [w / total for w in weights]
    observed = np.random.default_rng(seed).multinomial(n, probs).tolist()
    result = g_test(observed, probs, min_expected)
    pooled_observed, pooled_expected = pooled_counts(observed, probs, min_expected)
    if len(pooled_observed) < 2:
        assert (result.df, result.pvalue, result.statistic) == (0, 1.0, 0.0)
        return
    reference = scipy_stats.power_divergence(pooled_observed, pooled_expected, lambda_="log-likelihood")
    assert result.raw_statistic == pytest.approx(reference.statistic, rel=1e-9, abs=1e-9)


def test_g_test_reports_the_most_surprising_category() -> None:
    probs = [0.5, 0.3, 0.2, 0.0]
    result = g_test([480, 340, 180, 0], probs)
    assert isinstance(result, GTestResult)
    z = [(o - 1000 * p) / math.sqrt(1000 * p) for o, p in zip([480, 340, 180], probs)]
    assert result.largest_deviation == Deviation(
        category=1, observed=340, expected=pytest.approx(300.0), z=pytest.approx(z[1])
    )


def test_g_test_with_nothing_to_test() -> None:
    empty = g_test([0, 0, 0], [0.2, 0.3, 0.5])
    assert (empty.df, empty.pvalue, empty.statistic, empty.n, empty.bins) == (0, 1.0, 0.0, 0, 0)
    assert empty.largest_deviation is None
    one_bin = g_test([3, 2, 0], [0.5, 0.5, 0.0])  # 5 draws cannot fill 2 bins of 10
    assert (one_bin.df, one_bin.pvalue, one_bin.statistic, one_bin.bins) == (0, 1.0, 0.0, 1)
    assert one_bin.largest_deviation is not None


def test_g_test_rejects_draws_outside_the_support_naming_the_category() -> None:
    with pytest.raises(ValueError, match="category 2"):
        g_test([5, 5, 1], [0.5, 0.5, 0.0])


@pytest.mark.parametrize(
    "observed, probs, message",
    [
        ([1, 2], [0.5, 0.3, 0.2], "observed has 2 categories but probs has 3"),
        ([1, 2, 3], [0.5, 0.3, 0.3], "probs must sum to 1"),
        ([1, -2, 3], [0.5, 0.3, 0.2], "observed[1] must be >= 0, got -2"),
        ([1, 2.5, 3], [0.5, 0.3, 0.2], "observed[1] must be an integer, got 2.5"),
        ([1, 2, 3], [0.5, math.nan, 0.5], "probs[1] must be a finite probability >= 0, got nan"),
        # sums to 1 and has no zero, so only the sign check can refuse it
        ([1, 2, 3], [0.6, -0.1, 0.5], "probs[1] must be a finite probability >= 0, got -0.1"),
    ],
)
def test_g_test_rejects_bad_input(observed, probs, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        g_test(observed, probs)


def test_g_test_detects_a_small_shift_of_mass() -> None:
    probs = [0.4, 0.3, 0.2, 0.1]
    shifted = [0.37, 0.33, 0.2, 0.1]  # 0.03 of mass moved between the two likeliest tokens
    observed = np.random.default_rng(7).multinomial(16_000, shifted).tolist()
    assert g_test(observed, probs).pvalue < 1e-8


def test_g_test_calibration_smoke() -> None:
    """A correct sampler is rejected at about the nominal rate and its p-values look uniform."""
    probs = zipf_probs(300, exponent=1.3)
    samples = np.random.default_rng(20240601).multinomial(1_500, probs, size=400)
    pvalues = np.array([g_test(row.tolist(), probs).pvalue for row in samples])
    assert 0.05 <= np.mean(pvalues < 0.1) <= 0.15
    assert scipy_stats.kstest(pvalues, "uniform").pvalue > 1e-3


# --------------------------------------------------------------------------- too regular


def test_a_deterministic_perfect_sample_is_too_regular() -> None:
    rows = [zipf_probs(50), [0.5, 0.25, 0.125, 0.0625, 0.0625], zipf_probs(400, 0.8)]
    results = [g_test(quantile_counts(probs, 16_000), probs) for probs in rows]
    verdict = too_regular_test([r.statistic for r in results], [r.df for r in results])
    assert isinstance(verdict, LowerTailResult)
    assert verdict.df == sum(r.df for r in results)
    assert verdict.pvalue < 1e-12
    assert_close(verdict.pvalue, scipy_stats.chi2.cdf(verdict.statistic, verdict.df))


def test_an_honest_sample_is_not_too_regular() -> None:
    rng = np.random.default_rng(11)
    rows = [zipf_probs(50), zipf_probs(400, 0.8)]
    results = [g_test(rng.multinomial(16_000, probs).tolist(), probs) for probs in rows]
    verdict = too_regular_test([r.statistic for r in results], [r.df for r in results])
    assert verdict.pvalue > 1e-3


def test_too_regular_with_nothing_to_test() -> None:
    assert too_regular_test([], []) == LowerTailResult(statistic=0.0, df=0, pvalue=1.0)
    assert too_regular_test([0.0], [0]).pvalue == 1.0


@pytest.mark.parametrize(
    "statistics, dfs, message",
    [
        ([1.0], [1, 2], "1 statistics but 2 degrees of freedom"),
        ([-1.0], [1], "statistics[0] must be >= 0, got -1.0"),
        ([math.nan], [1], "statistics[0] must be a finite number, got nan"),
        ([1.0], [-1], "dfs[0] must be >= 0, got -1"),
        ([1.0], [1.5], "dfs[0] must be an integer, got 1.5"),
    ],
)
def test_too_regular_rejects_bad_input(statistics, dfs, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        too_regular_test(statistics, dfs)


# --------------------------------------------------------------------------- independence and seeds


def test_duplicate_agreement_matches_the_exact_binomial_tail() -> None:
    probs = [0.5, 0.3, 0.2]
    p_agree = sum(p * p for p in probs)
    result = duplicate_agreement_test(3_000, 8_000, p_agree)
    assert isinstance(result, BinomialTailResult)
    assert (result.statistic, result.n, result.p) == (3_000, 8_000, p_agree)
    assert result.expected == pytest.approx(8_000 * p_agree)
    assert_close(result.pvalue, scipy_stats.binom.sf(2_999, 8_000, p_agree))


def test_rows_sharing_one_uniform_agree_far_too_often() -> None:
    rng = random.Random(3)
    probs = [0.5, 0.3, 0.2]
    cumulative = [0.5, 0.8, 1.0]

    def draw(u: float) -> int:
        return next(i for i, c in enumerate(cumulative) if u < c)

    uniforms = [rng.random() for _ in range(2_000)]
    shared = sum(draw(u) == draw(u) for u in uniforms)
    independent = sum(draw(u) == draw(rng.random()) for u in uniforms)
    p_agree = sum(p * p for p in probs)
    assert duplicate_agreement_test(shared, 2_000, p_agree).pvalue < 1e-8
    assert duplicate_agreement_test(independent, 2_000, p_agree).pvalue > 1e-4


@pytest.mark.parametrize(
    "agreements, n, p, message",
    [
        (5, 4, 0.5, "agreements (5) cannot exceed n (4)"),
        (-1, 4, 0.5, "agreements must be >= 0, got -1"),
        (1, 4, 1.5, "p_agree must lie in [0, 1], got 1.5"),
        (1, -4, 0.5, "n must be >= 0, got -4"),
    ],
)
def test_duplicate_agreement_rejects_bad_input(agreements, n, p, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        duplicate_agreement_test(agreements, n, p)


def test_identical_draws_probability() -> None:
    rows = [[0.5, 0.5], [0.9, 0.1, 0.0]]
    assert identical_draws_probability(rows, 3) == pytest.approx(0.5**3 * 0.82**3, rel=1e-12)
    assert identical_draws_probability(rows, 0) == 1.0
    assert identical_draws_probability([[1.0]], 1_000) == 1.0
    assert identical_draws_probability([zipf_probs(1_000)], 16_000) == 0.0  # underflows quietly


@pytest.mark.parametrize(
    "rows, n, message",
    [
        ([[0.5, 0.6]], 3, "probs_rows[0] must sum to 1"),
        ([[1.5, -0.5]], 3, "probs_rows[0][1] must be a finite probability >= 0, got -0.5"),
        ([[0.5, 0.5]], -1, "n must be >= 0, got -1"),
    ],
)
def test_identical_draws_probability_rejects_bad_input(rows, n, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        identical_draws_probability(rows, n)
