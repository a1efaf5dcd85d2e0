"""What runs in the learner's browser (Pyodide): a pure-Python torch subset and the tiny variants.

Run in Pyodide (and in CPython by the tests and ``judge.py test --browser``):

- ``run`` — judge code against an exercise's browser variant in this interpreter: what "Run" does.
- ``learner`` — the learner's code in the same interpreter as the tiny tests.
- ``torchlike/`` — the torch subset (Pyodide has no numpy and no torch; see docs/browser.md); the
  statistics are ``judge.checks.stats`` and the tails it stands on, ``judge.checks.tails``.

Run on the server or the author's machine, about the browser:

- ``subset`` — the one list of the judge's modules Pyodide loads: what ``bundle`` ships and the
  ``browser-subset`` contract of ``.importlinter`` checks.
- ``bundle`` — what Pyodide loads: the engine's pure-Python modules and an exercise's browser files.
- ``node`` — run an exercise's browser variant under Node.js, exactly as the exercise page does.
- ``catalogue`` — check a browser variant the way the browser runs it: reference AC, wrong ones caught.

May import (the layers below it in .importlinter's ``judge-layers``): ``judge.authoring``,
``judge.engine``, ``judge.exercises``, ``judge.checks``, ``judge.reports``, ``judge.learner``,
``judge.i18n``, ``judge.verdicts``.

What runs in Pyodide (``run``, ``learner``, ``torchlike`` and the rest of ``subset``'s list)
imports nothing of the server: not ``judge.sandbox``, ``judge.cli``, ``web``, flask, sqlalchemy
or rich (the ``browser-subset`` contract).

Imported by: ``judge.cli`` (``test --browser``, the browser catalogue) and ``web.learning``
(``browser_run`` serves the bundle).
"""
