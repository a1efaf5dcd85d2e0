"""Courses and assignments: creating them, joining, rosters, extensions and overrides.

The operations behind the instructor's pages and the course API, so both apply one set of
rules. Each adds rows to the session without committing (the caller commits once) and raises
:class:`CourseError` (a ``ValueError`` whose message is fit to show) for input it refuses;
authorization is the caller's (see :mod:`web.access.permissions`).

Rules worth knowing:

- a join code is 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L); it is read
  back case-insensitively, ignoring spaces and dashes;
- an exercise is in at most one assignment of a course, so each gradebook cell has one deadline;
- opens_at < due_at; a penalty per day is a share of the score in (0, 1];
- a roster CSV names accounts (one per row, the first column, or the column headed
  ``name``/``user``/``username``); :mod:`web.teaching.membership` invites the existing ones (joining is
  their act); unknown names are reported, not created: those learners sign up and join with
  the code;
- joining with the code settles a pending learner invitation of the course (accepted).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import secrets
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.i18n import Bilingual
from web.core.i18n import bilingual
from web.core.models import (
    Assignment,
    AssignmentExercise,
    Course,
    CourseRole,
    Exercise,
    Extension,
    ExtensionEvent,
    LatePolicy,
    Membership,
    Override,
    OverrideMode,
    User,
    Visibility,
    as_utc,
)
from web.core.moments import MomentError, parse_moment, zone
from web.core.validation import text_problem

JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8
MAX_TITLE = 200
MAX_ROSTER_BYTES = 1024 * 1024
MAX_ROSTER_ROWS = 5000
MAX_COMMENT = 2000
NAME_HEADERS = ("name", "user", "username", "user_name", "login")


class CourseError(ValueError):
    """Input a course operation refuses; the message says what is wrong and what to send.

    ``field`` names the input it is about (the API's key, e.g. ``due_at``), so that a page
    shows it under that field; ``shown`` is, where it differs, the wording for a page's reader
    in both languages (the message names the API's keys and formats; a form's reader types in a
    date-time picker and knows the field by its label).
    """

    def __init__(self, message: str, *, field: str | None = None, shown: Bilingual | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.shown = shown


def _title(text: object, what: str, field: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise CourseError(f"a {what} is required", field=field, shown=bilingual("required"))
    text = text.strip()
    if len(text) > MAX_TITLE:
        raise CourseError(
            f"a {what} has at most {MAX_TITLE} characters",
            field=field,
            shown=bilingual("error_too_long", most=MAX_TITLE),
        )
    problem = text_problem(text)
    if problem is not None:
        raise CourseError(f"the {what} cannot be used: {problem}", field=field)
    return text


def normalize_join_code(code: str) -> str:
    return "".join(code.split()).replace("-", "").upper()


def new_join_code(session: Session) -> str:
    """A join code no course has (see the module docstring)."""
    while True:
        code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
        if session.scalar(select(Course.id).where(Course.join_code == code)) is None:
            return code


def rotate_join_code(session: Session, course: Course) -> str:
    """Give ``course`` a new join code; the old one stops working with this commit."""
    course.join_code = new_join_code(session)
    return course.join_code


def create_course(session: Session, creator: User, name: object, time_zone: object = "UTC") -> Course:
    """A new course with ``creator`` as its first instructor."""
    if not isinstance(time_zone, str):
        raise CourseError("the time zone is an IANA name such as 'Europe/Berlin'", field="time_zone")
    try:
        zone(time_zone)
    except MomentError as error:
        raise CourseError(str(error), field="time_zone") from None
    course = Course(
        name=_title(name, "course name", "name"),
        join_code=new_join_code(session),
        time_zone=time_zone,
        created_by_id=creator.id,
    )
    session.add(course)
    session.flush()
    session.add(Membership(course_id=course.id, user_id=creator.id, role=CourseRole.instructor))
    return course


def enroll(session: Session, course: Course, user: User, role: CourseRole = CourseRole.learner) -> bool:
    """Make ``user`` a member of ``course`` with ``role``; True when something changed.

    An instructor stays an instructor when added as a learner (a roster never demotes anyone);
    a learner added as an instructor is promoted.
    """
    membership = session.scalar(
        select(Membership).where(Membership.course_id == course.id, Membership.user_id == user.id)
    )
    if membership is None:
        session.add(Membership(course_id=course.id, user_id=user.id, role=role))
        return True
    if role is CourseRole.instructor and membership.role is not CourseRole.instructor:
        membership.role = CourseRole.instructor
        return True
    return False


def roster_names(data: bytes | str) -> list[str]:
    """The user names in a roster CSV (see the module docstring), in order, without repeats."""
    if isinstance(data, bytes):
        if len(data) > MAX_ROSTER_BYTES:
            raise CourseError(f"a roster file has at most {MAX_ROSTER_BYTES // 1024} KiB")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CourseError("the roster is not UTF-8 text; save it as CSV (UTF-8)") from None
    problem = text_problem(data)
    if problem is not None:
        raise CourseError(f"the roster cannot be read: {problem}")
    try:
        rows = [row for row in csv.reader(io.StringIO(data)) if any(cell.strip() for cell in row)]
    except csv.Error as error:
        raise CourseError(f"the roster is not valid CSV: {error}") from None
    if len(rows) > MAX_ROSTER_ROWS:
        raise CourseError(f"a roster has at most {MAX_ROSTER_ROWS} rows")
    column = 0
    if rows:
        header = [cell.strip().lower() for cell in rows[0]]
        named = [index for index, cell in enumerate(header) if cell in NAME_HEADERS]
        if named:
            column, rows = named[0], rows[1:]
    names: list[str] = []
    seen: set[str] = set()  # not ``in names``: that is quadratic in the rows
    for row in rows:
        name = row[column].strip() if column < len(row) else ""
        if name and name not in seen:
            seen.add(name)
            names.append(name)
    if not names:
        raise CourseError("the roster names nobody: one user name per row, or a column headed 'name'")
    return names


def _moment(value: object, course: Course, what: str) -> dt.datetime:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise CourseError(f"{what} needs a time zone", field=what)
        return value.astimezone(dt.UTC)
    shown = bilingual("error_moment_format", zone=course.time_zone)
    if not isinstance(value, str):
        raise CourseError(f"{what} is an ISO 8601 date-time such as 2027-03-14T23:59", field=what, shown=shown)
    try:
        return parse_moment(value, course.time_zone)
    except MomentError as error:
        raise CourseError(f"{what}: {error}", field=what, shown=shown) from None


# Other spellings people (and scripts written against other judges) use for a late policy.
LATE_POLICY_ALIASES = {
    "none": "not_accepted",
    "reject": "not_accepted",
    "rejected": "not_accepted",
    "no_late": "not_accepted",
    "penalty_per_day": "penalty",
    "accepted_with_penalty": "penalty",
    "accept_with_penalty": "penalty",
    "flag": "flagged",
    "accepted_flagged": "flagged",
    "accepted_and_flagged": "flagged",
    "accept_and_flag": "flagged",
}


def _enum(kind, value: object, what: str, aliases: dict[str, str] | None = None):
    """``value`` as a member of ``kind``: the member itself, its value in any case with spaces or
    dashes for underscores, or one of ``aliases``; else a :class:`CourseError` naming the choices."""
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        value = value.strip().lower().replace("-", "_").replace(" ", "_")
        value = (aliases or {}).get(value, value)
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(member.value for member in kind)
        raise CourseError(f"{what} is one of {choices}", field=what) from None


def _exercises(session: Session, course: Course, identifiers: object, assignment: Assignment | None) -> list[Exercise]:
    from judge.exercises.exercise import resolve
    from judge.exercises.folders import ExerciseError

    if not isinstance(identifiers, list) or not identifiers:
        raise CourseError(
            '"exercises" is a non-empty list of exercise numbers or slugs',
            field="exercises",
            shown=bilingual("error_no_exercise_chosen"),
        )
    found: list[Exercise] = []
    for identifier in identifiers:
        if not isinstance(identifier, (str, int)) or isinstance(identifier, bool):
            raise CourseError("each exercise is a number or a slug", field="exercises")
        try:
            number = resolve(str(identifier)).number
        except (ExerciseError, ValueError):
            raise CourseError(f"no exercise {str(identifier)[:40]!r}", field="exercises") from None
        row = session.scalar(select(Exercise).where(Exercise.number == number))
        if row is None:
            raise CourseError(f"exercise {number} is not on this site yet", field="exercises")
        if row in found:
            raise CourseError(f"exercise {number} is listed twice", field="exercises")
        elsewhere = session.scalar(
            select(Assignment)
            .join(AssignmentExercise, AssignmentExercise.assignment_id == Assignment.id)
            .where(AssignmentExercise.course_id == course.id, AssignmentExercise.exercise_id == row.id)
        )
        if elsewhere is not None and elsewhere is not assignment:
            raise CourseError(
                f"exercise {number} is already in the assignment {elsewhere.title!r} of this course",
                field="exercises",
                shown=bilingual("error_exercise_elsewhere", number=number, title=elsewhere.title),
            )
        found.append(row)
    return found


def save_assignment(
    session: Session,
    course: Course,
    *,
    title: object,
    exercises: object,
    opens_at: object,
    due_at: object,
    late_policy: object = LatePolicy.not_accepted,
    penalty_per_day: object = 0.0,
    visibility_before: object = Visibility.rule,
    visibility_after: object = Visibility.rule,
    assignment: Assignment | None = None,
) -> Assignment:
    """Create an assignment of ``course`` (or change ``assignment``) from checked values.

    Date-times are ISO 8601 strings (or aware datetimes); without an offset they are the
    course's wall-clock time (see :func:`web.core.moments.parse_moment`).
    """
    title = _title(title, "title", "title")
    opens, due = _moment(opens_at, course, "opens_at"), _moment(due_at, course, "due_at")
    if not opens < due:
        raise CourseError(
            "the due date-time must come after the opening one",
            field="due_at",
            shown=bilingual("error_due_after_opens"),
        )
    policy = _enum(LatePolicy, late_policy, "late_policy", LATE_POLICY_ALIASES)
    if isinstance(penalty_per_day, bool) or not isinstance(penalty_per_day, (int, float)):
        raise CourseError(
            "penalty_per_day is a number: the share of the score lost per day late, e.g. 0.1", field="penalty_per_day"
        )
    penalty = float(penalty_per_day)
    if policy is LatePolicy.penalty and not 0 < penalty <= 1:
        raise CourseError(
            "with the penalty policy, penalty_per_day is more than 0 and at most 1 (0.1 = 10% a day)",
            field="penalty_per_day",
            shown=bilingual("error_penalty_range"),
        )
    if policy is not LatePolicy.penalty:
        penalty = 0.0
    before = _enum(Visibility, visibility_before, "visibility_before")
    after = _enum(Visibility, visibility_after, "visibility_after")
    rows = _exercises(session, course, exercises, assignment)
    if assignment is None:
        assignment = Assignment(course_id=course.id)
        session.add(assignment)
    assignment.title, assignment.opens_at, assignment.due_at = title, opens, due
    assignment.late_policy, assignment.penalty_per_day = policy, penalty
    assignment.visibility_before, assignment.visibility_after = before, after
    assignment.items.clear()
    session.flush()
    for position, row in enumerate(rows):
        assignment.items.append(
            AssignmentExercise(exercise_id=row.id, course_id=course.id, position=position, exercise=row)
        )
    session.flush()
    return assignment


def grant_extension(
    session: Session, assignment: Assignment, learner: User, due_at: object, granted_by: User
) -> Extension:
    """Give ``learner`` a later due date on ``assignment`` (replacing an earlier extension; the
    history keeps both as :class:`~web.core.models.ExtensionEvent` rows)."""
    due = _moment(due_at, assignment.course, "due_at")
    if due <= as_utc(assignment.due_at):
        raise CourseError(
            "an extension's due date-time comes after the assignment's",
            field="due_at",
            shown=bilingual("error_extension_after_due"),
        )
    if (
        session.scalar(
            select(Membership.id).where(
                Membership.course_id == assignment.course_id,
                Membership.user_id == learner.id,
                Membership.role == CourseRole.learner,
            )
        )
        is None
    ):
        raise CourseError(f"{learner.name!r} is not a learner of this course", field="learner")
    extension = session.scalar(
        select(Extension).where(Extension.assignment_id == assignment.id, Extension.user_id == learner.id)
    )
    if extension is None:
        extension = Extension(assignment_id=assignment.id, user_id=learner.id)
        session.add(extension)
    extension.due_at, extension.granted_by_id, extension.granted_at = due, granted_by.id, dt.datetime.now(dt.UTC)
    session.add(ExtensionEvent(assignment_id=assignment.id, user_id=learner.id, due_at=due, by_id=granted_by.id))
    return extension


def withdraw_extension(session: Session, assignment: Assignment, learner: User, by: User) -> None:
    """Take back ``learner``'s extension on ``assignment``: their due date is the assignment's
    again (the counting follows at once); the history gains the withdrawal."""
    extension = session.scalar(
        select(Extension).where(Extension.assignment_id == assignment.id, Extension.user_id == learner.id)
    )
    if extension is None:
        raise CourseError(f"{learner.name!r} has no extension on this assignment")
    session.delete(extension)
    session.add(ExtensionEvent(assignment_id=assignment.id, user_id=learner.id, due_at=None, by_id=by.id))


def extension_history(session: Session, assignment: Assignment) -> Sequence[ExtensionEvent]:
    """Every grant and withdrawal of an extension on ``assignment``, newest first."""
    return session.scalars(
        select(ExtensionEvent).where(ExtensionEvent.assignment_id == assignment.id).order_by(ExtensionEvent.id.desc())
    ).all()


def override_score(
    session: Session,
    course: Course,
    learner: User,
    exercise: Exercise,
    score: object,
    comment: object,
    by: User,
    mode: object = OverrideMode.replace.value,
) -> Override:
    """Record ``by``'s score (a share 0..1 of the exercise's point) for ``learner``, with a comment,
    and its ``mode`` (an :class:`~web.core.models.OverrideMode` or its value): ``replace`` (the score
    is the cell's) or ``at_least`` (the better of it and the computed score)."""
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= float(score) <= 1:
        raise CourseError("an override's score is a number from 0 to 1 (a share of the exercise's point)")
    modes = [choice.value for choice in OverrideMode]
    mode = mode.value if isinstance(mode, OverrideMode) else mode
    if not isinstance(mode, str) or mode not in modes:
        raise CourseError(f"an override's mode is one of {', '.join(modes)}")
    if not isinstance(comment, str) or not comment.strip():
        raise CourseError("an override needs a comment: the learner reads why their score changed")
    if len(comment) > MAX_COMMENT:
        raise CourseError(f"a comment has at most {MAX_COMMENT} characters")
    problem = text_problem(comment)
    if problem is not None:
        raise CourseError(f"the comment cannot be used: {problem}")
    in_course = session.scalar(
        select(AssignmentExercise.exercise_id).where(
            AssignmentExercise.course_id == course.id, AssignmentExercise.exercise_id == exercise.id
        )
    )
    if in_course is None:
        raise CourseError(f"exercise {exercise.number} is in no assignment of this course")
    override = Override(
        course_id=course.id,
        user_id=learner.id,
        exercise_id=exercise.id,
        score=float(score),
        comment=comment.strip(),
        mode=OverrideMode(mode),
        by_id=by.id,
    )
    session.add(override)
    return override


def withdraw_override(session: Session, course: Course, learner: User, exercise: Exercise, by: User) -> Override:
    """Withdraw the override in force on ``learner``'s ``exercise``: a new row that means "no
    override", so the graded score counts again and the history keeps both."""
    newest = session.scalar(
        select(Override)
        .where(Override.course_id == course.id, Override.user_id == learner.id, Override.exercise_id == exercise.id)
        .order_by(Override.id.desc())
        .limit(1)
    )
    if newest is None or newest.withdrawn:
        raise CourseError(f"no override is in force for {learner.name!r} on exercise {exercise.number}")
    row = Override(
        course_id=course.id,
        user_id=learner.id,
        exercise_id=exercise.id,
        score=0.0,
        comment="",
        by_id=by.id,
        withdrawn=True,
    )
    session.add(row)
    return row


def learners(session: Session, course: Course) -> Sequence[User]:
    """The course's learners, by name."""
    return session.scalars(
        select(User)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.course_id == course.id, Membership.role == CourseRole.learner)
        .order_by(User.name_key)
    ).all()


def instructors(session: Session, course: Course) -> Sequence[User]:
    return session.scalars(
        select(User)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.course_id == course.id, Membership.role == CourseRole.instructor)
        .order_by(User.name_key)
    ).all()


def courses_of(session: Session, user: User) -> Sequence[tuple[Course, CourseRole]]:
    """The courses ``user`` is in, with their role, newest first."""
    return session.execute(
        select(Course, Membership.role)
        .join(Membership, Membership.course_id == Course.id)
        .where(Membership.user_id == user.id)
        .order_by(Course.id.desc())
    ).all()
