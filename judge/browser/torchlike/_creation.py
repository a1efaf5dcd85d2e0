"""Making tensors: tensor, as_tensor, zeros, ones, full, empty, arange, linspace, the *_like family."""

from __future__ import annotations

import math

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._shape import sizes_from_args
from judge.browser.torchlike._tensor import Tensor, check_device


def _flatten(data) -> tuple[list, tuple[int, ...]]:
    if isinstance(data, Tensor):
        return list(data._data), data._shape
    if isinstance(data, (list, tuple)):
        if not data:
            return [], (0,)
        parts = [_flatten(item) for item in data]
        inner = parts[0][1]
        if any(shape != inner for _, shape in parts):
            raise ValueError(f"expected sequence of length {inner[0] if inner else 0} at dim 1 (got a ragged list)")
        return [v for values, _ in parts for v in values], (len(data),) + inner
    if isinstance(data, (bool, int, float)):
        return [data], ()
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _infer_dtype(values: list, given: list) -> dt.dtype:
    if any(isinstance(v, Tensor) for v in given):
        return next(v.dtype for v in given if isinstance(v, Tensor))
    if not values:
        return dt.default_float
    if any(isinstance(v, float) for v in values):
        return dt.default_float
    if all(isinstance(v, bool) for v in values):
        return dt.bool_
    return dt.int64


def tensor(data, dtype: dt.dtype | None = None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, a number, or a tensor)."""
    check_device(device)
    values, shape = _flatten(data)
    kind = dtype or (data.dtype if isinstance(data, Tensor) else _infer_dtype(values, [data]))
    return Tensor(dt.cast_values(values, kind), shape, kind)


def as_tensor(data, dtype: dt.dtype | None = None, device=None) -> Tensor:
    """``data`` itself when it is already a tensor of that dtype, else :func:`tensor`."""
    if isinstance(data, Tensor):
        check_device(device)
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype=dtype, device=device)


def full(
    size, fill_value, *, dtype: dt.dtype | None = None, layout=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    check_device(device)
    shape = sizes_from_args((size,) if isinstance(size, int) else (tuple(size),))
    kind = dtype or dt.scalar_dtype(fill_value.item() if isinstance(fill_value, Tensor) else fill_value)
    value = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
    count = math.prod(shape)
    return Tensor(dt.cast_values([value], kind) * count, shape, kind)


def size_arguments(size: tuple, by_name: dict, function: str) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))``; any other keyword is one the subset lacks."""
    keyword = by_name.pop("size", None)
    if by_name:
        raise TypeError(f"{function}() got an unexpected keyword argument '{next(iter(by_name))}'")
    if keyword is not None:
        size = (tuple(keyword),) if isinstance(keyword, (tuple, list)) else (keyword,)
    return sizes_from_args(size)


def zeros(
    *size, dtype: dt.dtype | None = None, layout=None, device=None, requires_grad=False, pin_memory=False, **by_name
) -> Tensor:
    return full(size_arguments(size, by_name, "zeros"), 0, dtype=dtype or dt.default_float, device=device)


def ones(
    *size, dtype: dt.dtype | None = None, layout=None, device=None, requires_grad=False, pin_memory=False, **by_name
) -> Tensor:
    return full(size_arguments(size, by_name, "ones"), 1, dtype=dtype or dt.default_float, device=device)


empty = zeros  # the subset's "uninitialised" memory is zeros


def _like(x: Tensor, value, dtype, device) -> Tensor:
    check_device(device)
    return full(x._shape, value, dtype=dtype or x.dtype)


def zeros_like(x: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _like(x, 0, dtype, device)


def ones_like(x: Tensor, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _like(x, 1, dtype, device)


empty_like = zeros_like


def full_like(
    x: Tensor, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    return _like(x, fill_value, dtype, device)


def arange(
    start, end=None, step=1, *, dtype: dt.dtype | None = None, layout=None, device=None, requires_grad=False
) -> Tensor:
    """Like torch.arange: integers give int64, any float gives the default float dtype."""
    check_device(device)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    values = [start, end, step]
    kind = dtype or (dt.default_float if any(isinstance(v, float) for v in values) else dt.int64)
    count = max(0, math.ceil((end - start) / step))
    return Tensor(dt.cast_values([start + i * step for i in range(count)], kind), (count,), kind)


def linspace(
    start, end, steps: int, *, dtype: dt.dtype | None = None, layout=None, device=None, requires_grad=False
) -> Tensor:
    check_device(device)
    kind = dtype or dt.default_float
    if steps == 1:
        return Tensor(dt.cast_values([start], kind), (1,), kind)
    step = (end - start) / (steps - 1)
    half = steps // 2  # torch fills the second half from the end, so the last value is exactly `end`
    values = [start + i * step if i < half else end - (steps - 1 - i) * step for i in range(steps)]
    return Tensor(dt.cast_values(values, kind), (steps,), kind)
