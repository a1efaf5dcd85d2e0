"""Rejudging: new gradings, at low priority, with fresh seeds; the old ones kept.

A :class:`~web.models.Rejudge` row records what was asked (one submission, an exercise within a
course, or an assignment), by whom and when; each grading it adds carries its id and the grading
that was current when it was asked (``replaces_id``), so :func:`outcome` can show which verdicts
changed once they finish. Gradings are added with one ``INSERT … SELECT`` whatever the count, at
:attr:`Priority.rejudge`: a learner's live submission always goes first.

A submission whose grading is still queued or running gets no second one (a double click, or
two instructors, do not judge it twice at once).

What a course-wide rejudge covers: every attempt the course counts (see
:func:`web.counting.attempts_query`: its learners' submissions made for the course to the
exercise since the assignment opened), late ones included, so that the gradebook is recomputed
from fresh verdicts. Submissions made for another course, or as practice, are never touched: a
rejudge started in one course changes nothing another course counts.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import DateTime, Integer, Select, String, and_, insert, literal, select
from sqlalchemy.orm import Session, aliased

from judge.verdicts import Verdict
from web.counting import attempts_query
from web.grading import GradingQueue
from web.models import (
    Assignment,
    Course,
    Exercise,
    Grading,
    Priority,
    Rejudge,
    RejudgeScope,
    Status,
    Submission,
    User,
    utcnow,
)


def _queue_gradings(session: Session, rejudge: Rejudge, submission_ids: Select) -> int:
    """Add one queued grading per submission in ``submission_ids`` (a one-column select); how many."""
    busy = select(Grading.submission_id).where(Grading.status != Status.done)
    now = utcnow()
    chosen = select(
        Submission.id,
        literal(Status.queued.value, String(16)),
        literal(int(Priority.rejudge), Integer),
        literal(0, Integer),
        literal(now, DateTime(timezone=True)),
        literal(rejudge.id, Integer),
        Submission.current_grading_id,
    ).where(Submission.id.in_(submission_ids), Submission.id.not_in(busy))
    result = session.execute(
        insert(Grading).from_select(
            ["submission_id", "status", "priority", "attempts", "created_at", "rejudge_id", "replaces_id"], chosen
        ),
        # SQLAlchemy keeps an INSERT's row count only when asked (without it psycopg answered -1).
        execution_options={"preserve_rowcount": True},
    )
    return int(getattr(result, "rowcount", 0) or 0)


@dataclass(frozen=True)
class Requested:
    rejudge: Rejudge
    queued: int  # gradings added (submissions already being judged are skipped)


def _request(session: Session, queue: GradingQueue | None, rejudge: Rejudge, ids: Select) -> Requested:
    session.add(rejudge)
    session.flush()
    queued = _queue_gradings(session, rejudge, ids)
    session.commit()
    if queue is not None:
        queue.wake()
    return Requested(rejudge, queued)


def rejudge_submission(session: Session, queue: GradingQueue | None, submission: Submission, by: User) -> Requested:
    """Rejudge one submission (authorization is the caller's: :func:`web.permissions.teaches_context_of`)."""
    rejudge = Rejudge(scope=RejudgeScope.submission, submission_id=submission.id, requested_by_id=by.id)
    return _request(session, queue, rejudge, select(literal(submission.id, Integer)))


def rejudge_exercise(
    session: Session, queue: GradingQueue | None, course: Course, exercise: Exercise, by: User
) -> Requested:
    """Rejudge every attempt the course counts at ``exercise``."""
    attempts = attempts_query(course.id).subquery()
    ids = select(attempts.c.submission_id).where(attempts.c.exercise_id == exercise.id)
    rejudge = Rejudge(scope=RejudgeScope.exercise, course_id=course.id, exercise_id=exercise.id, requested_by_id=by.id)
    return _request(session, queue, rejudge, ids)


def rejudge_assignment(session: Session, queue: GradingQueue | None, assignment: Assignment, by: User) -> Requested:
    """Rejudge every attempt the course counts at any exercise of ``assignment``."""
    attempts = attempts_query(assignment.course_id).subquery()
    ids = select(attempts.c.submission_id).where(attempts.c.assignment_id == assignment.id)
    rejudge = Rejudge(
        scope=RejudgeScope.assignment,
        course_id=assignment.course_id,
        assignment_id=assignment.id,
        requested_by_id=by.id,
    )
    return _request(session, queue, rejudge, ids)


@dataclass(frozen=True)
class Change:
    """One grading of a rejudge: the verdict before and (once finished) after."""

    submission_id: int
    grading_id: int
    user: str
    exercise: int
    status: Status
    before: Verdict | None  # None: the submission had no finished grading
    after: Verdict | None  # None while the new grading is queued or running
    seed: int | None
    finished_at: dt.datetime | None

    @property
    def changed(self) -> bool:
        """Finished with a verdict other than the one before."""
        return self.status is Status.done and self.before != self.after


def outcome(session: Session, rejudge: Rejudge) -> list[Change]:
    """Every grading ``rejudge`` added, changed verdicts first, then by submission."""
    old = aliased(Grading)
    rows = session.execute(
        select(
            Grading.submission_id,
            Grading.id,
            User.name,
            Exercise.number,
            Grading.status,
            old.verdict,
            Grading.verdict,
            Grading.seed,
            Grading.finished_at,
        )
        .join(Submission, Submission.id == Grading.submission_id)
        .join(User, User.id == Submission.user_id)
        .join(Exercise, Exercise.id == Submission.exercise_id)
        .outerjoin(old, and_(old.id == Grading.replaces_id))
        .where(Grading.rejudge_id == rejudge.id)
        .order_by(Grading.submission_id)
    ).all()
    changes = [Change(*row) for row in rows]
    return sorted(changes, key=lambda change: not change.changed)  # stable: by submission within each group
