"""Elementwise operations with broadcasting and torch's type promotion."""

from __future__ import annotations

import math
import operator
import struct

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._shape import broadcast_shapes, source_positions
from judge.browser.torchlike._tensor import Tensor, as_tensor_value, result_type

INF, NAN = math.inf, math.nan


def _values(tensor: Tensor, shape: tuple[int, ...]) -> list:
    if tensor._shape == shape:
        return tensor._data
    return [tensor._data[p] for p in source_positions(tensor._shape, shape)]


def expand_to(tensor: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A copy of ``tensor`` broadcast to ``shape``."""
    if broadcast_shapes(tensor._shape, shape) != tuple(shape):
        raise RuntimeError(
            f"The expanded size of the tensor must match the existing size: cannot expand "
            f"{list(tensor._shape)} to {list(shape)}"
        )
    return Tensor(list(_values(tensor, tuple(shape))), tuple(shape), tensor.dtype)


def binary(a, b, fn, *, compute: dt.dtype | None = None, out: dt.dtype | None = None) -> Tensor:
    """``fn`` over broadcast ``a`` and ``b`` (tensors or scalars).

    ``compute``: the dtype operands are converted to (default: their result type); ``out``: the
    dtype of the result (default: ``compute``).
    """
    compute = compute or result_type(a, b)
    out = out or compute
    # A Python scalar keeps its full value until it meets the compute dtype (as a wrapped number in torch).
    a, b = _raw_operand(a), _raw_operand(b)
    shape = broadcast_shapes(a._shape, b._shape)
    left, right = _values(a, shape), _values(b, shape)
    if a.dtype is not compute or a.dtype is None:
        left = dt.cast_values(left, compute)
    if b.dtype is not compute or b.dtype is None:
        right = dt.cast_values(right, compute)
    values = list(map(fn, left, right))
    return Tensor(values if out is dt.float64 else dt.cast_values(values, out), shape, out)


def _raw_operand(value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)):
        return Tensor([value], (), None)
    raise TypeError(f"expected a Tensor or a number, got {type(value).__name__}")


def unary(x: Tensor, fn, *, out: dt.dtype | None = None, floating: bool = False) -> Tensor:
    """``fn`` over every element; ``floating``: integer inputs are computed as the default float."""
    x = as_tensor_value(x)
    kind = x.dtype
    values = x._data
    if floating and not kind.is_floating_point:
        kind = dt.default_float
        values = dt.cast_values(values, kind)
    out = out or kind
    result = [fn(v) for v in values]
    return Tensor(dt.cast_values(result, out), x._shape, out)


# --- IEEE arithmetic on Python floats (Python raises where IEEE gives inf or nan) -----------------


def true_div(x, y):
    try:
        return x / y
    except ZeroDivisionError:
        if x != x or x == 0:
            return NAN
        return math.copysign(INF, x) * math.copysign(1.0, y)


def floor_div(x, y):
    if isinstance(x, int) and isinstance(y, int):
        if y == 0:
            raise RuntimeError("ZeroDivisionError")
        return x // y
    quotient = true_div(x, y)
    return math.floor(quotient) if math.isfinite(quotient) else quotient


def remainder(x, y):
    if isinstance(x, int) and isinstance(y, int):
        if y == 0:
            raise RuntimeError("ZeroDivisionError")
        return x % y
    if y == 0 or x != x or y != y or math.isinf(x):
        return NAN
    return x % y if not math.isinf(y) else (x if (x >= 0) == (y > 0) else y)


def power(x, y):
    try:
        result = x**y
    except ZeroDivisionError:
        return INF
    except OverflowError:
        return INF if x > 0 or float(y) % 2 == 0 else -INF
    if isinstance(result, complex):
        return NAN
    return result


def exp(v):
    try:
        return math.exp(v)
    except OverflowError:
        return INF


def log(v):
    if v != v or v < 0:
        return NAN
    if v == 0:
        return -INF
    return math.log(v) if v != INF else INF


def log1p(v):
    if v != v or v < -1:
        return NAN
    if v == -1:
        return -INF
    return math.log1p(v) if v != INF else INF


def sqrt(v):
    if v != v or v < 0:
        return NAN
    return math.sqrt(v)


def sigmoid(v):
    if v >= 0:
        return 1.0 / (1.0 + exp(-v))
    e = exp(v)
    return e / (1.0 + e)


def _round_half_even(v):
    return float(round(v)) if math.isfinite(v) else v


def expm1(v):
    try:
        return math.expm1(v)
    except OverflowError:
        return INF


def log10(v):
    return math.log10(v) if 0 < v < INF else log(v)


UNARY_FLOAT = {
    "exp": exp,
    "log": log,
    "log1p": log1p,
    "sqrt": sqrt,
    "sigmoid": sigmoid,
    "log2": lambda v: log(v) / math.log(2) if v > 0 else log(v),
    "tanh": lambda v: math.tanh(v),
    "expm1": expm1,
    "log10": log10,
    "exp2": lambda v: power(2.0, v),
    "reciprocal": lambda v: true_div(1.0, v),
    "rsqrt": lambda v: true_div(1.0, sqrt(v)),
}


def trunc(v):
    return math.copysign(float(math.trunc(v)), v) if math.isfinite(v) else v


def frac(v):
    return v - trunc(v) if math.isfinite(v) else NAN


def sign(v):
    return (v > 0) - (v < 0) if not isinstance(v, float) else (1.0 if v > 0 else -1.0 if v < 0 else 0.0)


# Bit patterns of the floating dtypes below float64: struct formats (value, bits) and the smallest step.
_BITS = {"float32": ("<f", "<I", 2.0**-149), "float16": ("<e", "<H", 2.0**-24)}


def next_after(x, y, kind) -> float:
    """The next value of dtype ``kind`` after ``x`` toward ``y`` (torch.nextafter)."""
    if x != x or y != y:
        return NAN
    if x == y:
        return y
    if kind.bits == 64:
        return math.nextafter(x, y)
    up = y > x
    if kind.name == "bfloat16":  # the upper half of a float32
        if x == 0:
            return math.copysign(2.0**-133, 1.0 if up else -1.0)
        bits = struct.unpack("<I", struct.pack("<f", x))[0] >> 16
        bits += 1 if up == (x > 0) else -1
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    value_format, bits_format, smallest = _BITS[kind.name]
    if x == 0:
        return smallest if up else -smallest
    bits = struct.unpack(bits_format, struct.pack(value_format, x))[0]
    bits += 1 if up == (x > 0) else -1
    return struct.unpack(value_format, struct.pack(bits_format, bits))[0]


def floor(v):
    return float(math.floor(v)) if math.isfinite(v) else v


def ceil(v):
    return float(math.ceil(v)) if math.isfinite(v) else v


def nan_max(x, y):
    """torch.maximum: NaN wins."""
    if x != x or y != y:
        return NAN
    return x if x >= y else y


def nan_min(x, y):
    if x != x or y != y:
        return NAN
    return x if x <= y else y


def isclose_values(a, b, rtol, atol, equal_nan):
    if a != a or b != b:
        return bool(equal_nan and a != a and b != b)
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= atol + rtol * abs(b)


ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}
COMPARISON = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
round_half_even = _round_half_even
