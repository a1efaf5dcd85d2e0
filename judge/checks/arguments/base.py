"""What every argument kind shares: the flaws a statement can refuse, a generated call, and the spec base.

A :class:`Flaw` names one kind of refusal sentence ("a NaN", "not a 2-D tensor", "a row summing to
0"); an argument's spec lists, in ``refuse``, the flaws its statement refuses. A spec turns the good
value of its argument into :class:`Edit`s: the same value with exactly one flaw (the bad side) or a
legal corner of what the statement allows (the good side).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from judge.checks.base import CheckMisuse
from judge.i18n import Bilingual


class Flaw(str, Enum):
    """One kind of bad input a statement's refusal sentence names (the value is its name in tests)."""

    NOT_A_TENSOR = "not_a_tensor"  # a Python list where the statement says tensor
    RANK = "rank"  # one dimension fewer or more
    SHAPE = "shape"  # a wrong length on a dimension shared with another argument, or below a minimum
    DTYPE = "dtype"  # a dtype the statement refuses (``wrong_dtypes``)
    DTYPE_MISMATCH = "dtype_mismatch"  # another allowed dtype than the argument it must match
    NAN = "nan"
    POSINF = "posinf"
    NEGINF = "neginf"
    BELOW = "below"  # a finite value below the allowed range (a negative probability, an id < 0)
    ABOVE = "above"  # a finite value above it (u = 1 for [0, 1), an id >= V)
    ZERO_ROW = "zero_row"  # probabilities: a row summing to 0
    NOT_NORMALIZED = "not_normalized"  # probabilities that must sum to 1: a row that does not
    NO_FINITE_ROW = "no_finite_row"  # logits: a row without a finite value
    NOT_AN_INT = "not_an_int"  # a count given as a float
    NOT_A_NUMBER = "not_a_number"  # a string or None where the statement says a number
    UNKNOWN_CHOICE = "unknown_choice"  # a string outside the statement's choices


NOT_FINITE = frozenset({Flaw.NAN, Flaw.POSINF, Flaw.NEGINF})  # "NaN or infinite"


@dataclass(frozen=True)
class Edit:
    """One argument's value changed: ``kind`` (a :class:`Flaw` value for a bad input, a corner's name
    for a legal one), the new ``value``, ``detail`` quoting values (messages) and ``en``/``zh``, noun
    phrases that quote none (``"probs holding NaN"`` / ``"含 NaN 的 probs"``: hidden cases' rules)."""

    kind: str
    value: Any
    detail: str
    en: str
    zh: str


@dataclass(frozen=True)
class Variant:
    """One generated call: the good call's keyword arguments with one change.

    ``argument`` is the argument changed (a corner that resizes a dimension names the dimension,
    ``"B"``), ``kind`` the :class:`Flaw` value (bad) or the corner's name (legal), ``kwargs`` every
    keyword argument of the call, ``description`` what changed with its values (for messages) and
    ``public`` the same without values, in English and Chinese (a hidden case's rule).
    """

    argument: str
    kind: str
    kwargs: Mapping[str, Any]
    description: str
    public: Bilingual = field(compare=False)


@dataclass(frozen=True)
class Sizes:
    """What a call fixes for every argument's checks: each named dimension's length (``dims``), those
    two arguments or more share (``shared``: only there is another length a flaw), each tensor
    argument's dtype (``dtypes``) and the arguments tied by ``same_dtype_as`` either way
    (``dtype_linked``: their dtype changes only together)."""

    dims: Mapping[str, int]
    shared: frozenset[str]
    dtypes: Mapping[str, Any]
    dtype_linked: frozenset[str]


def misuse(check: str, argument: str, expected: str, given: Any) -> CheckMisuse:
    """A :class:`CheckMisuse` whose ``given`` is described briefly (type and repr, cut)."""
    return CheckMisuse(check, argument, expected, f"{type(given).__name__} {str(given)[:80]!r}")


@dataclass(frozen=True, kw_only=True)
class ArgumentSpec:
    """What a statement says of one argument: what it allows, and in ``refuse`` the flaws its refusal
    sentences name (the call must raise for each). Anything neither allowed nor refused is left open
    and never generated. Subclasses set :attr:`REFUSABLE`, the flaws their kind can express."""

    refuse: frozenset[Flaw] = frozenset()
    REFUSABLE: ClassVar[frozenset[Flaw]] = frozenset()

    def __post_init__(self) -> None:
        try:
            refused = frozenset(Flaw(f) for f in _iterable(self.refuse))
        except (TypeError, ValueError):
            raise misuse(type(self).__name__, "refuse", "an iterable of Flaw", self.refuse) from None
        object.__setattr__(self, "refuse", refused)
        extra = refused - self.REFUSABLE
        if extra:
            names = ", ".join(sorted(f.name for f in extra))
            raise CheckMisuse(
                type(self).__name__,
                "refuse",
                "flaws this kind of argument can have (" + ", ".join(sorted(f.name for f in self.REFUSABLE)) + ")",
                names,
            )

    # --- what every kind implements ---------------------------------------------------------------

    def good_problem(self, value: Any) -> str | None:
        """What a good value of this argument must be, when ``value`` is not that by its type (a tensor
        spec given a list, say), else None; its contents are checked with :meth:`flaws` afterwards."""
        return None

    def bind(self, name: str, value: Any) -> dict[str, int]:
        """The sizes of named dimensions the good ``value`` fixes (none for a scalar kind)."""
        return {}

    def dim_names(self) -> tuple[str, ...]:
        """The named dimensions this argument has or refers to."""
        return ()

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        """Every way ``value`` breaks what the statement allows, whether refused or left open."""
        raise NotImplementedError

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        """The good ``value`` with each refused flaw, one edit per variant (positions and distances
        drawn from ``rng``)."""
        raise NotImplementedError

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        """Legal corners of this argument alone (the others unchanged)."""
        raise NotImplementedError

    def resized(self, value: Any, dim: str, size: int) -> Any:
        """``value`` with the dimension ``dim`` (and what refers to it) made ``size`` long, legal."""
        return value

    def smallest(self, dim: str) -> int:
        """The smallest legal size of dimension ``dim`` for this argument (1 unless stated)."""
        return 1


def _iterable(value: Any) -> Iterable[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError
    return value


def number_text(value: float) -> str:
    """A float as a message quotes it: shortest repr, with infinities and NaN spelled as Python does."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return repr(value)


def pairs(value: Mapping[str, int] | Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """A mapping (or pairs) of names to ints, as a sorted tuple a frozen dataclass can hold."""
    items = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((str(k), v) for k, v in items))
