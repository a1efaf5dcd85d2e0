"""The rejudge pages: a course's past rejudges, asking for a course-wide one, and one's outcome.

``GET /courses/<id>/rejudges`` (its instructors) lists the course's rejudges, newest first,
paged: who asked, when, what, how many submissions and how many verdicts changed, and whether
gradings still wait.

A course-wide rejudge is asked in two steps, so that no one starts one by a slip:
``GET /courses/<id>/rejudge/confirm?target=…`` (the course home's form) shows how many
submissions of how many learners it would judge again; only a ``POST /courses/<id>/rejudge``
carrying ``confirm=y`` (that page's button) starts it. The same POST without ``confirm``
answers with the confirmation page and starts nothing.

The rejudge itself is :mod:`web.teaching.rejudging`'s; the instructor is then sent to ``GET /rejudges/<id>``: what
was asked, by whom and when, how many gradings wait, run or are done, and each one's verdict
before and after, changed ones first. While some are pending the page reloads itself (a meta
refresh: the site's CSP allows no inline script). A single submission's rejudge is asked from
its page (:mod:`web.learning.submission_pages`).
"""

from __future__ import annotations

from collections import Counter

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from wtforms import HiddenField, SelectField, SubmitField

from web.access.permissions import course_to_teach, may_see_rejudge
from web.core.forms import SiteForm
from web.core.i18n import LazyText, pick, t
from web.core.models import Assignment, Course, Exercise, Rejudge, RejudgeScope, Status, Submission, User
from web.services import services
from web.teaching.rejudging import (
    assignment_attempts,
    course_rejudges,
    exercise_attempts,
    outcome,
    preview,
    rejudge_assignment,
    rejudge_exercise,
)

rejudges = Blueprint("rejudges", __name__)


class CourseRejudgeForm(SiteForm):
    """What to rejudge in a course: ``exercise:<number>`` or ``assignment:<id>``."""

    target = SelectField(LazyText("rejudge_target"))
    confirm = HiddenField()  # "y": the confirmation page's button; without it nothing starts
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


def _target(course: Course, value: str) -> Assignment | Exercise:
    """The assignment or exercise of ``course`` that ``value`` (``assignment:<id>`` or
    ``exercise:<number>``) names; a 400 for anything else."""
    kind, _, key = value.partition(":")
    if kind == "assignment":
        assignment = g.db.get(Assignment, int(key)) if key.isdigit() else None
        if assignment is not None and assignment.course_id == course.id:
            return assignment
    elif kind == "exercise":
        found = next((e for a in course.assignments for e in a.exercises if str(e.number) == key), None)
        if found is not None:
            return found
    abort(400, description="choose an exercise or an assignment of this course to rejudge")


def _target_text(course: Course, target: Assignment | Exercise) -> str:
    if isinstance(target, Assignment):
        return t("rejudge_scope_assignment", title=target.title, course=course.name)
    return t("rejudge_scope_exercise", number=target.number, course=course.name)


def _not_gradable_notice(count: int, numbers: tuple[int, ...]) -> str:
    return t("rejudge_not_gradable", count=count, exercises=", ".join(str(n) for n in numbers))


def _confirmation(course: Course, value: str, target: Assignment | Exercise):
    """The page that asks before a course-wide rejudge, with its count (it starts nothing)."""
    ids = assignment_attempts(target) if isinstance(target, Assignment) else exercise_attempts(course, target)
    count = preview(g.db, ids)
    question = t(
        "rejudge_confirm_question",
        submissions=t("n_submissions", count=count.submissions),
        learners=t("n_learners", count=count.learners),
    )
    return render_template(
        "rejudges/confirm.html",
        course=course,
        target=value,
        scope=_target_text(course, target),
        count=count,
        question=question,
        not_gradable=(
            _not_gradable_notice(count.not_gradable, count.not_gradable_exercises) if count.not_gradable else ""
        ),
    )


@rejudges.get("/courses/<int:course_id>/rejudge/confirm")
@login_required
def confirm_rejudge(course_id: int):
    course = course_to_teach(course_id, current_user)
    value = request.args.get("target", "")
    return _confirmation(course, value, _target(course, value))


@rejudges.post("/courses/<int:course_id>/rejudge")
@login_required
def rejudge_in_course(course_id: int):
    course = course_to_teach(course_id, current_user)
    form = course_rejudge_form(course)
    if not form.validate_on_submit():
        abort(400, description="choose an exercise or an assignment of this course to rejudge")
    value = form.target.data or ""
    target = _target(course, value)
    if form.confirm.data != "y":
        return _confirmation(course, value, target)
    queue = services().queue
    if isinstance(target, Assignment):
        requested = rejudge_assignment(g.db, queue, target, current_user)
    else:
        requested = rejudge_exercise(g.db, queue, course, target, current_user)
    flash(t("rejudge_queued", count=requested.queued), "success")
    if requested.not_gradable:
        flash(_not_gradable_notice(requested.not_gradable, requested.not_gradable_exercises), "warning")
    return redirect(url_for("rejudges.show", rejudge_id=requested.rejudge.id))


PER_PAGE = 20


@rejudges.get("/courses/<int:course_id>/rejudges")
@login_required
def index(course_id: int):
    course = course_to_teach(course_id, current_user)
    page = request.args.get("page", "1")
    number = int(page) if page.isdigit() and 0 < int(page) < 100_000 else 1
    rows, total = course_rejudges(g.db, course.id, number, PER_PAGE)
    pages = max(1, -(-total // PER_PAGE))
    return render_template(
        "rejudges/index.html",
        course=course,
        rows=[(row, _scope_text(row.rejudge, course)) for row in rows],
        total=total,
        page=number,
        pages=pages,
    )


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
