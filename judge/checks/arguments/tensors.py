"""Tensor arguments: floating tensors with a value range (probabilities, logits, uniforms, plain values),
bool masks and token ids.

Dimensions are named (``dims=("B", "V")``): a name two arguments share must have one length, so a
wrong length there is a flaw; a dimension only one argument has may have any length (unless
``at_least`` says otherwise). Every tensor a spec makes can travel to the learner: its dtypes are
those :data:`judge.learner.wire.DTYPES` carries (float16, bfloat16 and bool included), else the spec is a
:class:`~judge.checks.base.CheckMisuse`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from judge.checks.arguments.base import ArgumentSpec, Edit, Flaw, Sizes, misuse, number_text, pairs
from judge.checks.arguments.ranges import Range, zh
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
class FloatTensor(TensorSpec):
    """A floating tensor whose entries lie in a :class:`~judge.checks.arguments.ranges.Range` (``low``,
    ``high``, each end open or closed or absent), finite except -inf where ``neginf``.

    Value flaws: :attr:`Flaw.NAN`, :attr:`Flaw.POSINF`, :attr:`Flaw.NEGINF` at a random entry;
    :attr:`Flaw.BELOW`/:attr:`Flaw.ABOVE`: at a random entry, an open end itself, the nearest value
    outside in the tensor's dtype (-1.4e-45 below 0 in float32; 1 + ulp above 1), and one further
    out. Legal corners: each other allowed dtype, and at random entries each closed end exactly and
    the largest value below an open upper end (u = the largest float below 1), in every allowed dtype.
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    neginf: bool = False  # -inf entries are allowed (logits)
    REFUSABLE: ClassVar[frozenset[Flaw]] = TensorSpec.REFUSABLE | {
        Flaw.NAN,
        Flaw.POSINF,
        Flaw.NEGINF,
        Flaw.BELOW,
        Flaw.ABOVE,
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        spec = type(self).__name__
        for end in ("low", "high"):
            bound = getattr(self, end)
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, (int, float))):
                raise misuse(spec, end, "a finite number or None", bound)
            if bound is not None and not math.isfinite(bound):
                raise misuse(spec, end, "a finite number or None", bound)
        if self.low is not None and self.high is not None and self.low >= self.high:
            raise misuse(spec, "high", f"a number above low = {self.low!r}", self.high)
        if not all(d.is_floating_point for d in self.dtypes):
            raise misuse(spec, "dtypes", "floating dtypes", self.dtypes)
        if self.neginf and Flaw.NEGINF in self.refuse:
            raise misuse(spec, "refuse", "no Flaw.NEGINF where neginf=True allows -inf", sorted(self.refuse))
        for flaw, bound in ((Flaw.BELOW, self.low), (Flaw.ABOVE, self.high)):
            if flaw in self.refuse and bound is None:
                raise misuse(spec, "refuse", f"no Flaw.{flaw.name} without a bound on that side", sorted(self.refuse))

    @property
    def range(self) -> Range:
        return Range(self.low, self.high, self.low_open, self.high_open)

    def value_flaws(self, value: torch.Tensor, sizes: Sizes) -> set[Flaw]:
        x = value.detach().to(torch.float64)
        out: set[Flaw] = set()
        nan, posinf, neginf = torch.isnan(x), x == math.inf, x == -math.inf
        bad = nan | posinf
        if bool(nan.any()):
            out.add(Flaw.NAN)
        if bool(posinf.any()):
            out.add(Flaw.POSINF)
        if not self.neginf:
            bad = bad | neginf
            if bool(neginf.any()):
                out.add(Flaw.NEGINF)
        finite = torch.isfinite(x)
        if self.low is not None:
            below = finite & ((x < self.low) | ((x == self.low) if self.low_open else torch.zeros_like(finite)))
            bad = bad | below
            if bool(below.any()):
                out.add(Flaw.BELOW)
        if self.high is not None:
            above = finite & ((x > self.high) | ((x == self.high) if self.high_open else torch.zeros_like(finite)))
            bad = bad | above
            if bool(above.any()):
                out.add(Flaw.ABOVE)
        if x.dim() >= 1:
            out |= self.row_flaws(x, ~bad.any(dim=-1))
        return out

    def row_flaws(self, x: torch.Tensor, rows_ok: torch.Tensor) -> set[Flaw]:
        """The flaws of whole rows (the last dimension) of ``x`` (float64), counted only on rows whose
        entries are each legal (``rows_ok``): a negative entry is one flaw, not two."""
        return set()

    def value_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        refused = self.refuse - ({Flaw.NEGINF} if self.neginf else set())
        for bad in self.range.bad_values(refused, rng, _nextafter(value.dtype)):
            at = _position(value, rng)
            new = value.clone()
            new[at] = bad.value
            held = float(new[at])
            out.append(
                Edit(
                    bad.flaw.value,
                    new,
                    f"{name} holding {number_text(held)} at {list(at)}",
                    f"{name} holding {bad.en}",
                    zh(f"含 {bad.zh} 的 {name}"),
                )
            )
        return out + self.row_edits(name, value, rng)

    def row_edits(self, name: str, value: torch.Tensor, rng: random.Random) -> list[Edit]:
        """The refused flaws of whole rows (a row summing to 0, a row of -inf)."""
        return []

    def integral(self, value: torch.Tensor) -> torch.Tensor | None:
        """1 where an entry is positive, else 0; a constant where the range holds only one of them."""
        zero, one = self.range.allows(0.0), self.range.allows(1.0)
        if zero and one:
            return (value > 0).to(torch.int64)
        for whole in (0, 1, -1, 2):
            if self.range.allows(float(whole)):
                return torch.full(value.shape, whole, dtype=torch.int64)
        return None

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        forms = [value]
        if name not in sizes.dtype_linked:
            forms += [value.to(d) for d in self.dtypes if d != value.dtype]
        out = []
        for form in forms:
            for kind, end, en, zh_ in self.range.legal_ends(_nextafter(form.dtype)):
                at = self.corner_positions(form, rng)
                if not at:
                    continue
                new = form.clone()
                for index in at:
                    new[index] = end
                new = self.repaired(new)
                if self.value_flaws(new, sizes):
                    continue
                en_text, zh_text = self.end_phrase(kind, name, en, zh_)
                out.append(
                    Edit(
                        kind,
                        new,
                        f"{name} ({form.dtype}) holding {number_text(end)} at {_entries(len(at))}",
                        en_text,
                        zh_text,
                    )
                )
        return out

    def end_phrase(self, kind: str, name: str, en: str, zh_: str) -> tuple[str, str]:
        """A legal end's corner in words (``"u holding the largest float below its upper end"``)."""
        return f"{name} holding {en}", zh(f"含 {zh_} 的 {name}")


@dataclass(frozen=True, kw_only=True)
class Probabilities(FloatTensor):
    """Probabilities or weights ``[..., V]``: finite entries ``>= 0`` (``low_open=True``: ``> 0``, no
    exact zeros), each row summing to more than 0 (:attr:`Flaw.ZERO_ROW`), or to 1 within
    ``tolerance`` where ``normalized`` (:attr:`Flaw.NOT_NORMALIZED`). Legal corners: exact zeros
    (never a row's largest entry), and where weights are allowed a row scaled by a power of two
    (not summing to 1) and a row of tiny weights (scaled by 2**-30)."""

    low: float | None = 0.0
    normalized: bool = False
    tolerance: float = 1e-6
    REFUSABLE: ClassVar[frozenset[Flaw]] = FloatTensor.REFUSABLE | {Flaw.ZERO_ROW, Flaw.NOT_NORMALIZED}
    KEEPS_ROW_MAX: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        spec = type(self).__name__
        if self.low is None or self.low < 0:
            raise misuse(spec, "low", "a number >= 0 (probabilities are never negative)", self.low)
        if Flaw.ZERO_ROW in self.refuse and self.normalized:
            raise misuse(spec, "refuse", "Flaw.NOT_NORMALIZED for normalized rows (a zero row is one)", "ZERO_ROW")
        if Flaw.NOT_NORMALIZED in self.refuse and not self.normalized:
            raise misuse(spec, "refuse", "Flaw.NOT_NORMALIZED only with normalized=True", "NOT_NORMALIZED")
        if isinstance(self.tolerance, bool) or not isinstance(self.tolerance, (int, float)) or not self.tolerance > 0:
            raise misuse(spec, "tolerance", "a number > 0", self.tolerance)

    def row_flaws(self, x: torch.Tensor, rows_ok: torch.Tensor) -> set[Flaw]:
        sums = x.sum(dim=-1)
        if self.normalized:
            return {Flaw.NOT_NORMALIZED} if bool((rows_ok & ((sums - 1).abs() > self.tolerance)).any()) else set()
        return {Flaw.ZERO_ROW} if bool((rows_ok & (sums <= 0)).any()) else set()

    def row_edits(self, name: str, value: torch.Tensor, rng: random.Random) -> list[Edit]:
        out = []
        if Flaw.ZERO_ROW in self.refuse:
            row = _row(value, rng)
            new = value.clone()
            new[row] = 0.0
            out.append(
                Edit(
                    Flaw.ZERO_ROW.value,
                    new,
                    f"{name} with row {list(row)} all zeros",
                    f"{name} with a row summing to 0",
                    zh(f"有一行之和为 0 的 {name}"),
                )
            )
        if Flaw.NOT_NORMALIZED in self.refuse:
            for factor in (2.0, 1.0 + max(1e-3, 10 * self.tolerance)):
                row = _row(value, rng)
                new = value.clone()
                new[row] = (value[row].to(torch.float64) * factor).to(value.dtype)
                total = float(new[row].to(torch.float64).sum())
                out.append(
                    Edit(
                        Flaw.NOT_NORMALIZED.value,
                        new,
                        f"{name} with row {list(row)} summing to {total:.9g}",
                        f"{name} with a row that does not sum to 1",
                        zh(f"有一行之和不为 1 的 {name}"),
                    )
                )
        return out

    def integral(self, value: torch.Tensor) -> torch.Tensor | None:
        if self.normalized:  # one-hot rows are the only whole-number rows summing to 1
            if self.low_open and value.shape[-1] > 1:
                return None
            largest = value.to(torch.float64).argmax(dim=-1, keepdim=True)
            return (torch.arange(value.shape[-1]).expand(value.shape) == largest).to(torch.int64)
        return super().integral(value)

    def repaired(self, value: torch.Tensor) -> torch.Tensor:
        x = value.to(torch.float64)
        if self.normalized:
            sums = x.sum(dim=-1, keepdim=True)
            return torch.where(sums > 0, x / sums.clamp(min=1e-300), x).to(value.dtype)
        empty = x.sum(dim=-1) <= 0
        if bool(empty.any()):
            value = value.clone()
            value[..., 0] = torch.where(empty, torch.ones_like(value[..., 0]), value[..., 0])
        return value

    def end_phrase(self, kind: str, name: str, en: str, zh_: str) -> tuple[str, str]:
        if kind == "lower_end" and self.low == 0:
            return f"exact zeros in {name}", zh(f"含精确 0 的 {name}")
        return super().end_phrase(kind, name, en, zh_)

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = super().corner_edits(name, value, sizes, rng)
        if self.normalized:
            return out
        for kind, factor, en, zh_ in (
            (
                "weights",
                2.0 ** rng.choice((-6, -3, -1, 1, 2, 5)),
                f"a row of {name} that does not sum to 1",
                "有一行之和不为 1 的",
            ),
            ("tiny_weights", 2.0**-30, f"a row of {name} with tiny weights", "有一行权重极小的"),
        ):
            row = _row(value, rng)
            new = value.clone()
            new[row] = value[row] * factor  # a power of two: exact in every floating dtype
            if not self.value_flaws(new, sizes):
                out.append(Edit(kind, new, f"{name} with row {list(row)} times {factor!r}", en, zh(f"{zh_} {name}")))
        return out


@dataclass(frozen=True, kw_only=True)
class Logits(FloatTensor):
    """Logits ``[..., V]``: any finite value, -inf allowed where ``neginf`` (the default), never NaN or
    +inf, each row with a finite value (:attr:`Flaw.NO_FINITE_ROW`: a row all -inf). Legal corners:
    -inf entries (where allowed, never a row's largest) and a row shifted by +1000 (large but finite:
    a softmax that does not subtract the row's maximum overflows)."""

    neginf: bool = True
    REFUSABLE: ClassVar[frozenset[Flaw]] = FloatTensor.REFUSABLE | {Flaw.NO_FINITE_ROW}
    KEEPS_ROW_MAX: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if Flaw.NO_FINITE_ROW in self.refuse and not self.neginf:
            raise misuse(
                type(self).__name__, "refuse", "Flaw.NO_FINITE_ROW only where -inf is allowed", "NO_FINITE_ROW"
            )

    def row_flaws(self, x: torch.Tensor, rows_ok: torch.Tensor) -> set[Flaw]:
        if not self.neginf:
            return set()
        return {Flaw.NO_FINITE_ROW} if bool((rows_ok & ~torch.isfinite(x).any(dim=-1)).any()) else set()

    def row_edits(self, name: str, value: torch.Tensor, rng: random.Random) -> list[Edit]:
        if Flaw.NO_FINITE_ROW not in self.refuse:
            return []
        row = _row(value, rng)
        new = value.clone()
        new[row] = -math.inf
        return [
            Edit(
                Flaw.NO_FINITE_ROW.value,
                new,
                f"{name} with row {list(row)} all -inf",
                f"{name} with a row without a finite value",
                zh(f"有一行没有有限值的 {name}"),
            )
        ]

    def integral(self, value: torch.Tensor) -> torch.Tensor | None:
        largest = value.to(torch.float64).argmax(dim=-1, keepdim=True)
        return (torch.arange(value.shape[-1]).expand(value.shape) == largest).to(torch.int64)

    def repaired(self, value: torch.Tensor) -> torch.Tensor:
        empty = ~torch.isfinite(value).any(dim=-1)
        if bool(empty.any()):
            value = value.clone()
            value[..., 0] = torch.where(empty, torch.zeros_like(value[..., 0]), value[..., 0])
        return value

    def corner_edits(self, name: str, value: torch.Tensor, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = super().corner_edits(name, value, sizes, rng)
        if self.neginf:
            at = self.corner_positions(value, rng)
            if at:
                new = value.clone()
                for index in at:
                    new[index] = -math.inf
                out.append(
                    Edit(
                        "neginf",
                        new,
                        f"{name} holding -inf at {_entries(len(at))}",
                        f"-inf in {name}",
                        zh(f"含 -inf 的 {name}"),
                    )
                )
        row = _row(value, rng)
        new = value.clone()
        new[row] = (value[row].to(torch.float64) + 1000.0).to(value.dtype)
        if not self.value_flaws(new, sizes):
            out.append(
                Edit(
                    "large",
                    new,
                    f"{name} with row {list(row)} plus 1000",
                    f"large finite values in {name}",
                    zh(f"含很大的有限值的 {name}"),
                )
            )
        return out


@dataclass(frozen=True, kw_only=True)
class Uniforms(FloatTensor):
    """Uniform random numbers in ``[0, 1)`` (by default): u = 0 and u = the largest float below 1 are
    legal corners, in float32 and float64; u = 1, 1 + ulp, -tiny are bad inputs."""

    low: float | None = 0.0
    high: float | None = 1.0
    high_open: bool = True


@dataclass(frozen=True, kw_only=True)
class Values(FloatTensor):
    """Plain floating values (samples, weights of a sum): any finite value by default."""


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
