"""Learning: the learners' pages, from an exercise's statement to a submission's verdict.

- ``exercise_pages`` — the exercise list, one exercise (statement, editor, submit, download),
  its history.
- ``submission_pages`` — one submission: its verdict and cases (live while graded) and its code.
- ``profile`` — progress, language, password, and API tokens (shown once).
- ``browser_run`` — what "Run" in the browser fetches: the engine's Python and one exercise's
  browser files.
- ``exercises`` — keep the ``exercise`` table in step with the exercise folders of the packs.
- ``statements`` — Markdown statements to HTML, math left for KaTeX.
- ``figures`` — the picture of a failed check, as the site shows it.
- ``progress`` — a learner's status per exercise, acceptance counts, a profile's progress.

May import (the layers below it in .importlinter's ``web-layers``): ``web.teaching``,
``web.accounts``, ``web.access``, ``web.services``, ``web.grading``, ``web.core``;
``judge.browser`` (the bundle), ``judge.exercises``, ``judge.reports``, ``judge.i18n``,
``judge.verdicts``.

Imported by: ``web.app`` (its blueprints) and ``python -m web`` (syncing exercises); ``web.api``
may call the same functions.
"""
