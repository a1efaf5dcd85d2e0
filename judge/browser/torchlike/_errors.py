"""The one error an operation outside the subset raises, and the guard that turns a keyword
argument the subset does not take into that error (instead of a TypeError the learner would
take for a bug of their own)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

SUBMIT_HINT = "Submit to grade on the server, where real torch runs"
_PACKAGE = str(Path(__file__).resolve().parent)
_KEYWORD = re.compile(r"unexpected keyword argument '(\w+)'")


class UnsupportedOperation(AttributeError, NotImplementedError):
    """An operation the browser's torch subset lacks (an AttributeError, so ``hasattr`` works).

    ``operation`` names it as the learner wrote it (``torch.fft``, ``Tensor.matmul``,
    ``torch.zeros(out=...)``); the message always says "not available in the browser: Submit".
    """

    def __init__(self, name: str, detail: str = "") -> None:
        why = f" ({detail})" if detail else ""
        super().__init__(f"{name} is not available in the browser: {SUBMIT_HINT}{why}")
        self.operation = name
        self.detail = detail


def _raised_inside_subset(error: BaseException) -> bool:
    """Whether the innermost frame of ``error`` is the subset's own code (where the bad call was made)."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is not None and trace.tb_frame.f_code.co_filename.startswith(_PACKAGE)


def guard(function, public_name: str):
    """``function``, except that a keyword argument it does not take raises UnsupportedOperation.

    Only a TypeError raised while binding the arguments (by the call into ``function``, or by a
    call the subset makes with them) is converted; one raised inside an operation stays as it is.
    """

    @functools.wraps(function)
    def guarded(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            found = _KEYWORD.search(str(error)) if kwargs else None
            if found is None or found.group(1) not in kwargs or not _raised_inside_subset(error):
                raise
            raise UnsupportedOperation(f"{public_name}(..., {found.group(1)}=...)") from None

    guarded.__wrapped_by_subset__ = True
    return guarded
