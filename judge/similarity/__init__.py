"""Similarity of learners' submissions, for instructors: offline, and aware of samplers.

- ``text`` — token similarity of the sources of one exercise, and its aggregation across exercises.
- ``behaviour`` — whether two gradings drew the same numbers on the same probes.

# STAND-IN: replaced by sim-engine at merge (this package's real modules come from its branch).

May import (the layers below it in ``judge-layers``): ``judge.exercises``, ``judge.i18n``.
Never the site (``judge-never-imports-web``).

Imported by: ``web.teaching`` (the similarity check of a course).
"""
