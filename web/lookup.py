"""Finding what a URL names, for every page and API route: an exercise, a submission, or a 404.

One home for the rules: an exercise is named by number, slug or folder exactly as the CLI
resolves it (:func:`judge.exercise.resolve`) and must be synced to the site; a submission is
visible to its author and to those who teach its author (see :mod:`web.permissions`), and
anyone else gets the same 404 as for a number that does not exist (a 403 would confirm that it exists).
"""

from __future__ import annotations

from flask import abort, g
from sqlalchemy import select

from judge.exercise import Exercise as ExerciseSpec
from judge.exercise import ExerciseError, resolve
from web.models import Exercise, Submission, User
from web.permissions import may_see


def shown(identifier: str) -> str:
    """``identifier`` quoted for a message, cut short (it may be thousands of characters)."""
    return repr(identifier if len(identifier) <= 40 else identifier[:40] + "…")


def find_exercise(identifier: str) -> tuple[Exercise, ExerciseSpec]:
    """The exercise's row and its spec on disk; 404 (with a description for the API) otherwise."""
    try:
        spec = resolve(identifier)
    except (ExerciseError, ValueError):
        abort(404, description=f"no exercise {shown(identifier)}")
    row = g.db.scalar(select(Exercise).where(Exercise.number == spec.number))
    if row is None:
        abort(404, description=f"exercise {shown(identifier)} is not on this site yet")
    return row, spec


def visible_submission(submission_id: int, viewer: User) -> Submission:
    """Submission ``submission_id`` if ``viewer`` may see it (:func:`web.permissions.may_see`); else 404."""
    submission = g.db.get(Submission, submission_id)
    if submission is None or not may_see(g.db, viewer, submission):
        abort(404, description=f"no submission {submission_id}")
    return submission
