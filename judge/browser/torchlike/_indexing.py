"""``tensor[key]`` and ``tensor[key] = value``: ints, slices, None, Ellipsis, bool masks and
integer index tensors (advanced indexing, with numpy's and torch's placement of the new dims)."""

from __future__ import annotations

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._shape import broadcast_shapes, source_positions, strides
from judge.browser.torchlike._tensor import Tensor


def _as_index_tensor(item) -> Tensor | None:
    if isinstance(item, Tensor):
        return item
    if isinstance(item, (list, tuple)):
        from judge.browser.torchlike._creation import tensor

        return tensor(item)
    return None


def _expand_key(key, ndim: int) -> list:
    """The key as a list of items, one per source dim or None (new dim); masks become index tensors."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for item in key:
        plain = isinstance(item, (int, slice)) or item is None or item is Ellipsis
        index = None if plain else _as_index_tensor(item)
        if index is not None and index.dtype is dt.bool_:
            # A mask over k dims is k index tensors (its nonzero coordinates).
            from judge.browser.torchlike._sorting import nonzero

            coordinates = nonzero(index)
            if index.dim() == 0:
                raise IndexError("a 0-d boolean index is not supported in the browser subset")
            items.extend(("mask", coordinates[:, axis]) for axis in range(index.dim()))
        elif index is not None:
            if index.dtype.kind != "i":
                raise IndexError("tensors used as indices must be long, int or bool tensors")
            items.append(("index", index))
        elif isinstance(item, bool):
            raise IndexError("a Python bool as an index is not supported in the browser subset")
        else:
            items.append(item)
    used = sum(1 for item in items if item is not None and item is not Ellipsis)
    if sum(1 for item in items if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at : at + 1] = [slice(None)] * (ndim - used)
    else:
        items.extend([slice(None)] * (ndim - used))
    return items


def positions(tensor: Tensor, key) -> tuple[tuple[int, ...], list[int]]:
    """The result shape of ``tensor[key]`` and, in its row-major order, the flat source positions."""
    shape, steps = tensor._shape, strides(tensor._shape)
    items = _expand_key(key, len(shape))
    advanced = [i for i, item in enumerate(items) if isinstance(item, tuple)]
    ints_are_advanced = bool(advanced)
    # Each output axis: ("basic", [offsets]) or the block of advanced indices ("advanced", ...).
    axes: list[tuple[str, object]] = []
    adv_tensors, adv_strides, adv_sizes = [], [], []
    source_axis = 0
    for item in items:
        if item is None:
            axes.append(("basic", [0]))
            continue
        size, stride = shape[source_axis], steps[source_axis]
        if isinstance(item, tuple):
            index = item[1]
            for value in index._data:
                if not -size <= value < size:
                    raise IndexError(f"index {value} is out of bounds for dimension {source_axis} with size {size}")
            adv_tensors.append(index)
            adv_strides.append(stride)
            adv_sizes.append(size)
            axes.append(("advanced", None))
        elif isinstance(item, int):
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {source_axis} with size {size}")
            if ints_are_advanced:
                from judge.browser.torchlike._creation import tensor as make

                adv_tensors.append(make(item))
                adv_strides.append(stride)
                adv_sizes.append(size)
                axes.append(("advanced", None))
            else:
                axes.append(("fixed", (item % size) * stride))
        elif isinstance(item, slice):
            start, stop, step = item.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            axes.append(("basic", [i * stride for i in range(start, stop, step)]))
        else:
            raise IndexError(f"unsupported index {item!r} in the browser subset")
        source_axis += 1

    base = 0
    for kind, value in axes:
        if kind == "fixed":
            base += value
    axes = [axis for axis in axes if axis[0] != "fixed"]
    if adv_tensors:
        adv_shape = broadcast_shapes(*(t._shape for t in adv_tensors))
        columns = [[t._data[p] for p in source_positions(t._shape, adv_shape)] for t in adv_tensors]
        offsets = (
            [
                sum((v % size) * stride for v, size, stride in zip(values, adv_sizes, adv_strides))
                for values in zip(*columns)
            ]
            if columns[0]
            else []
        )
        marks = [i for i, axis in enumerate(axes) if axis[0] == "advanced"]
        basic_offsets = [(i, axis[1]) for i, axis in enumerate(axes) if axis[0] == "basic"]
        # numpy's rule (torch follows it): adjacent advanced indices put their dims where they
        # stand; advanced indices split by a slice put their dims first.
        if marks == list(range(marks[0], marks[0] + len(marks))):
            blocks = (
                [offs for i, offs in basic_offsets if i < marks[0]]
                + [offsets]
                + [offs for i, offs in basic_offsets if i > marks[0]]
            )
            shapes = (
                [len(offs) for i, offs in basic_offsets if i < marks[0]]
                + list(adv_shape)
                + [len(offs) for i, offs in basic_offsets if i > marks[0]]
            )
        else:
            blocks = [offsets] + [offs for _, offs in basic_offsets]
            shapes = list(adv_shape) + [len(offs) for _, offs in basic_offsets]
        flat = [base]
        for offs in blocks:
            flat = [f + o for f in flat for o in offs]
        return tuple(shapes), flat
    flat = [base]
    for _, offs in axes:
        flat = [f + o for f in flat for o in offs]
    return tuple(len(a[1]) for a in axes), flat


def getitem(tensor: Tensor, key) -> Tensor:
    shape, flat = positions(tensor, key)
    data = tensor._data
    return Tensor([data[p] for p in flat], shape, tensor.dtype)


def setitem(tensor: Tensor, key, value) -> None:
    from judge.browser.torchlike._elementwise import expand_to
    from judge.browser.torchlike._tensor import as_tensor_value

    shape, flat = positions(tensor, key)
    value = as_tensor_value(value, tensor.dtype if not isinstance(value, Tensor) else None)
    values = expand_to(value, shape)._data if value._shape != shape else value._data
    values = dt.cast_values(values, tensor.dtype)
    data = tensor._data
    for p, v in zip(flat, values):
        data[p] = v
