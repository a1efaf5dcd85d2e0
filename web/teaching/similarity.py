"""Similarity of submissions within a course: what is compared, running the check, storing and reading it.

Evidence for an instructor to look at, never a verdict: nothing here changes a score, and nothing
is shown to learners (every page and route asks :func:`web.access.permissions.course_to_examine`).

**What is compared.** For each learner of the course and each exercise in scope (one exercise,
one assignment's, or every exercise of the course's assignments), one submission: the attempt
that counts (:func:`web.teaching.counting.cells`: the best under the assignment's rules), or
when none counts (not graded yet, late under ``not_accepted``) the learner's latest attempt
made for the course. A later, worse attempt never replaces the counted one. Within each
exercise the sources are compared by the engine (:func:`judge.similarity.text.compare_sources`,
with :func:`~judge.similarity.text.boilerplate_for`: the starter, the reference and the
catalogued solutions are left out), the pairs are joined across exercises
(:func:`~judge.similarity.text.across_exercises`), and for each pair and exercise the two
gradings' behavioural fingerprints (``report_json["fingerprint"]``) are compared
(:func:`judge.similarity.behaviour.behaviour_match`).

**Where it runs.** Off the request, in a thread of the site (:func:`launch`): 200 learners and
3 exercises is about 60 000 comparisons: measured on a 2-core machine, 25 s an exercise with
copydetect (7 s to fingerprint 200 sources, 18 s for 19 900 comparisons), over a minute in all,
which no request may wait for. The row (:class:`~web.core.models.SimilarityReport`) is created ``queued`` and commits
its progress (exercises compared of those to compare) as it goes; its page reloads itself until it is
``done`` or ``failed``. A row left ``queued`` or ``running`` by a stopped site for longer than
:data:`STALE_AFTER` reads as interrupted (:func:`interrupted`), and a new run is asked for.

**What is stored** (``results``, JSON): ``exercises``: ``[{"id", "number", "compared"}]`` (how
many submissions were compared), ``pairs``: ranked best first, at most :data:`MAX_PAIRS`, each
``{"a", "b"`` (user ids, a < b), ``"score"`` (the engine's course score), ``"exercises": [{"id",
"number", "similarity", "a_submission", "b_submission", "fragments": [[a_start, a_end, b_start,
b_end], ...], "behaviour": {"compared", "identical", "strong"} or null}]}``, and ``truncated``
(pairs were cut at :data:`MAX_PAIRS`). Names are read when shown, so a report follows a renamed
account. A later run adds a row and never erases an earlier one.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge.exercises.exercise import Exercise as ExerciseSpec
from judge.exercises.exercise import resolve
from judge.exercises.folders import ExerciseError
from judge.similarity.behaviour import behaviour_match, common_hashes
from judge.similarity.text import ExercisePair, Source, across_exercises, boilerplate_for, clusters, compare_sources
from web.core.models import (
    Assignment,
    AssignmentExercise,
    Course,
    Exercise,
    Grading,
    SimilarityReport,
    SimilarityState,
    Submission,
    User,
    as_utc,
    utcnow,
)
from web.teaching.counting import attempts_query, cells

log = logging.getLogger(__name__)

DEFAULT_THRESHOLD = 0.5
MIN_THRESHOLD = 0.2  # below this nearly every pair of solutions to a short exercise is "similar"
MAX_PAIRS = 2000  # stored per report: more is no list a person reads
MAX_FRAGMENTS = 200  # per pair and exercise
STALE_AFTER = dt.timedelta(hours=1)


class SimilarityError(ValueError):
    """A check asked with a scope or threshold that is not this course's (the page says why)."""


def parse_threshold(text: Any, floor: float = MIN_THRESHOLD) -> float:
    """A share from ``floor`` to 1 (``0.8``); raises :class:`SimilarityError` for anything else."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise SimilarityError(f"the threshold is a number from {floor:g} to 1, such as 0.8") from None
    if not floor <= value <= 1.0:  # NaN fails both
        raise SimilarityError(f"the threshold is a number from {floor:g} to 1, such as 0.8")
    return value


@dataclass(frozen=True)
class Scope:
    """What a check compares: an assignment's exercises, one exercise, or (both None) the course's."""

    assignment: Assignment | None = None
    exercise: Exercise | None = None

    @property
    def value(self) -> str:
        """The form's and the API's name for it: ``course``, ``assignment:<id>``, ``exercise:<number>``."""
        if self.assignment is not None:
            return f"assignment:{self.assignment.id}"
        if self.exercise is not None:
            return f"exercise:{self.exercise.number}"
        return "course"


def course_exercises(session: Session, course: Course) -> list[tuple[Assignment, Exercise]]:
    """The course's exercises with their assignment, by assignment then number."""
    rows = session.execute(
        select(Assignment, Exercise)
        .join(AssignmentExercise, AssignmentExercise.assignment_id == Assignment.id)
        .join(Exercise, Exercise.id == AssignmentExercise.exercise_id)
        .where(Assignment.course_id == course.id)
        .order_by(Assignment.id, Exercise.number)
    ).all()
    return [(row[0], row[1]) for row in rows]


def parse_scope(session: Session, course: Course, value: str | None) -> Scope:
    """The :class:`Scope` that ``value`` names in ``course`` (None or ``course``: all of it);
    :class:`SimilarityError` for one that is not the course's."""
    if value in (None, "", "course"):
        return Scope()
    kind, _, key = str(value).partition(":")
    for assignment, exercise in course_exercises(session, course):
        if kind == "assignment" and key == str(assignment.id):
            return Scope(assignment=assignment)
        if kind == "exercise" and key == str(exercise.number):
            return Scope(exercise=exercise)
    raise SimilarityError("choose the whole course, one of its assignments or one of its exercises")


def scope_exercises(session: Session, course: Course, scope: Scope) -> list[Exercise]:
    """The exercises ``scope`` covers, by number, each once."""
    found = {}
    for assignment, exercise in course_exercises(session, course):
        if scope.assignment is not None and assignment.id != scope.assignment.id:
            continue
        if scope.exercise is not None and exercise.id != scope.exercise.id:
            continue
        found[exercise.id] = exercise
    return sorted(found.values(), key=lambda exercise: exercise.number)


def chosen_submissions(session: Session, course_id: int, exercise_ids: Iterable[int]) -> dict[int, dict[int, int]]:
    """exercise id → learner id → the submission compared (see the module docstring: the counted
    attempt, else the latest)."""
    wanted = set(exercise_ids)
    chosen: dict[int, dict[int, int]] = {exercise_id: {} for exercise_id in wanted}
    for (user_id, exercise_id), cell in cells(session, course_id).items():
        if exercise_id in wanted and cell.counted is not None and cell.submission_id is not None:
            chosen[exercise_id][user_id] = cell.submission_id
    attempts = attempts_query(course_id).subquery()
    ranked = select(
        attempts.c.user_id,
        attempts.c.exercise_id,
        attempts.c.submission_id,
        func.row_number()
        .over(
            partition_by=(attempts.c.user_id, attempts.c.exercise_id),
            order_by=(attempts.c.created_at.desc(), attempts.c.submission_id.desc()),
        )
        .label("rank"),
    ).subquery()
    latest = session.execute(
        select(ranked.c.user_id, ranked.c.exercise_id, ranked.c.submission_id).where(
            ranked.c.rank == 1, ranked.c.exercise_id.in_(wanted)
        )
    ).all()
    for user_id, exercise_id, submission_id in latest:
        chosen[exercise_id].setdefault(user_id, submission_id)
    return chosen


def start_check(session: Session, course: Course, scope: Scope, threshold: float, by: User) -> SimilarityReport:
    """A new ``queued`` report of ``course`` (committed); :func:`launch` runs it. Authorization
    is the caller's (:func:`web.access.permissions.course_to_examine`)."""
    exercises = scope_exercises(session, course, scope)
    report = SimilarityReport(
        course_id=course.id,
        assignment_id=scope.assignment.id if scope.assignment is not None else None,
        exercise_id=scope.exercise.id if scope.exercise is not None else None,
        created_by_id=by.id,
        threshold=threshold,
        parameters={"scope": scope.value, "exercises": [exercise.number for exercise in exercises]},
        state=SimilarityState.queued,
        total_count=len(exercises),
    )
    session.add(report)
    session.commit()
    return report


def launch(sessions: Callable[[], Session], report_id: int) -> threading.Thread:
    """Run report ``report_id`` in a daemon thread of the site, with its own session."""
    thread = threading.Thread(target=run_check, args=(sessions, report_id), name=f"similarity-{report_id}", daemon=True)
    thread.start()
    return thread


def _spec(exercise: Exercise) -> ExerciseSpec | None:
    try:
        return resolve(str(exercise.number))
    except (ExerciseError, ValueError):
        return None  # no longer on disk: compared without boilerplate or common draws


def _exercise_pairs(session: Session, exercise: Exercise, chosen: dict[int, int], threshold: float) -> list[dict]:
    """The pairs of learners at ``exercise`` at or above ``threshold``, as stored (module docstring)."""
    rows = session.execute(
        select(Submission.id, Submission.user_id, Submission.code, Grading.report_json)
        .outerjoin(Grading, Grading.id == Submission.current_grading_id)
        .where(Submission.id.in_(list(chosen.values())))
    ).all()
    by_user = {row.user_id: row for row in rows}
    spec = _spec(exercise)
    boilerplate = boilerplate_for(spec) if spec is not None else []
    common = common_hashes(spec) if spec is not None else {}
    sources = [Source(str(user_id), by_user[user_id].code) for user_id in sorted(by_user)]
    found = []
    for score in compare_sources(sources, boilerplate, threshold=threshold):
        a, b = sorted((int(score.left), int(score.right)))
        swapped = a != int(score.left)
        spans = [
            [*fragment.right, *fragment.left] if swapped else [*fragment.left, *fragment.right]
            for fragment in score.fragments[:MAX_FRAGMENTS]
        ]
        prints = [(by_user[who].report_json or {}).get("fingerprint") for who in (a, b)]
        behaviour = None
        if all(isinstance(p, dict) and p for p in prints):
            match = behaviour_match(prints[0], prints[1], common=common)  # type: ignore[arg-type]
            behaviour = {"compared": match.compared, "identical": match.identical, "strong": match.strong}
        found.append(
            {
                "a": a,
                "b": b,
                "id": exercise.id,
                "number": exercise.number,
                "similarity": round(float(score.similarity), 4),
                "a_submission": by_user[a].id,
                "b_submission": by_user[b].id,
                "fragments": spans,
                "behaviour": behaviour,
            }
        )
    return found


def run_check(sessions: Callable[[], Session], report_id: int) -> None:
    """Compare what report ``report_id`` covers and store it (module docstring); never raises:
    a failure is stored on the row (``failed``, with its error) for the page to say."""
    with sessions() as session:
        report = session.get(SimilarityReport, report_id)
        if report is None or report.state is not SimilarityState.queued:
            return  # another thread took it, or it is gone
        report.state = SimilarityState.running
        session.commit()
        try:
            exercises = session.scalars(
                select(Exercise).where(Exercise.number.in_(report.parameters.get("exercises", [])))
            ).all()
            chosen = chosen_submissions(session, report.course_id, [exercise.id for exercise in exercises])
            by_exercise: list[dict] = []
            details: dict[tuple[int, int], list[dict]] = {}
            for exercise in sorted(exercises, key=lambda row: row.number):
                for entry in _exercise_pairs(session, exercise, chosen[exercise.id], report.threshold):
                    details.setdefault((entry.pop("a"), entry.pop("b")), []).append(entry)
                by_exercise.append({"id": exercise.id, "number": exercise.number, "compared": len(chosen[exercise.id])})
                report.done_count += 1
                session.commit()
            pairs = [
                ExercisePair(str(entry["number"]), str(a), str(b), entry["similarity"])
                for (a, b), entries in details.items()
                for entry in entries
            ]
            ranked = across_exercises(pairs, threshold=report.threshold)
            stored = []
            for pair in ranked[:MAX_PAIRS]:
                a, b = sorted((int(pair.a), int(pair.b)))
                entries = [entry for entry in details.get((a, b), []) if str(entry["number"]) in pair.exercises]
                stored.append({"a": a, "b": b, "score": round(float(pair.score), 4), "exercises": entries})
            report.results = {"exercises": by_exercise, "pairs": stored, "truncated": len(ranked) > MAX_PAIRS}
            report.state = SimilarityState.done
        except Exception as error:  # stored for the page: a thread's exception reaches no one
            log.exception("similarity report %s failed", report_id)
            session.rollback()
            report = session.get(SimilarityReport, report_id)
            if report is None:
                return
            report.state, report.error = SimilarityState.failed, f"{type(error).__name__}: {error}"[:2000]
        report.finished_at = utcnow()
        session.commit()


def interrupted(report: SimilarityReport, now: dt.datetime | None = None) -> bool:
    """Whether ``report`` was left unfinished by a site that stopped (see :data:`STALE_AFTER`)."""
    if report.state not in (SimilarityState.queued, SimilarityState.running):
        return False
    return (now or utcnow()) - as_utc(report.created_at) > STALE_AFTER


def course_reports(session: Session, course_id: int, limit: int = 50) -> list[SimilarityReport]:
    """The course's reports, newest first."""
    return list(
        session.scalars(
            select(SimilarityReport)
            .where(SimilarityReport.course_id == course_id)
            .order_by(SimilarityReport.id.desc())
            .limit(limit)
        )
    )


@dataclass(frozen=True)
class ExerciseMatch:
    """One exercise of a pair: how similar the two submissions are, and how they drew."""

    exercise_id: int
    number: int
    similarity: float
    a_submission: int
    b_submission: int
    fragments: tuple[tuple[int, int, int, int], ...]
    compared: int | None  # probes whose draws were compared (None: no fingerprint to compare)
    identical: int | None
    strong: bool


@dataclass(frozen=True)
class Pair:
    """Two learners whose submissions look alike, as a report ranks them (``rank`` from 1)."""

    rank: int
    a: int
    b: int
    a_name: str
    b_name: str
    score: float
    top: float  # the highest similarity of its exercises: what the page's threshold filters on
    exercises: tuple[ExerciseMatch, ...]


def _match(entry: dict) -> ExerciseMatch:
    behaviour = entry.get("behaviour") or {}
    return ExerciseMatch(
        exercise_id=int(entry["id"]),
        number=int(entry["number"]),
        similarity=float(entry["similarity"]),
        a_submission=int(entry["a_submission"]),
        b_submission=int(entry["b_submission"]),
        fragments=tuple(tuple(int(x) for x in span) for span in entry.get("fragments", [])),  # type: ignore[misc]
        compared=behaviour.get("compared"),
        identical=behaviour.get("identical"),
        strong=bool(behaviour.get("strong", False)),
    )


def report_pairs(session: Session, report: SimilarityReport, threshold: float | None = None) -> list[Pair]:
    """The report's pairs whose best exercise is at or above ``threshold`` (None: the report's), ranked."""
    stored = (report.results or {}).get("pairs", [])
    ids = {pair[side] for pair in stored for side in ("a", "b")}
    names = {row[0]: row[1] for row in session.execute(select(User.id, User.name).where(User.id.in_(ids)))}
    floor = report.threshold if threshold is None else threshold
    found = []
    for rank, pair in enumerate(stored, start=1):
        matches = tuple(_match(entry) for entry in pair["exercises"])
        top = max((match.similarity for match in matches), default=0.0)
        if top + 1e-9 < floor:
            continue
        a, b = int(pair["a"]), int(pair["b"])
        found.append(Pair(rank, a, b, names.get(a, f"#{a}"), names.get(b, f"#{b}"), float(pair["score"]), top, matches))
    return found


def pair_clusters(pairs: Iterable[Pair]) -> list[list[str]]:
    """Groups of learners linked by the pairs (the engine's :func:`~judge.similarity.text.clusters`),
    as sorted names, largest group first; only groups of three or more (a group of two is a pair)."""
    listed = list(pairs)
    names = {pair.a: pair.a_name for pair in listed} | {pair.b: pair.b_name for pair in listed}
    groups = clusters((str(pair.a), str(pair.b)) for pair in listed)
    named = [sorted(names[int(key)] for key in group) for group in groups if len(group) > 2]
    return sorted(named, key=lambda group: (-len(group), group))


def report_pair(session: Session, report: SimilarityReport, rank: int) -> Pair | None:
    """The pair ranked ``rank`` in ``report`` (whatever the threshold), or None."""
    stored = (report.results or {}).get("pairs", [])
    if not 1 <= rank <= len(stored):
        return None
    return next((pair for pair in report_pairs(session, report, 0.0) if pair.rank == rank), None)


def highlighted(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` as HTML (every character escaped) with the ``[start, end)`` spans in ``<mark>``;
    overlapping spans are merged and spans outside the text are cut to it."""
    from markupsafe import escape

    merged: list[list[int]] = []
    for start, end in sorted((max(0, s), min(len(text), e)) for s, e in spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts, at = [], 0
    for start, end in merged:
        parts.append(str(escape(text[at:start])))
        parts.append(f"<mark>{escape(text[start:end])}</mark>")
        at = end
    parts.append(str(escape(text[at:])))
    return "".join(parts)
