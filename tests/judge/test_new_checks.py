"""Checks added for exercise 39's holes, made for every exercise: within-row independence, scoped
diagnoses, public rules, the too-regular test on discrete counts, in-place changes to inputs."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.checks import distributions, exact, generator_contract, independence
from judge.checks import stats
from judge.checks.budget import TOO_REGULAR_ALPHA, BudgetDeclaration, BudgetExceeded, FalseFailureBudget
from judge.checks.base import CheckFailed, Label, diagnosed
from judge.checks.independence import expect_independent_within_row
from judge.checks.testing import Context
from judge.engine.process import LearnerProcess, LearnerRaised
from judge.i18n import Bilingual
from judge.learner.protocol import ExceptionInfo

PROBS = torch.tensor([0.3, 0.25, 0.2, 0.1, 0.08, 0.05, 0.02], dtype=torch.float64)


@pytest.fixture
def ctx():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=4, pairs=4, independence=2, seeds=1))
    return Context(seed=1, device="cpu", budget=budget)


def _iid(n: int, seed: int) -> torch.Tensor:
    return torch.multinomial(PROBS, n, replacement=True, generator=torch.Generator().manual_seed(seed))


def _antithetic(n: int, seed: int) -> torch.Tensor:
    u = torch.rand(n // 2, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    u = torch.stack([u, 1 - u], dim=-1).reshape(-1)
    return torch.searchsorted(torch.cumsum(PROBS, 0), u, right=True).clamp_max(len(PROBS) - 1)


@pytest.mark.parametrize("seed", range(5))
def test_independent_draws_pass_the_pair_test(ctx, seed):
    result = expect_independent_within_row(ctx, _iid(40_000, seed), PROBS, label="row 0")
    assert result.pvalue >= ctx.budget.alpha("pairs")
    assert ctx.records[-1].kind == "pairs" and ctx.records[-1].passed


@pytest.mark.parametrize("make, diagnosis", [
    (_antithetic, independence.DEPENDENT_DIAGNOSIS),
    (lambda n, seed: torch.sort(_iid(n, seed)).values, independence.SORTED_DIAGNOSIS),
    (lambda n, seed: torch.sort(_iid(n, seed), descending=True).values, independence.SORTED_DIAGNOSIS),
    (lambda n, seed: _iid(n // 2, seed).repeat_interleave(2), independence.REPEATED_DIAGNOSIS),
])
def test_each_dependence_within_a_row_is_caught_with_its_own_diagnosis(ctx, make, diagnosis):
    draws = make(40_000, 3)
    # The counts still fit: only the pairs can tell.
    assert stats.g_test(torch.bincount(draws, minlength=7).tolist(), PROBS.tolist()).pvalue > 1e-4 \
        or diagnosis is not independence.REPEATED_DIAGNOSIS
    with pytest.raises(CheckFailed) as failed:
        expect_independent_within_row(ctx, draws, PROBS, label="row 0",
                                      public=Bilingual("sample, row 0", "sample，第 0 行"))
    assert failed.value.diagnosis == diagnosis
    assert failed.value.rule == "sample, row 0: consecutive draws are not independent"
    assert failed.value.rule.zh.startswith("sample，第 0 行")


def test_sorted_rows_that_agree_are_diagnosed_as_sorted_not_as_sharing_numbers(ctx):
    first, second = torch.sort(_iid(4_000, 1)).values, torch.sort(_iid(4_000, 2)).values
    with pytest.raises(CheckFailed) as failed:
        independence.expect_independent_rows(ctx, first, second, PROBS, label="rows 2 and 5")
    assert failed.value.diagnosis == independence.SORTED_DIAGNOSIS
    shared = _iid(4_000, 1)
    with pytest.raises(CheckFailed) as failed:
        independence.expect_independent_rows(ctx, shared, shared.clone(), PROBS, label="rows 2 and 5")
    assert failed.value.diagnosis == independence.ROWS_SHARE_DIAGNOSIS


def test_token_groups_keep_the_likely_tokens_alone_and_pool_the_rest():
    probs = torch.softmax(torch.linspace(3, -3, 100, dtype=torch.float64), 0)
    probs[50] = 0.0
    groups = independence.token_groups(probs / probs.sum(), groups=5)
    assert groups[:4].tolist() == [0, 1, 2, 3] and set(groups[4:].tolist()) == {4}


def test_pairs_share_the_asymptotic_budget_with_fits():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=6, pairs=2))
    assert budget.alpha("pairs") == budget.alpha("fit") == pytest.approx((1e-6 - 6 * TOO_REGULAR_ALPHA) / 80)
    budget.spend("pairs")
    budget.spend("pairs")
    with pytest.raises(BudgetExceeded, match="more pairs checks than the 2 the suites declared"):
        budget.spend("pairs")


# --------------------------------------------------------------------------- scoped diagnoses


def test_a_diagnosis_belongs_to_the_block_it_was_given_for():
    with pytest.raises(CheckFailed) as failed:
        with diagnosed("extreme values"):
            exact.expect(False, "inside", kind="value")
    assert failed.value.diagnosis == "extreme values"
    with pytest.raises(CheckFailed) as failed:
        with diagnosed("extreme values"):
            exact.expect(False, "own", diagnosis="its own")
    assert failed.value.diagnosis == "its own"
    with pytest.raises(CheckFailed) as failed:
        with diagnosed("only for crashes", raised_only=True):
            exact.expect(False, "a plain failure")
    assert failed.value.diagnosis is None
    raised = LearnerRaised(ExceptionInfo("IndexError", "out of range", None, "", False, ("builtins.IndexError",)))
    with pytest.raises(LearnerRaised) as caught:
        with diagnosed("only for crashes", raised_only=True):
            raise raised
    assert caught.value.diagnosis == "only for crashes"


def test_the_extreme_uniform_diagnosis_is_never_stale(tmp_path):
    """A sampler that breaks on an ordinary call after the extreme phase of an earlier batch passed
    (a bfloat16 result on the many-rows batch, say) is not blamed on extreme values."""
    from judge.engine.runner import judge_file
    from judge.exercises.exercise import resolve

    exercise = resolve("39")
    source = exercise.reference_path.read_text() + textwrap.dedent("""

        _reference_sample = sample
        _calls = [0]

        def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
            draws = _reference_sample(logits, num_samples, temperature, top_k, top_p, min_p, generator)
            if logits.shape[0] == 64:  # the third batch of the extreme phase, ordinary call
                raise RuntimeError("bfloat16 is not supported here")
            return draws
    """)
    path = tmp_path / "late_failure.py"
    path.write_text(source)
    report = judge_file(exercise, path, seed=5, suites=("hidden",))
    case = next(c for c in report.cases if c.name == "extreme_uniforms")
    assert case.verdict.value == "RE"
    assert case.diagnosis is None and "0.0" not in (report.diagnosis or "")


# --------------------------------------------------------------------------- public rules


def test_failures_carry_a_rule_without_the_rows_values():
    label = Label("top_k=4 at temperature 0.7", Bilingual("top-k at a low temperature", "低温下的 top-k"))
    expected = torch.tensor([[0.5, 0.5], [0.25, 0.75]], dtype=torch.float64)
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(torch.tensor([[0.5, 0.5], [0.75, 0.25]]), expected, rtol=1e-4, atol=1e-6,
                            what="sampling_probs", row_labels=["first", label])
    rule = failed.value.rule
    assert "0.7" in failed.value.message and "0.7" not in rule and "0.75" not in rule
    assert rule == "sampling_probs, row 1 (top-k at a low temperature): the values differ from the target"
    assert rule.zh == "sampling_probs，第 1 行（低温下的 top-k）：数值与目标不一致"


# --------------------------------------------------------------------------- too regular on lattices


def _fits(probs, n, rng, fits):
    out = []
    for _ in range(fits):
        result = stats.g_test(rng.multinomial(n, probs).tolist(), probs)
        out.append((result.statistic, result.df, result.log_atom))
    return out


def test_a_fair_coin_on_a_lattice_is_never_called_too_regular():
    """4 000 tosses at p = 0.3: 1 200 heads exactly (G = 0) happens 1.4 % of the time; the continuous
    lower tail calls that p = 0. Over 2 000 seeds the check must never fail: it declines, and says why."""
    rng = np.random.default_rng(2026)
    failures = declined = 0
    for _ in range(2_000):
        result, why = distributions.too_regular(_fits([0.3, 0.7], 4_000, rng, 1), TOO_REGULAR_ALPHA)
        declined += why is not None
        failures += why is None and result.pvalue < TOO_REGULAR_ALPHA
    assert failures == 0 and declined == 2_000
    assert "not tested" in why and "few values" in why
    # The trap it avoids: the raw lower tail fails a correct coin about 1.4 % of the time.
    exact = stats.g_test([1_200, 2_800], [0.3, 0.7])
    assert exact.statistic == 0.0 and stats.too_regular_test([0.0], [1]).pvalue < TOO_REGULAR_ALPHA


@pytest.mark.parametrize("probs, fits", [([0.5, 0.3, 0.2], 6), ([0.25, 0.25, 0.25, 0.25], 4), ([0.6, 0.4], 12)])
def test_few_outcome_cases_hold_the_level_and_still_catch_quantile_fakes(probs, fits):
    rng = np.random.default_rng(7)
    outcomes = [distributions.too_regular(_fits(probs, 4_000, rng, fits), TOO_REGULAR_ALPHA) for _ in range(2_000)]
    assert not any(why is None and r.pvalue < TOO_REGULAR_ALPHA for r, why in outcomes)
    # Counts equal to their (whole) expectations in every fit: what a quantile scheme returns.
    perfect = [stats.g_test([round(4_000 * p) for p in probs], probs) for _ in range(fits)]
    result, why = distributions.too_regular([(r.statistic, r.df, r.log_atom) for r in perfect], TOO_REGULAR_ALPHA)
    assert why is None and result.pvalue < TOO_REGULAR_ALPHA


def test_the_atom_estimate_matches_the_exact_mode_probability():
    for n, p in ((4_000, 0.3), (1_000, 0.5), (16_000, 0.05)):
        from scipy.stats import binom
        exact = binom.pmf(int(np.floor((n + 1) * p)), n, p)
        estimate = math.exp(stats.g_test([int(n * p), n - int(n * p)], [p, 1 - p]).log_atom)
        assert estimate == pytest.approx(exact, rel=0.05)


# --------------------------------------------------------------------------- inputs left as they were


def test_the_learner_process_reports_inputs_changed_in_place(tmp_path):
    path = tmp_path / "inplace.py"
    path.write_text(textwrap.dedent("""
        def scale(x, factor=2.0, *, extra=None):
            x.mul_(factor)
            if extra is not None:
                extra[0] = float("nan")
            return x.sum()

        def tidy(x, extra=None):
            return x * 2
    """))
    with LearnerProcess(path) as process:
        assert process.call("scale", [torch.ones(3)], {"extra": torch.zeros(2)}, timeout_s=30).modified == ("x", "extra")
        assert process.call("tidy", [torch.tensor([float("nan"), 1.0])], {}, timeout_s=30).modified == ()
        assert process.cpu_time_s() > 0.0


@pytest.mark.parametrize("server", [True, False], ids=["torch-twin", "pure-core"])
def test_a_fit_over_a_sparse_target_equals_the_full_g_test(ctx, monkeypatch, server):
    """expect_distribution equals the full g_test: on the server through judge.checks.stats_torch (to
    its ~1e-12), in the browser through the pure core, which leaves the tokens the target excludes
    out before testing (bit for bit, the largest deviation still naming the token's own id)."""
    if not server:
        monkeypatch.setattr(distributions, "stats_torch", None)
    probs = torch.zeros(5_000, dtype=torch.float64)
    probs[[3, 70, 71, 900, 4_999]] = torch.tensor([0.4, 0.3, 0.2, 0.05, 0.05], dtype=torch.float64)
    draws = torch.multinomial(probs, 3_000, replacement=True, generator=torch.Generator().manual_seed(4))
    result = distributions.expect_distribution(ctx, draws, probs, label="row 0")
    full = stats.g_test(torch.bincount(draws, minlength=5_000).tolist(), probs.tolist())
    assert (result.df, result.n, result.bins, result.largest_deviation) == (
        full.df, full.n, full.bins, full.largest_deviation)
    assert result.largest_deviation.category in (3, 70, 71, 900, 4_999)
    if server:
        assert result.statistic == pytest.approx(full.statistic, rel=1e-12)
        assert result.pvalue == pytest.approx(full.pvalue, rel=1e-10)
    else:
        assert (result.statistic, result.pvalue) == (full.statistic, full.pvalue)
    excluded = draws.clone()
    excluded[0] = 5  # a token the target excludes
    with pytest.raises(ValueError, match="category 5"):
        distributions.expect_distribution(ctx, excluded, probs, label="row 0")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=12), min_size=1, max_size=8),
       st.integers(0, 400))
def test_the_torch_identical_draws_probability_equals_the_pure_python_one(rows, n):
    """generator_contract.identical_draws_probability (torch, for the server's big batches) and
    stats.identical_draws_probability (pure Python, also the browser's) must agree."""
    width = max(len(r) for r in rows)
    probs = torch.tensor([r + [0.0] * (width - len(r)) for r in rows], dtype=torch.float64)
    probs = probs / probs.sum(dim=1, keepdim=True)
    fast = generator_contract.identical_draws_probability(probs, n)
    slow = stats.identical_draws_probability(probs.tolist(), n)
    assert fast == pytest.approx(slow, rel=1e-9, abs=1e-300)


def test_cpu_burnt_by_a_child_process_counts_against_the_case(tmp_path):
    """Attack: the call sleeps (no CPU of its own) while a child it started burns the CPU. The
    limit counts the whole process tree, so the case ends in TLE for CPU, not at its wall cap."""
    import dataclasses

    from judge.engine.runner import judge_file
    from judge.exercises.exercise import resolve
    from judge.verdicts import Verdict

    exercise = dataclasses.replace(resolve("39"), time_limit_s=1.0, wall_limit_s=30.0)
    path = tmp_path / "burner.py"
    path.write_text(textwrap.dedent("""
        import multiprocessing, time
        import torch

        def _burn():
            while True:
                pass

        def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            worker = multiprocessing.get_context("fork").Process(target=_burn, daemon=True)
            worker.start()
            time.sleep(60)

        def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
            return torch.zeros(logits.shape[0], num_samples, dtype=torch.int64)
    """))
    report = judge_file(exercise, path, seed=1, suites=("public",))
    first = report.cases[0]
    # The message tells the CPU limit from the wall cap; how soon it comes depends on how busy
    # the machine is (the burner's share of a core), so no clock is read here.
    assert first.verdict is Verdict.TLE and "CPU time" in first.message, first.message
