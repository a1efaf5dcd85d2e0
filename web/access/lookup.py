"""Finding what a URL names, for every page and API route: an exercise, a submission, or a 404.

One home for the rules: an exercise is named by number, slug or folder exactly as the CLI
resolves it (:func:`judge.exercises.exercise.resolve`) and must be synced to the site (for a course's
analytics, also be in one of its assignments: :func:`course_exercise`); a submission is
visible to its author and to those who teach the course it was made for (see :mod:`web.access.permissions`), and
anyone else gets the same 404 as for a number that does not exist (a 403 would confirm that it exists).
A request for a submission may ask to wait for its verdict (:func:`submission_when_graded`).
"""

from __future__ import annotations

import math

from flask import abort, g, request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import joinedload

from judge.exercises.exercise import Exercise as ExerciseSpec
from judge.exercises.exercise import resolve
from judge.exercises.folders import ExerciseError
from web.access.permissions import may_see
from web.core.models import ApiToken, AssignmentExercise, Course, Exercise, Submission, User, UserSession


def shown(identifier: str) -> str:
    """``identifier`` quoted for a message, cut short (it may be thousands of characters)."""
    return repr(identifier if len(identifier) <= 40 else identifier[:40] + "…")


# Built once: every submission asks.
_EXERCISE_NUMBERED = select(Exercise).where(Exercise.number == bindparam("p_number", type_=Exercise.number.type))


def find_exercise(identifier: str) -> tuple[Exercise, ExerciseSpec]:
    """The exercise's row and its spec on disk; 404 (with a description for the API) otherwise."""
    try:
        spec = resolve(identifier)
    except (ExerciseError, ValueError):
        abort(404, description=f"no exercise {shown(identifier)}")
    row = g.db.scalar(_EXERCISE_NUMBERED, {"p_number": spec.number})
    if row is None:
        abort(404, description=f"exercise {shown(identifier)} is not on this site yet")
    return row, spec


# Every page and route that shows a submission shows its exercise: one query for both.
_WITH_EXERCISE = (joinedload(Submission.exercise),)


def course_exercise(course: Course, identifier: str) -> Exercise:
    """The exercise ``identifier`` names, if one of the course's assignments has it; else a 404.

    A number is looked up in the site's records, not on disk: a course keeps its analytics of
    an exercise whose pack the site no longer serves. A slug goes through :func:`find_exercise`.
    """
    if identifier.isascii() and identifier.isdigit() and len(identifier) <= 6:
        found = g.db.scalar(select(Exercise).where(Exercise.number == int(identifier)))
        if found is None:
            abort(404, description=f"no exercise {identifier}")
        exercise = found
    else:
        exercise = find_exercise(identifier)[0]
    in_course = g.db.scalar(
        select(AssignmentExercise.exercise_id).where(
            AssignmentExercise.course_id == course.id, AssignmentExercise.exercise_id == exercise.id
        )
    )
    if in_course is None:
        abort(404, description=f"exercise {exercise.number} is in no assignment of this course")
    return exercise


def visible_submission(submission_id: int, viewer: User) -> Submission:
    """Submission ``submission_id`` if ``viewer`` may see it (:func:`web.access.permissions.may_see`); else 404."""
    submission = g.db.get(Submission, submission_id, options=_WITH_EXERCISE)
    if submission is None or not may_see(g.db, viewer, submission):
        abort(404, description=f"no submission {submission_id}")
    return submission


def wait_argument() -> float:
    """The request's ``?wait=S``: seconds to wait for a verdict, 0 without it. Aborts with 400
    unless S is a number from 0 to :data:`web.grading.queue.MAX_WAIT_SECONDS`."""
    from web.grading.queue import MAX_WAIT_SECONDS

    raw = request.args.get("wait")
    if raw is None:
        return 0.0
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not 0.0 <= seconds <= MAX_WAIT_SECONDS:  # NaN fails too
        abort(400, description=f"wait must be a number of seconds from 0 to {MAX_WAIT_SECONDS:g}, got {raw[:32]!r}")
    return seconds


def page_argument() -> int:
    """The request's ``?page=N`` (from 1; 1 when absent); a 400 for anything but 1 to 9 digits."""
    raw = (request.args.get("page") or "1").strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or int(raw) < 1:
        abort(400, description=f'"page" is a whole number from 1; got {raw[:40]!r}')
    return int(raw)


def submission_when_graded(submission_id: int, viewer: User) -> Submission:
    """:func:`visible_submission`, after waiting for its verdict as long as the request's
    ``?wait=S`` asks (see :meth:`web.grading.queue.GradingQueue.wait_for_verdict`); at once without it.
    The visibility check comes first, so waiting tells nobody anything about others' submissions."""
    from web.services import services

    wait_s = wait_argument()
    submission = visible_submission(submission_id, viewer)
    if wait_s and submission.current_grading_id is None:
        services().queue.wait_for_verdict(submission.id, wait_s)
        g.db.expire_all()  # read it again: its grading was written by another session
        if not still_signed_in(viewer):  # revoked while it waited: the answer is not theirs any more
            abort(401, description="your sign-in or API token was ended while this request waited")
        # And may they still see it? (Removed from its course while waiting: the 404 of any other.)
        submission = visible_submission(submission_id, viewer)
    return submission


def still_signed_in(viewer: User) -> bool:
    """Whether the credential this request came with (the API token ``token_required`` saw, else
    the sign-in session's token) is still live and still ``viewer``'s: a request that waited may
    have outlived it (revoked by an admin, a password change, signing out)."""
    token = g.get("api_token")
    if token is not None:
        owner = ApiToken.find_user(g.db, token)
        return owner is not None and owner.id == viewer.id
    login = getattr(viewer, "login_token", None)
    if login is None:
        return True  # no credential of this request to check again
    live = UserSession.find(g.db, login)
    return live is not None and live.user_id == viewer.id
