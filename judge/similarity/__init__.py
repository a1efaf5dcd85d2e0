"""Similarity between learners' submissions, for instructors looking for copies: offline, in-process.

- ``tokens`` — a Python source as the comparison sees it: names folded, comments, docstrings and
  layout dropped, each token with its character offsets in the learner's text.
- ``text`` — the engine on source text: copydetect's winnowing over those tokens, the exercise's
  boilerplate excluded, rare fingerprints weighted above common ones (``compare_sources``,
  ``boilerplate_for``); across a course, ``across_exercises`` and ``clusters``.
- ``behaviour`` — the behavioural signal: two fingerprints of draws under the exercise's probe
  seeds (:mod:`judge.engine.probing`) compared, less the hashes every correct solution may share.

docs/similarity.md says how it works, what it cannot see, and the benchmark's figures
(benchmarks/similarity.py).

May import (the layers below it in ``judge-layers``): ``judge.engine`` (a catalogued solution's
fingerprint, taken as a grading takes it), ``judge.exercises`` (the boilerplate of an exercise),
``judge.checks``, ``judge.reports``, ``judge.sandbox``, ``judge.learner``, ``judge.i18n``,
``judge.verdicts``; copydetect and numpy (``text``, on first use: copydetect
imports matplotlib).

Imported by: the site's instructor pages (``web.teaching``, ``web.api``) and the benchmark; never
at judging time.
"""

from judge.similarity.text import (
    CoursePair,
    ExercisePair,
    Fragment,
    PairScore,
    Source,
    across_exercises,
    boilerplate_for,
    clusters,
    compare_sources,
)

__all__ = [
    "CoursePair",
    "ExercisePair",
    "Fragment",
    "PairScore",
    "Source",
    "across_exercises",
    "boilerplate_for",
    "clusters",
    "compare_sources",
]
