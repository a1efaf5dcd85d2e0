"""Exercise 49's own parts: the oracle against the reference, the frozen public values, the generated
instances' invariants, and the hand-built cases that put each mistake in plain sight.

The oracle (judge side: Python floats row by row) and the reference solution (learner side: torch) are
written independently; agreeing on generated inputs is evidence that both follow the statement.
"""

from __future__ import annotations

import pprint
import random
import re

import pytest
import torch

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module

FROZEN_HEADER = '''"""Frozen answers of exercise 49's public inputs (``example49.py``), written by the judge's oracle.

Generated (python tests/exercises/test_049_constrained_decoding.py --write); a test checks them against
the oracle. Keys of ``mistakes`` are names in ``diagnoses.MISTAKES``.
"""

from __future__ import annotations

import torch

from .diagnoses import MISTAKES

'''

FROZEN_FOOTER = '''

def mask() -> torch.Tensor:
    return torch.tensor(FROZEN["mask"])


def mask_mistakes() -> dict:
    return {MISTAKES[name]: torch.tensor(value) for name, value in FROZEN["mask_mistakes"].items()}


def probs(name: str) -> torch.Tensor:
    return torch.tensor(FROZEN["probs"][name], dtype=torch.float64)


def probs_mistakes(name: str) -> dict:
    return {
        MISTAKES[key]: torch.tensor(value, dtype=torch.float64)
        for key, value in FROZEN["probs_mistakes"][name].items()
    }


def sequence_law() -> tuple[list[tuple[int, ...]], torch.Tensor]:
    sequences, law = FROZEN["sequences"]
    return [tuple(s) for s in sequences], torch.tensor(law, dtype=torch.float64)


def unreachable_mask() -> tuple[torch.Tensor, dict]:
    mistakes = {MISTAKES[name]: torch.tensor(value) for name, value in FROZEN["unreachable_mask_mistakes"].items()}
    return torch.tensor(FROZEN["unreachable_mask"]), mistakes


def tiny_sequence_law() -> tuple[list[tuple[int, ...]], torch.Tensor, dict]:
    """The sequences of 3 tokens from state 0 under SEQUENCE_LOGITS, their law, and the start-logits mistake's."""
    sequences, law, start_law = FROZEN["tiny_sequences"]
    alternatives = {MISTAKES["generate_start_logits"]: torch.tensor(start_law, dtype=torch.float64)}
    return [tuple(s) for s in sequences], torch.tensor(law, dtype=torch.float64), alternatives
'''


@pytest.fixture(scope="module")
def exercise49():
    return resolve("49")


@pytest.fixture(scope="module")
def parts(exercise49):
    for suite in ("hidden", "public"):
        load_suite(exercise49, suite)
    where = {
        "oracle": "hidden",
        "cases": "hidden",
        "generated": "hidden",
        "specs": "hidden",
        "example49": "public",
        "frozen49": "public",
        "diagnoses": "public",
    }
    return {name: suites_module(exercise49, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise49):
    return import_solution(exercise49.reference_path, "reference_049")


def _mistake_names(parts) -> dict:
    return {text: name for name, text in parts["diagnoses"].MISTAKES.items()}


def frozen_values(parts) -> dict:
    """What frozen49.py holds, computed by the oracle today."""
    oracle, example = parts["oracle"], parts["example49"]
    names = _mistake_names(parts)
    probs, mistakes = {}, {}
    for name, call in example.CALLS.items():
        probs[name] = oracle.target_probs(**call).tolist()
        mistakes[name] = {names[d]: m.tolist() for d, m in oracle.probs_mistakes(**call).items()}
    sequences, law = oracle.sequence_law(torch.zeros(5, 6), example.REGEX, 0, 4)
    tiny_sequences, tiny_law = oracle.sequence_law(example.SEQUENCE_LOGITS, example.REGEX, 0, 3)
    _, start_law = oracle.sequence_law(example.SEQUENCE_LOGITS, example.REGEX, 0, 3, logits_state=0)
    unreachable, unreachable_states = example.UNREACHABLE_TRANSITIONS, example.UNREACHABLE_STATES
    return {
        "mask": oracle.allowed(example.REGEX, example.EXAMPLE_STATES).tolist(),
        "unreachable_mask": oracle.allowed(unreachable, unreachable_states).tolist(),
        "unreachable_mask_mistakes": {
            names[d]: m.tolist() for d, m in oracle.mask_mistakes(unreachable, unreachable_states).items()
        },
        "tiny_sequences": [[list(s) for s in tiny_sequences], tiny_law.tolist(), start_law.tolist()],
        "mask_mistakes": {
            names[d]: m.tolist() for d, m in oracle.mask_mistakes(example.REGEX, example.EXAMPLE_STATES).items()
        },
        "probs": probs,
        "probs_mistakes": mistakes,
        "sequences": [[list(s) for s in sequences], law.tolist()],
    }


def frozen_source(parts) -> str:
    body = pprint.pformat(frozen_values(parts), width=110, sort_dicts=False)
    body = re.sub(r"(?<![\w'\"])nan(?![\w'\"])", "NAN", body)
    return FROZEN_HEADER + 'NAN = float("nan")\n\nFROZEN = ' + body + "\n" + FROZEN_FOOTER


def test_frozen_values_are_the_oracles(parts):
    frozen = parts["frozen49"].FROZEN
    today = frozen_values(parts)
    assert repr(frozen) == repr(today)


def test_worked_example_numbers_are_the_statements(parts, exercise49):
    """The statement's table (4 decimals) is what the oracle computes."""
    text = (exercise49.root / "statement.en.md").read_text(encoding="utf-8")
    frozen = parts["frozen49"]
    for value in frozen.probs("defaults")[1].tolist() + frozen.probs("table").flatten().tolist():
        if 0 < value < 1:
            assert f"{value:.4f}" in text


@pytest.mark.parametrize("seed", range(20))
def test_reference_agrees_with_the_oracle(parts, reference, seed):
    rng = random.Random(seed)
    for dtype in (torch.float32, torch.float64):
        case = parts["generated"].probs_case(rng, dtype=dtype)
        probs = reference.constrained_probs(**case.kwargs())
        rtol, atol = (1e-5, 1e-7) if dtype == torch.float32 else (1e-11, 1e-14)
        assert torch.allclose(probs.to(torch.float64), case.target, rtol=rtol, atol=atol)
        assert torch.equal(probs == 0, case.target == 0)


@pytest.mark.parametrize("seed", range(10))
def test_generated_automata_keep_their_promises(parts, seed):
    """Live states allow a token and lead only to live states; dead ones allow nothing; state 0 is a target."""
    rng = random.Random(seed)
    auto = parts["generated"].automaton(rng, 6, 7, dead=2)
    table = auto.transitions
    for s in auto.live():
        assert bool((table[s] >= 0).any())
        assert set(table[s][table[s] >= 0].tolist()) <= set(auto.live())
    for s in auto.dead:
        assert bool((table[s] == -1).all())
    assert bool((table == 0).any())


def test_every_mistake_differs_from_the_target_on_its_case(parts):
    cases, names = parts["cases"], _mistake_names(parts)
    for case, mistake in (
        (cases.plain_rows(), "mask_after_softmax"),
        (cases.plain_rows(), "mask_fills_zero"),
        (cases.greedy_masked(), "greedy_ignores_mask"),
        (cases.filters_then_mask(), "filters_before_mask"),
    ):
        alternatives = {names[d]: m for d, m in case.mistakes().items()}
        assert not torch.allclose(alternatives[mistake], case.target, equal_nan=False)
        assert not torch.isnan(alternatives[mistake]).any()


def test_sequence_law_sums_to_one(parts):
    oracle, cases = parts["oracle"], parts["cases"]
    for seed in range(5):
        state_logits, transitions, start = cases.sequence_case(seed)
        _, law = oracle.sequence_law(state_logits, transitions, start, 4)
        assert abs(float(law.sum()) - 1.0) < 1e-12


def test_extreme_cases_leave_both_ends_disallowed(parts):
    for dtype in (torch.float32, torch.float64):
        case = parts["cases"].extreme_case(7, dtype)
        assert bool((case.target[:, 0] == 0).all()) and bool((case.target[:, -1] == 0).all())
        assert bool(((case.target > 0).sum(dim=1) >= 2).all())


def test_generated_refusals_are_refused_by_the_reference(parts, reference):
    specs = parts["specs"]

    class Sub:
        def __getattr__(self, name):
            return getattr(reference, name)

    for seed in range(5):
        rng = random.Random(seed)
        calls = specs.automaton_refusals(Sub(), rng, dict) + specs.negative_states(Sub(), rng, dict)
        calls += specs.nothing_to_draw(Sub(), rng, dict, dead=True) + specs.nothing_to_draw(
            Sub(), rng, dict, dead=False
        )
        for call in calls:
            with pytest.raises(ValueError) as caught:
                call.function(*call.args, **call.kwargs)
            assert str(caught.value), call.call  # the message says what is wrong


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/exercises/test_049_constrained_decoding.py --write")
    exercise = resolve("49")
    (exercise.root / "tests" / "public" / "frozen49.py").write_text("FROZEN = {}\n", encoding="utf-8")
    load_suite(exercise, "hidden")
    found = {
        name: suites_module(exercise, f"{folder}.{name}")
        for name, folder in (("example49", "public"), ("oracle", "hidden"), ("diagnoses", "public"))
    }
    target = exercise.root / "tests" / "public" / "frozen49.py"
    target.write_text(frozen_source(found), encoding="utf-8")
    print(f"wrote {target}; now run: ruff format {target}")
