"""Access: who may reach what, and how much of a submission its viewer sees.

- ``permissions`` — one home for every authorization rule of pages and API routes.
- ``visibility`` — how much of a submission's report its viewer sees, and which verdicts are
  withheld from their authors now.
- ``presenting`` — a stored submission as its viewer may see it: the report minus what is hidden.
- ``contexts`` — the context of a submission: the course it is made for, or none (practice).
- ``lookup`` — what a URL names (an exercise, a visible submission) or a 404.

May import (the layers below it in .importlinter's ``web-layers``): ``web.services``,
``web.grading``, ``web.core``; ``judge.exercises``, ``judge.reports`` (hiding, exports),
``judge.i18n``, ``judge.verdicts``.

Imported by: ``web.accounts``, ``web.teaching``, ``web.learning``, ``web.api`` and ``web.app``:
pages and API routes ask the same functions.
"""
