"""``/courses/<id>/submissions``: every submission of a course, searchable and paged, for its
instructors (a course one does not teach is a 404, as in :mod:`web.teaching.course_pages`).

The filters are a GET form, so a filtered list is a link one can keep or send; the query is
:mod:`web.teaching.submission_list`'s, shared with the API.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import select

from judge.verdicts import Verdict
from web.access.permissions import course_to_teach
from web.core.models import AssignmentExercise, Exercise
from web.teaching.submission_list import FilterError, SubmissionFilter, list_submissions, parse_filter, parse_paging

course_submissions = Blueprint("course_submissions", __name__, url_prefix="/courses")

FILTER_KEYS = ("user", "exercise", "verdict", "diagnosis", "from", "to", "late", "per_page")


@course_submissions.get("/<int:course_id>/submissions")
@login_required
def index(course_id: int):
    course = course_to_teach(course_id, current_user)
    problem = None
    try:
        wanted = parse_filter(request.args, course.time_zone)
        page, per_page = parse_paging(request.args)
    except FilterError as error:
        problem, wanted, (page, per_page) = str(error), SubmissionFilter(), (1, 50)
    found = list_submissions(g.db, course.id, wanted, page, per_page)
    kept = {key: request.args[key] for key in FILTER_KEYS if request.args.get(key)}

    def page_url(number: int) -> str:
        values: dict[str, Any] = {**kept, "course_id": course.id, "page": number}
        return url_for("course_submissions.index", **values)

    exercises = g.db.scalars(
        select(Exercise.number)
        .join(AssignmentExercise, AssignmentExercise.exercise_id == Exercise.id)
        .where(AssignmentExercise.course_id == course.id)
        .order_by(Exercise.number)
    ).all()
    return render_template(
        "courses/submissions.html",
        course=course,
        found=found,
        values=kept,
        exercises=exercises,
        verdicts=[verdict.value for verdict in Verdict],
        problem=problem,
        page_url=page_url,
    ), (400 if problem else 200)
