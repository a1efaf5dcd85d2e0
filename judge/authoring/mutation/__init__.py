"""Mutation testing of the exercises' suites: measure the hidden suites instead of trusting them.

Each exercise's reference solution is mutated with cosmic-ray's operators (and a few of ours,
written as cosmic-ray operators: :mod:`judge.authoring.mutation.operators`), and every mutant is judged by
the same judge as ``check`` (:func:`judge.authoring.catalogue.judge_under_seeds`, public and hidden suites).
A mutant the suites accept either behaves exactly like the reference (an *equivalent* mutant, which
the author lists with a reason in ``solutions/NNN-slug/mutants.toml``) or shows a hole in the
suites. ``python practice/judge.py mutation`` (``make mutation``) runs it; docs/authoring.md,
"Mutation testing", says how to read its table.

Not part of the browser bundle (a package of its own), and not imported by the judge at run time:
cosmic-ray is a maintainers' tool (the ``test`` extra of pyproject.toml).

May import: :mod:`judge.authoring.catalogue`, what it builds on (``judge.exercises``,
``judge.checks``, ``judge.reports``, ``judge.sandbox``, ``judge.verdicts``), cosmic-ray and parso.
Imported by: ``judge.cli`` (``mutation``) only.
"""
