"""Exercise 39's own parts: the float64 oracle, the frozen cases, the public literals, the catalogue.

The oracle (judge side) and the reference solution (learner side) are written independently;
agreeing on generated inputs is evidence that both follow the statement.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judge.suites import load_suite, suites_module


@pytest.fixture(scope="module")
def tests_package(exercise39):
    load_suite(exercise39, "hidden")
    load_suite(exercise39, "public")
    load_suite(exercise39, "tiny")
    where = {"oracle": "hidden", "cases": "hidden", "hidden": "hidden", "public": "public", "tiny": "public"}
    return {name: suites_module(exercise39, f"{folder}.{name}") for name, folder in where.items()}


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def reference(exercise39):
    return _load(exercise39.reference_path, "reference_039")


row_params = st.builds(
    lambda t, k, p, m: (t, k, p, m),
    st.sampled_from([0.0, 0.3, 0.7, 1.0, 1.5, 3.0]),
    st.integers(0, 12),
    st.sampled_from([1.0, 0.95, 0.8, 0.5, 0.2]),
    st.sampled_from([0.0, 0.05, 0.2, 0.5]),
)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), vocab=st.integers(1, 12), batch=st.integers(1, 4),
       dtype=st.sampled_from([torch.float32, torch.float64]))
def test_reference_agrees_with_the_oracle(tests_package, reference, data, vocab, batch, dtype):
    oracle = tests_package["oracle"]
    values = st.one_of(st.floats(-6, 6, allow_nan=False, width=32), st.just(float("-inf")))
    rows = [data.draw(st.lists(values, min_size=vocab, max_size=vocab)) for _ in range(batch)]
    assume(all(any(v != float("-inf") for v in row) for row in rows))
    params = [oracle.RowParams(*data.draw(row_params)) for _ in range(batch)]
    logits = torch.tensor(rows, dtype=dtype)
    try:
        exact = oracle.target(logits, params)
    except oracle.AmbiguousCase:
        assume(False)
    tensors = {
        "temperature": torch.tensor([p.temperature for p in params], dtype=torch.float64),
        "top_k": torch.tensor([p.top_k for p in params]),
        "top_p": torch.tensor([p.top_p for p in params], dtype=torch.float64),
        "min_p": torch.tensor([p.min_p for p in params], dtype=torch.float64),
    }
    got = reference.sampling_probs(logits, **tensors)
    assert got.dtype == dtype
    tolerance = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}[dtype]
    torch.testing.assert_close(got.to(torch.float64), exact.probs, rtol=tolerance[0], atol=tolerance[1])
    assert torch.equal(got > 0, exact.probs > 0)


def test_frozen_cases_have_margins_and_every_filter_matters(tests_package):
    cases = tests_package["cases"]
    for build in (cases.mixed_rows, cases.zipf_rows, cases.float64_rows, cases.scalar_rows, cases.edge_rows):
        batch = build()
        assert torch.allclose(batch.exact.probs.sum(dim=1), torch.ones(batch.logits.shape[0], dtype=torch.float64))
        assert len(batch.labels) == batch.logits.shape[0] == len(batch.params)
    zipf = cases.zipf_rows()
    assert zipf.logits.shape == (3, 32_000) and int((zipf.exact.probs[0] > 0).sum()) == 32_000


def test_the_combined_row_separates_the_wrong_filter_orders(tests_package):
    cases, oracle = tests_package["cases"], tests_package["oracle"]
    batch = cases.mixed_rows()
    row = batch.labels.index("top_k, top_p and min_p combined")
    supports = {name: oracle.mistaken(batch.logits, batch.params, name)[row] > 0
                for name in ("filters_reordered", "min_p_first")}
    exact = batch.exact.probs[row] > 0
    assert not torch.equal(supports["filters_reordered"], exact)
    assert not torch.equal(supports["min_p_first"], exact)
    assert not torch.equal(supports["filters_reordered"], supports["min_p_first"])


def test_public_literals_match_the_oracle(tests_package):
    oracle, public = tests_package["oracle"], tests_package["public"]
    logits = torch.tensor([public.LOGITS] * 5)
    params = [oracle.RowParams(1.0), oracle.RowParams(0.5), oracle.RowParams(top_k=2), oracle.RowParams(top_p=0.8),
              oracle.RowParams(min_p=0.3)]
    expected = oracle.target(logits, params).probs
    literals = [[0.579259, 0.213097, 0.129250, 0.078394], [0.830953, 0.112457, 0.041371, 0.015219],
                [0.731059, 0.268941, 0.0, 0.0], [0.628532, 0.231224, 0.140244, 0.0], [0.731059, 0.268941, 0.0, 0.0]]
    torch.testing.assert_close(torch.tensor(literals, dtype=torch.float64), expected, rtol=0, atol=1e-6)


def test_tiny_variant_literals_match_the_oracle_and_separate_every_mistake(tests_package):
    oracle, tiny = tests_package["oracle"], tests_package["tiny"]
    logits = torch.tensor(tiny.LOGITS, dtype=torch.float32)
    params = [oracle.RowParams(*values) for values in zip(*(tiny.PARAMS[k] for k in
                                                           ("temperature", "top_k", "top_p", "min_p")))]
    exact = oracle.target(logits, params).probs  # raises AmbiguousCase for a row without margins
    torch.testing.assert_close(tiny._expected(), exact, rtol=0, atol=1e-9)
    # Every known mistake is told apart by the frozen rows, or by the rule an edge case checks (not both).
    assert set(tiny.MISTAKEN) | set(tiny.BY_RULE) == set(oracle.MISTAKES)
    assert not set(tiny.MISTAKEN) & set(tiny.BY_RULE)
    outputs = {}
    for name, frozen in tiny.MISTAKEN.items():
        model = oracle.mistaken(logits, params, name)
        torch.testing.assert_close(torch.tensor(frozen, dtype=torch.float64), model, rtol=0, atol=1e-9)
        assert (model - exact).abs().max() > 0.1, f"{name} barely changes the tiny rows"
        outputs[name] = model
    names = sorted(outputs)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            assert (outputs[first] - outputs[second]).abs().max() > 0.05, f"{first} and {second} look alike"


# Wrong solution file -> the oracle mistake that must model it exactly (used for diagnoses).
MODELLED = {
    "temperature_multiplied": "temperature_multiplied",
    "temperature_after_softmax": "temperature_ignored",
    "top_k_plus_one": "top_k_plus_one",
    "top_p_drops_crossing": "top_p_drops_crossing",
    "top_p_one_extra": "top_p_one_extra",
    "top_p_unsorted": "top_p_unsorted",
    "min_p_absolute": "min_p_absolute",
    "no_filtering": "no_filtering",
    "row0_parameters": "row0_params",
    "filters_reordered": "filters_reordered",
    "min_p_first": "min_p_first",
    "no_greedy": "greedy_ties_split",
}


@pytest.mark.parametrize("wrong, mistake", sorted(MODELLED.items()))
def test_the_oracle_models_each_wrong_solution(tests_package, exercise39, wrong, mistake):
    cases, oracle = tests_package["cases"], tests_package["oracle"]
    module = _load(exercise39.solutions_root / "wrong" / f"{wrong}.py", f"wrong_039_{wrong}")
    for batch in (cases.mixed_rows(), cases.scalar_rows(), cases.float64_rows()):
        got = module.sampling_probs(batch.logits, **batch.param_tensors()).to(torch.float64)
        modelled = oracle.mistaken(batch.logits, batch.params, mistake)
        # A mistake may empty a row (0/0 = NaN in the learner's code); the oracle keeps such rows as they were.
        finite = ~torch.isnan(got).any(dim=1)
        torch.testing.assert_close(got[finite], modelled[finite], rtol=1e-4, atol=1e-6)
