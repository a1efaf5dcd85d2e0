"""Building courses, learners and graded attempts straight in the database, for course tests."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select

from judge.verdicts import Verdict
from web.access.contexts import NOT_GIVEN, Unset, default_context
from web.core.models import Course, Exercise, Grading, Role, Status, Submission, User
from web.teaching.courses import create_course, enroll, save_assignment

UTC = dt.UTC


def moment(text: str) -> dt.datetime:
    """An aware UTC datetime from ``2027-03-01 12:00``."""
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def user(session, name: str, role: Role = Role.learner) -> User:
    row = User(name=name, role=role)
    row.password_hash = "x"  # never signs in through a form
    session.add(row)
    session.flush()
    return row


def exercise(session, number: int) -> Exercise:
    row = session.scalar(select(Exercise).where(Exercise.number == number))
    assert row is not None, f"exercise {number} is not synced"
    return row


def attempt(session, learner: User, exercise_row: Exercise, at: dt.datetime | str, verdict: str = "AC",
            passed: int | None = None, total: int = 10, graded: bool = True,
            course: Course | None | Unset = NOT_GIVEN) -> Submission:
    """A submission made at ``at`` with one finished grading (unless ``graded`` is false), for
    ``course`` (None: practice; not given: the default the site would choose, see web.access.contexts)."""
    at = moment(at) if isinstance(at, str) else at
    course_id = context_of(session, learner, exercise_row, course)
    submission = Submission(user=learner, exercise=exercise_row, code=f"# {verdict}\n", created_at=at,
                            course_id=course_id)
    session.add(submission)
    if graded:
        passed = total if passed is None and verdict == "AC" else (passed if passed is not None else 0)
        row = Grading(status=Status.done, verdict=Verdict(verdict), score_passed=passed, score_total=total,
                      seed=1234, attempts=1, created_at=at, started_at=at, finished_at=at,
                      diagnosis=None if verdict == "AC" else f"mistake {verdict}",
                      failed_case=None if verdict == "AC" else "zipf",
                      report_json={"verdict": verdict, "score": {"passed": passed, "total": total}, "cases": []})
        submission.gradings.append(row)
        session.flush()
        submission.current_grading_id = row.id
    session.flush()
    return submission


def context_of(session, learner: User, exercise_row: Exercise, course: Course | None | Unset = NOT_GIVEN) -> int | None:
    """The course id a builder's submission is made for: ``course``'s, or the site's default."""
    if course is NOT_GIVEN:
        session.flush()
        return default_context(session, learner, exercise_row)
    return course.id if isinstance(course, Course) else None


def course_with_assignment(session, *, exercises=(1, 39), time_zone: str = "UTC", **assignment):
    """An instructor, a course with one assignment over ``exercises``; returns (teacher, course, assignment)."""
    teacher = user(session, f"teacher{session.scalar(select(User.id).order_by(User.id.desc()).limit(1)) or 0}",
                   Role.instructor)
    course = create_course(session, teacher, "Sampling 101", time_zone)
    fields = dict(title="Week 1", exercises=list(exercises), opens_at="2027-03-01T00:00Z",
                  due_at="2027-03-08T00:00Z")
    fields.update(assignment)
    work = save_assignment(session, course, **fields)
    return teacher, course, work


def learner_in(session, course, name: str) -> User:
    row = user(session, name)
    enroll(session, course, row)
    session.flush()
    return row
