"""The extreme-uniform phase in the browser: the subset's ``torch.rand``, ``torch.rand_like`` and
``Tensor.uniform_`` (on [0, 1)) return exactly 0.0 and the largest value below 1 often.

The browser's counterpart of :class:`judge.learner_code.ExtremeUniforms` (which patches real torch on the
server) with the same contract: a share of :data:`FRACTION` of the values, half of them 0.0 and
half ``1 - 2**-bits`` of their dtype (0.99999994 for float32); every tensor of two or more values
gets at least one of each; the positions come from a private stream seeded by ``seed``, so the
learner's own generator stream is the same as without the phase. It works on the subset's value
lists directly: a pass over the values, not a dozen tensor operations.
"""

from __future__ import annotations

import random as _py_random

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._tensor import Tensor

FRACTION = 0.02  # as judge.learner_code.ExtremeUniforms.FRACTION (a test keeps them equal)


class ExtremeUniforms:
    """``with ExtremeUniforms(torch, seed):`` patches the subset ``torch`` (the module) until the block ends."""

    def __init__(self, torch, seed: int) -> None:
        self.torch = torch
        self.private = _py_random.Random(seed)
        self.saved: dict = {}

    def _push_to_extremes(self, values: Tensor) -> Tensor:
        if not values.dtype.is_floating_point or not values._data:
            return values
        data, top = values._data, 1.0 - 2.0 ** -dt.UNIFORM_BITS[values.dtype]
        draw = self.private.random
        for i in range(len(data)):
            if draw() < FRACTION:
                data[i] = 0.0 if draw() < 0.5 else top
        if len(data) >= 2:
            first, second = self.private.sample(range(len(data)), 2)
            data[first], data[second] = 0.0, top
        return values

    def __enter__(self) -> ExtremeUniforms:
        torch = self.torch
        self.saved = {"rand": torch.rand, "rand_like": torch.rand_like, "uniform_": torch.Tensor.uniform_}
        saved, push = self.saved, self._push_to_extremes

        def rand(*args, **kwargs):
            return push(saved["rand"](*args, **kwargs))

        def rand_like(*args, **kwargs):
            return push(saved["rand_like"](*args, **kwargs))

        def uniform_(tensor, a=0.0, b=1.0, *, generator=None):
            saved["uniform_"](tensor, a, b, generator=generator)
            return push(tensor) if a == 0.0 and b == 1.0 else tensor

        torch.rand, torch.rand_like, torch.Tensor.uniform_ = rand, rand_like, uniform_
        return self

    def __exit__(self, *exc_info) -> bool:
        torch = self.torch
        torch.rand, torch.rand_like, torch.Tensor.uniform_ = (
            self.saved["rand"],
            self.saved["rand_like"],
            self.saved["uniform_"],
        )
        return False
