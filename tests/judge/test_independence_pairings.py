"""Independence at every distance: the three pairings of ``expect_independent_within_row`` and the
cross-row test ``expect_independent_across_rows``, against toy samplers that reuse their random
numbers where the consecutive pairs cannot see it, and correct samplers of four kinds."""

from __future__ import annotations

import pytest
import torch

from judge.checks import base, independence
from judge.checks import stats
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed
from judge.checks.independence import expect_independent_across_rows, expect_independent_within_row
from judge.checks.pairings import HALF_APART_DIAGNOSIS, MIRRORED_DIAGNOSIS, row_pairings
from judge.i18n import Bilingual

PROBS = torch.tensor([0.3, 0.25, 0.2, 0.1, 0.08, 0.05, 0.02], dtype=torch.float64)
OTHER = torch.tensor([0.05, 0.1, 0.4, 0.15, 0.3], dtype=torch.float64)
N = 20_000


@pytest.fixture
def ctx():
    from judge.checks.testing import Context

    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=4, pairs=4, independence=2, seeds=1))
    return Context(seed=1, device="cpu", budget=budget)


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _inverse_cdf(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Token ids for uniforms ``u`` (any shape) by the inverse CDF of ``probs`` [V]."""
    return torch.searchsorted(torch.cumsum(probs, 0), u, right=True).clamp_max(probs.shape[0] - 1)


# --- correct samplers, four kinds --------------------------------------------------------------------


def inverse_cdf(probs, shape, seed):
    return _inverse_cdf(probs, torch.rand(shape, generator=_generator(seed), dtype=torch.float64))


def gumbel(probs, shape, seed):
    noise = -torch.log(-torch.log(torch.rand(*shape, probs.shape[0], generator=_generator(seed), dtype=torch.float64)))
    return (probs.log() + noise).argmax(dim=-1)


def exponential_race(probs, shape, seed):
    noise = torch.empty(*shape, probs.shape[0], dtype=torch.float64).exponential_(generator=_generator(seed))
    return (noise / probs).argmin(dim=-1)


def multinomial(probs, shape, seed):
    count = 1
    for size in shape:
        count *= size
    return torch.multinomial(probs, count, replacement=True, generator=_generator(seed)).reshape(shape)


CORRECT = (inverse_cdf, gumbel, exponential_race, multinomial)

# --- wrong samplers: each reuses a uniform where consecutive pairs do not look --------------------------


def half_apart(probs, shape, seed):
    """Draw j + n/2 reuses 1 - u of draw j (antithetic at lag n/2): every count is right."""
    *rows, n = shape
    u = torch.rand(*rows, n // 2, generator=_generator(seed), dtype=torch.float64)
    return _inverse_cdf(probs, torch.cat([u, 1 - u], dim=-1))


def mirrored(probs, shape, seed):
    """Draw n - 1 - j reuses 1 - u of draw j."""
    *rows, n = shape
    u = torch.rand(*rows, n // 2, generator=_generator(seed), dtype=torch.float64)
    return _inverse_cdf(probs, torch.cat([u, (1 - u).flip(-1)], dim=-1))


def consecutive_antithetic(probs, shape, seed):
    *rows, n = shape
    u = torch.rand(*rows, n // 2, 1, generator=_generator(seed), dtype=torch.float64)
    return _inverse_cdf(probs, torch.cat([u, 1 - u], dim=-1).reshape(*rows, n))


@pytest.mark.parametrize("sampler", CORRECT)
@pytest.mark.parametrize("seed", range(3))
def test_correct_samplers_pass_every_pairing(ctx, sampler, seed):
    for shape in ((N,), (40, 500)):
        result = expect_independent_within_row(ctx, sampler(PROBS, shape, seed), PROBS, label="row 0")
        assert result.pvalue >= ctx.budget.alpha("pairs")
    assert all(record.kind == "pairs" and record.passed for record in ctx.records)


@pytest.mark.parametrize(
    "make, diagnosis, rule",
    [
        (half_apart, HALF_APART_DIAGNOSIS, "draws half a row apart are not independent"),
        (mirrored, MIRRORED_DIAGNOSIS, "draws at mirrored positions"),
        (consecutive_antithetic, independence.DEPENDENT_DIAGNOSIS, "consecutive draws are not independent"),
    ],
)
def test_each_pairing_catches_its_own_reuse_and_names_it(ctx, make, diagnosis, rule):
    draws = make(PROBS, (N,), 5)
    # The counts fit and, but for the pairing that looks there, so do the pairs.
    assert stats.g_test(torch.bincount(draws, minlength=7).tolist(), PROBS.tolist()).pvalue > 1e-4
    with pytest.raises(CheckFailed) as failed:
        expect_independent_within_row(ctx, draws, PROBS, label="row 0", public=Bilingual("sample, row 0", "sample，第 0 行"))
    assert failed.value.diagnosis == diagnosis
    assert failed.value.rule.startswith(f"sample, row 0: {rule}")
    assert failed.value.rule.zh.startswith("sample，第 0 行")
    assert not ctx.records[-1].passed


@pytest.mark.parametrize("make, diagnosis", [(half_apart, HALF_APART_DIAGNOSIS), (mirrored, MIRRORED_DIAGNOSIS)])
def test_rows_of_one_call_are_paired_within_themselves(ctx, make, diagnosis):
    """m rows of 160 draws each, as exercise 39 gets them: the reuse is at the row's own distance,
    which the rows laid end to end (one long row) do not show."""
    draws = make(PROBS, (250, 160), 7)
    expect_independent_within_row(ctx, draws.reshape(-1), PROBS, label="laid end to end")
    with pytest.raises(CheckFailed) as failed:
        expect_independent_within_row(ctx, draws, PROBS, label="rows")
    assert failed.value.diagnosis == diagnosis
    assert "of each of the 250 rows" in str(failed.value)


def test_the_level_is_split_over_the_pairings(ctx):
    draws = inverse_cdf(PROBS, (N,), 11)
    result = expect_independent_within_row(ctx, draws, PROBS, label="row 0")
    group_of = independence.token_groups(PROBS)
    pairings = row_pairings(group_of[draws].unsqueeze(0))
    joint = torch.outer(PROBS, PROBS).reshape(-1).tolist()  # V = 7: each token a class of its own
    smallest = min(stats.g_test(p.joint_counts(7).tolist(), joint).pvalue for p in pairings)
    assert len(pairings) == 3
    assert result.pvalue == pytest.approx(min(1.0, 3 * smallest))
    assert ctx.records[-1].p_value == result.pvalue


@pytest.mark.parametrize("n, names", [
    (1, ["consecutive"]), (2, ["consecutive"]), (3, ["consecutive", "mirrored"]),
    (4, ["consecutive", "half apart", "mirrored"]), (7, ["consecutive", "half apart", "mirrored"]),
])
def test_short_rows_have_no_pairing_twice(n, names):
    classes = torch.arange(n).unsqueeze(0)
    found = row_pairings(classes)
    assert [p.name for p in found] == names
    seen = [set(zip(p.first[0].tolist(), p.second[0].tolist())) for p in found]
    assert all(a != b for i, a in enumerate(seen) for b in seen[i + 1:])
    for pairs in seen:  # disjoint pairs: no draw twice in one pairing
        used = [j for pair in pairs for j in pair]
        assert len(used) == len(set(used))
    if n == 7:
        assert seen[1] == {(0, 3), (1, 4), (2, 5)} and seen[2] == {(0, 6), (1, 5), (2, 4)}


def test_the_pairings_hold_their_level():
    """A correct sampler at a level of 0.01 per check: the three pairings together reject no more
    often than that (Bonferroni), over 400 rows."""
    from judge.checks.testing import Context

    rejected = 0
    for seed in range(400):
        budget = FalseFailureBudget(0.1, BudgetDeclaration(pairs=1))
        ctx = Context(seed=seed, device="cpu", budget=budget)
        assert budget.alpha("pairs") == pytest.approx(0.01)
        try:
            expect_independent_within_row(ctx, multinomial(PROBS, (2_000,), seed), PROBS, label="row")
        except CheckFailed:
            rejected += 1
    assert rejected <= 12  # expected at most 4; P(Binomial(400, 0.01) > 12) < 1e-3


# --- across rows ---------------------------------------------------------------------------------------


def shared_uniforms(first_probs, second_probs, n, seed):
    """One uniform per draw for the whole batch, fed to each row's inverse CDF."""
    u = torch.rand(n, generator=_generator(seed), dtype=torch.float64)
    return _inverse_cdf(first_probs, u), _inverse_cdf(second_probs, u)


def test_rows_of_different_targets_that_share_uniforms_are_caught(ctx):
    first, second = shared_uniforms(PROBS, OTHER, N, 3)
    for draws, probs in ((first, PROBS), (second, OTHER)):  # each row alone is fine
        expect_independent_within_row(ctx, draws, probs, label="alone")
    with pytest.raises(CheckFailed) as failed:
        expect_independent_across_rows(ctx, first, second, PROBS, OTHER, label="rows 0 and 3",
                                       public=Bilingual("sample, rows 0 and 3", "sample，第 0 行与第 3 行"))
    assert failed.value.diagnosis == independence.ROWS_SHARE_DIAGNOSIS
    assert failed.value.rule == "sample, rows 0 and 3: two rows are not independent of each other"
    assert failed.value.rule.zh.startswith("sample，第 0 行与第 3 行")


@pytest.mark.parametrize("sampler", CORRECT)
def test_correct_rows_of_different_targets_pass_across(ctx, sampler):
    for seed in range(2):
        first, second = sampler(PROBS, (N,), 2 * seed), sampler(OTHER, (N,), 2 * seed + 1)
        result = expect_independent_across_rows(ctx, first, second, PROBS, OTHER, label="rows 0 and 3")
        assert result.pvalue >= ctx.budget.alpha("pairs")
    many = (sampler(PROBS, (40, 500), 8), sampler(OTHER, (40, 500), 9))
    assert expect_independent_across_rows(ctx, *many, PROBS, OTHER, label="rows").pvalue >= ctx.budget.alpha("pairs")
    assert len(ctx.records) == 3 and all(record.passed for record in ctx.records)


def test_sorted_rows_are_named_sorted_across_rows(ctx):
    first = torch.sort(multinomial(PROBS, (N,), 1)).values
    second = torch.sort(multinomial(OTHER, (N,), 2)).values
    with pytest.raises(CheckFailed) as failed:
        expect_independent_across_rows(ctx, first, second, PROBS, OTHER, label="rows")
    assert failed.value.diagnosis == independence.SORTED_DIAGNOSIS


def test_rows_across_must_be_alike_and_targets_well_formed(ctx):
    first, second = multinomial(PROBS, (100,), 1), multinomial(OTHER, (99,), 2)
    with pytest.raises(CheckFailed, match="must hold as many"):
        expect_independent_across_rows(ctx, first, second, PROBS, OTHER, label="rows")
    with pytest.raises(CheckFailed, match="outside"):
        expect_independent_across_rows(ctx, first, torch.full((100,), 7), PROBS, OTHER, label="rows")
    with pytest.raises(base.CheckMisuse, match="second_probs"):
        expect_independent_across_rows(ctx, first, first, PROBS, [0.5, 0.5], label="rows")
    assert not ctx.records  # nothing spent before the learner's values were usable
