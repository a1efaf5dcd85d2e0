"""All submissions of a course, for its instructors: one SQL query, filtered and paged.

The rows are the attempts the course counts (:func:`web.teaching.counting.attempts_query`: its learners'
submissions to its assignments' exercises since each assignment opened), newest first, with the
learner, the exercise and the current grading. Filters narrow them in SQL; a page holds at most
:data:`MAX_PER_PAGE` rows and the total is counted by the database, so a course of 200 000
attempts costs one indexed query per page, never a loop in Python.

:func:`parse_filter` reads the filters from a query string (the page's form and the API share
it); text it cannot use raises :class:`FilterError` with a message that says what to type.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Select, func, or_, select
from sqlalchemy.orm import Session

from judge.verdicts import Verdict
from web.core.models import Exercise, Grading, User
from web.core.moments import MomentError, parse_moment
from web.core.names import name_key
from web.core.validation import text_problem
from web.teaching.counting import attempts_query

DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 200
MAX_FILTER_TEXT = 200  # a longer filter text matches nothing a name or a diagnosis holds


class FilterError(ValueError):
    """A filter that cannot be used; the message names the field and what to type."""


@dataclass(frozen=True)
class SubmissionFilter:
    """What to list: every field optional; date-times in UTC (``until`` exclusive)."""

    user: str = ""  # a part of the learner's name, any case
    exercise: int | None = None  # an exercise number
    verdict: Verdict | None = None
    diagnosis: str = ""  # a part of the diagnosis, any case, English or Chinese
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    late_only: bool = False


@dataclass(frozen=True)
class ListedSubmission:
    """One row of the list."""

    submission_id: int
    user: str
    exercise: int
    verdict: Verdict | None  # None while not graded yet
    score_passed: int | None
    score_total: int | None
    diagnosis: str | None
    diagnosis_zh: str | None
    created_at: dt.datetime
    late: bool


@dataclass(frozen=True)
class SubmissionPage:
    rows: list[ListedSubmission]
    page: int  # 1-based
    per_page: int
    total: int  # rows matching the filter, on every page

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))


def _text(args: Mapping[str, str], key: str) -> str:
    value = (args.get(key) or "").strip()
    if len(value) > MAX_FILTER_TEXT:
        raise FilterError(f'"{key}" is at most {MAX_FILTER_TEXT} characters')
    problem = text_problem(value)
    if problem is not None:  # a NUL or a lone surrogate: no database can compare it
        raise FilterError(f'"{key}": {problem}')
    return value


def _whole_number(args: Mapping[str, str], key: str, default: int | None) -> int | None:
    value = _text(args, key)
    if not value:
        return default
    if not (value.isascii() and value.isdigit()) or len(value) > 9:
        raise FilterError(f'"{key}" is a whole number, e.g. 2; got {value[:40]!r}')
    return int(value)


def _moment(args: Mapping[str, str], key: str, time_zone: str, *, end_of_day: bool) -> dt.datetime | None:
    """A date-time typed in the course's zone (or with an offset). With ``end_of_day`` it is an
    exclusive end that includes what was typed: a bare date's next day ("to 2027-03-02" includes
    that day), or just past the moment typed."""
    value = _text(args, key)
    if not value:
        return None
    try:
        if len(value) == 10 and end_of_day:
            return parse_moment((dt.date.fromisoformat(value) + dt.timedelta(days=1)).isoformat(), time_zone)
        moment = parse_moment(value, time_zone)
    except (MomentError, ValueError) as error:
        raise FilterError(f'"{key}": {error}') from None
    return moment + dt.timedelta(microseconds=1) if end_of_day else moment


def parse_filter(args: Mapping[str, str], time_zone: str) -> SubmissionFilter:
    """The filter a query string names: ``user``, ``exercise``, ``verdict``, ``diagnosis``,
    ``from``/``to`` (ISO dates or date-times in ``time_zone``), ``late`` (any non-empty value)."""
    verdict_code = _text(args, "verdict").upper()
    try:
        verdict = Verdict(verdict_code) if verdict_code else None
    except ValueError:
        codes = ", ".join(v.value for v in Verdict)
        raise FilterError(f'"verdict" is one of {codes}; got {verdict_code[:40]!r}') from None
    return SubmissionFilter(
        user=_text(args, "user"),
        exercise=_whole_number(args, "exercise", None),
        verdict=verdict,
        diagnosis=_text(args, "diagnosis"),
        since=_moment(args, "from", time_zone, end_of_day=False),
        until=_moment(args, "to", time_zone, end_of_day=True),
        late_only=bool(_text(args, "late")),
    )


def parse_paging(args: Mapping[str, str]) -> tuple[int, int]:
    """``page`` (from 1) and ``per_page`` (1 to :data:`MAX_PER_PAGE`, larger values are capped)."""
    page = _whole_number(args, "page", 1) or 1
    per_page = _whole_number(args, "per_page", DEFAULT_PER_PAGE) or DEFAULT_PER_PAGE
    return page, min(per_page, MAX_PER_PAGE)


def _contains(column, text: str):
    return func.lower(column).contains(text.lower(), autoescape=True)


def submissions_query(course_id: int, wanted: SubmissionFilter) -> Select:
    """The course's counted attempts matching ``wanted``, newest first (see :class:`ListedSubmission`)."""
    attempts = attempts_query(course_id).subquery()
    query = (
        select(
            attempts.c.submission_id,
            User.name,
            Exercise.number,
            attempts.c.verdict,
            Grading.score_passed,
            Grading.score_total,
            Grading.diagnosis,
            Grading.diagnosis_zh,
            attempts.c.created_at,
            attempts.c.late,
        )
        .join(User, User.id == attempts.c.user_id)
        .join(Exercise, Exercise.id == attempts.c.exercise_id)
        .outerjoin(Grading, Grading.id == attempts.c.grading_id)
    )
    if wanted.user:
        query = query.where(User.name_key.contains(name_key(wanted.user), autoescape=True))
    if wanted.exercise is not None:
        query = query.where(Exercise.number == wanted.exercise)
    if wanted.verdict is not None:
        query = query.where(attempts.c.verdict == wanted.verdict)
    if wanted.diagnosis:
        query = query.where(
            or_(_contains(Grading.diagnosis, wanted.diagnosis), _contains(Grading.diagnosis_zh, wanted.diagnosis))
        )
    if wanted.since is not None:
        query = query.where(attempts.c.created_at >= wanted.since)
    if wanted.until is not None:
        query = query.where(attempts.c.created_at < wanted.until)
    if wanted.late_only:
        query = query.where(attempts.c.late.is_(True))
    return query.order_by(attempts.c.created_at.desc(), attempts.c.submission_id.desc())


def list_submissions(
    session: Session, course_id: int, wanted: SubmissionFilter, page: int = 1, per_page: int = DEFAULT_PER_PAGE
) -> SubmissionPage:
    """One page of the course's submissions matching ``wanted``, and how many match in all."""
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    page = max(1, page)
    query = submissions_query(course_id, wanted)
    total = session.scalar(select(func.count()).select_from(query.order_by(None).subquery())) or 0
    rows = session.execute(query.limit(per_page).offset((page - 1) * per_page)).all()
    listed = [
        ListedSubmission(
            submission_id=row[0],
            user=row[1],
            exercise=row[2],
            verdict=Verdict(row[3]) if isinstance(row[3], str) else row[3],
            score_passed=row[4],
            score_total=row[5],
            diagnosis=row[6],
            diagnosis_zh=row[7],
            created_at=row[8],
            late=bool(row[9]),
        )
        for row in rows
    ]
    return SubmissionPage(rows=listed, page=page, per_page=per_page, total=total)
