"""``GET /api/v1/courses/<id>/submissions``: the course's submissions as JSON, for its instructors.

Filters and paging are :mod:`web.teaching.submission_list`'s (the page shares them); a filter it cannot
use is a 400 that says what to type. Bearer tokens as in :mod:`web.api.base`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, jsonify, request

from web.access.permissions import course_to_teach
from web.api.base import token_required
from web.core.moments import iso
from web.teaching.submission_list import FilterError, ListedSubmission, list_submissions, parse_filter, parse_paging

submission_list_api = Blueprint("submission_list_api", __name__, url_prefix="/api/v1")


def listed_json(row: ListedSubmission) -> dict[str, Any]:
    return {
        "id": row.submission_id,
        "user": row.user,
        "exercise": row.exercise,
        "verdict": row.verdict.value if row.verdict is not None else None,
        "score": None if row.score_total is None else {"passed": row.score_passed, "total": row.score_total},
        "diagnosis": row.diagnosis,
        "diagnosis_zh": row.diagnosis_zh,
        "created_at": iso(row.created_at),
        "late": row.late,
    }


@submission_list_api.get("/courses/<int:course_id>/submissions")
@token_required
def course_submissions(course_id: int):
    """Query: ``user``, ``exercise``, ``verdict``, ``diagnosis``, ``from``, ``to``, ``late``, ``page``, ``per_page``."""
    course = course_to_teach(course_id, g.user)
    try:
        wanted = parse_filter(request.args, course.time_zone)
        page, per_page = parse_paging(request.args)
    except FilterError as error:
        abort(400, description=str(error))
    found = list_submissions(g.db, course.id, wanted, page, per_page)
    return jsonify(
        {
            "submissions": [listed_json(row) for row in found.rows],
            "page": found.page,
            "per_page": found.per_page,
            "total": found.total,
        }
    )
