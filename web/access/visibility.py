"""How much of a submission's report its viewer sees: :func:`access_for` gives the
:class:`~web.access.presenting.Access` every page and API route passes to
:func:`web.access.presenting.submission_view`.

Those who teach the submission's course (its context, see :mod:`web.access.permissions`) see
everything. The author sees the hidden cases at the :class:`~web.core.models.Visibility` of the
assignment of the submission's own context (its course and exercise name one assignment):
``visibility_before`` until the author's effective due date in that course (an extension moves
it), ``visibility_after`` from then on. A practice submission (no course) shows at ``rule`` (the
site's default). Each submission has its own level: one course's setting never changes what
another course's submissions, or practice, show.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Select, and_, bindparam, case, func, or_, select
from sqlalchemy.orm import Session

from web.access.permissions import teaches_context_of
from web.access.presenting import INSTRUCTOR_ACCESS, Access
from web.core.models import (
    Assignment,
    AssignmentExercise,
    Extension,
    Submission,
    User,
    Visibility,
    as_utc,
    utcnow,
)


def _level_query() -> Any:
    """(visibility before, after, effective due date) of the assignment of course ``p_course``
    that includes exercise ``p_exercise``, for learner ``p_learner``."""
    learner = bindparam("p_learner", type_=Extension.user_id.type)
    return (
        select(
            Assignment.visibility_before,
            Assignment.visibility_after,
            func.coalesce(Extension.due_at, Assignment.due_at),
        )
        .join(AssignmentExercise, AssignmentExercise.assignment_id == Assignment.id)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == learner))
        .where(
            AssignmentExercise.course_id == bindparam("p_course", type_=AssignmentExercise.course_id.type),
            AssignmentExercise.exercise_id == bindparam("p_exercise", type_=AssignmentExercise.exercise_id.type),
        )
    )


# Built once with bound parameters: every view of a submission asks it.
_CONTEXT_LEVEL = _level_query()


def _with_context_assignment(query: Select) -> Select:
    """``query`` over submissions joined to the assignment of each one's context (its course and
    exercise) and to its author's extension there, if any: what decides its visibility."""
    return (
        query.join(
            AssignmentExercise,
            and_(
                AssignmentExercise.course_id == Submission.course_id,
                AssignmentExercise.exercise_id == Submission.exercise_id,
            ),
        )
        .join(Assignment, Assignment.id == AssignmentExercise.assignment_id)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == Submission.user_id))
    )


# The learner's submissions whose context's assignment may withhold verdicts (level nothing).
_WITHHOLDING = (
    _with_context_assignment(
        select(
            Submission.exercise_id,
            Submission.course_id,
            Assignment.visibility_before,
            Assignment.visibility_after,
            func.coalesce(Extension.due_at, Assignment.due_at),
        )
    )
    .where(
        Submission.user_id == bindparam("p_learner", type_=Submission.user_id.type),
        or_(Assignment.visibility_before == Visibility.nothing, Assignment.visibility_after == Visibility.nothing),
    )
    .distinct()
)


def context_visibility(
    session: Session, learner_id: int, course_id: int | None, exercise_id: int, now: dt.datetime | None = None
) -> Visibility:
    """The level at which learner ``learner_id`` sees hidden results of their submissions to
    ``exercise_id`` made for course ``course_id`` (None: practice, shown at ``rule``) at ``now``."""
    if course_id is None:
        return Visibility.rule
    parameters = {"p_learner": learner_id, "p_course": course_id, "p_exercise": exercise_id}
    row = session.execute(_CONTEXT_LEVEL, parameters).first()
    if row is None:  # the course no longer assigns the exercise: the site's default
        return Visibility.rule
    before, after, due = row
    return before if (now or utcnow()) < as_utc(due) else after


def learner_visibility(session: Session, submission: Submission, now: dt.datetime | None = None) -> Visibility:
    """The level at which ``submission``'s author sees its hidden results at ``now`` (its context's)."""
    return context_visibility(session, submission.user_id, submission.course_id, submission.exercise_id, now)


def withheld_exercises(
    session: Session, learner_id: int, now: dt.datetime | None = None, course_id: int | None = None
) -> set[int]:
    """The exercises of which learner ``learner_id`` has a submission whose verdict they may not
    see at ``now`` (its context's level is ``nothing``): lists and progress show them as
    attempted, never solved. Only submissions made for such a course count: another course's
    setting withholds nothing of this one's, or of practice. With ``course_id``, only that
    course's submissions (what its page counts)."""
    moment = now or utcnow()
    rows = session.execute(_WITHHOLDING, {"p_learner": learner_id}).all()
    return {
        exercise_id
        for exercise_id, context, before, after, due in rows
        if (course_id is None or context == course_id)
        and (before if moment < as_utc(due) else after) is Visibility.nothing
    }


def withheld_submissions(now: dt.datetime | None = None) -> Select:
    """The ids of every submission whose verdict is withheld from its author at ``now`` (its own
    context's level is ``nothing``, as :func:`learner_visibility`, for all submissions at once, in
    SQL): what counts that others see leave out, so that they never tell a learner's withheld
    verdict. Practice submissions are never withheld."""
    due = func.coalesce(Extension.due_at, Assignment.due_at)
    level = case((due > (now or utcnow()), Assignment.visibility_before), else_=Assignment.visibility_after)
    return (
        _with_context_assignment(select(Submission.id))
        .where(level == Visibility.nothing)
        .correlate(None)  # a set of its own, also inside a query over submissions
    )


def access_for(session: Session, viewer: User | None, submission: Submission, now: dt.datetime | None = None) -> Access:
    """What ``viewer`` may see of ``submission`` (they may open it: see :mod:`web.access.permissions`)."""
    if teaches_context_of(session, viewer, submission):
        return INSTRUCTOR_ACCESS
    return Access(visibility=learner_visibility(session, submission, now))
