"""The browser's torch subset against real torch, operation by operation (hypothesis).

Each operation is one function ``op(lib, *tensors)`` run with ``lib`` = real torch and with the
subset on the same inputs. The results must agree: type, shape, dtype, values (exactly, or to a
few ulps for transcendental functions and float sums, whose evaluation order differs), and the
order of ties. When torch raises, the subset must raise too.
"""

from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judge.browser.torchlike as subset
from judge.browser.torchlike import UnsupportedOperation

DTYPES = ("float32", "float64", "int64", "bool")
TIES = [-2.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0]  # few distinct values: plenty of ties
SPECIALS = [math.inf, -math.inf, math.nan]
CHECK = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def nested(draw, shape=None, dtype=None, specials: bool = True):
    """A nested list, its shape and its dtype name."""
    shape = shape if shape is not None else tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    dtype = dtype or draw(st.sampled_from(DTYPES))
    if dtype == "bool":
        element = st.booleans()
    elif dtype == "int64":
        element = st.integers(-3, 3)
    else:
        pool = TIES + (SPECIALS if specials else [])
        element = st.one_of(st.sampled_from(pool), st.floats(-5, 5, allow_nan=False, width=32))

    def build(dims):
        if not dims:
            return draw(element)
        return [build(dims[1:]) for _ in range(dims[0])]

    return build(shape), shape, dtype


def make(lib, data, dtype: str):
    return lib.tensor(data, dtype=getattr(lib, dtype))


def flat(values):
    if isinstance(values, list):
        return [v for item in values for v in flat(item)]
    return [values]


def close(a, b, tolerance: float) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))
    return a == b


def assert_same(expected, got, tolerance: float = 0.0, where: str = "result") -> None:
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, subset.Tensor), f"{where}: expected a tensor, got {type(got).__name__}"
        assert tuple(expected.shape) == tuple(got.shape), f"{where}: shape {tuple(got.shape)} != {tuple(expected.shape)}"
        assert str(expected.dtype) == repr(got.dtype), f"{where}: dtype {got.dtype!r} != {expected.dtype}"
        mine, theirs = flat(got.tolist()), flat(expected.tolist())
        for index, (a, b) in enumerate(zip(theirs, mine)):
            assert close(a, b, tolerance), f"{where}: element {index}: {b!r} != torch's {a!r}"
    elif isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), f"{where}: {got!r} is not like {expected!r}"
        for index, (a, b) in enumerate(zip(expected, got)):
            assert_same(a, b, tolerance, f"{where}[{index}]")
    elif isinstance(expected, float):
        assert close(expected, got, tolerance), f"{where}: {got!r} != torch's {expected!r}"
    else:
        assert expected == got, f"{where}: {got!r} != torch's {expected!r}"


def run_both(op, *inputs, tolerance: float = 0.0):
    """``op(lib, *tensors)`` under torch and the subset; same result, or both raise."""
    try:
        expected = op(torch, *[make(torch, data, dtype) for data, _, dtype in inputs])
    except Exception:  # noqa: BLE001 - whatever torch rejects, the subset must reject
        with pytest.raises(Exception) as raised:  # noqa: PT011
            op(subset, *[make(subset, data, dtype) for data, _, dtype in inputs])
        assert not isinstance(raised.value, UnsupportedOperation), "the subset lacks an operation torch has"
        return
    got = op(subset, *[make(subset, data, dtype) for data, _, dtype in inputs])
    assert_same(expected, got, tolerance)


def tolerance_for(dtype: str, ulps: float = 4) -> float:
    return {"float32": ulps * 2.0 ** -23, "float64": ulps * 2.0 ** -52}.get(dtype, 0.0)


# --- elementwise ------------------------------------------------------------------------------------

BINARY = {
    "add": lambda L, a, b: a + b, "sub": lambda L, a, b: a - b, "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b, "eq": lambda L, a, b: a == b, "ne": lambda L, a, b: a != b,
    "lt": lambda L, a, b: a < b, "le": lambda L, a, b: a <= b, "gt": lambda L, a, b: a > b,
    "ge": lambda L, a, b: a >= b, "and": lambda L, a, b: a & b, "or": lambda L, a, b: a | b,
    "maximum": lambda L, a, b: L.maximum(a, b), "minimum": lambda L, a, b: L.minimum(a, b),
    "where": lambda L, a, b: L.where(a > 0, a, b), "max_elementwise": lambda L, a, b: a.max(b),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@CHECK
@given(data=st.data())
def test_binary_operations_broadcast_and_promote_like_torch(name, data):
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    # The second operand: the same shape, a broadcastable one (1s and dropped leading dims), or a mismatch.
    other = data.draw(st.one_of(st.just(shape), st.just(tuple(1 if data.draw(st.booleans()) else s for s in shape)),
                                st.just(shape[1:]), st.just(tuple(s + 1 for s in shape))))
    a, b = data.draw(nested(shape)), data.draw(nested(other))
    run_both(BINARY[name], a, b)


SCALARS = [2, -1, 0.5, 0, True, 1e-3]


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@CHECK
@given(x=nested())
def test_arithmetic_with_python_scalars_keeps_torch_dtypes(scalar, x):
    for op in (lambda L, t: t + scalar, lambda L, t: scalar - t if not isinstance(scalar, bool) else t * scalar,
               lambda L, t: t * scalar, lambda L, t: t / (scalar or 1), lambda L, t: t > scalar,
               lambda L, t: t == scalar):
        run_both(op, x)


UNARY = {
    "exp": lambda L, x: L.exp(x), "log": lambda L, x: x.log(), "neg": lambda L, x: -x, "abs": lambda L, x: x.abs(),
    "invert": lambda L, x: ~x, "isnan": lambda L, x: L.isnan(x), "isfinite": lambda L, x: x.isfinite(),
    "isinf": lambda L, x: L.isinf(x), "clamp": lambda L, x: x.clamp(min=-1, max=2),
    "clamp_min": lambda L, x: L.clamp(x, min=0.5), "float": lambda L, x: x.float(), "double": lambda L, x: x.double(),
    "long": lambda L, x: x.long(),
    "bool": lambda L, x: x.bool(), "to_float64": lambda L, x: x.to(L.float64),
    "masked_fill": lambda L, x: x.masked_fill(x > 0, -1), "logical_not": lambda L, x: L.logical_not(x),
    "sqrt": lambda L, x: L.sqrt(x), "log1p": lambda L, x: x.log1p(), "sigmoid": lambda L, x: L.sigmoid(x),
    "tanh": lambda L, x: x.tanh(), "floor": lambda L, x: x.floor(), "ceil": lambda L, x: L.ceil(x),
    "round": lambda L, x: x.round(), "isposinf": lambda L, x: L.isposinf(x),
    "frac": lambda L, x: x.frac(), "trunc": lambda L, x: L.trunc(x), "sign": lambda L, x: x.sign(),
    "reciprocal": lambda L, x: L.reciprocal(x), "square": lambda L, x: x.square(), "rsqrt": lambda L, x: x.rsqrt(),
    "expm1": lambda L, x: L.expm1(x), "log10": lambda L, x: x.log10(), "exp2": lambda L, x: L.exp2(x),
    "nan_to_num": lambda L, x: L.nan_to_num(x), "nan_to_num_args": lambda L, x: x.nan_to_num(0.5, 2.0, -2.0),
    "clamp_min_fn": lambda L, x: L.clamp_min(x, 0.5), "clamp_max_method": lambda L, x: x.clamp_max(1),
    "clamp_min_": lambda L, x: x.clone().clamp_min_(0), "frac_": lambda L, x: x.clone().frac_(),
    "to_bfloat16": lambda L, x: x.to(L.bfloat16), "bfloat16_arithmetic": lambda L, x: x.bfloat16() * 3 - 1,
    "half": lambda L, x: x.half(), "half_plus_bfloat16": lambda L, x: x.half() + x.bfloat16(),
    "nextafter_up": lambda L, x: L.nextafter(x, L.full_like(x, 10)),
    "nextafter_down_bfloat16": lambda L, x: L.nextafter(x.bfloat16(), L.zeros_like(x, dtype=L.bfloat16)),
    "nextafter_half": lambda L, x: x.half().nextafter(L.full_like(x, -10, dtype=L.float16)),
}
APPROXIMATE = {"exp", "log", "sqrt", "log1p", "sigmoid", "tanh", "rsqrt", "expm1", "log10", "exp2"}


@pytest.mark.parametrize("name", sorted(UNARY))
@CHECK
@given(x=nested())
def test_unary_operations_match_torch(name, x):
    if name == "long" and any(isinstance(v, float) and not math.isfinite(v) for v in flat(x[0])):
        return  # torch leaves inf and nan -> int64 undefined (the subset refuses them)
    result_dtype = x[2] if x[2] in ("float32", "float64") else "float32"  # integers compute as float32
    run_both(UNARY[name], x, tolerance=tolerance_for(result_dtype, 2) if name in APPROXIMATE else 0.0)


# --- reductions ------------------------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda L, x, d, k: x.sum(dim=d, keepdim=k), "sum_all": lambda L, x, d, k: L.sum(x),
    "max": lambda L, x, d, k: x.max(dim=d, keepdim=k), "min": lambda L, x, d, k: L.min(x, dim=d, keepdim=k),
    "max_all": lambda L, x, d, k: x.max(), "argmax": lambda L, x, d, k: x.argmax(dim=d, keepdim=k),
    "argmin": lambda L, x, d, k: L.argmin(x, dim=d, keepdim=k), "argmax_all": lambda L, x, d, k: x.argmax(),
    "cumsum": lambda L, x, d, k: L.cumsum(x, dim=d), "any": lambda L, x, d, k: x.any(dim=d, keepdim=k),
    "all": lambda L, x, d, k: L.all(x, dim=d, keepdim=k), "softmax": lambda L, x, d, k: L.softmax(x, dim=d),
    "log_softmax": lambda L, x, d, k: L.log_softmax(x, dim=d),
    "functional_softmax": lambda L, x, d, k: (torch.nn.functional if L is torch else
                                              __import__("judge.browser.torchlike.nn.functional",
                                                         fromlist=["x"])).softmax(x, dim=d),
    "mean": lambda L, x, d, k: x.mean(dim=d, keepdim=k), "prod": lambda L, x, d, k: x.prod(dim=d, keepdim=k),
    "amax": lambda L, x, d, k: L.amax(x, dim=d, keepdim=k), "cumprod": lambda L, x, d, k: x.cumprod(dim=d),
    "logsumexp": lambda L, x, d, k: L.logsumexp(x, dim=d, keepdim=k),
    "count_nonzero": lambda L, x, d, k: L.count_nonzero(x, dim=d),
    "count_nonzero_all": lambda L, x, d, k: x.count_nonzero(),
    "cumsum_dtype": lambda L, x, d, k: L.cumsum(x, dim=d, dtype=L.float64),
    "softmax_dtype": lambda L, x, d, k: L.nn.functional.softmax(x, dim=d, dtype=L.float64),
}
FLOAT_SUMS = {"sum", "sum_all", "cumsum", "softmax", "log_softmax", "functional_softmax", "mean", "prod", "cumprod",
              "logsumexp", "cumsum_dtype", "softmax_dtype"}
# torch adds float32 in float32 (in its own order), the subset exactly and then rounds: with up to
# 64 terms of size <= 5 the two may differ by many ulps of a small result, never by more than this.
SUM_ULPS = 160


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@CHECK
@given(x=nested(), dim=st.integers(-3, 2), keepdim=st.booleans())
def test_reductions_along_a_dim_match_torch(name, x, dim, keepdim):
    floating = x[2] if x[2] in ("float32", "float64") else "float32"  # integers reduce to float32 (logsumexp)
    run_both(lambda L, t: REDUCTIONS[name](L, t, dim, keepdim), x,
             tolerance=tolerance_for(floating, SUM_ULPS) if name in FLOAT_SUMS else 0.0)


# --- ordering and selection -----------------------------------------------------------------------

@CHECK
@given(x=nested(), dim=st.integers(-2, 1), descending=st.booleans())
def test_stable_sort_keeps_ties_in_index_order(x, dim, descending):
    run_both(lambda L, t: L.sort(t, dim=dim, descending=descending, stable=True), x)
    run_both(lambda L, t: t.sort(dim=dim, descending=descending), x)  # torch's CPU sort is stable too
    run_both(lambda L, t: L.argsort(t, dim=dim, descending=descending, stable=True), x)


@CHECK
@given(x=nested(specials=False), k=st.integers(0, 4), largest=st.booleans())
def test_topk_values_match_and_ties_come_in_index_order(x, k, largest):
    """Values agree exactly. torch leaves the order of tied indices to its selection algorithm
    (it differs between sizes), so indices are checked by what they point at; the subset takes
    tied values in index order, like a stable sort."""
    run_both(lambda L, t: L.topk(t, k, dim=-1, largest=largest).values, x)
    t = make(subset, x[0], x[2])
    if x[2] == "bool" or k > t.shape[-1]:
        return
    result = subset.topk(t, k, dim=-1, largest=largest)
    assert subset.equal(t.gather(-1, result.indices), result.values)
    ordered = subset.sort(t, dim=-1, descending=largest, stable=True)
    assert result.indices.tolist() == ordered.indices[..., :k].tolist()


@CHECK
@given(x=nested(), data=st.data())
def test_gather_scatter_and_take_along_dim(x, data):
    shape = x[1]
    dim = data.draw(st.integers(0, len(shape) - 1))
    index_shape = tuple(data.draw(st.integers(1, s)) for s in shape)
    index = (_modulo(data.draw(nested(index_shape, "int64"))[0], shape[dim]), index_shape, "int64")
    run_both(lambda L, t, i: t.gather(dim, i), x, index)
    run_both(lambda L, t, i: L.zeros_like(t).scatter(dim, i, t), x, index)
    run_both(lambda L, t, i: t.clone().scatter_(dim, i, 7), x, index)


def _modulo(values, size):
    if isinstance(values, list):
        return [_modulo(v, size) for v in values]
    return values % size


@CHECK
@given(x=nested())
def test_nonzero_where_and_masks(x):
    run_both(lambda L, t: L.nonzero(t), x)
    run_both(lambda L, t: t.nonzero(as_tuple=True), x)
    run_both(lambda L, t: L.where(t != 0), x)
    run_both(lambda L, t: t[t > 0] if t.dtype != L.bool else t[t], x)


@CHECK
@given(x=nested(specials=False), k=st.integers(1, 4), dim=st.integers(-1, 0), keepdim=st.booleans())
def test_kthvalue_values_match_and_indices_point_at_them(x, k, dim, keepdim):
    """The k-th smallest value agrees exactly; among ties torch picks an index of its own, so
    indices are checked by what they point at."""
    run_both(lambda L, t: L.kthvalue(t, k, dim=dim, keepdim=keepdim).values, x)
    t = make(subset, x[0], x[2])
    if x[2] == "bool" or k > t.shape[dim]:
        return
    found = t.kthvalue(k, dim, keepdim=True)
    assert subset.equal(t.gather(dim, found.indices), found.values)


@CHECK
@given(x=nested(), data=st.data())
def test_selection_by_index_and_mask(x, data):
    shape = x[1]
    dim = data.draw(st.integers(0, len(shape) - 1))
    picks = data.draw(st.lists(st.integers(0, shape[dim] - 1), min_size=1, max_size=4))
    index_shape = tuple(len(picks) if axis == dim else 1 for axis in range(len(shape)))
    run_both(lambda L, t: L.index_select(t, dim, L.tensor(picks)), x)
    run_both(lambda L, t: t.index_select(dim, L.tensor(picks, dtype=L.int32)), x)
    run_both(lambda L, t: L.take_along_dim(t, L.tensor(picks).reshape(index_shape), dim=dim), x)
    run_both(lambda L, t: L.take_along_dim(t, L.tensor(picks)), x)
    run_both(lambda L, t: L.masked_select(t, t != 0), x)
    run_both(lambda L, t: L.argwhere(t), x)
    run_both(lambda L, t: t.repeat_interleave(2, dim=dim), x)
    run_both(lambda L, t: L.repeat_interleave(t, L.arange(shape[dim]) % 3, dim=dim), x)
    run_both(lambda L, t: L.repeat_interleave(L.tensor(picks)), x)
    run_both(lambda L, t: L.zeros(shape[dim], dtype=L.float64).index_add_(0, L.tensor(picks),
                                                                            L.ones(len(picks), dtype=L.float64)), x)


SPLITTING = {
    "reshape": lambda L, x: L.reshape(x, (-1,)), "squeeze": lambda L, x: L.squeeze(L.unsqueeze(x, 0)),
    "flatten": lambda L, x: L.flatten(x), "clone": lambda L, x: L.clone(x), "narrow": lambda L, x: L.narrow(x, 0, 0, 1),
    "narrow_method": lambda L, x: x.narrow(-1, 1, 1), "select": lambda L, x: L.select(x, 0, -1),
    "select_method": lambda L, x: x.select(-1, 0), "unbind": lambda L, x: L.unbind(x, dim=-1),
    "chunk": lambda L, x: L.chunk(x, 2, dim=-1), "split": lambda L, x: x.split(1, dim=0),
    "split_sizes": lambda L, x: L.split(x, [1, x.shape[0] - 1], dim=0),
    "broadcast_tensors": lambda L, x: L.broadcast_tensors(x, x[..., :1], L.tensor(2.0)),
    "outer": lambda L, x: L.outer(x.reshape(-1), x.reshape(-1)[:2]), "data": lambda L, x: x.data.clone(),
}


@pytest.mark.parametrize("name", sorted(SPLITTING))
@CHECK
@given(x=nested())
def test_shape_functions_of_the_namespace_match_torch(name, x):
    run_both(SPLITTING[name], x)


@CHECK
@given(boundaries=st.lists(st.sampled_from(TIES), min_size=1, max_size=6), queries=nested(specials=False),
       right=st.booleans())
def test_bucketize_is_searchsorted_with_boundaries_first(boundaries, queries, right):
    run_both(lambda L, b, q: L.bucketize(q.double(), b, right=right),
             (sorted(boundaries), (len(boundaries),), "float64"), queries)


@CHECK
@given(rows=st.integers(1, 3), width=st.integers(1, 6), queries=nested(specials=False), right=st.booleans(),
       data=st.data())
def test_searchsorted_batched_and_1d(rows, width, queries, right, data):
    boundaries = sorted(data.draw(st.lists(st.sampled_from(TIES), min_size=width, max_size=width)))
    run_both(lambda L, b, q: L.searchsorted(b, q.to(b.dtype) if q.dtype != L.bool else q.float(), right=right),
             (boundaries, (width,), "float32"), queries)
    table = [sorted(data.draw(st.lists(st.sampled_from(TIES), min_size=width, max_size=width))) for _ in range(rows)]
    values = [data.draw(st.lists(st.sampled_from(TIES), min_size=2, max_size=2)) for _ in range(rows)]
    run_both(lambda L, b, q: L.searchsorted(b, q, side="right" if right else "left"),
             (table, (rows, width), "float64"), (values, (rows, 2), "float64"))


IN_PLACE = {
    "add_": lambda L, x: x.clone().add_(1), "mul_": lambda L, x: x.clone().mul_(2),
    "div_": lambda L, x: x.clone().div_(2), "sub_": lambda L, x: x.clone().sub_(x),
    "clamp_": lambda L, x: x.clone().clamp_(0, 1), "masked_fill_": lambda L, x: x.clone().masked_fill_(x > 0, 5),
    "scatter_": lambda L, x: x.clone().scatter_(-1, L.zeros_like(x, dtype=L.int64)[..., :1], x[..., :1]),
    "exp_": lambda L, x: x.clone().exp_(), "iadd": lambda L, x: _iadd(x.clone(), x),
    "fill_": lambda L, x: x.clone().fill_(2.5), "zero_": lambda L, x: x.clone().zero_(),
    "copy_": lambda L, x: L.zeros_like(x).copy_(x), "bitwise_and_": lambda L, x: x.clone().bitwise_and_(x),
    "maximum_": lambda L, x: x.clone().maximum_(x.clone().fill_(0)) if hasattr(L.Tensor, "maximum_") else x,
}


def _iadd(t, other):
    t += other
    return t


@pytest.mark.parametrize("name", sorted(n for n in IN_PLACE if n != "maximum_"))
@CHECK
@given(x=nested())
def test_in_place_variants_write_the_tensor_and_keep_its_dtype(name, x):
    run_both(IN_PLACE[name], x, tolerance=tolerance_for(x[2], 2) if name == "exp_" else 0.0)


def test_uniform_and_exponential_fill_in_place_with_torch_checks():
    t = subset.zeros(500, dtype=subset.float64)
    assert t.uniform_(2.0, 3.0, generator=subset.Generator().manual_seed(0)) is t
    assert all(2.0 <= v < 3.0 for v in t.tolist())
    for bad, message in (
        (lambda L: L.zeros(2, dtype=L.int64).uniform_(), '"check_uniform_bounds" not implemented for'),
        (lambda L: L.zeros(2).exponential_(-1.0), "exponential_ expects lambda > 0.0, but found lambda=-1"),
        (lambda L: L.zeros(2).uniform_(1.0, 0.0), "uniform_ expects to return a [from, to) range, but found from=1"),
    ):
        with pytest.raises(RuntimeError, match=re.escape(message)):
            bad(torch)
        with pytest.raises(RuntimeError, match=re.escape(message)):
            bad(subset)


# --- shapes and indexing --------------------------------------------------------------------------

SHAPE_OPS = {
    "reshape": lambda L, x: x.reshape(-1), "view": lambda L, x: x.view(x.shape[0], -1),
    "unsqueeze": lambda L, x: x.unsqueeze(1), "unsqueeze_last": lambda L, x: x.unsqueeze(-1),
    "squeeze": lambda L, x: x.unsqueeze(0).squeeze(), "squeeze_dim": lambda L, x: x.unsqueeze(1).squeeze(1),
    "flip": lambda L, x: x.flip(-1), "flip_all": lambda L, x: L.flip(x, dims=tuple(range(x.dim()))),
    "expand": lambda L, x: x[..., :1].expand(*x.shape[:-1], 3), "stack": lambda L, x: L.stack([x, x], dim=1),
    "cat": lambda L, x: L.cat([x, x, x], dim=-1), "cat0": lambda L, x: L.cat([x, x[:1]], dim=0),
    "numel": lambda L, x: x.numel(), "dim": lambda L, x: x.dim(), "shape": lambda L, x: tuple(x.shape),
    "transpose": lambda L, x: x.transpose(0, -1), "flatten": lambda L, x: x.flatten(),
    "clone_inplace": lambda L, x: x.clone().fill_(1),
}


@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
@CHECK
@given(x=nested())
def test_shape_operations_match_torch(name, x):
    run_both(SHAPE_OPS[name], x)


KEYS = [0, -1, slice(None), slice(1, None), slice(None, None, 2), None, Ellipsis, (0, 0), (slice(None), 0),
        (Ellipsis, 0), (None, 0), (slice(None), None, 0), ([0, 0],), (slice(None), [1, 0]), ([0], [0]),
        (Ellipsis, [0, 0]), (0, Ellipsis, None)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@CHECK
@given(x=nested())
def test_indexing_reads_like_torch(key, x):
    def read(L, t):
        index = key if not isinstance(key, tuple) else tuple(L.tensor(k) if isinstance(k, list) else k for k in key)
        return t[index]

    run_both(read, x)


@pytest.mark.parametrize("key", KEYS, ids=repr)
@CHECK
@given(x=nested(dtype="float64"))
def test_indexing_writes_like_torch(key, x):
    def write(L, t):
        index = key if not isinstance(key, tuple) else tuple(L.tensor(k) if isinstance(k, list) else k for k in key)
        t = t.clone()
        t[index] = 9.0
        t[t < 0] = 0.0
        return t

    run_both(write, x)


def test_views_from_reshape_share_storage_like_torch():
    for L in (torch, subset):
        t = L.zeros(2, 3)
        t.view(-1)[4] = 1.0
        t.unsqueeze(0).squeeze(0)[0, 0] = 2.0
        assert t.tolist() == [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


# --- creation, dtypes and conversion ----------------------------------------------------------------

CREATION = {
    "zeros": lambda L: L.zeros(2, 3), "ones_int": lambda L: L.ones((2,), dtype=L.int64),
    "full": lambda L: L.full((2, 2), 1.5), "full_int": lambda L: L.full((3,), 7),
    "full_bool": lambda L: L.full((2,), True), "empty_shape": lambda L: L.empty(0, 2).shape,
    "arange": lambda L: L.arange(5), "arange_float": lambda L: L.arange(0, 1, 0.25),
    "arange_step": lambda L: L.arange(10, 0, -3), "linspace": lambda L: L.linspace(0, 1, 5),
    "tensor_int": lambda L: L.tensor([1, 2]), "tensor_float": lambda L: L.tensor([1, 2.5]),
    "tensor_bool": lambda L: L.tensor([True, False]), "tensor_scalar": lambda L: L.tensor(3.0),
    "as_tensor": lambda L: L.as_tensor([[1, 2]], dtype=L.float64), "zeros_like": lambda L: L.zeros_like(L.ones(2)),
    "ones_like_dtype": lambda L: L.ones_like(L.ones(2), dtype=L.int64), "full_like": lambda L: L.full_like(L.ones(2), 3),
    "finfo": lambda L: (L.finfo(L.float32).eps, L.finfo(L.float64).max, L.finfo(L.float32).tiny),
    "inf_nan": lambda L: (L.inf, math.isnan(L.nan)), "promote": lambda L: repr(L.promote_types(L.int64, L.float32)),
    "result_type": lambda L: repr(L.result_type(L.tensor([1]), 1.5)),
    "ragged": lambda L: L.tensor([[1, 2], [3]]), "negative_size": lambda L: L.zeros(-1),
    "bad_view": lambda L: L.zeros(6).view(4, -1), "device": lambda L: str(L.zeros(1, device="cpu").device),
    "item": lambda L: L.tensor([2.5]).item(), "bool_ambiguous": lambda L: bool(L.tensor([1, 2])),
    "no_grad": lambda L: L.no_grad().__enter__() is not None,
    "finfo_16": lambda L: (L.finfo(L.bfloat16).eps, L.finfo(L.bfloat16).max, L.finfo(L.bfloat16).tiny,
                           L.finfo(L.float16).eps, L.finfo(L.float16).max, L.finfo(L.float16).tiny),
    "promote_16": lambda L: (repr(L.promote_types(L.bfloat16, L.float16)), repr(L.promote_types(L.int64, L.bfloat16)),
                             repr(L.result_type(L.ones(1, dtype=L.float16), 2.5)), repr(L.half)),
    "tensor_types_16": lambda L: (L.ones(1, dtype=L.bfloat16).type(), L.ones(1).half().type()),
    "bfloat16_rounding": lambda L: L.tensor([1.00390625, 1.01171875, 3.3961e38, -2.0e-39, 0.1], dtype=L.float64)
                                    .to(L.bfloat16).float(),
    "zeros_size": lambda L: L.zeros(size=(2, 3)), "rand_size": lambda L: tuple(L.rand(size=(2, 4)).shape),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation_and_dtypes_match_torch(name):
    def wrapped(L):
        value = CREATION[name](L)
        return value.replace("torch.", "") if isinstance(value, str) else value

    run_both(wrapped)


# --- random ---------------------------------------------------------------------------------------

def test_generators_are_reproducible_and_draws_have_torch_contracts():
    first = subset.rand(3, 4, generator=subset.Generator().manual_seed(5))
    again = subset.rand(3, 4, generator=subset.Generator().manual_seed(5))
    assert first.tolist() == again.tolist() and first.dtype is subset.float32 and tuple(first.shape) == (3, 4)
    assert all(0.0 <= v < 1.0 and (v * 2 ** 24).is_integer() for v in flat(first.tolist()))
    exponential = subset.empty(1000, dtype=subset.float64).exponential_(generator=subset.Generator().manual_seed(1))
    assert min(exponential.tolist()) > 0 and 0.9 < sum(exponential.tolist()) / 1000 < 1.1
    probs = subset.tensor([[0.0, 0.3, 0.7], [1.0, 0.0, 0.0]])
    draws = subset.multinomial(probs, 2000, replacement=True, generator=subset.Generator().manual_seed(3))
    assert draws.dtype is subset.int64 and tuple(draws.shape) == (2, 2000)
    row = draws[0].tolist()
    assert 0 not in row and 0.65 < row.count(2) / 2000 < 0.75 and set(draws[1].tolist()) == {0}
    without = subset.multinomial(subset.tensor([0.2, 0.3, 0.5]), 3, generator=subset.Generator().manual_seed(4))
    assert sorted(without.tolist()) == [0, 1, 2]


@pytest.mark.parametrize("probs, n, replacement, message", [
    ([0.5, -0.1], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.0, 0.0], 1, True, "invalid multinomial distribution (sum of probabilities <= 0)"),
    ([math.nan, 1.0], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.5, 0.5], 3, False, "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    ([[0.5, 0.5]], 0, True, "cannot sample n_sample <= 0 samples"),
])
def test_multinomial_rejects_what_torch_rejects(probs, n, replacement, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        torch.multinomial(torch.tensor(probs), n, replacement=replacement)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        subset.multinomial(subset.tensor(probs), n, replacement=replacement)


def test_binomial_bernoulli_geometric_and_normal_have_torch_contracts():
    gen = subset.Generator().manual_seed(7)
    for n, p in ((5.0, 0.3), (400.0, 0.25), (60.0, 0.9)):  # inversion, BTRS, and p > 1/2 (mirrored)
        draws = subset.binomial(subset.full((3000,), n), subset.full((3000,), p), generator=gen)
        values = draws.tolist()
        assert draws.dtype is subset.float32 and all(v == int(v) and 0 <= v <= n for v in values)
        mean = sum(values) / len(values)
        variance = sum((v - mean) ** 2 for v in values) / len(values)
        assert abs(mean - n * p) < 5 * math.sqrt(n * p * (1 - p) / len(values)), (n, p, mean)
        assert 0.85 < variance / (n * p * (1 - p)) < 1.15, (n, p, variance)
    assert subset.binomial(subset.tensor([0.0, 4.0, 3.0]), subset.tensor([0.5, 0.0, 1.0])).tolist() == [0.0, 0.0, 3.0]
    for bad, error, message in (
        (lambda L: L.binomial(L.tensor([3]), L.tensor([0.5])), ValueError,
         "binomial only supports floating-point dtypes for count, got: Long"),
        # torch names the dtype Double/Float, the subset Float64/Float32
        (lambda L: L.binomial(L.tensor([3.0]), L.tensor([0.5], dtype=L.float64)), RuntimeError,
         "Found dtype (Double|Float64) but expected (Float|Float32)$"),
    ):
        with pytest.raises(error, match=message):
            bad(torch)
        with pytest.raises(error, match=message):
            bad(subset)
    coins = subset.bernoulli(subset.full((4000,), 0.25), generator=gen)
    assert coins.dtype is subset.float32 and set(coins.tolist()) <= {0.0, 1.0} and 0.22 < coins.mean().item() < 0.28
    waits = subset.empty(4000, dtype=subset.float64).geometric_(0.25, generator=gen).tolist()
    assert min(waits) >= 1 and all(w == int(w) for w in waits) and 3.7 < sum(waits) / len(waits) < 4.3
    assert subset.normal(0.0, 2.0, size=(3, 4), generator=gen).shape == torch.normal(0.0, 2.0, size=(3, 4)).shape
    assert subset.randperm(6, generator=gen, dtype=subset.float32).sort().values.tolist() == [0.0, 1, 2, 3, 4, 5]
    assert subset.randn_like(subset.zeros(2, dtype=subset.float64)).dtype is subset.float64
    assert set(subset.randint_like(subset.zeros(50), 3, 5).tolist()) <= {3.0, 4.0}


def test_rng_state_round_trips_and_fork_rng_restores_the_default_generator():
    state = subset.get_rng_state()
    first = subset.rand(5).tolist()
    subset.set_rng_state(state)
    assert subset.rand(5).tolist() == first
    gen = subset.Generator().manual_seed(3)
    saved = gen.get_state()
    assert subset.randn(4, generator=gen).tolist() == subset.randn(4, generator=gen.set_state(saved)).tolist()
    for L in (torch, subset):
        L.manual_seed(11)
        expected = L.rand(3).tolist()
        L.manual_seed(11)
        with L.random.fork_rng():
            L.manual_seed(99)
            L.rand(10)
        assert L.rand(3).tolist() == expected  # the default stream goes on as if the block had not run
    with pytest.raises(RuntimeError, match="the state must come from get_state"):
        subset.set_rng_state(subset.zeros(3, dtype=subset.int64))


DISTRIBUTIONS = {
    "probs": lambda L, x: L.distributions.Categorical(probs=x.abs() + 0.1).probs,
    "logits_from_probs": lambda L, x: L.distributions.Categorical(probs=x.abs() + 0.1).logits,
    "probs_from_logits": lambda L, x: L.distributions.Categorical(logits=x).probs,
    "log_prob": lambda L, x: L.distributions.Categorical(logits=x).log_prob(L.zeros(x.shape[:-1], dtype=L.int64)),
    "entropy": lambda L, x: L.distributions.Categorical(probs=x.abs() + 0.1).entropy(),
    "mode": lambda L, x: L.distributions.Categorical(logits=x).mode,
    "shapes": lambda L, x: (tuple(L.distributions.Categorical(logits=x).batch_shape),
                            tuple(L.distributions.Categorical(logits=x).sample((2, 3)).shape)),
    "negative_probs": lambda L, x: L.distributions.Categorical(  # one weight below 0, the others above: refused
        probs=L.cat([x.abs() + 0.1, -L.ones(x.shape[:-1] + (1,), dtype=x.dtype)], dim=-1)),
    "no_parameter": lambda L, x: L.distributions.Categorical(),
}


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
@CHECK
@given(x=nested(dtype="float64", specials=False))
def test_categorical_matches_torch(name, x):
    run_both(DISTRIBUTIONS[name], x, tolerance=tolerance_for("float64", 8))


def test_distributions_draw_from_the_default_generator_like_torch():
    probs = subset.tensor([[0.0, 0.3, 0.7], [1.0, 0.0, 0.0]])
    for L, p in ((torch, torch.tensor(probs.tolist())), (subset, probs)):
        categorical = L.distributions.Categorical(probs=p)
        L.manual_seed(5)
        first = categorical.sample((2000,))
        L.manual_seed(5)
        assert categorical.sample((2000,)).tolist() == first.tolist()  # torch.manual_seed decides
        assert first.dtype == L.int64 and tuple(first.shape) == (2000, 2) and categorical.sample().shape == (2,)
        assert 0 not in first[:, 0].tolist() and set(first[:, 1].tolist()) == {0}
        assert 0.65 < first[:, 0].tolist().count(2) / 2000 < 0.75
        gumbel = L.distributions.Gumbel(L.zeros(3), 1.0).sample((4000,))
        assert tuple(gumbel.shape) == (4000, 3) and abs(gumbel.mean().item() - 0.5772) < 0.06
        uniform = L.distributions.Uniform(2.0, 3.0).sample((1000,))
        assert uniform.dtype == L.float32 and 2.0 <= uniform.min().item() and uniform.max().item() < 3.0
        rates = L.tensor([1.0, 4.0])
        exponential = L.distributions.Exponential(rates).sample((4000,))
        assert exponential.min().item() > 0 and abs(exponential[:, 1].mean().item() - 0.25) < 0.03
        hard = L.nn.functional.gumbel_softmax(L.tensor([[0.0, 1.0, 2.0]]), hard=True)
        assert sorted(hard.tolist()[0]) == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("library", ["torch", "subset"])
def test_the_extreme_uniform_phase_is_the_same_on_the_server_and_in_the_browser(library):
    """judge.learner.code.ExtremeUniforms patches real torch on the server; the subset has its own: same contract."""
    from judge.browser.torchlike import extremes
    from judge.learner.code import ExtremeUniforms as Server

    L, phase = (torch, Server) if library == "torch" else (subset, extremes.ExtremeUniforms)
    assert extremes.FRACTION == Server.FRACTION
    saved = (L.rand, L.rand_like, L.Tensor.uniform_)
    plain = L.rand(4, 2000, generator=L.Generator().manual_seed(1)).reshape(-1).tolist()
    with phase(L, 3):
        pushed = L.rand(4, 2000, generator=L.Generator().manual_seed(1)).reshape(-1).tolist()
        pair = L.rand(2, dtype=L.float64).tolist()
        like = L.rand_like(L.zeros(500)).tolist()
        filled = L.zeros(500).uniform_().tolist()
        elsewhere = L.zeros(500).uniform_(2.0, 3.0).tolist()
    assert (L.rand, L.rand_like, L.Tensor.uniform_) == saved
    top = 1.0 - 2.0 ** -24
    zeros, tops = pushed.count(0.0), pushed.count(top)
    assert 40 <= zeros <= 130 and 40 <= tops <= 130  # 1% each of 8 000
    changed = [i for i, (a, b) in enumerate(zip(plain, pushed)) if a != b]
    assert len(changed) <= zeros + tops  # only pushed values differ: the generator's stream is untouched
    assert sorted(pair) == [0.0, 1.0 - 2.0 ** -53]  # each extreme at least once, in the tensor's dtype
    assert 0.0 in like and top in like and 0.0 in filled and top in filled
    assert min(elsewhere) >= 2.0  # uniform_ on another range is left alone


# --- what is missing says so -----------------------------------------------------------------------

NOT_AVAILABLE = "is not available in the browser: Submit to grade on the server"
MISSING = {
    "torch.fft": lambda: subset.fft,
    "Tensor.matmul": lambda: subset.ones(2).matmul(subset.ones(2)),
    "Tensor.lerp": lambda: subset.Tensor.lerp,  # through the class, as torch.Tensor.lerp(x, ...) reads it
    "torch.cuda.synchronize": lambda: subset.cuda.synchronize(),
    "torch.distributions.Beta": lambda: subset.distributions.Beta,
    "torch.distributions.Categorical.cdf": lambda: subset.distributions.Categorical(probs=subset.ones(2)).cdf,
    "torch.random.get_rng_state_all": lambda: subset.random.get_rng_state_all,
    "torch.nn.functional.dropout": lambda: subset.nn.functional.dropout,
    # keyword arguments torch takes and the subset does not
    "torch.zeros(..., out=...)": lambda: subset.zeros(3, out=subset.zeros(3)),
    "torch.multinomial(..., out=...)": lambda: subset.multinomial(subset.ones(2), 1, out=None),
    "Tensor.sum(..., out=...)": lambda: subset.ones(2).sum(0, out=None),
    "torch.rand(..., out=...)": lambda: subset.rand(2, out=None),
    "torch.softmax(..., out=...)": lambda: subset.softmax(subset.ones(2), 0, out=None),
}


@pytest.mark.parametrize("operation", list(MISSING))
def test_a_missing_operation_names_itself_and_says_to_submit(operation):
    with pytest.raises(UnsupportedOperation) as raised:
        MISSING[operation]()
    assert str(raised.value).startswith(f"{operation} {NOT_AVAILABLE}") and raised.value.operation == operation
    assert not hasattr(subset, "linalg") and not subset.cuda.is_available()


def test_only_keywords_are_turned_into_not_available():
    with pytest.raises(TypeError) as raised:  # a keyword torch rejects as well, checked inside the operation
        subset.ones(2).to(foo=1)
    assert not isinstance(raised.value, UnsupportedOperation)
    with pytest.raises(TypeError, match="positional arguments but 5 were given"):
        subset.ones(2).sum(0, 1, 2, 3)  # too many positional arguments: the learner's error, as in torch
    assert subset.zeros(size=(2, 3)).shape == torch.zeros(size=(2, 3)).shape
    assert subset.ones(2, requires_grad=False, pin_memory=False).tolist() == [1.0, 1.0]
