"""Exercise 47's own parts: the oracle, the frozen tiny batches, the generated batches, the specs.

The oracle (judge side, float64) and the reference solution (learner side, in the logits' dtype) follow the
statement separately; agreeing on generated inputs is evidence that both do. The oracle's mistaken outputs
must be what the catalogue's patched references return, or a diagnosis would name a mistake by a value the
mistake never gives. ``python tests/exercises/test_047_typical_epsilon_eta.py --write`` rewrites the frozen
values of the tiny batches (``tests/public/frozen47.py``) from the oracle.
"""

from __future__ import annotations

import itertools
import math
import pprint
import random
import sys

import pytest
import torch

from judge.checks.arguments import bad_inputs, legal_inputs
from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module

NEG_INF = -math.inf


@pytest.fixture(scope="module")
def exercise47():
    return resolve("47")


@pytest.fixture(scope="module")
def parts(exercise47):
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise47, suite)
    where = {
        "oracle": "hidden",
        "cases": "hidden",
        "generated": "hidden",
        "specs": "hidden",
        "frozen47": "public",
        "diagnoses": "public",
    }
    return {name: suites_module(exercise47, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise47):
    return import_solution(exercise47.reference_path, "reference_047")


@pytest.fixture(scope="module")
def wrong(exercise47):
    return {path.stem: import_solution(path, f"wrong_047_{path.stem}") for path in exercise47.wrong_solutions()}


def _random_call(oracle, rng: random.Random, dtype: torch.dtype):
    rows, vocab = rng.randint(1, 4), rng.randint(2, 9)
    logits = []
    for _ in range(rows):
        row = [rng.choice((round(rng.uniform(-3, 3), 1), 0.5, 1.0, NEG_INF)) for _ in range(vocab)]
        row[rng.randrange(vocab)] = 1.5  # a finite value in every row
        logits.append(row)
    method = rng.choice(oracle.METHODS)
    if method == "typical":
        params = [rng.choice((0.3, 0.6, 0.9, 1.0)) for _ in range(rows)]
    else:
        params = [rng.choice((0.0, 0.05, 0.2, 0.6)) for _ in range(rows)]
    temperatures = [rng.choice((0.0, 0.5, 1.0, 2.0)) for _ in range(rows)]
    return oracle.Call(torch.tensor(logits, dtype=dtype), method, tuple(params), tuple(temperatures))


def _run(module, call):
    return module.truncated_probs(
        call.logits,
        call.method,
        torch.tensor(call.params, dtype=torch.float64),
        torch.tensor(call.temperatures, dtype=torch.float64),
    ).to(torch.float64)


@pytest.mark.parametrize("seed", range(4))
def test_reference_agrees_with_the_oracle(parts, reference, seed):
    oracle, rng = parts["oracle"], random.Random(seed)
    for _ in range(60):
        call = _random_call(oracle, rng, rng.choice((torch.float32, torch.float64)))
        try:
            exact = oracle.target(call, margin=oracle.MARGIN)
        except oracle.AmbiguousCase:
            continue
        got = _run(reference, call)
        assert torch.allclose(got, exact, rtol=1e-5, atol=1e-7), (call, got, exact)
        assert torch.equal(got == 0, exact == 0) or bool((exact[got == 0] < 1e-30).all())


def test_mistakes_are_what_the_catalogue_returns(parts, wrong):
    """Every distribution mistake the oracle models is the output of the wrong solution of that name."""
    oracle, rng = parts["oracle"], random.Random(47)
    modelled = [name for name in oracle.DISTRIBUTION_MISTAKES if name in wrong]
    assert len(modelled) == len(oracle.DISTRIBUTION_MISTAKES)
    for _ in range(50):
        call = _random_call(oracle, rng, rng.choice((torch.float32, torch.float64)))
        for name in modelled:
            expected = oracle.mistaken(call, name)
            try:
                got = _run(wrong[name], call)
            except RuntimeError:  # a NaN entropy sorted and searched: the oracle says NaN
                assert bool(expected.isnan().all()), name
                continue
            assert torch.allclose(got, expected, rtol=1e-6, atol=1e-9, equal_nan=True), (name, call)


def test_the_worked_example(parts):
    """The statement's table, to its four decimals."""
    oracle = parts["oracle"]
    logits = torch.tensor([[2.0, 1.0, 1.0, 0.0, -1.0, NEG_INF]], dtype=torch.float64)
    table = [
        ("typical", 0.3, 1.0, [0, 0.5, 0.5, 0, 0, 0]),
        ("typical", 0.5, 1.0, [0.5761, 0.2119, 0.2119, 0, 0, 0]),
        ("typical", 0.95, 1.0, [0.5344, 0.1966, 0.1966, 0.0723, 0, 0]),
        ("epsilon", 0.05, 1.0, [0.5344, 0.1966, 0.1966, 0.0723, 0, 0]),
        ("eta", 0.3, 1.0, [0.5761, 0.2119, 0.2119, 0, 0, 0]),
        ("eta", 0.3, 0.5, [1, 0, 0, 0, 0, 0]),
    ]
    for method, param, temperature, expected in table:
        got = oracle.target(oracle.Call(logits, method, (param,), (temperature,)))
        assert [round(v, 4) for v in got[0].tolist()] == pytest.approx(expected, abs=1e-12), (method, param)


def test_frozen_values_are_the_oracles(parts):
    cases, frozen = parts["cases"], parts["frozen47"]
    assert list(frozen.FROZEN) == list(cases.TINY)
    for name, stored in frozen.FROZEN.items():
        live = cases.frozen_values(name)
        assert stored.keys() == live.keys(), name
        assert stored["mistakes"].keys() == live["mistakes"].keys(), name
        for key in ("logits", "method", "params", "temperatures"):
            assert stored[key] == live[key], (name, key)
        pairs = [(stored["expected"], live["expected"])] + [
            (stored["mistakes"][k], live["mistakes"][k]) for k in live["mistakes"]
        ]
        if "plain" in live:
            pairs.append((stored["plain"]["expected"], live["plain"]["expected"]))
        for a, b in pairs:
            assert torch.allclose(torch.tensor(a), torch.tensor(b), rtol=1e-11, atol=0), name


def test_the_tiny_batches_tell_every_mistake_apart(parts):
    """On each tiny batch no two mistakes return the same output, and every distribution mistake changes
    at least one batch: the diagnosis of the browser's Run is never ambiguous, and never missing."""
    frozen, diagnoses = parts["frozen47"], parts["diagnoses"]
    seen = set()
    for name, case in frozen.FROZEN.items():
        outputs = {key: torch.tensor(rows, dtype=torch.float64) for key, rows in case["mistakes"].items()}
        seen |= set(outputs)
        if name in ("typical", "epsilon", "eta"):
            for a, b in itertools.combinations(outputs, 2):
                same = torch.allclose(outputs[a], outputs[b], rtol=1e-4, atol=1e-6)
                assert not (same and torch.equal(outputs[a] == 0, outputs[b] == 0)), (name, a, b)
    # NaN outputs (named by the twisted calls), and eta without the min (listed undetectable in the browser)
    assert seen | {"entropy_nan", "no_top_kept", "no_greedy", "eta_no_min"} >= set(diagnoses.DISTRIBUTION_MISTAKES)


def test_a_decision_at_its_threshold_is_ambiguous(parts):
    oracle = parts["oracle"]
    logits = torch.tensor([[math.log(0.5), math.log(0.3), math.log(0.2)]], dtype=torch.float64)
    with pytest.raises(oracle.AmbiguousCase, match="within 0.002 of the threshold"):
        oracle.target(oracle.Call(logits, "epsilon", (0.2,), (1.0,)))
    with pytest.raises(oracle.AmbiguousCase, match="the mass before token 0"):
        oracle.target(oracle.Call(logits, "typical", (0.3,), (1.0,)))  # token 1 (score smallest) holds 0.3
    oracle.target(oracle.Call(logits, "epsilon", (0.25,), (1.0,)))  # far from every probability


def test_typical_one_reaches_one_early_in_float32(parts):
    """The tau = 1 row: a float32 running total reaches 1 before a token of probability 5e-14, which the
    statement keeps."""
    oracle, cases = parts["oracle"], parts["cases"]
    rows, method, params, temperatures = cases.TINY["typical"]
    call = oracle.Call(torch.tensor(rows, dtype=torch.float32), method, tuple(params), tuple(temperatures))
    exact, cut = oracle.target(call), oracle.mistaken(call, "typical_one_cuts")
    assert 0 < float(exact[3, 2]) < 1e-13 and float(cut[3, 2]) == 0.0


@pytest.mark.parametrize("seed", range(6))
def test_generated_batches_keep_their_margins(parts, reference, seed):
    generated, oracle = parts["generated"], parts["oracle"]
    rng = random.Random(seed)
    for method in oracle.METHODS:
        for dtype in (torch.float32, torch.float64):
            batch = generated.generated_batch(rng, method, dtype)
            oracle.target(batch.call, margin=oracle.MARGIN)  # raises when a row sits near a threshold
            got = _run(reference, batch.call)
            assert torch.allclose(got, batch.exact, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_generated_refusals_are_refused_and_corners_accepted_by_the_reference(parts, reference, seed):
    specs, rng = parts["specs"], random.Random(seed)
    for method in parts["oracle"].METHODS:
        for draws, function, arguments in (
            (False, reference.truncated_probs, specs.probs_arguments(method)),
            (True, reference.sample_truncated, specs.sample_arguments(method)),
        ):
            good = specs.good_call(rng, method, draws=draws)
            function(**good)
            for variant in bad_inputs(good, arguments, rng):
                with pytest.raises(ValueError) as caught:
                    function(**variant.kwargs)
                assert variant.argument in str(caught.value), (variant.description, caught.value)
            for variant in legal_inputs(good, arguments, rng):
                function(**variant.kwargs)
            for bad in specs.greedy_refusals(function, method, good):
                with pytest.raises(ValueError, match="param"):
                    function(**bad.kwargs)


def _write() -> None:
    exercise = resolve("47")
    load_suite(exercise, "hidden")
    cases = suites_module(exercise, "hidden.cases")
    frozen = exercise.root / "tests" / "public" / "frozen47.py"
    text = frozen.read_text()
    head = text[: text.index("FROZEN = ")]
    data = {name: cases.frozen_values(name) for name in cases.TINY}
    body = pprint.pformat(data, width=110, sort_dicts=False).replace("-inf", "NEG_INF")
    frozen.write_text(head + "FROZEN = " + body + "\n")


if __name__ == "__main__" and "--write" in sys.argv:
    _write()
