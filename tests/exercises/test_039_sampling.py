"""Exercise 39's own parts: the float64 oracle, the frozen cases, the public literals, the catalogue.

The oracle (judge side) and the reference solution (learner side) are written independently;
agreeing on generated inputs is evidence that both follow the statement.
Run this file as a script with ``--write`` to regenerate the generated part of
``tests/hidden/real_logits.py`` (the real model's logits) from ``judge.exercises.models``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from judge.browser.learner import InProcessLearner
from judge.engine.process import CallOptions
from judge.engine.runner import judge_file
from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module
from judge.learner.code import ExtremeUniforms
from judge.verdicts import Verdict


@pytest.fixture(scope="module")
def tests_package(exercise39):
    load_suite(exercise39, "hidden")
    load_suite(exercise39, "public")
    load_suite(exercise39, "tiny")
    where = {
        "oracle": "hidden",
        "cases": "hidden",
        "hidden": "hidden",
        "generated": "hidden",
        "specs": "hidden",
        "naming": "hidden",
        "public": "public",
        "tiny": "public",
    }
    return {name: suites_module(exercise39, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise39):
    return import_solution(exercise39.reference_path, "reference_039")


row_params = st.builds(
    lambda t, k, p, m: (t, k, p, m),
    st.sampled_from([0.0, 0.3, 0.7, 1.0, 1.5, 3.0]),
    st.integers(0, 12),
    st.sampled_from([1.0, 0.95, 0.8, 0.5, 0.2]),
    st.sampled_from([0.0, 0.05, 0.2, 0.5]),
)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    vocab=st.integers(1, 12),
    batch=st.integers(1, 4),
    dtype=st.sampled_from([torch.float32, torch.float64]),
)
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
    supports = {
        name: oracle.mistaken(batch.logits, batch.params, name)[row] > 0
        for name in ("filters_reordered", "min_p_first")
    }
    exact = batch.exact.probs[row] > 0
    assert not torch.equal(supports["filters_reordered"], exact)
    assert not torch.equal(supports["min_p_first"], exact)
    assert not torch.equal(supports["filters_reordered"], supports["min_p_first"])


def test_public_literals_match_the_oracle(tests_package):
    oracle, public = tests_package["oracle"], tests_package["public"]
    logits = torch.tensor([public.LOGITS] * 5)
    params = [
        oracle.RowParams(1.0),
        oracle.RowParams(0.5),
        oracle.RowParams(top_k=2),
        oracle.RowParams(top_p=0.8),
        oracle.RowParams(min_p=0.3),
    ]
    expected = oracle.target(logits, params).probs
    literals = [
        [0.579259, 0.213097, 0.129250, 0.078394],
        [0.830953, 0.112457, 0.041371, 0.015219],
        [0.731059, 0.268941, 0.0, 0.0],
        [0.628532, 0.231224, 0.140244, 0.0],
        [0.731059, 0.268941, 0.0, 0.0],
    ]
    torch.testing.assert_close(torch.tensor(literals, dtype=torch.float64), expected, rtol=0, atol=1e-6)


def test_tiny_variant_literals_match_the_oracle_and_separate_every_mistake(tests_package):
    oracle, tiny = tests_package["oracle"], tests_package["tiny"]
    logits = torch.tensor(tiny.LOGITS, dtype=torch.float32)
    params = [
        oracle.RowParams(*values)
        for values in zip(*(tiny.PARAMS[k] for k in ("temperature", "top_k", "top_p", "min_p")))
    ]
    exact = oracle.target(logits, params).probs  # raises AmbiguousCase for a row without margins
    torch.testing.assert_close(tiny._expected(), exact, rtol=0, atol=1e-9)
    # Every known mistake is told apart by the frozen rows, or by the rule an edge case checks (not both).
    assert set(tiny.MISTAKEN) | set(tiny.BY_RULE) == set(oracle.MISTAKES) - set(oracle.EVIDENCE_ONLY)
    assert not set(tiny.MISTAKEN) & set(tiny.BY_RULE)
    assert set(tiny.MISTAKEN) <= set(oracle.DISTRIBUTION_MISTAKES)
    outputs = {}
    for name, frozen in tiny.MISTAKEN.items():
        model = oracle.mistaken(logits, params, name)
        torch.testing.assert_close(torch.tensor(frozen, dtype=torch.float64), model, rtol=0, atol=1e-9)
        assert (model - exact).abs().max() > 0.1, f"{name} barely changes the tiny rows"
        outputs[name] = model
    names = sorted(outputs)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            assert (outputs[first] - outputs[second]).abs().max() > 0.05, f"{first} and {second} look alike"


# Wrong solution (a file or a patch) -> the oracle mistake that must model it exactly (used for diagnoses).
MODELLED = {
    "temperature_multiplied": "temperature_multiplied",
    "temperature_after_softmax": "temperature_ignored",
    "temperature_after_filters": "temperature_after_filters",
    "top_k_plus_one": "top_k_plus_one",
    "top_k_drops_ties": "top_k_drops_ties",
    "top_k_one_ignored": "top_k_one_ignored",
    "top_k_max_for_all_rows": "top_k_max_for_all_rows",
    "top_p_drops_crossing": "top_p_drops_crossing",
    "top_p_one_extra": "top_p_one_extra",
    "top_p_unsorted": "top_p_unsorted",
    "top_p_mask_unsorted": "top_p_mask_unsorted",
    "min_p_absolute": "min_p_absolute",
    "min_p_softmax_max": "min_p_softmax_max",
    "no_filtering": "no_filtering",
    "row0_parameters": "row0_params",
    "filters_reordered": "filters_reordered",
    "min_p_first": "min_p_first",
    "no_greedy": "greedy_ties_split",
}


def _wrong_module(exercise, name: str):
    """A wrong solution as a module: its file, or its patch applied to the reference."""
    from judge.exercises.patches import expand

    folder = exercise.solutions_root / "wrong"
    path = folder / f"{name}.py"
    if not path.exists():
        path = Path(tempfile.mkdtemp()) / f"{name}.py"
        path.write_text(expand(folder / f"{name}.patch", exercise.reference_path), encoding="utf-8")
    return import_solution(path, f"wrong_039_{name}")


@pytest.mark.parametrize("wrong, mistake", sorted(MODELLED.items()))
def test_the_oracle_models_each_wrong_solution(tests_package, exercise39, wrong, mistake):
    cases, oracle, generated = tests_package["cases"], tests_package["oracle"], tests_package["generated"]
    module = _wrong_module(exercise39, wrong)
    batches = [cases.mixed_rows(), cases.scalar_rows(), cases.float64_rows(), cases.top_k_edge_rows()]
    batches += [call for seed in range(4) for call in generated.calls(seed)]
    for batch in batches:
        got = module.sampling_probs(batch.logits, **batch.arguments()).to(torch.float64)
        modelled = oracle.mistaken(batch.logits, batch.params, mistake)
        # A mistake may empty a row (0/0 = NaN in the learner's code); the oracle keeps such rows as they were.
        # A generated row may put the mistake's own cut within rounding (a tiny temperature multiplied
        # in makes every token tie): those rows are left out, as the margins leave them out of diagnoses.
        keep = ~torch.isnan(got).any(dim=1)
        for row in range(batch.logits.shape[0]):
            try:
                oracle.mistaken(batch.logits[row : row + 1], [batch.params[row]], mistake, margin=oracle.STATED_MARGIN)
            except oracle.AmbiguousCase:
                keep[row] = False
        torch.testing.assert_close(got[keep], modelled[keep], rtol=1e-4, atol=1e-6)


# --- the generated rows (tests/hidden/generated.py) and the statement's "near a threshold" margin ----


@pytest.mark.parametrize("seed", range(30))
def test_generated_rows_keep_the_stated_margin_and_some_sit_just_outside_it(tests_package, reference, seed):
    oracle, generated = tests_package["oracle"], tests_package["generated"]
    nearest = []
    for call in generated.calls(seed):
        for row, family in enumerate(call.families):
            margin = oracle.smallest_margin(call.logits[row], call.params[row])
            assert margin >= oracle.STATED_MARGIN, (family, margin)
            if family == "near":
                nearest.append(margin)
                assert margin < generated.NEAR_LIMIT
            if family.startswith("order:"):
                mistake = family.partition(":")[2]
                wrong = oracle.mistaken(call.logits[row : row + 1], [call.params[row]], mistake)[0]
                assert not torch.equal(wrong > 0, call.exact.probs[row] > 0), (seed, family)
            unfiltered = call.params[row] == oracle.RowParams(temperature=call.params[row].temperature)
            if family == "tail" and unfiltered:  # a running total in the logits' dtype reaches 1 before the tail
                ordered = torch.softmax(call.logits[row].double(), 0).to(call.logits.dtype).sort(descending=True)
                assert float(ordered.values.cumsum(0)[-2]) >= 1.0
                assert float(call.exact.probs[row].min()) >= generated.FLOOR[call.logits.dtype]
            if family == "tiny":
                tiny = call.exact.probs[row][call.exact.probs[row] > 0].min()
                assert 1e-27 < float(tiny) < 1e-22 and bool((call.exact.probs[row] == 0).any())
        got = reference.sampling_probs(call.logits, **call.arguments()).double()
        rtol, atol = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}[call.logits.dtype]
        torch.testing.assert_close(got, call.exact.probs, rtol=rtol, atol=atol)
        decided = (call.exact.probs == 0) | (call.exact.probs >= generated.FLOOR[call.logits.dtype])
        assert torch.equal((got == 0)[decided], (call.exact.probs == 0)[decided])
    assert len(nearest) >= 2 and min(nearest) < 1.6e-3
    assert "tail" in generated.calls(seed)[2].families  # the call of Python ints: every filter off


def test_a_decision_inside_the_stated_margin_is_never_a_case(tests_package):
    """The oracle refuses a row whose closest decision sits inside the statement's 1e-3, whichever filter
    makes it (the generated rows are drawn again then), and accepts one just outside."""
    oracle = tests_package["oracle"]
    logits = torch.tensor([[2.0, 1.0, 0.5, 0.0]], dtype=torch.float64)
    probs = torch.softmax(logits[0], 0)
    for params, decision in (
        (
            oracle.RowParams(top_p=float(probs[0] + probs[1]) * (1 + 5e-4)),
            "top_p=.*: the running totals around the cut: a relative margin of 0.0005",
        ),
        (
            oracle.RowParams(min_p=float(probs[2] / probs[0]) * (1 - 5e-4)),
            "min_p=.*: the probabilities around the threshold: a relative margin of 0.0005",
        ),
    ):
        with pytest.raises(oracle.AmbiguousCase, match=decision):
            oracle.target(logits, [params], margin=oracle.STATED_MARGIN)
    close = torch.tensor([[2.0, 1.0, 1.0 - 4e-4, 0.0]], dtype=torch.float64)
    with pytest.raises(oracle.AmbiguousCase, match="top_k=2: the k-th and next probabilities: a relative margin of"):
        oracle.target(close, [oracle.RowParams(top_k=2)], margin=oracle.STATED_MARGIN)
    outside = oracle.RowParams(top_p=float(probs[0] + probs[1]) * (1 + 1.2e-3))
    oracle.target(logits, [outside], margin=oracle.STATED_MARGIN)
    assert 1e-3 < oracle.smallest_margin(logits[0], outside) < 1.3e-3


class _Recorder(InProcessLearner):
    """The in-process learner with the server's extreme-uniform phase, recording B x V x num_samples."""

    sizes: list[int]

    def call(self, function, args, kwargs, *, timeout_s, options=CallOptions()):
        if function == "sample":
            logits = args[0] if args else kwargs["logits"]
            n = args[1] if len(args) > 1 else kwargs.get("num_samples", 1)
            if isinstance(logits, torch.Tensor) and logits.dim() == 2 and isinstance(n, int):
                self.sizes.append(logits.shape[0] * logits.shape[1] * n)
        if options.extreme_uniforms is None:
            return super().call(function, args, kwargs, timeout_s=timeout_s, options=options)
        with ExtremeUniforms(torch, options.extreme_uniforms):
            return super().call(
                function, args, kwargs, timeout_s=timeout_s, options=CallOptions(global_seed=options.global_seed)
            )


def test_no_call_asks_for_more_than_the_statement_promises(exercise39):
    """The statement: "No call asks for more than 7e7 rows x vocabulary x draws", so that an algorithm
    drawing one noise value per token and draw (Gumbel-max, an exponential race) fits the time limit."""
    learner = _Recorder(exercise39.reference_path.read_text())
    learner.sizes = []
    report = judge_file(exercise39, exercise39.reference_path, seed=1, suites=("public", "hidden"), process=learner)
    assert report.verdict is Verdict.AC, report.message
    assert len(learner.sizes) > 50 and max(learner.sizes) <= 7e7, max(learner.sizes)


# --- the real model's logits (tests/hidden/real_logits.py) -----------------------------------------


def _live_rows() -> dict[int, torch.Tensor]:
    """Position -> the live model's float32 logits, for the positions real_logits.py keeps."""
    from judge.exercises import models  # loads transformers: only here, never in a suite

    real = _real_logits_module()
    live = models.passage_logits(real.MODEL)
    return {position: live[position] for position in real.POSITIONS}


def _real_logits_module():
    exercise = resolve("39")
    load_suite(exercise, "hidden")
    return suites_module(exercise, "hidden.real_logits")


def _weights_sha256() -> str:
    from judge.exercises import models

    return hashlib.sha256((models.TINY_QWEN3_DIR / "model.safetensors").read_bytes()).hexdigest()


def test_frozen_real_logits_equal_the_live_model_within_the_cross_machine_tolerance(tests_package):
    """The frozen rows are the live model's logits rounded to 1e-4: |frozen - live| <= 5e-5 here
    (the rounding) plus float32's spacing (under 2e-6 for |logit| < 32). On another machine the
    live logits move by ~1e-5 more (judge/exercises/models.py), so the bound is ~6e-5, inside
    LOGIT_TOLERANCE (1e-4); and the cases keep their decisions under any change of that size (the
    next test)."""
    from judge.exercises import models

    real = _real_logits_module()
    weights = _weights_sha256()
    assert weights == real.WEIGHTS_SHA256, "the model was retrained: rerun this file with --write"
    frozen, live = real.rows(), _live_rows()
    for position in real.POSITIONS:
        assert frozen[position].dtype == torch.float32 and frozen[position].shape == live[position].shape
        error = (frozen[position].double() - live[position].double()).abs().max().item()
        assert error <= models.LOGIT_TOLERANCE, (position, error)
    # The stored integers are round(logit * SCALE): every value is exact in decimal.
    assert all(isinstance(v, int) for row in real.LOGITS.values() for v in row)


def _kept(oracle, logits: torch.Tensor, params) -> torch.Tensor:
    return oracle.target(logits, params, check_margins=False).probs > 0


def test_real_rows_keep_their_tokens_when_the_logits_move_by_the_tolerance(tests_package):
    """Each real row's kept set stays the same when every logit moves by up to LOGIT_TOLERANCE:
    random moves, and the two that push hardest on every cut (the kept tokens up and the dropped
    ones down, and the reverse). The bound behind it: a move of at most d per logit changes any
    ratio of two probabilities by at most exp(2 d / T), 2.9e-4 relative at T = 0.7, and every cut
    keeps the oracle's 2e-3 relative margin."""
    from judge.exercises.models import LOGIT_TOLERANCE

    cases, oracle = tests_package["cases"], tests_package["oracle"]
    batch = cases.real_rows()
    kept = batch.exact.probs > 0
    assert min(p.temperature for p in batch.params) >= 0.7
    assert 2 * LOGIT_TOLERANCE / 0.7 < oracle.MARGIN / 2
    rng = random.Random(39_077)
    for row in range(batch.logits.shape[0]):
        logits, params = batch.logits[row : row + 1].double(), batch.params[row : row + 1]
        sign = torch.where(kept[row], 1.0, -1.0).double()
        moves = [sign, -sign] + [
            torch.tensor([rng.uniform(-1, 1) for _ in range(logits.shape[1])], dtype=torch.float64) for _ in range(4)
        ]
        moves += [torch.tensor([rng.choice((-1.0, 1.0)) for _ in range(logits.shape[1])]) for _ in range(4)]
        for move in moves:
            moved = logits + LOGIT_TOLERANCE * move
            assert torch.equal(_kept(oracle, moved, params)[0], kept[row]), (batch.labels[row], move[:5])
            # The rounded float32 copy a learner would get keeps them too, margins and all.
            oracle.target(moved.float(), params)


def _tokens_for_90_percent(logits: torch.Tensor, temperature: float = 1.0) -> int:
    probs = torch.softmax(logits.double() / temperature, dim=-1).sort(descending=True).values
    return int((probs.cumsum(-1) < 0.9).sum()) + 1


def test_real_rows_have_a_long_tail_a_peak_and_cuts_inside_the_tail(tests_package):
    cases, oracle = tests_package["cases"], tests_package["oracle"]
    real = _real_logits_module()
    frozen = real.rows()
    flat, middle, peaked = (frozen[p] for p in (27, 59, 105))
    assert _tokens_for_90_percent(flat) >= 400  # a real long tail: hundreds of tokens for 90 % of the mass
    assert 20 <= _tokens_for_90_percent(middle) <= 100
    assert torch.softmax(peaked.double(), -1).max() >= 0.95 and _tokens_for_90_percent(peaked) == 1
    batch = cases.real_rows()
    assert batch.logits.shape == (8, 2000) and batch.logits.dtype == torch.float32
    supports = (batch.exact.probs > 0).sum(dim=1).tolist()
    assert supports[:2] == [2000, 2000]  # the whole tails
    assert all(1 < s < 2000 for s in supports[2:]), supports  # every filter cuts, and leaves a row to fit
    cutting = []
    for row, params in enumerate(batch.params):
        # The filters whose removal changes the row's kept tokens.
        cutting.append(
            [
                name
                for name, off in (("top_k", 0), ("top_p", 1.0), ("min_p", 0.0))
                if getattr(params, name) != off
                and not torch.equal(
                    _kept(oracle, batch.logits[row : row + 1], [dataclasses.replace(params, **{name: off})])[0],
                    batch.exact.probs[row] > 0,
                )
            ]
        )
    # A row with one filter is cut by it; in the combined row (as a chat model is run) top_k and top_p
    # both cut, and min_p = 0.05 finds nothing left below its threshold: real logits rarely let all
    # three act at once (the synthetic mixed row 4 does, for the order of the filters).
    assert cutting == [[], [], ["top_p"], ["top_p"], ["top_p"], ["min_p"], ["top_k"], ["top_k", "top_p"]], cutting


def test_a_tensor_rounded_before_its_check_is_not_named_one_unchecked_row(tests_package, reference):
    """A per-row tensor cast to float32 before the range checks accepts -5e-324 or 1 + 2**-52 in every
    row, not only in one: the generated refusals must fail it at the all-rows call, under the
    parameter's own name, before the one-row call would name "one row unchecked"."""
    specs = tests_package["specs"]

    def rounded(logits, **kwargs):
        kwargs = {
            k: v.float() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for k, v in kwargs.items()
        }
        return reference.sampling_probs(logits, **kwargs)

    names, one_row = [], specs.MISTAKES["bad_row_accepted"]
    for seed in range(40):
        rng = random.Random(seed)
        good = specs.good_call(rng, draws=False, greedy=False)
        for call in specs.refusal_calls(rounded, "sampling_probs", good, specs.PROBS_ARGUMENTS, rng):
            try:
                call.function(*call.args, **call.kwargs)
            except ValueError:
                continue
            names.append((call.call, call.diagnosis))
            break
    assert names, "no seed gave the rounding sampler a value that float32 rounds into range"
    assert all(name is not None and name != one_row for _, name in names), names
    assert any("every row" in call for call, _ in names), names


def test_a_tensor_never_checked_is_named_by_its_parameter_not_one_row(tests_package, reference):
    """A sampler that checks Python numbers but uses per-row tensors unchecked accepts a bad value in
    every row: the hand table must reach an every-row tensor before a one-row one, so the name is the
    parameter's own refusal, not "one row unchecked"."""
    hidden, logits = tests_package["hidden"], tests_package["cases"].many_rows().logits[:5]

    def tensors_unchecked(logits, **kwargs):  # shapes checked, values not
        if any(isinstance(v, torch.Tensor) and tuple(v.shape) != (logits.shape[0],) for v in kwargs.values()):
            raise ValueError("a parameter tensor must be 1-D of length B")
        return reference.sampling_probs(logits, **{k: v for k, v in kwargs.items() if not isinstance(v, torch.Tensor)})

    for kwargs, description, _, mistake in hidden._bad_parameters():
        try:
            tensors_unchecked(logits, **kwargs)
        except ValueError:
            continue
        assert "every row" in description, description
        assert mistake is not None and mistake != hidden.BAD_ROW, (description, mistake)
        return
    raise AssertionError("the sampler that leaves tensors unchecked refused every bad call")


def _write() -> None:
    """Regenerate the part of real_logits.py below its marker from the live model."""
    exercise = resolve("39")
    path = exercise.hidden_dir / "real_logits.py"
    here = Path(__file__).resolve().parents[2] / "exercises" / "039-sampling" / "tests" / "hidden" / "real_logits.py"
    if path.resolve() != here:  # the judge imported from another checkout (an editable install elsewhere)
        raise SystemExit(
            f"refusing to write {path}: this file belongs to {here}; run with PYTHONPATH={here.parents[4]}"
        )
    text = path.read_text(encoding="utf-8")
    marker = "# --- generated by tests/exercises/test_039_sampling.py --write ---"
    head = text[: text.index(marker)]
    namespace: dict = {}
    exec(compile(head, str(path), "exec"), namespace)  # POSITIONS and SCALE, whatever is below the marker
    from judge.exercises import models

    live = models.passage_logits(namespace["MODEL"])
    body = [
        marker,
        "",
        "# SHA-256 of the models/tiny-qwen3/model.safetensors these logits come from.",
        f"WEIGHTS_SHA256 = {json.dumps(_weights_sha256())}",
        "",
        "LOGITS = {",
    ]
    for position in namespace["POSITIONS"]:
        values = [round(v * namespace["SCALE"]) for v in live[position].double().tolist()]
        body.append(f"    {position}: (")
        body += textwrap.wrap(
            ", ".join(map(str, values)) + ",",
            width=110,
            initial_indent=" " * 8,
            subsequent_indent=" " * 8,
            break_on_hyphens=False,
        )
        body.append("    ),")
    body.append("}")
    path.write_text(head + "\n".join(body) + "\n", encoding="utf-8")


if __name__ == "__main__" and "--write" in sys.argv:
    _write()
