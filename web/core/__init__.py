"""The site's core: configuration, the database and its models, extensions, forms and texts.

- ``config`` — settings from the environment (table in its docstring and in docs/deploying.md).
- ``database`` — engines, sessions and Alembic migrations (``web/migrations/``).
- ``models`` — the data (SQLAlchemy 2): users, sessions, tokens, exercises, submissions and
  their gradings, courses, assignments, invitations.
- ``extensions`` — Flask-Login, CSRFProtect, Flask-Limiter and the rate limits, bound per app.
- ``forms`` — the site's forms (Flask-WTF: validation and a CSRF token in each).
- ``i18n``, ``texts``, ``instructor_texts`` — the request's language and every page text in
  English and Chinese.
- ``names`` — user names: the display form and the unique, case-insensitive key.
- ``validation`` — the text every form and JSON body may bring in.
- ``moments``, ``zones`` — course date-times in UTC, shown in the course's time zone; the zones
  a course form offers.
- ``heap`` — the garbage collector in the long-lived processes.

May import: nothing else of ``web`` (it is the lowest layer of .importlinter's ``web-layers``);
``judge.i18n`` and ``judge.verdicts`` (texts and verdict names shared with the CLI); flask,
SQLAlchemy, Alembic and the Flask extensions.

Imported by: every other part of the site.
"""
