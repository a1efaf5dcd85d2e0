"""Rejudging: new gradings, at low priority, with fresh seeds; the old ones kept.

A :class:`~web.core.models.Rejudge` row records what was asked (one submission, an exercise within a
course, or an assignment), by whom and when; each grading it adds carries its id and the grading
that was current when it was asked (``replaces_id``), so :func:`outcome` can show which verdicts
changed once they finish. Gradings are added with one ``INSERT … SELECT`` whatever the count, at
:attr:`Priority.rejudge`: a learner's live submission always goes first.

A submission whose grading is still queued or running gets no second one (a double click, or
two instructors, do not judge it twice at once).

What a course-wide rejudge covers: every attempt the course counts (see
:func:`web.teaching.counting.attempts_query`: its learners' submissions made for the course to the
exercise since the assignment opened), late ones included, so that the gradebook is recomputed
from fresh verdicts. Submissions made for another course, or as practice, are never touched: a
rejudge started in one course changes nothing another course counts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, DateTime, Integer, Select, String, and_, case, func, insert, literal, or_, select
from sqlalchemy.orm import Session, aliased

from judge.i18n import Bilingual
from judge.verdicts import Verdict
from web.core.models import (
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
from web.grading.gradable import not_gradable_text, ungradable_here
from web.grading.queue import GradingQueue
from web.teaching.counting import attempts_query


def exercise_attempts(course: Course, exercise: Exercise) -> Select:
    """The ids of every attempt ``course`` counts at ``exercise`` (what its rejudge covers)."""
    attempts = attempts_query(course.id).subquery()
    return select(attempts.c.submission_id).where(attempts.c.exercise_id == exercise.id)


def assignment_attempts(assignment: Assignment) -> Select:
    """The ids of every attempt the course counts at any exercise of ``assignment``."""
    attempts = attempts_query(assignment.course_id).subquery()
    return select(attempts.c.submission_id).where(attempts.c.assignment_id == assignment.id)


def _not_busy() -> ColumnElement[bool]:
    """A submission with no grading queued or running (one that is gets no second one)."""
    return Submission.id.not_in(select(Grading.submission_id).where(Grading.status != Status.done))


def _of_exercises(numbers: Iterable[int]) -> ColumnElement[bool]:
    """A submission of one of the exercises ``numbers``."""
    return Submission.exercise_id.in_(select(Exercise.id).where(Exercise.number.in_(sorted(numbers))))


class NotGradableHere(ValueError):
    """A rejudge of one submission whose exercise this site cannot grade (:mod:`web.grading.gradable`):
    ``text`` says which extra the deployer must install; nothing was queued."""

    def __init__(self, text: Bilingual) -> None:
        super().__init__(str(text))
        self.text = text


class _LeftOut:
    """What a rejudge leaves out: submissions of exercises this site cannot grade (an extra is missing)."""

    left_out: tuple[tuple[int, int], ...]  # (exercise number, submissions), by exercise number

    @property
    def not_gradable(self) -> int:
        """How many submissions are left out."""
        return sum(count for _, count in self.left_out)

    @property
    def not_gradable_exercises(self) -> tuple[int, ...]:
        """The numbers of their exercises, in order."""
        return tuple(number for number, _ in self.left_out)


@dataclass(frozen=True)
class Preview(_LeftOut):
    """What a course-wide rejudge would queue, counted before it is asked for (its confirmation)."""

    submissions: int
    learners: int
    left_out: tuple[tuple[int, int], ...] = ()


def preview(session: Session, submission_ids: Select) -> Preview:
    """How many submissions (and of how many learners) a rejudge of ``submission_ids`` would
    queue now: the same rows :func:`_queue_gradings` would add, so the count asked about is the
    count done (unless someone submits or rejudges in between); and how many it leaves out because
    this site cannot grade their exercise."""
    ungradable = ungradable_here()
    chosen = (Submission.id.in_(submission_ids), _not_busy())
    counts = select(func.count(Submission.id), func.count(func.distinct(Submission.user_id)))
    if not ungradable:
        row = session.execute(counts.where(*chosen)).one()
        return Preview(int(row[0]), int(row[1]))
    row = session.execute(counts.where(*chosen, ~_of_exercises(ungradable))).one()
    left_out = session.execute(
        select(Exercise.number, func.count(Submission.id))
        .join(Exercise, Exercise.id == Submission.exercise_id)
        .where(*chosen, _of_exercises(ungradable))
        .group_by(Exercise.number)
        .order_by(Exercise.number)
    ).all()
    return Preview(int(row[0]), int(row[1]), tuple((int(number), int(count)) for number, count in left_out))


def _queue_gradings(session: Session, rejudge: Rejudge, submission_ids: Select) -> int:
    """Add one queued grading per submission in ``submission_ids`` (a one-column select); how many."""
    now = utcnow()
    chosen = select(
        Submission.id,
        literal(Status.queued.value, String(16)),
        literal(int(Priority.rejudge), Integer),
        literal(0, Integer),
        literal(now, DateTime(timezone=True)),
        literal(rejudge.id, Integer),
        Submission.current_grading_id,
    ).where(Submission.id.in_(submission_ids), _not_busy())
    ungradable = ungradable_here()
    if ungradable:  # their gradings would end in IE and replace the verdicts they have
        chosen = chosen.where(~_of_exercises(ungradable))
    result = session.execute(
        insert(Grading).from_select(
            ["submission_id", "status", "priority", "attempts", "created_at", "rejudge_id", "replaces_id"], chosen
        ),
        # SQLAlchemy keeps an INSERT's row count only when asked (without it psycopg answered -1).
        execution_options={"preserve_rowcount": True},
    )
    return int(getattr(result, "rowcount", 0) or 0)


@dataclass(frozen=True)
class Requested(_LeftOut):
    rejudge: Rejudge
    queued: int  # gradings added (submissions already being judged are skipped)
    left_out: tuple[tuple[int, int], ...] = ()


def _request(session: Session, queue: GradingQueue | None, rejudge: Rejudge, ids: Select) -> Requested:
    # Counted before the gradings are added: the submissions left out, on a site missing an extra.
    counted = preview(session, ids) if ungradable_here() else Preview(0, 0)
    session.add(rejudge)
    session.flush()
    queued = _queue_gradings(session, rejudge, ids)
    session.commit()
    if queue is not None:
        queue.wake()
    return Requested(rejudge, queued, counted.left_out)


def rejudge_submission(session: Session, queue: GradingQueue | None, submission: Submission, by: User) -> Requested:
    """Rejudge one submission (authorization is the caller's: :func:`web.access.permissions.teaches_context_of`).
    Raises :class:`NotGradableHere`, queuing nothing, when this site cannot grade its exercise."""
    missing = ungradable_here().get(submission.exercise.number)
    if missing is not None:
        raise NotGradableHere(not_gradable_text(missing))
    rejudge = Rejudge(scope=RejudgeScope.submission, submission_id=submission.id, requested_by_id=by.id)
    return _request(session, queue, rejudge, select(literal(submission.id, Integer)))


def rejudge_exercise(
    session: Session, queue: GradingQueue | None, course: Course, exercise: Exercise, by: User
) -> Requested:
    """Rejudge every attempt the course counts at ``exercise``."""
    rejudge = Rejudge(scope=RejudgeScope.exercise, course_id=course.id, exercise_id=exercise.id, requested_by_id=by.id)
    return _request(session, queue, rejudge, exercise_attempts(course, exercise))


def rejudge_assignment(session: Session, queue: GradingQueue | None, assignment: Assignment, by: User) -> Requested:
    """Rejudge every attempt the course counts at any exercise of ``assignment``."""
    rejudge = Rejudge(
        scope=RejudgeScope.assignment,
        course_id=assignment.course_id,
        assignment_id=assignment.id,
        requested_by_id=by.id,
    )
    return _request(session, queue, rejudge, assignment_attempts(assignment))


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


@dataclass(frozen=True)
class PastRejudge:
    """One line of a course's list of rejudges."""

    rejudge: Rejudge
    requester: str | None  # None: the account is gone
    gradings: int  # how many gradings it queued (one per submission)
    pending: int  # of those, still queued or running
    changed: int  # finished with a verdict other than the one before


def course_rejudges(session: Session, course_id: int, page: int, per_page: int) -> tuple[list[PastRejudge], int]:
    """The rejudges asked in a course, newest first, one page of them, and how many there are in all.

    A course's rejudges are those of an exercise or assignment of it and those of a single
    submission made for it (those carry no course of their own).
    """
    old = aliased(Grading)
    in_course = or_(
        Rejudge.course_id == course_id,
        Rejudge.submission_id.in_(select(Submission.id).where(Submission.course_id == course_id)),
    )
    total = session.scalar(select(func.count(Rejudge.id)).where(in_course)) or 0
    done = Grading.status == Status.done
    changed = and_(done, or_(old.verdict.is_(None), old.verdict != Grading.verdict))
    rows = session.execute(
        select(
            Rejudge,
            User.name,
            func.count(Grading.id),
            func.coalesce(func.sum(case((~done, 1), else_=0)), 0),
            func.coalesce(func.sum(case((changed, 1), else_=0)), 0),
        )
        .outerjoin(User, User.id == Rejudge.requested_by_id)
        .outerjoin(Grading, Grading.rejudge_id == Rejudge.id)
        .outerjoin(old, old.id == Grading.replaces_id)
        .where(in_course)
        .group_by(Rejudge.id, User.name)
        .order_by(Rejudge.created_at.desc(), Rejudge.id.desc())
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).all()
    return [PastRejudge(row[0], row[1], int(row[2]), int(row[3]), int(row[4])) for row in rows], int(total)
