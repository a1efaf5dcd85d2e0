"""The course analytics in the JSON API: ``GET /api/v1/courses/<id>/analytics``.

Without ``exercise``: the course overview, one entry per exercise of its assignments. With
``?exercise=N`` (number or slug): that exercise's figures (see :mod:`web.teaching.analytics` for what
they count): attempts and learners over time (days in the course's time zone), the share
accepted, attempts until the first AC, failing cases (with their titles) and diagnoses with the
learners behind each (the first :data:`~web.teaching.analytics.LEARNERS_SHOWN` by name; ``&learners=all``
for all), each ranked by attempts (equal counts, equal ranks).
Authorization as for the pages (:func:`web.access.permissions.course_to_teach`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, jsonify, request

from web.access.lookup import course_exercise
from web.access.permissions import course_to_teach
from web.api.base import token_required
from web.teaching.analytics import LEARNERS_SHOWN, Analytics, ExerciseRow, Totals, analytics, overview

analytics_api = Blueprint("analytics_api", __name__, url_prefix="/api/v1")


def totals_json(totals: Totals) -> dict[str, Any]:
    return {
        "attempts": totals.attempts,
        "learners": totals.learners,
        "learners_accepted": totals.learners_accepted,
        "share_accepted": totals.share_accepted,
        "graded": totals.graded,
        "ac_share_of_graded": totals.ac_share_of_graded,
    }


def exercise_row_json(row: ExerciseRow) -> dict[str, Any]:
    return {
        "exercise": row.number,
        "title": row.title_en,
        "title_zh": row.title_zh,
        **totals_json(row.totals),
        "top_diagnosis": row.top_diagnosis,
        "top_diagnosis_zh": row.top_diagnosis_zh,
        "top_diagnosis_attempts": row.top_diagnosis_attempts,
        "top_diagnoses": [{"diagnosis": en, "diagnosis_zh": zh} for en, zh in row.tied_at_top],
    }


def analytics_json(figures: Analytics) -> dict[str, Any]:
    buckets = figures.first_accepted.labelled()
    return {
        **totals_json(figures.totals),
        "over_time": [
            {"day": row.day.isoformat(), "attempts": row.attempts, "learners": row.learners}
            for row in figures.over_time
        ],
        "attempts_until_first_ac": dict(buckets),
        "failing_cases": [
            {
                "case": row.case,
                "title": row.title,
                "title_zh": row.title_zh,
                "attempts": row.attempts,
                "learners": row.learners,
                "rank": row.rank,
            }
            for row in figures.failing_cases
        ],
        "diagnoses": [
            {
                "diagnosis": row.diagnosis,
                "diagnosis_zh": row.diagnosis_zh,
                "attempts": row.attempts,
                "learners": [learner.name for learner in row.shown],
                "learner_count": row.learners,
                "rank": row.rank,
            }
            for row in figures.diagnoses
        ],
    }


@analytics_api.get("/courses/<int:course_id>/analytics")
@token_required
def course_analytics(course_id: int):
    course = course_to_teach(course_id, g.user)
    identifier = request.args.get("exercise")
    if identifier is None:
        return jsonify(
            {
                "course": course.id,
                "time_zone": course.time_zone,
                "exercises": [exercise_row_json(row) for row in overview(g.db, course.id)],
            }
        )
    everyone = request.args.get("learners")
    if everyone not in (None, "all"):
        abort(400, description='"learners" is "all" (every learner behind each diagnosis) or left out')
    exercise = course_exercise(course, identifier)
    figures = analytics(
        g.db, course.id, course.time_zone, exercise.id, learners_shown=None if everyone == "all" else LEARNERS_SHOWN
    )
    return jsonify(
        {"course": course.id, "time_zone": course.time_zone, "exercise": exercise.number} | analytics_json(figures)
    )
