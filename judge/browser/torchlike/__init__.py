"""A pure-Python subset of torch for the browser (Pyodide has no torch and no numpy).

Registered as ``torch`` inside Pyodide only (:func:`judge.browser.torchlike.install`); in
CPython it is imported under its own name, and tests compare it with real torch operation by
operation. Anything outside the subset raises :class:`UnsupportedOperation`, an
``AttributeError`` naming the operation and saying to use Submit. See docs/browser.md.
"""

from __future__ import annotations

import math as _math
import sys as _sys

from judge.browser.torchlike import _methods  # noqa: F401 - attaches the Tensor methods
from judge.browser.torchlike._creation import (arange, as_tensor, empty, empty_like, full, full_like, linspace,
                                               ones, ones_like, tensor, zeros, zeros_like)
from judge.browser.torchlike._dtypes import (bool_ as bool, dtype, finfo, float32, float64, iinfo, int32, int64,
                                             promote_types, result_type)
from judge.browser.torchlike._errors import UnsupportedOperation
from judge.browser.torchlike._functions import (abs, add, allclose, bitwise_and, bitwise_not, bitwise_or,
                                                bitwise_xor, broadcast_to, ceil, clamp, clip, div, divide, eq, equal,
                                                exp, floor, floor_divide, ge, gt, is_floating_point, is_tensor,
                                                isclose, isfinite, isinf, isnan, isneginf, isposinf, le, log, log1p,
                                                log2, logical_and, logical_not, logical_or, logical_xor, lt,
                                                maximum, minimum, mul, ne, neg, numel, permute, pow, remainder,
                                                round, sigmoid, sqrt, sub, t, tanh, transpose, true_divide)
from judge.browser.torchlike._random import (Generator, default_generator, initial_seed, manual_seed, multinomial,
                                             rand, rand_like, randint, randn, randperm, seed)
from judge.browser.torchlike._reductions import (all, amax, amin, any, argmax, argmin, cumprod, cumsum,
                                                 log_softmax, max, mean, min, prod, softmax, sum)
from judge.browser.torchlike._shape import Size
from judge.browser.torchlike._sorting import (argsort, bincount, cat, flip, gather, masked_fill, nonzero, scatter,
                                              scatter_add, searchsorted, sort, stack, topk, unique, where)
from judge.browser.torchlike._tensor import Tensor, device

float = float32  # noqa: A001 - torch's aliases
double = float64
long = int64
int = int32  # noqa: A001
concat = concatenate = cat
inf, nan, pi, e = _math.inf, _math.nan, _math.pi, _math.e
__version__ = "2.13.0+browser-subset"
SUBSET = True  # lets code (and the judge) tell the subset from real torch


class no_grad:
    """A context manager and decorator that does nothing: the subset has no autograd."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False

    def __call__(self, function):
        return function


inference_mode = enable_grad = no_grad


def set_grad_enabled(mode: bool) -> no_grad:  # noqa: ARG001
    return no_grad()


def get_default_dtype() -> dtype:
    return float32


def set_num_threads(count: int) -> None:  # noqa: ARG001 - one thread in the browser anyway
    return None


def get_num_threads() -> int:
    return 1


class _Cuda:
    """torch.cuda: there is no GPU in the browser."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0

    def __getattr__(self, name: str):
        raise UnsupportedOperation(f"torch.cuda.{name}", "the browser has no GPU")


cuda = _Cuda()


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise UnsupportedOperation(f"torch.{name}")


def install() -> None:
    """Make ``import torch`` (and ``torch.nn.functional``) load this subset (Pyodide only)."""
    from judge.browser.torchlike import nn
    from judge.browser.torchlike.nn import functional

    module = _sys.modules[__name__]
    _sys.modules["torch"] = module
    _sys.modules["torch.nn"] = nn
    _sys.modules["torch.nn.functional"] = functional
