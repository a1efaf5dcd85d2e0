"""Bad inputs and legal corners generated from a contract (judge/checks/arguments): every bad call has exactly
one thing wrong and every legal one nothing, by a validator written here apart from the module's own;
the instances follow the seed; every variant the issue lists is made; every call can travel.

The toy contract below has every kind of argument; ``reference_flaws`` says what is wrong with a call
as a statement would, in plain code, without judge.checks.arguments.
"""

from __future__ import annotations

import io
import math
import random
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.checks.arguments import (
    HALF_PRECISION,
    INTEGER_AND_BOOL,
    MAX_VARIANTS,
    NOT_FINITE,
    Choice,
    Count,
    Flaw,
    Logits,
    Mask,
    Number,
    PerRow,
    Probabilities,
    TokenIds,
    Uniforms,
    Values,
    bad_inputs,
    contract_refusals,
    expect_contract_accepts,
    expect_contract_refusals,
    legal_inputs,
)
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed
from judge.checks.base import CheckMisuse
from judge.checks.testing import Context, Submission
from judge.learner import protocol, wire
from judge.learner.code import exception_classes
from judge.learner.interface import CallOptions, CallResult, LearnerRaised

F = Flaw
STRUCTURE = {F.NOT_A_TENSOR, F.RANK, F.SHAPE, F.DTYPE}

TOY = {
    "probs": Probabilities(
        dims=("B", "V"),
        wrong_dtypes=INTEGER_AND_BOOL + HALF_PRECISION,
        refuse=STRUCTURE | NOT_FINITE | {F.BELOW, F.ZERO_ROW},
    ),
    "logits": Logits(dims=("B", "V"), refuse=STRUCTURE | {F.NAN, F.POSINF, F.NO_FINITE_ROW}),
    "u": Uniforms(dims=("B", "n"), refuse=STRUCTURE | NOT_FINITE | {F.BELOW, F.ABOVE}),
    "event": Mask(dims=("B", "V"), refuse=STRUCTURE),
    "ids": TokenIds(dims=("B", "k"), vocab="V", refuse=STRUCTURE | {F.BELOW, F.ABOVE}),
    "weights": Probabilities(dims=("B", "V"), normalized=True, refuse={F.NAN, F.BELOW, F.NOT_NORMALIZED}),
    "temperature": PerRow(
        number=Number(low=0.0),
        refuse={F.NAN, F.POSINF, F.BELOW, F.RANK, F.SHAPE, F.NOT_A_TENSOR, F.DTYPE, F.NOT_A_NUMBER},
    ),
    "top_p": PerRow(number=Number(low=0.0, high=1.0, low_open=True), refuse={F.NAN, F.BELOW, F.ABOVE, F.RANK, F.SHAPE}),
    "num_samples": Count(minimum=1, refuse={F.BELOW, F.NOT_AN_INT}),
    "method": Choice(options=("inverse_cdf", "gumbel"), refuse={F.UNKNOWN_CHOICE}),
    "scale": Number(low=0.0, low_open=True, refuse=NOT_FINITE | {F.BELOW, F.NOT_A_NUMBER}),
    "x": Values(dims=("m",), at_least={"m": 2}, same_dtype_as="y", refuse={F.SHAPE, F.DTYPE_MISMATCH, F.NAN}),
    "y": Values(dims=("m",), refuse={F.RANK, F.DTYPE, F.POSINF}),
}
FLOATS = (torch.float32, torch.float64)


# --- the reference validator: what a statement of TOY says, written plainly ----------------------------


def _structure(value, rank, dtypes, lengths):
    """NOT_A_TENSOR, RANK, DTYPE, SHAPE of a tensor argument; ``lengths``: axis -> (required or None, minimum)."""
    if not isinstance(value, torch.Tensor):
        return {F.NOT_A_TENSOR}, None
    if value.dim() != rank:
        return {F.RANK}, None
    found = set() if value.dtype in dtypes else {F.DTYPE}
    for axis, (required, least) in lengths.items():
        if (required is not None and value.shape[axis] != required) or value.shape[axis] < least:
            found.add(F.SHAPE)
    return found, value.to(torch.float64)


def _number_flaws(x, low, high, low_open=False, high_open=False):
    if math.isnan(x):
        return {F.NAN}
    if x == math.inf:
        return {F.POSINF}
    if x == -math.inf:
        return {F.NEGINF}
    if low is not None and (x < low or (low_open and x == low)):
        return {F.BELOW}
    if high is not None and (x > high or (high_open and x == high)):
        return {F.ABOVE}
    return set()


def _per_row(value, b, low, high, low_open=False):
    if isinstance(value, list):
        return {F.NOT_A_TENSOR}
    if isinstance(value, torch.Tensor):
        if value.dim() != 1:
            return {F.RANK}
        found = set() if value.dtype in FLOATS else {F.DTYPE}
        if value.shape[0] != b:
            found.add(F.SHAPE)
        for x in value.to(torch.float64).tolist():
            found |= _number_flaws(x, low, high, low_open)
        return found
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return {F.NOT_A_NUMBER}
    return _number_flaws(float(value), low, high, low_open)


def reference_flaws(call, good):
    """``{(argument, flaw)}`` for everything wrong with ``call``, lengths and dtypes compared with ``good``'s."""
    b, v = good["probs"].shape
    m = good["y"].shape[0]
    found = set()

    def add(name, flaws):
        found.update((name, f) for f in flaws)

    flaws, x = _structure(call["probs"], 2, FLOATS, {0: (b, 0), 1: (v, 0)})
    if x is not None:
        nan, posinf, neginf = x.isnan(), x == math.inf, x == -math.inf
        negative = x.isfinite() & (x < 0)
        flaws |= {
            f for f, mask in ((F.NAN, nan), (F.POSINF, posinf), (F.NEGINF, neginf), (F.BELOW, negative)) if mask.any()
        }
        valid_rows = ~(nan | posinf | neginf | negative).any(dim=1)
        if (valid_rows & (x.sum(dim=1) <= 0)).any():
            flaws.add(F.ZERO_ROW)
    add("probs", flaws)

    flaws, x = _structure(call["logits"], 2, FLOATS, {0: (b, 0), 1: (v, 0)})
    if x is not None:
        nan, posinf = x.isnan(), x == math.inf
        flaws |= {f for f, mask in ((F.NAN, nan), (F.POSINF, posinf)) if mask.any()}
        if (~(nan | posinf).any(dim=1) & ~x.isfinite().any(dim=1)).any():
            flaws.add(F.NO_FINITE_ROW)
    add("logits", flaws)

    flaws, x = _structure(call["u"], 2, FLOATS, {0: (b, 0), 1: (None, 0)})
    if x is not None:
        for value in x.flatten().tolist():
            flaws |= _number_flaws(value, 0.0, 1.0, high_open=True)
    add("u", flaws)

    add("event", _structure(call["event"], 2, (torch.bool,), {0: (b, 0), 1: (v, 0)})[0])

    flaws, x = _structure(call["ids"], 2, (torch.int64,), {0: (b, 0), 1: (None, 0)})
    if x is not None:
        flaws |= {F.BELOW} if (x < 0).any() else set()
        flaws |= {F.ABOVE} if (x >= v).any() else set()
    add("ids", flaws)

    flaws, x = _structure(call["weights"], 2, FLOATS, {0: (b, 0), 1: (v, 0)})
    if x is not None:
        bad = x.isnan() | x.isinf() | (x < 0)
        flaws |= {F.NAN} if x.isnan().any() else set()
        flaws |= {F.BELOW} if (x.isfinite() & (x < 0)).any() else set()
        flaws |= {F.POSINF} if (x == math.inf).any() else set()
        flaws |= {F.NEGINF} if (x == -math.inf).any() else set()
        if (~bad.any(dim=1) & ((x.sum(dim=1) - 1).abs() > 1e-6)).any():
            flaws.add(F.NOT_NORMALIZED)
    add("weights", flaws)

    add("temperature", _per_row(call["temperature"], b, 0.0, None))
    add("top_p", _per_row(call["top_p"], b, 0.0, 1.0, low_open=True))

    n = call["num_samples"]
    add(
        "num_samples",
        {F.NOT_AN_INT} if isinstance(n, bool) or not isinstance(n, int) else {F.BELOW} if n < 1 else set(),
    )
    add("method", set() if call["method"] in ("inverse_cdf", "gumbel") else {F.UNKNOWN_CHOICE})
    scale = call["scale"]
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        add("scale", {F.NOT_A_NUMBER})
    else:
        add("scale", _number_flaws(float(scale), 0.0, None, low_open=True))

    for name, least in (("x", 2), ("y", 0)):
        flaws, x = _structure(call[name], 1, FLOATS, {0: (m, least)})
        if x is not None:
            for value in x.tolist():
                flaws |= _number_flaws(value, None, None)
        add(name, flaws)
    y_allowed = isinstance(call["y"], torch.Tensor) and call["y"].dtype in FLOATS
    x_allowed = isinstance(call["x"], torch.Tensor) and call["x"].dim() == 1 and call["x"].dtype in FLOATS
    if x_allowed and y_allowed and call["x"].dtype != call["y"].dtype:  # x must have y's dtype
        add("x", {F.DTYPE_MISMATCH})
    return found


def toy_call(seed: int, b: int, v: int, dtype: torch.dtype) -> dict:
    """A good call of TOY: ``b`` rows over ``v`` tokens in ``dtype``, exact zeros, -inf logits, u = 0 among them."""
    rng = random.Random(seed)
    probs = [[rng.choice((0.0, 0.25, 1.0, 3.0)) for _ in range(v)] for _ in range(b)]
    for row in probs:
        row[rng.randrange(v)] = rng.choice((0.5, 2.0))
    logits = [[rng.choice((-math.inf, -1.5, 0.0, 2.0)) for _ in range(v)] for _ in range(b)]
    for row in logits:
        row[rng.randrange(v)] = 1.0
    weights = torch.tensor([[rng.random() + 0.1 for _ in range(v)] for _ in range(b)], dtype=torch.float64)
    n, k, m = rng.randint(1, 5), rng.randint(1, 4), rng.randint(2, 5)
    return {
        "probs": torch.tensor(probs, dtype=dtype),
        "logits": torch.tensor(logits, dtype=dtype),
        "u": torch.tensor([[rng.choice((0.0, rng.random())) for _ in range(n)] for _ in range(b)], dtype=dtype),
        "event": torch.tensor([[rng.random() < 0.5 for _ in range(v)] for _ in range(b)]),
        "ids": torch.tensor([[rng.randrange(v) for _ in range(k)] for _ in range(b)]),
        "weights": (weights / weights.sum(dim=1, keepdim=True)).to(dtype),
        "temperature": rng.choice((0.7, 1, torch.tensor([rng.choice((0.0, 0.5, 2.0)) for _ in range(b)], dtype=dtype))),
        "top_p": rng.choice((1.0, 0.9, torch.tensor([rng.choice((0.25, 1.0)) for _ in range(b)], dtype=dtype))),
        "num_samples": rng.randint(1, 20),
        "method": rng.choice(("inverse_cdf", "gumbel")),
        "scale": rng.choice((0.5, 3, 1e-3)),
        "x": torch.tensor([rng.random() for _ in range(m)], dtype=dtype),
        "y": torch.tensor([rng.random() for _ in range(m)], dtype=dtype),
    }


CALLS = st.builds(
    toy_call,
    seed=st.integers(0, 2**32),
    b=st.integers(1, 4),
    v=st.integers(1, 6),
    dtype=st.sampled_from(FLOATS),
)


@settings(max_examples=60, deadline=None)
@given(good=CALLS, seed=st.integers(0, 2**32))
def test_every_bad_call_has_exactly_its_declared_flaw_in_its_argument(good, seed):
    assert reference_flaws(good, good) == set()
    variants = bad_inputs(good, TOY, random.Random(seed))
    assert variants and len(variants) <= MAX_VARIANTS
    for variant in variants:
        assert reference_flaws(variant.kwargs, good) == {(variant.argument, F(variant.kind))}, variant.description
        unchanged = [n for n in good if n != variant.argument]
        assert all(variant.kwargs[n] is good[n] for n in unchanged)


@settings(max_examples=60, deadline=None)
@given(good=CALLS, seed=st.integers(0, 2**32))
def test_every_legal_corner_is_allowed(good, seed):
    variants = legal_inputs(good, TOY, random.Random(seed))
    assert variants
    for variant in variants:
        corner = variant.kwargs
        sized = dict(good)
        if variant.kind == "size":  # the lengths the corner gives every argument that shares the dimension
            sized = corner
        assert reference_flaws(corner, sized) == set(), variant.description


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.nan_to_num(7.0), b.nan_to_num(7.0))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def _same_calls(first, second) -> bool:
    return len(first) == len(second) and all(
        f.description == s.description and all(_same(f.kwargs[n], s.kwargs[n]) for n in f.kwargs)
        for f, s in zip(first, second, strict=True)
    )


def test_one_seed_gives_the_same_calls_and_other_seeds_others():
    good = toy_call(5, 4, 6, torch.float32)
    for generate in (bad_inputs, legal_inputs):
        once, again = generate(good, TOY, random.Random(11)), generate(good, TOY, random.Random(11))
        assert _same_calls(once, again)
        others = [generate(good, TOY, random.Random(seed)) for seed in (12, 13, 14)]
        assert not any(_same_calls(once, other) for other in others)
        # Where the values go changes, what is wrong does not: the rules read the same under any seed.
        assert all([v.public for v in once] == [v.public for v in other] for other in others)


def test_nan_lands_anywhere_as_the_seed_says():
    good = toy_call(9, 4, 6, torch.float64)
    where = set()
    for seed in range(12):
        (variant,) = [v for v in bad_inputs(good, TOY, random.Random(seed)) if (v.argument, v.kind) == ("probs", "nan")]
        where.add(tuple(variant.kwargs["probs"].isnan().nonzero()[0].tolist()))
    assert len(where) >= 6  # of 24 entries, not one fixed place


def test_rules_quote_no_value():
    good = toy_call(3, 3, 5, torch.float64)
    for variant in bad_inputs(good, TOY, random.Random(1)) + legal_inputs(good, TOY, random.Random(1)):
        for text in (str(variant.public), variant.public.zh):
            assert not re.search(r"\d\.\d|e-\d|\[\d", text), text  # no float, no index


def _values(variants, name, kind):
    return [v.kwargs[name] for v in variants if v.argument == name and v.kind == kind]


def _changed(variant, good, name):
    """The entries of tensor ``name`` the variant changed (NaN-aware)."""
    new, old = variant.kwargs[name], good[name]
    differs = ~((new == old) | (new.isnan() & old.isnan()))
    return new[differs].tolist()


def test_the_bad_variants_the_issue_lists_are_made():
    good = toy_call(8, 3, 5, torch.float32)
    bad = bad_inputs(good, TOY, random.Random(2))
    kinds = {(v.argument, v.kind) for v in bad}
    u = {x for v in bad if v.argument == "u" and v.kind in ("below", "above") for x in _changed(v, good, "u")}
    assert {-1.401298464324817e-45, 1.0, 1.0000001192092896} <= u  # -tiny, exactly 1 for [0, 1), 1 + ulp
    probs = {x for v in bad if v.argument == "probs" and v.kind == "below" for x in _changed(v, good, "probs")}
    assert -1.401298464324817e-45 in probs and any(x < -0.1 for x in probs)
    assert {("probs", k) for k in ("nan", "posinf", "neginf", "zero_row", "not_a_tensor")} <= kinds
    dtypes = {v.kwargs["probs"].dtype for v in bad if v.argument == "probs" and v.kind == "dtype"}
    assert dtypes == {torch.int64, torch.int32, torch.uint8, torch.bool, torch.float16, torch.bfloat16}
    ranks = sorted(v.kwargs["probs"].dim() for v in bad if v.argument == "probs" and v.kind == "rank")
    assert ranks == [1, 3]
    lengths = {tuple(v.kwargs["probs"].shape) for v in bad if v.argument == "probs" and v.kind == "shape"}
    assert lengths == {(4, 5), (2, 5), (3, 6), (3, 4)}  # one more and one fewer along B and along V
    assert isinstance(_values(bad, "probs", "not_a_tensor")[0], list)
    assert ("logits", "neginf") not in kinds and ("logits", "no_finite_row") in kinds  # -inf allowed, a row of it not
    ids = {
        x
        for v in bad
        if v.argument == "ids"
        for x in (_changed(v, good, "ids") if v.kind in ("below", "above") else [])
    }
    assert -1 in ids and 5 in ids  # V = 5
    shapes = {tuple(t.shape) for t in _values(bad, "temperature", "rank") + _values(bad, "temperature", "shape")}
    assert {(3, 1), (), (4,), (2,), (1,)} <= shapes  # [B, 1], 0-d, B + 1, B - 1, [1]
    per_row = [t for t in _values(bad, "temperature", "nan") if isinstance(t, torch.Tensor)]
    assert len(per_row) == 1 and int(per_row[0].isnan().sum()) == 1  # one invalid value inside a per-row tensor
    numbers = [x for x in _values(bad, "top_p", "below") + _values(bad, "top_p", "above") if isinstance(x, float)]
    assert {0.0, -5e-324, 1.0000000000000002} <= set(numbers)  # (0, 1]: 0 itself, -tiny, 1 + ulp
    assert 0 in _values(bad, "num_samples", "below")
    assert any(isinstance(n, float) for n in _values(bad, "num_samples", "not_an_int"))
    assert "" in _values(bad, "method", "unknown_choice") and "unknown" in _values(bad, "method", "unknown_choice")
    assert None in _values(bad, "scale", "not_a_number") and 0.0 in _values(bad, "scale", "below")
    assert ("x", "dtype_mismatch") in kinds and ("x", "shape") in kinds


def test_the_legal_corners_the_issue_lists_are_made():
    good = toy_call(8, 3, 5, torch.float32)
    good["temperature"], good["top_p"] = 0.7, 0.9  # numbers: the per-row tensor form is then a corner
    ok = legal_inputs(good, TOY, random.Random(2))
    kinds = {(v.argument, v.kind) for v in ok}
    tops = {(t.dtype, x) for t in _values(ok, "u", "below_upper_end") for x in t.flatten().tolist()}
    assert (torch.float32, 1 - 2.0**-24) in tops and (torch.float64, 1 - 2.0**-53) in tops
    zeros = {t.dtype for t in _values(ok, "u", "lower_end") if (t == 0).any()}
    assert zeros == {torch.float32, torch.float64}  # u = 0 in both dtypes
    assert {("probs", "lower_end"), ("probs", "weights"), ("probs", "dtype"), ("logits", "neginf")} <= kinds
    assert ("weights", "weights") not in kinds  # normalized rows: not summing to 1 is a bad input there
    assert {("B", "size"), ("V", "size"), ("m", "size")} <= kinds
    sizes = {v.argument: v.kwargs for v in ok if v.kind == "size"}
    assert sizes["B"]["probs"].shape[0] == 1 and sizes["V"]["logits"].shape[1] == 1 and sizes["m"]["x"].shape[0] == 2
    assert isinstance(_values(ok, "temperature", "per_row")[0], torch.Tensor)
    assert 0.0 in _values(ok, "temperature", "lower_end") and 1.0 in _values(ok, "top_p", "upper_end")
    assert _values(ok, "num_samples", "minimum") == [1] or good["num_samples"] == 1
    assert set(_values(ok, "method", "choice")) == {"inverse_cdf", "gumbel"} - {good["method"]}
    mixed = [v.kwargs for v in ok if v.argument == "x, y" and v.kind == "dtype"]
    assert mixed and mixed[0]["x"].dtype == mixed[0]["y"].dtype == torch.float64


def test_float32_and_float64_mix_between_arguments_where_allowed():
    specs = {"p": Probabilities(dims=("B", "V")), "q": Probabilities(dims=("B", "V"))}
    good = {"p": torch.ones(2, 3), "q": torch.ones(2, 3)}
    mixed = [v for v in legal_inputs(good, specs, random.Random(0)) if v.kind == "dtype"]
    assert {(v.argument, v.kwargs["p"].dtype, v.kwargs["q"].dtype) for v in mixed} == {
        ("p", torch.float64, torch.float32),
        ("q", torch.float32, torch.float64),
    }


def test_every_generated_call_travels_to_the_learner_as_it_is():
    good = toy_call(4, 2, 3, torch.float64)
    for variant in bad_inputs(good, TOY, random.Random(3)) + legal_inputs(good, TOY, random.Random(3)):
        specs, payloads = [], []
        header = {"value": wire.encode_values(dict(variant.kwargs), specs, payloads), "tensors": specs}
        stream = io.BytesIO()
        wire.write_frame(stream, header, payloads)
        stream.seek(0)
        got, received = wire.read_frame(stream)
        back = wire.decode_values(got["value"], got["tensors"], received)
        for name, value in variant.kwargs.items():
            assert _same(back[name], value) if not isinstance(value, list) else back[name] == value, variant.description


def test_the_count_stays_in_the_tens():
    good = toy_call(1, 4, 6, torch.float32)
    assert 60 <= len(bad_inputs(good, TOY, random.Random(0))) <= 160
    assert 20 <= len(legal_inputs(good, TOY, random.Random(0))) <= 80


# --- misuse --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, argument",
    [
        (lambda: Probabilities(dims=("B", "V"), refuse={F.UNKNOWN_CHOICE}), "refuse"),
        (lambda: Probabilities(dims=("B", "V"), refuse="nan"), "refuse"),
        (lambda: Probabilities(dims=()), "dims"),
        (lambda: Probabilities(dims=("B", "V"), dtypes=(torch.complex64,)), "dtypes"),
        (lambda: Probabilities(dims=("B", "V"), wrong_dtypes=(torch.uint16,)), "wrong_dtypes"),
        (lambda: Probabilities(dims=("B", "V"), normalized=True, refuse={F.ZERO_ROW}), "refuse"),
        (lambda: Probabilities(dims=("B", "V"), refuse={F.NOT_NORMALIZED}), "refuse"),
        (lambda: Probabilities(dims=("B", "V"), low=-1.0), "low"),
        (lambda: Logits(dims=("B", "V"), refuse={F.NEGINF}), "refuse"),
        (lambda: Logits(dims=("B", "V"), neginf=False, refuse={F.NO_FINITE_ROW}), "refuse"),
        (lambda: Values(dims=("n",), at_least={"m": 2}), "at_least"),
        (lambda: Values(dims=("n",), refuse={F.BELOW}), "refuse"),
        (lambda: Values(dims=("n",), refuse={F.DTYPE_MISMATCH}), "same_dtype_as"),
        (lambda: Uniforms(dims=("n",), low=1.0, high=0.0), "high"),
        (lambda: Number(low=0.0, examples=(-1.0,)), "examples"),
        (lambda: Number(low=math.nan), "low"),
        (lambda: Count(minimum=1, refuse={F.ABOVE}), "refuse"),
        (lambda: Choice(options=()), "options"),
        (lambda: PerRow(number=Number(low=0.0, refuse={F.NAN})), "number"),
        (lambda: PerRow(number=0.5), "number"),
        (lambda: TokenIds(dims=("B",), vocab="V", in_range=False, refuse={F.ABOVE}), "refuse"),
    ],
)
def test_a_malformed_spec_is_a_misuse(make, argument):
    with pytest.raises(CheckMisuse) as raised:
        make()
    assert raised.value.argument == argument


@pytest.mark.parametrize(
    "good, specs, message",
    [
        (  # NaN is not good
            {"p": torch.tensor([[0.5, float("nan")]])},
            {"p": Probabilities(dims=("B", "V"))},
            "`good['p']` must be a value its spec allows; got one with the flaws NAN ",
        ),
        (  # a row summing to 0
            {"p": torch.zeros(1, 2)},
            {"p": Probabilities(dims=("B", "V"))},
            "`good['p']` must be a value its spec allows; got one with the flaws ZERO_ROW ",
        ),
        (
            {"p": torch.ones(2, 3), "e": torch.ones(2, 4, dtype=torch.bool)},
            {"p": Probabilities(dims=("B", "V")), "e": Mask(dims=("B", "V"))},
            "`good` must be arguments whose dimension V has one length; got str 'e: 4 vs 3'",
        ),
        (  # no such argument
            {"p": torch.ones(2, 3)},
            {"q": Probabilities(dims=("B", "V"))},
            "`good` must be a call with the argument 'q' that `arguments` describes",
        ),
        (
            {"p": [[1.0]]},
            {"p": Probabilities(dims=("B", "V"))},
            "`good['p']` must be a float32 or float64 tensor of 2 dimensions ['B', 'V']; got list",
        ),
        (
            {"p": torch.ones(2, 3)},
            {"p": "a probability"},
            "`arguments['p']` must be a spec such as Probabilities(...), Count(...); got str 'a probability'",
        ),
        ({"p": torch.ones(2, 3)}, {}, "`arguments` must be a non-empty dict of argument name -> spec"),
        (  # V never bound
            {"ids": torch.zeros(2, dtype=torch.int64)},
            {"ids": TokenIds(dims=("B",), vocab="V")},
            "`arguments` must be dimensions that some tensor of the good call has; got list \"['V']\"",
        ),
        (  # B never bound
            {"t": 0.5},
            {"t": PerRow(number=Number(low=0.0))},
            "`arguments` must be dimensions that some tensor of the good call has; got list \"['B']\"",
        ),
        (
            {"n": 0},
            {"n": Count(minimum=1)},
            "`good['n']` must be a value its spec allows; got one with the flaws BELOW ",
        ),
        ({"n": 2.0}, {"n": Count(minimum=1)}, "`good['n']` must be an int; got float '2.0'"),
        (
            {"m": "cdf"},
            {"m": Choice(options=("inverse_cdf",))},
            "`good['m']` must be one of ['inverse_cdf']; got str 'cdf'",
        ),
        (  # y not an argument
            {"x": torch.ones(3)},
            {"x": Values(dims=("m",), same_dtype_as="y")},
            "`arguments['x'].same_dtype_as` must be the name of another tensor argument; got str 'y'",
        ),
    ],
)
def test_a_good_call_the_specs_refuse_is_a_misuse(good, specs, message):
    with pytest.raises(CheckMisuse, match="^bad_inputs\\(\\): argument " + re.escape(message)):
        bad_inputs(good, specs, random.Random(0))
    with pytest.raises(CheckMisuse, match="^legal_inputs\\(\\): argument " + re.escape(message)):
        legal_inputs(good, specs, random.Random(0))


# --- the checks, with an in-process learner --------------------------------------------------------------


class _InProcess:
    """A learner that runs Python functions here, raising as the learner's process reports it."""

    def __init__(self, functions) -> None:
        self.functions = functions
        self.calls: list[dict] = []

    def call(self, function, args, kwargs, *, timeout_s, options=CallOptions(), **cpu):
        self.calls.append(kwargs)
        try:
            return CallResult(self.functions[function](*args, **kwargs))
        except Exception as raised:  # noqa: BLE001 - whatever the learner raises, as the child reports it
            info = protocol.ExceptionInfo(
                type(raised).__name__, str(raised), None, "", False, tuple(exception_classes(type(raised)))
            )
            raise LearnerRaised(info) from None


SMALL = {
    "probs": Probabilities(dims=("B", "V"), refuse={F.NAN, F.BELOW, F.ZERO_ROW, F.RANK}),
    "n": Count(minimum=1, refuse={F.BELOW}),
}


def _small_good():
    return {"probs": torch.tensor([[0.5, 0.5, 0.0], [1.0, 2.0, 3.0]]), "n": 3}


def test_contract_refusals_name_each_calls_mistake_with_diagnose():
    """``diagnose(variant)`` is each bad call's diagnosis (the mistake of a call that returns); none without it."""
    def f(probs, n):
        return probs

    named = contract_refusals(f, _small_good(), SMALL, random.Random(3),
                              diagnose=lambda variant: f"{variant.argument} {variant.kind} accepted")
    plain = contract_refusals(f, _small_good(), SMALL, random.Random(3))
    assert len(named) == len(plain) > 4
    assert {call.diagnosis for call in plain} == {None}
    assert {call.diagnosis.split()[0] for call in named} == {"probs", "n"}
    assert all(call.diagnosis.endswith(" accepted") for call in named)


def _strict(probs, n, **_):
    if probs.dim() != 2 or n < 1 or bool(probs.isnan().any()) or bool((probs < 0).any()):
        raise ValueError("bad input")
    if bool((probs.sum(dim=1) <= 0).any()):
        raise ValueError("a row sums to 0")
    return torch.zeros(probs.shape[0], n, dtype=torch.int64)


def _sub(function):
    learner = _InProcess({"f": function})
    ctx = Context(seed=7, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration()))
    return Submission(learner, ("f",), lambda: ctx), ctx, learner  # type: ignore[arg-type]


def test_refusals_check_every_generated_call_and_name_the_first_accepted():
    sub, ctx, learner = _sub(_strict)
    count = expect_contract_refusals(sub.f, ctx, good=_small_good(), arguments=SMALL, extra={"tag": 1})
    assert count == len(learner.calls) == len(bad_inputs(_small_good(), SMALL, random.Random(0)))
    assert all(call["tag"] == 1 for call in learner.calls)

    lax, ctx, _ = _sub(lambda probs, n, **_: torch.zeros(1))  # refuses nothing
    with pytest.raises(CheckFailed) as failed:
        expect_contract_refusals(lax.f, ctx, good=_small_good(), arguments=SMALL)
    assert failed.value.rule == "f() with probs with one dimension fewer: must raise ValueError"
    assert failed.value.message.startswith("f() with probs of shape [3] (one dimension fewer")


def test_accepts_calls_every_corner_and_its_check_and_fails_a_refusal_with_the_corner_named():
    sub, ctx, learner = _sub(_strict)
    seen = []
    count = expect_contract_accepts(
        sub.f, ctx, good=_small_good(), arguments=SMALL, check=lambda value, variant: seen.append(variant.kind)
    )
    assert count == len(seen) == len(learner.calls) >= 5 and "size" in seen and "lower_end" in seen

    def no_zeros(probs, n, **_):
        if bool((probs == 0).any()):
            raise ValueError("zeros")
        return _strict(probs, n)

    picky, ctx, _ = _sub(no_zeros)
    with pytest.raises(CheckFailed) as failed:
        expect_contract_accepts(picky.f, ctx, good={"probs": torch.ones(2, 3), "n": 1}, arguments=SMALL)
    assert failed.value.rule == "f() with exact zeros in probs: raised an exception on an input the statement allows"
    assert failed.value.rule.zh == "f() 收到含精确 0 的 probs 时：对题面允许的输入抛出了异常"
    assert "ValueError: zeros" in failed.value.message


def test_one_case_seed_gives_one_set_of_calls():
    first, ctx, learner = _sub(_strict)
    expect_contract_refusals(first.f, ctx, good=_small_good(), arguments=SMALL)
    second, ctx, again = _sub(_strict)
    expect_contract_refusals(second.f, ctx, good=_small_good(), arguments=SMALL)
    assert all(_same(a["probs"], b["probs"]) for a, b in zip(learner.calls, again.calls, strict=True))


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda sub, ctx: expect_contract_refusals(sub.f, "ctx", good=_small_good(), arguments=SMALL),
            "expect_contract_refusals(): argument `ctx` must be the test's Context",
        ),
        (
            lambda sub, ctx: expect_contract_refusals("f", ctx, good=_small_good(), arguments=SMALL),
            "expect_contract_refusals(): argument `function` must be the learner's function",
        ),
        (
            lambda sub, ctx: expect_contract_refusals(sub.f, ctx, good=_small_good(), arguments=SMALL, extra={"n": 2}),
            "expect_contract_refusals(): argument `extra` must be keyword arguments that no spec describes",
        ),
        (
            lambda sub, ctx: expect_contract_refusals(sub.f, ctx, good=_small_good(), arguments=SMALL, extra=3),
            "expect_contract_refusals(): argument `extra` must be a mapping of keyword arguments",
        ),
        (
            lambda sub, ctx: expect_contract_refusals(sub.f, ctx, good=_small_good(), arguments=SMALL, name=4),
            "expect_contract_refusals(): argument `name` must be a str or None",
        ),
        (
            lambda sub, ctx: expect_contract_refusals(sub.f, ctx, good=[1], arguments=SMALL),
            "expect_contract_refusals(): argument `good` must be a dict of the good call's keyword arguments",
        ),
        (
            lambda sub, ctx: expect_contract_accepts(sub.f, ctx, good=_small_good(), arguments=SMALL, check="oracle"),
            "expect_contract_accepts(): argument `check` must be a function check(value, variant), or None",
        ),
        (
            lambda sub, ctx: expect_contract_accepts(sub.f, None, good=_small_good(), arguments=SMALL),
            "expect_contract_accepts(): argument `ctx` must be the test's Context",
        ),
    ],
)
def test_a_check_called_wrongly_is_a_misuse_before_any_call(call, message):
    sub, ctx, learner = _sub(_strict)
    with pytest.raises(CheckMisuse, match="^" + re.escape(message)):
        call(sub, ctx)
    assert learner.calls == []


def test_an_rng_that_is_not_a_random_is_a_misuse():
    with pytest.raises(CheckMisuse) as raised:
        bad_inputs(_small_good(), SMALL, 7)
    assert raised.value.argument == "rng"
