"""Exercises on disk: loading an exercise and its suites, the handbook's chapters, the statement's contract.

- ``exercise`` — ``exercises/NNN-slug/``: ``exercise.toml``, statements, starter, tests and the
  solutions beside them; finding an exercise by number or slug in the configured packs.
- ``suites`` — the test suites, ``tests/{public,hidden}/<suite>.py``, imported as a package.
- ``chapters`` — the handbook's chapters and sections that exercises are listed under.
- ``clauses`` — the statement's binding sentences and the checks that test each one.
- ``declared`` — the functions an exercise declares, held against the reference's and starter's.
- ``starters`` — an exercise's starter as a learner receives it (its hints in one language).
- ``patches`` — known-wrong solutions written as patches against the reference.
- ``models`` — real language models, offline: the project's tiny Qwen3 and the optional SmolLM2.
- ``probes`` — the probes of ``[similarity]``: fixed public calls whose outputs fingerprint a
  submission's draws (docs/similarity-behaviour.md).

May import (the layers below it in ``judge-layers``): ``judge.checks``, ``judge.reports``,
``judge.sandbox``, ``judge.learner``, ``judge.i18n``, ``judge.verdicts``; transformers (``models``
only, on first use) and whatthepatch.

Imported by: ``judge.engine``, ``judge.authoring``, ``judge.browser``, the front doors, and on the
site ``web.access``, ``web.grading``, ``web.learning`` and ``web.teaching``.
"""
