"""What a failure is evidence of: the rules that decide whether a "Likely mistake" may be named.

A diagnosis is printed only on its own evidence:

- Every failure says what *kind* of evidence it is (:class:`Evidence`): the learner's value is
  malformed (``structural``), a well-formed value or distribution differs from the target
  (``value``), the learner's code raised (``raised``), or raised ``NotImplementedError``
  (``not_implemented``: the function is not written yet, which is evidence of no mistake at all).
  :func:`judge.checks.diagnosed` names only the kinds it is told are its evidence.

Pure Python (the browser ships it).
"""

from __future__ import annotations

import enum

__all__ = ["Evidence"]


class Evidence(str, enum.Enum):
    """The kind of evidence a failure is (``CheckFailed.kind``): what :func:`judge.checks.diagnosed`
    may name. The value is what reports and docs call it."""

    STRUCTURAL = "structural"  # the value is malformed: type, shape, dtype, device, an id out of range, NaN
    VALUE = "value"  # a well-formed value or distribution differs from the target
    RAISED = "raised"  # the learner's code raised (or raised another type than a check expected)
    NOT_IMPLEMENTED = "not_implemented"  # it raised NotImplementedError: not written yet; never evidence
