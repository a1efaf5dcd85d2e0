"""torch.distributions in the subset: Categorical, Uniform, Gumbel, Exponential.

As in torch, ``sample()`` takes no generator: draws come from the default generator (seed it with
``torch.manual_seed``, isolate it with ``torch.random.fork_rng``). Each one calls the torch
namespace's own functions at draw time (``torch.multinomial``, ``torch.rand``, ``exponential_``),
so whatever replaces those (the judge's extreme-uniform phase) reaches the distributions as in torch.
Parameters are validated as torch validates them by default (``validate_args``): a ValueError.
"""

from __future__ import annotations

import math

import judge.browser.torchlike as torch
from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike._errors import UnsupportedOperation
from judge.browser.torchlike._shape import Size, broadcast_shapes
from judge.browser.torchlike._tensor import Tensor


def _size(sample_shape) -> Size:
    return Size(tuple(sample_shape))


def _as_parameter(value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Tensor(dt.cast_values([float(value)], dt.default_float), (), dt.default_float)
    raise TypeError(f"a distribution parameter must be a number or a Tensor, got {type(value).__name__}")


def _broadcast_all(*values) -> list[Tensor]:
    tensors = [_as_parameter(v) for v in values]
    kind = tensors[0].dtype
    for t in tensors[1:]:
        kind = dt.promote_types(kind, t.dtype)
    shape = broadcast_shapes(*(t._shape for t in tensors))
    return [t.to(kind).expand(shape) for t in tensors]


class Distribution:
    """What every distribution of the subset has: shapes, ``sample`` and validation."""

    has_rsample = False

    def __init__(self, batch_shape=(), event_shape=(), validate_args: bool | None = None) -> None:
        self._batch_shape, self._event_shape = Size(tuple(batch_shape)), Size(tuple(event_shape))
        self._validate_args = True if validate_args is None else bool(validate_args)

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape=()) -> Size:
        return Size(tuple(_size(sample_shape)) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _invalid(self, name: str, value: Tensor, constraint: str) -> None:
        raise ValueError(
            f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of distribution "
            f"{self!r} to satisfy the constraint {constraint}, but found invalid values:\n{value}"
        )

    def sample(self, sample_shape=()) -> Tensor:
        return self.rsample(sample_shape)

    def sample_n(self, n: int) -> Tensor:
        return self.sample((n,))

    def rsample(self, sample_shape=()) -> Tensor:
        raise UnsupportedOperation(f"torch.distributions.{type(self).__name__}.rsample")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise UnsupportedOperation(f"torch.distributions.{type(self).__name__}.{name}")


class Categorical(Distribution):
    """torch.distributions.Categorical(probs=..., logits=...): one category per draw, over the last dim."""

    def __init__(
        self, probs: Tensor | None = None, logits: Tensor | None = None, validate_args: bool | None = None
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self._probs, self._logits = probs / probs.sum(-1, keepdim=True), None
            param, name = self._probs, "probs"
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self._logits, self._probs = logits - torch.logsumexp(logits, dim=-1, keepdim=True), None
            param, name = self._logits, "logits"
        self._num_events = param._shape[-1]
        super().__init__(param._shape[:-1], (), validate_args)
        if self._validate_args:
            if name == "probs":
                ok = ((param >= 0).all(dim=-1) & ((param.sum(-1) - 1).abs() < 1e-6)).all()
                if not bool(ok):
                    self._invalid("probs", param, "Simplex()")
            elif bool(torch.isnan(param).any()):
                self._invalid("logits", param, "IndependentConstraint(Real(), 1)")

    @property
    def probs(self) -> Tensor:
        if self._probs is None:
            self._probs = torch.softmax(self._logits, dim=-1)
        return self._probs

    @property
    def logits(self) -> Tensor:
        if self._logits is None:
            eps = dt.finfo(self._probs.dtype).eps
            self._logits = torch.log(self._probs.clamp(min=eps, max=1 - eps))
        return self._logits

    @property
    def param_shape(self) -> Size:
        return (self._probs if self._probs is not None else self._logits).shape

    @property
    def mean(self) -> Tensor:
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        return self.mean

    def sample(self, sample_shape=()) -> Tensor:
        """int64 draws of shape ``sample_shape + batch_shape``, from the default generator."""
        shape = _size(sample_shape)
        rows = self.probs.reshape(-1, self._num_events)
        draws = torch.multinomial(rows, shape.numel(), True).T
        return draws.reshape(self._extended_shape(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        value = value.long()
        if self._validate_args and bool(((value < 0) | (value >= self._num_events)).any()):
            raise ValueError(
                f"Expected value argument (Tensor of shape {tuple(value.shape)}) to be within the "
                f"support (IntegerInterval(lower_bound=0, upper_bound={self._num_events - 1})) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )
        index, log_pmf = torch.broadcast_tensors(value.unsqueeze(-1), self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        logits = self.logits.clamp(min=dt.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = torch.arange(self._num_events).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    def __repr__(self) -> str:
        name = "probs" if self._probs is not None else "logits"
        return f"Categorical({name}: {(self._probs if name == 'probs' else self._logits).shape})"


class Uniform(Distribution):
    """torch.distributions.Uniform(low, high): draws ``low + torch.rand(...) * (high - low)``."""

    has_rsample = True

    def __init__(self, low, high, validate_args: bool | None = None) -> None:
        self.low, self.high = _broadcast_all(low, high)
        super().__init__(self.low._shape, (), validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            self._invalid("low", self.low, f"LessThan(upper_bound: {self.high})")

    def rsample(self, sample_shape=()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.low + torch.rand(shape, dtype=self.low.dtype) * (self.high - self.low)

    def __repr__(self) -> str:
        return f"Uniform(low: {self.low}, high: {self.high})"


class Gumbel(Distribution):
    """torch.distributions.Gumbel(loc, scale): ``loc - scale * log(-log(u))``, u uniform on [tiny, 1 - eps)."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = _broadcast_all(loc, scale)
        super().__init__(self.loc._shape, (), validate_args)
        if self._validate_args and not bool((self.scale > 0).all()):
            self._invalid("scale", self.scale, "GreaterThan(lower_bound=0.0)")
        info = dt.finfo(self.loc.dtype)
        self._base = Uniform(
            torch.full_like(self.loc, info.tiny), torch.full_like(self.loc, 1 - info.eps), validate_args=False
        )

    def rsample(self, sample_shape=()) -> Tensor:
        u = self._base.rsample(sample_shape)
        return self.loc - self.scale * torch.log(-torch.log(u))

    def __repr__(self) -> str:
        return f"Gumbel(loc: {self.loc}, scale: {self.scale})"


class Exponential(Distribution):
    """torch.distributions.Exponential(rate): ``exponential_()`` draws divided by the rate."""

    has_rsample = True

    def __init__(self, rate, validate_args: bool | None = None) -> None:
        (self.rate,) = _broadcast_all(rate)
        super().__init__(self.rate._shape, (), validate_args)
        if self._validate_args and not bool((self.rate > 0).all()):
            self._invalid("rate", self.rate, "GreaterThan(lower_bound=0.0)")

    def rsample(self, sample_shape=()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return torch.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def __repr__(self) -> str:
        return f"Exponential(rate: {self.rate})"


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise UnsupportedOperation(f"torch.distributions.{name}")
