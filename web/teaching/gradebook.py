"""The gradebook of a course: learners × exercises, totals, sorting, filters and pages, in SQL.

Each cell is :func:`web.teaching.counting.cells_query`'s; this module only aggregates it. Invariants:

- every learner of the course (membership role ``learner``) has a row, also one who never
  submitted anything (their total is 0);
- an exercise is worth one point: a cell's ``score`` is a share 0..1 of it, a learner's
  ``total`` the sum of their cells' scores, ``max_total`` the number of the course's exercises;
- totals, the late count, filters, the order and the page are computed by the database (one
  query for the page's learners, one for their cells), never by a loop over attempts; ties are
  broken by user name, then id, so paging is stable;
- the CSV export (:func:`gradebook_rows`) reads the learners with their totals in one query and
  their cells in batches of :data:`CSV_BATCH` learners.

Filters: ``all``; ``late`` (at least one cell counted late); ``missing`` (at least one exercise
without a counted score or an override: never tried, nothing graded yet, or only refused late
work); ``overridden`` (at least one overridden cell); ``below`` (at least one "replace" override
below the computed score, :func:`web.teaching.counting.override_below`: the instructor's score now hides
a better graded one, as after a rejudge).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from sqlalchemy import Float, Select, case, func, or_, select
from sqlalchemy.orm import Session

from web.core.models import Assignment, AssignmentExercise, Course, CourseRole, Exercise, Membership, User
from web.core.names import name_key
from web.teaching.counting import Cell, cell_summaries_query, cells, typed_null

SORTS = ("name", "total", "late")  # and "exercise:<number>"
FILTERS = ("all", "late", "missing", "overridden", "below")
PER_PAGE = 50
MAX_PER_PAGE = 200
MAX_NAME_FILTER = 64
CSV_BATCH = 500


class GradebookError(ValueError):
    """A gradebook request the site refuses (an unknown sort or filter); the message says why."""


@dataclass(frozen=True)
class Column:
    """One exercise of the course, in gradebook order (assignment due date, then position)."""

    exercise_id: int
    number: int
    title_en: str
    title_zh: str
    assignment_id: int
    assignment_title: str


@dataclass(frozen=True)
class Row:
    """One learner: totals over the course and their cells by exercise id (none: never tried)."""

    user_id: int
    name: str
    total: float
    late_count: int
    cells: Mapping[int, Cell] = field(default_factory=dict)


@dataclass(frozen=True)
class GradebookQuery:
    """What a gradebook page shows: order, filters and page (see :func:`read_query`)."""

    sort: str = "name"
    descending: bool = False
    name_filter: str = ""
    filter: str = "all"
    page: int = 1
    per_page: int = PER_PAGE

    def args(self, **changes: object) -> dict[str, object]:
        """This query as URL parameters (defaults left out), with ``changes`` applied."""
        values = {
            "sort": self.sort,
            "order": "desc" if self.descending else "asc",
            "q": self.name_filter,
            "filter": self.filter,
            "page": self.page,
            "per_page": self.per_page,
        } | changes
        defaults = {"sort": "name", "order": "asc", "q": "", "filter": "all", "page": 1, "per_page": PER_PAGE}
        return {key: value for key, value in values.items() if defaults[key] != value}


@dataclass(frozen=True)
class GradebookPage:
    """One page of the gradebook: its columns, its learners' rows, and how many match in all."""

    exercises: list[Column]
    rows: list[Row]
    total_learners: int  # learners matching the filters, on every page
    query: GradebookQuery

    @property
    def page(self) -> int:
        return self.query.page

    @property
    def per_page(self) -> int:
        return self.query.per_page

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total_learners / self.per_page))

    @property
    def max_total(self) -> int:
        return len(self.exercises)


def course_exercises(session: Session, course: Course) -> list[Column]:
    """The course's exercises, by their assignment's due date (then id), then position."""
    rows = session.execute(
        select(
            Exercise.id,
            Exercise.number,
            Exercise.title_en,
            Exercise.title_zh,
            Assignment.id,
            Assignment.title,
        )
        .join(AssignmentExercise, AssignmentExercise.exercise_id == Exercise.id)
        .join(Assignment, Assignment.id == AssignmentExercise.assignment_id)
        .where(AssignmentExercise.course_id == course.id)
        .order_by(Assignment.due_at, Assignment.id, AssignmentExercise.position, Exercise.number)
    ).all()
    return [Column(*row) for row in rows]


def _integer(value: object, what: str, default: int) -> int:
    if value is None or value == "":
        return default
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise GradebookError(f"{what} is a whole number from 1")
    return int(text)


def read_query(args: Mapping[str, str], exercises: list[Column]) -> GradebookQuery:
    """A :class:`GradebookQuery` from URL parameters ``sort``, ``order`` (asc/desc), ``q`` (part
    of a user name), ``filter``, ``page`` and ``per_page`` (capped at :data:`MAX_PER_PAGE`).
    Raises :class:`GradebookError` for a value it does not know."""
    sort = args.get("sort") or "name"
    if sort not in SORTS:
        number = sort.removeprefix("exercise:")
        numbers = {str(column.number) for column in exercises}
        if not sort.startswith("exercise:") or number not in numbers:
            choices = ", ".join([*SORTS, *(f"exercise:{column.number}" for column in exercises)])
            raise GradebookError(f"sort is one of {choices[:300]}")
    order = args.get("order") or "asc"
    if order not in ("asc", "desc"):
        raise GradebookError("order is asc or desc")
    filter_ = args.get("filter") or "all"
    if filter_ not in FILTERS:
        raise GradebookError(f"filter is one of {', '.join(FILTERS)}")
    name = (args.get("q") or "").strip()
    if len(name) > MAX_NAME_FILTER:
        raise GradebookError(f"q (part of a user name) has at most {MAX_NAME_FILTER} characters")
    page = _integer(args.get("page"), "page", 1)
    per_page = min(_integer(args.get("per_page"), "per_page", PER_PAGE), MAX_PER_PAGE)
    if page < 1 or per_page < 1:
        raise GradebookError("page and per_page are whole numbers from 1")
    return GradebookQuery(sort, order == "desc", name, filter_, page, per_page)


def _learners(course: Course) -> Select:
    """The course's learners: ``user_id``, ``name``, ``name_key``."""
    return (
        select(User.id.label("user_id"), User.name.label("name"), User.name_key.label("name_key"))
        .select_from(Membership)
        .join(User, User.id == Membership.user_id)
        .where(Membership.course_id == course.id, Membership.role == CourseRole.learner)
    )


def _learner_totals(course: Course, sort_exercise: int | None, user_ids: list[int] | None = None) -> Select:
    """Every learner of the course (or those of ``user_ids``) with ``total``, ``late_count``,
    ``done`` (cells with a counted score or an override), ``overridden``, ``below`` (overrides
    below the computed score) and ``sort_score`` (the
    score on ``sort_exercise``; -1 where there is no cell, so that never tried sorts below a 0).

    With ``user_ids`` the database reads only their attempts (see
    :func:`~web.teaching.counting.cell_summaries_query`)."""
    cell = cell_summaries_query(course.id, user_ids).subquery()  # aggregates only: no ranking of attempts
    is_late = case((cell.c.late, 1), else_=0)
    sort_score = (
        func.max(case((cell.c.exercise_id == sort_exercise, cell.c.score), else_=None))
        if sort_exercise is not None
        else typed_null(Float)
    )
    totals_query = select(
        cell.c.user_id,
        func.sum(cell.c.score).label("total"),
        func.sum(is_late).label("late_count"),
        func.sum(case((or_(cell.c.counted.is_not(None), cell.c.override.is_not(None)), 1), else_=0)).label("done"),
        func.sum(case((cell.c.override.is_not(None), 1), else_=0)).label("overridden"),
        func.sum(case((cell.c.override_below, 1), else_=0)).label("below"),
        sort_score.label("sort_score"),
    ).group_by(cell.c.user_id)
    if user_ids is not None:
        totals_query = totals_query.where(cell.c.user_id.in_(user_ids))
    totals = totals_query.subquery()
    learners = (
        select(
            User.id.label("user_id"),
            User.name.label("name"),
            User.name_key.label("name_key"),
            func.coalesce(totals.c.total, 0.0).label("total"),
            func.coalesce(totals.c.late_count, 0).label("late_count"),
            func.coalesce(totals.c.done, 0).label("done"),
            func.coalesce(totals.c.overridden, 0).label("overridden"),
            func.coalesce(totals.c.below, 0).label("below"),
            func.coalesce(totals.c.sort_score, -1.0).label("sort_score"),
        )
        .select_from(Membership)
        .join(User, User.id == Membership.user_id)
        .outerjoin(totals, totals.c.user_id == Membership.user_id)
        .where(Membership.course_id == course.id, Membership.role == CourseRole.learner)
    )
    return learners if user_ids is None else learners.where(Membership.user_id.in_(user_ids))


def _filtered(learners: Select, query: GradebookQuery, exercise_count: int) -> Select:
    found = learners.subquery()
    statement = select(found)
    if query.name_filter:
        statement = statement.where(found.c.name_key.contains(name_key(query.name_filter), autoescape=True))
    if query.filter == "late":
        statement = statement.where(found.c.late_count > 0)
    elif query.filter == "missing":
        statement = statement.where(found.c.done < exercise_count)
    elif query.filter == "overridden":
        statement = statement.where(found.c.overridden > 0)
    elif query.filter == "below":
        statement = statement.where(found.c.below > 0)
    return statement


def _ordered(statement: Select, query: GradebookQuery) -> Select:
    found = statement.selected_columns
    names = {"name": "name_key", "total": "total", "late": "late_count"}
    key = found[names.get(query.sort, "sort_score")]
    first = key.desc() if query.descending else key.asc()
    if query.sort == "name":
        return statement.order_by(first, found.user_id)
    return statement.order_by(first, found.name_key, found.user_id)


def _sort_exercise(query: GradebookQuery, exercises: list[Column]) -> int | None:
    if not query.sort.startswith("exercise:"):
        return None
    number = int(query.sort.removeprefix("exercise:"))
    return next(column.exercise_id for column in exercises if column.number == number)


def gradebook_page(
    session: Session,
    course: Course,
    *,
    sort: str = "name",
    descending: bool = False,
    name_filter: str = "",
    filter: str = "all",  # noqa: A002 -- the name the pages and the API use for it
    page: int = 1,
    per_page: int = PER_PAGE,
    exercises: list[Column] | None = None,
) -> GradebookPage:
    """One page of ``course``'s gradebook (see the module docstring for the filters).

    ``sort`` is ``name``, ``total``, ``late`` (the late count) or ``exercise:<number>``; ties
    go by name. ``per_page`` is capped at :data:`MAX_PER_PAGE`. Raises :class:`GradebookError`
    for an unknown sort or filter.
    """
    exercises = course_exercises(session, course) if exercises is None else exercises
    query = read_query(
        {
            "sort": sort,
            "order": "desc" if descending else "asc",
            "q": name_filter,
            "filter": filter,
            "page": str(page),
            "per_page": str(per_page),
        },
        exercises,
    )
    return query_page(session, course, query, exercises)


def requested_page(session: Session, course: Course, args: Mapping[str, str]) -> GradebookPage:
    """The page that a request's parameters ask for (``sort``, ``order``, ``q``, ``filter``,
    ``page``, ``per_page``: :func:`read_query`), as the page and the API both read them. Raises
    :class:`GradebookError` for a parameter the site refuses."""
    exercises = course_exercises(session, course)
    return query_page(session, course, read_query(args, exercises), exercises)


def query_page(session: Session, course: Course, query: GradebookQuery, exercises: list[Column]) -> GradebookPage:
    """The page ``query`` asks for (already checked by :func:`read_query`)."""
    if query.sort == "name" and query.filter == "all":
        return _page_by_name(session, course, query, exercises)
    statement = _filtered(_learner_totals(course, _sort_exercise(query, exercises)), query, len(exercises))
    # The count rides along as a window over the filtered rows, so one query answers the page.
    counted = statement.add_columns(func.count().over().label("matching"))
    found = session.execute(
        _ordered(counted, query).limit(query.per_page).offset((query.page - 1) * query.per_page)
    ).all()
    if found:
        matching = found[0].matching
    else:  # past the last page: count apart
        matching = session.scalar(select(func.count()).select_from(statement.subquery())) or 0
    by_user = _cells_by_user(session, course, [row.user_id for row in found])
    return GradebookPage(exercises, [_row(row, by_user) for row in found], matching, query)


def _page_by_name(session: Session, course: Course, query: GradebookQuery, exercises: list[Column]) -> GradebookPage:
    """A page in name order needs no learner's totals but its own: the names are paged first,
    then only those learners' attempts are read (the default page, the cheap one)."""
    people = _filtered(_learners(course), query, len(exercises))
    matching = session.scalar(select(func.count()).select_from(people.subquery())) or 0
    chosen = session.scalars(
        _ordered(people, query)
        .with_only_columns(people.selected_columns.user_id)
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page)
    ).all()
    found = session.execute(_ordered(_learner_totals(course, None, list(chosen)), query)).all() if chosen else []
    by_user = _cells_by_user(session, course, list(chosen))
    return GradebookPage(exercises, [_row(row, by_user) for row in found], matching, query)


def _cells_by_user(session: Session, course: Course, user_ids: list[int]) -> dict[int, dict[int, Cell]]:
    """user id → exercise id → :class:`Cell`, for ``user_ids`` (one query)."""
    by_user: dict[int, dict[int, Cell]] = {user_id: {} for user_id in user_ids}
    if user_ids:
        for (user_id, exercise_id), cell in cells(session, course.id, user_ids).items():
            by_user[user_id][exercise_id] = cell
    return by_user


def _row(row, by_user: Mapping[int, Mapping[int, Cell]]) -> Row:
    return Row(row.user_id, row.name, float(row.total), int(row.late_count), by_user.get(row.user_id, {}))


def overrides_below_count(session: Session, course: Course) -> int:
    """How many cells of the course's learners have a "replace" override below the computed
    score (one query; what the gradebook's warning counts)."""
    cell = cell_summaries_query(course.id).subquery()
    learners = _learners(course).subquery()
    return (
        session.scalar(
            select(func.count())
            .select_from(cell)
            .join(learners, learners.c.user_id == cell.c.user_id)
            .where(cell.c.override_below)
        )
        or 0
    )


def gradebook_rows(session: Session, course: Course, batch: int = CSV_BATCH) -> Iterator[Row]:
    """Every learner's row, by name, for the export: the learners in one query, then for each
    ``batch`` of them one query for their totals and one for their cells."""
    people = _ordered(_filtered(_learners(course), GradebookQuery(), 0), GradebookQuery())
    everyone = session.scalars(people.with_only_columns(people.selected_columns.user_id)).all()
    for start in range(0, len(everyone), batch):
        chosen = list(everyone[start : start + batch])
        found = session.execute(_ordered(_learner_totals(course, None, chosen), GradebookQuery())).all()
        by_user = _cells_by_user(session, course, chosen)
        for row in found:
            yield _row(row, by_user)
