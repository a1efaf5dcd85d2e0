"""Similarity checks in the JSON API, the twin of :mod:`web.teaching.similarity_pages`.

- ``GET /api/v1/courses/<id>/similarity``: the course's checks, newest first;
- ``POST /api/v1/courses/<id>/similarity`` with ``{"scope": "course" | "assignment:<id>" |
  "exercise:<number>", "threshold": 0.5}`` (both optional): starts a check in the background,
  answers 202 with the check (poll its URL until ``state`` is ``done`` or ``failed``);
- ``GET /api/v1/courses/<id>/similarity/<report_id>``: the check, and when done its pairs and groups at
  or above ``?threshold=`` (never below the check's own);
- ``GET /api/v1/courses/<id>/similarity/<report_id>.csv``: the same file as the page's download.

The course's instructors and admins alone; anyone else, its learners too, gets a 404
(:func:`web.access.permissions.course_to_examine`). Bearer tokens as in :mod:`web.api.base`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, request

from web.access.permissions import course_to_examine
from web.api.base import json_object, token_required
from web.core.models import Course, SimilarityReport, SimilarityState
from web.services import services
from web.teaching.similarity import (
    DEFAULT_THRESHOLD,
    Pair,
    SimilarityError,
    course_reports,
    interrupted,
    launch,
    pair_clusters,
    parse_scope,
    parse_threshold,
    report_pairs,
    start_check,
)
from web.teaching.similarity_export import csv_response
from web.teaching.similarity_pages import report_of, view_threshold

similarity_api = Blueprint("similarity_api", __name__, url_prefix="/api/v1")


def report_json(report: SimilarityReport) -> dict[str, Any]:
    """A check without its pairs: what it compared, its state and progress."""
    return {
        "id": report.id,
        "course": report.course_id,
        "scope": report.parameters.get("scope", "course"),
        "exercises": report.parameters.get("exercises", []),
        "threshold": report.threshold,
        "state": "interrupted" if interrupted(report) else report.state.value,
        "progress": {"done": report.done_count, "total": report.total_count},
        "created_at": report.created_at.isoformat(),
        "created_by": report.created_by_id,
        "finished_at": report.finished_at.isoformat() if report.finished_at is not None else None,
        "error": report.error,
    }


def pair_json(pair: Pair) -> dict[str, Any]:
    """One pair: its rank, the two learners, its score, each exercise with its behavioural match."""
    return {
        "rank": pair.rank,
        "a": {"id": pair.a, "name": pair.a_name},
        "b": {"id": pair.b, "name": pair.b_name},
        "score": pair.score,
        "exercises": [
            {
                "number": match.number,
                "similarity": match.similarity,
                "a_submission": match.a_submission,
                "b_submission": match.b_submission,
                "behaviour": None
                if match.compared is None
                else {"compared": match.compared, "identical": match.identical, "strong": match.strong},
            }
            for match in pair.exercises
        ],
    }


@similarity_api.route("/courses/<int:course_id>/similarity", methods=["GET", "POST"])
@token_required
def reports(course_id: int):
    """GET: the course's checks; POST: start one (one URL, so that a refused id is the same 404 for both)."""
    course = course_to_examine(course_id, g.user)
    if request.method == "POST":
        return _run(course)
    return {"course": course.id, "reports": [report_json(report) for report in course_reports(g.db, course.id)]}


def _run(course: Course):
    body = json_object('{"scope": "assignment:3", "threshold": 0.5}')
    try:
        scope = parse_scope(g.db, course, body.get("scope"))
        threshold = body.get("threshold", DEFAULT_THRESHOLD)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise SimilarityError("threshold: a number from 0.2 to 1, such as 0.8")
        threshold = parse_threshold(threshold)
    except SimilarityError as error:
        abort(400, description=str(error))
    report = start_check(g.db, course, scope, threshold, g.user)
    launch(services().sessions, report.id)
    return report_json(report), 202


@similarity_api.get("/courses/<int:course_id>/similarity/<int:report_id>")
@token_required
def show(course_id: int, report_id: int):
    course = course_to_examine(course_id, g.user)
    report = report_of(course, report_id)
    threshold = view_threshold(report)
    found = report_json(report)
    if report.state is SimilarityState.done:
        pairs = report_pairs(g.db, report, threshold)
        found |= {
            "shown_threshold": threshold,
            "truncated": bool((report.results or {}).get("truncated")),
            "compared": (report.results or {}).get("exercises", []),
            "pairs": [pair_json(pair) for pair in pairs],
            "clusters": pair_clusters(pairs),
        }
    return found


@similarity_api.get("/courses/<int:course_id>/similarity/<int:report_id>.csv")
@token_required
def download(course_id: int, report_id: int):
    course = course_to_examine(course_id, g.user)
    report = report_of(course, report_id)
    return csv_response(g.db, course, report, view_threshold(report))
