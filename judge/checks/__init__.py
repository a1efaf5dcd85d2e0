"""The statistics and checks that an exercise's test functions call, and what those receive.

- ``core`` — the checks test functions call: hard checks first (exact values, tensors, refusals),
  then hypothesis tests (distributions, independence, estimators).
- ``testing`` — what a test function receives: a handle to the submission and a context (seeds,
  the case, the false-failure budget it spends).
- ``stats`` — the hypothesis tests themselves, pure Python (it also runs in the browser).
- ``stats_torch`` — the server's torch twin of ``stats``' G-test (left out of the browser).
- ``generator_contract`` — the generator contract of a sampling function, whole, in one check.
- ``arguments/`` — bad inputs generated from a statement's contract, and its legal corners.
- ``draw_sites`` — every draw site at the extremes of its uniforms.
- ``pairings`` — which draws of a row are tested together for independence.
- ``budget`` — the false-failure budget: how often a correct submission may fail, who spends it.
- ``evidence`` — the rules that decide whether a "Likely mistake" may be named.
- ``numbers`` — how two numbers a message compares are written.

May import (the layers below it in ``judge-layers``): ``judge.reports``, ``judge.sandbox``,
``judge.learner``, ``judge.i18n``, ``judge.verdicts``; in practice never the sandbox: a check
talks to the learner through ``testing``'s handle, and ``testing`` runs in the browser
(``browser-subset``).

Imported by: the exercises' suites (``exercises/NNN-slug/tests/``), ``judge.exercises``,
``judge.engine``, ``judge.authoring`` and ``judge.browser``.
"""
