"""Drive torch's uniform sources to their extremes while the learner's function runs.

Two phases patch the same sources, the calls that draw uniformly from a range whose ends are
legal outputs:

- ``torch.rand``, ``torch.rand_like``, ``Tensor.uniform_`` on ``[0, 1)``: ``0.0`` and the largest
  float below 1 in the tensor's dtype (``0.99999994`` in float32);
- ``torch.randint``, ``torch.randint_like``, ``Tensor.random_`` on ``[low, high)``: ``low`` and
  ``high - 1`` (``Tensor.random_()`` without bounds: only 0, its other end depends on the dtype).

:class:`ExtremeUniforms` (the mixed phase) replaces a share of every call's values by an extreme;
:class:`DrawSites` counts the calls of one learner call that draw (its *draw sites*, in order) and
pushes one of them wholly, or nearly so, to one extreme (see :meth:`DrawSites.push`).

What is left alone, and why: ``Tensor.uniform_`` on another range, ``torch.randn`` and the
normal family (no extremes); ``Tensor.exponential_`` (torch 2.13 on the CPU draws it in double
precision as ``-log(1 - u)``, so it returns exactly 0 with probability about 2**-53 per value, a
bug torch keeps open, pytorch/pytorch#22557, against a distribution that never gives 0; in
float16 values below 2**-25 also round to 0: measured, 7 zeros in 2e8 float16 draws, none in 2e8
float32 or bfloat16 ones); ``torch.bernoulli``, ``torch.multinomial`` and the other exact
samplers (their outputs are outcomes, not uniforms: any value pushed would change the
distribution they promise, so they cannot be driven). Functions bound before the phase
(``from torch import rand``) are not patched either.

The positions are chosen by a private stream seeded by the phase's seed, never the learner's
generator, so the learner's stream of random numbers is the same as without the phase. The
browser's subset has its twins (:mod:`judge.browser.torchlike.extremes`), which reuse everything
here but how values are written. Pure Python around torch calls: the browser bundle ships it.
"""

from __future__ import annotations

import numbers
from typing import Any

UNIFORM_SOURCES = ("rand", "rand_like", "uniform_", "randint", "randint_like", "random_")
_ON_TENSOR = ("uniform_", "random_")  # methods of Tensor; the others are functions of torch


def _integer(value: Any) -> int | None:
    """``value`` as an int, or None when it is not an integral number (a bool included)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def integer_range(source: str, args: tuple, kwargs: dict) -> tuple[int, int | None] | None:
    """``(low, high)`` of a call ``torch.randint(*args, **kwargs)`` (``source`` ``"randint"``),
    ``torch.randint_like(input, ...)`` or ``Tensor.random_(self, ...)`` (``args`` without the
    input or self), as torch reads them: the values lie in ``[low, high)``; ``high`` is None for
    ``random_()`` without an upper bound. None when the bounds are not plain ints (nothing is
    pushed then). The call has already succeeded, so its arguments are valid."""
    if source == "random_":
        low, high = kwargs.get("from", 0), kwargs.get("to")
        if len(args) == 1:
            low, high = (args[0], high) if "to" in kwargs else (low, args[0])
        elif len(args) >= 2:
            low, high = args[0], args[1]
    else:
        numbers_given = list(args)
        if source == "randint" and "size" not in kwargs:
            numbers_given = numbers_given[:-1]  # the last positional argument is the size
        if "high" in kwargs:
            low, high = (numbers_given[0] if numbers_given else kwargs.get("low", 0)), kwargs["high"]
        elif len(numbers_given) >= 2:
            low, high = numbers_given[0], numbers_given[1]
        elif len(numbers_given) == 1:
            low, high = kwargs.get("low", 0), numbers_given[0]
        else:
            return None
    low = _integer(low)
    if low is None or (high is not None and _integer(high) is None):
        return None
    return low, None if high is None else _integer(high)


class UniformSources:
    """Patch the sources of :data:`UNIFORM_SOURCES` of ``torch`` (the module) while the block runs.

    Every call's result goes through :meth:`drawn` with the two extremes of that call (``high``
    None where it has none to give); what it returns is what the learner gets (written into the
    tensor for the in-place ``uniform_`` and ``random_``). Subclasses decide what to change;
    :meth:`largest_below_one` and :meth:`write` are where the server's torch and the browser's
    subset differ.
    """

    def __init__(self, torch) -> None:
        self.torch = torch
        self.saved: dict[str, Any] = {}

    def drawn(self, values, low: float, high: float | None):
        """The values to hand back for one call's ``values`` (non-empty), whose extremes are ``low`` and ``high``."""
        raise NotImplementedError

    def largest_below_one(self, dtype) -> float:
        """The largest value below 1 of the floating ``dtype`` (what ``torch.rand`` can reach)."""
        torch = self.torch
        return float(torch.tensor(1.0, dtype=dtype).nextafter(torch.tensor(0.0, dtype=dtype)))

    def write(self, tensor, values) -> None:
        """Put ``values`` into ``tensor`` in place (an in-place source's result)."""
        if values is not tensor:
            with self.torch.no_grad():
                tensor.copy_(values)

    def _floats(self, values):
        if not values.is_floating_point() or values.numel() == 0:
            return values
        return self.drawn(values, 0.0, self.largest_below_one(values.dtype))

    def _integers(self, values, source: str, args: tuple, kwargs: dict):
        bounds = integer_range(source, args, kwargs)
        if bounds is None or values.numel() == 0:
            return values
        low, high = bounds
        return self.drawn(values, low, None if high is None else high - 1)

    def __enter__(self):
        torch = self.torch
        self.saved = {name: getattr(torch.Tensor if name in _ON_TENSOR else torch, name) for name in UNIFORM_SOURCES}
        saved = self.saved

        def rand(*args, **kwargs):
            return self._floats(saved["rand"](*args, **kwargs))

        def rand_like(*args, **kwargs):
            return self._floats(saved["rand_like"](*args, **kwargs))

        def uniform_(tensor, a=0.0, b=1.0, *, generator=None):
            saved["uniform_"](tensor, a, b, generator=generator)
            if a == 0.0 and b == 1.0:
                self.write(tensor, self._floats(tensor))
            return tensor

        def randint(*args, **kwargs):
            return self._integers(saved["randint"](*args, **kwargs), "randint", args, kwargs)

        def randint_like(*args, **kwargs):
            values = saved["randint_like"](*args, **kwargs)
            return self._integers(values, "randint_like", args[1:], {k: v for k, v in kwargs.items() if k != "input"})

        def random_(tensor, *args, **kwargs):
            saved["random_"](tensor, *args, **kwargs)
            self.write(tensor, self._integers(tensor, "random_", args, kwargs))
            return tensor

        torch.rand, torch.rand_like, torch.randint, torch.randint_like = rand, rand_like, randint, randint_like
        torch.Tensor.uniform_, torch.Tensor.random_ = uniform_, random_
        return self

    def __exit__(self, *exc_info) -> None:
        torch = self.torch
        for name, original in self.saved.items():
            setattr(torch.Tensor if name in _ON_TENSOR else torch, name, original)


class ExtremeUniforms(UniformSources):
    """The mixed phase: a share :data:`FRACTION` of every call's values become an extreme, half
    each (every tensor of two or more values gets at least one of each).

    Both extremes are legal outputs of the sources; real draws hit them about once in 1e7-1e8
    values (``randint``: once in ``high - low``), which no affordable sample size reaches.
    """

    FRACTION = 0.02

    def __init__(self, torch, seed: int) -> None:
        super().__init__(torch)
        self.private = torch.Generator().manual_seed(seed)

    def drawn(self, values, low: float, high: float | None):
        torch, saved = self.torch, self.saved
        high = low if high is None else high
        shape = values.shape
        flat = values.reshape(-1)
        picks = saved["rand"](flat.shape, generator=self.private)
        coin = saved["rand"](flat.shape, generator=self.private)
        low_value, high_value = torch.tensor(low, dtype=values.dtype), torch.tensor(high, dtype=values.dtype)
        extreme = torch.where(coin < 0.5, low_value, high_value)
        mask = picks < self.FRACTION
        # Every tensor of two or more values gets at least one of each extreme.
        if flat.numel() >= 2:
            first, second = torch.randperm(flat.numel(), generator=self.private)[:2].tolist()  # never patched
            mask[first] = mask[second] = True
            extreme[first] = low_value
            extreme[second] = high_value
        flat = torch.where(mask.to(flat.device), extreme.to(flat.device), flat)
        return flat.reshape(shape)


class DrawSites(UniformSources):
    """Count the draw sites of one learner call, and push site ``site`` to one extreme.

    A draw site is a call of a source that returns at least one value (and, for ``randint``-like
    sources, whose bounds are plain ints), counted from 0 in the order of the calls; ``count`` is
    how many the call made. With ``site`` None nothing changes (a count). Else the values of that
    one call are pushed to ``low`` (``high=False``) or ``high`` (:meth:`push`); a call without
    that extreme (``random_()`` has no upper one) is left as it is.
    """

    def __init__(self, torch, site: int | None, high: bool, seed: int) -> None:
        super().__init__(torch)
        self.site, self.high, self.seed = site, high, seed
        self.count = 0

    def drawn(self, values, low: float, high: float | None):
        index, self.count = self.count, self.count + 1
        extreme = high if self.high else low
        if index != self.site or extreme is None:
            return values
        return self.push(values, extreme)

    def push(self, values, extreme: float):
        """``values`` with the extreme put in every line (the values along the last dimension):
        the whole line when it holds one value, and a tensor of one or no dimension wholly (one
        value per row, one per draw); one value at a position chosen by the private stream in a
        longer line of a tensor of two or more dimensions ([B, V] noise: each row gets one, as real
        draws would, never a whole row of zeros that no real draw gives)."""
        torch = self.torch
        if values.dim() < 2 or values.shape[-1] == 1:
            return torch.full_like(values, extreme)
        private = torch.Generator().manual_seed(self.seed)
        lines = values.reshape(-1, values.shape[-1]).clone()
        columns = self.saved["randint"](0, lines.shape[1], (lines.shape[0],), generator=private).to(values.device)
        rows = torch.arange(lines.shape[0], device=values.device)
        lines[rows, columns] = torch.tensor(extreme, dtype=values.dtype, device=values.device)
        return lines.reshape(values.shape)
