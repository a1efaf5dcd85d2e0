"""The rejudge pages: asking for a course-wide rejudge, and one rejudge's outcome.

``POST /courses/<id>/rejudge`` (its instructors) rejudges an exercise of the course or one of
its assignments (:mod:`web.rejudging`) and sends the instructor to ``GET /rejudges/<id>``: what
was asked, by whom and when, how many gradings wait, run or are done, and each one's verdict
before and after, changed ones first. While some are pending the page reloads itself (a meta
refresh: the site's CSP allows no inline script). A single submission's rejudge is asked from
its page (:mod:`web.submission_pages`).
"""

from __future__ import annotations

from collections import Counter

from flask import Blueprint, abort, flash, g, redirect, render_template, url_for
from flask_login import current_user, login_required
from wtforms import SelectField, SubmitField

from web.forms import SiteForm
from web.i18n import LazyText, pick, t
from web.models import Assignment, Course, Exercise, Rejudge, RejudgeScope, Status, Submission, User
from web.permissions import course_to_teach, may_see_rejudge
from web.rejudging import outcome, rejudge_assignment, rejudge_exercise
from web.services import services

rejudges = Blueprint("rejudges", __name__)


class CourseRejudgeForm(SiteForm):
    """What to rejudge in a course: ``exercise:<number>`` or ``assignment:<id>``."""

    target = SelectField(LazyText("rejudge_target"))
    submit = SubmitField(LazyText("start_rejudge"))


def course_rejudge_form(course: Course) -> CourseRejudgeForm:
    """The form with the course's exercises and assignments to choose from (``courses/teach.html``
    writes the same fields by hand)."""
    form = CourseRejudgeForm()
    choices = []
    for assignment in course.assignments:
        choices.append((f"assignment:{assignment.id}", t("rejudge_target_assignment", title=assignment.title)))
        for exercise in assignment.exercises:
            title = pick(exercise.title_en, exercise.title_zh)
            choices.append(
                (f"exercise:{exercise.number}", t("rejudge_target_exercise", number=exercise.number, title=title))
            )
    form.target.choices = choices
    return form


@rejudges.post("/courses/<int:course_id>/rejudge")
@login_required
def rejudge_in_course(course_id: int):
    course = course_to_teach(course_id, current_user)
    form = course_rejudge_form(course)
    if not form.validate_on_submit():
        abort(400, description="choose an exercise or an assignment of this course to rejudge")
    kind, _, value = (form.target.data or "").partition(":")
    queue = services().queue
    if kind == "assignment":
        assignment = g.db.get(Assignment, int(value))
        if assignment is None or assignment.course_id != course.id:
            abort(400)
        requested = rejudge_assignment(g.db, queue, assignment, current_user)
    else:
        exercise = next(e for a in course.assignments for e in a.exercises if str(e.number) == value)
        requested = rejudge_exercise(g.db, queue, course, exercise, current_user)
    flash(t("rejudge_queued", count=requested.queued), "success")
    return redirect(url_for("rejudges.show", rejudge_id=requested.rejudge.id))


def _scope_text(rejudge: Rejudge, course: Course | None) -> str:
    if rejudge.scope is RejudgeScope.submission:
        return t("rejudge_scope_submission", id=rejudge.submission_id)
    name = course.name if course is not None else ""
    if rejudge.scope is RejudgeScope.exercise:
        exercise = g.db.get(Exercise, rejudge.exercise_id) if rejudge.exercise_id is not None else None
        return t("rejudge_scope_exercise", number=exercise.number if exercise else "?", course=name)
    assignment = g.db.get(Assignment, rejudge.assignment_id) if rejudge.assignment_id is not None else None
    return t("rejudge_scope_assignment", title=assignment.title if assignment else "?", course=name)


@rejudges.get("/rejudges/<int:rejudge_id>")
@login_required
def show(rejudge_id: int):
    rejudge = g.db.get(Rejudge, rejudge_id)
    if rejudge is None or not may_see_rejudge(g.db, current_user, rejudge):
        abort(404, description=f"no rejudge {rejudge_id}")
    course = g.db.get(Course, rejudge.course_id) if rejudge.course_id is not None else None
    changes = outcome(g.db, rejudge)
    statuses = Counter(change.status for change in changes)
    submission = g.db.get(Submission, rejudge.submission_id) if rejudge.submission_id is not None else None
    requester = g.db.get(User, rejudge.requested_by_id) if rejudge.requested_by_id is not None else None
    return render_template(
        "rejudges/show.html",
        rejudge=rejudge,
        course=course,
        submission=submission,
        scope=_scope_text(rejudge, course),
        requester=requester.name if requester is not None else "?",
        changes=changes,
        counts={
            "queued": statuses[Status.queued],
            "running": statuses[Status.running],
            "done": statuses[Status.done],
            "changed": sum(1 for change in changes if change.changed),
        },
        pending=statuses[Status.queued] + statuses[Status.running] > 0,
    )
