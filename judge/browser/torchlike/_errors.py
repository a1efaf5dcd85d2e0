"""The one error an operation outside the subset raises."""

from __future__ import annotations

SUBMIT_HINT = "use Submit to grade on the server, where real torch runs"


class UnsupportedOperation(AttributeError, NotImplementedError):
    """An operation the browser's torch subset lacks (an AttributeError, so ``hasattr`` works)."""

    def __init__(self, name: str, detail: str = "") -> None:
        text = f"{name} is not available in the browser's torch subset"
        super().__init__(f"{text}{': ' + detail if detail else ''}; {SUBMIT_HINT}")
        self.operation = name
