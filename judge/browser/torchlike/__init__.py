"""A pure-Python subset of torch for the browser (Pyodide has no torch and no numpy).

Registered as ``torch`` inside Pyodide only (:func:`judge.browser.torchlike.install`); in
CPython it is imported under its own name, and tests compare it with real torch operation by
operation. Anything outside the subset raises :class:`UnsupportedOperation`, an
``AttributeError`` naming the operation and saying to use Submit: a missing function or
module (``torch.fft``), a missing method (``Tensor.matmul``, also through ``torch.Tensor``), and
a keyword argument the subset does not take (``torch.zeros(..., out=...)``). See docs/browser.md.

May import: the standard library only (Pyodide has no numpy), except ``extremes``, which drives
the subset's uniform sources with :mod:`judge.learner.uniform_sources` (the ``browser-subset``
contract: nothing of the server). Imported by: :mod:`judge.browser.learner`,
:mod:`judge.browser.catalogue`, the tests, and (as ``torch``, in Pyodide) the learner's code.
"""

from __future__ import annotations

import math as _math
import sys as _sys

from judge.browser.torchlike import _methods  # noqa: F401 - attaches the Tensor methods
from judge.browser.torchlike._creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from judge.browser.torchlike._dtypes import (
    bfloat16,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    iinfo,
    int32,
    int64,
    promote_types,
)
from judge.browser.torchlike._dtypes import bool_ as bool
from judge.browser.torchlike._errors import UnsupportedOperation
from judge.browser.torchlike._errors import guard as _guard
from judge.browser.torchlike._functions import (
    abs,
    add,
    allclose,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    broadcast_tensors,
    broadcast_to,
    ceil,
    chunk,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    clone,
    div,
    divide,
    eq,
    equal,
    exp,
    exp2,
    expm1,
    fix,
    flatten,
    floor,
    floor_divide,
    frac,
    ge,
    gt,
    is_floating_point,
    is_tensor,
    isclose,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    le,
    log,
    log1p,
    log2,
    log10,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    maximum,
    minimum,
    mul,
    nan_to_num,
    narrow,
    ne,
    neg,
    nextafter,
    numel,
    outer,
    permute,
    pow,
    reciprocal,
    remainder,
    reshape,
    round,
    rsqrt,
    select,
    sigmoid,
    sign,
    split,
    sqrt,
    square,
    squeeze,
    sub,
    t,
    tanh,
    transpose,
    true_divide,
    trunc,
    unbind,
    unsqueeze,
)
from judge.browser.torchlike._random import (
    Generator,
    bernoulli,
    binomial,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from judge.browser.torchlike._reductions import (
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    count_nonzero,
    cumprod,
    cumsum,
    log_softmax,
    logsumexp,
    max,
    mean,
    min,
    prod,
    softmax,
    std,
    std_mean,
    sum,
    var,
    var_mean,
)
from judge.browser.torchlike._shape import Size
from judge.browser.torchlike._sorting import (
    argsort,
    argwhere,
    bincount,
    bucketize,
    cat,
    flip,
    gather,
    index_add,
    index_select,
    kthvalue,
    masked_fill,
    masked_select,
    nonzero,
    repeat_interleave,
    scatter,
    scatter_add,
    searchsorted,
    sort,
    stack,
    take_along_dim,
    topk,
    unique,
    where,
)
from judge.browser.torchlike._tensor import Tensor, device, result_type

float = float32  # noqa: A001 - torch's aliases
double = float64
half = float16
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


def _guard_keywords() -> None:
    """Wrap the functions of the namespace and its modules, the Tensor methods and the distributions'
    methods so that a keyword argument the subset does not take says "not available in the browser"
    (see _errors.guard)."""
    import types

    from judge.browser.torchlike import distributions, random, special
    from judge.browser.torchlike.nn import functional

    for module, prefix in (
        (_sys.modules[__name__], "torch"),
        (functional, "torch.nn.functional"),
        (random, "torch.random"),
        (special, "torch.special"),
    ):
        for name, value in list(vars(module).items()):
            if isinstance(value, types.FunctionType) and not name.startswith("_") and name != "install":
                setattr(module, name, _guard(value, f"{prefix}.{name}"))
    classes = [(Tensor, "Tensor")] + [
        (value, f"torch.distributions.{name}")
        for name, value in vars(distributions).items()
        if isinstance(value, type) and issubclass(value, distributions.Distribution)
    ]
    for cls, prefix in classes:
        for name, value in list(vars(cls).items()):
            if isinstance(value, types.FunctionType) and (name == "__init__" or not name.startswith("__")):
                setattr(cls, name, _guard(value, prefix if name == "__init__" else f"{prefix}.{name}"))


from judge.browser.torchlike import distributions, nn, random, special  # noqa: E402 - they use the namespace above

xlogy = special.xlogy  # torch.xlogy and Tensor.xlogy are torch.special.xlogy
Tensor.xlogy = special.xlogy

_guard_keywords()


def install() -> None:
    """Make ``import torch`` (with ``torch.nn.functional``, ``torch.distributions``,
    ``torch.random`` and ``torch.special``) load this subset (Pyodide only)."""
    from judge.browser.torchlike.nn import functional

    module = _sys.modules[__name__]
    _sys.modules["torch"] = module
    _sys.modules["torch.nn"] = nn
    _sys.modules["torch.nn.functional"] = functional
    _sys.modules["torch.distributions"] = distributions
    _sys.modules["torch.random"] = random
    _sys.modules["torch.special"] = special
