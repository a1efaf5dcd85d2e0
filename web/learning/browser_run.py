"""What "Run" in the browser fetches from the site: the engine's Python (a zip) and one exercise's
browser files (JSON). Both are public by construction (see :mod:`judge.browser.bundle`): the files
are the exercise's ``exercise.toml`` and its ``tests/public/`` folder, so nothing under
``tests/hidden/`` and no solution is ever among them.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify, request

from judge.browser.bundle import digest, engine_bundle, engine_digest, exercise_files
from judge.exercises.exercise import Exercise
from judge.exercises.folders import ExerciseError
from web.access.lookup import find_exercise

browser_run = Blueprint("browser_run", __name__, url_prefix="/browser")


def _cached(response: Response, etag: str) -> Response:
    response.set_etag(etag)
    response.headers["Cache-Control"] = "public, max-age=0, must-revalidate"
    response.make_conditional(request)  # in place (it returns the same object, typed as werkzeug's)
    return response


@browser_run.get("/engine.zip")
def engine():
    return _cached(Response(engine_bundle(), mimetype="application/zip"), engine_digest())


@browser_run.get("/exercises/<identifier>/files.json")
def files(identifier: str):
    _, exercise = find_exercise(identifier)
    try:
        data = exercise_files(exercise)
    except (ValueError, ExerciseError):  # no browser variant, or one the site cannot send (logged by Flask)
        abort(404)
    return _cached(jsonify(data), digest(data))


def run_config(exercise: Exercise) -> dict | None:
    """What the exercise page needs to offer "Run" (None when the exercise has no browser variant)."""
    from flask import url_for

    if exercise.browser is None or "browser" not in exercise.runs_in:
        return None
    return {
        "folder": exercise.folder,
        "time_limit_s": exercise.browser.time_limit_s,
        "worker_url": url_for("static", filename="build/run-worker.js"),
        "figures_url": url_for("static", filename="build/figures.js"),  # loaded only for a report with a figure
        "pyodide_url": url_for("static", filename="build/pyodide/"),
        "engine_url": url_for("browser_run.engine", v=engine_digest()),
        "files_url": url_for("browser_run.files", identifier=exercise.number, v=digest(exercise_files(exercise))),
    }
