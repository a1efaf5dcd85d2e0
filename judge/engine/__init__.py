"""The engine: judge a learner's source against an exercise's suites and produce its report.

- ``runner`` — :func:`~judge.engine.runner.grade` (``judge.grade``): loads the suites, runs each
  case under its seed and time budget, and writes the :class:`~judge.reports.report.Report`.
- ``process`` — the trusted side of a learner process: start it through a sandbox launcher, send
  it the source, call its functions, read and check its answers.
- ``pipes`` — the process's pipes and clocks: its captured output (capped), the deadline reader
  and writer, the CPU watch, pipe widening.
- ``probing`` — the fingerprint of a submission's draws: the exercise's probes called after the
  cases of a grading that asks for it, their outputs hashed (docs/similarity-behaviour.md).

May import (the layers below it in .importlinter's ``judge-layers``): ``judge.exercises``,
``judge.checks``, ``judge.reports``, ``judge.sandbox``, ``judge.learner``, ``judge.i18n``,
``judge.verdicts``. The runner reaches ``process`` (and so the sandbox) only when it is handed no
learner: the browser hands it one, which is why ``browser-subset`` ignores those two imports.

Imported by: the front doors (``judge.cli``, ``judge.gradescope``), ``judge.browser.run``,
``judge.authoring``, ``judge.similarity`` and, on the site, ``web.app`` and ``web.grading``.
"""
