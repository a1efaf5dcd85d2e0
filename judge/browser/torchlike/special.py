"""torch.special in the subset: ``xlogy`` and ``entr``, the two that entropy code reaches for.

``xlogy(x, y)`` is ``x * log(y)`` with ``0`` wherever ``x == 0`` (unless ``y`` is NaN), so that
``0 * log 0`` counts as 0; ``entr(x)`` is ``-x * log(x)``, 0 at 0 and ``-inf`` below 0. Both
follow torch's type promotion (integers compute in the default float). Anything else of
``torch.special`` raises ``UnsupportedOperation``.
"""

from __future__ import annotations

import math

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike import _elementwise as ew
from judge.browser.torchlike._tensor import Tensor, result_type

NAN = float("nan")


def _xlogy(x: float, y: float) -> float:
    if y != y:
        return NAN
    if x == 0 and x == x:
        return 0.0
    return x * ew.log(y)


def xlogy(input, other) -> Tensor:  # noqa: A002 - torch's parameter names
    """``input * log(other)``, 0 where ``input`` is 0 and ``other`` is not NaN."""
    kind = result_type(input, other)
    if not kind.is_floating_point:
        kind = dt.default_float
    return ew.binary(input, other, _xlogy, compute=kind)


def _entr(x: float) -> float:
    if x != x:
        return NAN
    if x < 0:
        return -math.inf
    if x == 0:
        return 0.0
    return -x * ew.log(x)


def entr(input) -> Tensor:  # noqa: A002
    """``-input * log(input)``: 0 at 0, ``-inf`` for negative values."""
    return ew.unary(input, _entr, floating=True)


def __getattr__(name: str):
    from judge.browser.torchlike._errors import UnsupportedOperation

    if name.startswith("__"):
        raise AttributeError(name)
    raise UnsupportedOperation(f"torch.special.{name}")
