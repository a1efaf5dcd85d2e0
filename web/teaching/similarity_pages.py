"""The similarity pages of a course: running a check, its ranked pairs, one pair side by side, the CSV.

- ``GET /courses/<id>/similarity``: the course's past checks, newest first, and the form to run one
  (the whole course, an assignment or an exercise; a threshold).
- ``POST /courses/<id>/similarity`` (the same view): starts a check off the request
  (:func:`web.teaching.similarity.launch`) and sends the instructor to its page.
- ``GET /courses/<id>/similarity/<report_id>``: its progress while it runs (the page reloads itself: a
  meta refresh, as the site's CSP allows no inline script), then the pairs and groups at or above
  ``?threshold=`` (never below the check's own), ranked, with the behavioural match.
- ``GET /courses/<id>/similarity/<report_id>/pairs/<rank>``: the two codes of each exercise of a
  pair side by side, matched fragments in ``<mark>`` (escaped on the server; no script).
- ``GET /courses/<id>/similarity/<report_id>.csv``: the same pairs as a spreadsheet-safe CSV.

Every route is the course's instructors' and admins' alone; anyone else, the course's learners
too, gets a 404 (:func:`web.access.permissions.course_to_examine`), and a report of another course
named under this one is a 404 as well. The wording is that of evidence to look at, never of an accusation.
"""

from __future__ import annotations

from flask import Blueprint, abort, g, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from markupsafe import Markup
from wtforms import StringField

from web.access.permissions import course_to_examine
from web.core.forms import SiteForm
from web.core.i18n import pick, t
from web.core.models import Course, SimilarityReport, SimilarityState, Submission
from web.services import services
from web.teaching.similarity import (
    DEFAULT_THRESHOLD,
    SimilarityError,
    course_exercises,
    course_reports,
    highlighted,
    interrupted,
    launch,
    pair_clusters,
    parse_scope,
    parse_threshold,
    report_pair,
    report_pairs,
    start_check,
)
from web.teaching.similarity_export import csv_response

similarity = Blueprint("similarity", __name__)


def report_of(course: Course, report_id: int) -> SimilarityReport:
    """Report ``report_id`` if it is ``course``'s; else a 404 (a report of another course is not found here)."""
    report = g.db.get(SimilarityReport, report_id)
    if report is None or report.course_id != course.id:
        abort(404, description=f"no similarity report {report_id} in this course")
    return report


def view_threshold(report: SimilarityReport) -> float:
    """``?threshold=`` (a share, not below the report's own); the report's when not given; a 400 otherwise."""
    text = request.args.get("threshold", "")
    if text == "":
        return report.threshold
    try:
        return parse_threshold(text, floor=report.threshold)
    except SimilarityError as error:
        abort(400, description=str(error))


def scope_choices(course: Course) -> list[tuple[str, str]]:
    """The form's scopes: the whole course, each assignment, each exercise."""
    choices = [("course", t("similarity_scope_course"))]
    seen: set[int] = set()
    for assignment, exercise in course_exercises(g.db, course):
        if assignment.id not in seen:
            seen.add(assignment.id)
            choices.append((f"assignment:{assignment.id}", t("rejudge_target_assignment", title=assignment.title)))
        title = pick(exercise.title_en, exercise.title_zh)
        choices.append(
            (f"exercise:{exercise.number}", t("rejudge_target_exercise", number=exercise.number, title=title))
        )
    return choices


def behaviour_text(compared: int | None, identical: int | None) -> str:
    """ "identical draws on 5 of 5 probes", or that there was nothing to compare."""
    if not compared:
        return t("similarity_no_behaviour")
    return t("similarity_behaviour", identical=identical, compared=compared)


class SimilarityForm(SiteForm):
    """The run form: ``scope`` (``course``, ``assignment:<id>``, ``exercise:<number>``) and ``threshold``;
    :mod:`web.teaching.similarity` reads both, and refuses what is not this course's."""

    scope = StringField()
    threshold = StringField()


@similarity.route("/courses/<int:course_id>/similarity", methods=["GET", "POST"])
@login_required
def index(course_id: int):
    """GET: the course's checks and the form; POST: start a check (one URL, so that a refused id
    is the same 404 for both methods)."""
    course = course_to_examine(course_id, current_user)
    if request.method == "POST":
        return _run(course)
    return render_template(
        "similarity/index.html",
        course=course,
        reports=course_reports(g.db, course.id),
        choices=scope_choices(course),
        default_threshold=DEFAULT_THRESHOLD,
        interrupted=interrupted,
    )


def _run(course: Course):
    form = SimilarityForm()
    if not form.validate_on_submit():
        problems = "; ".join(str(error) for field in form for error in field.errors)
        abort(400, description=problems or "the form is incomplete; reload the page and try again")
    try:
        scope = parse_scope(g.db, course, form.scope.data)
        threshold = parse_threshold(form.threshold.data or DEFAULT_THRESHOLD)
    except SimilarityError as error:
        abort(400, description=str(error))
    report = start_check(g.db, course, scope, threshold, current_user)
    launch(services().sessions, report.id)
    return redirect(url_for("similarity.show", course_id=course.id, report_id=report.id))


@similarity.get("/courses/<int:course_id>/similarity/<int:report_id>")
@login_required
def show(course_id: int, report_id: int):
    course = course_to_examine(course_id, current_user)
    report = report_of(course, report_id)
    threshold = view_threshold(report)
    pairs = report_pairs(g.db, report, threshold) if report.state is SimilarityState.done else []
    return render_template(
        "similarity/show.html",
        course=course,
        report=report,
        threshold=threshold,
        pairs=pairs,
        groups=pair_clusters(pairs),
        pending=report.state in (SimilarityState.queued, SimilarityState.running) and not interrupted(report),
        stopped=interrupted(report),
        behaviour_text=behaviour_text,
    )


@similarity.get("/courses/<int:course_id>/similarity/<int:report_id>/pairs/<int:rank>")
@login_required
def pair(course_id: int, report_id: int, rank: int):
    course = course_to_examine(course_id, current_user)
    report = report_of(course, report_id)
    found = report_pair(g.db, report, rank)
    if found is None:
        abort(404, description=f"no pair {rank} in this report")
    sides = []
    for match in found.exercises:
        left, right = g.db.get(Submission, match.a_submission), g.db.get(Submission, match.b_submission)
        if left is None or right is None or not left.course_id == right.course_id == course.id:
            continue  # defensive: a report only names its course's submissions
        sides.append(
            (
                match,
                Markup(highlighted(left.code, [(s[0], s[1]) for s in match.fragments])),
                Markup(highlighted(right.code, [(s[2], s[3]) for s in match.fragments])),
            )
        )
    return render_template(
        "similarity/pair.html", course=course, report=report, pair=found, sides=sides, behaviour_text=behaviour_text
    )


@similarity.get("/courses/<int:course_id>/similarity/<int:report_id>.csv")
@login_required
def download(course_id: int, report_id: int):
    course = course_to_examine(course_id, current_user)
    report = report_of(course, report_id)
    return csv_response(g.db, course, report, view_threshold(report))
