"""The context of a submission: the course it is made for, or none (practice).

A submission's context is chosen once, when it is made (:func:`choose_context`), and stored as
``Submission.course_id``; it never changes. A course is **allowed** for a user and an exercise
when the user is in the course (a learner, or an instructor testing their own course; an admin
may use any course) and one of its assignments includes the exercise. Practice is always allowed.

When the submitter names no context, the default is the course the link they came from names
(``?course=ID`` on a course page's links to its exercises) when it is allowed, else the only
course in which they are a learner and that assigns the exercise, else practice. A course named
that is not allowed is refused (:class:`ContextRefused`), never silently replaced.
"""

from __future__ import annotations

import enum

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.i18n import Bilingual
from web.access.permissions import is_admin
from web.core.models import AssignmentExercise, Course, CourseRole, Exercise, Membership, User


class Unset(enum.Enum):
    """The submitter named no context (practice is named as ``None``)."""

    token = 0


NOT_GIVEN = Unset.token


class ContextRefused(ValueError):
    """A course named for a submission that the submitter may not submit for; ``text`` says why."""

    def __init__(self, text: Bilingual):
        super().__init__(str(text))
        self.text = text


def allowed_contexts(session: Session, user: User, exercise: Exercise) -> list[Course]:
    """The courses ``user`` is in (either role) whose assignments include ``exercise``, by name:
    the choices the submit form offers (an admin may name others too, see :func:`is_allowed`)."""
    return list(
        session.scalars(
            select(Course)
            .join(Membership, Membership.course_id == Course.id)
            .join(AssignmentExercise, AssignmentExercise.course_id == Course.id)
            .where(Membership.user_id == user.id, AssignmentExercise.exercise_id == exercise.id)
            .order_by(Course.name, Course.id)
        )
    )


def is_allowed(session: Session, user: User, exercise: Exercise, course_id: int) -> bool:
    """Whether ``user`` may submit ``exercise`` for course ``course_id`` (see the module docstring)."""
    assigns = session.scalar(
        select(AssignmentExercise.course_id).where(
            AssignmentExercise.course_id == course_id, AssignmentExercise.exercise_id == exercise.id
        )
    )
    if assigns is None:
        return False
    if is_admin(user):
        return True
    return (
        session.scalar(select(Membership.id).where(Membership.course_id == course_id, Membership.user_id == user.id))
        is not None
    )


def default_context(session: Session, user: User, exercise: Exercise, hinted: int | None = None) -> int | None:
    """The context when none is named: ``hinted`` (the link's course) when allowed, else the only
    course where ``user`` is a learner and that assigns ``exercise``, else None (practice)."""
    if hinted is not None and is_allowed(session, user, exercise, hinted):
        return hinted
    learning = session.scalars(
        select(Membership.course_id)
        .join(AssignmentExercise, AssignmentExercise.course_id == Membership.course_id)
        .where(
            Membership.user_id == user.id,
            Membership.role == CourseRole.learner,
            AssignmentExercise.exercise_id == exercise.id,
        )
        .limit(2)
    ).all()
    return learning[0] if len(learning) == 1 else None


def choose_context(
    session: Session,
    user: User,
    exercise: Exercise,
    requested: int | None | Unset = NOT_GIVEN,
    hinted: int | None = None,
) -> int | None:
    """The course id a new submission of ``user`` at ``exercise`` is made for (None: practice).

    ``requested`` is what the submitter named: a course id, None for practice, or
    :data:`NOT_GIVEN` (then :func:`default_context`). Raises :class:`ContextRefused` when the
    named course is not allowed.
    """
    if requested is NOT_GIVEN:
        return default_context(session, user, exercise, hinted)
    if requested is None:
        return None
    assert isinstance(requested, int)
    if not is_allowed(session, user, exercise, requested):
        raise ContextRefused(
            Bilingual(
                f"you cannot submit exercise {exercise.number} for course {requested}: you are not in that course, "
                "or none of its assignments includes this exercise; choose one of your courses or practice",
                f"你不能为课程 {requested} 提交练习 {exercise.number}：你不在该课程中，或其作业不含此练习；"
                "请选择你的课程之一或练习模式",
            )
        )
    return requested


def parse_course_field(raw: object) -> int | None | Unset:
    """A form's or a query string's ``course`` value: absent → :data:`NOT_GIVEN`, ``""`` → None
    (practice), digits → that id. Raises :class:`ContextRefused` for anything else."""
    if raw is None:
        return NOT_GIVEN
    text = str(raw).strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise ContextRefused(
            Bilingual(
                f'"course" is a course id (a whole number) or empty for practice; got {text[:40]!r}',
                f"“course” 是课程编号（整数），练习模式留空；收到的是 {text[:40]!r}",
            )
        )
    return int(text)
