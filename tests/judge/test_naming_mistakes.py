"""A listed mistake is named only when it explains the failing evidence markedly better than the
truth and than every other listed mistake (judge.checks.evidence.decisive_mistake, docs/statistics.md
"Naming a mistake"): two mistakes that coincide on a case name none, and the failure says plainly
what failed."""

from __future__ import annotations

import math

import pytest
import torch

from judge.checks import base, distributions, estimators, exact
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed
from judge.checks.estimators import BIASED_DIAGNOSIS, NARROW_DIAGNOSIS
from judge.checks.evidence import DIAGNOSIS_LIKELIHOOD_RATIO, decisive_mistake, multinomial_log_likelihood
from judge.checks.testing import Context

LOG_K = math.log(DIAGNOSIS_LIKELIHOOD_RATIO)


def _ctx() -> Context:
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=4, calibration=2, unbiased=2))
    return Context(seed=1, device="cpu", budget=budget)


def _draws(probs: torch.Tensor, n: int, seed: int = 0) -> torch.Tensor:
    return torch.multinomial(probs, n, replacement=True, generator=torch.Generator().manual_seed(seed))


# --- the rule ----------------------------------------------------------------------------------


def test_the_best_mistake_is_named_only_past_the_ratio_over_every_rival():
    assert decisive_mistake({"a": -10.0, "b": -10.0 - LOG_K}, truth=-10.0 - LOG_K) == "a"
    assert decisive_mistake({"a": -10.0, "b": -10.0 - LOG_K + 0.01}, truth=-100.0) is None  # b nearly as good
    assert decisive_mistake({"a": -10.0, "b": -100.0}, truth=-10.0 - LOG_K + 0.01) is None  # the truth nearly as good
    assert decisive_mistake({"a": -10.0, "b": -10.0}, truth=-math.inf) is None  # a tie: they coincide
    assert decisive_mistake({"a": -math.inf, "b": -math.inf}, truth=-math.inf) is None
    assert decisive_mistake({"a": -10.0}, truth=-math.inf) == "a"
    assert decisive_mistake({}, truth=-1.0) is None


def test_only_a_candidate_is_named_but_every_listed_mistake_competes():
    scores = {"plausible": -20.0, "implausible but likelier": -5.0}
    assert decisive_mistake(scores, truth=-1000.0, candidates=["plausible"]) is None
    assert decisive_mistake({"plausible": -5.0, "other": -50.0}, truth=-1000.0, candidates=["plausible"]) == "plausible"


def test_the_multinomial_likelihood_of_a_draw_it_cannot_make_is_zero():
    assert multinomial_log_likelihood([3, 0, 1], [0.5, 0.0, 0.5]) == pytest.approx(4 * math.log(0.5))
    assert multinomial_log_likelihood([3, 1, 1], [0.5, 0.0, 0.5]) == -math.inf


# --- counts: best_alternative, expect_distribution, expect_support -------------------------------


TARGET = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
SHIFTED = torch.tensor([0.42, 0.38, 0.2], dtype=torch.float64)


def test_two_alternatives_that_coincide_on_a_row_name_none():
    """As "temperature multiplied" and "temperature divided" do at T = 1 (r x T = 1)."""
    counts = torch.bincount(_draws(SHIFTED, 20_000, seed=1), minlength=3)
    assert distributions.best_alternative(counts, {"multiplied": SHIFTED, "divided": SHIFTED.clone()}) is None
    assert distributions.best_alternative(counts, {"multiplied": SHIFTED}) == "multiplied"


def test_an_alternative_only_slightly_better_than_another_names_none():
    near = torch.tensor([0.421, 0.379, 0.2], dtype=torch.float64)
    counts = torch.bincount(_draws(SHIFTED, 20_000, seed=2), minlength=3)
    assert distributions.best_alternative(counts, {"shifted": SHIFTED, "near": near}) is None
    far = torch.tensor([0.3, 0.5, 0.2], dtype=torch.float64)
    assert distributions.best_alternative(counts, {"shifted": SHIFTED, "far": far}) == "shifted"


def test_an_alternative_no_better_than_the_truth_is_not_named():
    """A mistake whose distribution is the target's on this row is no evidence against the truth."""
    counts = torch.bincount(_draws(TARGET, 2_000, seed=3), minlength=3)
    assert distributions.best_alternative(counts, {"same as the target": TARGET.clone()}) == "same as the target"
    assert distributions.best_alternative(counts, {"same as the target": TARGET.clone()}, truth=TARGET) is None


def test_a_distribution_failure_with_coinciding_alternatives_says_plainly_what_failed():
    ctx = _ctx()
    draws = _draws(SHIFTED, 20_000, seed=4)
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_distribution(
            ctx, draws, TARGET, label="row 0", alternatives={"one": SHIFTED, "other": SHIFTED.clone()}
        )
    assert failed.value.diagnosis is None
    assert "do not follow the target distribution" in failed.value.message
    assert "known mistake" not in failed.value.message
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_distribution(ctx, draws, TARGET, label="row 0", alternatives={"one": SHIFTED})
    assert failed.value.diagnosis == "one"


def test_a_support_failure_names_the_alternative_only_when_it_alone_explains_the_row():
    probs = torch.tensor([[0.6, 0.4, 0.0]], dtype=torch.float64)
    leaky = torch.tensor([[0.5, 0.3, 0.2]], dtype=torch.float64)
    draws = _draws(leaky[0], 4_000, seed=5).unsqueeze(0)

    def check(alternatives):
        with pytest.raises(CheckFailed) as failed:
            distributions.expect_support(
                draws, probs, what="sample", why_excluded=lambda r, t: "top-k removes it", alternatives=alternatives
            )
        return failed.value.diagnosis

    assert check({"k + 1": leaky}) == "k + 1"
    assert check({"k + 1": leaky, "no filtering": leaky.clone()}) is None


# --- deterministic outputs: expect_close --------------------------------------------------------


def test_two_mistakes_that_reproduce_the_output_name_none():
    expected = torch.tensor([[0.5, 0.5]], dtype=torch.float64)
    actual = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(
            actual,
            expected,
            rtol=1e-4,
            atol=1e-6,
            what="p",
            mistakes={"greedy": actual.clone(), "top_k = 1": actual.clone()},
        )
    assert failed.value.diagnosis is None and "known mistake" not in failed.value.message


def test_a_mistake_within_tolerance_of_the_target_is_no_evidence():
    """A mistake that reproduces the output but is itself close to the target cannot tell them apart."""
    expected = torch.tensor([[0.5]], dtype=torch.float64)
    actual = torch.tensor([[0.515]], dtype=torch.float64)  # 0.015 off, the tolerance 0.01

    def diagnosis(mistake):
        with pytest.raises(CheckFailed) as failed:
            exact.expect_close(actual, expected, rtol=0.0, atol=0.01, what="p", mistakes={"m": mistake})
        return failed.value.diagnosis

    assert diagnosis(torch.tensor([[0.508]], dtype=torch.float64)) is None  # within 0.01 of both
    assert diagnosis(torch.tensor([[0.516]], dtype=torch.float64)) == "m"


def test_the_mistake_that_explains_every_row_wins_over_one_that_explains_the_worst_row():
    expected = torch.tensor([[0.5, 0.5], [0.25, 0.75]], dtype=torch.float64)
    actual = torch.tensor([[1.0, 0.0], [0.25, 0.75]], dtype=torch.float64)
    mistakes = {
        "row 0 only": torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=torch.float64),
        "everything": actual.clone(),
    }
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(actual, expected, rtol=1e-4, atol=1e-6, what="p", mistakes=mistakes)
    assert failed.value.diagnosis == "everything"


# --- estimators: expect_calibrated, expect_unbiased ----------------------------------------------


def test_coverage_mistakes_that_coincide_leave_the_plain_narrow_diagnosis():
    """As the n - 1 and n divisors do where sqrt(n - 1) = 1 (n = 2): equal coverages, no name."""
    generator = torch.Generator().manual_seed(7)
    m = 2_000
    estimates = torch.randn(m, generator=generator, dtype=torch.float64)
    errors = torch.full((m,), 0.5, dtype=torch.float64)  # half the real spread
    coverage = {1.0: 0.6826894921370859, 2.0: 0.9544997361036416}
    halved = {1.0: 0.38292492254802624, 2.0: 0.6826894921370859}

    def diagnosis(mistakes):
        with pytest.raises(CheckFailed) as failed:
            estimators.expect_calibrated(_ctx(), estimates, errors, 0.0, label="se", coverage=coverage, mistakes=mistakes)
        return failed.value.diagnosis

    assert diagnosis({"halved": halved}) == "halved"
    assert diagnosis({"halved": halved, "also halved": dict(halved)}) == NARROW_DIAGNOSIS


def test_bias_mistakes_that_coincide_leave_the_plain_biased_diagnosis():
    generator = torch.Generator().manual_seed(8)
    estimates = 1.0 + 0.1 * torch.randn(400, generator=generator, dtype=torch.float64)

    def diagnosis(mistakes):
        with pytest.raises(CheckFailed) as failed:
            estimators.expect_unbiased(_ctx(), estimates, 0.5, std=0.1, label="mean", mistakes=mistakes)
        return failed.value.diagnosis

    assert diagnosis({"off by 0.5": 1.0}) == "off by 0.5"
    assert diagnosis({"off by 0.5": 1.0, "the same, another way": 1.0}) == BIASED_DIAGNOSIS
    # A rival 1/4 standard error away from the named one: not markedly worse, so no name.
    assert diagnosis({"off by 0.5": 1.0, "nearly": 1.0 + 0.25 * 0.1 / 20}) == BIASED_DIAGNOSIS


def test_a_diagnosed_block_names_nothing_that_listed_mistakes_explain_alike():
    """The SE that divides by n and the one that is the variance both fit a tiny standard error: the
    case's own block ("naive variance") must not name a third mistake instead."""
    expected = torch.tensor([0.0033], dtype=torch.float64)
    actual = torch.tensor([1.0e-4], dtype=torch.float64)
    mistakes = {"divides by n": torch.tensor([1.04e-4]), "the variance": torch.tensor([1.07e-5])}
    with pytest.raises(CheckFailed) as failed, base.diagnosed("naive variance"):
        exact.expect_close(actual, expected, rtol=1e-3, atol=3e-4, what="se", mistakes=mistakes, per_row=True)
    assert failed.value.diagnosis is None
    assert set(failed.value.explained_by) == {"divides by n", "the variance"}
    with pytest.raises(CheckFailed) as failed, base.diagnosed("naive variance"):
        exact.expect_close(actual, expected, rtol=1e-3, atol=3e-4, what="se", per_row=True)
    assert failed.value.diagnosis == "naive variance"  # nothing listed explains it: the block's


def test_the_alternatives_that_explain_counts_are_those_that_fit_them_whether_named_or_not():
    counts = torch.bincount(_draws(SHIFTED, 20_000, seed=1), minlength=3)
    far = torch.tensor([0.3, 0.5, 0.2], dtype=torch.float64)
    both = {"one": SHIFTED, "other": SHIFTED.clone(), "far": far}
    assert distributions.best_alternative(counts, both, truth=TARGET) is None
    assert sorted(distributions.explaining_alternatives(counts, both, truth=TARGET)) == ["one", "other"]
    assert distributions.explaining_alternatives(counts, {"far": far}, truth=TARGET) == []
    ctx = _ctx()
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_distribution(ctx, _draws(SHIFTED, 20_000, seed=1), TARGET, label="row", alternatives=both)
    assert failed.value.diagnosis is None and set(failed.value.explained_by) == {"one", "other"}
