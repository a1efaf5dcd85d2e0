"""Exercise 42's own parts: the float64 oracle, the drawn cases and their margins, the tiny variant's frozen values.

The oracle (judge side, plain Python) and the reference (learner side, batched torch) are
written independently; agreeing on generated inputs is evidence that both follow the statement.
Run this file as a script with ``--write`` to regenerate ``tests/public/frozen.py`` from the oracle.
"""

from __future__ import annotations

import math
import pprint
import random
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


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
    return import_solution(exercise.solutions_root / "reference.py", "reference_042")


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
            torch.ones(2, 4, dtype=torch.bool),
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
    templates = tie_templates(parts)
    for name, (s, t, width, alpha, max_len) in {
        "example": (*example, 2, 0.0, 4),
        "small": (*small, 3, 0.6, 5),
        "small_full_width": (*small, 5, 0.6, 5),
        "small_one_step": (*small, 3, 0.6, 1),
        "tied": (tied.start, tied.trans, tied.width, tied.alpha, tied.max_len),
        "crowded": (crowded.start, crowded.trans, crowded.width, crowded.alpha, crowded.max_len),
        **{
            f"template_{key}": (
                torch.tensor(t["start"]),
                torch.tensor(t["trans"]),
                t["width"],
                t["alpha"],
                t["max_len"],
            )
            for key, t in templates.items()
        },
    }.items():
        models[name] = {
            "beam": decoded(oracle.beam(s, t, 0, max_len, -1, width, alpha)),
            "greedy": decoded(oracle.greedy(s, t, 0, max_len, -1)),
            "beam_mistakes": {
                key: decoded(oracle.beam(s, t, 0, max_len, -1, width, alpha, key))
                for key in parts["diagnoses"].DECODING
                if key not in (*oracle.GREEDY_ONLY, *PAD_ONLY)
            },
            "greedy_mistakes": {
                key: decoded(oracle.greedy(s, t, 0, max_len, -1, key)) for key in oracle.GREEDY_MISTAKES
            },
        }
        if name.startswith("template_"):
            models[name]["tie_orders"] = [
                decoded(oracle.beam(s, t, 0, max_len, -1, width, alpha, key)) for key in oracle.BEAM_TIE_ORDERS
            ]
    return {
        "LOG_PROB_VALUES": lp,
        "DECODED": models,
        "SMALL_START": start,
        "SMALL_TRANS": trans,
        "TIED_START": tied.start.tolist(),
        "TIED_TRANS": tied.trans.tolist(),
        "CROWDED_START": crowded.start.tolist(),
        "CROWDED_TRANS": crowded.trans.tolist(),
        "TIE_TEMPLATES": templates,
    }


def tie_templates(parts) -> dict:
    """The hidden suite's tie templates as they stand (EOS = 0, no relabelling, GAP = 1024): the tiny
    variant's exact ties, each a call of its own."""
    cases = parts["cases"]
    out = {}
    for name, template in cases.TIE_TEMPLATES.items():
        max_len, width, alpha = cases.TIE_CALLS[name]

        def level(k):
            return -cases.GAP * k if k else 0.0

        out[name] = {
            "start": [[level(k) for k in template["start"]]],
            "trans": [[[level(k) for k in row] for row in template["trans"]]],
            "max_len": max_len,
            "width": width,
            "alpha": alpha,
        }
    return out


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


def test_tiny_tie_templates_show_their_wrong_orders(parts):
    """Each frozen tie template: some wrong tie order returns another answer, and all three show each
    order but the equal-token ones (the hidden suite's drawn models show those)."""
    shown = set()
    oracle = parts["oracle"]
    for name, model in parts["frozen"].DECODED.items():
        if name.startswith("template_"):
            for key, answer in zip(oracle.BEAM_TIE_ORDERS, model["tie_orders"], strict=True):
                if answer[0] != model["beam"][0]:
                    shown.add(key)
    assert shown >= {"ties_token_major", "ties_parents_by_score", "final_tie_first_finished", "ties_larger_first"}


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
    eos = rng.randrange(vocab)
    pad = rng.choice((-1, eos, rng.randrange(vocab), vocab, -(2**63)))
    start = torch.tensor([[rng.gauss(0, 1.5) for _ in range(vocab)] for _ in range(3)], dtype=torch.float64)
    trans = torch.tensor(
        [[[rng.gauss(0, 1.5) for _ in range(vocab)] for _ in range(vocab)] for _ in range(3)], dtype=torch.float64
    )
    for kind, want in (
        ("greedy", oracle.greedy(start, trans, eos, max_len, pad)),
        ("beam", oracle.beam(start, trans, eos, max_len, pad, width, alpha)),
    ):
        if kind == "greedy":
            tokens, scores = reference.greedy_decode(start, trans, eos, max_len, pad)
        else:
            tokens, scores = reference.beam_search(start, trans, eos, max_len, pad, width, alpha)
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


@pytest.mark.parametrize("seed", range(3))
def test_reference_agrees_on_the_tie_models(parts, reference, seed):
    """Every drawn tie model: the reference (batched torch, float32) finds the oracle's answers exactly."""
    for model in parts["cases"].tie_models(seed):
        tokens, scores = reference.beam_search(
            model.start, model.trans, model.eos, model.max_len, model.pad, model.width, model.alpha
        )
        assert tokens.tolist() == [r.tokens for r in model.beam]
        tokens, scores = reference.greedy_decode(model.start, model.trans, model.eos, model.max_len, model.pad)
        assert tokens.tolist() == [r.tokens for r in model.greedy]


def test_width_one_is_greedy(parts):
    model = parts["cases"].random_model(4250, 16, 8, 7, 1, 0.0)
    greedy = parts["oracle"].greedy(model.start, model.trans, model.eos, model.max_len, model.pad)
    assert [r.tokens for r in model.beam] == [r.tokens for r in greedy]
    assert [r.score for r in model.beam] == pytest.approx([r.score for r in greedy], rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_drawn_cases_clear_their_margins(parts, seed):
    """The builders draw again until every decision clears MARGIN; their answers say so (AmbiguousCase otherwise)."""
    cases = parts["cases"]
    for model in (
        cases.random_model(seed, 16, 8, 7),
        cases.random_model(seed, 16, 8, 7, 4, 1.0),
        cases.random_model(seed, 8, 6, 1, 3, 0.5),
        cases.random_model(seed, 8, 6, 6, 3, 1.0, pad=None),
        cases.greedy_misses(),
        cases.tied(),
        cases.tied_across(),
        *cases.tie_models(seed),
    ):
        assert all(row.margin >= cases.MARGIN for row in model.greedy)
        assert all(row.margin >= cases.MARGIN for row in model.beam)
    assert all(row.margin >= cases.MARGIN for row in cases.crowded().beam)  # only its beam is judged


def test_random_models_draw_every_row_kind(parts):
    """EOS first, early and late rows, EOS and pad_id anywhere: the greedy answer starts with EOS in some rows."""
    cases = parts["cases"]
    model = cases.random_model(7, 16, 8, 7)
    firsts = [row.tokens[0] for row in model.greedy]
    assert firsts.count(model.eos) >= 3
    assert any(len([v for v in row.tokens if v != model.pad]) == model.max_len for row in model.greedy)
    pads = {cases.random_model(seed, 8, 6, 6, 3, 1.0, pad=None).pad for seed in range(6)}
    assert pads <= set(range(6)) and len(pads) > 1


@pytest.mark.parametrize("seed", range(8))
def test_tie_models_are_exact_and_show_every_wrong_order(parts, seed):
    """Each drawn tie model: its ties exact in every arithmetic (float32 and float64, any order of the sums),
    and every wrong tie order of the oracle returns another answer in some row of some model."""
    cases, oracle = parts["cases"], parts["oracle"]
    shown = set()
    for model in cases.tie_models(seed):
        for b in range(model.start.shape[0]):
            start, trans = model.start[b].double().tolist(), model.trans[b].double().tolist()
            assert oracle.robust_beam(start, trans, model.eos, model.max_len, model.pad, model.width, model.alpha)
            assert oracle.robust_greedy(start, trans, model.eos, model.max_len, model.pad)
        truth = [r.tokens for r in model.beam]
        for name, rows in zip(oracle.BEAM_TIE_ORDERS, model.tie_orders("beam"), strict=True):
            if [r.tokens for r in rows] != truth:
                shown.add(name)
        assert sum(row.ties for row in model.beam) >= 1
    assert shown == set(oracle.BEAM_TIE_ORDERS)


def test_a_tie_that_rounding_breaks_is_not_exact(parts):
    """Two tokens of one parent with the same logit tie in every arithmetic; a sum of three non-zero
    log-probabilities (-ln 2 - ln 3 - ln 3) depends on the order of its additions, so no tie through it is
    called exact, and no drawn tie model holds one."""
    oracle, gap = parts["oracle"], parts["cases"].GAP
    start = [0.0, 0.0, -gap, -gap, -gap]
    trans = [[0.0, 0.0, 0.0, -gap, -gap], [-gap, 0.0, 0.0, -gap, -2 * gap], [0.0] + [-gap] * 4, [0.0] * 5, [0.0] * 5]
    assert oracle.tie_is_exact(start, trans, (0, 1), (0, 2), 0.0)
    assert not oracle.tie_is_exact(start, trans, (0, 0, 0), (0, 0, 0), 0.0)
    assert not oracle.tie_is_exact(start, trans, (0, 1), (1, 1), 0.0)  # -ln 2 - ln 3 against -2 ln 2


def test_the_witnesses_separate_every_mistake(parts):
    """On the witness models every known decoding mistake returns its own answer, none the right one: a
    name confirmed there is that mistake's."""
    cases = parts["cases"]

    def key(rows):
        return str([(row.tokens, round(row.score, 9)) for row in rows])

    for model, truth, found in (
        (cases.beam_witness(), cases.beam_witness().beam, cases.beam_witness().beam_mistakes()),
        (cases.greedy_witness(), cases.greedy_witness().greedy, cases.greedy_witness().greedy_mistakes()),
    ):
        answers = [key(rows) for rows in found.values()]
        assert key(truth) not in answers
        assert len(set(answers)) == len(answers), model.labels[0]


def test_ties_are_exercised(parts):
    model = parts["cases"].tied()
    assert sum(row.ties for row in model.beam) >= 4 and sum(row.ties for row in model.greedy) >= 1


def test_greedy_misses_the_best_sequence(parts):
    """The constructed case: greedy's sequence is less probable than beam search's, in every row."""
    model = parts["cases"].greedy_misses()
    for greedy, beam in zip(model.greedy, model.beam, strict=True):
        assert greedy.tokens != beam.tokens and beam.score > greedy.score + 0.05


@pytest.mark.parametrize("seed", range(4))
def test_log_prob_cases_break_their_mistakes(parts, seed):
    """Long: the linear product is -inf; large: the naive softmax is NaN, the unshifted log-sum-exp -inf in
    every row, log(softmax) -inf only where a real token is 1000 behind."""
    cases, oracle = parts["cases"], parts["oracle"]
    long, large = cases.long(seed), cases.large(seed)
    assert torch.isinf(oracle.log_prob(long.logits, long.tokens, long.mask, "linear_space_product")).all()
    assert torch.isfinite(long.exact).all()
    assert torch.isnan(oracle.log_prob(large.logits, large.tokens, large.mask, "softmax_overflow")).all()
    assert torch.isinf(oracle.log_prob(large.logits, large.tokens, large.mask, "logsumexp_unshifted")).all()
    log_of_softmax = oracle.log_prob(large.logits, large.tokens, large.mask, "log_of_softmax")
    assert torch.isinf(log_of_softmax).any() and torch.isfinite(log_of_softmax).any()
    garbage = cases.garbage(seed)
    assert not bool(garbage.mask.all()) and torch.isfinite(garbage.exact).all()


def test_generated_calls_are_legal_and_their_corners_clear_the_margin(parts):
    """specs: the good calls pass their own specs (judge.checks.arguments checks), and every decoder corner clears
    MARGIN, so the oracle's answer is the only right one."""
    specs, cases = suites_module(resolve("42"), "hidden.specs"), parts["cases"]
    from judge.checks.arguments import bad_inputs, legal_inputs

    for seed in range(5):
        rng = random.Random(seed)
        for beam in (False, True):
            good, variants = specs.decoder_calls(rng, beam, random.Random(seed))
            assert variants and all(
                r.margin >= cases.MARGIN for v in variants for r in specs.answers(dict(v.kwargs), beam)
            )
            arguments = specs.BEAM_ARGUMENTS if beam else specs.GREEDY_ARGUMENTS
            kinds = {(v.argument, v.kind) for v in bad_inputs(good, arguments, rng)}
            assert ("eos_id", "not_an_int") in kinds and ("transition_logits", "dtype_mismatch") in kinds
        for padded in (False, True):
            good = specs.log_prob_call(rng, padded=padded)
            legal_inputs(good, specs.LOG_PROB_ARGUMENTS, rng)
            bad_inputs(good, specs.LOG_PROB_ARGUMENTS, rng)


def _write() -> None:
    _, found = _modules()
    values = frozen_values(found)
    path = resolve("42").public_dir / "frozen.py"
    here = (
        Path(__file__).resolve().parents[2] / "exercises" / "042-sequence-decoding" / "tests" / "public" / "frozen.py"
    )
    if path.resolve() != here:  # the judge imported from another checkout (an editable install elsewhere)
        raise SystemExit(
            f"refusing to write {path}: this file belongs to {here}; run with PYTHONPATH={here.parents[4]}"
        )
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
