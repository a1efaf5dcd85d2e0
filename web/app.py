"""The Flask application factory (the site grows one blueprint per area: api, then auth, pages).

``create_app(settings)`` opens the database (migrating it), syncs the exercises, builds the
sandbox launcher chosen by configuration and starts the grading workers, all in one place.
"""

from __future__ import annotations

import logging

from flask import Flask, g, jsonify
from werkzeug.exceptions import HTTPException

from judge.sandbox import launcher_for
from web.config import Settings
from web.database import make_engine, session_factory, upgrade
from web.exercises import sync_exercises
from web.grading import GradingQueue

log = logging.getLogger("probjudge.web")


def create_app(settings: Settings | None = None, *, launcher=None, start_workers: bool = True) -> Flask:
    """Build the site. ``launcher`` overrides the sandbox chosen by ``settings`` (tests use it)."""
    settings = settings or Settings.from_environment()
    app = Flask(__name__)
    app.config.update(SECRET_KEY=settings.secret_key, MAX_CONTENT_LENGTH=settings.max_code_bytes * 4,
                      SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax")
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        sync_exercises(session)
    if launcher is None:
        launcher = launcher_for(settings.sandbox, allow_weaker=settings.allow_weaker_sandbox, slots=settings.workers)
    queue = GradingQueue(sessions, launcher, workers=settings.workers, max_code_bytes=settings.max_code_bytes)
    app.extensions["probjudge"] = {"settings": settings, "sessions": sessions, "queue": queue, "engine": engine}
    log.info("sandbox level: %s", launcher.level)

    @app.before_request
    def _open_session() -> None:
        g.db = sessions()

    @app.teardown_request
    def _close_session(_error) -> None:
        db = g.pop("db", None)
        if db is not None:
            db.close()

    from web.api import api

    app.register_blueprint(api)

    @app.errorhandler(HTTPException)
    def _json_errors(error: HTTPException):
        return jsonify({"error": error.name, "message": error.description}), error.code

    if start_workers:
        queue.start()
    return app
