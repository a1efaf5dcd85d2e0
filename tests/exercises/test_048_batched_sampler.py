"""Exercise 48's own parts: the frozen public values, the oracle against the reference, the generated
batches and colliding pairs, the seeds-and-offsets spec, and the reference's randomness contract.

The oracle (judge side: float64, row by row, with margins) and the reference (learner side: batched
torch) are written independently; agreeing on generated inputs is evidence that both follow the
statement.
"""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.checks.arguments import Flaw, bad_inputs, legal_inputs
from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


@pytest.fixture(scope="module")
def exercise48():
    return resolve("48")


@pytest.fixture(scope="module")
def parts(exercise48):
    for suite in ("hidden", "public"):
        load_suite(exercise48, suite)
    where = {"oracle": "hidden", "cases": "hidden", "specs": "hidden", "hidden": "hidden", "public": "public"}
    return {name: suites_module(exercise48, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise48):
    return import_solution(exercise48.reference_path, "reference_048")


def test_frozen_worked_example_equals_the_oracle(parts):
    oracle, public = parts["oracle"], parts["public"]
    logits = torch.tensor(public.LOGITS)
    params = [
        oracle.RowParams(t, k, p, 0.0)
        for t, k, p in zip(public.PARAMETERS["temperature"], public.PARAMETERS["top_k"], public.PARAMETERS["top_p"])
    ]
    assert torch.equal(oracle.target(logits, params).probs.log(), torch.tensor(public.LOG_Q, dtype=torch.float64))
    for name, table in public.MISTAKEN_LOG_Q.items():
        assert torch.allclose(
            oracle.mistaken(logits, params, name).log(), torch.tensor(table, dtype=torch.float64), atol=1e-12
        ), name


def test_worked_example_numbers_of_the_statement(exercise48, reference):
    """The statement's table: row 0 [0.7311, 0.2689], row 2 [0.5, 0.5], the raw -1.5460, the softmax at T = 0.5."""
    text = exercise48.statement("en")
    logits = torch.tensor([[2.0, 1.0, 0.5, 0.0], [2.0, 1.0, 0.5, 0.0], [1.0, 1.0, 0.0, float("-inf")]])
    t, k, p, m = reference._validate(
        logits, torch.tensor([1.0, 0.0, 0.5]), torch.tensor([2, 0, 0]), torch.tensor([1.0, 1.0, 0.9]), 0.0
    )
    q = reference.processed_probs(logits, t, k, p, m)
    for value in (q[0, 0], q[0, 1], q[2, 0].log(), q[0, 0].log(), q[0, 1].log(), torch.log_softmax(logits[0], 0)[1]):
        assert f"{float(value):.4f}" in text
    for value in torch.softmax(logits[2] / 0.5, 0)[:3]:
        assert f"{float(value):.4f}" in text


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), dtype=st.sampled_from([torch.float32, torch.float64]))
def test_oracle_agrees_with_the_reference(parts, reference, seed, dtype):
    """Generated good calls: the reference's log-probabilities are the oracle's log q at its tokens."""
    specs, oracle = parts["specs"], parts["oracle"]
    call = specs.good_call(random.Random(seed))
    call["logits"] = call["logits"].to(dtype)
    try:
        exact = oracle.target(call["logits"], specs.row_params(call), margin=oracle.STATED_MARGIN).probs
    except oracle.AmbiguousCase:
        return
    tokens, logprobs = reference.sample_batch(**call)
    assert bool((exact.gather(1, tokens.unsqueeze(1)) > 0).all())
    expected = exact.gather(1, tokens.unsqueeze(1)).squeeze(1).log()
    assert torch.allclose(logprobs.double(), expected, rtol=1e-5 if dtype == torch.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_mixed_batches_hold_what_their_cases_need(parts, dtype):
    """Every row keeps its margins, the first four rows are where min-p before top-p differs, some rows are greedy."""
    cases, oracle = parts["cases"], parts["oracle"]
    batch = cases.mixed(4821 if dtype == torch.float32 else 4822, dtype)
    oracle.target(batch.logits, batch.params)  # raises AmbiguousCase if a margin is short
    wrong = oracle.mistaken(batch.logits, batch.params, "min_p_before_top_p")
    assert not torch.allclose(wrong[:4], batch.probs[:4], atol=1e-6)
    assert any(p.temperature == 0 for p in batch.params)
    assert any(p.temperature not in (0.0, 1.0) for p in batch.params)
    assert torch.allclose(batch.probs.sum(1), torch.ones(batch.rows, dtype=torch.float64))


def test_greedy_batches_have_ties(parts):
    batch = parts["cases"].greedy_ties(4811, torch.float32)
    logits = batch.logits.double()
    ties = [int((logits[b] == logits[b].max()).sum()) for b in range(batch.rows)]
    assert sum(t > 1 for t in ties) >= 36
    assert all(p.temperature == 0 for p in batch.params)


@pytest.mark.parametrize(
    "family", ["seed_plus_offset", "seed_xor_offset", "seed_times_10", "seed_times_1000", "seed_shift_32"]
)
def test_colliding_pairs_collide_under_their_family_only(parts, family):
    cases = parts["cases"]
    mixes = cases._mix_collisions()
    first, second = cases.colliding_pairs(4841, family, 200)
    for (s, o), (t, u) in zip(first, second, strict=True):
        assert mixes[family][0](s, o) == mixes[family][0](t, u)
        assert all(m(s, o) != m(t, u) for name, (m, _) in mixes.items() if name != family)
        assert s != t and o != u and min(s, o, t, u) >= 0


def test_request_ids_spec_refuses_negatives_and_offers_the_ends(parts):
    """Seeds and offsets: a negative entry, another dtype, another rank or length are generated; 0 and 2**63 - 1 are corners."""
    specs = parts["specs"]
    good = specs.good_call(random.Random(3))
    variants = [v for v in bad_inputs(good, specs.ARGUMENTS, random.Random(4)) if v.argument in ("seeds", "offsets")]
    kinds = {(v.argument, v.kind) for v in variants}
    for argument in ("seeds", "offsets"):
        for flaw in (Flaw.BELOW, Flaw.DTYPE, Flaw.RANK, Flaw.SHAPE, Flaw.NOT_A_TENSOR):
            assert (argument, flaw.value) in kinds
    corners = [v for v in legal_inputs(good, specs.ARGUMENTS, random.Random(5)) if v.argument in ("seeds", "offsets")]
    values = {int(x) for v in corners for x in v.kwargs[v.argument].tolist()}
    assert {0, 2**63 - 1} <= values


def test_reference_token_depends_only_on_its_request(parts, reference):
    """Reordered, duplicated, alone: each request keeps its token; the global generator is untouched."""
    batch = parts["cases"].mixed(4851, torch.float32)
    seeds = torch.tensor([random.Random(b).randrange(2**63) for b in range(batch.rows)])
    offsets = torch.arange(batch.rows) * 1000
    state = torch.get_rng_state()
    tokens, logprobs = reference.sample_batch(**batch.kwargs, seeds=seeds, offsets=offsets)
    assert torch.equal(torch.get_rng_state(), state)
    order = list(reversed(range(batch.rows))) + [0, 0]
    part = batch.select(order)
    again, again_logprobs = reference.sample_batch(**part.kwargs, seeds=seeds[order], offsets=offsets[order])
    assert torch.equal(again, tokens[order])
    assert torch.allclose(again_logprobs, logprobs[order])


def test_torch_cpu_generator_keeps_32_bits_of_its_seed():
    """The fact behind the seed_lost diagnosis: manual_seed(s) and manual_seed(s + 2**32) are one stream."""
    first = torch.rand(4, generator=torch.Generator().manual_seed(5))
    second = torch.rand(4, generator=torch.Generator().manual_seed(5 + 2**32))
    assert torch.equal(first, second)


def test_reference_pairs_are_distinct_where_careless_mixes_collide(reference):
    pairs = [(1, 0), (0, 1), (5, 7), (6, 6), (2, 1000), (3, 0)]
    seeds = {reference.stream_seed(s, o) % 2**32 for s, o in pairs}
    assert len(seeds) == len(pairs)
