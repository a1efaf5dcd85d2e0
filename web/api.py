"""The JSON API, ``/api/v1``: exercises, submissions, with bearer-token authentication.

Errors are JSON ``{"error", "message"}`` with the right status code. A submission's report is
the judge's report as stored, minus what is hidden (see :mod:`web.presenting`).
"""

from __future__ import annotations

from functools import wraps
from typing import Any, Callable

from flask import Blueprint, abort, current_app, g, jsonify, request
from sqlalchemy import select

from judge.exercise import ExerciseError, resolve
from web.extensions import SUBMIT_LIMIT, SUBMIT_LIMIT_MESSAGE, limiter, submitter_key
from web.grading import SubmissionRefused
from web.presenting import submission_view
from web.models import ApiToken, Exercise, Role, Submission

api = Blueprint("api", __name__, url_prefix="/api/v1")


def _extension(name: str) -> Any:
    return current_app.extensions["probjudge"][name]


def token_required(view: Callable) -> Callable:
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any):
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            abort(401, description="send 'Authorization: Bearer <token>' (create a token with "
                                   "`python -m web create-user NAME --token` or from your profile)")
        user = ApiToken.find_user(g.db, token.strip())
        if user is None:
            abort(401, description="this API token is not valid")
        g.user = user
        return view(*args, **kwargs)

    return wrapped


def _find_exercise(identifier: str) -> Exercise:
    """By number or slug, resolved exactly as the CLI does; 404 for an unknown one."""
    try:
        number = resolve(identifier).number
    except ExerciseError:
        abort(404, description=f"no exercise {identifier!r}")
    row = g.db.scalar(select(Exercise).where(Exercise.number == number))
    if row is None:
        abort(404, description=f"exercise {identifier!r} is not on this site yet")
    return row


def _exercise_json(row: Exercise) -> dict:
    return {"number": row.number, "slug": row.slug, "title": {"en": row.title_en, "zh": row.title_zh},
            "difficulty": row.difficulty, "tags": row.tags, "runs_in": row.runs_in,
            "content_hash": row.content_hash}


@api.get("/exercises")
@token_required
def list_exercises():
    rows = g.db.scalars(select(Exercise).order_by(Exercise.number)).all()
    return jsonify({"exercises": [_exercise_json(r) for r in rows]})


@api.get("/exercises/<identifier>")
@token_required
def get_exercise(identifier: str):
    return jsonify(_exercise_json(_find_exercise(identifier)))


@api.post("/submissions")
@limiter.limit(SUBMIT_LIMIT, key_func=submitter_key, error_message=SUBMIT_LIMIT_MESSAGE)
@token_required
def create_submission():
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, description='send a JSON object {"exercise": "39", "code": "..."}')
    exercise_id, code = body.get("exercise"), body.get("code")
    if not isinstance(exercise_id, (str, int)) or not isinstance(code, str):
        abort(400, description='"exercise" (a number or slug) and "code" (a string) are required')
    exercise = _find_exercise(str(exercise_id))
    try:
        submission = _extension("queue").submit(g.db, g.user, exercise, code)
    except SubmissionRefused as refused:
        abort(429 if refused.too_many else 400, description=str(refused))
    return jsonify({"id": submission.id, "status": submission.status.value}), 202


@api.get("/submissions/<int:submission_id>")
@token_required
def get_submission(submission_id: int):
    submission = g.db.get(Submission, submission_id)
    if submission is None or (submission.user_id != g.user.id and g.user.role is not Role.instructor):
        abort(404, description=f"no submission {submission_id}")  # 404, not 403: do not confirm it exists
    return jsonify(submission_view(submission))
