"""Exercise 40's own parts: the float64 oracle, the frozen cases, the tiny variant's literals.

The oracle (judge side) and the reference solution (learner side) are written independently
enough (the oracle also applies every known mistake) that agreeing on generated inputs is
evidence both follow the statement; the frozen cases must keep their margins; tiny's frozen
values must be what the oracle computes; the boundary cases must hold the boundaries they claim.
"""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module

TOP32 = 1.0 - 2.0**-24
TOP64 = 1.0 - 2.0**-53


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
    return import_solution(exercise40.reference_path, "reference_040")


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
    # The oracle compares log p - log E, the reference p / E: equal wherever rounding cannot decide.
    log_scores = oracle.race_log_scores(probs, noise)
    top = torch.topk(log_scores, min(2, vocab), dim=2).values
    clear = (top[..., 0] - top[..., -1] > 1e-9) if vocab > 1 else torch.ones(batch, n, dtype=torch.bool)
    race = reference.exponential_race(probs, noise)
    assert torch.equal(race[clear], oracle.exponential_race(probs, noise)[clear])
    assert bool((oracle.distribution(probs).gather(1, race) > 0).all())
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


def _all_cases(cases, rng):
    """Every generated noise-form case of the hidden suite, as (function, case)."""
    out = [("inverse_cdf", c) for c in cases.cdf_steps(rng)]
    out.append(("inverse_cdf", cases.cdf_short(rng)))
    out += [("inverse_cdf", c) for c in cases.cdf_sums(rng)]
    out += [("inverse_cdf", c) for c in cases.cdf_random(rng)]
    out += [("inverse_cdf", c) for c in cases.cdf_subnormal(rng)]
    for first, second in (
        (torch.float32, torch.float32),
        (torch.float64, torch.float32),
        (torch.float32, torch.float64),
    ):
        out.append(("gumbel_max", cases.gumbel_case(rng, first, second)))
        out.append(("exponential_race", cases.race_case(rng, first, second)))
    out.append(("gumbel_max", cases.ties_case(rng, "gumbel_max")))
    out.append(("exponential_race", cases.ties_case(rng, "exponential_race")))
    out.append(("exponential_race", cases.race_tiny(rng)))
    out += [("alias_draw", c) for c in cases.alias_draw_cases(rng)]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generated_cases_keep_their_margins_and_the_reference_passes_them(parts, reference, seed):
    """Each builder verifies its margins and the mistakes it must catch; the reference, written apart from
    the oracle, returns the expected tokens on every case, and no listed mistake does."""
    for function, case in _all_cases(parts["cases"], random.Random(seed)):
        assert torch.equal(getattr(reference, function)(**case.arguments()), case.expected), function
        for variants in case.mistaken.values():
            for tokens in variants if isinstance(variants, tuple) else (variants,):
                assert not torch.equal(tokens, case.expected)


def test_the_same_seed_builds_the_same_cases(parts):
    first = _all_cases(parts["cases"], random.Random(7))
    again = _all_cases(parts["cases"], random.Random(7))
    for (_, a), (_, b) in zip(first, again, strict=True):
        assert torch.equal(a.expected, b.expected)
        assert all(torch.equal(a.kwargs[k], b.kwargs[k]) for k in a.kwargs)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_wrong_clamp_of_u0_changes_the_noise_cases(parts, seed):
    """The designed draws (a zero or subnormal uniform on the best token, the runner-up just above or below
    it) catch a clamp of u = 0 to any floor but the tiny of u's dtype (by a factor of 10 or more), above it
    or below it, and a clamp that replaces only u == 0."""
    cases, oracle = parts["cases"], parts["oracle"]
    rng = random.Random(seed)
    for build, function, name in (
        (cases.gumbel_case, oracle.gumbel_max, "logits"),
        (cases.race_case, oracle.exponential_race, "probs"),
    ):
        for first_dtype, u_dtype in (
            (torch.float32, torch.float32),
            (torch.float64, torch.float32),
            (torch.float64, torch.float64),
        ):
            case = build(rng, first_dtype, u_dtype)
            u, first = case.kwargs["u"], case.kwargs[name]
            tiny = torch.finfo(u.dtype).tiny
            floors = (*oracle.wrong_floors(u.dtype), tiny * 10, tiny / 10 if u.dtype == torch.float64 else 1e-40)
            for floor in floors:
                assert not torch.equal(function(first, u, floor=floor), case.expected), f"a floor of {floor} passes"
            assert torch.equal(function(first, u, floor=tiny), case.expected)


def test_boundary_cases_hold_their_boundaries(parts):
    cases, oracle = parts["cases"], parts["oracle"]
    rng = random.Random(3)
    steps64, steps32 = cases.cdf_steps(rng)
    assert oracle.exact_steps(steps64.kwargs["probs"])
    u = steps64.kwargs["u"]
    assert (
        bool((u == 0).any(dim=1).all()) and bool((u == TOP32).any(dim=1).all()) and bool((u == TOP64).any(dim=1).all())
    )
    on_step = (u.unsqueeze(2) == oracle.cdf(steps64.kwargs["probs"]).unsqueeze(1)).any(dim=2)
    assert bool(on_step.any(dim=1).all()), "u exactly on a step in every row"
    assert steps32.kwargs["u"].dtype == torch.float32
    short = cases.cdf_short(rng)
    assert bool((short.kwargs["probs"].to(torch.float64).sum(dim=1) < TOP32).all())
    assert bool((short.kwargs["probs"][:, -1] == 0).all())
    for sums in cases.cdf_sums(rng):
        probs = sums.kwargs["probs"]
        assert bool((probs.sum(dim=1) != probs.to(torch.float64).cumsum(dim=1)[:, -1]).any())
        assert bool((probs[:, -1] == 0).all())
    for case in (
        cases.gumbel_case(rng, torch.float32, torch.float32),
        cases.race_case(rng, torch.float32, torch.float32),
    ):
        u = case.kwargs["u"]
        assert bool((u[:, 0] == 0).all()), "draw 0 of every row has all-zero uniforms"
        assert bool((u == TOP32).any()) and bool(((u > 0) & (u < torch.finfo(torch.float32).tiny)).any())
    built, anything = cases.alias_draw_cases(rng)
    for draw in (built, anything):
        accept = draw.kwargs["accept"]
        column = (draw.kwargs["column_u"].double() * accept.shape[1]).floor().long()
        threshold = accept.gather(1, column)
        assert bool(((threshold == 0) & (draw.kwargs["coin_u"] == 0)).any()), "a coin of exactly 0 on an empty cell"
    equal = anything.kwargs["coin_u"].double() == anything.kwargs["accept"].gather(
        1, (anything.kwargs["column_u"].double() * anything.kwargs["accept"].shape[1]).floor().long()
    )
    assert bool((equal & (anything.kwargs["coin_u"] > 0)).any()), "a coin equal to a positive accept"
    subnormal = cases.race_subnormal(rng)
    assert bool(oracle.race_underflows(subnormal.kwargs["probs"], subnormal.kwargs["u"]).any())


def test_alias_cases_catch_the_build_mistakes(parts):
    cases, oracle = parts["cases"], parts["oracle"]
    rng = random.Random(5)
    for probs in (cases.alias_rows(rng), cases.alias_long_rows(rng)):
        target = oracle.distribution(probs)
        for implied in cases.alias_mistaken(probs).values():
            assert not torch.allclose(implied, target, rtol=1e-9, atol=1e-12)


def _named(diagnoses, tiny, checks, expected, table: dict) -> None:
    """Every frozen mistake of tiny differs from the answer at MATCHED_DRAWS draws or more (else it
    could never be named) and is not another mistake's output."""
    for name, values in table.items():
        forms = values if isinstance(values, tuple) else (values,)
        for form in forms:
            differing = int((torch.tensor(form) != torch.tensor(expected)).sum())
            assert differing >= checks.MATCHED_DRAWS, f"{name} differs at {differing} draw(s) only"


def test_tiny_frozen_values_match_the_oracle(parts):
    oracle, tiny, diagnoses, checks = parts["oracle"], parts["tiny"], parts["diagnoses"], parts["checks40"]
    probs, u = torch.tensor(tiny.CDF_PROBS), torch.tensor(tiny.CDF_U)
    assert oracle.inverse_cdf(probs, u).tolist() == tiny.CDF_EXPECTED
    for name, tokens in tiny.CDF_MISTAKEN.items():
        assert oracle.inverse_cdf(probs, u, name).tolist() == tokens, name
    _named(diagnoses, tiny, checks, tiny.CDF_EXPECTED, tiny.CDF_MISTAKEN)
    for probs, u, expected, table, dtype in (
        (tiny.CDF_SUM_PROBS, tiny.CDF_SUM_U, tiny.CDF_SUM_EXPECTED, tiny.CDF_SUM_MISTAKEN, torch.float64),
        (tiny.CDF_EXACT_PROBS, tiny.CDF_EXACT_U, tiny.CDF_EXACT_EXPECTED, tiny.CDF_EXACT_MISTAKEN, torch.float32),
        (
            tiny.CDF_SUBNORMAL_PROBS,
            tiny.CDF_SUBNORMAL_U,
            tiny.CDF_SUBNORMAL_EXPECTED,
            tiny.CDF_SUBNORMAL_MISTAKEN,
            torch.float64,
        ),
    ):
        probs, u = torch.tensor(probs, dtype=dtype), torch.tensor(u, dtype=dtype)
        assert oracle.inverse_cdf(probs, u).tolist() == expected
        for name, values in table.items():
            forms = {tuple(map(tuple, f.tolist())) for f in oracle.inverse_cdf_variants(probs, u, name)} - {
                tuple(map(tuple, expected))
            }
            frozen = values if isinstance(values, tuple) else (values,)
            assert forms == {tuple(map(tuple, f)) for f in frozen}, name
        _named(diagnoses, tiny, checks, expected, table)
    assert oracle.exact_steps(torch.tensor(tiny.CDF_EXACT_PROBS))
    noise = torch.tensor(tiny.NOISE)
    logits, race = torch.tensor(tiny.LOGITS), torch.tensor(tiny.RACE_PROBS)
    ties = {(0, 0), (1, 0), (1, 3)}  # the draws whose tokens all get the same noise
    oracle.check_score_margins(oracle.gumbel_scores(logits, noise), ties)
    oracle.check_score_margins(oracle.race_log_scores(race, noise), ties)
    assert oracle.gumbel_max(logits, noise).tolist() == tiny.GUMBEL_EXPECTED
    assert oracle.exponential_race(race, noise).tolist() == tiny.RACE_EXPECTED
    for name, tokens in tiny.GUMBEL_MISTAKEN.items():
        assert oracle.gumbel_max(logits, noise, name).tolist() == tokens, name
    for name, tokens in tiny.RACE_MISTAKEN.items():
        assert oracle.exponential_race(race, noise, name).tolist() == tokens, name
    _named(diagnoses, tiny, checks, tiny.GUMBEL_EXPECTED, tiny.GUMBEL_MISTAKEN)
    _named(diagnoses, tiny, checks, tiny.RACE_EXPECTED, tiny.RACE_MISTAKEN)
    ties = {(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)}  # the designed ties; draws 1 and 2 of rows 1, 2 keep their margins
    for function, score, first, noise in (
        (oracle.gumbel_max, oracle.gumbel_scores, tiny.EDGE_LOGITS, tiny.EDGE_GUMBEL_NOISE),
        (oracle.exponential_race, oracle.race_log_scores, tiny.EDGE_RACE_PROBS, tiny.EDGE_RACE_NOISE),
    ):
        first, noise = torch.tensor(first), torch.tensor(noise)
        oracle.check_score_margins(score(first, noise), ties)
        assert function(first, noise).tolist() == tiny.EDGE_EXPECTED
        assert function(first, noise, "ties_not_first").tolist() == tiny.EDGE_MISTAKEN["ties_not_first"]
        assert function(first, noise, "log_zero_at_u0").tolist() == tiny.EDGE_MISTAKEN["log_zero_at_u0"]
        assert function(first.double(), noise).tolist() == tiny.EDGE_EXPECTED
        floors = oracle.wrong_floors(noise.dtype)
        variants = {tuple(map(tuple, function(first, noise, floor=f).tolist())) for f in floors}
        variants.discard(tuple(map(tuple, tiny.EDGE_EXPECTED)))
        assert variants == {tuple(map(tuple, v)) for v in tiny.EDGE_MISTAKEN["clamp_not_tiny"]}
    _named(diagnoses, tiny, checks, tiny.EDGE_EXPECTED, tiny.EDGE_MISTAKEN)
    subnormal = torch.tensor(tiny.RACE_SUBNORMAL_PROBS, dtype=torch.float64)
    assert bool(checks.race_underflows(subnormal, torch.tensor(tiny.RACE_SUBNORMAL_NOISE, dtype=torch.float64)).any())
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
    _named(diagnoses, tiny, checks, tiny.DRAW_EXPECTED, tiny.DRAW_MISTAKEN)
    table = (torch.tensor(tiny.CELL_TABLE[0], dtype=torch.float64), torch.tensor(tiny.CELL_TABLE[1]))
    column_u, coin_u = torch.tensor(tiny.CELL_COLUMN_U), torch.tensor(tiny.CELL_COIN_U)
    assert oracle.alias_draw(*table, column_u, coin_u).tolist() == tiny.CELL_EXPECTED
    for name, tokens in tiny.CELL_MISTAKEN.items():
        assert oracle.alias_draw(*table, column_u, coin_u, name).tolist() == tokens, name
    _named(diagnoses, tiny, checks, tiny.CELL_EXPECTED, tiny.CELL_MISTAKEN)
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
