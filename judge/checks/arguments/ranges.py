"""A value range as a statement states it ("finite and >= 0", "in (0, 1]", "[0, 1)"), the values just
outside it, and how a bad value is named in both languages without quoting it.

Shared by the tensor kinds (one entry made bad) and the number kinds (the argument itself).
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from judge.checks.arguments.base import Flaw

_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])")


def zh(text: str) -> str:
    """``text`` with the spaces between two Chinese characters dropped: phrases are joined with spaces
    (``"含 NaN 的 probs"``), which Chinese keeps only next to Latin words (``"含 负值 的"`` -> ``"含负值的"``)."""
    return _CJK_GAP.sub("", text)


@dataclass(frozen=True)
class BadValue:
    """One value outside what the statement allows, with its flaw and a value-free name for it."""

    flaw: Flaw
    value: float
    en: str  # "a negative value", "NaN", "the excluded upper end of its range"
    zh: str


@dataclass(frozen=True)
class Range:
    """Finite values in ``[low, high]``, either end open or absent (None: unbounded on that side)."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def flaw(self, value: float) -> Flaw | None:
        """What is wrong with ``value`` for this range (NaN and infinities first), or None."""
        if math.isnan(value):
            return Flaw.NAN
        if value == math.inf:
            return Flaw.POSINF
        if value == -math.inf:
            return Flaw.NEGINF
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return Flaw.BELOW
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            return Flaw.ABOVE
        return None

    def allows(self, value: float) -> bool:
        return self.flaw(value) is None

    def bad_values(self, refuse: frozenset[Flaw], rng: random.Random, nextafter=math.nextafter) -> list[BadValue]:
        """Each refused kind of bad value: NaN, +inf, -inf, and for each bounded end the end itself when
        it is open, the nearest representable value outside (``nextafter``, for the argument's dtype) and
        one further out (a random distance). ``nextafter(x, toward)`` defaults to float64's."""
        out = []
        if Flaw.NAN in refuse:
            out.append(BadValue(Flaw.NAN, math.nan, "NaN", "NaN"))
        if Flaw.POSINF in refuse:
            out.append(BadValue(Flaw.POSINF, math.inf, "+inf", "+inf"))
        if Flaw.NEGINF in refuse:
            out.append(BadValue(Flaw.NEGINF, -math.inf, "-inf", "-inf"))
        if Flaw.BELOW in refuse and self.low is not None:
            out += self._outside(self.low, self.low_open, -1.0, rng, nextafter)
        if Flaw.ABOVE in refuse and self.high is not None:
            out += self._outside(self.high, self.high_open, 1.0, rng, nextafter)
        return out

    def _outside(self, end: float, is_open: bool, side: float, rng: random.Random, nextafter) -> list[BadValue]:
        flaw = Flaw.BELOW if side < 0 else Flaw.ABOVE
        which, which_zh = ("lower", "下") if side < 0 else ("upper", "上")
        values = []
        if is_open:
            if end == 0:
                values.append(BadValue(flaw, 0.0, "zero", "0"))
            elif end == 1:
                values.append(BadValue(flaw, 1.0, "exactly 1", "1"))
            else:
                values.append(
                    BadValue(flaw, end, f"the excluded {which} end of its range", f"取值范围所排除的{which_zh}端点")
                )
        just = nextafter(end, side * math.inf)
        further = end + side * max(1.0, abs(end)) * rng.choice((0.25, 0.5, 0.75, 1.5, 3.0))
        if end == 0 and side < 0:
            values.append(BadValue(flaw, just, "a tiny negative value", "极小负值"))
            values.append(BadValue(flaw, further, "a negative value", "负值"))
        else:
            over = "below" if side < 0 else "above"
            over_zh = "低于" if side < 0 else "高于"
            values.append(BadValue(flaw, just, f"a value just {over} its range", f"略{over_zh}取值范围的值"))
            values.append(BadValue(flaw, further, f"a value {over} its range", f"{over_zh}取值范围的值"))
        return values

    def legal_ends(self, nextafter=math.nextafter) -> list[tuple[str, float, str, str]]:
        """The ends a legal value may take: each closed end exactly, and below an open upper end the
        largest value under it (u = the largest float below 1): ``(name, value, en, zh)``."""
        out = []
        if self.low is not None and not self.low_open:
            out.append(("lower_end", self.low, "its lower end exactly", "恰好等于下端点的值"))
        if self.high is not None and not self.high_open:
            out.append(("upper_end", self.high, "its upper end exactly", "恰好等于上端点的值"))
        if self.high is not None and self.high_open:
            below = nextafter(self.high, -math.inf)
            if self.allows(below):
                out.append(
                    ("below_upper_end", below, "the largest float below its upper end", "小于上端点的最大浮点数")
                )
        return out

    def describe(self) -> str:
        """The range as a statement writes it: ``[0, 1)``, ``> 0``, ``any finite value``."""
        if self.low is None and self.high is None:
            return "any finite value"
        if self.high is None:
            return f"{'>' if self.low_open else '>='} {self.low!r}"
        if self.low is None:
            return f"{'<' if self.high_open else '<='} {self.high!r}"
        return f"{'(' if self.low_open else '['}{self.low!r}, {self.high!r}{')' if self.high_open else ']'}"
