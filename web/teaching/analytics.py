"""Mistake analytics of a course: what its learners tried, when, how soon they got AC, what failed.

Every figure is over the attempts the course counts (:func:`web.teaching.counting.attempts_query`: its
learners' submissions to its assignments' exercises since each assignment opened, late ones
included), for one exercise of the course or for the whole course. The database aggregates
(``GROUP BY``, ``COUNT(DISTINCT)``, window functions); Python only shapes results whose size is
the number of days, diagnoses or cases, never the number of attempts.

Definitions:

- an attempt is a submission; a *graded* attempt has a current grading whose verdict is not IE
  (the judge's failure says nothing of the learner);
- ``share_accepted``: learners with an AC among learners who attempted; ``ac_share_of_graded``:
  AC attempts among graded attempts (None where the denominator is 0);
- attempts until the first AC: per (learner, exercise), the position of the first AC among its
  attempts in time order (every attempt counts, as in the gradebook); 10 and more share a bucket,
  and pairs without an AC are ``never``;
- a failing case is a grading's ``failed_case`` (its first failed case) of one exercise, titled as
  the newest report naming it titles it; a diagnosis is the grading's English ``diagnosis`` on one
  exercise (the same text on two exercises is two diagnoses), shown with its Chinese text
  ``diagnosis_zh``;
- ties: cases and diagnoses come most attempts first, equal counts by name (then exercise), and
  each carries its rank by attempts, equal for equal counts ("1, 2, 2, 4");
- days are calendar days in the course's time zone. The database numbers the day of each
  attempt after adding the zone's UTC offset, one offset per span between the zone's changes
  (daylight saving), so each attempt lands on its local day and learners are counted once a day.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import DateTime, Integer, Select, and_, case, func, literal, select, union_all
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import ColumnElement, FunctionElement

from judge.verdicts import Verdict
from web.core.models import Assignment, AssignmentExercise, Exercise, Grading, Submission, User, as_utc
from web.core.moments import zone
from web.teaching.counting import attempts_query

TOP_BUCKET = 10  # attempts until the first AC: 1, 2, …, 9, "10+"
LEARNERS_SHOWN = 20  # names listed beside each diagnosis; the rest on its own page or in the API
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()


class local_day_number(FunctionElement):
    """Days since 1970-01-01 of ``moment + offset_seconds`` (the moment stored in UTC), as an integer."""

    type = Integer()
    inherit_cache = True
    name = "local_day_number"


@compiles(local_day_number, "sqlite")
def _local_day_sqlite(element, compiler, **kw) -> str:
    moment, offset = (compiler.process(clause, **kw) for clause in element.clauses)
    # strftime('%s') is whole seconds since the epoch; moments here are after 1970, so / truncates as floor.
    return f"((CAST(strftime('%s', {moment}) AS INTEGER) + {offset}) / 86400)"


@compiles(local_day_number, "postgresql")
def _local_day_postgresql(element, compiler, **kw) -> str:
    moment, offset = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"CAST(FLOOR((EXTRACT(EPOCH FROM {moment}) + {offset}) / 86400.0) AS INTEGER)"


@dataclass(frozen=True)
class DayCount:
    day: dt.date  # in the course's time zone
    attempts: int
    learners: int


@dataclass(frozen=True)
class CaseCount:
    case: str  # its name (a slug, as reports write it)
    exercise_number: int
    title: str  # as its newest report titles it; the name when no report does
    title_zh: str | None
    attempts: int
    learners: int
    rank: int = 1  # by attempts, equal for equal counts


@dataclass(frozen=True)
class LearnerLink:
    """A learner behind a diagnosis, with their newest submission that got it."""

    user_id: int
    name: str
    submission_id: int


@dataclass(frozen=True)
class DiagnosisCount:
    diagnosis: str
    diagnosis_zh: str | None
    exercise_number: int
    attempts: int
    learners: int
    shown: tuple[LearnerLink, ...]  # the first LEARNERS_SHOWN by name (all of them when asked for)
    rank: int = 1  # by attempts, equal for equal counts


def competition_ranks(counts: Sequence[int]) -> list[int]:
    """The rank of each of ``counts`` (sorted most first): 1 plus how many are larger, so that equal
    counts share a rank and the next one skips ("1, 2, 2, 4")."""
    ranks: list[int] = []
    for position, count in enumerate(counts):
        ranks.append(ranks[-1] if position and counts[position - 1] == count else position + 1)
    return ranks


@dataclass(frozen=True)
class Totals:
    attempts: int
    learners: int
    learners_accepted: int
    graded: int  # attempts with a verdict other than IE
    accepted: int  # AC attempts

    @property
    def share_accepted(self) -> float | None:
        return self.learners_accepted / self.learners if self.learners else None

    @property
    def ac_share_of_graded(self) -> float | None:
        return self.accepted / self.graded if self.graded else None


@dataclass(frozen=True)
class FirstAccepted:
    """Attempts until the first AC: ``counts[k]`` pairs got it at attempt k (``TOP_BUCKET``: k or later)."""

    counts: dict[int, int]
    never: int

    def labelled(self) -> list[tuple[str, int]]:
        """("1", n), …, ("10+", n), ("never", n): the buckets in order, empty ones included."""
        buckets = [(str(k), self.counts.get(k, 0)) for k in range(1, TOP_BUCKET)]
        return [*buckets, (f"{TOP_BUCKET}+", self.counts.get(TOP_BUCKET, 0)), ("never", self.never)]


@dataclass(frozen=True)
class Analytics:
    """Everything the analytics page of an exercise (or of the whole course) shows."""

    totals: Totals
    over_time: list[DayCount]
    first_accepted: FirstAccepted
    failing_cases: list[CaseCount]
    diagnoses: list[DiagnosisCount]


@dataclass(frozen=True)
class ExerciseRow:
    """One exercise of the course overview."""

    exercise_id: int
    number: int
    title_en: str
    title_zh: str
    totals: Totals
    top_diagnosis: str | None  # the first by name of those tied at the top
    top_diagnosis_zh: str | None
    top_diagnosis_attempts: int
    tied_at_top: tuple[tuple[str, str | None], ...] = ()  # every (diagnosis, diagnosis_zh) with that count, by name


def attempts_with_grading(course_id: int, exercise_id: int | None = None) -> Select:
    """:func:`web.teaching.counting.attempts_query` with the grading's ``diagnosis``, ``diagnosis_zh`` and
    ``failed_case`` (from the grading it already joins), for one exercise or all of the course's."""
    query = attempts_query(course_id).add_columns(
        Grading.diagnosis.label("diagnosis"),
        Grading.diagnosis_zh.label("diagnosis_zh"),
        Grading.failed_case.label("failed_case"),
    )
    if exercise_id is not None:
        query = query.where(Submission.exercise_id == exercise_id)
    return query


def _is_graded(attempts) -> ColumnElement[bool]:
    return and_(attempts.c.grading_id.is_not(None), attempts.c.verdict != Verdict.IE)


def _totals_columns(attempts) -> list:
    accepted = attempts.c.verdict == Verdict.AC
    return [
        func.count().label("attempts"),
        func.count(func.distinct(attempts.c.user_id)).label("learners"),
        func.count(func.distinct(case((accepted, attempts.c.user_id)))).label("learners_accepted"),
        func.sum(case((_is_graded(attempts), 1), else_=0)).label("graded"),
        func.sum(case((accepted, 1), else_=0)).label("accepted"),
    ]


def _totals(row) -> Totals:
    # int(): PostgreSQL sums integers as NUMERIC (a Decimal here).
    return Totals(
        attempts=int(row.attempts or 0),
        learners=int(row.learners or 0),
        learners_accepted=int(row.learners_accepted or 0),
        graded=int(row.graded or 0),
        accepted=int(row.accepted or 0),
    )


def offset_spans(time_zone: str, first: dt.datetime, last: dt.datetime) -> list[tuple[dt.datetime | None, int]]:
    """The zone's UTC offsets between ``first`` and ``last``: [(until, offset seconds), …], in time
    order; each offset holds before ``until`` (UTC) and after the previous span, the last one's
    ``until`` is None. Changes are found day by day, then to the second by bisection."""
    place = zone(time_zone)

    def offset(moment: dt.datetime) -> int:
        return int(moment.astimezone(place).utcoffset().total_seconds())  # type: ignore[union-attr]

    spans: list[tuple[dt.datetime | None, int]] = []
    moment, current = as_utc(first), offset(as_utc(first))
    last = as_utc(last)
    while moment < last:
        step = min(moment + dt.timedelta(days=1), last)
        if offset(step) != current:
            before, after = moment, step  # the change is in (before, after]
            while after - before > dt.timedelta(seconds=1):
                middle = before + (after - before) / 2
                before, after = (middle, after) if offset(middle) == current else (before, middle)
            change = after.replace(microsecond=0)
            if offset(change) == current:  # bisection left a fraction of a second
                change += dt.timedelta(seconds=1)
            spans.append((change, current))
            current = offset(change)
        moment = step
    spans.append((None, current))
    return spans


def _local_day(attempts, spans: Sequence[tuple[dt.datetime | None, int]]) -> ColumnElement[int]:
    created = attempts.c.created_at
    if len(spans) == 1:
        return local_day_number(created, literal(spans[0][1]))
    branches = [
        (created < literal(until, DateTime(timezone=True)), local_day_number(created, literal(offset)))
        for until, offset in spans[:-1]
    ]
    return case(*branches, else_=local_day_number(created, literal(spans[-1][1])))


def over_time(session: Session, attempts, time_zone: str, first: dt.datetime, last: dt.datetime) -> list[DayCount]:
    """Attempts and distinct learners per local day (days without an attempt are left out)."""
    # Grouped in an outer query: PostgreSQL would not match the offsets' parameters of a GROUP BY expression.
    dated = select(
        _local_day(attempts, offset_spans(time_zone, first, last)).label("day"), attempts.c.user_id
    ).subquery()
    rows = session.execute(
        select(
            dated.c.day, func.count().label("attempts"), func.count(func.distinct(dated.c.user_id)).label("learners")
        )
        .group_by(dated.c.day)
        .order_by(dated.c.day)
    )
    return [DayCount(dt.date.fromordinal(_EPOCH_ORDINAL + row.day), row.attempts, row.learners) for row in rows]


def totals_and_first_accepted(session: Session, attempts) -> tuple[Totals, FirstAccepted]:
    """The totals, and how many (learner, exercise) pairs got their first AC at their k-th attempt
    (and never), in one pass over the attempts: both are read from one row per pair."""
    pair = (attempts.c.user_id, attempts.c.exercise_id)
    ranked = select(
        attempts.c.user_id,
        attempts.c.exercise_id,
        (attempts.c.verdict == Verdict.AC).label("accepted"),
        _is_graded(attempts).label("graded"),
        func.row_number()
        .over(partition_by=pair, order_by=(attempts.c.created_at, attempts.c.submission_id))
        .label("position"),
    ).subquery()
    pairs = (
        select(
            ranked.c.user_id,
            func.count().label("attempts"),
            func.sum(case((ranked.c.graded, 1), else_=0)).label("graded"),
            func.sum(case((ranked.c.accepted, 1), else_=0)).label("accepted"),
            func.min(case((ranked.c.accepted, ranked.c.position))).label("first"),
        )
        .group_by(ranked.c.user_id, ranked.c.exercise_id)
        .cte("pairs")  # read twice below: the database computes it once
    )
    bucketed = select(
        case((pairs.c.first.is_(None), 0), (pairs.c.first >= TOP_BUCKET, TOP_BUCKET), else_=pairs.c.first).label(
            "bucket"
        )
    ).subquery()
    whole = select(
        literal(-1).label("bucket"),
        func.sum(pairs.c.attempts).label("attempts"),
        func.count(func.distinct(pairs.c.user_id)).label("learners"),
        func.count(func.distinct(case((pairs.c.first.is_not(None), pairs.c.user_id)))).label("learners_accepted"),
        func.sum(pairs.c.graded).label("graded"),
        func.sum(pairs.c.accepted).label("accepted"),
    )
    # Grouped in an outer query: PostgreSQL would not match the parameters of a GROUP BY expression.
    per_bucket = select(bucketed.c.bucket, func.count(), literal(0), literal(0), literal(0), literal(0)).group_by(
        bucketed.c.bucket
    )
    totals, counts = Totals(0, 0, 0, 0, 0), {}
    for row in session.execute(union_all(whole, per_bucket)):
        if row.bucket == -1:
            totals = _totals(row)
        else:
            counts[int(row.bucket)] = int(row.attempts)  # here: how many pairs
    never = counts.pop(0, 0)
    return totals, FirstAccepted(counts=counts, never=never)


def failing_cases(session: Session, attempts) -> list[CaseCount]:
    """Each case (of each exercise) named first failed, with its title, attempts and distinct
    learners, most attempts first, then by name and exercise; ranked (ties share a rank)."""
    case_name = attempts.c.failed_case
    counted = (
        select(
            case_name,
            attempts.c.exercise_id,
            func.count().label("attempts"),
            func.count(func.distinct(attempts.c.user_id)).label("learners"),
            func.max(attempts.c.grading_id).label("newest_grading"),
        )
        .where(case_name.is_not(None))
        .group_by(case_name, attempts.c.exercise_id)
        .subquery()
    )
    rows = session.execute(
        select(counted, Exercise.number, Grading.report_json)
        .join(Exercise, Exercise.id == counted.c.exercise_id)
        .join(Grading, Grading.id == counted.c.newest_grading)
        .order_by(counted.c.attempts.desc(), counted.c.failed_case, Exercise.number)
    ).all()
    ranks = competition_ranks([row.attempts for row in rows])
    found = []
    for row, rank in zip(rows, ranks, strict=True):
        title, title_zh = _case_title(row.report_json, row.failed_case)
        found.append(CaseCount(row.failed_case, row.number, title, title_zh, row.attempts, row.learners, rank))
    return found


def _case_title(report: object, name: str) -> tuple[str, str | None]:
    """The English and Chinese titles of case ``name`` in a stored report (its name when none)."""
    cases = report.get("cases") if isinstance(report, dict) else None
    for entry in cases if isinstance(cases, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name and isinstance(entry.get("title"), str):
            title_zh = entry.get("title_zh")
            return entry["title"] or name, title_zh if isinstance(title_zh, str) and title_zh else None
    return name, None


def _diagnosis_rows(attempts, limit: int | None, only: str | None = None) -> Select:
    """One row per (diagnosis, exercise, learner), the first ``limit`` learners of each diagnosis
    by name (None: all), with the diagnosis' totals: ``diagnosis``, ``diagnosis_zh``, ``number``
    (the exercise's), ``attempts`` and ``learners`` (of the diagnosis), ``user_id``, ``name``,
    ``submission_id`` (the learner's newest with it). Only diagnosis ``only`` when given. Most
    attempts first, equal counts by the diagnosis' text, then the exercise's number."""
    diagnosed = attempts.c.diagnosis.is_not(None) if only is None else attempts.c.diagnosis == only
    per_learner = (
        select(
            attempts.c.diagnosis,
            attempts.c.exercise_id,
            attempts.c.user_id,
            func.max(attempts.c.diagnosis_zh).label("diagnosis_zh"),
            func.count().label("tries"),
            func.max(attempts.c.submission_id).label("submission_id"),
        )
        .where(diagnosed)
        .group_by(attempts.c.diagnosis, attempts.c.exercise_id, attempts.c.user_id)
        .subquery()
    )
    same = (per_learner.c.diagnosis, per_learner.c.exercise_id)
    ranked = (
        select(
            per_learner.c.diagnosis,
            per_learner.c.user_id,
            per_learner.c.submission_id,
            User.name,
            Exercise.number,
            func.max(per_learner.c.diagnosis_zh).over(partition_by=same).label("diagnosis_zh"),
            func.sum(per_learner.c.tries).over(partition_by=same).label("attempts"),
            func.count().over(partition_by=same).label("learners"),
            func.row_number().over(partition_by=same, order_by=(User.name_key, User.id)).label("position"),
        )
        .join(User, User.id == per_learner.c.user_id)
        .join(Exercise, Exercise.id == per_learner.c.exercise_id)
        .subquery()
    )
    query = select(ranked).order_by(ranked.c.attempts.desc(), ranked.c.diagnosis, ranked.c.number, ranked.c.position)
    return query if limit is None else query.where(ranked.c.position <= limit)


def diagnoses(session: Session, attempts, learners_shown: int | None = LEARNERS_SHOWN) -> list[DiagnosisCount]:
    """Each diagnosis (of each exercise) with its attempts, distinct learners and the first
    ``learners_shown`` of them by name (None: all), most attempts first; ranked (ties share a rank)."""
    found: dict[tuple[str, int], DiagnosisCount] = {}
    for row in session.execute(_diagnosis_rows(attempts, learners_shown)):
        link = LearnerLink(row.user_id, row.name, row.submission_id)
        key = (row.diagnosis, row.number)
        known = found.get(key)
        if known is None:
            found[key] = DiagnosisCount(
                row.diagnosis, row.diagnosis_zh, row.number, int(row.attempts), int(row.learners), (link,)
            )
        else:
            found[key] = replace(known, shown=(*known.shown, link))
    rows = list(found.values())
    ranks = competition_ranks([row.attempts for row in rows])
    return [replace(row, rank=rank) for row, rank in zip(rows, ranks, strict=True)]


def learners_with_diagnosis(
    session: Session, course_id: int, diagnosis: str, exercise_id: int | None = None
) -> list[LearnerLink]:
    """Every learner of the course with an attempt diagnosed ``diagnosis`` (on any of its exercises
    unless ``exercise_id``), once each with their newest such submission, by name."""
    attempts = attempts_with_grading(course_id, exercise_id).subquery()
    newest: dict[int, LearnerLink] = {}
    for row in session.execute(_diagnosis_rows(attempts, None, diagnosis)):
        known = newest.get(row.user_id)
        if known is None or row.submission_id > known.submission_id:
            newest[row.user_id] = LearnerLink(row.user_id, row.name, row.submission_id)
    return sorted(newest.values(), key=lambda link: (link.name.casefold(), link.user_id))


def _opened(session: Session, course_id: int, exercise_id: int | None) -> dt.datetime | None:
    """When the first assignment (with ``exercise_id``, when given) of the course opened: no attempt counts before."""
    query = (
        select(func.min(Assignment.opens_at))
        .join(AssignmentExercise, AssignmentExercise.assignment_id == Assignment.id)
        .where(AssignmentExercise.course_id == course_id)
    )
    if exercise_id is not None:
        query = query.where(AssignmentExercise.exercise_id == exercise_id)
    opened = session.scalar(query)
    return _moment(opened) if opened is not None else None


def _newest_submission(session: Session) -> dt.datetime | None:
    """The newest submission's date-time on the whole site (read from its index): no attempt is later."""
    newest = session.scalar(select(func.max(Submission.created_at)))
    return _moment(newest) if newest is not None else None


def analytics(
    session: Session,
    course_id: int,
    time_zone: str,
    exercise_id: int | None = None,
    learners_shown: int | None = LEARNERS_SHOWN,
) -> Analytics:
    """The analytics of one exercise of the course (``exercise_id``) or of the whole course."""
    attempts = attempts_with_grading(course_id, exercise_id).subquery()
    totals, first = totals_and_first_accepted(session, attempts)
    opened = _opened(session, course_id, exercise_id)
    if not totals.attempts or opened is None:
        return Analytics(totals, [], first, [], [])
    return Analytics(
        totals=totals,
        over_time=over_time(session, attempts, time_zone, opened, _newest_submission(session) or opened),
        first_accepted=first,
        failing_cases=failing_cases(session, attempts),
        diagnoses=diagnoses(session, attempts, learners_shown),
    )


def _moment(value: dt.datetime | str) -> dt.datetime:
    """A MIN/MAX of a date-time column: SQLite answers the stored text, not a datetime."""
    return as_utc(dt.datetime.fromisoformat(value) if isinstance(value, str) else value)


def overview(session: Session, course_id: int) -> list[ExerciseRow]:
    """One row per exercise of the course's assignments (by number), tried or not."""
    attempts = attempts_with_grading(course_id).subquery()
    per_exercise = {
        row.exercise_id: row
        for row in session.execute(
            select(attempts.c.exercise_id, *_totals_columns(attempts)).group_by(attempts.c.exercise_id)
        )
    }
    counted = (
        select(
            attempts.c.exercise_id,
            attempts.c.diagnosis,
            func.max(attempts.c.diagnosis_zh).label("diagnosis_zh"),
            func.count().label("attempts"),
        )
        .where(attempts.c.diagnosis.is_not(None))
        .group_by(attempts.c.exercise_id, attempts.c.diagnosis)
        .subquery()
    )
    ranked = select(
        counted,
        func.rank().over(partition_by=counted.c.exercise_id, order_by=counted.c.attempts.desc()).label("position"),
    ).subquery()
    top: dict[int, list] = {}  # every diagnosis tied at the top, by name
    for row in session.execute(
        select(ranked).where(ranked.c.position == 1).order_by(ranked.c.exercise_id, ranked.c.diagnosis)
    ):
        top.setdefault(row.exercise_id, []).append(row)
    exercises = session.execute(
        select(Exercise)
        .join(AssignmentExercise, AssignmentExercise.exercise_id == Exercise.id)
        .where(AssignmentExercise.course_id == course_id)
        .order_by(Exercise.number)
    ).scalars()
    rows = []
    for exercise in exercises:
        found, tied = per_exercise.get(exercise.id), top.get(exercise.id, [])
        best = tied[0] if tied else None
        rows.append(
            ExerciseRow(
                exercise_id=exercise.id,
                number=exercise.number,
                title_en=exercise.title_en,
                title_zh=exercise.title_zh,
                totals=_totals(found) if found is not None else Totals(0, 0, 0, 0, 0),
                top_diagnosis=best.diagnosis if best is not None else None,
                top_diagnosis_zh=best.diagnosis_zh if best is not None else None,
                top_diagnosis_attempts=best.attempts if best is not None else 0,
                tied_at_top=tuple((row.diagnosis, row.diagnosis_zh) for row in tied),
            )
        )
    return rows
