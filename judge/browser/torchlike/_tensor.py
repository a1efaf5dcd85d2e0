"""The Tensor: a flat Python list in row-major order, a shape, a dtype, on the "cpu".

Reshape-like operations (``view``, ``reshape``, ``flatten``, ``squeeze``, ``unsqueeze``) share
the list, so writing through them writes the original, as in torch. Everything else that
torch answers with a strided view (slicing, ``expand``, ``transpose``) returns a copy here: an
in-place write to such a result does not reach the original. Operations are attached in
:mod:`judge.browser.torchlike._methods`. :func:`result_type` (torch's promotion over tensors and
scalars) lives here, beside the Tensor it inspects, on :mod:`~judge.browser.torchlike._dtypes`' rules.
"""

from __future__ import annotations

import math

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._errors import UnsupportedOperation
from judge.browser.torchlike._shape import Size, infer_shape, normalize_dim


class device:
    """torch.device; the subset runs on the CPU only."""

    def __init__(self, spec="cpu", index: int | None = None) -> None:
        if isinstance(spec, device):
            spec = spec.type
        name = str(spec).split(":")[0]
        if name != "cpu":
            raise RuntimeError(f"the browser has no {spec!r} device; only 'cpu' (use Submit to judge on a GPU)")
        self.type, self.index = "cpu", None

    def __eq__(self, other) -> bool:
        return isinstance(other, (device, str)) and str(other).split(":")[0] == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"


CPU = device("cpu")


def check_device(spec) -> None:
    if spec is not None:
        device(spec)


class _TensorType(type):
    """``torch.Tensor.name`` for a method the subset lacks says so, as ``tensor.name`` does."""

    def __getattr__(cls, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedOperation(f"Tensor.{name}")


class Tensor(metaclass=_TensorType):
    """A dense tensor (see the module docstring for what is shared and what is copied)."""

    __slots__ = ("_data", "_shape", "dtype", "__weakref__")

    def __init__(self, data: list, shape: tuple[int, ...], dtype: dt.dtype) -> None:
        self._data = data
        self._shape = tuple(shape)
        self.dtype = dtype

    # --- what a tensor is ------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim: int | None = None):
        return self.shape if dim is None else self._shape[normalize_dim(dim, self.dim())]

    def dim(self) -> int:
        return len(self._shape)

    ndim = property(dim)

    def numel(self) -> int:
        return len(self._data)

    nelement = numel

    @property
    def device(self) -> device:
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def requires_grad(self) -> bool:
        return False

    @property
    def data(self) -> Tensor:
        return self

    @property
    def T(self) -> Tensor:  # noqa: N802 - torch's name
        return self.permute(*reversed(range(self.dim())))

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def element_size(self) -> int:
        return self.dtype.itemsize

    def is_contiguous(self) -> bool:
        return True

    def contiguous(self) -> Tensor:
        return self

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    def __hash__(self) -> int:
        return id(self)

    # --- Python values ---------------------------------------------------------------------

    def item(self):
        if len(self._data) != 1:
            raise RuntimeError(f"a Tensor with {len(self._data)} elements cannot be converted to Scalar")
        return self._data[0]

    def tolist(self):
        def build(offset: int, dims: tuple[int, ...]):
            if not dims:
                return self._data[offset]
            step = math.prod(dims[1:])
            return [build(offset + i * step, dims[1:]) for i in range(dims[0])]

        return build(0, self._shape)

    def __bool__(self) -> bool:
        if len(self._data) != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data[0])

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.kind == "f" or len(self._data) != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data[0])

    def __repr__(self) -> str:
        def fmt(value) -> str:
            if self.dtype is dt.bool_:
                return "True" if value else "False"
            if self.dtype.kind == "i":
                return str(value)
            if value != value:
                return "nan"
            if value in (float("inf"), float("-inf")):
                return "inf" if value > 0 else "-inf"
            return f"{value:.4f}"

        def build(nested) -> str:
            if isinstance(nested, list):
                return "[" + ", ".join(build(item) for item in nested) + "]"
            return fmt(nested)

        suffix = "" if self.dtype in (dt.float32, dt.int64, dt.bool_) else f", dtype={self.dtype!r}"
        return f"tensor({build(self.tolist())}{suffix})"

    def numpy(self):
        raise UnsupportedOperation("Tensor.numpy", "there is no numpy in the browser")

    def cuda(self, *args, **kwargs):
        raise UnsupportedOperation("Tensor.cuda", "the browser has no GPU")

    def backward(self, *args, **kwargs):
        raise UnsupportedOperation("Tensor.backward", "the subset has no autograd")

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedOperation(f"Tensor.{name}")

    # --- shape-sharing views ---------------------------------------------------------------

    def view(self, *shape) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], dt.dtype):
            raise UnsupportedOperation("Tensor.view(dtype)")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return Tensor(self._data, infer_shape(shape, len(self._data)), self.dtype)

    reshape = view

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other._shape)

    reshape_as = view_as

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        if not self._shape:
            return self.view(1)
        start, end = normalize_dim(start_dim, self.dim()), normalize_dim(end_dim, self.dim())
        middle = math.prod(self._shape[start : end + 1])
        return self.view(self._shape[:start] + (middle,) + self._shape[end + 1 :])

    def squeeze(self, dim=None) -> Tensor:
        if dim is None:
            return self.view(tuple(s for s in self._shape if s != 1))
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        drop = {normalize_dim(d, self.dim()) for d in dims}
        return self.view(tuple(s for i, s in enumerate(self._shape) if not (i in drop and s == 1)))

    def unsqueeze(self, dim: int) -> Tensor:
        dim = normalize_dim(dim, self.dim() + 1)
        return self.view(self._shape[:dim] + (1,) + self._shape[dim:])

    # --- copies ----------------------------------------------------------------------------

    def clone(self) -> Tensor:
        return Tensor(list(self._data), self._shape, self.dtype)

    def detach(self) -> Tensor:
        return self

    def cpu(self) -> Tensor:
        return self

    def to(self, *args, **kwargs) -> Tensor:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``; also ``dtype=``/``device=``."""
        target = kwargs.pop("dtype", None)
        check_device(kwargs.pop("device", None))
        kwargs.pop("non_blocking", None)
        kwargs.pop("copy", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got unexpected arguments {sorted(kwargs)}")
        for arg in args:
            if isinstance(arg, dt.dtype):
                target = arg
            elif isinstance(arg, Tensor):
                target = arg.dtype
            else:
                check_device(arg)
        if target is None or target is self.dtype:
            return self
        return Tensor(dt.cast_values(self._data, target), self._shape, target)

    def type(self, dtype=None):
        if dtype is None:
            return {
                "float32": "torch.FloatTensor",
                "float64": "torch.DoubleTensor",
                "float16": "torch.HalfTensor",
                "bfloat16": "torch.BFloat16Tensor",
                "int64": "torch.LongTensor",
                "int32": "torch.IntTensor",
                "bool": "torch.BoolTensor",
            }[self.dtype.name]
        return self.to(dtype)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def float(self) -> Tensor:
        return self.to(dt.float32)

    def double(self) -> Tensor:
        return self.to(dt.float64)

    def half(self) -> Tensor:
        return self.to(dt.float16)

    def bfloat16(self) -> Tensor:
        return self.to(dt.bfloat16)

    def long(self) -> Tensor:
        return self.to(dt.int64)

    def int(self) -> Tensor:
        return self.to(dt.int32)

    def bool(self) -> Tensor:
        return self.to(dt.bool_)

    # --- in place --------------------------------------------------------------------------

    def _assign(self, result: Tensor) -> Tensor:
        """Write ``result`` (broadcast to this shape, cast to this dtype) into this tensor's storage."""
        from judge.browser.torchlike._shape import broadcast_shapes, source_positions

        if broadcast_shapes(self._shape, result._shape) != self._shape:
            raise RuntimeError(
                f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                f"{list(broadcast_shapes(self._shape, result._shape))}"
            )
        if (
            self.dtype.kind != "f"
            and result.dtype.kind == "f"
            or self.dtype is dt.bool_
            and result.dtype is not dt.bool_
        ):
            raise RuntimeError(
                f"result type {result.dtype.name.capitalize()} can't be cast to the desired output "
                f"type {self.dtype.name.capitalize()}"
            )
        values = (
            result._data
            if result._shape == self._shape
            else [result._data[p] for p in source_positions(result._shape, self._shape)]
        )
        self._data[:] = dt.cast_values(values, self.dtype)
        return self

    def copy_(self, source) -> Tensor:
        source = as_tensor_value(source, self.dtype)
        values = source if source._shape == self._shape else source.expand(self._shape)
        self._data[:] = dt.cast_values(values._data, self.dtype)
        return self

    def fill_(self, value) -> Tensor:
        self._data[:] = dt.cast_values([_scalar(value)] * len(self._data), self.dtype)
        return self

    def zero_(self) -> Tensor:
        return self.fill_(0)


def _scalar(value):
    if isinstance(value, Tensor):
        return value.item()
    return value


def as_tensor_value(value, dtype: dt.dtype | None = None) -> Tensor:
    """``value`` as a Tensor: tensors as they are, Python scalars as 0-d tensors (own dtype, or ``dtype``)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)):
        kind = dtype or dt.scalar_dtype(value)
        return Tensor(dt.cast_values([value], kind), (), kind)
    raise TypeError(f"expected a Tensor or a number, got {type(value).__name__}")


def _combine(higher: dt.dtype | None, lower: dt.dtype | None) -> dt.dtype | None:
    # c10's combine_categories: a lower-priority operand only matters when it is of a higher category.
    if higher is None:
        return lower
    if lower is None or higher.kind == "f":
        return higher
    if higher is dt.bool_ or lower.kind == "f":
        return dt.promote_types(higher, lower)
    return higher


def result_type(*operands) -> dt.dtype:
    """torch.result_type over tensors and Python scalars (dimensioned > zero-dim > scalars)."""
    dimmed = zero_dim = wrapped = None
    for operand in operands:
        if isinstance(operand, Tensor):
            if operand.dim() > 0:
                dimmed = operand.dtype if dimmed is None else dt.promote_types(dimmed, operand.dtype)
            else:
                zero_dim = operand.dtype if zero_dim is None else dt.promote_types(zero_dim, operand.dtype)
        else:
            kind = dt.scalar_dtype(operand)
            wrapped = kind if wrapped is None else dt.promote_types(wrapped, kind)
    return _combine(dimmed, _combine(zero_dim, wrapped))
