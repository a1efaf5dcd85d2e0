"""What counts for a learner in a course: one SQL query per question, never a loop over attempts.

For each learner of a course and each exercise of its assignments, the **counted** attempt is
the learner's best grading under the assignment's rules:

- only submissions made for the course (``Submission.course_id``, their context) are attempts:
  work the learner did for another course, or as practice, never counts here;
- only submissions made at or after ``opens_at`` are attempts (earlier ones were practice);
- a submission counts with its current grading (:attr:`Submission.current`); its score is the
  share of cases passed, ``score_passed / score_total`` (1.0 for an AC);
- the learner's due date is their extension's, else the assignment's (**effective deadline**);
  a submission after it is *late*, and counts per the late policy: ``not_accepted`` not at all,
  ``flagged`` in full (the cell is flagged late), ``penalty`` with its score times
  ``1 - penalty_per_day * d`` (never below 0), where ``d`` is the number of started days late
  (one second late is one day);
- the best counted score wins; among equal scores the earliest submission, so a later attempt
  that does as well never turns an on-time cell late;
- an instructor's :class:`~web.core.models.Override` (the newest) applies per its mode, in one place
  (:func:`overridden_score`): ``replace``, its score is the cell's; ``at_least``, the better of its
  score and the computed one; unless that newest row is a withdrawal (then no override counts);
- a ``replace`` override *below* the computed score (the gradings now give more than the
  instructor did, as after a rejudge) is flagged (:func:`override_below`), never changed.

Every function returns a SQLAlchemy ``Select`` (or runs one), so the database aggregates 200 000
attempts with its indexes; Python only shapes one page of results.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, Float, Integer, Select, Text, and_, case, cast, func, literal, null, select, union_all
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import ColumnElement, FunctionElement

from judge.verdicts import Verdict
from web.core.models import (
    Assignment,
    AssignmentExercise,
    CourseRole,
    Extension,
    Grading,
    LatePolicy,
    Membership,
    Override,
    OverrideMode,
    Submission,
    as_utc,
)


class started_days_after(FunctionElement):
    """``ceil((later - earlier) / 1 day)`` as an integer, written in each database's date arithmetic."""

    type = Integer()
    inherit_cache = True
    name = "started_days_after"


@compiles(started_days_after, "sqlite")
def _started_days_sqlite(element, compiler, **kw) -> str:
    later, earlier = (compiler.process(clause, **kw) for clause in element.clauses)
    days = f"(julianday({later}) - julianday({earlier}))"
    return f"(CAST({days} AS INTEGER) + ({days} > CAST({days} AS INTEGER)))"


@compiles(started_days_after, "postgresql")
def _started_days_postgresql(element, compiler, **kw) -> str:
    later, earlier = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"CAST(CEIL(EXTRACT(EPOCH FROM ({later} - {earlier})) / 86400.0) AS INTEGER)"


def typed_null(type_) -> ColumnElement:
    """``CAST(NULL AS type)``: a NULL with a type in the SQL itself. A bare NULL (or a parameter
    bound to None) has no type on PostgreSQL, which reads an untyped output column of a
    subquery as text: ``coalesce(that, 0.0)`` then fails, and a UNION may pick the wrong type."""
    return cast(null(), type_)


def score_share() -> ColumnElement[float]:
    """A grading's score as a share of its cases (0 when it has none, as an IE may)."""
    return case(
        (Grading.score_total > 0, cast(Grading.score_passed, Float) / cast(Grading.score_total, Float)),
        else_=literal(0.0, Float),
    )


def effective_due_at() -> ColumnElement[dt.datetime]:
    """The **effective deadline** of a query joined to :class:`Assignment` and (outer) to the
    learner's :class:`Extension`: the extension's due date, else the assignment's. One rule for
    the counting, the pages that show deadlines (:mod:`web.teaching.deadlines`) and :func:`effective_due`."""
    return func.coalesce(Extension.due_at, Assignment.due_at)


def late_multiplier(created_at: Any, due_at: Any, late_policy: Any, penalty_per_day: Any) -> ColumnElement[float]:
    """What an attempt made at ``created_at`` against (effective) deadline ``due_at`` counts for,
    as a factor of its score: 1 on time (at the due time itself too) and under ``flagged``,
    ``1 - penalty_per_day * d`` (never below 0, ``d`` started days late) under ``penalty``, NULL
    (nothing counts) under ``not_accepted``. Columns in the counting; literals when a page says
    what a submission made now would count for (:func:`late_share`), so both use this one rule."""
    days = started_days_after(created_at, due_at)
    factor = literal(1.0, Float) - penalty_per_day * case((days < 1, 1), else_=days)
    return case(
        (created_at <= due_at, literal(1.0, Float)),
        (late_policy == LatePolicy.flagged, literal(1.0, Float)),
        (late_policy == LatePolicy.penalty, case((factor <= 0, literal(0.0, Float)), else_=factor)),
        else_=typed_null(Float),
    )


def late_share(
    session: Session, created_at: dt.datetime, due_at: dt.datetime, policy: LatePolicy, penalty_per_day: float
) -> float | None:
    """:func:`late_multiplier` for one moment, computed by the database as the counting computes it
    (the same date arithmetic): 1.0 on time, the share a late attempt counts for, None when it
    counts for nothing."""
    moment = Submission.__table__.c.created_at.type
    value = session.scalar(
        select(
            late_multiplier(
                literal(as_utc(created_at), moment),
                literal(as_utc(due_at), moment),
                literal(policy, Assignment.__table__.c.late_policy.type),
                literal(float(penalty_per_day or 0.0), Float),
            )
        )
    )
    return None if value is None else float(value)


# Below this gap a computed score equal to an override's is "equal", not "above": a share typed
# as a percent (30 / 100) and one computed (3 / 10, or times a late factor) may differ in the
# last bits of a double.
SCORE_TOLERANCE = 1e-9


def overridden_score(override: ColumnElement, mode: ColumnElement, computed: ColumnElement) -> ColumnElement[float]:
    """What a cell is worth: the one rule for overrides, used by every query that counts
    (:func:`cells_query`, :func:`cell_summaries_query`, so the gradebook, its CSV and JSON, the
    learner's course page and the totals). ``override`` is the newest override's score (NULL:
    none in force), ``mode`` its :class:`~web.core.models.OverrideMode`, ``computed`` the counted
    grading's score (NULL: nothing counts, worth 0). ``replace``: the override; ``at_least``:
    the greater of the two; no override: the computed score, else 0."""
    graded = func.coalesce(computed, literal(0.0, Float))
    return case(
        (override.is_(None), graded),
        (and_(mode == OverrideMode.at_least.value, graded > override), graded),
        else_=override,
    )


def override_below(override: ColumnElement, mode: ColumnElement, computed: ColumnElement) -> ColumnElement[bool]:
    """True where a ``replace`` override is below the computed score: the gradings give more than
    the instructor set (after a rejudge, or a later, better attempt); the gradebook flags it.
    An ``at_least`` override never is (the computed score already counts)."""
    return and_(
        override.is_not(None),
        mode == OverrideMode.replace.value,
        computed.is_not(None),
        computed > override + SCORE_TOLERANCE,
    )


def attempts_query(course_id: int) -> Select:
    """One row per attempt of a learner of the course at an exercise of its assignments, made
    for the course (its context).

    Columns: ``user_id``, ``exercise_id``, ``assignment_id``, ``submission_id``, ``grading_id``
    (None while not graded), ``verdict``, ``created_at``, ``due_at`` (effective), ``late`` (bool),
    ``share`` (the grading's score share) and ``counted`` (what it counts for; None when it does
    not count: not graded yet, or late under ``not_accepted``).
    """
    due = effective_due_at()
    late = Submission.created_at > due
    share = score_share()
    counted = case(
        (Grading.id.is_(None), None),
        else_=share * late_multiplier(Submission.created_at, due, Assignment.late_policy, Assignment.penalty_per_day),
    )
    return (
        select(
            Submission.user_id.label("user_id"),
            Submission.exercise_id.label("exercise_id"),
            Assignment.id.label("assignment_id"),
            Submission.id.label("submission_id"),
            Grading.id.label("grading_id"),
            Grading.verdict.label("verdict"),
            Submission.created_at.label("created_at"),
            due.label("due_at"),
            late.label("late"),
            share.label("share"),
            counted.label("counted"),
        )
        .select_from(Membership)
        .join(AssignmentExercise, AssignmentExercise.course_id == Membership.course_id)
        .join(Assignment, Assignment.id == AssignmentExercise.assignment_id)
        .join(
            Submission,
            and_(
                Submission.course_id == Membership.course_id,
                Submission.user_id == Membership.user_id,
                Submission.exercise_id == AssignmentExercise.exercise_id,
                Submission.created_at >= Assignment.opens_at,
            ),
        )
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == Membership.user_id))
        .outerjoin(Grading, Grading.id == Submission.current_grading_id)
        .where(Membership.course_id == course_id, Membership.role == CourseRole.learner)
    )


def latest_overrides(course_id: int) -> Select:
    """The newest override of each (learner, exercise) of the course: ``user_id``, ``exercise_id``,
    ``override_id``, ``score``, ``mode`` (its value, as text), ``comment``, ``by_id``,
    ``created_at``. A cell whose newest row is a withdrawal has none (the newest row decides, so
    an older score does not come back)."""
    newest = (
        select(func.max(Override.id).label("id"))
        .where(Override.course_id == course_id)
        .group_by(Override.user_id, Override.exercise_id)
        .subquery()
    )
    return (
        select(
            Override.user_id.label("user_id"),
            Override.exercise_id.label("exercise_id"),
            Override.id.label("override_id"),
            Override.score.label("score"),
            cast(Override.mode, Text).label("mode"),
            Override.comment.label("comment"),
            Override.by_id.label("by_id"),
            Override.created_at.label("created_at"),
        )
        .join(newest, newest.c.id == Override.id)
        .where(Override.withdrawn.is_(False))
    )


def cells_query(course_id: int) -> Select:
    """One row per (learner, exercise) the learner attempted or that has an override.

    Columns: ``user_id``, ``exercise_id``, ``attempts``, ``submission_id`` and ``grading_id`` of
    the counted attempt (the best; when none counts, the first attempt), ``verdict``,
    ``counted`` (None: nothing counts), ``late`` (the counted attempt was late), ``override``
    (the newest override's score or None), ``override_mode`` (its mode's value, or None),
    ``override_comment``, ``score``: what the cell is worth (:func:`overridden_score`), and
    ``override_below`` (:func:`override_below`).

    The attempts and the newest overrides are one list (``UNION ALL``) ranked per cell by window
    functions, with no join between per-cell results: SQLite answers a join of two derived
    tables by scanning one for each row of the other, which grows as the square of the cells.
    A filter on ``user_id`` outside this query reaches inside it (the windows are partitioned
    by it), so one page's cells cost one page's attempts.
    """
    attempts = attempts_query(course_id).subquery()
    overrides = latest_overrides(course_id).subquery()
    rows = union_all(
        select(
            attempts.c.user_id,
            attempts.c.exercise_id,
            attempts.c.submission_id,
            attempts.c.grading_id,
            attempts.c.verdict,
            attempts.c.created_at,
            attempts.c.late,
            attempts.c.counted,
            typed_null(Float).label("override"),
            typed_null(Text).label("override_mode"),
            typed_null(Text).label("override_comment"),
            literal(0, Integer).label("is_override"),
        ),
        select(
            overrides.c.user_id,
            overrides.c.exercise_id,
            typed_null(Integer),
            typed_null(Integer),
            typed_null(Grading.__table__.c.verdict.type),
            overrides.c.created_at,
            literal(False, Boolean),
            typed_null(Float),
            overrides.c.score,
            overrides.c.mode,
            overrides.c.comment,
            literal(1, Integer),
        ),
    ).subquery()
    cell = (rows.c.user_id, rows.c.exercise_id)
    ranked = select(
        rows,
        func.row_number()
        .over(
            partition_by=cell,
            order_by=(
                rows.c.is_override,  # an attempt, when there is one, is the cell's row
                rows.c.counted.is_(None),
                rows.c.counted.desc(),
                rows.c.created_at,
                rows.c.submission_id,
            ),
        )
        .label("rank"),
        func.sum(1 - rows.c.is_override).over(partition_by=cell).label("attempts"),
        func.max(rows.c.override).over(partition_by=cell).label("override_score"),
        func.max(rows.c.override_mode).over(partition_by=cell).label("override_kind"),
        func.max(rows.c.override_comment).over(partition_by=cell).label("override_text"),
    ).subquery()
    override, mode, counted = ranked.c.override_score, ranked.c.override_kind, ranked.c.counted
    return select(
        ranked.c.user_id,
        ranked.c.exercise_id,
        ranked.c.attempts,
        ranked.c.submission_id,
        ranked.c.grading_id,
        ranked.c.verdict,
        ranked.c.counted,
        case((ranked.c.counted.is_(None), False), else_=ranked.c.late).label("late"),
        override.label("override"),
        mode.label("override_mode"),
        ranked.c.override_text.label("override_comment"),
        overridden_score(override, mode, counted).label("score"),
        override_below(override, mode, counted).label("override_below"),
    ).where(ranked.c.rank == 1)


def cell_summaries_query(course_id: int, user_ids: list[int] | None = None) -> Select:
    """The same cells as :func:`cells_query`, without which attempt counted: ``user_id``,
    ``exercise_id``, ``attempts``, ``counted``, ``late``, ``override`` and ``score``, with the
    same values, and ``override_below``, by plain aggregation (no window, no sort): what totals,
    filters and sorting need.

    ``late`` needs no ranking because of how time runs: every on-time attempt comes before
    every late one, so among equally good attempts the earliest, the counted one, is on time
    whenever an on-time attempt reaches the best score. The counted attempt is late exactly
    when the best late score beats the best on-time one (or nothing on time counts).

    ``user_ids`` limits it to those learners, inside (so only their attempts are read).
    """
    attempts_rows, override_rows = attempts_query(course_id), latest_overrides(course_id)
    if user_ids is not None:
        attempts_rows = attempts_rows.where(Membership.user_id.in_(user_ids))
        override_rows = override_rows.where(Override.user_id.in_(user_ids))
    attempts, overrides = attempts_rows.subquery(), override_rows.subquery()
    rows = union_all(
        select(
            attempts.c.user_id,
            attempts.c.exercise_id,
            attempts.c.counted,
            case((attempts.c.late, None), else_=attempts.c.counted).label("on_time"),
            typed_null(Float).label("override"),
            typed_null(Text).label("mode"),
            literal(1, Integer).label("is_attempt"),
        ),
        select(
            overrides.c.user_id,
            overrides.c.exercise_id,
            typed_null(Float),
            typed_null(Float),
            overrides.c.score,
            overrides.c.mode,
            literal(0, Integer),
        ),
    ).subquery()
    best, on_time, override = func.max(rows.c.counted), func.max(rows.c.on_time), func.max(rows.c.override)
    mode = func.max(rows.c.mode)
    return select(
        rows.c.user_id,
        rows.c.exercise_id,
        func.sum(rows.c.is_attempt).label("attempts"),
        best.label("counted"),
        case((best.is_(None), False), (on_time.is_(None), True), else_=best > on_time).label("late"),
        override.label("override"),
        overridden_score(override, mode, best).label("score"),
        override_below(override, mode, best).label("override_below"),
    ).group_by(rows.c.user_id, rows.c.exercise_id)


@dataclass(frozen=True)
class Cell:
    """One learner's standing on one exercise of a course (see :func:`cells_query`)."""

    user_id: int
    exercise_id: int
    attempts: int
    submission_id: int | None
    grading_id: int | None
    verdict: Verdict | None
    counted: float | None
    late: bool
    override: float | None
    override_comment: str | None
    score: float
    override_mode: OverrideMode | None = None
    override_below: bool = False  # a "replace" override below the computed score (see override_below)


def cells(session: Session, course_id: int, user_ids: list[int] | None = None) -> dict[tuple[int, int], Cell]:
    """(user id, exercise id) → :class:`Cell` for the course (only ``user_ids`` when given)."""
    query = cells_query(course_id).subquery()
    statement = select(query)
    if user_ids is not None:
        statement = statement.where(query.c.user_id.in_(user_ids))
    found = {}
    for row in session.execute(statement).mappings():
        verdict = row["verdict"]
        found[(row["user_id"], row["exercise_id"])] = Cell(
            user_id=row["user_id"],
            exercise_id=row["exercise_id"],
            attempts=row["attempts"],
            submission_id=row["submission_id"],
            grading_id=row["grading_id"],
            verdict=Verdict(verdict) if isinstance(verdict, str) else verdict,
            counted=row["counted"],
            late=bool(row["late"]),
            override=row["override"],
            override_comment=row["override_comment"],
            score=float(row["score"]),
            override_mode=None if row["override_mode"] is None else OverrideMode(row["override_mode"]),
            override_below=bool(row["override_below"]),
        )
    return found


def effective_due(session: Session, assignment: Assignment, user_id: int) -> dt.datetime:
    """``user_id``'s due date-time on ``assignment``: their extension's, else the assignment's."""
    due = session.scalar(
        select(effective_due_at())
        .select_from(Assignment)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == user_id))
        .where(Assignment.id == assignment.id)
    )
    return due if due is not None else assignment.due_at
