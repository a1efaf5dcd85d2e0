"""Exercise 41's own parts: the oracle, the exact Wald coverage, the frozen cases, the tiny variant's literals.

The oracle (judge side: math.fsum, fractions) and the reference solution (learner side: torch) are
written independently; agreeing on generated inputs is evidence that both follow the statement.
"""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.checks.arguments import bad_inputs, legal_inputs
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.testing import Context
from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


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
        "answers41": "public",
        "draws41": "public",
        "extremes41": "public",
        "wald": "public",
        "tiny": "public",
        "diagnoses": "public",
        "specs": "hidden",
    }
    return {name: suites_module(exercise41, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise41):
    return import_solution(exercise41.reference_path, "reference_041")


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


def _offset_cases(parts, dtype, seeds=range(12)):
    return [parts["cases"].offset_case(random.Random(seed), dtype) for seed in seeds]


def test_each_mean_mistake_is_far_outside_the_tolerance_on_its_cases(parts):
    """Every mistake a case names differs from the answer by 5 times the float32 tolerance (1e-3)."""
    for case in [*parts["cases"].mean_cases(), *_offset_cases(parts, torch.float32, range(3))]:
        for diagnosis, values in case.mistaken_se.items():
            moving = case.se > 0
            ratio = (values[moving] / case.se[moving] - 1).abs()
            assert float(ratio.max()) > 5e-3, (case.public, diagnosis)


def test_population_variance_is_named_by_the_small_n_cases_and_n_2_names_neither_ambiguous_mistake(parts):
    cases, mistakes = parts["cases"], parts["diagnoses"].MISTAKES
    assert mistakes["population_variance"] in cases.three_samples().mistaken_se
    for case in _offset_cases(parts, torch.float32, range(3)):  # n >= 800: within tolerance
        assert mistakes["population_variance"] not in case.mistaken_se
    two = cases.two_samples().mistaken_se  # at n = 2, s / n equals the population s / sqrt(n)
    assert mistakes["population_variance"] not in two and mistakes["se_divides_by_n"] not in two


def test_a_constant_rows_exact_answer_is_exactly_0(parts):
    """The oracle sums fractions: a constant row's standard error is 0, not its own rounding's residue."""
    case = parts["oracle"].mean_case(torch.tensor([[0.1] * 7, [-7.3] * 7, [1e5 + 0.3] * 7], dtype=torch.float64), None)
    assert case.se.tolist() == [0.0, 0.0, 0.0]


def _one_pass(samples, dtype):
    x = samples.to(dtype)
    n = x.shape[1]
    variance = ((x * x).sum(dim=1) - n * x.mean(dim=1) ** 2).clamp(min=0) / (n - 1)
    return (variance / n).sqrt().to(torch.float64)


def _welford_mean(samples):
    mean = torch.zeros(samples.shape[0], dtype=samples.dtype)
    for j in range(samples.shape[1]):
        mean = mean + (samples[:, j] - mean) / (j + 1)
    return mean.to(torch.float64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_offset_cases_ruin_the_one_pass_variance_in_their_own_dtype(parts, dtype):
    """The attack the generated offset rows exist for: E[x^2] - E[x]^2 (float32 rows in float32, float64
    rows in float64, the red team's "float64 has digits to spare") misses the tolerance on every seed."""
    checks41 = parts["checks41"]
    for case in _offset_cases(parts, dtype):
        n = case.samples.shape[1]
        atol = 8 * torch.finfo(dtype).eps * float(case.samples.abs().max()) / math.sqrt(n)
        wrong = (_one_pass(case.samples, dtype) - case.se).abs() > checks41.se_tolerance(dtype) * case.se + atol
        assert bool(wrong.any()), case.public


def test_the_float32_offset_case_stalls_a_float32_running_mean_on_every_seed(parts):
    checks41 = parts["checks41"]
    for case in _offset_cases(parts, torch.float32, range(40)):
        atol = checks41.mean_ulps(torch.float32) * torch.finfo(torch.float32).eps * float(case.samples.abs().max())
        assert float((_welford_mean(case.samples) - case.mean).abs().max()) > 1.5 * atol


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_reference_passes_the_offset_cases_with_margin(parts, reference, dtype):
    checks41 = parts["checks41"]
    eps = torch.finfo(dtype).eps
    for case in _offset_cases(parts, dtype, range(40)):
        scale, n = float(case.samples.abs().max()), case.samples.shape[1]
        near = parts["oracle"].mean_case(checks41.shifted_near_zero(case.samples), None)
        for judged in (case, near):
            mean, se = reference.mean_and_standard_error(judged.samples)
            mean_atol = checks41.mean_ulps(dtype) * eps * float(judged.samples.abs().max())
            assert float((mean.double() - judged.mean).abs().max()) < mean_atol / 2
            se_tol = checks41.se_tolerance(dtype) * judged.se + 8 * eps * float(judged.samples.abs().max()) / math.sqrt(
                n
            )
            assert bool(((se.double() - judged.se).abs() < se_tol / 2).all()), (judged.public, scale)


def test_shifted_near_zero_keeps_the_deviations_exactly(parts):
    checks41 = parts["checks41"]
    for dtype in (torch.float32, torch.float64):
        for case in _offset_cases(parts, dtype, range(5)):
            moved = checks41.shifted_near_zero(case.samples)
            assert float(moved.abs().max()) < 1e3
            deviations = case.samples.double() - case.samples.double().mean(dim=1, keepdim=True)
            again = moved.double() - moved.double().mean(dim=1, keepdim=True)
            assert torch.allclose(deviations, again, rtol=0, atol=1e-9 * float(case.samples.abs().max()))


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
def test_the_generator_contract_is_sized_to_tell_repeats_and_twins(parts, where):
    """A correct estimator repeats its counts under another seed with probability below the seeds level,
    and twin rows that share their numbers (agreeing at every copy) fail the independence level."""
    module, draws41 = parts[where], parts["draws41"]
    _, _, truth = draws41.contract_inputs(parts["checks41"].PROBS)
    targets = torch.stack([draws41.count_probs(module.CONTRACT_DRAWS, p) for p in truth])
    repeat = float(((targets**2).sum(dim=1) ** module.CONTRACT_COPIES).prod())
    assert repeat < 1e-12
    twin = float((targets[draws41.TWINS[0]] ** 2).sum())
    assert twin**module.CONTRACT_COPIES < 1e-8


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
    """Every mistake gets some frozen case wrong, except those of inexact arithmetic on floats that are no
    binary fractions (the generated whole-number bounds' own), and no two mistakes answer every case alike."""
    cases = parts["cases"].needed_cases()
    names = list(cases[0].mistaken)
    for name in names:
        caught = any(case.mistaken[name] not in case.accepted for case in cases)
        assert caught == (name not in ("float_bound", "decimal_fraction")), name
    answers = {name: tuple(case.mistaken[name] for case in cases) for name in names}
    assert len(set(answers.values())) == len(names)


@pytest.mark.parametrize("seed", range(30))
def test_the_whole_number_bounds_catch_every_inexact_way_on_every_seed(parts, reference, seed):
    """The attack the generated bounds exist for: each inexact way of computing the bound (floats in three
    orders, sqrt(2), decimals) errs at least twice per seed, each catalogued mistake is told apart from
    the others, and the reference is exact."""
    cases, _checks41 = parts["cases"], parts["checks41"]
    instances = cases.whole_number_bounds(random.Random(seed))
    for way, answer in cases.INEXACT_WAYS.items():
        assert sum(answer(c.delta, c.sigma, c.num_se) not in c.accepted for c in instances) >= 2, way
    names = list(instances[0].mistaken)
    answers = {name: tuple(c.mistaken[name] for c in instances) for name in names}
    assert len(set(answers.values())) == len(names)
    assert sum(c.whole for c in instances) >= cases.WHOLE_COUNT
    for c in instances:
        assert reference.samples_needed(c.delta, c.sigma, c.num_se) in c.accepted
        assert isinstance(c.delta, (int, float)) and c.delta > 0


def test_an_unlisted_inexact_formula_gets_the_inexact_diagnosis_and_a_strictness_mistake_does_not(parts):
    """_inexact's evidence: wrong only at some whole-number bounds, one short there."""
    cases, checks41, mistakes = parts["cases"], parts["checks41"], parts["diagnoses"].MISTAKES
    instances = cases.whole_number_bounds(random.Random(7))

    class Learner:
        def __init__(self, answer):
            self.samples_needed = answer

    def headline(answer):
        try:
            checks41.check_samples_needed(Learner(answer), instances)
        except checks41.CheckFailed as failure:
            return failure.diagnosis
        return "passed"

    squared_apart = cases.INEXACT_WAYS["floats, squared apart"]
    assert headline(squared_apart) == mistakes["inexact_arithmetic"]
    assert headline(lambda d, s, z: math.ceil(parts["oracle"].bound(d, s, z))) == mistakes["not_strict"]
    assert headline(cases.INEXACT_WAYS["floats"]) == mistakes["float_bound"]
    assert headline(cases.INEXACT_WAYS["decimals"]) == mistakes["decimal_fraction"]
    assert headline(reference_answer(parts)) == "passed"


def reference_answer(parts):
    return lambda d, s, z: math.floor(parts["oracle"].bound(d, s, z)) + 1


# --- the tiny variant's frozen values -----------------------------------------------------------


def test_tiny_mean_cases_match_the_oracle(parts):
    tiny, oracle, checks41 = parts["tiny"], parts["oracle"], parts["checks41"]
    for far, near in ((2, 3), (4, 5)):  # each case far from 0 is followed by the same rows moved near 0
        assert torch.equal(checks41.shifted_near_zero(tiny.mean_case(far).samples), tiny.mean_case(near).samples)
    for frozen in tiny.stall_cases():
        exact = oracle.mean_case(frozen.samples, None)
        assert torch.equal(frozen.mean, exact.mean) and torch.allclose(frozen.se, exact.se, rtol=1e-15, atol=0)
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
    for delta, sigma, num_se, accepted, mistaken, whole in tiny.NEEDED:
        exact = oracle.needed_case(delta, sigma, num_se)
        assert accepted == exact.accepted and mistaken == exact.mistaken and whole == exact.whole


def test_the_public_chapter_case_matches_the_oracle(parts):
    exact = parts["oracle"].needed_case(0.125, 1.5, 2.0)
    assert exact.accepted == (1153,)
    assert exact.mistaken == {
        "one_sample": 577,
        "not_squared": 34,
        "rounds_down": 1152,
        "not_strict": 1152,
        "inexact_bound": 1153,
        "float_bound": 1153,
        "decimal_fraction": 1153,
    }
    assert exact.whole


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


def _refusal(argument: str, kind: str) -> str:
    """The start of the reference's message for a bad call with the flaw ``kind`` in ``argument``: the
    check that refuses it, so that a removed check cannot hide behind another raising ValueError."""
    if argument == "event" or (argument, kind) == ("probs", "shape"):
        return "event must be a bool tensor of the shape of probs"
    if (argument, kind) == ("samples", "shape"):
        return "a standard error needs n >= 2 samples per row"
    if (argument, kind) == ("probs", "zero_row"):
        return "every row of probs needs a positive sum"
    if kind in ("dtype", "rank", "not_a_tensor"):
        return f"{argument} must be a 2-D floating tensor"
    if argument == "num_samples":
        return "num_samples must be an integer >= 1, got "
    if kind == "not_a_number":
        return f"{argument} must be a number"
    if argument in ("samples", "probs"):
        return f"{argument} must be finite"
    return f"{argument} must be finite and > 0, got "


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
        with pytest.raises(ValueError, match="^" + re.escape(_refusal(variant.argument, variant.kind))):
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


# --- answers41: each answer's estimates and standard errors, exactly ---------------------------------


def _counts(rng, rows, n):
    return torch.tensor([rng.randint(1, n - 1) for _ in range(rows)] + [0, n], dtype=torch.int64)


def _failure(call):
    try:
        call()
    except Exception as failure:  # noqa: BLE001 - CheckFailed of the exercise's judge module
        return failure
    return None


def test_each_standard_error_mistake_is_named_by_its_own_formula_and_nothing_else(parts):
    answers, mistakes = parts["answers41"], parts["diagnoses"].MISTAKES
    rng, n = random.Random(3), 50
    counts = _counts(rng, 8, n)
    truth = [0.37] * 10
    estimate = (counts.double() / n).to(torch.float32)

    def judged(errors):
        se = torch.tensor(errors, dtype=torch.float64).to(torch.float32)
        return _failure(
            lambda: answers.check_standard_errors(estimate, se, counts, n, torch.float32, what="t", truth=truth)
        )

    p = [int(k) / n for k in counts]
    for name, formula in answers.MISTAKEN_ERRORS.items():
        failure = judged([formula(q, n, t) for q, t in zip(p, truth, strict=True)])
        assert failure is not None and failure.diagnosis == mistakes[name], name
    assert judged([math.sqrt(q * (1 - q) / n) for q in p]) is None
    assert judged([math.sqrt(q * (1 - q) / (n - 1)) for q in p]) is None  # n - 1 is accepted
    assert judged([math.sqrt(q * (2 - q) / n) for q in p]).diagnosis is None  # a mutant, no catalogued mistake
    assert judged([0.0] * len(p)).diagnosis is None  # nothing varies: no mistake's own formula
    nan_where_certain = [math.nan if q in (0, 1) else math.sqrt(q * (1 - q) / n) for q in p]
    assert judged(nan_where_certain).diagnosis == mistakes["se_nan_when_certain"]
    nan_elsewhere = [math.nan] + [math.sqrt(q * (1 - q) / n) for q in p[1:]]
    assert judged(nan_elsewhere).diagnosis is None


def test_one_draw_has_standard_error_exactly_0(parts):
    answers = parts["answers41"]
    counts = torch.tensor([0, 1, 1, 0])
    estimate = counts.to(torch.float64)
    assert (
        _failure(lambda: answers.check_standard_errors(estimate, torch.zeros(4), counts, 1, torch.float64, what="t"))
        is None
    )
    nan = torch.full((4,), math.nan)
    assert (
        _failure(lambda: answers.check_standard_errors(estimate, nan, counts, 1, torch.float64, what="t")) is not None
    )


def test_a_non_frequency_is_named_only_by_the_one_formula_it_fits(parts):
    answers, mistakes = parts["answers41"], parts["diagnoses"].MISTAKES
    n, counts = 40, torch.tensor([3, 11, 17, 25, 38])

    def named(values, truth=None):
        estimate = torch.tensor(values, dtype=torch.float64)
        failure = _failure(lambda: answers.check_frequencies(estimate, n, torch.float64, what="t", truth=truth))
        return failure.diagnosis

    assert named([(int(k) + 1) / (n + 2) for k in counts]) == mistakes["smoothed_estimate"]
    assert named([int(k) / (n - 1) for k in counts]) == mistakes["estimate_divides_by_n_minus_1"]
    truth = [0.1235, 0.3, 0.4411, 0.6, 0.9]
    assert named(truth, truth) == mistakes["not_a_frequency"]
    assert named(truth) is None  # without the truth, no evidence of what it is
    # At n = 1 the probabilities 1/3 and 2/3 fit (k + 1) / 3 too: two formulas alike name neither.
    estimate = torch.tensor([1 / 3, 2 / 3], dtype=torch.float64)
    failure = _failure(lambda: answers.check_frequencies(estimate, 1, torch.float64, what="t", truth=[1 / 3, 2 / 3]))
    assert failure.diagnosis is None


def test_half_precision_estimates_are_frequencies_rounded_to_their_dtype(parts):
    answers = parts["answers41"]
    for dtype in (torch.float16, torch.bfloat16):
        counts = torch.arange(0, 38)
        estimate = (counts / 37).to(dtype)
        assert torch.equal(answers.check_frequencies(estimate, 37, dtype, what="t"), counts)


# --- draws41: the draws behind the counts --------------------------------------------------------------


def test_the_independence_rows_have_events_of_probability_one_half_that_shared_uniforms_tie(parts):
    draws41 = parts["draws41"]
    probs, event = draws41.halves(random.Random(5), 40)
    weights = probs / probs.sum(dim=1, keepdim=True)
    assert torch.equal((weights * event).sum(dim=1), torch.full((80,), 0.5, dtype=torch.float64))
    u = torch.rand(1000, dtype=torch.float64)
    for order in ("vocabulary", "sorted"):
        hits = []
        for row in (0, 1):
            w = weights[row]
            index = torch.arange(3) if order == "vocabulary" else torch.argsort(w, descending=True, stable=True)
            cdf = w[index].cumsum(0)
            token = index[torch.searchsorted(cdf, u * cdf[-1], right=True).clamp(max=2)]
            hits.append(event[row][token])
        agree = float((hits[0] == hits[1]).double().mean())
        assert agree in (0.0, 1.0), order  # one shared uniform: the two rows tied (equal or complementary)
    coin = (u < 0.5, u < 0.5)
    assert bool((coin[0] == coin[1]).all())


def test_the_dispersion_diagnosis_needs_the_right_mean_and_the_wrong_spread(parts):
    draws41, mistakes = parts["draws41"], parts["diagnoses"].MISTAKES
    rng = random.Random(9)
    binomial = torch.tensor([sum(rng.random() < 0.5 for _ in range(5)) for _ in range(1000)])
    assert draws41.dispersion_diagnosis(binomial, 5, 0.5) is None
    antithetic = torch.tensor([2 + (rng.random() < 0.5) for _ in range(1000)])  # n = 5: two pairs and a free draw
    assert draws41.dispersion_diagnosis(antithetic, 5, 0.5) == mistakes["draws_not_independent"]
    repeated = torch.tensor([5 * (rng.random() < 0.5) for _ in range(1000)])  # one uniform for all draws
    assert draws41.dispersion_diagnosis(repeated, 5, 0.5) == mistakes["draws_not_independent"]
    assert draws41.dispersion_diagnosis(torch.full((1000,), 2), 5, 0.5) is None  # no randomness at all
    biased = torch.tensor([sum(rng.random() < 0.8 for _ in range(5)) for _ in range(1000)])
    assert draws41.dispersion_diagnosis(biased, 5, 0.5) is None  # a bias is named elsewhere


# --- extremes41: rows whose answer is certain --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_certain_rows_run_an_inverse_cdf_off_the_end_at_the_largest_uniform(parts, dtype):
    """The attack: u * sum() searched in cumsum() and clamped draws the last token, of weight 0, at the
    largest float below 1 (for every seed), while the certain rows are what the statement says."""
    extremes41 = parts["extremes41"]
    below_one = torch.tensor(1 - torch.finfo(dtype).eps / 2, dtype=dtype)
    for seed in range(20):
        rows = extremes41.exact_rows(random.Random(seed), dtype, 5)
        probs, event = rows.probs, rows.event
        truth = parts["answers41"].event_probabilities(probs, event)
        assert [t if c is not None else None for t, c in zip(truth, rows.certain, strict=True)] == list(rows.certain)
        certain = [row for row, c in enumerate(rows.certain) if c is not None]
        assert bool((probs[certain, 0] == 0).all() and (probs[certain, -1] == 0).all())
        cdf = probs.cumsum(dim=1)
        token = torch.searchsorted(cdf, below_one * probs.sum(dim=1, keepdim=True), right=True)
        token = token.clamp(max=probs.shape[1] - 1)
        assert int(token[0, 0]) == probs.shape[1] - 1 and bool(event[0, -1])  # a weight-0 token, in the event
        right = torch.searchsorted(cdf, below_one * cdf[:, -1:], right=True)
        assert bool((right[certain] < probs.shape[1] - 1).all())  # scaled by the cumsum's own last entry: never


def test_the_tiny_weights_are_normal_numbers_of_their_dtype(parts):
    extremes41 = parts["extremes41"]
    for dtype in (torch.float32, torch.float64):
        rows = extremes41.exact_rows(random.Random(1), dtype, 3)
        tiny = rows.probs[3][rows.probs[3] > 0]
        assert bool((tiny > torch.finfo(dtype).tiny).all()) and float(tiny.max()) < 1e-20
        assert int((rows.probs[3] == 0).sum()) >= 2 and len(tiny) >= 1


def test_the_tiny_variants_frozen_rows_run_past_their_cumsum_in_torch(parts):
    tiny, extremes41 = parts["tiny"], parts["extremes41"]
    for dtype, past in tiny.PAST_THE_END.items():
        rows = extremes41.exact_rows(random.Random(tiny.EXTREMES_SEED), dtype, 1, past=past)
        assert extremes41._runs_past(rows.probs, [0, 2]), dtype
