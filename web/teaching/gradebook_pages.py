"""The gradebook's pages, its CSV export, and its API routes.

- ``/courses/<id>/gradebook``: learners × exercises (score, verdict, attempts, late, override),
  sortable, filtered and paged by URL parameters (see :func:`web.teaching.gradebook.read_query`);
- ``/courses/<id>/gradebook/<user_id>/<number>``: one cell: the learner's attempts in time
  order, the counted one marked, the override history and a form to override the score;
- ``/courses/<id>/gradebook.csv`` and ``/api/v1/courses/<id>/gradebook.csv``: the export;
- ``/api/v1/courses/<id>/gradebook``: one page of the gradebook as JSON.

Authorization (:func:`web.access.permissions.course_to_teach`): a course one is not in is a 404, a learner of the
course gets a 403, its instructors and site admins the page.

The CSV (:func:`gradebook_csv`) is UTF-8 with a byte-order mark (``utf-8-sig``), which Excel
needs to read UTF-8 and every CSV reader skips; one row per learner, by name. Columns:
``learner``, then ``ex<number>`` per exercise (the counted score as a share 0..1 of the
exercise's one point, with an override applied; empty: never tried), ``ex<number>_late`` per
exercise (1: the counted attempt was late, else 0), ``total`` (the sum of the scores),
``max_total`` (the number of exercises) and ``late_count``, then (added later, after every
older column, so tools that read columns by position still work) ``ex<number>_overridden`` per
exercise (1: an override is in force on the cell, else 0). Columns are only ever added, never
renamed or moved. A text cell that a spreadsheet would run as a formula (starting with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return) gets a leading apostrophe. The file is named
after the course and the day in the course's time zone (:func:`csv_filename`).

The pages show every score as a percent (the cells, the totals, the overrides one types); the
database, the CSV and the JSON keep shares from 0 to 1 (an exercise is worth one point).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import exists, func, or_, select
from wtforms import DecimalField, RadioField, SelectChoice, SubmitField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange

from web.access.lookup import page_argument
from web.access.permissions import course_to_teach
from web.api.courses import course_json
from web.api.submissions import token_required
from web.core.forms import ConfirmForm, SiteForm
from web.core.i18n import LazyText, t
from web.core.models import Course, CourseRole, Exercise, Membership, Override, OverrideMode, Submission, User
from web.core.moments import zone
from web.teaching.counting import Cell, attempts_query, cells
from web.teaching.courses import MAX_COMMENT, CourseError, override_score, withdraw_override
from web.teaching.gradebook import (
    Column,
    GradebookError,
    GradebookPage,
    Row,
    course_exercises,
    gradebook_rows,
    overrides_below_count,
    query_page,
)
from web.teaching.gradebook import read_query as read_gradebook_query

gradebook = Blueprint("gradebook", __name__, url_prefix="/courses")
gradebook_api = Blueprint("gradebook_api", __name__, url_prefix="/api/v1")

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


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


def _page_of(course: Course, args) -> GradebookPage:
    exercises = course_exercises(g.db, course)
    try:
        query = read_gradebook_query(args, exercises)
    except GradebookError as error:
        abort(400, description=str(error))
    return query_page(g.db, course, query, exercises)


# --- pages ---------------------------------------------------------------------------------------


@gradebook.get("/<int:course_id>/gradebook")
@login_required
def show(course_id: int):
    course = course_to_teach(course_id, current_user)
    page = _page_of(course, request.args)
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
    return _csv_response(course_to_teach(course_id, current_user))


# --- the CSV -------------------------------------------------------------------------------------


def spreadsheet_safe(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet runs as a formula (see the module docstring)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _share(value: float) -> str:
    return f"{round(value, 4):g}"


def csv_filename(course: Course, day: dt.date) -> tuple[str, str | None]:
    """The export's file name, ``<course-slug>-gradebook-<day>.csv``, as (ASCII name, UTF-8 name).

    The ASCII name keeps letters, digits and dashes of the course name (accents dropped), so it
    is safe in a ``filename="..."`` on every system; a name with nothing left (all Chinese, say)
    becomes ``course-<id>``. The UTF-8 name keeps every letter and digit of the name and is
    given (RFC 6266 ``filename*``) only where it differs; else it is None."""

    def slug(text: str) -> str:
        return re.sub(r"[\W_]+", "-", text.lower()).strip("-")[:60].strip("-")

    ascii_name = slug(unicodedata.normalize("NFKD", course.name).encode("ascii", "ignore").decode())
    ascii_name = re.sub(r"[^a-z0-9-]", "", ascii_name) or f"course-{course.id}"
    unicode_name = slug(unicodedata.normalize("NFC", course.name)) or ascii_name
    suffix = f"-gradebook-{day.isoformat()}.csv"
    return ascii_name + suffix, (None if unicode_name == ascii_name else unicode_name + suffix)


def content_disposition(course: Course, day: dt.date) -> str:
    """``attachment`` with the file name of :func:`csv_filename` (and ``filename*`` when needed)."""
    plain, utf8 = csv_filename(course, day)
    header = f'attachment; filename="{plain}"'
    return header if utf8 is None else f"{header}; filename*=UTF-8''{quote(utf8, safe='')}"


def gradebook_csv(columns: list[Column], rows: Iterable[Row]) -> Iterable[list[str]]:
    """The CSV's rows, header first (see the module docstring)."""
    yield [
        "learner",
        *(f"ex{column.number}" for column in columns),
        *(f"ex{column.number}_late" for column in columns),
        "total",
        "max_total",
        "late_count",
        *(f"ex{column.number}_overridden" for column in columns),
    ]
    for row in rows:
        found = [row.cells.get(column.exercise_id) for column in columns]
        yield [
            spreadsheet_safe(row.name),
            *("" if cell is None else _share(cell.score) for cell in found),
            *("1" if cell is not None and cell.late else "0" for cell in found),
            _share(row.total),
            str(len(columns)),
            str(row.late_count),
            *("1" if cell is not None and cell.override is not None else "0" for cell in found),
        ]


def _csv_response(course: Course) -> Response:
    columns = course_exercises(g.db, course)
    text = io.StringIO()
    csv.writer(text, lineterminator="\r\n").writerows(gradebook_csv(columns, gradebook_rows(g.db, course)))
    return Response(
        text.getvalue().encode("utf-8-sig"),
        mimetype="text/csv",
        headers={
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": content_disposition(course, dt.datetime.now(zone(course.time_zone)).date()),
            "Cache-Control": "no-store",
        },
    )


# --- the API -------------------------------------------------------------------------------------


def cell_json(cell: Cell | None) -> dict[str, Any]:
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
    return gradebook_json(course, _page_of(course, request.args), overrides_below_count(g.db, course))


@gradebook_api.get("/courses/<int:course_id>/gradebook.csv")
@token_required
def api_download(course_id: int):
    return _csv_response(course_to_teach(course_id, g.user))
