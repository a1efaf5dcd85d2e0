"""Exercise 42's own parts: the float64 oracle, the frozen cases and their margins, the tiny variant's frozen values.

The oracle (judge side, plain Python) and the reference (learner side, batched torch) are
written independently; agreeing on generated inputs is evidence that both follow the statement.
Run this file as a script with ``--write`` to regenerate ``tests/public/frozen.py`` from the oracle.
"""

from __future__ import annotations

import importlib.util
import math
import pprint
from pathlib import Path
import random
import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercise import resolve
from judge.suites import load_suite, suites_module


def _modules():
    exercise = resolve("42")
    for suite in ("hidden", "public"):  # not tiny: it imports what --write generates
        load_suite(exercise, suite)
    names = {
        "oracle": "hidden.oracle",
        "cases": "hidden.cases",
        "frozen": "public.frozen",
        "diagnoses": "public.diagnoses",
    }
    return exercise, {key: suites_module(exercise, name) for key, name in names.items()}


@pytest.fixture(scope="module")
def parts():
    return _modules()[1]


@pytest.fixture(scope="module")
def reference():
    exercise = resolve("42")
    spec = importlib.util.spec_from_file_location("reference_042", exercise.solutions_root / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the frozen data of the tiny variant -----------------------------------------------------------


def _long_inputs():
    """The tiny long case, by formula (the browser rebuilds it the same way)."""
    length, vocab = 160, 8
    logits = torch.tensor([[[((7 * t + 3 * v) % 11) * 1.2 for v in range(vocab)] for t in range(length)]])
    tokens = torch.tensor([[(5 * t + 1) % vocab for t in range(length)]])
    return logits, tokens, torch.ones(1, length, dtype=torch.bool)


def _log(probs):
    return [math.log(p) for p in probs]


EXAMPLE = {  # the worked example and its two variations (hidden cases.greedy_misses, as probabilities)
    "start": [[0.01, 0.55, 0.40, 0.04], [0.02, 0.50, 0.45, 0.03], [0.05, 0.70, 0.15, 0.10]],
    "trans": [
        [[0.25] * 4, [0.50, 0.20, 0.15, 0.15], [0.90, 0.04, 0.03, 0.03], [0.40, 0.20, 0.20, 0.20]],
        [[0.25] * 4, [0.40, 0.30, 0.20, 0.10], [0.10, 0.05, 0.05, 0.80], [0.95, 0.01, 0.02, 0.02]],
        [[0.25] * 4, [0.05, 0.05, 0.50, 0.40], [0.40, 0.30, 0.20, 0.10], [0.96, 0.02, 0.01, 0.01]],
    ],
}
PAD_ONLY = ("length_counts_non_pad",)  # shows only when pad_id is a real token; the tiny variant uses -1
SEPARATED_ELSEWHERE = ("finished_compete", "eos_not_first")  # the crowded model separates them (cases.crowded)
SMALL_SEED = 4335  # four rows over five tokens whose every decoding mistake gives its own answer


def _small_model():
    rng = random.Random(SMALL_SEED)
    batch, vocab = 4, 5
    start = [[round(rng.gauss(0, 1.5), 2) for _ in range(vocab)] for _ in range(batch)]
    trans = [[[round(rng.gauss(0, 1.5), 2) for _ in range(vocab)] for _ in range(vocab)] for _ in range(batch)]
    for b in range(batch):
        bias = round(rng.uniform(-2.0, 1.0), 2)
        start[b][0] = round(start[b][0] + bias - 1.0, 2)
        for p in range(vocab):
            trans[b][p][0] = round(trans[b][p][0] + bias, 2)
    return start, trans


def frozen_values(parts) -> dict:
    """Everything tiny.py freezes, computed by the oracle."""
    oracle = parts["oracle"]
    lp = {}
    garbage, padded = parts["frozen"].GARBAGE_INPUTS, parts["frozen"].PADDED_INPUTS
    inputs = {
        "padded": (torch.tensor(padded["logits"]), torch.tensor(padded["tokens"]), torch.tensor(padded["mask"])),
        "garbage": (torch.tensor(garbage["logits"]), torch.tensor(garbage["tokens"]), torch.tensor(garbage["mask"])),
        "long": _long_inputs(),
        "large": (
            torch.tensor(parts["frozen"].LARGE_INPUTS["logits"]),
            torch.tensor(parts["frozen"].LARGE_INPUTS["tokens"]),
            torch.ones(1, 4, dtype=torch.bool),
        ),
    }
    for name, (logits, tokens, mask) in inputs.items():
        mistakes = {key: oracle.log_prob(logits, tokens, mask, key) for key in parts["diagnoses"].LOG_PROB}
        lp[name] = {
            "expected": oracle.log_prob(logits, tokens, mask).tolist(),
            "mistakes": {k: v.tolist() for k, v in mistakes.items() if v is not None},
        }

    def decoded(rows):
        return [[r.tokens for r in rows], [r.score for r in rows]]

    models = {}
    example = (
        torch.tensor([_log(r) for r in EXAMPLE["start"]]),
        torch.tensor([[_log(r) for r in rows] for rows in EXAMPLE["trans"]]),
    )
    start, trans = _small_model()
    small = (torch.tensor(start), torch.tensor(trans))
    tied, crowded = parts["cases"].tied(), parts["cases"].crowded()
    for name, (s, t, width, alpha, max_len) in {
        "example": (*example, 2, 0.0, 4),
        "small": (*small, 3, 0.6, 5),
        "tied": (tied.start, tied.trans, tied.width, tied.alpha, tied.max_len),
        "crowded": (crowded.start, crowded.trans, crowded.width, crowded.alpha, crowded.max_len),
    }.items():
        models[name] = {
            "beam": decoded(oracle.beam(s, t, 0, max_len, -1, width, alpha)),
            "greedy": decoded(oracle.greedy(s, t, 0, max_len, -1)),
            "beam_mistakes": {
                key: decoded(oracle.beam(s, t, 0, max_len, -1, width, alpha, key))
                for key in parts["diagnoses"].DECODING
                if key not in ("greedy_ignores_eos", *PAD_ONLY)
            },
            "greedy_mistakes": {
                key: decoded(oracle.greedy(s, t, 0, max_len, -1, key)) for key in oracle.GREEDY_MISTAKES
            },
        }
    return {
        "LOG_PROB_VALUES": lp,
        "DECODED": models,
        "SMALL_START": start,
        "SMALL_TRANS": trans,
        "TIED_START": tied.start.tolist(),
        "TIED_TRANS": tied.trans.tolist(),
        "CROWDED_START": crowded.start.tolist(),
        "CROWDED_TRANS": crowded.trans.tolist(),
    }


def _same(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, float):
        return a == b or abs(a - b) <= 1e-12 * max(1.0, abs(a))
    return a == b


def test_tiny_frozen_values_equal_the_oracle(parts):
    frozen = parts["frozen"]
    for name, value in frozen_values(parts).items():
        assert _same(getattr(frozen, name), value), name


def test_tiny_small_model_separates_every_mistake(parts):
    models = parts["frozen"].DECODED["small"]
    kept = {k: v for k, v in models["beam_mistakes"].items() if k not in SEPARATED_ELSEWHERE}
    seen = [str(models["beam"])] + [str(v) for v in kept.values()]
    assert len(set(seen)) == len(seen)
    crowded = parts["frozen"].DECODED["crowded"]
    seen = [str(crowded["beam"])] + [str(crowded["beam_mistakes"][key]) for key in SEPARATED_ELSEWHERE]
    assert len(set(seen)) == len(seen)


# --- the oracle against the reference ------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    vocab=st.integers(2, 6),
    width=st.integers(1, 4),
    max_len=st.integers(1, 5),
    alpha=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
    seed=st.integers(0, 10_000),
)
def test_reference_agrees_with_the_oracle(parts, reference, data, vocab, width, max_len, alpha, seed):
    oracle = parts["oracle"]
    width = min(width, vocab)
    rng = random.Random(seed)
    start = torch.tensor([[rng.gauss(0, 1.5) for _ in range(vocab)] for _ in range(3)], dtype=torch.float64)
    trans = torch.tensor(
        [[[rng.gauss(0, 1.5) for _ in range(vocab)] for _ in range(vocab)] for _ in range(3)], dtype=torch.float64
    )
    for kind, want in (
        ("greedy", oracle.greedy(start, trans, 0, max_len, -1)),
        ("beam", oracle.beam(start, trans, 0, max_len, -1, width, alpha)),
    ):
        if kind == "greedy":
            tokens, scores = reference.greedy_decode(start, trans, 0, max_len, -1)
        else:
            tokens, scores = reference.beam_search(start, trans, 0, max_len, -1, width, alpha)
        for row, expected in enumerate(want):
            if expected.margin < 1e-9:
                continue  # a float64 near-tie: either answer is defensible
            assert tokens[row].tolist() == expected.tokens, (kind, row)
            assert math.isclose(float(scores[row]), expected.score, rel_tol=1e-9, abs_tol=1e-9), (kind, row)
    batch, length = 2, data.draw(st.integers(1, 6))
    logits = torch.tensor(
        [[[rng.gauss(0, 3) for _ in range(vocab)] for _ in range(length)] for _ in range(batch)], dtype=torch.float64
    )
    tokens = torch.tensor([[rng.randrange(vocab) for _ in range(length)] for _ in range(batch)])
    mask = torch.tensor([[rng.random() < 0.7 for _ in range(length)] for _ in range(batch)])
    assert torch.allclose(
        reference.sequence_log_prob(logits, tokens, mask), oracle.log_prob(logits, tokens, mask), rtol=1e-12, atol=1e-12
    )


def test_width_one_is_greedy(parts):
    model = parts["cases"].beam_random("width_one")
    greedy = parts["oracle"].greedy(model.start, model.trans, 0, model.max_len, -1)
    assert [r.tokens for r in model.beam] == [r.tokens for r in greedy]
    assert [r.score for r in model.beam] == pytest.approx([r.score for r in greedy], rel=1e-12)


def test_frozen_cases_clear_their_margins(parts):
    cases = parts["cases"]
    for model in (
        cases.greedy_random(),
        cases.greedy_misses(),
        cases.tied(),
        *(cases.beam_random(kind) for kind in cases.BEAM_SEEDS),
        cases.pad_as_token(),
        cases.pad_as_eos(),
        cases.one_step(),
        cases.full_width(),
        cases.tied_across(),
    ):
        assert all(row.margin >= cases.MARGIN for row in model.greedy)
        assert all(row.margin >= cases.MARGIN for row in model.beam)
    assert all(row.margin >= cases.MARGIN for row in cases.crowded().beam)  # only its beam is judged


def test_greedy_misses_the_best_sequence(parts):
    """The constructed case: greedy's sequence is less probable than beam search's, in every row."""
    model = parts["cases"].greedy_misses()
    for greedy, beam in zip(model.greedy, model.beam, strict=True):
        assert greedy.tokens != beam.tokens and beam.score > greedy.score + 0.05


def test_ties_are_exercised(parts):
    model = parts["cases"].tied()
    assert sum(row.ties for row in model.beam) >= 4 and sum(row.ties for row in model.greedy) >= 1


def test_log_prob_cases_break_their_mistakes(parts):
    """Long: the linear product is -inf; large: the naive softmax is NaN and log(softmax) -inf."""
    cases, oracle = parts["cases"], parts["oracle"]
    long, large = cases.long(), cases.large()
    assert torch.isinf(oracle.log_prob(long.logits, long.tokens, long.mask, "linear_space_product")).all()
    assert torch.isfinite(long.exact).all()
    assert torch.isnan(oracle.log_prob(large.logits, large.tokens, large.mask, "softmax_overflow")).all()
    assert torch.isinf(oracle.log_prob(large.logits, large.tokens, large.mask, "log_of_softmax")).all()


def _write() -> None:
    _, found = _modules()
    values = frozen_values(found)
    path = resolve("42").public_dir / "frozen.py"
    here = Path(__file__).resolve().parents[2] / "exercises" / "042-sequence-decoding" / "tests" / "public" / "frozen.py"
    if path.resolve() != here:  # the judge imported from another checkout (an editable install elsewhere)
        raise SystemExit(f"refusing to write {path}: this file belongs to {here}; run with PYTHONPATH={here.parents[4]}")
    text = path.read_text(encoding="utf-8")
    head = text[: text.index("# --- generated")]
    body = "".join(f"{name} = {pprint.pformat(value, width=118, compact=True)}\n\n" for name, value in values.items())
    body = body.replace("nan", "NAN").replace("-inf", "-INF").replace("inf", "INF")
    path.write_text(
        head
        + "# --- generated by tests/exercises/test_042_sequence_decoding.py --write ---\n\n"
        + body.rstrip()
        + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__" and "--write" in sys.argv:
    _write()
