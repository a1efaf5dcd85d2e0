"""Tensor arguments: what every tensor spec shares (:class:`TensorSpec`: named dimensions, dtypes,
shape flaws), bool masks and token ids; the floating tensors with a value range (probabilities,
logits, uniforms, plain values) build on it in :mod:`judge.checks.arguments.floats`.

Dimensions are named (``dims=("B", "V")``): a name two arguments share must have one length, so a
wrong length there is a flaw; a dimension only one argument has may have any length (unless
``at_least`` says otherwise). Every tensor a spec makes can travel to the learner: its dtypes are
those :data:`judge.learner.wire.DTYPES` carries (float16, bfloat16 and bool included), else the spec is a
:class:`~judge.checks.base.CheckMisuse`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from judge.checks.arguments.base import ArgumentSpec, Edit, Flaw, Sizes, misuse, pairs
from judge.checks.arguments.ranges import zh
from judge.checks.base import CheckMisuse
from judge.learner import wire

FLOAT32_64 = (torch.float32, torch.float64)
INTEGER_AND_BOOL = (torch.int64, torch.int32, torch.uint8, torch.bool)  # "not a floating tensor"
HALF_PRECISION = (torch.float16, torch.bfloat16)  # refuse them where only float32/float64 are allowed
WIRE_DTYPES = frozenset(getattr(torch, name) for name in wire.DTYPES)  # what can travel to the learner
_RETRIES = 8  # tries at a random subset of slices that keeps every row legal, before giving a variant up


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _dtype_phrase(dtype: torch.dtype) -> tuple[str, str]:
    """A dtype's family in words (``"of an integer dtype"``, ``"整数类型的"``): what a hidden rule says."""
    if dtype == torch.bool:
        return "of dtype bool", "bool 类型的"
    if dtype in HALF_PRECISION:
        return "in half precision", "半精度的"
    if dtype.is_floating_point:
        return "of a floating dtype", "浮点类型的"
    return "of an integer dtype", "整数类型的"


def _nextafter(dtype: torch.dtype) -> Callable[[float, float], float]:
    """``math.nextafter`` in ``dtype`` (the nearest value it holds past ``x``, toward ``toward``)."""

    def step(x: float, toward: float) -> float:
        return float(torch.nextafter(torch.tensor(x, dtype=dtype), torch.tensor(toward, dtype=dtype)))

    return step


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _position(value: torch.Tensor, rng: random.Random) -> tuple[int, ...]:
    return tuple(rng.randrange(n) for n in value.shape)


def _row(value: torch.Tensor, rng: random.Random) -> tuple[int, ...]:
    """A random row (an index over every dimension but the last)."""
    return tuple(rng.randrange(n) for n in value.shape[:-1])


def _dtype_tuple(spec: str, argument: str, value: Any, *, empty: bool = False) -> tuple[torch.dtype, ...]:
    if isinstance(value, torch.dtype):
        value = (value,)
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise misuse(spec, argument, "a tuple of torch dtypes", value)
    dtypes = tuple(value)
    if not all(isinstance(d, torch.dtype) for d in dtypes) or (not dtypes and not empty):
        raise misuse(spec, argument, "a non-empty tuple of torch dtypes", value)
    cannot = [dtype_name(d) for d in dtypes if d not in WIRE_DTYPES]
    if cannot:
        raise CheckMisuse(
            spec,
            argument,
            "dtypes a tensor can travel in to the learner (" + ", ".join(sorted(wire.DTYPES)) + ")",
            ", ".join(cannot),
        )
    return dtypes


@dataclass(frozen=True, kw_only=True)
class TensorSpec(ArgumentSpec):
    """A tensor whose dimensions are named by ``dims`` (its rank is their number, at least 1).

    ``dtypes``: the dtypes allowed; ``wrong_dtypes``: those the statement refuses (one variant each
    under :attr:`Flaw.DTYPE`, with legal values); ``at_least``: a dimension's smallest legal length
    (``{"n": 2}``: one less is a :attr:`Flaw.SHAPE`); ``same_dtype_as``: another tensor argument whose
    dtype this one must have (:attr:`Flaw.DTYPE_MISMATCH`). Structural flaws: :attr:`Flaw.NOT_A_TENSOR`
    (the same values as a Python list), :attr:`Flaw.RANK` (one dimension fewer: one slice of the
    first; one more: ``unsqueeze(0)``), :attr:`Flaw.SHAPE` (one more and one fewer along each shared
    dimension, one below the minimum of each ``at_least`` dimension).
    """

    dims: tuple[str, ...]
    dtypes: tuple[torch.dtype, ...] = FLOAT32_64
    wrong_dtypes: tuple[torch.dtype, ...] = INTEGER_AND_BOOL
    at_least: Mapping[str, int] | tuple[tuple[str, int], ...] = ()
    same_dtype_as: str | None = None
    REFUSABLE: ClassVar[frozenset[Flaw]] = frozenset(
        {Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.SHAPE, Flaw.DTYPE, Flaw.DTYPE_MISMATCH}
    )
    KEEPS_ROW_MAX: ClassVar[bool] = False  # corners leave each row's largest entry as it is

    def __post_init__(self) -> None:
        super().__post_init__()
        spec = type(self).__name__
        dims = tuple(self.dims) if isinstance(self.dims, (tuple, list)) else None
        if not dims or not all(isinstance(d, str) and d.isidentifier() for d in dims):
            raise misuse(spec, "dims", 'a non-empty tuple of dimension names, such as ("B", "V")', self.dims)
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "dtypes", _dtype_tuple(spec, "dtypes", self.dtypes))
        object.__setattr__(self, "wrong_dtypes", _dtype_tuple(spec, "wrong_dtypes", self.wrong_dtypes, empty=True))
        try:
            at_least = pairs(self.at_least)
        except (TypeError, ValueError, AttributeError):
            raise misuse(spec, "at_least", "a mapping of dimension names to ints >= 1", self.at_least) from None
        for d, m in at_least:
            if d not in dims or isinstance(m, bool) or not isinstance(m, int) or m < 1:
                raise misuse(spec, "at_least", f"a mapping of names in dims {list(dims)} to ints >= 1", self.at_least)
        object.__setattr__(self, "at_least", at_least)
        if self.same_dtype_as is not None and not isinstance(self.same_dtype_as, str):
            raise misuse(spec, "same_dtype_as", "the name of another tensor argument, or None", self.same_dtype_as)
        if Flaw.DTYPE in self.refuse and not set(self.wrong_dtypes) - set(self.dtypes):
            raise misuse(
                spec, "wrong_dtypes", "the dtypes Flaw.DTYPE refuses (none of them allowed)", self.wrong_dtypes
            )
        if Flaw.DTYPE_MISMATCH in self.refuse and (self.same_dtype_as is None or len(self.dtypes) < 2):
            raise misuse(spec, "same_dtype_as", "an argument to match, with two dtypes allowed", self.same_dtype_as)

    # --- the contract's view --------------------------------------------------------------------

    def minimum(self, dim: str) -> int:
        return dict(self.at_least).get(dim, 0)

    def smallest(self, dim: str) -> int:
        return max(1, self.minimum(dim))

    def dim_names(self) -> tuple[str, ...]:
        return self.dims

    def good_problem(self, value: Any) -> str | None:
        if not isinstance(value, torch.Tensor) or value.dim() != len(self.dims) or value.dtype not in self.dtypes:
            allowed = " or ".join(dtype_name(d) for d in self.dtypes)
            return f"a {allowed} tensor of {len(self.dims)} dimensions {list(self.dims)}"
        return "a tensor with at least one entry" if value.numel() == 0 else None

    def bind(self, name: str, value: Any) -> dict[str, int]:
        return {d: int(n) for d, n in zip(self.dims, value.shape, strict=True)}

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        if not isinstance(value, torch.Tensor):
            return {Flaw.NOT_A_TENSOR}
        if value.dim() != len(self.dims):
            return {Flaw.RANK}
        out: set[Flaw] = set()
        if value.dtype not in self.dtypes:
            out.add(Flaw.DTYPE)
        elif self.same_dtype_as is not None and sizes.dtypes.get(self.same_dtype_as, value.dtype) != value.dtype:
            out.add(Flaw.DTYPE_MISMATCH)
        for axis, d in enumerate(self.dims):
            length = value.shape[axis]
            if (d in sizes.shared and length != sizes.dims.get(d)) or length < self.minimum(d):
                out.add(Flaw.SHAPE)
        return out | self.value_flaws(value, sizes)

    def value_flaws(self, value: torch.Tensor, sizes: Sizes) -> set[Flaw]:
        """What is wrong with the entries (any dtype: read as float64), rows included."""
        return set()

    # --- bad inputs --------------------------------------------------------------------------------

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        shape = list(value.shape)
        if Flaw.NOT_A_TENSOR in self.refuse:
            out.append(
                Edit(
                    Flaw.NOT_A_TENSOR.value,
                    value.tolist(),
                    f"{name} as a Python list (of shape {shape})",
                    f"{name} as a Python list instead of a tensor",
                    zh(f"Python 列表形式（而非张量）的 {name}"),
                )
            )
        if Flaw.RANK in self.refuse:
            fewer = value[rng.randrange(value.shape[0])].clone()
            out.append(
                Edit(
                    Flaw.RANK.value,
                    fewer,
                    f"{name} of shape {list(fewer.shape)} (one dimension fewer than {list(self.dims)})",
                    f"{name} with one dimension fewer",
                    zh(f"少一个维度的 {name}"),
                )
            )
            more = value.unsqueeze(0).clone()
            out.append(
                Edit(
                    Flaw.RANK.value,
                    more,
                    f"{name} of shape {list(more.shape)} (one dimension more than {list(self.dims)})",
                    f"{name} with one dimension more",
                    zh(f"多一个维度的 {name}"),
                )
            )
        if Flaw.SHAPE in self.refuse:
            out += self._shape_edits(name, value, sizes, rng)
        if Flaw.DTYPE in self.refuse:
            for dtype in self.wrong_dtypes:
                cast = None if dtype in self.dtypes else self._cast(value, dtype, sizes)
                if cast is not None:
                    en, zh_ = _dtype_phrase(dtype)
                    out.append(
                        Edit(Flaw.DTYPE.value, cast, f"{name} of dtype {dtype}", f"{name} {en}", zh(f"{zh_} {name}"))
                    )
        if Flaw.DTYPE_MISMATCH in self.refuse and self.same_dtype_as is not None:
            other = sizes.dtypes[self.same_dtype_as]
            for dtype in self.dtypes:
                cast = None if dtype == other else self._cast(value, dtype, sizes)
                if cast is not None:
                    out.append(
                        Edit(
                            Flaw.DTYPE_MISMATCH.value,
                            cast,
                            f"{name} of dtype {dtype} while {self.same_dtype_as} is {other}",
                            f"{name} of another dtype than {self.same_dtype_as}",
                            zh(f"dtype 与 {self.same_dtype_as} 不同的 {name}"),
                        )
                    )
        return out + self.value_edits(name, value, sizes, rng)

    def value_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        """The refused flaws of the entries (kinds with a value range, rows)."""
        return []

    def _shape_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        for axis, d in enumerate(self.dims):
            length, least = value.shape[axis], self.minimum(d)
            lengths = []
            if d in sizes.shared:
                lengths.append(length + 1)
                if length - 1 >= max(1, least):
                    lengths.append(length - 1)
            if least and least - 1 not in lengths:
                lengths.append(least - 1)
            for k in lengths:
                new = self._with_length(value, axis, k, sizes, rng)
                if new is None:
                    continue
                shape = list(new.shape)
                if k < least:
                    texts = (
                        f"{name} of shape {shape} ({d} = {k}, fewer than {least})",
                        f"{name} with fewer than {least} entries along {d}",
                        zh(f"{d} 维长度小于 {least} 的 {name}"),
                    )
                else:
                    texts = (
                        f"{name} of shape {shape} (its {d} is {k}, the other arguments' {length})",
                        f"{name} of the wrong length along {d}",
                        zh(f"{d} 维长度不对的 {name}"),
                    )
                out.append(Edit(Flaw.SHAPE.value, new, *texts))
        return out

    def _with_length(
        self, value: torch.Tensor, axis: int, k: int, sizes: Sizes, rng: random.Random
    ) -> torch.Tensor | None:
        """``value`` made ``k`` long along ``axis``: random slices repeated at the end, or a random
        subset kept in order; None when no subset tried keeps the entries legal."""
        n = value.shape[axis]
        for _ in range(_RETRIES):
            if k >= n:
                index = list(range(n)) + [rng.randrange(n) for _ in range(k - n)]
            else:
                index = sorted(rng.sample(range(n), k))
            new = value.index_select(axis, torch.tensor(index, dtype=torch.int64))
            if not self.value_flaws(new, sizes):
                return new
        return None

    def _cast(self, value: torch.Tensor, dtype: torch.dtype, sizes: Sizes) -> torch.Tensor | None:
        """``value`` in ``dtype`` with legal entries: converted as it is where that keeps them legal,
        else legal small whole numbers (:meth:`integral`); None when the kind has none in ``dtype``."""
        if dtype.is_floating_point:
            cast = value.to(dtype)
            if not self.value_flaws(cast, sizes):
                return cast
        whole = self.integral(value)
        if whole is None:
            return None
        if dtype == torch.bool:
            if not bool(((whole == 0) | (whole == 1)).all()):
                return None
            cast = whole != 0
        else:
            cast = whole.to(dtype)
        return None if self.value_flaws(cast, sizes) else cast

    def integral(self, value: torch.Tensor) -> torch.Tensor | None:
        """Legal whole-number entries of ``value``'s shape (int64), preferably 0 and 1 (bool holds
        them), for a variant whose only flaw is an integer or bool dtype; None when there are none."""
        return value.to(torch.int64)

    # --- legal corners -----------------------------------------------------------------------------

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        for dtype in self.dtypes if name not in sizes.dtype_linked else ():
            if dtype != value.dtype:
                cast = value.to(dtype)
                if not self.value_flaws(cast, sizes):
                    out.append(
                        Edit(
                            "dtype",
                            cast,
                            f"{name} in {dtype}",
                            f"{name} in {dtype_name(dtype)}",
                            zh(f"{dtype_name(dtype)} 的 {name}"),
                        )
                    )
        return out + self.corner_edits(name, value, sizes, rng)

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        """The kind's own legal corners (exact zeros, -inf logits, u = 0, ...)."""
        return []

    def corner_positions(self, value: torch.Tensor, rng: random.Random) -> list[tuple[int, ...]]:
        """About a quarter of the entries, at least one, chosen at random; never a row's largest entry
        where :attr:`KEEPS_ROW_MAX` (a row of probabilities keeps its mass, a row of logits a finite one)."""
        candidates = [tuple(i) for i in torch.ones(value.shape, dtype=torch.bool).nonzero().tolist()]
        if self.KEEPS_ROW_MAX:
            largest = value.to(torch.float64).argmax(dim=-1, keepdim=True)
            columns = torch.arange(value.shape[-1]).expand(value.shape)
            keep = (columns != largest).nonzero().tolist()
            candidates = [tuple(i) for i in keep]
        if not candidates:
            return []
        return rng.sample(candidates, max(1, len(candidates) // 4))

    def resized(self, value: Any, dim: str, size: int) -> Any:
        for axis, d in enumerate(self.dims):
            if d == dim:
                value = value.narrow(axis, 0, size)
        return self.repaired(value)

    def repaired(self, value: torch.Tensor) -> torch.Tensor:
        """``value`` with each row made legal again after a resize cut it (a row of probabilities
        left all zero, a row of logits left all -inf)."""
        return value


@dataclass(frozen=True, kw_only=True)
class Mask(TensorSpec):
    """A bool tensor (an event, a mask). Legal corners: a row all False, a row all True."""

    dtypes: tuple[torch.dtype, ...] = (torch.bool,)
    wrong_dtypes: tuple[torch.dtype, ...] = (torch.int64, torch.uint8, torch.float32)

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        for fill, en, zh_ in ((False, "false", "False"), (True, "true", "True")):
            row = _row(value, rng)
            new = value.clone()
            new[row] = fill
            out.append(
                Edit(
                    f"row_all_{en}",
                    new,
                    f"{name} with row {list(row)} all {fill}",
                    f"a row of {name} all {en}",
                    zh(f"有一行全为 {zh_} 的 {name}"),
                )
            )
        return out


@dataclass(frozen=True, kw_only=True)
class TokenIds(TensorSpec):
    """Token ids (int64 by default) into a vocabulary whose size is the dimension ``vocab`` of another
    argument (``vocab="V"``): ids in ``[0, V)`` (:attr:`Flaw.BELOW`: -1 and further below;
    :attr:`Flaw.ABOVE`: V and further above), or, with ``in_range=False`` ("ids may be anything"),
    any id (then -1 and V are legal corners). Legal corners: ids 0 and V - 1."""

    vocab: str
    in_range: bool = True
    dtypes: tuple[torch.dtype, ...] = (torch.int64,)
    wrong_dtypes: tuple[torch.dtype, ...] = (torch.int32, torch.float32)
    REFUSABLE: ClassVar[frozenset[Flaw]] = TensorSpec.REFUSABLE | {Flaw.BELOW, Flaw.ABOVE}

    def __post_init__(self) -> None:
        super().__post_init__()
        spec = type(self).__name__
        if not isinstance(self.vocab, str) or not self.vocab.isidentifier():
            raise misuse(spec, "vocab", "the name of the vocabulary's dimension, such as 'V'", self.vocab)
        if not self.in_range and self.refuse & {Flaw.BELOW, Flaw.ABOVE}:
            raise misuse(spec, "refuse", "no BELOW or ABOVE where in_range=False lets ids be anything", "BELOW/ABOVE")
        if any(d.is_floating_point for d in self.dtypes):
            raise misuse(spec, "dtypes", "integer dtypes", self.dtypes)

    def dim_names(self) -> tuple[str, ...]:
        return (*self.dims, self.vocab)

    def value_flaws(self, value: torch.Tensor, sizes: Sizes) -> set[Flaw]:
        if not self.in_range:
            return set()
        x = value.detach().to(torch.float64)
        out = set()
        if bool((x < 0).any()):
            out.add(Flaw.BELOW)
        if bool((x >= sizes.dims[self.vocab]).any()):
            out.add(Flaw.ABOVE)
        return out

    def value_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        vocab = sizes.dims[self.vocab]
        further = rng.randrange(2, 1000)
        chosen = [
            (Flaw.BELOW, -1, "a negative id", "负数 id"),
            (Flaw.BELOW, -further, "a negative id", "负数 id"),
            (Flaw.ABOVE, vocab, f"an id >= {self.vocab}", f">= {self.vocab} 的 id"),
            (Flaw.ABOVE, vocab + further, f"an id >= {self.vocab}", f">= {self.vocab} 的 id"),
        ]
        out = []
        for flaw, bad, en, zh_ in chosen:
            if flaw in self.refuse:
                at = _position(value, rng)
                new = value.clone()
                new[at] = bad
                out.append(
                    Edit(
                        flaw.value,
                        new,
                        f"{name} holding {bad} at {list(at)}",
                        f"{name} holding {en}",
                        zh(f"含 {zh_} 的 {name}"),
                    )
                )
        return out

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        vocab = sizes.dims[self.vocab]
        corners = [
            (
                "id_ends",
                (0, vocab - 1),
                f"{name} holding ids 0 and {self.vocab} - 1",
                f"含 id 0 与 {self.vocab} - 1 的",
            ),
        ]
        if not self.in_range:
            corners.append(
                (
                    "ids_outside",
                    (-1, vocab),
                    f"{name} holding ids outside [0, {self.vocab})",
                    f"含 [0, {self.vocab}) 之外 id 的",
                )
            )
        everywhere = [tuple(i) for i in torch.ones(value.shape, dtype=torch.bool).nonzero().tolist()]
        out = []
        for kind, ids, en, zh_ in corners:
            new = value.clone()
            at = rng.sample(everywhere, min(len(everywhere), max(2, len(everywhere) // 4)))
            for k, index in enumerate(at):
                new[index] = ids[k % 2]
            out.append(
                Edit(kind, new, f"{name} holding ids {list(ids)} at {_entries(len(at))}", en, zh(f"{zh_} {name}"))
            )
        return out

    def resized(self, value: Any, dim: str, size: int) -> Any:
        value = super().resized(value, dim, size)
        return value.clamp(max=size - 1) if dim == self.vocab and self.in_range else value
