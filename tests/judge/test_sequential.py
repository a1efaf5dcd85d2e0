"""Staged checks (judge/checks/sequential.py): the stages, the alpha spent at each, the bookkeeping,
early stop on evidence and no early accept."""

from __future__ import annotations

import math

import pytest
import torch

from judge.checks.base import CheckFailed, CheckMisuse
from judge.checks.budget import ASYMPTOTIC_SAFETY, BudgetDeclaration, BudgetExceeded, FalseFailureBudget
from judge.checks.distributions import expect_distribution
from judge.checks.sequential import MIN_FIRST_STAGE, SPENT, STAGES, stage_plan, staged
from judge.checks.testing import Context

UNIFORM = torch.full((4,), 0.25, dtype=torch.float64)


def _ctx(*, fit: int = 1, sequential: bool = True, **declared: int) -> Context:
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=fit, **declared))
    return Context(seed=5, device="cpu", budget=budget, sequential=sequential)


class Draws:
    """A sampler for ``staged``: ``wrong`` draws token 0 every time, else a fair die over 4 tokens."""

    def __init__(self, *, wrong: bool = False, seed: int = 1) -> None:
        self.wrong = wrong
        self.calls: list[tuple[int, int]] = []
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, start: int, count: int) -> torch.Tensor:
        self.calls.append((start, count))
        if self.wrong:
            return torch.zeros(count, dtype=torch.int64)
        return torch.multinomial(UNIFORM, count, replacement=True, generator=self.generator)


ALWAYS_ZERO = {"always token 0": torch.tensor([1.0, 0.0, 0.0, 0.0], dtype=torch.float64)}


def _fit(ctx: Context, alternatives=None):
    return lambda parts, stage: expect_distribution(
        ctx, torch.cat(list(parts)), UNIFORM, label="row 0", alternatives=alternatives
    )


# --- the plan ---------------------------------------------------------------------------------


@pytest.mark.parametrize("total", [MIN_FIRST_STAGE * 16, 1000, 4000, 160_000, 1_000_003])
def test_stages_grow_to_the_whole_sample_and_spend_alpha_exactly_once(total):
    plan = stage_plan(total)
    assert [s.number for s in plan] == [1, 2, 3] and all(s.of == 3 and s.total == total for s in plan)
    sizes = [s.size for s in plan]
    assert sizes == sorted(sizes) and sizes[-1] == total and sizes[0] >= MIN_FIRST_STAGE
    assert sizes == [math.ceil(t * total) for t in STAGES]
    assert math.isclose(math.fsum(s.share for s in plan), 1.0, rel_tol=0, abs_tol=1e-15)
    assert [round(s.share, 12) for s in plan] == [0.05, 0.05, 0.9]
    assert plan[-1].last and not plan[0].last


def test_spending_is_cumulative_and_ends_at_the_whole_alpha():
    assert len(SPENT) == len(STAGES) and SPENT[-1] == 1.0 and STAGES[-1] == 1.0
    assert list(SPENT) == sorted(SPENT) and list(STAGES) == sorted(STAGES)
    # x4 per stage, as StochasticGrade grows its samples.
    assert all(math.isclose(b / a, 4.0) for a, b in zip(STAGES, STAGES[1:], strict=False))


@pytest.mark.parametrize("total", [1, 15, (MIN_FIRST_STAGE - 1) * 16])
def test_a_sample_too_small_to_stage_is_drawn_in_one(total):
    assert [(s.size, s.share) for s in stage_plan(total)] == [(total, 1.0)]


def test_a_fixed_run_draws_in_one_stage_at_the_full_alpha():
    assert [(s.size, s.share) for s in stage_plan(4000, sequential=False)] == [(4000, 1.0)]


@pytest.mark.parametrize("total", [0, -3, 2.5, True, "100"])
def test_a_total_that_is_not_a_count_is_refused(total):
    with pytest.raises(ValueError, match="whole number"):
        stage_plan(total)
    with pytest.raises(CheckMisuse, match="whole number of units"):
        staged(_ctx(), total, Draws(), lambda parts, stage: None)


# --- alpha and bookkeeping ---------------------------------------------------------------------


def test_each_stage_sees_its_share_of_alpha_and_the_run_is_charged_once():
    ctx = _ctx()
    alpha = ctx.budget.alpha("fit")
    seen = []

    def check(parts, stage):
        seen.append(ctx.budget.spend("fit"))
        assert ctx.budget.alpha("fit") == pytest.approx(alpha * stage.share)

    staged(ctx, 4000, Draws(), check)
    assert seen == pytest.approx([alpha * s.share for s in stage_plan(4000)])
    assert math.fsum(seen) == pytest.approx(alpha, rel=1e-12)
    assert ctx.budget.used["fit"] == 1
    assert ctx.budget.spent["fit"] == pytest.approx(alpha * ASYMPTOTIC_SAFETY)
    assert isinstance(ctx.budget, FalseFailureBudget)  # the run's budget is back in place


@pytest.mark.parametrize(("declared", "raises"), [(3, False), (2, True)])
def test_each_check_is_charged_once_by_the_first_stage_that_runs_it(declared, raises):
    """A stage may run checks an earlier one did not reach (it stopped at a rejection): charged then."""
    ctx = _ctx(fit=declared)

    def check(parts, stage):
        for _ in range(stage.number):  # one more check at each stage
            ctx.budget.spend("fit")

    if raises:
        with pytest.raises(BudgetExceeded, match="more fit checks than the 2"):
            staged(ctx, 4000, Draws(), check)
    else:
        staged(ctx, 4000, Draws(), check)
        assert ctx.budget.used["fit"] == 3
    assert isinstance(ctx.budget, FalseFailureBudget)


def test_a_passing_sequence_reports_the_whole_sample_only():
    ctx = _ctx()
    draws = Draws()
    result = staged(ctx, 4000, draws, _fit(ctx))
    assert draws.calls == [(0, 250), (250, 750), (1000, 3000)]  # no early accept: every stage drawn
    assert result.n == 4000
    assert len(ctx.records) == 1 and len(ctx.fit_statistics) == 1
    record = ctx.records[0]
    assert record.passed and record.alpha == pytest.approx(ctx.budget.alpha("fit") * 0.9)
    assert "stage" not in record.label


# --- early stop, no early accept --------------------------------------------------------------


def test_a_wrong_sampler_is_rejected_and_named_at_the_first_stage():
    ctx = _ctx()
    draws = Draws(wrong=True)
    with pytest.raises(CheckFailed, match=r"stage 1 of 3, after 250 of 4000 draws") as failed:
        staged(ctx, 4000, draws, _fit(ctx, ALWAYS_ZERO))
    assert draws.calls == [(0, 250)] and failed.value.diagnosis == "always token 0"
    assert ctx.records[-1].alpha == pytest.approx(ctx.budget.alpha("fit") * 0.05)
    assert "stage 1 of 3" in ctx.records[-1].label and not ctx.records[-1].passed


def test_a_fixed_run_draws_the_whole_sample_even_for_a_wrong_sampler():
    ctx = _ctx(sequential=False)
    draws = Draws(wrong=True)
    with pytest.raises(CheckFailed) as failed:
        staged(ctx, 4000, draws, _fit(ctx))
    assert draws.calls == [(0, 4000)] and "stage" not in failed.value.message


def test_passing_early_stages_never_accept_a_sample_the_last_stage_rejects():
    ctx = _ctx()
    draws = Draws()

    def check(parts, stage):
        if stage.last:
            raise CheckFailed("rejected at the whole sample", diagnosis="a mistake")

    with pytest.raises(CheckFailed, match="rejected at the whole sample") as failed:
        staged(ctx, 4000, draws, check)
    assert len(draws.calls) == 3 and failed.value.diagnosis == "a mistake"


def test_a_rejection_that_names_nothing_draws_the_whole_sample_for_its_evidence():
    ctx = _ctx()
    draws = Draws(wrong=True)
    with pytest.raises(CheckFailed, match=r"stage 3 of 3, after 4000 of 4000 draws") as failed:
        staged(ctx, 4000, draws, _fit(ctx))  # no alternatives: nothing to name at any stage
    assert len(draws.calls) == 3 and failed.value.diagnosis is None
    # One failed record, the whole sample's: the early rejection's evidence is not reported twice.
    assert [(r.passed, "stage 3" in r.label) for r in ctx.records] == [(False, True)]


def test_an_early_rejection_without_a_name_draws_on_for_the_diagnosis():
    ctx = _ctx()
    draws = Draws()

    def check(parts, stage):
        raise CheckFailed(f"rejected at stage {stage.number}", diagnosis="named" if stage.last else None)

    with pytest.raises(CheckFailed, match="rejected at stage 3") as failed:
        staged(ctx, 4000, draws, check)
    assert len(draws.calls) == 3 and failed.value.diagnosis == "named"


def test_an_early_rejection_stands_when_the_whole_sample_passes():
    ctx = _ctx()

    def check(parts, stage):
        if stage.number == 1:
            raise CheckFailed("rejected early")

    with pytest.raises(CheckFailed, match=r"rejected early \[stage 1 of 3"):
        staged(ctx, 4000, Draws(), check)


def test_an_early_rejection_that_stands_reports_its_own_checks_only():
    ctx = _ctx()
    draws = Draws(seed=3)
    fit = _fit(ctx)

    def check(parts, stage):
        fit(parts, stage)
        if stage.number == 1:
            raise CheckFailed("rejected early")

    with pytest.raises(CheckFailed, match="rejected early"):
        staged(ctx, 4000, draws, check)
    assert len(draws.calls) == 3
    (record,) = ctx.records
    assert "stage 1 of 3" in record.label and len(ctx.fit_statistics) == 1


def test_an_early_rejection_with_a_name_stops_the_sequence():
    ctx = _ctx()
    draws = Draws()

    def check(parts, stage):
        raise CheckFailed("rejected", diagnosis="named")

    with pytest.raises(CheckFailed, match=r"rejected \[stage 1 of 3, after 250 of 4000 copies\]"):
        staged(ctx, 4000, draws, check, unit="copies")
    assert len(draws.calls) == 1


def test_the_union_bound_holds_for_a_correct_sampler_at_a_level_we_can_see():
    """At a visible level (alpha = 0.05 for one fit) the staged test's false failures stay under alpha:
    the stages spend 1/20 + 1/20 + 9/10 of it (correlated stages fail together, so often less)."""
    failures, runs = 0, 400
    for run in range(runs):
        budget = FalseFailureBudget(0.5, BudgetDeclaration(fit=1))  # alpha("fit") = 0.5 / 10 = 0.05
        ctx = Context(seed=run, device="cpu", budget=budget)
        try:
            staged(ctx, 1600, Draws(seed=run), _fit(ctx))
        except CheckFailed:
            failures += 1
    # Binomial(400, 0.05): mean 20, P(X >= 36) < 1e-3.
    assert failures < 36, failures
