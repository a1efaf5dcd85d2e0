"""The ProbJudge web site (Flask + SQLAlchemy): learners' pages, courses, the JSON API, grading.

It judges with the same engine as the CLI (``judge``) and stores the same report; no judging
logic lives here. Its packages and modules, top to bottom as .importlinter's ``web-layers``
orders them (each may import only those below it; docs/layout.md says why in this order):

- ``__main__``, ``wsgi``, ``serve`` — ``python -m web ...``, the WSGI entry point, ``make run``.
- ``app`` — the application factory: configuration, database, launcher, blueprints, workers.
- ``api/`` — the JSON API, ``/api/v1``.
- ``learning/`` — the learners' pages: exercises, submissions, Run, profile.
- ``teaching/`` — courses, assignments, gradebook, analytics, rejudges, diffs.
- ``accounts/`` — users, sign-in and sign-out, the admin's page of an account.
- ``access/`` — permissions and visibility: who sees what.
- ``services`` — what pages, API and commands reach at run time, as one typed object.
- ``grading/`` — the queue of record, workers, Celery, sweep, health.
- ``core/`` — configuration, database, models, extensions, forms, texts.

May import: nothing itself (``import web`` loads no module of the site). Its modules may import
``judge``; ``judge`` never imports them (``judge-never-imports-web``). Imported by: the tests,
``gunicorn 'web.wsgi:app'`` and ``python -m web``.
"""
