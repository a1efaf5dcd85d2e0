"""Exercise 40's own parts: the float64 oracle, the frozen cases, the tiny variant's literals.

The oracle (judge side) and the reference solution (learner side) are written independently
enough (the oracle also applies every known mistake) that agreeing on generated inputs is
evidence both follow the statement; the frozen cases must keep their margins; tiny's frozen
values must be what the oracle computes; the boundary cases must hold the boundaries they claim.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercise import resolve
from judge.suites import load_suite, suites_module

TOP32 = 1.0 - 2.0**-24


@pytest.fixture(scope="module")
def exercise40():
    return resolve("40")


@pytest.fixture(scope="module")
def parts(exercise40):
    load_suite(exercise40, "hidden")
    load_suite(exercise40, "tiny")
    where = {"oracle": "hidden", "cases": "hidden", "tiny": "public", "checks40": "public", "diagnoses": "public"}
    return {name: suites_module(exercise40, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise40):
    spec = importlib.util.spec_from_file_location("reference_040", exercise40.reference_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


weights = st.one_of(st.just(0.0), st.floats(2.0**-10, 10.0, width=32))
uniforms = st.one_of(st.just(0.0), st.just(TOP32), st.floats(0.0, TOP32, width=32))


def _rows(data, batch: int, vocab: int) -> torch.Tensor:
    rows = [
        data.draw(st.lists(weights, min_size=vocab, max_size=vocab).filter(lambda r: sum(r) > 0)) for _ in range(batch)
    ]
    return torch.tensor(rows, dtype=data.draw(st.sampled_from([torch.float32, torch.float64])))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), batch=st.integers(1, 3), vocab=st.integers(1, 9), n=st.integers(1, 6))
def test_reference_agrees_with_the_oracle(parts, reference, data, batch, vocab, n):
    oracle = parts["oracle"]
    probs = _rows(data, batch, vocab)
    u = torch.tensor([data.draw(st.lists(uniforms, min_size=n, max_size=n)) for _ in range(batch)])
    assert torch.equal(reference.inverse_cdf(probs, u), oracle.inverse_cdf(probs, u))
    assert bool((oracle.distribution(probs).gather(1, oracle.inverse_cdf(probs, u)) > 0).all())
    noise = torch.tensor(
        [[data.draw(st.lists(uniforms, min_size=vocab, max_size=vocab)) for _ in range(n)] for _ in range(batch)]
    )
    assert torch.equal(reference.exponential_race(probs, noise), oracle.exponential_race(probs, noise))
    logits = probs.log()
    assert torch.equal(reference.gumbel_max(logits, noise), oracle.gumbel_max(logits, noise))
    accept, alias = reference.build_alias(probs)
    target = oracle.distribution(probs)
    implied = oracle.implied(accept, alias)
    assert torch.allclose(implied, target, rtol=1e-9, atol=1e-12)
    assert bool((implied[target == 0] == 0).all())
    coin = torch.tensor([data.draw(st.lists(uniforms, min_size=n, max_size=n)) for _ in range(batch)])
    assert torch.equal(reference.alias_draw(accept, alias, u, coin), oracle.alias_draw(accept, alias, u, coin))


def test_public_implied_distribution_matches_the_oracle(parts):
    oracle, checks = parts["oracle"], parts["checks40"]
    probs = torch.tensor([[0.1, 0.0, 0.4, 0.5], [3.0, 1.0, 0.0, 4.0]])
    accept, alias = oracle.build_alias(probs)
    assert torch.equal(checks.implied_distribution(accept, alias), oracle.implied(accept, alias))


FROZEN_CASES = [
    "cdf_dyadic",
    "cdf_short",
    "cdf_weights",
    "cdf_random",
    "gumbel_float32",
    "gumbel_float64",
    "race_float32",
    "race_float64",
    "gumbel_ties",
    "race_ties",
    "gumbel_mixed",
    "race_mixed",
    "alias_draw_case",
]


@pytest.mark.parametrize("name", FROZEN_CASES)
def test_frozen_cases_build_with_their_margins_and_catch_mistakes(parts, name):
    case = getattr(parts["cases"], name)()  # building verifies the margins (AmbiguousCase otherwise)
    assert case.mistaken, f"{name}: no known mistake changes this case"
    for variants in case.mistaken.values():
        for tokens in variants if isinstance(variants, tuple) else (variants,):
            assert not torch.equal(tokens, case.expected)


@pytest.mark.parametrize(
    "name", ["gumbel_float32", "gumbel_float64", "race_float32", "race_float64", "gumbel_mixed", "race_mixed"]
)
def test_every_wrong_clamp_of_u0_changes_the_noise_cases(parts, name):
    """The designed draws (a zero uniform on the best token, the runner-up just above or below it)
    catch a clamp of u = 0 to any floor but the tiny of u's dtype (by a factor of 10 or more), above it or below it."""
    cases, oracle = parts["cases"], parts["oracle"]
    case = getattr(cases, name)()
    u = case.kwargs["u"]
    function = oracle.gumbel_max if name.startswith("gumbel") else oracle.exponential_race
    first = case.kwargs["logits" if name.startswith("gumbel") else "probs"]
    tiny = torch.finfo(u.dtype).tiny
    for floor in (*oracle.wrong_floors(u.dtype), tiny * 10, tiny / 10 if u.dtype == torch.float64 else 1e-40):
        assert not torch.equal(function(first, u, floor=floor), case.expected), f"{name}: a floor of {floor} passes"
    assert torch.equal(function(first, u, floor=tiny), case.expected)


def test_boundary_cases_hold_their_boundaries(parts):
    cases = parts["cases"]
    dyadic = cases.cdf_dyadic()
    assert bool((dyadic.kwargs["u"] == 0).any(dim=1).all()) and bool((dyadic.kwargs["u"] == TOP32).any(dim=1).all())
    short = cases.cdf_short()
    assert bool((short.kwargs["probs"].to(torch.float64).sum(dim=1) < TOP32).all())
    assert bool((short.kwargs["probs"][:, -1] == 0).all())
    for case in (cases.gumbel_float32(), cases.race_float32()):
        u = case.kwargs["u"]
        assert bool((u[:, 0] == 0).all()), "draw 0 of every row has all-zero uniforms"
        assert bool((u == TOP32).any()) and bool((u[:, 1:] == 0).any())
    draw = cases.alias_draw_case()
    accept = draw.kwargs["accept"]
    column = (draw.kwargs["column_u"].double() * accept.shape[1]).floor().long()
    empty_coin = (accept.gather(1, column) == 0) & (draw.kwargs["coin_u"] == 0)
    assert bool(empty_coin.any()), "a coin of exactly 0 on an empty cell"


def test_alias_cases_catch_the_build_mistakes(parts):
    cases, oracle = parts["cases"], parts["oracle"]
    for probs in (cases.alias_rows(), cases.alias_long_rows()):
        target = oracle.distribution(probs)
        for implied in cases.alias_mistaken(probs).values():
            assert not torch.allclose(implied, target, rtol=1e-9, atol=1e-12)


def test_tiny_frozen_values_match_the_oracle(parts):
    oracle, tiny, diagnoses = parts["oracle"], parts["tiny"], parts["diagnoses"]
    probs, u = torch.tensor(tiny.CDF_PROBS), torch.tensor(tiny.CDF_U)
    assert oracle.inverse_cdf(probs, u).tolist() == tiny.CDF_EXPECTED
    for name, tokens in tiny.CDF_MISTAKEN.items():
        assert oracle.inverse_cdf(probs, u, name).tolist() == tokens, name
    noise = torch.tensor(tiny.NOISE)
    logits, race = torch.tensor(tiny.LOGITS), torch.tensor(tiny.RACE_PROBS)
    oracle.check_score_margins(oracle.gumbel_scores(logits, noise), {(0, 0), (1, 0)})
    oracle.check_score_margins(torch.log(oracle.race_scores(race, noise)), {(0, 0), (1, 0)})
    assert oracle.gumbel_max(logits, noise).tolist() == tiny.GUMBEL_EXPECTED
    assert oracle.exponential_race(race, noise).tolist() == tiny.RACE_EXPECTED
    for name, tokens in tiny.GUMBEL_MISTAKEN.items():
        assert oracle.gumbel_max(logits, noise, name).tolist() == tokens, name
    for name, tokens in tiny.RACE_MISTAKEN.items():
        assert oracle.exponential_race(race, noise, name).tolist() == tokens, name
    probs64, u64 = torch.tensor(tiny.CDF64_PROBS, dtype=torch.float64), torch.tensor(tiny.CDF64_U, dtype=torch.float64)
    assert oracle.inverse_cdf(probs64, u64).tolist() == tiny.CDF64_EXPECTED
    for name, tokens in tiny.CDF64_MISTAKEN.items():
        assert oracle.inverse_cdf(probs64, u64, name).tolist() == tokens, name
    ties = {(0, 0), (0, 1), (0, 2), (1, 0)}  # the designed ties; draws 1 and 2 of row 1 keep their margins
    for function, score, first, noise in (
        (oracle.gumbel_max, oracle.gumbel_scores, tiny.EDGE_LOGITS, tiny.EDGE_GUMBEL_NOISE),
        (
            oracle.exponential_race,
            lambda p, u: torch.log(oracle.race_scores(p, u)),
            tiny.EDGE_RACE_PROBS,
            tiny.EDGE_RACE_NOISE,
        ),
    ):
        first, noise = torch.tensor(first), torch.tensor(noise)
        oracle.check_score_margins(score(first, noise), ties)
        assert function(first, noise).tolist() == tiny.EDGE_EXPECTED
        assert function(first, noise, "ties_not_first").tolist() == tiny.EDGE_MISTAKEN["ties_not_first"]
        assert function(first, noise, "log_zero_at_u0").tolist() == tiny.EDGE_MISTAKEN["log_zero_at_u0"]
        assert function(first.double(), noise).tolist() == tiny.EDGE_EXPECTED
        floors = oracle.wrong_floors(noise.dtype)
        variants = {tuple(map(tuple, function(first, noise, floor=f).tolist())) for f in floors}
        assert variants == {tuple(map(tuple, v)) for v in tiny.EDGE_MISTAKEN["clamp_not_tiny"]}
    alias_probs = torch.tensor(tiny.ALIAS_PROBS)
    for name, values in tiny.ALIAS_MISTAKEN.items():
        assert oracle.implied(*oracle.build_alias(alias_probs, name)).tolist() == values, name
    table = (torch.tensor(tiny.DRAW_TABLE[0], dtype=torch.float64), torch.tensor(tiny.DRAW_TABLE[1]))
    implied = oracle.implied(*table)
    assert torch.allclose(implied, torch.tensor([[0.5, 0.0, 0.125, 0.375]], dtype=torch.float64))
    column_u, coin_u = torch.tensor(tiny.DRAW_COLUMN_U), torch.tensor(tiny.DRAW_COIN_U)
    assert oracle.alias_draw(*table, column_u, coin_u).tolist() == tiny.DRAW_EXPECTED
    for name, tokens in tiny.DRAW_MISTAKEN.items():
        assert oracle.alias_draw(*table, column_u, coin_u, name).tolist() == tokens, name
    sample = oracle.distribution(torch.tensor(tiny.SAMPLE_PROBS))
    alternatives = oracle.alternatives(torch.tensor(tiny.SAMPLE_PROBS), "gumbel")
    expected = alternatives[diagnoses.MISTAKES["gumbel_on_probs"]][0]
    assert torch.allclose(
        expected, torch.tensor(tiny.SAMPLE_ALTERNATIVES["gumbel_on_probs"], dtype=torch.float64), atol=1e-9
    )
    assert torch.allclose(sample[0], sample[1])


def test_negated_gumbel_quadrature_matches_simulation(parts):
    oracle = parts["oracle"]
    probs = torch.tensor([[0.1, 0.2, 0.0, 0.3, 0.4]])
    u = torch.rand(1, 200_000, 5, generator=torch.Generator().manual_seed(40), dtype=torch.float64)
    counts = torch.bincount(oracle.gumbel_max(probs.log(), u, "gumbel_wrong_sign")[0], minlength=5) / 200_000
    exact = oracle.alternatives(probs, "gumbel")[parts["diagnoses"].MISTAKES["gumbel_wrong_sign"]][0]
    assert torch.allclose(counts.double(), exact, atol=5e-3)
