"""torch.nn in the subset: only ``functional`` (no modules, no parameters).

May import: the rest of :mod:`judge.browser.torchlike` and the standard library only.
Imported by: :mod:`judge.browser.torchlike` (``torch.nn`` in Pyodide).
"""

from judge.browser.torchlike.nn import functional  # noqa: F401


def __getattr__(name: str):
    from judge.browser.torchlike._errors import UnsupportedOperation

    if name.startswith("__"):
        raise AttributeError(name)
    raise UnsupportedOperation(f"torch.nn.{name}")
