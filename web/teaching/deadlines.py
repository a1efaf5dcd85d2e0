"""Deadlines where the learner works: what the exercise page, the submit, the submission page and
the courses list say about due times, time left, lateness and what late work counts for.

Every figure comes from :mod:`web.teaching.counting`'s rules, never a copy of them: the effective due
date is :func:`web.teaching.counting.effective_due_at` (an extension's, else the assignment's) and the
share a late attempt counts for is :func:`web.teaching.counting.late_share` (the database's date
arithmetic, as the gradebook's). A submission is late when made after its effective due time
(at the due time itself it is on time); the time that decides is the server's, when it stores
the submission.

Times are shown in the course's zone, to the second (:func:`web.core.moments.show`), since a second
decides lateness.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from sqlalchemy import Select, and_, select
from sqlalchemy.orm import Session

from web.core.i18n import t
from web.core.models import (
    Assignment,
    AssignmentExercise,
    Course,
    CourseRole,
    Extension,
    LatePolicy,
    Membership,
    Submission,
    Visibility,
    as_utc,
    utcnow,
)
from web.core.moments import show
from web.teaching.counting import effective_due_at, late_share

UPCOMING_DAYS = 14  # how far ahead the courses list looks
_DAY, _HOUR, _MINUTE = 86400, 3600, 60
# How much of the hidden cases each level shows, most first (to say "limited ... until").
_LEVEL_RANK = {Visibility.rule: 2, Visibility.diagnosis: 1, Visibility.nothing: 0}


@dataclass(frozen=True)
class Deadline:
    """One assignment's due time for one learner: ``due_at`` is the effective one (UTC),
    ``extended`` whether an extension set it."""

    course: Course
    assignment: Assignment
    due_at: dt.datetime
    extended: bool

    @property
    def due_text(self) -> str:
        return show(self.due_at, self.course.time_zone, seconds=True)

    @property
    def assignment_due_text(self) -> str:
        return show(self.assignment.due_at, self.course.time_zone, seconds=True)

    def left_text(self, now: dt.datetime | None = None) -> str:
        return time_left(self.due_at, now)

    @property
    def policy_text(self) -> str:
        return policy_words(self.assignment.late_policy, self.assignment.penalty_per_day)

    def hidden_note(self, now: dt.datetime | None = None) -> str | None:
        return hidden_details_note(self.assignment, self.course, self.due_at, now)


def _deadlines_query(user_id: int) -> Select:
    """(course, assignment, effective due, extension's due) of every assignment of the courses
    where ``user_id`` is a learner."""
    return (
        select(Course, Assignment, effective_due_at(), Extension.due_at)
        .select_from(Membership)
        .join(Course, Course.id == Membership.course_id)
        .join(Assignment, Assignment.course_id == Course.id)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == Membership.user_id))
        .where(Membership.user_id == user_id, Membership.role == CourseRole.learner)
    )


def _deadlines(session: Session, query: Select) -> list[Deadline]:
    return [
        Deadline(course, assignment, as_utc(due), extended is not None)
        for course, assignment, due, extended in session.execute(query)
    ]


def exercise_deadlines(session: Session, user_id: int, exercise_id: int) -> list[Deadline]:
    """The assignments of ``user_id``'s courses (as a learner) that include ``exercise_id``, by due time."""
    query = _deadlines_query(user_id).join(
        AssignmentExercise,
        and_(AssignmentExercise.assignment_id == Assignment.id, AssignmentExercise.exercise_id == exercise_id),
    )
    return _deadlines(session, query.order_by(effective_due_at(), Course.name))


def upcoming_deadlines(session: Session, user_id: int, now: dt.datetime | None = None) -> list[Deadline]:
    """``user_id``'s effective due times in the next :data:`UPCOMING_DAYS` days, soonest first."""
    moment = as_utc(now or utcnow())
    due = effective_due_at()
    query = _deadlines_query(user_id).where(due > moment, due <= moment + dt.timedelta(days=UPCOMING_DAYS))
    return _deadlines(session, query.order_by(due, Course.name, Assignment.title))


@dataclass(frozen=True)
class Lateness:
    """How late a submission made at ``at`` is for its course: ``late_s`` seconds after the
    effective due time (0: on time), and ``share``, what it counts for as a factor of its score
    (1.0 on time; None: nothing, under ``not_accepted``)."""

    deadline: Deadline
    at: dt.datetime
    late_s: int
    share: float | None
    before_opening: bool = False

    @property
    def late(self) -> bool:
        return self.late_s > 0

    @property
    def warns(self) -> bool:
        """Whether a submit at this moment asks first: late work that counts less, or not at all."""
        return self.late and (self.share is None or self.share < 1.0)

    def text(self) -> str:
        """ "late by 13 s, counted 90 %" (or on time, or not counted), in the request's language."""
        if self.before_opening:
            return t("lateness_before_opening")
        if not self.late:
            return t("lateness_on_time")
        if self.share is None:
            return t("lateness_not_counted", late=span(self.late_s))
        return t("lateness_counted", late=span(self.late_s), share=percent(self.share))

    def warning(self) -> str:
        """The question a late submit asks before it is accepted."""
        if self.share is None:
            return t("late_warning_not_counted", late=span(self.late_s))
        return t("late_warning", late=span(self.late_s), share=percent(self.share))


def _context_deadline(session: Session, user_id: int, course_id: int, exercise_id: int) -> Deadline | None:
    """The deadline of the assignment of ``course_id`` that includes ``exercise_id``, for ``user_id``
    (whatever their role: an instructor testing their course is judged by the same clock)."""
    query = (
        select(Course, Assignment, effective_due_at(), Extension.due_at)
        .join(Assignment, Assignment.course_id == Course.id)
        .join(
            AssignmentExercise,
            and_(AssignmentExercise.assignment_id == Assignment.id, AssignmentExercise.exercise_id == exercise_id),
        )
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == user_id))
        .where(Course.id == course_id)
    )
    found = _deadlines(session, query)
    return found[0] if found else None


def lateness(
    session: Session, user_id: int, course_id: int | None, exercise_id: int, at: dt.datetime | None = None
) -> Lateness | None:
    """How a submission of ``user_id`` at ``exercise_id`` for ``course_id`` made at ``at`` (default
    now) stands against its deadline; None for practice or when the course no longer assigns it."""
    if course_id is None:
        return None
    deadline = _context_deadline(session, user_id, course_id, exercise_id)
    if deadline is None:
        return None
    moment = as_utc(at or utcnow())
    assignment = deadline.assignment
    share = late_share(session, moment, deadline.due_at, assignment.late_policy, assignment.penalty_per_day)
    late_s = max(0, math.ceil((moment - deadline.due_at).total_seconds()))
    return Lateness(deadline, moment, late_s, share, before_opening=moment < as_utc(assignment.opens_at))


def submission_lateness(session: Session, submission: Submission) -> Lateness | None:
    """:func:`lateness` of a stored submission, at the time it was made (what the gradebook counts)."""
    return lateness(session, submission.user_id, submission.course_id, submission.exercise_id, submission.created_at)


def span(seconds: float) -> str:
    """A duration in words, its two largest units: "13 s", "3 min 5 s", "2 h 5 min", "2 days 3 h"."""
    whole = max(0, math.ceil(seconds))
    days, rest = divmod(whole, _DAY)
    hours, rest = divmod(rest, _HOUR)
    minutes, secs = divmod(rest, _MINUTE)
    if days:
        text = t("span_days", n=days)
        return text + (" " + t("span_hours", n=hours) if hours else "")
    if hours:
        return t("span_hours", n=hours) + (" " + t("span_minutes", n=minutes) if minutes else "")
    if minutes:
        return t("span_minutes", n=minutes) + (" " + t("span_seconds", n=secs) if secs else "")
    return t("span_seconds", n=secs)


def time_left(due_at: dt.datetime, now: dt.datetime | None = None) -> str:
    """ "2 days 3 h left", "due in 14 min", or "closed 3 h ago"."""
    left = (as_utc(due_at) - as_utc(now or utcnow())).total_seconds()
    if left < 0:
        return t("deadline_closed", span=span(-left))
    if left >= _DAY:
        return t("deadline_left", span=span(left))
    return t("deadline_due_in", span=span(left))


def percent(share: float) -> str:
    """0.9 → "90 %"; 0.875 → "87.5 %"."""
    return f"{round(share * 100, 2):g} %"


def policy_words(policy: LatePolicy, penalty_per_day: float | None) -> str:
    """The late policy as :func:`web.teaching.counting.late_multiplier` applies it, in words."""
    rate = float(penalty_per_day or 0.0)
    if policy is LatePolicy.not_accepted or (policy is LatePolicy.penalty and rate >= 1.0):
        return t("policy_not_accepted")
    if policy is LatePolicy.flagged or rate <= 0.0:
        return t("policy_flagged")
    last = math.ceil(1.0 / rate)  # the first started day late at which nothing is left
    while last > 1 and 1.0 - rate * (last - 1) <= 0.0:
        last -= 1
    while 1.0 - rate * last > 0.0:
        last += 1
    return t("policy_penalty", rate=percent(rate), first=percent(1.0 - rate), days=last - 1)


def hidden_details_note(
    assignment: Assignment, course: Course, due_at: dt.datetime, now: dt.datetime | None = None
) -> str | None:
    """ "Hidden test details are limited to … until …; after that you will see …" while the
    assignment shows less of the hidden cases before the (effective) due time than after."""
    before, after = assignment.visibility_before, assignment.visibility_after
    if as_utc(now or utcnow()) >= as_utc(due_at) or _LEVEL_RANK[before] >= _LEVEL_RANK[after]:
        return None
    return t(
        "hidden_details_limited",
        before=t(f"visibility_{before.value}"),
        due=show(due_at, course.time_zone, seconds=True),
        after=t(f"visibility_{after.value}"),
    )
