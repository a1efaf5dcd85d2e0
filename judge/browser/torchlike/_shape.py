"""Shapes: sizes, strides, broadcasting and dim normalisation (torch's error messages)."""

from __future__ import annotations

from math import prod


class Size(tuple):
    """torch.Size: a tuple of ints that prints like torch's."""

    def numel(self) -> int:
        return prod(self)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, item):
        result = super().__getitem__(item)
        return Size(result) if isinstance(item, slice) else result


def normalize_dim(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative index into ``ndim`` dims (a 0-d tensor accepts 0 and -1)."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")
    return dim % bound


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        padded = (1,) * (ndim - len(shape)) + tuple(shape)
        for axis, size in enumerate(padded):
            if size == 1:
                continue
            if out[axis] not in (1, size):
                raise RuntimeError(
                    f"The size of tensor a ({out[axis]}) must match the size of tensor b ({size}) "
                    f"at non-singleton dimension {axis}"
                )
            out[axis] = size
    return tuple(out)


def strides(shape: tuple[int, ...]) -> list[int]:
    """Row-major strides of a contiguous tensor of ``shape``."""
    out, step = [0] * len(shape), 1
    for axis in range(len(shape) - 1, -1, -1):
        out[axis] = step
        step *= shape[axis]
    return out


def coordinates(shape: tuple[int, ...]):
    """(flat position, coordinate tuple) for every element of ``shape``, row-major."""
    points = [()]
    for size in shape:
        points = [c + (i,) for c in points for i in range(size)]
    return enumerate(points)


def source_positions(source_shape: tuple[int, ...], target_shape: tuple[int, ...]) -> list[int]:
    """For each element of ``target_shape`` (row-major), its flat position in a broadcast source."""
    ndim = len(target_shape)
    padded = (1,) * (ndim - len(source_shape)) + tuple(source_shape)
    steps = [0 if size == 1 else step for size, step in zip(padded, strides(padded))]
    positions = [0]
    for size, step in zip(target_shape, steps):
        positions = [base + i * step for base in positions for i in range(size)]
    return positions


def lanes(shape: tuple[int, ...], dim: int) -> tuple[int, int, int]:
    """(outer, size, inner) such that element [o, k, i] of a dim-``dim`` lane is at (o*size + k)*inner + i."""
    outer = prod(shape[:dim])
    inner = prod(shape[dim + 1 :])
    return outer, shape[dim] if shape else 1, inner


def infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """A reshape target with at most one -1 resolved; RuntimeError when it cannot hold ``numel``."""
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if prod(shape) != numel or any(s < 0 for s in shape):
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


def sizes_from_args(args) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for size in args:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"sizes must be ints, got {type(size).__name__}")
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}")
    return tuple(args)
