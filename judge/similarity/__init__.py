"""Similarity between submissions: what tells an instructor that two learners share code.

- ``behaviour`` — the behavioural signal: two fingerprints of draws under the exercise's probe
  seeds (:mod:`judge.engine.probing`) compared, less the hashes every correct solution may share.

May import (the layers below it in ``judge-layers``): ``judge.engine``, ``judge.exercises``,
``judge.checks``, ``judge.reports``, ``judge.sandbox``, ``judge.learner``, ``judge.i18n``,
``judge.verdicts``.

Imported by: the site's instructors' pages (``web.teaching``), benchmarks and tests.
"""
