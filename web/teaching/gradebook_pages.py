"""The gradebook's pages and its CSV download (its JSON twin is :mod:`web.api.gradebook`).

- ``/courses/<id>/gradebook``: learners × exercises (score, verdict, attempts, late, override),
  sortable, filtered and paged by URL parameters (see :func:`web.teaching.gradebook.read_query`);
- ``/courses/<id>/gradebook/<user_id>/<number>``: one cell: the learner's attempts in time
  order, the counted one marked, the override history and a form to override the score;
- ``/courses/<id>/gradebook.csv``: the export (:mod:`web.teaching.gradebook_export` says what is in it).

Authorization (:func:`web.access.permissions.course_to_teach`): a course one is not in is a 404, a learner of the
course gets a 403, its instructors and site admins the page.

The pages show every score as a percent (the cells, the totals, the overrides one types); the
database, the CSV and the JSON keep shares from 0 to 1 (an exercise is worth one point).
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import exists, func, or_, select
from wtforms import DecimalField, RadioField, SelectChoice, SubmitField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange

from web.access.lookup import page_argument
from web.access.permissions import course_to_teach
from web.core.forms import ConfirmForm, SiteForm
from web.core.i18n import LazyText, t
from web.core.models import Course, CourseRole, Exercise, Membership, Override, OverrideMode, Submission, User
from web.teaching.counting import attempts_query, cells
from web.teaching.courses import MAX_COMMENT, CourseError, override_score, withdraw_override
from web.teaching.gradebook import GradebookError, course_exercises, overrides_below_count, requested_page
from web.teaching.gradebook_export import csv_response

gradebook = Blueprint("gradebook", __name__, url_prefix="/courses")


class OverrideForm(SiteForm):
    score_percent = DecimalField(
        LazyText("gradebook_score_percent"),
        places=None,
        validators=[InputRequired(LazyText("required")), NumberRange(0, 100, LazyText("gradebook_percent_range"))],
    )
    mode = RadioField(
        LazyText("gradebook_override_mode"),
        choices=[
            SelectChoice(OverrideMode.replace.value, LazyText("gradebook_mode_replace")),
            SelectChoice(OverrideMode.at_least.value, LazyText("gradebook_mode_at_least")),
        ],
        default=OverrideMode.replace.value,  # also what a form without the field (an older page) means
    )
    comment = TextAreaField(
        LazyText("gradebook_comment"), validators=[DataRequired(LazyText("required")), Length(1, MAX_COMMENT)]
    )
    submit = SubmitField(LazyText("gradebook_set_score"))


@gradebook.get("/<int:course_id>/gradebook")
@login_required
def show(course_id: int):
    course = course_to_teach(course_id, current_user)
    try:
        page = requested_page(g.db, course, request.args)
    except GradebookError as error:
        abort(400, description=str(error))
    return render_template(
        "courses/gradebook.html",
        course=course,
        book=page,
        query=page.query,
        below=overrides_below_count(g.db, course) if page.exercises else 0,
        learner_count=_learner_count(course),
    )


def _learner_count(course: Course) -> int:
    """The course's learners, whatever the filters: an empty course gets its own empty state."""
    return (
        g.db.scalar(
            select(func.count()).where(Membership.course_id == course.id, Membership.role == CourseRole.learner)
        )
        or 0
    )


def _cell_parts(course_id: int, user_id: int, number: int) -> tuple[Course, User, Exercise]:
    course = course_to_teach(course_id, current_user)
    # A learner of the course, or one who left it but whose record in it stays (an override, work
    # made for it): what they were given can still be seen and taken back.
    learner = g.db.scalar(
        select(User).where(
            User.id == user_id,
            or_(
                exists().where(
                    Membership.course_id == course.id,
                    Membership.role == CourseRole.learner,
                    Membership.user_id == User.id,
                ),
                exists().where(Override.course_id == course.id, Override.user_id == User.id),
                exists().where(Submission.course_id == course.id, Submission.user_id == User.id),
            ),
        )
    )
    column = next((column for column in course_exercises(g.db, course) if column.number == number), None)
    if learner is None or column is None:
        abort(404, description="no such learner or exercise in this course")
    exercise = g.db.get(Exercise, column.exercise_id)
    assert exercise is not None
    return course, learner, exercise


CELL_ATTEMPTS_PER_PAGE = 100  # a cell's attempts on one page: a learner's flood stays one page's work


def _render_cell(course: Course, learner: User, exercise: Exercise, form: OverrideForm, status: int = 200):
    found = attempts_query(course.id).subquery()
    mine = (found.c.user_id == learner.id, found.c.exercise_id == exercise.id)
    total = g.db.scalar(select(func.count()).select_from(found).where(*mine)) or 0
    pages = max(1, -(-total // CELL_ATTEMPTS_PER_PAGE))
    page = min(page_argument(), pages)
    attempts = g.db.execute(
        select(found)
        .where(*mine)
        .order_by(found.c.created_at, found.c.submission_id)
        .limit(CELL_ATTEMPTS_PER_PAGE)
        .offset((page - 1) * CELL_ATTEMPTS_PER_PAGE)
    ).all()
    cell = cells(g.db, course.id, [learner.id]).get((learner.id, exercise.id))
    overrides = g.db.scalars(
        select(Override)
        .where(Override.course_id == course.id, Override.user_id == learner.id, Override.exercise_id == exercise.id)
        .order_by(Override.id.desc())
    ).all()
    return render_template(
        "courses/gradebook_cell.html",
        course=course,
        learner=learner,
        exercise=exercise,
        attempts=attempts,
        page=page,
        pages=pages,
        cell=cell,
        overrides=overrides,
        form=form,
        confirm_form=ConfirmForm(formdata=None),
    ), status


# One rule for both methods: with two, an id past the database's range (which the converter
# refuses) answered one method with a 405 naming the other, instead of a 404.
@gradebook.route("/<int:course_id>/gradebook/<int:user_id>/<int:number>", methods=["GET", "POST"])
@login_required
def cell_page(course_id: int, user_id: int, number: int):
    """The cell: a learner's attempts at an exercise, the override history, and (POST) a new override."""
    course, learner, exercise = _cell_parts(course_id, user_id, number)
    if request.method == "GET":
        return _render_cell(course, learner, exercise, OverrideForm())
    form = OverrideForm()
    if not form.validate_on_submit():
        return _render_cell(course, learner, exercise, form, 400)
    try:
        override_score(
            g.db,
            course,
            learner,
            exercise,
            float(form.score_percent.data) / 100,
            form.comment.data,
            current_user,
            form.mode.data,
        )
    except CourseError as error:
        g.db.rollback()
        form.comment.errors.append(str(error))
        return _render_cell(course, learner, exercise, form, 400)
    g.db.commit()
    flash(t("gradebook_score_set", name=learner.name, number=exercise.number), "success")
    return redirect(url_for("gradebook.cell_page", course_id=course.id, user_id=learner.id, number=exercise.number))


@gradebook.post("/<int:course_id>/gradebook/<int:user_id>/<int:number>/withdraw")
@login_required
def withdraw_cell_override(course_id: int, user_id: int, number: int):
    """Withdraw the cell's override: the graded score counts again; the history keeps both rows."""
    course, learner, exercise = _cell_parts(course_id, user_id, number)
    if not ConfirmForm().validate_on_submit():
        abort(400)
    try:
        withdraw_override(g.db, course, learner, exercise, current_user)
    except CourseError as error:
        flash(str(error), "error")
    else:
        g.db.commit()
        flash(t("gradebook_override_withdrawn", name=learner.name, number=exercise.number), "success")
    return redirect(url_for("gradebook.cell_page", course_id=course.id, user_id=learner.id, number=exercise.number))


@gradebook.get("/<int:course_id>/gradebook.csv")
@login_required
def download(course_id: int):
    return csv_response(g.db, course_to_teach(course_id, current_user))
