"""Floating tensor arguments with a value range: probabilities, logits, uniforms, plain values.

:class:`FloatTensor` adds to :class:`~judge.checks.arguments.tensors.TensorSpec` (shape and dtype
flaws, named dimensions) the flaws of its entries: NaN, infinities, a value just outside an open or
closed end of its :class:`~judge.checks.arguments.ranges.Range`, and the legal corners at each end.
:class:`Probabilities` (rows that sum to 1, or > 0), :class:`Logits` (-inf allowed, not a whole row),
:class:`Uniforms` (in [0, 1)) and :class:`Values` specialise it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import ClassVar

import torch

from judge.checks.arguments.base import Edit, Flaw, Sizes, misuse, number_text
from judge.checks.arguments.ranges import Range, zh
from judge.checks.arguments.tensors import (
    TensorSpec,
    _entries,
    _nextafter,
    _position,
    _row,
)

__all__ = ["FloatTensor", "Probabilities", "Logits", "Uniforms", "Values"]


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
