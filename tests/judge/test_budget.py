"""The false-failure budget: alphas add up to the total, and undeclared checks are refused."""

from __future__ import annotations

import pytest

from judge.checks.budget import (
    ASYMPTOTIC_SAFETY,
    INDEPENDENCE_ALPHA,
    BudgetDeclaration,
    BudgetExceeded,
    CaseBudget,
    FalseFailureBudget,
)


def test_declared_checks_spend_exactly_the_total():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=15, independence=1, seeds=1))
    fit_alpha = budget.alpha("fit")
    for _ in range(15):
        assert budget.spend("fit") == fit_alpha
    budget.spend("independence")
    budget.spend("seeds")
    for _ in range(15):
        budget.spend("too_regular")
    summary = budget.summary()
    assert summary["spent"] == pytest.approx(1e-6, rel=1e-9)
    assert summary["spent"] <= 1e-6 * (1 + 1e-12)
    assert fit_alpha * 15 * ASYMPTOTIC_SAFETY + INDEPENDENCE_ALPHA + 16e-12 == pytest.approx(1e-6)


def test_an_undeclared_check_is_an_error_not_a_silent_overspend():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=1))
    budget.spend("fit")
    budget.spend("too_regular")
    with pytest.raises(BudgetExceeded, match="more fit checks than the 1 the suites declared"):
        budget.spend("fit")
    with pytest.raises(BudgetExceeded, match="more too_regular checks than the 1 the suites declared"):
        budget.spend("too_regular")
    with pytest.raises(BudgetExceeded, match="more independence checks than the 0 the suites declared"):
        budget.spend("independence")


def test_declarations_add_up_and_fixed_shares_must_fit():
    total = BudgetDeclaration(fit=1) + BudgetDeclaration(fit=14, independence=1, seeds=1)
    assert total == BudgetDeclaration(fit=15, independence=1, seeds=1)
    with pytest.raises(ValueError, match="fixed-level"):
        FalseFailureBudget(1e-8, BudgetDeclaration(fit=1, independence=2))


def test_suites_without_fit_checks_spend_nothing_on_too_regular():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration())
    assert budget.summary()["spent"] == 0
    with pytest.raises(BudgetExceeded, match="more too_regular checks than the 0 the suites declared"):
        budget.spend("too_regular")


def test_declarations_add_up_kind_by_kind():
    first = BudgetDeclaration(fit=1, pairs=2, calibration=3, unbiased=4, independence=5, seeds=6)
    second = BudgetDeclaration(fit=10, pairs=20, calibration=30, unbiased=40, independence=50, seeds=60)
    assert first + second == BudgetDeclaration(fit=11, pairs=22, calibration=33, unbiased=44, independence=55, seeds=66)


def test_a_declaration_reads_as_a_suite_would_write_it():
    assert str(BudgetDeclaration()) == "BudgetDeclaration()"
    assert str(BudgetDeclaration(seeds=1, fit=3, unbiased=2)) == "BudgetDeclaration(fit=3, unbiased=2, seeds=1)"


def test_the_summary_gives_the_fit_alpha_and_each_kinds_declared_used_and_spent():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=2, calibration=1, seeds=1))
    alpha = budget.alpha("fit")
    assert alpha == pytest.approx((1e-6 - 2e-12 - 1e-12) / (3 * ASYMPTOTIC_SAFETY), rel=1e-12)
    budget.spend("fit")
    budget.spend("calibration")
    summary = budget.summary()
    assert summary["fit_alpha"] == alpha
    assert summary["checks"] == {
        "fit": {"declared": 2, "used": 1, "spent": alpha * ASYMPTOTIC_SAFETY},
        "pairs": {"declared": 0, "used": 0, "spent": 0.0},
        "calibration": {"declared": 1, "used": 1, "spent": alpha},  # an exact tail: charged its alpha only
        "unbiased": {"declared": 0, "used": 0, "spent": 0.0},
        "independence": {"declared": 0, "used": 0, "spent": 0.0},
        "seeds": {"declared": 1, "used": 0, "spent": 0.0},
        "too_regular": {"declared": 2, "used": 0, "spent": 0.0},
        "rates": {"declared": 0, "used": 0, "spent": 0.0},
    }
    assert FalseFailureBudget(1e-6, BudgetDeclaration(calibration=1)).summary()["fit_alpha"] is None


def test_a_rates_check_is_charged_one_unit_where_a_pooled_check_takes_ten():
    """Write-the-test cases (exact binomial tails): alone, ten of them share the whole budget; beside
    pooled checks, each counts one unit against a pooled check's ASYMPTOTIC_SAFETY."""
    alone = FalseFailureBudget(1e-6, BudgetDeclaration(rates=10))
    assert alone.spend("rates") == pytest.approx(1e-7, rel=1e-12)
    assert alone.spent["rates"] == pytest.approx(1e-7, rel=1e-12)
    mixed = FalseFailureBudget(1e-6, BudgetDeclaration(fit=1, rates=10))
    unit = (1e-6 - 1e-12) / (ASYMPTOTIC_SAFETY + 10)
    assert mixed.alpha("rates") == pytest.approx(unit, rel=1e-12) and mixed.alpha("fit") == pytest.approx(
        unit, rel=1e-12
    )
    for _ in range(10):
        mixed.spend("rates")
    mixed.spend("fit")
    assert sum(mixed.spent.values()) <= 1e-6
    with pytest.raises(BudgetExceeded, match="more rates checks than the 10 the suites declared"):
        mixed.spend("rates")


def test_a_case_budget_spends_the_runs_and_the_run_can_take_it_back():
    """What a dropped case spent (judge.engine.settling) leaves the run's summary exactly as if it never ran."""
    run = FalseFailureBudget(1e-6, BudgetDeclaration(fit=3, independence=1))
    kept, dropped = CaseBudget(run), CaseBudget(run)
    kept.spend("fit")
    before = run.summary()
    assert dropped.spend("fit") == run.alpha("fit") and dropped.spend("independence") == INDEPENDENCE_ALPHA
    assert run.used["fit"] == 2 and dropped.used["fit"] == 1 and kept.used["fit"] == 1
    run.take_back(dropped)
    assert run.summary() == before
    kept.spend("fit")
    kept.spend("fit")
    with pytest.raises(BudgetExceeded, match="more fit checks than the 3"):  # the declaration is the run's, whichever case spends
        kept.spend("fit")
