"""The JSON API, ``/api/v1``: exercises, submissions and the operators' health report.

Bearer tokens, request bodies and error bodies as in :mod:`web.api.base`. A submission's report
is the judge's report as stored, minus what is hidden (see :mod:`web.access.presenting`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, jsonify
from sqlalchemy import select

from judge.extras import MissingExtra
from web.access.contexts import NOT_GIVEN, ContextRefused, choose_context
from web.access.lookup import find_exercise, submission_when_graded, visible_submission
from web.access.presenting import grading_summary, results_document, submission_view
from web.access.visibility import access_for
from web.api.base import json_object, token_required
from web.core.extensions import submit_limits
from web.core.models import Exercise, Submission
from web.core.moments import iso
from web.grading.gradable import not_gradable_text, ungradable_here
from web.grading.queue import SubmissionRefused
from web.services import services
from web.teaching.deadlines import Lateness, submission_lateness

api = Blueprint("api", __name__, url_prefix="/api/v1")


def _exercise_json(row: Exercise, ungradable: dict[int, MissingExtra]) -> dict:
    """An exercise for the API; ``gradable`` is false on a site missing an extra its hidden tests
    need (``ungradable``: :func:`web.grading.gradable.ungradable_here`), and ``not_gradable`` then
    says which, in both languages, as its page does (a submission of it is refused with that text)."""
    found = {
        "number": row.number,
        "slug": row.slug,
        "title": {"en": row.title_en, "zh": row.title_zh},
        "difficulty": row.difficulty,
        "tags": row.tags,
        "runs_in": row.runs_in,
        "content_hash": row.content_hash,
        "gradable": row.number not in ungradable,
    }
    missing = ungradable.get(row.number)
    if missing is not None:
        text = not_gradable_text(missing)
        found["not_gradable"] = {"extra": missing.extra, "message": {"en": str(text), "zh": text.zh}}
    return found


@api.get("/exercises")
@token_required
def list_exercises():
    rows = g.db.scalars(select(Exercise).order_by(Exercise.number)).all()
    ungradable = ungradable_here()
    return jsonify({"exercises": [_exercise_json(r, ungradable) for r in rows]})


@api.get("/exercises/<identifier>")
@token_required
def get_exercise(identifier: str):
    return jsonify(_exercise_json(find_exercise(identifier)[0], ungradable_here()))


@api.post("/submissions")
@submit_limits
@token_required
def create_submission():
    body = json_object('{"exercise": "39", "code": "...", "course": 3}')
    exercise_id, code = body.get("exercise"), body.get("code")
    # bool is an int to Python, but true is no exercise number
    if not isinstance(exercise_id, (str, int)) or isinstance(exercise_id, bool) or not isinstance(code, str):
        abort(400, description='"exercise" (a number or slug) and "code" (a string) are required')
    exercise = find_exercise(str(exercise_id))[0]
    requested = body.get("course", NOT_GIVEN)
    if requested is not NOT_GIVEN and requested is not None and (type(requested) is not int or requested < 1):
        abort(400, description='"course" is a course id (a whole number), null for practice, or left out')
    try:
        course_id = choose_context(g.db, g.user, exercise, requested)
    except ContextRefused as refused:
        abort(400, description=str(refused))
    try:
        submission = services().queue.submit(g.db, g.user, exercise, code, course_id)
    except SubmissionRefused as refused:
        abort(429 if refused.too_many else 400, description=str(refused))
    answer = {"id": submission.id, "status": submission.shown.status.value, "course_id": course_id}
    # An API client is never asked to confirm: late work is accepted and the answer says so.
    answer["lateness"] = lateness_json(submission_lateness(g.db, submission))
    return jsonify(answer), 202


def lateness_json(found: Lateness | None) -> dict[str, Any] | None:
    """A course submission against its deadline (None for practice): ``due_at`` (effective, ISO
    8601), ``late`` and ``late_by_s`` (seconds after it), ``counted_share`` (the factor of its
    score that counts: 1.0 on time, null when nothing counts) and ``late_policy``."""
    if found is None:
        return None
    return {
        "due_at": iso(found.deadline.due_at),
        "late": found.late,
        "late_by_s": found.late_s,
        "counted_share": found.share,
        "late_policy": found.deadline.assignment.late_policy.value,
    }


def context_json(submission: Submission) -> dict[str, Any]:
    """The submission's context: ``course_id`` and ``course`` (its name), both null for practice."""
    course = submission.course
    return {"course_id": submission.course_id, "course": course.name if course is not None else None}


@api.get("/submissions/<int:submission_id>")
@token_required
def get_submission(submission_id: int):
    """The submission as the caller may see it; ``?wait=S`` first waits up to S seconds (at most
    30) for its verdict, so a client learns it the moment it is written without polling."""
    submission = submission_when_graded(submission_id, g.user)
    gradings = submission.gradings  # first: Submission.shown then finds the current one among them
    access = access_for(g.db, g.user, submission)
    view = submission_view(submission, g.user, g.lang, access)
    # Whoever may open it (its author, those who teach its course) may read its code.
    view["user"] = submission.user.name
    view["code"] = submission.code
    view.update(context_json(submission))
    view["gradings"] = [grading_summary(grading, access, submission.current_grading_id) for grading in gradings]
    return jsonify(view)


@api.get("/submissions/<int:submission_id>/results.json")
@token_required
def get_results_json(submission_id: int):
    """The submission's current grading as Gradescope's ``results.json`` (:func:`results_document`)."""
    submission = visible_submission(submission_id, g.user)
    return jsonify(results_document(submission, g.user, g.lang, access_for(g.db, g.user, submission)))


@api.get("/health")
@token_required
def health():
    """The operators' report (:func:`web.grading.health.health_report`): site admins' tokens only."""
    from web.access.permissions import is_admin
    from web.grading.health import health_report

    if not is_admin(g.user):
        abort(403, description="the health report is for site admins (an admin's API token)")
    report = health_report(g.db, services().queue.broker)
    return jsonify(report), 200 if report["status"] == "ok" else 503


@api.get("/health/live")
def liveness():
    """For load balancers, without a token: 200 when the site reaches its database, else 503."""
    from sqlalchemy import text

    try:
        g.db.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 - any database error means "not serving"
        return jsonify({"status": "unavailable"}), 503
    return jsonify({"status": "ok"})
