"""Arguments that are Python values: a number in a range, a count, a choice among strings, and a
per-row parameter (a number, or a tensor ``[B]`` of them)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from judge.checks.arguments.base import ArgumentSpec, Edit, Flaw, Sizes, misuse, number_text
from judge.checks.arguments.ranges import BadValue, Range, zh
from judge.checks.arguments.tensors import FLOAT32_64, INTEGER_AND_BOOL, _dtype_phrase, _dtype_tuple, _nextafter

_VALUE_FLAWS = frozenset({Flaw.NAN, Flaw.POSINF, Flaw.NEGINF, Flaw.BELOW, Flaw.ABOVE})


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


def _bound(spec: str, end: str, value: Any) -> None:
    if value is not None and (not _is_number(value) or not math.isfinite(value)):
        raise misuse(spec, end, "a finite number or None", value)


@dataclass(frozen=True, kw_only=True)
class Number(ArgumentSpec):
    """A Python number (an int or a float, never a bool) in a range: ``low``/``high``, each end open or
    closed or absent; never NaN or infinite. ``integers=False``: a float only.

    Bad inputs: NaN, +inf, -inf, each open end itself (0 for "> 0"), the nearest float past each end
    (-5e-324 below 0), one further out, and (:attr:`Flaw.NOT_A_NUMBER`) the value as a string and None.
    Legal corners: each closed end exactly, an int (where allowed), and ``examples``, values the
    author names (each must be legal).
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integers: bool = True
    examples: tuple[float, ...] = ()
    REFUSABLE: ClassVar[frozenset[Flaw]] = _VALUE_FLAWS | {Flaw.NOT_A_NUMBER}

    def __post_init__(self) -> None:
        super().__post_init__()
        spec = type(self).__name__
        _bound(spec, "low", self.low)
        _bound(spec, "high", self.high)
        if self.low is not None and self.high is not None and self.low >= self.high:
            raise misuse(spec, "high", f"a number above low = {self.low!r}", self.high)
        for flaw, end in ((Flaw.BELOW, self.low), (Flaw.ABOVE, self.high)):
            if flaw in self.refuse and end is None:
                raise misuse(spec, "refuse", f"no Flaw.{flaw.name} without a bound on that side", flaw.name)
        examples = tuple(self.examples) if isinstance(self.examples, (tuple, list)) else None
        if examples is None or not all(_is_number(x) and self.range.allows(float(x)) for x in examples):
            raise misuse(spec, "examples", f"a tuple of legal numbers ({self.range.describe()})", self.examples)
        object.__setattr__(self, "examples", examples)

    @property
    def range(self) -> Range:
        return Range(self.low, self.high, self.low_open, self.high_open)

    def good_problem(self, value: Any) -> str | None:
        return None if _is_number(value) else "a number (an int or a float)"

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        if not _is_number(value) or (isinstance(value, int) and not self.integers):
            return {Flaw.NOT_A_NUMBER}
        try:
            flaw = self.range.flaw(float(value))
        except OverflowError:  # an int too large for a float is above any finite high
            flaw = Flaw.ABOVE if self.high is not None and value > 0 else Flaw.BELOW if self.low is not None else None
        return {flaw} if flaw else set()

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = [_scalar_edit(name, bad) for bad in self.range.bad_values(self.refuse, rng)]
        if Flaw.NOT_A_NUMBER in self.refuse:
            kind = Flaw.NOT_A_NUMBER.value
            text = repr(value)
            out.append(
                Edit(
                    kind, text, f"{name} = {text!r} (a string)", f"{name} given as a string", zh(f"字符串形式的 {name}")
                )
            )
            out.append(Edit(kind, None, f"{name} = None", f"None as {name}", zh(f"{name} 为 None")))
        return out

    def legal_values(self, value: Any) -> list[tuple[str, Any, str, str, str]]:
        """``(kind, value, detail, en, zh)`` of each legal corner other than ``value``, as a number."""
        out = []
        for kind, end, en, zh_ in self.range.legal_ends():
            out.append((kind, end, f"= {number_text(end)}", f"at {en}", f"为{zh_}"))
        if self.integers:
            guesses = [round(value)] if math.isfinite(value) else []
            whole = next((k for k in [*guesses, 1, 2, 0, -1, 10] if self.range.allows(float(k))), None)
            if whole is not None:
                out.append(("int", int(whole), f"= {int(whole)} (an int)", "given as an int", "为 int"))
        for example in self.examples:
            out.append(
                ("example", example, f"= {number_text(example)}", "set to another legal value", "为另一个合法值")
            )
        return [c for c in out if not (type(c[1]) is type(value) and c[1] == value)]

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        return [
            Edit(kind, corner, f"{name} {detail}", f"{name} {en}", zh(f"{name} {zh_}"))
            for kind, corner, detail, en, zh_ in self.legal_values(value)
        ]


def _scalar_edit(name: str, bad: BadValue) -> Edit:
    return Edit(
        bad.flaw.value,
        bad.value,
        f"{name} = {number_text(bad.value)}",
        f"{bad.en} as {name}",
        zh(f"{name} 为 {bad.zh}"),
    )


@dataclass(frozen=True, kw_only=True)
class Count(ArgumentSpec):
    """A Python int (never a bool) ``>= minimum`` (and ``<= maximum`` when given): ``num_samples``.

    Bad inputs: :attr:`Flaw.BELOW` (``minimum - 1`` and further below), :attr:`Flaw.ABOVE`,
    :attr:`Flaw.NOT_AN_INT` (the good count as a float, and half past it). Legal corners: the
    minimum and the maximum."""

    minimum: int = 1
    maximum: int | None = None
    REFUSABLE: ClassVar[frozenset[Flaw]] = frozenset({Flaw.BELOW, Flaw.ABOVE, Flaw.NOT_AN_INT})

    def __post_init__(self) -> None:
        super().__post_init__()
        spec = type(self).__name__
        if isinstance(self.minimum, bool) or not isinstance(self.minimum, int):
            raise misuse(spec, "minimum", "an int", self.minimum)
        if self.maximum is not None and (
            isinstance(self.maximum, bool) or not isinstance(self.maximum, int) or self.maximum < self.minimum
        ):
            raise misuse(spec, "maximum", f"an int >= minimum = {self.minimum}, or None", self.maximum)
        if Flaw.ABOVE in self.refuse and self.maximum is None:
            raise misuse(spec, "refuse", "no Flaw.ABOVE without a maximum", "ABOVE")

    def good_problem(self, value: Any) -> str | None:
        return "an int" if isinstance(value, bool) or not isinstance(value, int) else None

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        if isinstance(value, bool) or not isinstance(value, int):
            return {Flaw.NOT_AN_INT}
        if value < self.minimum:
            return {Flaw.BELOW}
        if self.maximum is not None and value > self.maximum:
            return {Flaw.ABOVE}
        return set()

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        if Flaw.BELOW in self.refuse:
            for bad in (self.minimum - 1, self.minimum - 1 - rng.randrange(1, 10)):
                out.append(
                    Edit(
                        Flaw.BELOW.value,
                        bad,
                        f"{name} = {bad}",
                        f"{name} below {self.minimum}",
                        zh(f"小于 {self.minimum} 的 {name}"),
                    )
                )
        if Flaw.ABOVE in self.refuse and self.maximum is not None:
            for bad in (self.maximum + 1, self.maximum + rng.randrange(2, 100)):
                out.append(
                    Edit(
                        Flaw.ABOVE.value,
                        bad,
                        f"{name} = {bad}",
                        f"{name} above {self.maximum}",
                        zh(f"大于 {self.maximum} 的 {name}"),
                    )
                )
        if Flaw.NOT_AN_INT in self.refuse:
            for fraction in (float(value), value + 0.5):
                out.append(
                    Edit(
                        Flaw.NOT_AN_INT.value,
                        fraction,
                        f"{name} = {fraction!r}",
                        f"{name} given as a float",
                        zh(f"浮点数形式的 {name}"),
                    )
                )
        return out

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        for kind, corner, en, zh_ in (
            ("minimum", self.minimum, f"the smallest legal {name}", f"最小的合法 {name}"),
            ("maximum", self.maximum, f"the largest legal {name}", f"最大的合法 {name}"),
        ):
            if corner is not None and corner != value:
                out.append(Edit(kind, corner, f"{name} = {corner}", en, zh(zh_)))
        return out


@dataclass(frozen=True, kw_only=True)
class Choice(ArgumentSpec):
    """One of the strings ``options`` (``method="gumbel"``). Bad inputs (:attr:`Flaw.UNKNOWN_CHOICE`):
    the empty string, the good choice in capitals or with a suffix, ``"unknown"``, whichever are not
    options. Legal corners: every other option (quoted in the rule: the statement lists them)."""

    options: tuple[str, ...]
    REFUSABLE: ClassVar[frozenset[Flaw]] = frozenset({Flaw.UNKNOWN_CHOICE})

    def __post_init__(self) -> None:
        super().__post_init__()
        options = tuple(self.options) if isinstance(self.options, (tuple, list)) else None
        if not options or not all(isinstance(o, str) for o in options):
            raise misuse(type(self).__name__, "options", "a non-empty tuple of strings", self.options)
        object.__setattr__(self, "options", options)

    def good_problem(self, value: Any) -> str | None:
        return None if isinstance(value, str) and value in self.options else f"one of {list(self.options)}"

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        return set() if isinstance(value, str) and value in self.options else {Flaw.UNKNOWN_CHOICE}

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        if Flaw.UNKNOWN_CHOICE not in self.refuse:
            return []
        out: list[Edit] = []
        for bad in ("", value.upper(), value + "_", "unknown"):
            if bad not in self.options and all(e.value != bad for e in out):
                out.append(
                    Edit(
                        Flaw.UNKNOWN_CHOICE.value, bad, f"{name} = {bad!r}", f"an unknown {name}", zh(f"未知的 {name}")
                    )
                )
        return out

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        return [
            Edit("choice", option, f"{name} = {option!r}", f"{name} = {option!r}", f"{name} = {option!r}")
            for option in self.options
            if option != value
        ]


@dataclass(frozen=True, kw_only=True)
class PerRow(ArgumentSpec):
    """A parameter given as a number or as a 1-D tensor of one per row (``temperature``): ``number``
    says what each value allows (give ``refuse`` here, not there); ``dim`` is the rows' dimension,
    which another argument must have (``"B"``).

    Bad inputs: each refused value flaw as the number and at one random entry of a ``[B]`` tensor
    (the rest legal); :attr:`Flaw.RANK`: a tensor ``[B, 1]`` and a 0-d tensor; :attr:`Flaw.SHAPE`: a
    tensor ``[B + 1]``, ``[B - 1]`` and ``[1]`` (which broadcasts); :attr:`Flaw.NOT_A_TENSOR`: a list
    of B numbers; :attr:`Flaw.DTYPE`: a tensor of legal whole numbers in each of ``wrong_dtypes``;
    :attr:`Flaw.NOT_A_NUMBER`: a string, None. Legal corners: the other form (a number for a tensor,
    a tensor for a number), a tensor of different legal values, each allowed tensor dtype, and the
    number's corners.
    """

    number: Number
    dim: str = "B"
    dtypes: tuple[torch.dtype, ...] = FLOAT32_64
    wrong_dtypes: tuple[torch.dtype, ...] = INTEGER_AND_BOOL
    REFUSABLE: ClassVar[frozenset[Flaw]] = Number.REFUSABLE | {
        Flaw.RANK,
        Flaw.SHAPE,
        Flaw.NOT_A_TENSOR,
        Flaw.DTYPE,
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        spec = type(self).__name__
        if not isinstance(self.number, Number):
            raise misuse(spec, "number", "a Number(...) saying what each value allows", self.number)
        if self.number.refuse:
            raise misuse(spec, "number", "a Number without refuse= (give refuse to PerRow)", self.number)
        if not isinstance(self.dim, str) or not self.dim.isidentifier():
            raise misuse(spec, "dim", "the name of the rows' dimension, such as 'B'", self.dim)
        object.__setattr__(self, "dtypes", _dtype_tuple(spec, "dtypes", self.dtypes))
        object.__setattr__(self, "wrong_dtypes", _dtype_tuple(spec, "wrong_dtypes", self.wrong_dtypes, empty=True))
        if not all(d.is_floating_point for d in self.dtypes):
            raise misuse(spec, "dtypes", "floating dtypes", self.dtypes)

    def dim_names(self) -> tuple[str, ...]:
        return (self.dim,)

    def good_problem(self, value: Any) -> str | None:
        if not isinstance(value, torch.Tensor):
            return self.number.good_problem(value)
        if value.dim() != 1 or value.dtype not in self.dtypes or value.numel() == 0:
            return f"a number, or a non-empty 1-D float tensor [{self.dim}]"
        return None

    def bind(self, name: str, value: Any) -> dict[str, int]:
        return {self.dim: int(value.shape[0])} if isinstance(value, torch.Tensor) else {}

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        if isinstance(value, list):
            return {Flaw.NOT_A_TENSOR}
        if not isinstance(value, torch.Tensor):
            return self.number.flaws(name, value, sizes)
        if value.dim() != 1:
            return {Flaw.RANK}
        out: set[Flaw] = set()
        if value.dtype not in self.dtypes:
            out.add(Flaw.DTYPE)
        if value.shape[0] != sizes.dims.get(self.dim):
            out.add(Flaw.SHAPE)
        for entry in value.to(torch.float64).tolist():
            flaw = self.number.range.flaw(entry)
            if flaw is not None:
                out.add(flaw)
        return out

    def _forms(self, value: Any, sizes: Sizes) -> tuple[float, torch.Tensor]:
        """The good value as a number (a tensor's first entry) and as a legal tensor ``[B]``."""
        if isinstance(value, torch.Tensor):
            return float(value[0]), value
        for dtype in self.dtypes:
            rows = torch.full((sizes.dims[self.dim],), float(value), dtype=dtype)
            if self.number.range.allows(float(rows[0])):
                return value, rows
        return value, torch.full((sizes.dims[self.dim],), float(value), dtype=torch.float64)

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        scalar, rows = self._forms(value, sizes)
        d, b = self.dim, rows.shape[0]
        out = [_scalar_edit(name, bad) for bad in self.number.range.bad_values(self.refuse, rng)]
        for bad in self.number.range.bad_values(self.refuse, rng, _nextafter(rows.dtype)):
            at = rng.randrange(b)
            new = rows.clone()
            new[at] = bad.value
            out.append(
                Edit(
                    bad.flaw.value,
                    new,
                    f"{name} = a tensor [{d}] holding {number_text(float(new[at]))} at [{at}]",
                    f"{name} as a per-row tensor holding {bad.en}",
                    zh(f"含 {bad.zh} 的逐行张量 {name}"),
                )
            )
        if Flaw.NOT_A_NUMBER in self.refuse:
            out += [e for e in self.number.bad_edits(name, scalar, sizes, rng) if e.kind == Flaw.NOT_A_NUMBER.value]
        if Flaw.RANK in self.refuse:
            column = rows.unsqueeze(1).clone()
            out.append(
                Edit(
                    Flaw.RANK.value,
                    column,
                    f"{name} of shape {list(column.shape)}",
                    f"{name} as a tensor of shape [{d}, 1]",
                    zh(f"形状为 [{d}, 1] 的张量 {name}"),
                )
            )
            point = rows[0].clone()
            out.append(
                Edit(
                    Flaw.RANK.value, point, f"{name} as a 0-d tensor", f"{name} as a 0-d tensor", zh(f"0 维张量 {name}")
                )
            )
        if Flaw.SHAPE in self.refuse:
            for length in dict.fromkeys(k for k in (b + 1, b - 1, 1) if k >= 1 and k != b):
                new = rows[torch.tensor([rng.randrange(b) for _ in range(length)], dtype=torch.int64)]
                out.append(
                    Edit(
                        Flaw.SHAPE.value,
                        new,
                        f"{name} of shape [{length}] ({d} is {b})",
                        f"{name} as a tensor of the wrong length",
                        zh(f"长度不对的张量 {name}"),
                    )
                )
        if Flaw.NOT_A_TENSOR in self.refuse:
            out.append(
                Edit(
                    Flaw.NOT_A_TENSOR.value,
                    rows.tolist(),
                    f"{name} as a Python list of {b} numbers",
                    f"{name} as a Python list",
                    zh(f"Python 列表形式的 {name}"),
                )
            )
        if Flaw.DTYPE in self.refuse:
            whole = next((k for k in (round(scalar), 1, 0, 2) if self.number.range.allows(float(k))), None)
            for dtype in self.wrong_dtypes:
                if whole is None or dtype in self.dtypes or (dtype == torch.bool and whole not in (0, 1)):
                    continue
                en, zh_ = _dtype_phrase(dtype)
                new = torch.full((b,), whole, dtype=dtype)
                out.append(
                    Edit(
                        Flaw.DTYPE.value,
                        new,
                        f"{name} = a tensor of dtype {dtype}",
                        f"{name} as a tensor {en}",
                        zh(f"{zh_}张量 {name}"),
                    )
                )
        return out

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        scalar, rows = self._forms(value, sizes)
        d = self.dim
        out = []
        if isinstance(value, torch.Tensor):
            if self.number.integers or not isinstance(scalar, int):
                out.append(
                    Edit(
                        "number",
                        scalar,
                        f"{name} = {number_text(scalar)}",
                        f"{name} as a number",
                        zh(f"数值形式的 {name}"),
                    )
                )
        else:
            out.append(
                Edit(
                    "per_row",
                    rows,
                    f"{name} = a tensor [{d}] of {number_text(float(rows[0]))}",
                    f"{name} as a per-row tensor",
                    zh(f"逐行张量形式的 {name}"),
                )
            )
        for dtype in self.dtypes:
            if dtype != rows.dtype and self.number.range.allows(float(rows.to(dtype)[0])):
                cast = rows.to(dtype)
                if all(self.number.range.allows(v) for v in cast.to(torch.float64).tolist()):
                    out.append(
                        Edit(
                            "dtype",
                            cast,
                            f"{name} = a tensor [{d}] in {dtype}",
                            f"{name} as a per-row tensor in {str(dtype).removeprefix('torch.')}",
                            zh(f"{str(dtype).removeprefix('torch.')} 的逐行张量 {name}"),
                        )
                    )
        corners = self.number.legal_values(scalar)
        values = [scalar] + [c[1] for c in corners]
        mixed = rows.clone()
        for i in range(mixed.shape[0]):
            mixed[i] = float(rng.choice(values))
        if len(set(values)) > 1 and all(self.number.range.allows(v) for v in mixed.to(torch.float64).tolist()):
            out.append(
                Edit(
                    "mixed_rows",
                    mixed,
                    f"{name} = a tensor [{d}] of {mixed.tolist()}",
                    f"{name} as a per-row tensor of different legal values",
                    zh(f"各行取不同合法值的逐行张量 {name}"),
                )
            )
        for kind, corner, detail, en, zh_ in corners:
            out.append(Edit(kind, corner, f"{name} {detail}", f"{name} {en}", zh(f"{name} {zh_}")))
        return out

    def resized(self, value: Any, dim: str, size: int) -> Any:
        return value[:size] if isinstance(value, torch.Tensor) and dim == self.dim else value
