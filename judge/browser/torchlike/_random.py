"""Random numbers: Generator, seeding and states, rand/randn/randint (and their *_like), randperm,
bernoulli, binomial, normal, multinomial, and the in-place fills (uniform_, exponential_,
geometric_, bernoulli_, normal_, random_).

The subset's generator is Python's Mersenne Twister, so a seed gives other numbers than in real
torch; what matches is the contract (shapes, dtypes, ranges, errors, one generator's stream
being reproducible). Uniforms of a floating dtype are multiples of 2**-bits in [0, 1) with
torch's widths (24 bits for float32, 53 for float64, 11 for float16, 8 for bfloat16).
"""

from __future__ import annotations

import bisect
import math
import random as _py_random
import struct
from itertools import accumulate

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._creation import size_arguments
from judge.browser.torchlike._shape import sizes_from_args
from judge.browser.torchlike._tensor import Tensor, check_device, result_type

_STATE_VERSION = 3  # random.Random.getstate()[0] of the Mersenne Twister the subset uses


class Generator:
    """torch.Generator(device="cpu") with manual_seed / seed / initial_seed / get_state / set_state."""

    def __init__(self, device="cpu") -> None:
        check_device(device)
        self.device = device
        self._seed = 67280421310721  # torch's default seed
        self._random = _py_random.Random(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        seed = int(seed)
        self._seed = seed
        self._random.seed(seed)
        return self

    def seed(self) -> int:
        return self.manual_seed(_py_random.SystemRandom().getrandbits(63))._seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The stream's state as an int64 tensor (torch gives a uint8 one): only for set_state."""
        version, words, gauss = self._random.getstate()
        extra = [0, 0] if gauss is None else [1, struct.unpack("<q", struct.pack("<d", gauss))[0]]
        values = [version, *words, *extra]
        return Tensor(values, (len(values),), dt.int64)

    def set_state(self, state: Tensor) -> Generator:
        values = state.tolist() if isinstance(state, Tensor) else None
        if not values or values[0] != _STATE_VERSION or len(values) != 628:
            raise RuntimeError("the state must come from get_state() of the browser's torch subset")
        gauss = struct.unpack("<d", struct.pack("<q", values[-1]))[0] if values[-2] else None
        self._random.setstate((values[0], tuple(values[1:-2]), gauss))
        return self

    def uniform(self, kind: dt.dtype) -> float:
        bits = dt.UNIFORM_BITS.get(kind, 53)
        return self._random.getrandbits(bits) * 2.0**-bits


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


def _generator(generator) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return generator


def _floating(kind: dt.dtype, name: str = "check_uniform_bounds") -> dt.dtype:
    if not kind.is_floating_point:
        raise RuntimeError(f"\"{name}\" not implemented for '{kind.name.capitalize()}'")
    return kind


def rand(
    *size, generator=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **by_name
) -> Tensor:
    """Uniform [0, 1) draws: ``rand(2, 3)``, ``rand((2, 3))`` or ``rand(size=(2, 3))``."""
    check_device(device)
    shape = size_arguments(size, by_name, "rand")
    kind = _floating(dtype or dt.default_float)
    source = _generator(generator)
    return Tensor(dt.cast_values([source.uniform(kind) for _ in range(math.prod(shape))], kind), shape, kind)


def rand_like(
    x: Tensor, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    return rand(x._shape, generator=generator, dtype=dtype or x.dtype, device=device)


def randn(
    *size, generator=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, **by_name
) -> Tensor:
    check_device(device)
    kind = dtype or dt.default_float
    shape = size_arguments(size, by_name, "randn")
    source = _generator(generator)._random
    return Tensor(dt.cast_values([source.gauss(0.0, 1.0) for _ in range(math.prod(shape))], kind), shape, kind)


def randn_like(
    x: Tensor, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    return randn(x._shape, generator=generator, dtype=dtype or x.dtype, device=device)


def randint(
    low,
    high=None,
    size=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
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


def randint_like(
    x: Tensor,
    low,
    high=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
) -> Tensor:
    return randint(low, high, x._shape, generator=generator, dtype=dtype or x.dtype, device=device)


def randperm(
    n: int, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    check_device(device)
    values = list(range(n))
    _generator(generator)._random.shuffle(values)
    kind = dtype or dt.int64
    return Tensor(dt.cast_values(values, kind), (n,), kind)


def uniform_(x: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    _floating(x.dtype)
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
        draws.append(-math.log1p(-u) / lambd if u > 0 else -math.log1p(-(2.0**-54)) / lambd)
    x._data[:] = dt.cast_values(draws, x.dtype)
    return x


def geometric_(x: Tensor, p: float, *, generator=None) -> Tensor:
    """Draws of the number of Bernoulli(p) trials up to the first success: 1, 2, ..."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    source = _generator(generator)
    scale = math.log1p(-p)
    # 1 - u lies in (0, 1]: its logarithm is finite, and u = 0 gives the smallest value, 1.
    x._data[:] = dt.cast_values(
        [max(1, math.ceil(math.log(1.0 - source.uniform(dt.float64)) / scale)) for _ in x._data], x.dtype
    )
    return x


def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    source = _generator(generator)._random
    x._data[:] = dt.cast_values([source.gauss(mean, std) for _ in x._data], x.dtype)
    return x


def random_(x: Tensor, low: int = 0, high: int | None = None, *, generator=None) -> Tensor:
    """Integers in [low, high) (``random_(high)`` means [0, high)); without bounds, [0, 2**24) for float32."""
    if high is None:
        low, high = (0, low) if low else (0, 2 ** dt.UNIFORM_BITS.get(x.dtype, 63))
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    source = _generator(generator)._random
    x._data[:] = dt.cast_values([source.randrange(low, high) for _ in x._data], x.dtype)
    return x


def bernoulli(x: Tensor, p=None, *, generator=None) -> Tensor:
    """1 with probability ``x`` (or ``p``), elementwise; the dtype of ``x``."""
    _floating(x.dtype, "bernoulli_tensor_cpu_self_")
    source = _generator(generator)
    chances = x._data if p is None else [p] * len(x._data)
    for chance in chances:
        if not 0 <= chance <= 1:
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return Tensor(
        dt.cast_values([1.0 if source.uniform(dt.float64) < c else 0.0 for c in chances], x.dtype), x._shape, x.dtype
    )


def bernoulli_(x: Tensor, p=0.5, *, generator=None) -> Tensor:
    source = _generator(generator)
    if isinstance(p, Tensor):
        from judge.browser.torchlike._elementwise import expand_to

        chances = expand_to(p, x._shape)._data
    else:
        chances = [p] * len(x._data)
    if any(not 0 <= c <= 1 for c in chances):
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    x._data[:] = dt.cast_values([1 if source.uniform(dt.float64) < c else 0 for c in chances], x.dtype)
    return x


def normal(
    mean,
    std=1.0,
    size=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """``normal(mean_tensor, std)``, ``normal(mean, std_tensor)``, or ``normal(mean, std, size)``."""
    from judge.browser.torchlike._elementwise import binary

    source = _generator(generator)._random
    if size is not None:
        check_device(device)
        shape = sizes_from_args((size,) if isinstance(size, int) else (tuple(size),))
        kind = dtype or dt.default_float
        return Tensor(
            dt.cast_values([source.gauss(float(mean), float(std)) for _ in range(math.prod(shape))], kind), shape, kind
        )
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        raise TypeError("normal() needs a tensor mean or std, or a size")
    if isinstance(std, Tensor) and any(s < 0 for s in std._data) or not isinstance(std, Tensor) and std < 0:
        raise RuntimeError("normal expects std >= 0.0")
    return binary(
        mean,
        std,
        lambda m, s: source.gauss(m, s),
        compute=result_type(mean, std) if result_type(mean, std).is_floating_point else dt.float32,
    )


# Stirling's series remainder log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi)/2], for BTRS.
_TAIL = [
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
]


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _TAIL[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _binomial_inversion(uniform, count: float, prob: float) -> float:
    """Count the geometric waiting times that fit into ``count`` trials (small count * prob)."""
    total, successes = 0.0, 0
    log_q = math.log1p(-prob)
    while True:
        u = uniform()
        if u == 0.0:
            return float(successes)  # an infinite wait: no further success fits
        total += math.ceil(math.log(u) / log_q)
        if total > count:
            return float(successes)
        successes += 1


def _binomial_btrs(uniform, count: float, prob: float) -> float:
    """Hörmann's transformed rejection with squeeze (BTRS), as torch uses for count * prob >= 10."""
    spread = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * spread
    m = math.floor((count + 1) * prob)
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        if us == 0.0:
            continue
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return float(k)
        if v == 0.0:
            return float(k)  # log(0) = -inf lies below every bound
        v = math.log(v * alpha / (a / (us * us) + b))
        bound = (
            (m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
            + (count + 1) * math.log((count - m + 1) / (count - k + 1))
            + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
            + _stirling_tail(m)
            + _stirling_tail(count - m)
            - _stirling_tail(k)
            - _stirling_tail(count - k)
        )
        if v <= bound:
            return float(k)


def _binomial_value(uniform, count: float, prob: float) -> float:
    if count != count or prob != prob:
        return math.nan
    count = math.floor(count)
    if count <= 0 or prob <= 0:
        return 0.0
    if prob >= 1:
        return float(count)
    flipped = prob > 0.5
    q = 1 - prob if flipped else prob
    k = _binomial_inversion(uniform, count, q) if count * q < 10 else _binomial_btrs(uniform, count, q)
    return count - k if flipped else k


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Binomial(count, prob) draws, elementwise (broadcast), in the floating dtype of ``count``."""
    from judge.browser.torchlike._elementwise import binary

    if not count.dtype.is_floating_point:
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: "
            f"{'Long' if count.dtype is dt.int64 else count.dtype.name.capitalize()}"
        )
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {prob.dtype.name.capitalize()} but expected {count.dtype.name.capitalize()}")
    source = _generator(generator)

    def uniform() -> float:
        return source.uniform(dt.float64)

    return binary(count, prob, lambda n, p: _binomial_value(uniform, n, p), compute=count.dtype)


def multinomial(probs: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Draws of category indices per row of ``probs`` ([V] or [B, V], non-negative weights)."""
    if probs.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not probs.dtype.is_floating_point:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {probs.dtype.name.capitalize()}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    width = probs._shape[-1]
    if not replacement and num_samples > width:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    source = _generator(generator)
    rows = [probs._data[i * width : (i + 1) * width] for i in range(len(probs._data) // max(width, 1))]
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
                    raise RuntimeError(
                        "invalid multinomial distribution (with replacement=False, not enough "
                        "non-negative category to sample)"
                    )
    return Tensor(out, (num_samples,) if probs.dim() == 1 else (len(rows), num_samples), dt.int64)
