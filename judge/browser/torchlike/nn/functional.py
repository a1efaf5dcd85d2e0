"""torch.nn.functional in the subset: softmax, log_softmax, gumbel_softmax, one_hot."""

from __future__ import annotations

from judge.browser.torchlike import _dtypes as dt
from judge.browser.torchlike import _reductions
from judge.browser.torchlike._tensor import Tensor


def _implicit_dim(x: Tensor, dim):
    # torch's choice when dim is None (with a deprecation warning): 0 for 0-, 1- and 3-d inputs, else 1.
    return dim if dim is not None else (0 if x.dim() in (0, 1, 3) else 1)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    return _reductions.softmax(input, _implicit_dim(input, dim), dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    return _reductions.log_softmax(input, _implicit_dim(input, dim), dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """Softmax of (logits + Gumbel noise) / tau, the noise from the default generator (as torch draws it:
    ``-log(Exp(1))``); ``hard`` gives the one-hot of its argmax."""
    import judge.browser.torchlike as torch

    gumbels = -torch.empty_like(logits).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True).indices
    hard_one = torch.zeros_like(logits).scatter_(dim, index, 1.0)
    return hard_one - soft + soft


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype is not dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    classes = num_classes if num_classes >= 0 else (max(tensor._data) + 1 if tensor._data else 0)
    data = []
    for v in tensor._data:
        if not 0 <= v < classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
        row = [0] * classes
        row[v] = 1
        data.extend(row)
    return Tensor(data, tensor._shape + (classes,), dt.int64)


def __getattr__(name: str):
    from judge.browser.torchlike._errors import UnsupportedOperation

    if name.startswith("__"):
        raise AttributeError(name)
    raise UnsupportedOperation(f"torch.nn.functional.{name}")
