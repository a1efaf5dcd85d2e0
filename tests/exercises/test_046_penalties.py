"""Exercise 46's own parts: the oracle, the mistake models, the frozen values, the generated cases.

The oracle (judge side: plain Python row by row), the mistake models (public, torch, with no twist) and
the reference solution (learner side: torch) are written apart; agreeing on generated inputs is
evidence that all three follow the statement.
"""

from __future__ import annotations

import math
import random
import re

import pytest
import torch

from judge.checks.arguments.generate import checked_call
from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


@pytest.fixture(scope="module")
def exercise46():
    return resolve("46")


@pytest.fixture(scope="module")
def parts(exercise46):
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise46, suite)
    where = {
        "oracle": "hidden",
        "cases": "hidden",
        "specs": "hidden",
        "hidden": "hidden",
        "models46": "public",
        "frozen46": "public",
        "public": "public",
        "diagnoses": "public",
    }
    return {name: suites_module(exercise46, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise46):
    return import_solution(exercise46.reference_path, "reference_046")


def _same(a: torch.Tensor, b: torch.Tensor, atol: float) -> bool:
    """Equal within ``atol``, infinities equal to the same infinity."""
    a, b = a.to(torch.float64), b.to(torch.float64)
    inf = torch.isinf(a) | torch.isinf(b)
    return bool(torch.equal(a[inf], b[inf]) and ((a[~inf] - b[~inf]).abs() <= atol).all())


def test_public_answers_are_the_oracles(parts):
    public, oracle = parts["public"], parts["oracle"]
    for call, answer, scale in (
        (public.worked_example(), public.WORKED_ANSWER, 5.25),
        (public.per_row_example(), public.PER_ROW_ANSWER, 7.0),
        (public.greedy_example(), public.GREEDY_ANSWER, 5.25),
    ):
        assert _same(oracle.penalized(call), torch.tensor(answer, dtype=torch.float64), 1e-12)
        assert oracle.scale(call) == scale


def test_frozen_tiny_values_are_the_oracles(parts):
    frozen, oracle = parts["frozen46"], parts["oracle"]
    square = frozen.square_batch()
    assert _same(oracle.penalized(square), torch.tensor(frozen.SQUARE_ANSWER, dtype=torch.float64), 1e-15)
    assert oracle.scale(square) == frozen.SQUARE_SCALE
    rows = frozen.sampler_rows()
    own = {k: v for k, v in rows.items() if k not in ("temperature", "top_k")}
    assert _same(oracle.penalized(own), torch.tensor(frozen.SAMPLER_PENALIZED, dtype=torch.float64), 1e-15)
    assert oracle.scale(own) == frozen.SAMPLER_SCALE
    assert _same(oracle.sampler_probs(rows), torch.tensor(frozen.SAMPLER_PROBS, dtype=torch.float64), 1e-15)
    after = oracle.sampler_probs(rows, after_temperature=True)
    assert _same(after, torch.tensor(frozen.AFTER_TEMPERATURE_PROBS, dtype=torch.float64), 1e-15)


def test_statement_worked_example_numbers(parts, exercise46):
    """The statement's table and probabilities are what the oracle computes (4 decimals)."""
    oracle, public = parts["oracle"], parts["public"]
    call = public.worked_example()
    text = exercise46.statement("en")
    penalized = oracle.penalized(call)[0].tolist()
    assert "`[-0.25, 0.5, -2.75, -0.75, 1.0]`" in text and penalized == [-0.25, 0.5, -2.75, -0.75, 1.0]
    before = torch.softmax(call["logits"][0], dim=0).tolist()
    after = torch.softmax(torch.tensor(penalized), dim=0).tolist()
    for probs in (before, after):
        assert "[" + ", ".join(f"{p:.4f}" for p in probs) + "]" in text
    top2 = oracle.sampler_probs(call | {"top_k": 2})[0].tolist()
    assert f"[0, {top2[1]:.4f}, 0, 0, {top2[4]:.4f}]" in text


@pytest.mark.parametrize("seed", range(30))
def test_oracle_models_and_reference_agree(parts, reference, seed):
    oracle, models, cases = parts["oracle"], parts["models46"], parts["cases"]
    rng = random.Random(seed)
    call = cases.generated_call(rng, (torch.float32, torch.float64)[seed % 2], square=seed % 3 == 0)
    exact = oracle.penalized(call)
    counts = models.counts_of(call["prev_tokens"], call["logits"].shape[1], call["pad_id"])
    rows = call["logits"].shape[0]
    columns = [
        models.column(call[name], rows) for name in ("repetition_penalty", "frequency_penalty", "presence_penalty")
    ]
    assert _same(models.penalize(call["logits"], counts, *columns), exact, 1e-12)
    tolerance = oracle.tolerance(call["logits"].dtype) * oracle.scale(call)
    assert _same(reference.apply_penalties(**call), exact, tolerance / 10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_every_mistake_model_differs_on_the_frozen_batch(parts, dtype):
    """So that each can be named there: every model is off the target by far more than the tolerance."""
    oracle, models, cases = parts["oracle"], parts["models46"], parts["cases"]
    call = cases.frozen_batch(dtype)
    exact = oracle.penalized(call)
    outputs = models.mistaken_outputs(call)
    assert len(outputs) == 10  # six twists, pad counted, batch mixing, row 0's parameters, vocabulary broadcast
    for name, value in outputs.items():
        assert not _same(value, exact, 1e-3), name


def test_frozen_batches_are_legal_calls(parts):
    specs, cases = parts["specs"], parts["cases"]
    for dtype in (torch.float32, torch.float64):
        checked_call("test", cases.frozen_batch(dtype), specs.APPLY_ARGUMENTS, random.Random(0))


@pytest.mark.parametrize("seed", range(20))
def test_good_calls_are_legal_and_accepted(parts, reference, seed):
    specs = parts["specs"]
    rng = random.Random(seed)
    good = specs.good_apply(rng)
    checked_call("test", good, specs.APPLY_ARGUMENTS, random.Random(0))
    reference.apply_penalties(**good)
    sample = specs.good_sample(rng)
    checked_call("test", sample, specs.SAMPLE_ARGUMENTS, random.Random(0))
    reference.sample_with_penalties(**sample)


@pytest.mark.parametrize("seed", range(10))
def test_every_hand_written_refusal_raises_in_the_reference(parts, reference, seed):
    specs = parts["specs"]
    rng = random.Random(seed)
    good = specs.good_apply(rng)
    for call in specs.id_refusals(reference.apply_penalties, "apply_penalties", good, rng):
        with pytest.raises(ValueError, match="pad_id|outside"):
            reference.apply_penalties(**call.kwargs)


def test_sampler_cases_keep_their_margins_and_move_the_greedy_maximum(parts):
    oracle, cases = parts["oracle"], parts["cases"]
    probs = oracle.sampler_probs(cases.sampler_batch())
    assert bool((probs > 0).sum(dim=1).ge(2).all())  # every row is fitted
    greedy = cases.greedy_batch()
    penalized, raw = oracle.sampler_probs(greedy), oracle.sampler_probs(greedy, penalize=False)
    for row in (0, 2):
        assert int(penalized[row].argmax()) != int(raw[row].argmax())
    after = oracle.sampler_probs(cases.sampler_batch(), after_temperature=True)
    assert float((after - probs).abs().max()) > 0.05


def test_ambiguous_cuts_are_refused(parts):
    oracle = parts["oracle"]
    with pytest.raises(oracle.AmbiguousCase, match="top-k"):
        oracle.sampling_probs([1.0, 1.0005, -1.0], 1.0, 1, 1.0, 0.0)
    assert math.isclose(sum(oracle.sampling_probs([1.0, 2.0, -1.0], 1.0, 2, 1.0, 0.0)), 1.0)


def test_diagnoses_have_both_languages(parts):
    diagnoses = parts["diagnoses"]
    for table in (diagnoses.MISTAKES, diagnoses.REFUSALS):
        for text in table.values():
            assert text.zh and re.search(r"[\u4e00-\u9fff]", text.zh)
