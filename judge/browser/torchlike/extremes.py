"""The extreme-uniform phases in the browser: the subset's uniform sources driven to their ends.

The browser's counterparts of :class:`judge.learner.uniform_sources.ExtremeUniforms` and
:class:`judge.learner.uniform_sources.DrawSites` (which patch real torch on the server), with the same
contract and the same code for everything but writing values: which sources are patched
(``torch.rand``, ``torch.rand_like``, ``Tensor.uniform_`` on [0, 1), ``torch.randint``,
``torch.randint_like``, ``Tensor.random_``), their extremes (0.0 and ``1 - 2**-bits`` of the
dtype, 0.99999994 for float32; ``low`` and ``high - 1``), how draw sites are counted. The mixed
phase changes a share of :data:`FRACTION` of the values, half to each extreme, every tensor of two
or more values at least once each; the positions come from a private stream seeded by ``seed``,
so the learner's own generator stream is the same as without the phase. It works on the subset's
value lists directly: a pass over the values, not a dozen tensor operations.
"""

from __future__ import annotations

import random as _py_random

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._tensor import Tensor
from judge.learner import uniform_sources

FRACTION = 0.02  # as judge.learner.uniform_sources.ExtremeUniforms.FRACTION (a test keeps them equal)


def _value(value: float, kind: dt.dtype) -> float:
    """``value`` as the subset stores it in a tensor of ``kind``."""
    return dt.cast_values([value], kind)[0]


class _SubsetValues:
    """What the subset's phases share: its dtypes' largest value below 1, and writing in place."""

    def largest_below_one(self, dtype) -> float:
        return 1.0 - 2.0 ** -dt.UNIFORM_BITS[dtype]

    def write(self, tensor, values) -> None:
        if values is not tensor:
            tensor._data[:] = values._data


class ExtremeUniforms(_SubsetValues, uniform_sources.ExtremeUniforms):
    """``with ExtremeUniforms(torch, seed):`` patches the subset ``torch`` (the module) until the block ends."""

    def __init__(self, torch, seed: int) -> None:
        uniform_sources.UniformSources.__init__(self, torch)
        self.private = _py_random.Random(seed)

    def drawn(self, values: Tensor, low: float, high: float | None) -> Tensor:
        data = values._data
        low = _value(low, values.dtype)
        high = low if high is None else _value(high, values.dtype)
        draw = self.private.random
        for i in range(len(data)):
            if draw() < FRACTION:
                data[i] = low if draw() < 0.5 else high
        if len(data) >= 2:
            first, second = self.private.sample(range(len(data)), 2)
            data[first], data[second] = low, high
        return values


class DrawSites(_SubsetValues, uniform_sources.DrawSites):
    """``with DrawSites(torch, site, high, seed):`` counts the subset's draw sites, pushing one."""

    def push(self, values: Tensor, extreme: float) -> Tensor:
        data, value = values._data, _value(extreme, values.dtype)
        shape = tuple(values.shape)
        if len(shape) < 2 or shape[-1] == 1:
            data[:] = [value] * len(data)
            return values
        width = shape[-1]
        private = _py_random.Random(self.seed)
        for start in range(0, len(data), width):
            data[start + private.randrange(width)] = value
        return values
