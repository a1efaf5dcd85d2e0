"""dtypes of the torch subset, casting, and torch's type-promotion rules.

A :class:`dtype` says how values are stored: ``float32`` values are rounded to single
precision (through :mod:`array`), ``float16`` and ``bfloat16`` are rounded to single precision
and then to their own width (as torch converts a double: through float), ``float64`` are Python
floats, integer types are Python ints (wrapped to their width), ``bool`` are Python bools.

The rules here are over dtypes and Python scalars; :func:`judge.browser.torchlike._tensor.result_type`
applies them to tensors, beside the Tensor it looks at (this module imports nothing of the subset).
"""

from __future__ import annotations

import math
import struct
from array import array


class dtype:
    """A tensor element type; compare with ``is`` or ``==`` as in torch."""

    def __init__(self, name: str, kind: str, bits: int) -> None:
        self.name, self.kind, self.bits = name, kind, bits  # kind: "b" bool, "i" integer, "f" floating

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "f"

    @property
    def itemsize(self) -> int:
        return max(1, self.bits // 8)

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):  # copy/pickle keep the singleton
        return (_by_name, (self.name,))


float32 = dtype("float32", "f", 32)
float64 = dtype("float64", "f", 64)
float16 = dtype("float16", "f", 16)
bfloat16 = dtype("bfloat16", "f", 16)
int64 = dtype("int64", "i", 64)
int32 = dtype("int32", "i", 32)
bool_ = dtype("bool", "b", 8)
ALL = (float32, float64, float16, bfloat16, int64, int32, bool_)
# Random bits of one uniform draw in [0, 1) (torch: the mantissa's width plus one).
UNIFORM_BITS = {float64: 53, float32: 24, float16: 11, bfloat16: 8}
_RANK = {"b": 0, "i": 1, "f": 2}
default_float = float32


def _by_name(name: str) -> dtype:
    return next(d for d in ALL if d.name == name)


def _wrap_int(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _bfloat16(values) -> list:
    """Round to float32, then to the nearest bfloat16 (ties to even, NaN stays NaN), as c10 does."""
    single = array("f", [float(v) for v in values])
    bits = array("I")
    bits.frombytes(single.tobytes())
    for i, b in enumerate(bits):
        if (b & 0x7F800000) == 0x7F800000 and b & 0x007FFFFF:
            bits[i] = 0x7FC00000
        else:
            bits[i] = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16 & 0xFFFFFFFF
    out = array("f")
    out.frombytes(bits.tobytes())
    return out.tolist()


def _float16(values) -> list:
    out = []
    for v in array("f", [float(v) for v in values]).tolist():
        try:
            out.append(struct.unpack("<e", struct.pack("<e", v))[0])
        except OverflowError:
            out.append(math.copysign(math.inf, v))
    return out


def cast_values(values, target: dtype) -> list:
    """``values`` (Python numbers) converted to ``target`` as torch converts them."""
    if target is float32:
        return array("f", [float(v) for v in values]).tolist()
    if target is float64:
        return [float(v) for v in values]
    if target is bfloat16:
        return _bfloat16(values)
    if target is float16:
        return _float16(values)
    if target is bool_:
        return [bool(v) for v in values]
    out = []
    for v in values:
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                raise RuntimeError(
                    f"cannot convert {v} to {target!r} exactly (the subset refuses what torch leaves undefined)"
                )
            v = int(v)  # truncates toward zero, as torch does
        out.append(_wrap_int(int(v), target.bits))
    return out


def promote_types(a: dtype, b: dtype) -> dtype:
    """torch.promote_types for the subset's dtypes."""
    if a is b:
        return a
    if _RANK[a.kind] != _RANK[b.kind]:
        return a if _RANK[a.kind] > _RANK[b.kind] else b
    if a.bits == b.bits:  # float16 with bfloat16: neither holds the other
        return float32
    return a if a.bits >= b.bits else b


def scalar_dtype(value) -> dtype:
    """The dtype a Python scalar takes on its own (torch.tensor(value))."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return default_float
    raise TypeError(f"expected a number, got {type(value).__name__}")


class finfo:
    """torch.finfo for the floating dtypes."""

    def __init__(self, type: dtype = None) -> None:  # noqa: A002 - torch's parameter name
        type = type or default_float
        if not type.is_floating_point:
            raise TypeError(f"torch.finfo() requires a floating point dtype, got {type!r}")
        self.dtype = type.name
        self.bits = type.bits
        if type is float32:
            self.eps, self.max, self.tiny = 2.0**-23, 3.4028234663852886e38, 2.0**-126
            self.resolution = 1e-6
        elif type is bfloat16:
            self.eps, self.max, self.tiny = 2.0**-7, 3.3895313892515355e38, 2.0**-126
            self.resolution = 0.01
        elif type is float16:
            self.eps, self.max, self.tiny = 2.0**-10, 65504.0, 2.0**-14
            self.resolution = 0.001
        else:
            self.eps, self.max, self.tiny = 2.0**-52, 1.7976931348623157e308, 2.0**-1022
            self.resolution = 1e-15
        self.min = -self.max
        self.smallest_normal = self.tiny


class iinfo:
    def __init__(self, type: dtype) -> None:  # noqa: A002
        if type.kind != "i":
            raise TypeError(f"torch.iinfo() requires an integer dtype, got {type!r}")
        self.bits, self.dtype = type.bits, type.name
        self.max = (1 << (type.bits - 1)) - 1
        self.min = -(1 << (type.bits - 1))
