"""The analytics pages of a course, for its instructors: an overview per exercise, the charts of
one exercise (or of the whole course), and every learner behind one diagnosis.

``GET /courses/<id>/analytics`` is the overview plus the whole course's charts;
``?exercise=N`` (number or slug) is one exercise's. Each chart is declared as JSON for
``charts.js`` (no inline script: the site's CSP) beside a table of the same numbers. A course
one is not in is a 404; a learner of the course gets a 403 (see :mod:`web.access.permissions`). The
figures are :mod:`web.teaching.analytics`'.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, abort, g, render_template, request
from flask_login import current_user, login_required

from web.access.lookup import course_exercise
from web.access.permissions import course_to_teach
from web.core.i18n import pick, t
from web.core.models import Course, Exercise
from web.teaching.analytics import LEARNERS_SHOWN, Analytics, DayCount, analytics, learners_with_diagnosis, overview

analytics_pages = Blueprint("analytics", __name__, url_prefix="/courses")

MAX_FILLED_DAYS = 400  # a longer span is drawn with its active days only


def filled_days(days: list[DayCount]) -> list[DayCount]:
    """``days`` with the days between them that had no attempt, as zeros (a bar per day)."""
    if not days or (days[-1].day - days[0].day).days > MAX_FILLED_DAYS:
        return days
    known = {row.day: row for row in days}
    span = (days[-1].day - days[0].day).days + 1
    every = (days[0].day + dt.timedelta(days=offset) for offset in range(span))
    return [known.get(day, DayCount(day, 0, 0)) for day in every]


def charts(figures: Analytics, whole_course: bool = False) -> dict[str, dict[str, Any]]:
    """The charts.js declarations of the page, by element id (see web/frontend/src/charts.js).

    Diagnoses and failing cases are labelled in full in the page's language (a case by its
    title), each with its exercise on the whole course's page, and carry their ``ranks`` (equal
    counts, equal ranks) for the table beside the chart."""
    days = filled_days(figures.over_time)
    buckets = figures.first_accepted.labelled()
    never = t("never_accepted")

    def of_exercise(number: int, what: str) -> str:
        return t("of_exercise", number=number, what=what) if whole_course else what

    return {
        "chart-over-time": {
            "type": "bar",
            "labels": [row.day.isoformat() for row in days],
            "datasets": [
                {"label": t("attempts"), "data": [row.attempts for row in days]},
                {"label": t("learners"), "data": [row.learners for row in days]},
            ],
            "xTitle": t("local_day"),
        },
        "chart-first-ac": {
            "type": "bar",
            "labels": [never if label == "never" else label for label, _ in buckets],
            "datasets": [{"label": t("learner_exercise_pairs"), "data": [count for _, count in buckets]}],
            "xTitle": t("first_ac_at"),
            "yTitle": t("learner_exercise_pairs"),
        },
        "chart-diagnoses": {
            "type": "horizontal-bar",
            "labels": [
                of_exercise(row.exercise_number, pick(row.diagnosis, row.diagnosis_zh)) for row in figures.diagnoses
            ],
            "ranks": [row.rank for row in figures.diagnoses],
            "datasets": [
                {"label": t("attempts"), "data": [row.attempts for row in figures.diagnoses]},
                {"label": t("learners"), "data": [row.learners for row in figures.diagnoses]},
            ],
        },
        "chart-failing-cases": {
            "type": "horizontal-bar",
            "labels": [
                of_exercise(row.exercise_number, pick(row.title, row.title_zh)) for row in figures.failing_cases
            ],
            "ranks": [row.rank for row in figures.failing_cases],
            "datasets": [
                {"label": t("attempts"), "data": [row.attempts for row in figures.failing_cases]},
                {"label": t("learners"), "data": [row.learners for row in figures.failing_cases]},
            ],
        },
    }


@analytics_pages.get("/<int:course_id>/analytics")
@login_required
def show(course_id: int):
    """The overview, one row per exercise; ``?exercise=N``: that exercise's charts."""
    course = course_to_teach(course_id, current_user)
    identifier = request.args.get("exercise")
    if not identifier:
        return render_template("courses/analytics.html", course=course, rows=overview(g.db, course.id))
    return _charts_page(course, course_exercise(course, identifier))


@analytics_pages.get("/<int:course_id>/analytics/course")
@login_required
def whole_course(course_id: int):
    """The charts of all the course's exercises together."""
    return _charts_page(course_to_teach(course_id, current_user), None)


def _charts_page(course: Course, exercise: Exercise | None):
    figures = analytics(
        g.db, course.id, course.time_zone, exercise.id if exercise is not None else None, LEARNERS_SHOWN
    )
    return render_template(
        "courses/analytics_charts.html",
        course=course,
        exercise=exercise,
        figures=figures,
        charts=charts(figures, whole_course=exercise is None),
    )


@analytics_pages.get("/<int:course_id>/analytics/learners")
@login_required
def diagnosis_learners(course_id: int):
    """``?diagnosis=TEXT`` (its English text), optionally ``&exercise=N``: every learner behind it."""
    course = course_to_teach(course_id, current_user)
    diagnosis = request.args.get("diagnosis", "")
    if not diagnosis:
        abort(400, description="name a diagnosis: ?diagnosis=TEXT (its English text)")
    identifier = request.args.get("exercise")
    exercise = course_exercise(course, identifier) if identifier else None
    people = learners_with_diagnosis(g.db, course.id, diagnosis, exercise.id if exercise is not None else None)
    if not people:
        abort(404, description="no attempt of this course has this diagnosis")
    return render_template(
        "courses/analytics_learners.html", course=course, exercise=exercise, diagnosis=diagnosis, people=people
    )
