"""The WSGI entry point for a production server: ``gunicorn 'web.wsgi:app'``.

Configuration comes from the environment (see ``web/core/config.py``). Each server process starts
its own grading workers; they share the submission table safely (a row is claimed by one
conditional UPDATE). Do not use gunicorn's ``--preload``: the workers are threads, and threads
do not survive a fork. Create the first instructor with ``python -m web create-user``.

Without the site's libraries (the ``site`` extra), or with a broker or PostgreSQL but without
``scale``, the import fails with :class:`judge.extras.MissingExtra`, whose message names the extra.
"""

from judge.extras import missing_extra, require

require("site")

from web.app import create_app  # noqa: E402 - after the check: it imports Flask and SQLAlchemy

try:
    app = create_app()
except ImportError as error:  # Celery for PROBJUDGE_BROKER_URL, psycopg for a PostgreSQL DATABASE_URL
    missing = missing_extra(error)
    if missing is None:
        raise
    raise missing from error
