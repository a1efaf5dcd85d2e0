"""How much of a submission's report its viewer sees: :func:`access_for` gives the
:class:`~web.presenting.Access` every page and API route passes to
:func:`web.presenting.submission_view`.

Those who teach the author see everything. The author sees the hidden cases at the
:class:`~web.models.Visibility` of the assignments that include the exercise in the courses
they learn in: ``visibility_before`` until their effective due date (an extension moves it),
``visibility_after`` from then on. When several assignments include it (the learner is in
several courses), the least revealing level applies: one course's setting never leaks what
another withholds. An exercise in no assignment shows at ``rule`` (the site's default).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Select, and_, bindparam, case, func, or_, select
from sqlalchemy.orm import Session

from web.models import (
    Assignment,
    AssignmentExercise,
    CourseRole,
    Extension,
    Membership,
    Submission,
    User,
    Visibility,
    as_utc,
    utcnow,
)
from web.permissions import teaches_author_of
from web.presenting import INSTRUCTOR_ACCESS, Access

# From most to least revealing.
ORDER = (Visibility.rule, Visibility.diagnosis, Visibility.nothing)


def least_revealing(levels: list[Visibility]) -> Visibility:
    return max(levels, key=ORDER.index, default=Visibility.rule)


def _levels_query(*conditions) -> Any:
    """(exercise id, visibility before, after, effective due date) of each assignment exercise of
    learner ``p_learner``'s courses where ``conditions`` hold."""
    learner = bindparam("p_learner", type_=Membership.user_id.type)
    return (
        select(
            AssignmentExercise.exercise_id,
            Assignment.visibility_before,
            Assignment.visibility_after,
            func.coalesce(Extension.due_at, Assignment.due_at),
        )
        .join(Assignment, Assignment.id == AssignmentExercise.assignment_id)
        .join(
            Membership,
            and_(
                Membership.course_id == Assignment.course_id,
                Membership.user_id == learner,
                Membership.role == CourseRole.learner,
            ),
        )
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == learner))
        .where(*conditions)
    )


# Built once with bound parameters: every view of a submission asks the first.
_EXERCISE_LEVELS = _levels_query(
    AssignmentExercise.exercise_id == bindparam("p_exercise", type_=AssignmentExercise.exercise_id.type)
)
_WITHHOLDING_LEVELS = _levels_query(
    or_(Assignment.visibility_before == Visibility.nothing, Assignment.visibility_after == Visibility.nothing)
)


def _levels(session: Session, query: Any, parameters: dict[str, int], now: dt.datetime) -> list[tuple[int, Visibility]]:
    """(exercise id, level at ``now``) for each row of ``query`` (one of the above)."""
    rows = session.execute(query, parameters).all()
    return [(exercise_id, before if now < as_utc(due) else after) for exercise_id, before, after, due in rows]


def learner_visibility(
    session: Session, learner_id: int, exercise_id: int, now: dt.datetime | None = None
) -> Visibility:
    """The level at which learner ``learner_id`` sees hidden results of ``exercise_id`` at ``now``."""
    parameters = {"p_learner": learner_id, "p_exercise": exercise_id}
    found = _levels(session, _EXERCISE_LEVELS, parameters, now or utcnow())
    return least_revealing([level for _, level in found])


def withheld_exercises(session: Session, learner_id: int, now: dt.datetime | None = None) -> set[int]:
    """The exercises whose verdicts learner ``learner_id`` may not see at ``now`` (level ``nothing``
    in one of their courses): lists and progress show them as attempted, never solved."""
    return {
        exercise_id
        for exercise_id, level in _levels(session, _WITHHOLDING_LEVELS, {"p_learner": learner_id}, now or utcnow())
        if level is Visibility.nothing
    }


def withheld_pairs(now: dt.datetime | None = None) -> Select:
    """``(user_id, exercise_id)`` of every learner whose verdicts at the exercise are withheld
    from them at ``now`` (as :func:`withheld_exercises`, for all learners at once, in SQL): what
    counts that others see leave out, so that they never tell a learner's withheld verdict."""
    due = func.coalesce(Extension.due_at, Assignment.due_at)
    level = case((due > (now or utcnow()), Assignment.visibility_before), else_=Assignment.visibility_after)
    return (
        select(Membership.user_id.label("user_id"), AssignmentExercise.exercise_id.label("exercise_id"))
        .join(Assignment, Assignment.course_id == Membership.course_id)
        .join(AssignmentExercise, AssignmentExercise.assignment_id == Assignment.id)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == Membership.user_id))
        .where(Membership.role == CourseRole.learner, level == Visibility.nothing)
    )


def access_for(session: Session, viewer: User | None, submission: Submission, now: dt.datetime | None = None) -> Access:
    """What ``viewer`` may see of ``submission`` (they may open it: see :mod:`web.permissions`)."""
    if teaches_author_of(session, viewer, submission):
        return INSTRUCTOR_ACCESS
    return Access(visibility=learner_visibility(session, submission.user_id, submission.exercise_id, now))
