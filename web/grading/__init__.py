"""Grading: the queue of record, the workers that judge, and what an operator watches.

- ``queue`` — grading rows are the queue of record; worker threads claim by (priority, id)
  under a lease renewed by a heartbeat, judge with the engine, and write each result once.
- ``workers`` — ``python -m web grade``: grading workers in a process of their own, on any
  machine that reaches the database.
- ``tasks`` — the Celery app: workers on many machines, and the periodic sweep.
- ``broker`` — grading ids handed to Celery, and what the broker holds.
- ``sweeping`` — the periodic sweep: the database is the truth, the broker only wakes workers.
- ``progress`` — how far a grading has got: written by its worker, read by every site process.
- ``health`` — queue depths, the oldest waiting grading, graders alive, latency.
- ``gradable`` — whether this site can grade an exercise: the optional extras its hidden tests
  declare are installed (exercise 45 and ``transformers``).

May import (the layers below it in .importlinter's ``web-layers``): ``web.core``; the judge's
``judge.engine``, ``judge.sandbox``, ``judge.exercises``, ``judge.reports``; Celery, kombu and
SQLAlchemy.

Not ``web.services``: the queue is what services hold, so it sits below them.

Imported by: ``web.services``, ``web.access``, ``web.teaching`` (rejudges), ``web.learning``
(submitting), ``web.api``, ``web.app`` and ``python -m web``.
"""
