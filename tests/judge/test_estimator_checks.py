"""The estimator checks: error bars judged by their coverage, estimates by their mean.

Each check is tested the way a learner meets it: right error bars pass (and, over many seeds, fail
no more often than their level), error bars off by a realistic factor fail with the right
direction and the diagnosis of the mistake that produces them, and a test that calls the check
wrongly gets a CheckMisuse, never a learner's verdict. The stats underneath are cross-checked
against scipy.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from judge.checks import estimators, exact, independence
from judge.checks import stats, tails
from judge.checks.budget import BudgetDeclaration, BudgetExceeded, FalseFailureBudget
from judge.checks.base import CheckFailed, CheckMisuse
from judge.checks.estimators import expect_calibrated, expect_unbiased
from judge.checks.testing import Context

P_TRUE, N_DRAWS = 0.3, 400


def _ctx(calibration: int = 2, unbiased: int = 2) -> Context:
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(calibration=calibration, unbiased=unbiased))
    return Context(seed=1, device="cpu", budget=budget)


def wald_coverage(p: float, n: int, z: float) -> float:
    """Exact coverage of the Wald interval k/n +- z sqrt(k/n (1-k/n) / n): sum of the binomial pmf."""
    total = 0.0
    for k in range(n + 1):
        share = k / n
        if abs(share - p) <= z * math.sqrt(share * (1 - share) / n):
            total += math.exp(tails.binom_log_pmf(k, n, p))
    return total


COVERAGE = {1.0: wald_coverage(P_TRUE, N_DRAWS, 1.0), 2.0: wald_coverage(P_TRUE, N_DRAWS, 2.0)}


def proportions(m: int, seed: int, *, scale: float = 1.0, n: int = N_DRAWS) -> tuple[torch.Tensor, torch.Tensor]:
    """m Wald estimates of P_TRUE from n draws each, their standard errors multiplied by ``scale``."""
    generator = torch.Generator().manual_seed(seed)
    hits = (torch.rand(m, n, generator=generator, dtype=torch.float64) < P_TRUE).sum(1).to(torch.float64)
    share = hits / n
    return share, scale * torch.sqrt(share * (1 - share) / n)


def _mistake_coverages(scale: float) -> dict[float, float]:
    """The coverage of Wald intervals whose standard errors are multiplied by ``scale``."""
    return {z: wald_coverage(P_TRUE, N_DRAWS, z * scale) for z in (1.0, 2.0)}


MISTAKES = {
    "divides by n instead of sqrt(n)": _mistake_coverages(1 / math.sqrt(N_DRAWS)),
    "twice too wide": _mistake_coverages(2.0),
}


def test_exact_coverage_of_wald_intervals_is_near_but_not_the_normal_figure():
    assert COVERAGE[1.0] == pytest.approx(tails.normal_coverage(1.0), abs=0.03)
    assert COVERAGE[2.0] == pytest.approx(tails.normal_coverage(2.0), abs=0.02)
    assert COVERAGE[1.0] != pytest.approx(tails.normal_coverage(1.0), abs=1e-4)


def test_correct_error_bars_pass_and_record_one_check_per_z():
    ctx = _ctx()
    estimates, errors = proportions(2000, seed=1)
    results = expect_calibrated(ctx, estimates, errors, P_TRUE, label="p-hat", coverage=COVERAGE)
    assert set(results) == {1.0, 2.0}
    assert [r.kind for r in ctx.records] == ["calibration", "calibration"]
    assert all(r.passed for r in ctx.records)
    assert ctx.budget.used["calibration"] == 1
    assert ctx.records[0].alpha == pytest.approx(ctx.budget.alpha("calibration") / 2)


def test_correct_error_bars_pass_under_many_seeds():
    """At the real level a failure here would be a one-in-10^5 event; checked at a relaxed level too."""
    rejections = 0
    for seed in range(200):
        ctx = _ctx()
        estimates, errors = proportions(500, seed=1000 + seed)
        results = expect_calibrated(ctx, estimates, errors, P_TRUE, label="p-hat", coverage=COVERAGE)
        rejections += any(r.pvalue < 0.01 for r in results.values())
    # Two tests at 0.01 each, two-sided doubled tails of a discrete count: at most ~2 % rejections.
    assert rejections <= 12


@pytest.mark.parametrize(
    ("scale", "direction", "diagnosis"),
    [
        (1 / math.sqrt(N_DRAWS), "narrow", "divides by n instead of sqrt(n)"),
        (2.0, "wide", "twice too wide"),
        (0.6, "narrow", estimators.NARROW_DIAGNOSIS),
        (1.5, "wide", estimators.WIDE_DIAGNOSIS),
    ],
)
def test_error_bars_off_by_a_factor_fail_with_their_direction_and_diagnosis(scale, direction, diagnosis):
    ctx = _ctx()
    estimates, errors = proportions(2000, seed=2, scale=scale)
    with pytest.raises(CheckFailed) as failed:
        expect_calibrated(ctx, estimates, errors, P_TRUE, label="p-hat", coverage=COVERAGE, mistakes=MISTAKES)
    assert failed.value.diagnosis == diagnosis
    assert ("too rarely" if direction == "narrow" else "too often") in str(failed.value.rule)
    assert "covered the true value" in failed.value.message


def test_the_message_reports_the_implied_scale_of_the_errors():
    ctx = _ctx()
    estimates, errors = proportions(4000, seed=3, scale=0.5)
    with pytest.raises(CheckFailed) as failed:
        expect_calibrated(ctx, estimates, errors, P_TRUE, label="p-hat", coverage=COVERAGE)
    scale = float(failed.value.message.split("spread about ")[1].split(" times")[0])
    assert scale == pytest.approx(2.0, rel=0.15)


def test_a_composite_null_accepts_any_coverage_inside_its_range():
    """A range (low, high) is for procedures whose coverage is only bounded: a count at either end passes."""
    for covered in (640, 700):
        result = stats.coverage_test(covered, 1000, 0.64, 0.70)
        assert result.pvalue == 1.0 or result.pvalue > 0.5
    assert stats.coverage_test(600, 1000, 0.64, 0.70).direction == "narrow"
    assert stats.coverage_test(760, 1000, 0.64, 0.70).direction == "wide"


def test_per_row_truths_and_a_negative_error():
    ctx = _ctx()
    estimates, errors = proportions(1000, seed=4)
    shifted = estimates + torch.arange(1000, dtype=torch.float64)
    truth = P_TRUE + torch.arange(1000, dtype=torch.float64)
    expect_calibrated(ctx, shifted, errors, truth, label="p-hat", coverage=COVERAGE)
    errors[5] = -0.1
    with pytest.raises(CheckFailed, match="never negative"):
        expect_calibrated(ctx, shifted, errors, truth, label="p-hat", coverage=COVERAGE)


@pytest.mark.parametrize(
    ("estimates", "errors", "text"),
    [
        ([0.3, 0.3], torch.ones(2), "1-D floating tensor"),
        (torch.ones(2, 2), torch.ones(2), "1-D floating tensor"),
        (torch.ones(3, dtype=torch.int64), torch.ones(3), "1-D floating tensor"),
        (torch.tensor([0.3, float("nan")]), torch.ones(2), "finite"),
        (torch.ones(3), torch.ones(2), "holds 2 values, expected 3"),
        (torch.ones(3), torch.tensor([1.0, float("inf"), 1.0]), "finite"),
    ],
)
def test_whatever_the_learner_returns_is_a_verdict_never_a_crash(estimates, errors, text):
    with pytest.raises(CheckFailed, match=text):
        expect_calibrated(_ctx(), estimates, errors, 0.3, label="p-hat", coverage=COVERAGE)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"coverage": {}}, "coverage"),
        ({"coverage": {1.0: 1.5}}, "coverage"),
        ({"coverage": {-1.0: 0.5}}, "coverage"),
        ({"coverage": {1.0: (0.7, 0.6)}}, "coverage"),
        ({"coverage": COVERAGE, "truth": "0.3"}, "truth"),
        ({"coverage": COVERAGE, "truth": float("nan")}, "truth"),
        ({"coverage": COVERAGE, "label": 3}, "label"),
        ({"coverage": COVERAGE, "mistakes": 3}, "mistakes"),
    ],
)
def test_a_test_that_calls_it_wrongly_gets_a_misuse(kwargs, argument):
    call = {"label": "p-hat", "truth": 0.3, **kwargs}
    truth = call.pop("truth")
    with pytest.raises(CheckMisuse, match=argument):
        expect_calibrated(_ctx(), torch.ones(3), torch.ones(3), truth, **call)


def test_a_mistake_table_with_other_z_is_a_misuse():
    ctx = _ctx()
    estimates, errors = proportions(2000, seed=5, scale=0.05)
    with pytest.raises(CheckMisuse, match="same z"):
        expect_calibrated(ctx, estimates, errors, P_TRUE, label="p", coverage=COVERAGE, mistakes={"x": {3.0: 0.5}})


def test_undeclared_calibration_is_refused():
    ctx = _ctx(calibration=0)
    estimates, errors = proportions(100, seed=6)
    with pytest.raises(BudgetExceeded, match="this suite declared no calibration checks"):
        expect_calibrated(ctx, estimates, errors, P_TRUE, label="p", coverage=COVERAGE)


# --- unbiasedness ---------------------------------------------------------------------------------


def test_an_unbiased_estimator_passes_with_a_known_or_a_sample_std():
    estimates, _ = proportions(1000, seed=7)
    std = math.sqrt(P_TRUE * (1 - P_TRUE) / N_DRAWS)
    ctx = _ctx()
    result = expect_unbiased(ctx, estimates, P_TRUE, std=std, label="p-hat")
    assert result.pvalue > 1e-4 and ctx.records[-1].kind == "unbiased"
    assert expect_unbiased(ctx, estimates, P_TRUE, std=None, label="p-hat").pvalue > 1e-4


def test_a_biased_estimator_fails_with_the_nearest_known_mistake():
    estimates, _ = proportions(1000, seed=8)
    n = N_DRAWS
    biased = estimates * n / (n + 20)  # a shrunk estimator: mean P_TRUE n / (n + 20)
    std = math.sqrt(P_TRUE * (1 - P_TRUE) / n)
    ctx = _ctx()
    with pytest.raises(CheckFailed) as failed:
        expect_unbiased(
            ctx,
            biased,
            P_TRUE,
            std=std,
            label="p-hat",
            mistakes={"divides by n + 20": P_TRUE * n / (n + 20), "off by a factor 2": P_TRUE / 2},
        )
    assert failed.value.diagnosis == "divides by n + 20"
    assert "standard errors away" in failed.value.message
    with pytest.raises(CheckFailed) as failed:
        expect_unbiased(ctx, biased, P_TRUE, std=std, label="p-hat", mistakes=lambda: {"x": 5.0})
    assert failed.value.diagnosis == estimators.BIASED_DIAGNOSIS


def test_unbiasedness_misuse_and_learner_values():
    needs_200 = r"argument `std` must be a number \(the sample standard deviation needs at least 200 estimates\)"
    with pytest.raises(CheckMisuse, match=needs_200):
        expect_unbiased(_ctx(), torch.ones(10), 1.0, std=None, label="x")
    with pytest.raises(CheckMisuse, match="argument `std` must be a finite number >= 0; got float -1.0"):
        expect_unbiased(_ctx(), torch.ones(10), 1.0, std=-1.0, label="x")
    with pytest.raises(CheckMisuse, match="argument `truth` must be a finite number; got float inf"):
        expect_unbiased(_ctx(), torch.ones(10), float("inf"), std=1.0, label="x")
    with pytest.raises(CheckFailed, match=r"x: the estimates\[1\] is nan; every value must be finite"):
        expect_unbiased(_ctx(), torch.tensor([1.0, float("nan")]), 1.0, std=1.0, label="x")
    # A deterministic estimator (std 0) is judged exactly.
    assert expect_unbiased(_ctx(), torch.full((5,), 2.0), 2.0, std=0.0, label="x").pvalue == 1.0
    with pytest.raises(CheckFailed, match="the mean of 5 estimates is 2.1 but the true value is 2, "):
        expect_unbiased(_ctx(), torch.full((5,), 2.1), 2.0, std=0.0, label="x")


# --- the stats underneath, against scipy ------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 400), p=st.floats(0.0, 1.0), data=st.data())
def test_binom_cdf_and_pmf_match_scipy(n, p, data):
    k = data.draw(st.integers(-2, n + 2))
    got, expected = tails.binom_cdf(k, n, p), sps.binom.cdf(k, n, p)
    if expected < 1e-250:
        # scipy's own tail loses digits this deep (k=13, n=382, p=0.859375: 1.5e-8 off;
        # n=290, p=0.9296875: 8e-5 off): the exact sum in rationals decides there.
        assert got == pytest.approx(float(_exact_binom_cdf(k, n, p)), rel=1e-9, abs=1e-300)
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-300)
    if 0 <= k <= n:
        expected = sps.binom.logpmf(k, n, p)
        got = tails.binom_log_pmf(k, n, p)
        assert got == expected or got == pytest.approx(expected, rel=1e-9, abs=1e-9)


def _exact_binom_cdf(k: int, n: int, p: float):
    """``P(X <= k)`` for X ~ Binomial(n, p), exactly (``p`` as the rational its float is)."""
    from fractions import Fraction

    q = Fraction(p)
    return sum(math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(max(-1, min(k, n)) + 1))


def test_binom_cdf_keeps_its_digits_deep_in_the_tail():
    """The case where scipy's lower tail is 1.5e-8 off: against the exact sum in rationals."""
    exact = _exact_binom_cdf(13, 382, 0.859375)
    assert tails.binom_cdf(13, 382, 0.859375) == pytest.approx(float(exact), rel=1e-12, abs=0)


@settings(max_examples=100, deadline=None)
@given(q=st.floats(1e-12, 1 - 1e-12))
def test_normal_quantile_matches_scipy(q):
    assert tails.normal_quantile(q) == pytest.approx(sps.norm.ppf(q), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("q", [0.0, -1e-300, -0.5, 1.0, 1.5])
def test_normal_quantile_refuses_a_q_outside_the_open_unit_interval(q):
    with pytest.raises(ValueError, match=re.escape(f"q must be in (0, 1), got {q!r}")):
        tails.normal_quantile(q)
    assert tails.normal_quantile(1e-300) == pytest.approx(-37.0471, abs=1e-4)  # just inside: a number


@pytest.mark.parametrize(("low", "high", "name"), [
    (-0.1, None, "low"), (math.nan, None, "low"), (1.5, None, "low"), (-0.1, 0.7, "low"), (0.6, 1.2, "high"),
])
def test_coverage_test_refuses_a_coverage_that_is_not_a_probability(low, high, name):
    bad = low if name == "low" else high
    with pytest.raises(ValueError, match=re.escape(f"{name} must lie in [0, 1], got {bad!r}")):
        stats.coverage_test(5, 10, low, high)
    assert stats.coverage_test(5, 10, 0.0, 1.0).pvalue == 1.0  # the bounds themselves are probabilities


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=50), truth=st.floats(-1e3, 1e3))
def test_mean_test_matches_scipy_with_a_sample_std(values, truth):
    result = stats.mean_test(values, truth)
    array = np.array(values)
    if array.std(ddof=1) < 1e-9 * max(1.0, abs(array).max()):
        return  # degenerate spread: the exact branch, tested above
    z = (array.mean() - truth) / (array.std(ddof=1) / math.sqrt(len(values)))
    assert result.z == pytest.approx(z, rel=1e-6, abs=1e-9)
    assert result.pvalue == pytest.approx(min(1.0, 2 * sps.norm.sf(abs(z))), rel=1e-6, abs=1e-300)


def test_implied_scale_reads_the_factor_off_a_coverage_share():
    assert estimators.implied_scale(683, 1000, 1.0) == pytest.approx(1.0, rel=0.01)
    assert estimators.implied_scale(383, 1000, 1.0) == pytest.approx(2.0, rel=0.02)
    assert estimators.implied_scale(0, 10, 1.0) == math.inf and estimators.implied_scale(10, 10, 1.0) == 0.0


def test_estimator_checks_share_the_pool_and_only_the_normal_tail_pays_the_safety_factor():
    from judge.checks.budget import ASYMPTOTIC_SAFETY, TOO_REGULAR_ALPHA

    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=2, calibration=1, unbiased=1))
    share = (1e-6 - 2 * TOO_REGULAR_ALPHA) / (4 * ASYMPTOTIC_SAFETY)
    assert budget.alpha("calibration") == budget.alpha("unbiased") == budget.alpha("fit") == pytest.approx(share)
    budget.spend("calibration")
    budget.spend("unbiased")
    assert budget.spent["calibration"] == pytest.approx(share)  # an exact tail
    assert budget.spent["unbiased"] == pytest.approx(share * ASYMPTOTIC_SAFETY)  # a normal approximation
    summary = budget.summary()["checks"]
    assert summary["calibration"] == {"declared": 1, "used": 1, "spent": pytest.approx(share)}
    assert (BudgetDeclaration(calibration=1) + BudgetDeclaration(unbiased=2, fit=1)).count("unbiased") == 2


def test_a_mistake_coverage_a_hair_above_one_is_clamped_not_an_internal_error():
    ctx = _ctx()
    estimates, errors = proportions(2000, seed=9, scale=3.0)
    mistakes = {"three times too wide": {1.0: 1.0000000000001, 2.0: 1.0000000000002}}
    with pytest.raises(CheckFailed) as failed:
        expect_calibrated(ctx, estimates, errors, P_TRUE, label="p", coverage=COVERAGE, mistakes=mistakes)
    assert failed.value.diagnosis in ("three times too wide", estimators.WIDE_DIAGNOSIS)


def test_independent_rows_takes_a_diagnosis_for_outcomes_that_are_not_draws():
    ctx = Context(
        seed=1, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration(independence=1))
    )
    counts = torch.full((500,), 3, dtype=torch.int64)  # constant rows: "sorted" would mislead
    probs = torch.full((8,), 1 / 8, dtype=torch.float64)
    with pytest.raises(CheckFailed) as failed:
        independence.expect_independent_rows(ctx, counts, counts, probs, label="counts", diagnosis="rows share counts")
    assert failed.value.diagnosis == "rows share counts"


def test_expect_close_names_the_mistake_that_produces_nan():
    """An overflowing softmax returns NaN; the known mistake that does so is named, not only "holds NaN"."""
    expected = torch.tensor([[-1.0, -2.0]], dtype=torch.float64)
    actual = torch.tensor([[float("nan"), -2.0]], dtype=torch.float64)
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(
            actual, expected, rtol=1e-6, atol=1e-9, what="log p", mistakes={"no max subtraction": actual.clone()}
        )
    assert failed.value.diagnosis == "no max subtraction" and "holds NaN" in failed.value.message
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(actual, expected, rtol=1e-6, atol=1e-9, what="log p", mistakes={"other": expected})
    assert failed.value.diagnosis is None


def test_a_mistake_with_a_wider_spread_is_still_named():
    """The distance to a mistake's expected value is measured with the estimates' own spread."""
    generator = torch.Generator().manual_seed(11)
    m, std = 400, 0.01
    wide = 0.5 + 0.05 * torch.randn(m, generator=generator, dtype=torch.float64)  # 5x the correct spread
    own_se = float(wide.std()) / math.sqrt(m)
    mistaken_mean = float(wide.mean()) + 1.5 * own_se  # 1.5 own SE away, 7.5 correct SE away
    with pytest.raises(CheckFailed) as failed:
        expect_unbiased(_ctx(), wide, 0.3, std=std, label="x", mistakes={"the wide mistake": mistaken_mean})
    assert failed.value.diagnosis == "the wide mistake"


@pytest.mark.parametrize("std", [None, 0.5])
def test_mean_test_refuses_one_value_even_with_a_known_std(std):
    """The contract asks for 2 values whatever ``std`` is: one value with a known std is no test of
    the estimator's spread, and without one it would divide by n - 1 = 0."""
    with pytest.raises(ValueError, match="need at least 2 values, got 1"):
        stats.mean_test([1.0], 1.0, std)
    assert stats.mean_test([1.0, 1.0], 1.0, std).pvalue == 1.0  # two values are enough
