"""The gradebook in the JSON API, the twin of :mod:`web.teaching.gradebook_pages`.

- ``GET /api/v1/courses/<id>/gradebook``: one page of the gradebook as JSON; the same URL
  parameters as the page (``sort``, ``order``, ``q``, ``filter``, ``page``, ``per_page``:
  :func:`web.teaching.gradebook.read_query`), a parameter it refuses is a 400 that says why;
- ``GET /api/v1/courses/<id>/gradebook.csv``: the same file as the page's download
  (:mod:`web.teaching.gradebook_export`).

Scores are shares from 0 to 1 (an exercise is worth one point). Authorization as for the pages
(:func:`web.access.permissions.course_to_teach`); bearer tokens as in :mod:`web.api.base`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, request

from web.access.permissions import course_to_teach
from web.api.base import token_required
from web.api.courses import course_json
from web.core.models import Course
from web.teaching.counting import Cell
from web.teaching.gradebook import GradebookError, GradebookPage, overrides_below_count, requested_page
from web.teaching.gradebook_export import csv_response

gradebook_api = Blueprint("gradebook_api", __name__, url_prefix="/api/v1")


def cell_json(cell: Cell | None) -> dict[str, Any]:
    """One learner's cell for one exercise; ``None`` (never tried) is a cell of zeros and nulls."""
    if cell is None:
        return {
            "verdict": None,
            "score": 0.0,
            "counted": None,
            "attempts": 0,
            "late": False,
            "override": None,
            "override_mode": None,
            "override_below": False,
            "submission": None,
        }
    return {
        "verdict": cell.verdict.value if cell.verdict is not None else None,
        "score": cell.score,
        "counted": cell.counted,
        "attempts": cell.attempts,
        "late": cell.late,
        "override": cell.override,
        "override_mode": None if cell.override_mode is None else cell.override_mode.value,
        "override_below": cell.override_below,
        "submission": cell.submission_id,
    }


def gradebook_json(course: Course, page: GradebookPage, below: int) -> dict[str, Any]:
    """One page of the gradebook, with the query that chose it and ``below`` (the course's
    "replace" overrides below the computed score: :func:`web.teaching.gradebook.overrides_below_count`)."""
    query = page.query
    return {
        "course": course_json(course),
        "exercises": [column.number for column in page.exercises],
        "columns": [
            {"number": column.number, "title_en": column.title_en, "title_zh": column.title_zh}
            for column in page.exercises
        ],
        "overrides_below": below,
        "max_total": page.max_total,
        "learners": [
            {
                "user": row.name,
                "total": row.total,
                "late_count": row.late_count,
                "exercises": {
                    str(column.number): cell_json(row.cells.get(column.exercise_id)) for column in page.exercises
                },
            }
            for row in page.rows
        ],
        "sort": query.sort,
        "order": "desc" if query.descending else "asc",
        "filter": query.filter,
        "q": query.name_filter,
        "page": page.page,
        "per_page": page.per_page,
        "pages": page.pages,
        "total_learners": page.total_learners,
    }


@gradebook_api.get("/courses/<int:course_id>/gradebook")
@token_required
def api_gradebook(course_id: int):
    course = course_to_teach(course_id, g.user)
    try:
        page = requested_page(g.db, course, request.args)
    except GradebookError as error:
        abort(400, description=str(error))
    return gradebook_json(course, page, overrides_below_count(g.db, course))


@gradebook_api.get("/courses/<int:course_id>/gradebook.csv")
@token_required
def api_download(course_id: int):
    return csv_response(g.db, course_to_teach(course_id, g.user))
