"""Authors' and maintainers' tools: tests of the exercises' tests, and new exercises.

- ``catalogue`` — ``check``: every reference passes, every known-wrong solution fails with its
  diagnosis, the starter fails naming no mistake.
- ``balance`` — ``lanes``: how evenly an exercise's declared lane weights split its cases' cost.
- ``scaffold`` — ``new``: a small working exercise to start from.
- ``mutation/`` — ``mutation``: mutants of each reference, judged by its suites.

May import (the layers below it in ``judge-layers``): ``judge.engine``, ``judge.exercises``,
``judge.checks``, ``judge.reports``, ``judge.sandbox``, ``judge.learner``, ``judge.i18n``,
``judge.verdicts``; cosmic-ray and parso (``mutation`` only: the ``test`` extra).

Imported by: ``judge.cli`` and ``judge.browser.catalogue`` (the browser variants' catalogue); never
at judging time.
"""
