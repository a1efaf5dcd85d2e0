"""The WSGI entry point for a production server: ``gunicorn 'web.wsgi:app'``.

Configuration comes from the environment (see ``web/core/config.py``). Each server process starts
its own grading workers; they share the submission table safely (a row is claimed by one
conditional UPDATE). Do not use gunicorn's ``--preload``: the workers are threads, and threads
do not survive a fork. Create the first instructor with ``python -m web create-user``.
"""

from web.app import create_app

app = create_app()
