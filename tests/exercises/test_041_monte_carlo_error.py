"""Exercise 41's own parts: the oracle, the exact Wald coverage, the frozen cases, the tiny variant's literals.

The oracle (judge side: math.fsum, fractions) and the reference solution (learner side: torch) are
written independently; agreeing on generated inputs is evidence that both follow the statement.
"""

from __future__ import annotations

import importlib.util
import math
import random
from fractions import Fraction

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.arguments import bad_inputs, legal_inputs
from judge.budget import BudgetDeclaration, FalseFailureBudget
from judge.exercise import resolve
from judge.suites import load_suite, suites_module
from judge.testing import Context


@pytest.fixture(scope="module")
def exercise41():
    return resolve("41")


@pytest.fixture(scope="module")
def parts(exercise41):
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise41, suite)
    where = {
        "oracle": "hidden",
        "cases": "hidden",
        "hidden": "hidden",
        "checks41": "public",
        "wald": "public",
        "tiny": "public",
        "diagnoses": "public",
        "specs": "hidden",
    }
    return {name: suites_module(exercise41, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise41):
    spec = importlib.util.spec_from_file_location("reference_041", exercise41.reference_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- mean_and_standard_error ------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    rows=st.integers(1, 4),
    n=st.integers(2, 30),
    offset=st.sampled_from([0.0, -3.0, 250.0, 1e4]),
    spread=st.sampled_from([1e-2, 1.0, 30.0]),
    seed=st.integers(0, 10_000),
    dtype=st.sampled_from([torch.float32, torch.float64]),
)
def test_reference_agrees_with_the_oracle(parts, reference, rows, n, offset, spread, seed, dtype):
    rng = random.Random(seed)
    samples = torch.tensor([[offset + spread * rng.gauss(0, 1) for _ in range(n)] for _ in range(rows)], dtype=dtype)
    case = parts["oracle"].mean_case(samples, None)
    mean, se = reference.mean_and_standard_error(samples)
    eps = torch.finfo(dtype).eps
    scale = float(samples.abs().max())
    assert torch.allclose(mean.double(), case.mean, rtol=0, atol=8 * eps * scale)
    assert torch.allclose(
        se.double(), case.se, rtol=1e-3 if dtype == torch.float32 else 1e-9, atol=8 * eps * scale / math.sqrt(n)
    )


def test_each_mean_mistake_is_far_outside_the_tolerance_on_its_frozen_cases(parts):
    """Every mistake a frozen case names differs from the answer by 5 times the float32 tolerance (1e-3)."""
    cases = parts["cases"]
    for case in [*cases.mean_cases(), cases.large_offset()]:
        for diagnosis, values in case.mistaken_se.items():
            moving = case.se > 0
            ratio = (values[moving] / case.se[moving] - 1).abs()
            assert float(ratio.max()) > 5e-3, (case.public, diagnosis)


def test_population_variance_is_named_by_the_small_n_cases_and_n_2_names_neither_ambiguous_mistake(parts):
    cases, mistakes = parts["cases"], parts["diagnoses"].MISTAKES
    assert mistakes["population_variance"] in cases.three_samples().mistaken_se
    assert mistakes["population_variance"] not in cases.large_offset().mistaken_se  # n = 1000: within tolerance
    two = cases.two_samples().mistaken_se  # at n = 2, s / n equals the population s / sqrt(n)
    assert mistakes["population_variance"] not in two and mistakes["se_divides_by_n"] not in two


def test_the_large_offset_case_ruins_the_one_pass_variance_in_float32(parts):
    case = parts["cases"].large_offset()
    x = case.samples
    n = x.shape[1]
    naive = (((x * x).mean(dim=1) - x.mean(dim=1) ** 2) * n / (n - 1) / n).clamp(min=0).sqrt()
    assert float(((naive.double() - case.se).abs() / case.se).max()) > 0.5


# --- estimate_probability ---------------------------------------------------------------------


def test_the_exact_coverage_agrees_with_a_simulation(parts):
    """The pmf sum of wald.coverage against 200 000 simulated binomial counts (a 6-sigma band)."""
    wald = parts["wald"]
    n, p, draws = 50, 0.105, 200_000
    counts = torch.distributions.Binomial(n, torch.full((draws,), p, dtype=torch.float64)).sample()
    p_hat = counts / n
    se = (p_hat * (1 - p_hat) / n).sqrt()
    for z in wald.Z_LEVELS:
        simulated = float(((p_hat - p).abs() <= z * se).double().mean())
        exact = wald.coverage(n, p, z)
        assert abs(simulated - exact) < 6 * math.sqrt(exact * (1 - exact) / draws), (z, simulated, exact)


@pytest.mark.parametrize("where", ["hidden", "tiny"])
def test_the_calibration_cases_have_margins_and_dividing_by_n_minus_1_changes_nothing(parts, where):
    module, checks41, wald = parts[where], parts["checks41"], parts["wald"]
    p = checks41.event_probability(module.EVENT)
    for n in (module.CALIBRATION_DRAWS, module.UNBIASED_DRAWS):
        if n == module.UNBIASED_DRAWS and n < 30:
            continue  # the bias check needs no margin
        correct, _ = wald.calibration_targets(n, p)  # raises without the margin
        widened = {
            z: wald.coverage(n, p, z, lambda k, n: (k / n, math.sqrt(k / n * (1 - k / n) / (n - 1))))
            for z in wald.Z_LEVELS
        }
        assert widened == correct
        assert (n * p) % 1 > 0.01 and (n * p) % 1 < 0.99  # P(event) itself is no frequency k / n


@pytest.mark.parametrize("where", ["hidden", "tiny"])
def test_a_correct_estimator_cannot_repeat_itself_under_another_seed(parts, where):
    module, checks41 = parts[where], parts["checks41"]
    pmf = checks41.count_probs(module.SEED_DRAWS, checks41.event_probability(module.EVENT))
    assert float((pmf**2).sum()) ** module.SEED_ROWS < 1e-12


def test_event_probabilities_and_the_softmax_mistake(parts):
    checks41 = parts["checks41"]
    assert checks41.event_probability((4, 6)) == pytest.approx(0.1235, abs=1e-7)
    assert checks41.event_probability((5, 6, 7)) == pytest.approx(0.105, abs=1e-7)
    assert checks41.event_probability((5, 6, 7), softmax=True) > 0.3


# --- samples_needed ---------------------------------------------------------------------------

floats = st.one_of(
    st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0625, 0.125, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.1, 1.2, 1.96]),
)


@settings(max_examples=200, deadline=None)
@given(delta=floats, sigma=floats, num_se=floats)
def test_reference_samples_needed_is_the_exact_smallest_n(parts, reference, delta, sigma, num_se):
    bound = parts["oracle"].bound(delta, sigma, num_se)
    if bound > 1e15:
        return
    n = reference.samples_needed(delta, sigma, num_se)
    assert type(n) is int and n >= 1
    square = Fraction(delta) ** 2
    assert 2 * (Fraction(num_se) * Fraction(sigma)) ** 2 < square * n  # n satisfies the strict inequality
    assert n == 1 or not 2 * (Fraction(num_se) * Fraction(sigma)) ** 2 < square * (n - 1)  # n - 1 does not
    assert n in parts["oracle"].needed_case(delta, sigma, num_se).accepted


def test_whole_number_bounds_accept_one_answer_and_near_ones_two(parts):
    cases = {(c.delta, c.sigma, c.num_se): c for c in parts["cases"].needed_cases()}
    assert cases[(0.125, 1.5, 2.0)].accepted == (1153,)
    assert cases[(2.0, 1.0, 2.0)].accepted == (3,)
    assert cases[(0.1, 1.2, 2.0)].accepted == (1152, 1153)  # the floats' bound is 1151.99999999999994
    assert cases[(1.0, 0.3, 1.0)].accepted == (1,)


def test_each_samples_needed_mistake_is_told_apart_by_the_hidden_cases(parts):
    """Every mistake gets some case wrong, and no two mistakes answer every case alike."""
    cases = parts["cases"].needed_cases()
    names = list(cases[0].mistaken)
    for name in names:
        assert any(case.mistaken[name] not in case.accepted for case in cases), name
    answers = {name: tuple(case.mistaken[name] for case in cases) for name in names}
    assert len(set(answers.values())) == len(names)


# --- the tiny variant's frozen values -----------------------------------------------------------


def test_tiny_mean_cases_match_the_oracle(parts):
    tiny, oracle = parts["tiny"], parts["oracle"]
    for index in range(len(tiny.MEAN_CASES)):
        frozen = tiny.mean_case(index)
        exact = oracle.mean_case(frozen.samples, None)
        assert torch.allclose(frozen.mean, exact.mean, rtol=1e-12, atol=0)
        assert torch.allclose(frozen.se, exact.se, rtol=1e-12, atol=0)
        assert set(frozen.mistaken_se) == set(exact.mistaken_se)
        for diagnosis, values in frozen.mistaken_se.items():
            assert torch.allclose(values, exact.mistaken_se[diagnosis], rtol=1e-12, atol=0)


def test_tiny_samples_needed_cases_match_the_oracle(parts):
    tiny, oracle = parts["tiny"], parts["oracle"]
    for delta, sigma, num_se, accepted, mistaken in tiny.NEEDED:
        exact = oracle.needed_case(delta, sigma, num_se)
        assert accepted == exact.accepted and mistaken == exact.mistaken


def test_the_public_chapter_case_matches_the_oracle(parts):
    exact = parts["oracle"].needed_case(0.125, 1.5, 2.0)
    assert exact.accepted == (1153,)
    assert exact.mistaken == {
        "one_sample": 577,
        "not_squared": 34,
        "rounds_down": 1152,
        "not_strict": 1152,
        "inexact_bound": 1153,
    }


def test_the_bias_checks_mixed_rows_keep_p_event_and_differ(parts):
    """Mixed rows: every row keeps P(event) exactly, yet rows differ in order, event and sum, and the
    known bias mistakes' means are far from P(event)."""
    checks41 = parts["checks41"]
    for event in ((4, 6), (5, 6, 7)):
        p = checks41.event_probability(event)
        probs, mask = checks41._inputs(64, event, mixed=True, dtype=torch.float64)
        each = (probs * mask).sum(1) / probs.sum(1)
        assert torch.allclose(each, torch.full_like(each, p), rtol=0, atol=1e-15)
        assert len({tuple(r) for r in mask.tolist()}) == len(checks41.PROBS)
        assert len({round(s, 9) for s in probs.sum(1).tolist()}) == len(checks41.SCALES)
        mistakes = checks41.mixed_mistakes(64, event)
        assert mistakes["complement_event"] == pytest.approx(1 - p)
        assert min(abs(mean - p) for mean in mistakes.values()) > 0.05


# --- the contract's generated inputs (tests/hidden/specs.py) -------------------------------------------


@pytest.mark.parametrize(
    "function, arguments, good, check",
    [
        ("mean_and_standard_error", "MEAN_ARGUMENTS", "good_samples", "mean_corner_check"),
        ("estimate_probability", "PROBABILITY_ARGUMENTS", "good_probability_call", "probability_corner_check"),
        ("samples_needed", "NEEDED_ARGUMENTS", "good_needed_call", "needed_corner_check"),
    ],
)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_the_reference_refuses_every_generated_bad_input_and_answers_every_corner(
    parts, reference, function, arguments, good, check, seed
):
    """The reference agrees with its statement on every seed's calls: a refusal for each bad one, the
    oracle's answer for each legal one (where they disagree, one of them is wrong)."""
    specs = parts["specs"]
    rng = random.Random(seed)
    call, described = getattr(specs, good)(rng), getattr(specs, arguments)
    ctx = Context(seed=seed, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration()))
    oracle = getattr(specs, check)
    oracle = oracle(ctx) if check != "needed_corner_check" else oracle
    for variant in bad_inputs(call, described, rng):
        with pytest.raises(ValueError):
            getattr(reference, function)(**variant.kwargs)
    for variant in legal_inputs(call, described, rng):
        oracle(getattr(reference, function)(**variant.kwargs), variant)


def test_a_learner_checking_the_fixed_tables_only_fails_the_generated_ones(parts):
    """What the issue found: validation written from the examples of exercise 41's own table of bad
    inputs alone passes that table; the generated calls catch it (anything but a ValueError counts)."""
    specs = parts["specs"]

    def table_only(probs, event, num_samples, generator=None):
        if event.shape != probs.shape or event.dtype == torch.int64 or num_samples == 0:
            raise ValueError("bad event or num_samples")
        if bool(torch.isnan(probs).any()) or bool((probs < 0).any()) or bool((probs.sum(1) == 0).any()):
            raise ValueError("bad probs")
        draws = torch.multinomial(probs, num_samples, replacement=True, generator=generator)  # no checks of its own
        return event.gather(1, draws).sum(1).to(probs.dtype) / num_samples

    rng = random.Random(41)
    accepted = []
    for variant in bad_inputs(specs.good_probability_call(rng), specs.PROBABILITY_ARGUMENTS, rng):
        try:
            table_only(**variant.kwargs)
            accepted.append(variant.public)
        except (ValueError, TypeError, AttributeError, RuntimeError) as raised:
            if type(raised) is not ValueError:
                accepted.append(variant.public)
    assert "probs holding +inf" in accepted and "probs of an integer dtype" in accepted
    assert "num_samples below 1" in accepted  # -7: only 0 was in the table
