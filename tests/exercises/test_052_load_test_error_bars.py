"""Exercise 52's own parts: the oracle against the reference, the frozen browser values, the exact laws of
resampled statistics, the generated cases' invariants, and the coverage band against the reference.

The oracle (Python floats) and the reference (torch) are written independently; agreeing on generated
inputs is evidence that both follow the statement.
"""

from __future__ import annotations

import math
import random

import pytest
import torch

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


@pytest.fixture(scope="module")
def exercise52():
    exercise = resolve("52")
    for suite in ("public", "hidden", "tiny"):
        load_suite(exercise, suite)
    return exercise


@pytest.fixture(scope="module")
def oracle(exercise52):
    return suites_module(exercise52, "public.oracle52")


@pytest.fixture(scope="module")
def reference(exercise52):
    return import_solution(exercise52.reference_path, "reference_052")


def _rows(rng, rows, n, dtype):
    pool = [round(rng.uniform(0, 5), 2) for _ in range(4)]
    return torch.tensor(
        [[rng.choice(pool) if rng.random() < 0.3 else rng.lognormvariate(0, 1) for _ in range(n)] for _ in range(rows)],
        dtype=dtype,
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_reference_matches_the_oracle(reference, oracle, dtype):
    rng = random.Random(52)
    for _ in range(20):
        samples = _rows(rng, 3, rng.randint(2, 9), dtype)
        level = rng.choice((0.5, 0.8, 0.9, 0.99))
        for statistic in ("mean", "median", "p90"):
            jack = reference.jackknife_stats(samples, statistic)
            torch.testing.assert_close(jack.double(), oracle.jackknife_rows(samples, statistic), rtol=1e-5, atol=1e-6)
        boot = _rows(rng, 3, rng.randint(1, 30), dtype)
        torch.testing.assert_close(
            reference.percentile_interval(boot, level).double(),
            oracle.percentile_rows(boot, level),
            rtol=1e-5,
            atol=1e-6,
        )
        estimate = boot.median(dim=1).values
        jack = reference.jackknife_stats(samples, "mean")
        rows = zip(estimate.double().tolist(), oracle.rows_of(boot), oracle.rows_of(jack), strict=True)
        if all(oracle.bca_denominators(e, b, j, level) > 0.05 for e, b, j in rows):
            torch.testing.assert_close(
                reference.bca_interval(estimate, boot, jack, level).double(),
                oracle.bca_rows(estimate, boot, jack, level),
                rtol=1e-5,
                atol=1e-6,
            )


def test_the_statement_examples(reference, oracle):
    boot = torch.tensor([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]], dtype=torch.float64)
    assert reference.percentile_interval(boot, 0.5).tolist() == [[1.75, 5.25]]
    jack = torch.tensor([[3.5, 3.25, 3.25, 2.75, 2.25]], dtype=torch.float64)
    low, high = reference.bca_interval(torch.tensor([3.0], dtype=torch.float64), boot, jack, 0.5)[0].tolist()
    assert (round(low, 4), round(high, 4)) == (1.1834, 4.5172)
    assert reference.runs_needed(1.2, 1.2, 0.1) == 1152
    assert reference.runs_needed(1.2, 1.3, 0.1) == 1252
    assert reference.runs_needed(1.2, 1.2, -0.1, z=1.96) == 1107
    assert oracle.runs_accepted(1.2, 1.2, 0.1, 2.0) == (1152, 1153)  # the quotient is 1151.9999999999998
    assert oracle.runs_accepted(1.2, 1.2, -0.1, 1.96) == (1107,)


def test_frozen_browser_values_equal_the_oracle(exercise52, oracle):
    frozen = suites_module(exercise52, "public.frozen52")
    assert oracle.percentile_rows(frozen.FROZEN_BOOT, frozen.FROZEN_LEVEL).tolist() == frozen.FROZEN_PERCENTILE


def test_resample_law_is_a_distribution_and_matches_a_simulation(oracle):
    values = [0.0, 1.0, 4.0, 10.0]
    law = oracle.resample_law(values, "mean")
    assert math.isclose(sum(law.values()), 1.0)
    assert law[round(sum(values) / 4, 9)] == pytest.approx(24 / 256 + 0.0)  # the permutations
    g = torch.Generator().manual_seed(0)
    picks = torch.randint(0, 4, (200_000, 4), generator=g)
    means = torch.tensor(values)[picks].mean(dim=1).double()
    for value, p in law.items():
        share = float(((means - value).abs() < 1e-6).double().mean())
        assert abs(share - p) < 5 * math.sqrt(p * (1 - p) / 200_000) + 1e-9


def test_laws_of_the_suites_keep_their_outcomes_apart(exercise52):
    checks = suites_module(exercise52, "public.checks52")
    hidden = suites_module(exercise52, "hidden.hidden")
    for rows, statistic in ((hidden.CONTRACT_ROWS, "mean"), (hidden.MEDIAN_ROWS, "median"), (hidden.P90_ROWS, "p90")):
        for law in checks.laws(rows, statistic):  # Law() asserts a gap of 1e-3 between outcomes
            assert set(law.target) <= set(law.outcomes)
            assert all(law.probs(m).sum() == pytest.approx(1.0) for m in law.mistakes.values())


def test_generated_bca_cases_stay_away_from_the_open_rows(exercise52, oracle):
    hidden = suites_module(exercise52, "hidden.hidden")
    rng = random.Random(7)
    for _ in range(30):
        estimate, boot, jack, level = hidden._bca_case(rng, rng.choice((torch.float32, torch.float64)))
        rows = zip(estimate.double().tolist(), oracle.rows_of(boot), oracle.rows_of(jack), strict=True)
        assert all(oracle.bca_denominators(e, b, j, level) > 0.2 for e, b, j in rows)


def test_coverage_truths(exercise52):
    coverage = suites_module(exercise52, "hidden.coverage")
    g = torch.Generator().manual_seed(3)
    assert float(coverage.accepted(g, 400, 500).mean()) == pytest.approx(coverage.ACCEPTED_MEAN, abs=0.01)
    assert float(coverage.lognormal(g, 400, 500).median()) == pytest.approx(1.0, abs=0.01)
    a, b = coverage.paired(g, 200, 500)
    assert float((b - a).mean()) == pytest.approx(coverage.PAIRED.truth, abs=0.005)


def test_the_reference_covers_inside_the_band(exercise52, reference):
    """One coverage case at 1 000 data sets: the reference's rate is far inside the band (0.84, 0.93)."""
    checks = suites_module(exercise52, "public.checks52")
    coverage = suites_module(exercise52, "hidden.coverage")
    g = torch.Generator().manual_seed(11)
    a, b = coverage.paired(g, 1000)
    ends = reference.difference_ci(a, b, True, coverage.LEVEL, coverage.RESAMPLES, generator=g)
    rate = float(((ends[:, 0] <= 0.15) & (ends[:, 1] >= 0.15)).double().mean())
    low, high = checks.COVERAGE_BAND
    assert low + 0.01 < rate < high - 0.01


def test_skewed_rows_give_their_frozen_ends_under_every_seed(exercise52, reference):
    """The hidden BCa-vs-percentile rows: the reference returns the frozen ends under 8 generator seeds."""
    hidden = suites_module(exercise52, "hidden.hidden")
    for seed in range(8):
        g = torch.Generator().manual_seed(seed)
        bca = reference.bootstrap_ci(hidden.SKEWED_ROWS, "mean", 0.8, hidden.SKEWED_RESAMPLES, "bca", generator=g)
        percentile = reference.bootstrap_ci(
            hidden.SKEWED_ROWS, "mean", 0.8, hidden.SKEWED_RESAMPLES, "percentile", generator=g
        )
        assert bca.tolist() == hidden.SKEWED_BCA
        assert percentile.tolist() == hidden.SKEWED_PERCENTILE
