"""The ProbJudge web site (Flask + SQLAlchemy). Work in progress: the data layer comes first.

``web.core.models`` (users, tokens, exercises, submissions), ``web.core.database`` (engine, Alembic
migrations), ``web.learning.exercises`` (sync from ``exercises/``), ``python -m web`` (init-db,
create-user). The pages, the API and the grading queue follow; no judging logic lives here.
"""
