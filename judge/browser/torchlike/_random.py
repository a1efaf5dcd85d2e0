"""Random numbers: Generator, manual_seed, rand, randint, randn, multinomial, uniform_, exponential_.

The subset's generator is Python's Mersenne Twister, so a seed gives other numbers than in real
torch; what matches is the contract (shapes, dtypes, ranges, errors, one generator's stream
being reproducible). float32 uniforms are multiples of 2**-24 in [0, 1), as torch's are.
"""

from __future__ import annotations

import bisect
import math
from itertools import accumulate
import random as _py_random

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._shape import sizes_from_args
from judge.browser.torchlike._tensor import Tensor, check_device


class Generator:
    """torch.Generator(device="cpu") with manual_seed / seed / initial_seed."""

    def __init__(self, device="cpu") -> None:
        check_device(device)
        self.device = device
        self._seed = 67280421310721  # torch's default seed
        self._random = _py_random.Random(self._seed)

    def manual_seed(self, seed: int) -> "Generator":
        seed = int(seed)
        self._seed = seed
        self._random.seed(seed)
        return self

    def seed(self) -> int:
        return self.manual_seed(_py_random.SystemRandom().getrandbits(63))._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        return self._random.getstate()

    def set_state(self, state) -> "Generator":
        self._random.setstate(state)
        return self

    def uniform(self, kind: dt.dtype) -> float:
        bits = 24 if kind is dt.float32 else 53
        return self._random.getrandbits(bits) * 2.0 ** -bits


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def _generator(generator) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return generator


def rand(*size, generator=None, dtype=None, device=None, **_ignored) -> Tensor:
    check_device(device)
    kind = dtype or dt.default_float
    if not kind.is_floating_point:
        raise RuntimeError(f"\"check_uniform_bounds\" not implemented for '{kind.name.capitalize()}'")
    shape = sizes_from_args(size)
    source = _generator(generator)
    return Tensor(dt.cast_values([source.uniform(kind) for _ in range(math.prod(shape))], kind), shape, kind)


def rand_like(x: Tensor, *, generator=None, dtype=None, device=None, **_ignored) -> Tensor:
    return rand(x._shape, generator=generator, dtype=dtype or x.dtype, device=device)


def randn(*size, generator=None, dtype=None, device=None, **_ignored) -> Tensor:
    check_device(device)
    kind = dtype or dt.default_float
    shape = sizes_from_args(size)
    source = _generator(generator)._random
    return Tensor(dt.cast_values([source.gauss(0.0, 1.0) for _ in range(math.prod(shape))], kind), shape, kind)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, **_ignored) -> Tensor:
    check_device(device)
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape = sizes_from_args((size,) if isinstance(size, int) else tuple(size))
    source = _generator(generator)._random
    kind = dtype or dt.int64
    return Tensor(dt.cast_values([source.randrange(low, high) for _ in range(math.prod(shape))], kind), shape, kind)


def randperm(n: int, *, generator=None, dtype=None, device=None, **_ignored) -> Tensor:
    check_device(device)
    values = list(range(n))
    _generator(generator)._random.shuffle(values)
    return Tensor(values, (n,), dtype or dt.int64)


def uniform_(x: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"\"check_uniform_bounds\" not implemented for '{x.dtype.name.capitalize()}'")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    source = _generator(generator)
    x._data[:] = dt.cast_values([a + (b - a) * source.uniform(x.dtype) for _ in x._data], x.dtype)
    return x


def exponential_(x: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Exp(lambd) draws, strictly positive (as in torch >= 2.1)."""
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"exponential_ not implemented for '{x.dtype.name.capitalize()}'")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    source = _generator(generator)
    draws = []
    for _ in x._data:
        u = source.uniform(dt.float64)
        draws.append(-math.log1p(-u) / lambd if u > 0 else -math.log1p(-2.0 ** -54) / lambd)
    x._data[:] = dt.cast_values(draws, x.dtype)
    return x


def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    source = _generator(generator)._random
    x._data[:] = dt.cast_values([source.gauss(mean, std) for _ in x._data], x.dtype)
    return x


def multinomial(probs: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Draws of category indices per row of ``probs`` ([V] or [B, V], non-negative weights)."""
    if probs.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not probs.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{probs.dtype.name.capitalize()}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    width = probs._shape[-1]
    if not replacement and num_samples > width:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    source = _generator(generator)
    rows = [probs._data[i * width:(i + 1) * width] for i in range(len(probs._data) // max(width, 1))]
    out = []
    for weights in rows:
        if any(w != w or w < 0 or math.isinf(w) for w in weights):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        weights = [float(w) for w in weights]
        if sum(weights) <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cumulative = list(accumulate(weights))
        for draw in range(num_samples):
            # bisect_right never lands on a zero-weight category (its cumulative equals the one before).
            index = min(bisect.bisect_right(cumulative, source.uniform(dt.float64) * cumulative[-1]), width - 1)
            while weights[index] == 0:
                index -= 1
            out.append(index)
            if not replacement and draw < num_samples - 1:
                weights[index] = 0.0
                cumulative = list(accumulate(weights))
                if cumulative[-1] <= 0:
                    raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough "
                                       "non-negative category to sample)")
    return Tensor(out, (num_samples,) if probs.dim() == 1 else (len(rows), num_samples), dt.int64)

