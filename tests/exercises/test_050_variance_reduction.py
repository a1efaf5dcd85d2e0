"""Exercise 50's own parts: the exact laws against the statement's example and against simulation of the
reference, the readable rows' decoding, the generated instances' invariants, and the variance test's power.

The oracle (judge side: Python floats, every way the draws can fall) and the reference solution (learner
side: torch) are written independently; agreeing is evidence that both follow the statement.
"""

from __future__ import annotations

import math
import random

import pytest
import torch

from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


@pytest.fixture(scope="module")
def exercise50():
    return resolve("50")


@pytest.fixture(scope="module")
def parts(exercise50):
    for suite in ("hidden", "public"):
        load_suite(exercise50, suite)
    where = {
        "oracle": "hidden",
        "stats50": "hidden",
        "readable50": "public",
        "diagnoses": "public",
        "frozen50": "public",
    }
    return {name: suites_module(exercise50, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise50):
    return import_solution(exercise50.reference_path, "reference_050")


EXAMPLE_P, EXAMPLE_F, EXAMPLE_G = (0.1, 0.2, 0.3, 0.4), (1.0, 2.0, 3.0, 4.0), (0.0, 0.0, 1.0, 1.0)


def test_the_statements_exact_variances(parts):
    """The example's figures: plain 0.25, antithetic 0.05, stratified 0.09 at n = 4, all with mean 3."""
    oracle = parts["oracle"]
    for outcomes, variance in (
        (oracle.plain_outcomes(EXAMPLE_P, EXAMPLE_F, 4), 0.25),
        (oracle.antithetic_outcomes(EXAMPLE_P, EXAMPLE_F, 4), 0.05),
        (oracle.stratified_outcomes(EXAMPLE_P, EXAMPLE_F, 4), 0.09),
    ):
        assert sum(w for w, _, _ in outcomes) == pytest.approx(1.0, abs=1e-12)
        assert oracle.mean(outcomes) == pytest.approx(3.0, abs=1e-12)
        assert oracle.variance(outcomes) == pytest.approx(variance, abs=1e-12)


def test_the_statements_control_variate_example(parts):
    """Five draws of tokens 3, 2, 3, 0, 1 give beta 13/6, estimate 3.0167 and se 0.2789."""
    oracle = parts["oracle"]
    tokens = (3, 2, 3, 0, 1)
    estimate, se = oracle.control_variate([EXAMPLE_F[t] for t in tokens], [EXAMPLE_G[t] for t in tokens], 0.7)
    assert estimate == pytest.approx(2.8 + 13 / 6 * 0.1, abs=1e-12)
    assert se == pytest.approx(0.27888667551135854, abs=1e-12)


@pytest.mark.parametrize("method", ["plain", "antithetic", "stratified", "control_variate"])
def test_the_oracles_law_matches_the_reference(parts, reference, method):
    """20 000 rows of the reference: the mean and the variance of the estimates match the exact law."""
    stats50, oracle = parts["stats50"], parts["oracle"]
    p, f, g = (0.15, 0.35, 0.2, 0.3), (0.0, 5.0, 2.0, 7.0), (0.0, 4.0, 1.0, 8.0)
    n = 8 if method != "control_variate" else 6
    law = stats50.law_of(method, p, f, g, n)
    rows = 20_000
    kwargs = {
        "probs": torch.tensor([p] * rows, dtype=torch.float64),
        "values": torch.tensor([f] * rows, dtype=torch.float64),
    }
    if method == "control_variate":
        kwargs["control"] = torch.tensor([g] * rows, dtype=torch.float64)
    estimate, se = getattr(reference, f"{method}_estimate")(
        **kwargs, num_samples=n, generator=torch.Generator().manual_seed(50)
    )
    sd = math.sqrt(oracle.variance(law))
    assert abs(float(estimate.mean()) - oracle.mean(law)) < 6 * sd / math.sqrt(rows)
    assert float(estimate.var()) == pytest.approx(oracle.variance(law), rel=0.06)
    covered = float(((estimate - sum(a * b for a, b in zip(p, f, strict=True))).abs() <= se).double().mean())
    assert covered == pytest.approx(oracle.coverage(law, sum(a * b for a, b in zip(p, f, strict=True)), 1.0), abs=0.02)


def test_readable_rows_decode_the_reference(parts, reference):
    """The reference passes the readable check of every method and dtype (no CheckFailed)."""
    readable = parts["readable50"]

    class Ctx:
        device = "cpu"

    for method in readable.METHODS:
        for dtype in (torch.float64, torch.float32):
            rows = readable.readable_rows(random.Random(7), method, dtype)
            value = getattr(reference, readable.FUNCTION[method])(
                **rows.kwargs(), generator=torch.Generator().manual_seed(1)
            )
            readable.check_readable(Ctx(), rows, value, what=method, public=method)


def test_the_unnormalized_law_is_where_the_raw_cumulative_sum_sends_u(parts):
    """A total above 1 cuts the tokens past 1 off; below 1, [total, 1) goes to the last token of positive weight."""
    law = parts["readable50"].unnormalized_law
    assert law([0.6, 0.9, 1.5]) == pytest.approx([0.6, 0.4, 0.0])
    assert law([0.2, 0.3, 0.0]) == pytest.approx([0.2, 0.8, 0.0])
    assert law([0.25, 0.75]) == pytest.approx([0.25, 0.75])


def test_a_scaled_row_names_the_unnormalized_sum_only_for_its_draws(parts, reference):
    """The unnormalized mistake's draws on the row scaled by 3 are named after it; draws that it cannot make
    (a token past the cut drawn) are not, and the failure names what it shows instead."""
    readable = parts["readable50"]
    rows = readable.readable_rows(random.Random(3), "plain", torch.float64)
    b = next(i for i in range(rows.probs.shape[0]) if abs(float(rows.probs[i].sum()) - 1.0) > 1e-6)
    law = readable.unnormalized_law(rows.probs[b].tolist())
    f = rows.values[0].tolist()
    reachable = [v for v, q in enumerate(law) if q > 0]
    beyond = [v for v, q in enumerate(law) if q == 0 and rows.p[b][v] > 0]
    assert reachable and beyond, "the scaled row reaches some tokens and cuts others off"
    n = rows.num_samples
    base = (n + 1, [round(math.log(x, n + 1)) for x in f])
    as_unnormalized = sum(f[reachable[0]] for _ in range(n)) / n
    as_other = sum(f[beyond[0]] for _ in range(n)) / n
    assert readable._drawn_unnormalized(rows, b, as_unnormalized, f, base, 1e-9)
    assert not readable._drawn_unnormalized(rows, b, as_other, f, base, 1e-9)


@pytest.mark.parametrize("seed", range(2))
def test_generated_instances_keep_their_promises(parts, seed):
    """Every instance: coverage far from rounding, the control variate's g close to f, antithetic f monotone."""
    stats50, oracle = parts["stats50"], parts["oracle"]
    for method in ("plain", "antithetic", "stratified", "control_variate"):
        inst = stats50.instance(random.Random(seed), method)
        assert oracle.coverage_margin(inst.law, inst.mu, stats50.ZS) > 1e-7
        if method == "antithetic":
            assert list(inst.f) == sorted(inst.f)
        if method != "plain":
            assert oracle.variance(inst.law, inst.mu) < oracle.variance(
                oracle.plain_outcomes(inst.p, inst.f, inst.n), inst.mu
            )


def test_the_variance_tests_power_uses_the_real_alpha(exercise50, parts):
    """The instances are screened at ALPHA_FOR_POWER, which is no larger than the suites' calibration alpha."""
    declared = sum((suites_module(exercise50, f"{s}.{s}").BUDGET for s in ("public", "hidden")), BudgetDeclaration())
    alpha = FalseFailureBudget(exercise50.false_failure_budget, declared).alpha("calibration")
    assert parts["stats50"].ALPHA_FOR_POWER <= alpha


def test_the_tiny_suites_frozen_values_are_the_oracles(parts):
    """What the browser's tiny suite reads from frozen50 is what the hidden oracle computes: the generator
    contract's laws, the fitted beta's outcomes, the control variate's statistics (its coverage far from
    rounding), with mistakes named by keys of MISTAKES."""
    stats50, oracle, frozen = parts["stats50"], parts["oracle"], parts["frozen50"]
    for method, law in frozen.CONTRACT_LAWS.items():
        assert law == pytest.approx(stats50.contract_law(method).tolist(), abs=1e-15), method
    assert set(frozen.CONTRACT_LAWS) == set(parts["readable50"].METHODS)
    outcomes = stats50.cv_table(frozen.BETA_P, frozen.BETA_F, frozen.BETA_G, frozen.BETA_DRAWS)
    assert len(frozen.BETA_OUTCOMES) == len(outcomes)
    for row, exact in zip(frozen.BETA_OUTCOMES, outcomes, strict=True):
        assert row == pytest.approx(exact, abs=1e-12)
    inst = stats50.Instance.of("control_variate", frozen.STATS_P, frozen.STATS_F, frozen.STATS_G, frozen.STATS_DRAWS)
    assert frozen.STATS_MU == pytest.approx(inst.mu, abs=1e-15)
    assert frozen.STATS_MEAN == pytest.approx(oracle.mean(inst.law), abs=1e-15)
    assert frozen.STATS_STD == pytest.approx(math.sqrt(oracle.variance(inst.law)), abs=1e-15)
    assert frozen.STATS_COVERAGE == pytest.approx({z: oracle.coverage(inst.law, inst.mu, z) for z in stats50.ZS})
    assert oracle.coverage_margin(inst.law, inst.mu, stats50.ZS) > 1e-7
    coverage = stats50.mistaken_coverage(inst)
    assert set(frozen.STATS_COVERAGE_MISTAKES) == set(coverage)
    for name, rates in coverage.items():
        assert frozen.STATS_COVERAGE_MISTAKES[name] == pytest.approx(rates), name
    assert frozen.STATS_MEAN_MISTAKES == pytest.approx(stats50.mistaken_means(inst))
    mistakes = parts["diagnoses"].MISTAKES
    assert set(frozen.STATS_COVERAGE_MISTAKES) | set(frozen.STATS_MEAN_MISTAKES) <= set(mistakes)


def test_every_listed_mistake_has_both_languages(parts):
    for name, text in parts["diagnoses"].MISTAKES.items():
        assert str(text) and text.zh, name
