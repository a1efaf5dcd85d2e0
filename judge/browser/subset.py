"""What runs in the browser: the one list of the judge's modules that Pyodide loads.

Two things read it, and must agree:

- :mod:`judge.browser.bundle` ships these modules and packages (a package with everything under
  it), the ``__init__.py`` of every package above them, and nothing else;
- ``.importlinter``'s ``browser-subset`` contract names the same modules as its ``source_modules``,
  so ``lint-imports`` holds everything shipped to importing nothing of the server (not
  ``judge.sandbox``, ``judge.cli``, ``web``, flask, sqlalchemy or rich).

``tests/test_import_contracts.py`` fails when the contract and this list differ, and when a module
of the list imports a module of the judge that the bundle would not ship (the contract's ignored
imports aside): a module added to the runner's imports cannot silently be missing in the browser.

Pure data, standard library only: the bundle and the tests import it without loading the judge.
"""

from __future__ import annotations

BROWSER_SUBSET = (
    # What the browser's Run drives: the runner over an in-process learner, and the torch subset.
    "judge.browser.run",
    "judge.browser.learner",
    "judge.browser.torchlike",
    "judge.engine.runner",
    "judge.engine.settling",
    "judge.engine.timesplit",
    "judge.engine.probing",
    # What the runner and an exercise's public and tiny suites import.
    "judge.exercises",
    "judge.checks",
    "judge.learner",
    "judge.reports.report",
    "judge.reports.figures",
    "judge.reports.redaction",
    "judge.extras",
    "judge.i18n",
    "judge.verdicts",
)

# Under a package of BROWSER_SUBSET, still held to the contract, but not shipped: the server's torch
# twin of the statistics refuses to load on the torch subset, where judge.checks.stats decides.
NOT_SHIPPED = ("judge.checks.stats_torch",)
