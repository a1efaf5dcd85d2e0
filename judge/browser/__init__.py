"""What runs in the learner's browser (Pyodide): a pure-Python torch subset and the tiny variants.

Nothing here may import anything outside the standard library and ``judge.checks.stats`` (with the
tails it stands on, ``judge.checks.tails``) — Pyodide has no numpy and no torch (see docs/browser.md).
"""
