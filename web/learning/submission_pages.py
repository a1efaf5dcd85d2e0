"""One submission: its verdict and per-case results (live while it is graded) and its code.

Those who teach the course it was made for (:func:`web.access.visibility.access_for` gives them the
full report) see it within the course: breadcrumbs (course › submissions › learner › #N), the
learner's attempts at the exercise made for that course (theirs, never the viewer's own), each
with its late flag and the score it counts for (:func:`web.teaching.counting.attempts_query`), links to
the previous and next attempt and to the diff with the previous one, its history of gradings,
and a button that rejudges it (``POST .../rejudge``).
``/submissions/<id>/results.json`` is the API's Gradescope-style export of it for a signed-in
browser (the same document, built by :func:`web.access.presenting.results_document`).
``/submissions/<a>/diff/<b>`` compares two attempts of one learner at one exercise: anyone
who may see both (the learner too) may open it. Its work is bounded (:mod:`web.teaching.diffing`: code
over the limits is offered as two downloads, ``/submissions/<id>/code``, instead), its result is
cached per pair for the app's life, and it is rate-limited per account.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from flask import Blueprint, Response, abort, current_app, flash, g, jsonify, redirect, render_template, url_for
from flask_login import current_user, login_required
from sqlalchemy import and_, or_, select
from wtforms import SubmitField

from web.access.lookup import submission_when_graded, visible_submission
from web.access.permissions import refuse_unless, teaches_context_of
from web.access.presenting import Access, grading_summary, results_document, submission_view
from web.access.visibility import access_for
from web.core.extensions import DIFF_LIMIT, account_key, limiter
from web.core.forms import SiteForm
from web.core.i18n import LazyText, localized
from web.core.models import Grading, Submission
from web.services import services
from web.teaching.counting import attempts_query
from web.teaching.deadlines import submission_lateness
from web.teaching.diffing import MAX_BYTES, MAX_LINES, DiffCache
from web.teaching.rejudging import NotGradableHere, rejudge_submission

submissions = Blueprint("submissions", __name__, url_prefix="/submissions")


class RejudgeForm(SiteForm):
    submit = SubmitField(LazyText("rejudge_submission"))


def neighbour(submission: Submission, later: bool) -> int | None:
    """The id of the same learner's attempt at the same exercise, made for the same course, just
    before (or after) this one: an instructor of one course never gets links to another's."""
    if later:
        position = or_(
            Submission.created_at > submission.created_at,
            and_(Submission.created_at == submission.created_at, Submission.id > submission.id),
        )
        order = (Submission.created_at.asc(), Submission.id.asc())
    else:
        position = or_(
            Submission.created_at < submission.created_at,
            and_(Submission.created_at == submission.created_at, Submission.id < submission.id),
        )
        order = (Submission.created_at.desc(), Submission.id.desc())
    return g.db.scalar(
        select(Submission.id)
        .where(
            Submission.user_id == submission.user_id,
            Submission.exercise_id == submission.exercise_id,
            Submission.course_id.is_(None)
            if submission.course_id is None
            else Submission.course_id == submission.course_id,
            position,
        )
        .order_by(*order)
        .limit(1)
    )


@dataclass(frozen=True)
class Attempt:
    """One of the learner's attempts at the exercise, as the course counts it."""

    id: int
    created_at: dt.datetime
    verdict: str | None  # None while not graded
    late: bool | None  # None: made outside an assignment's window (or as practice)
    counted: float | None  # the share of the score it counts for; None when it counts for nothing


def learner_attempts(submission: Submission) -> list[Attempt]:
    """The author's attempts at the submission's exercise made for the same course (or, for a
    practice submission, their practice attempts), oldest first, with what the course counts."""
    same_context = (
        Submission.course_id.is_(None) if submission.course_id is None else Submission.course_id == submission.course_id
    )
    query = (
        select(Submission.id, Submission.created_at, Grading.verdict)
        .outerjoin(Grading, Grading.id == Submission.current_grading_id)
        .where(Submission.user_id == submission.user_id, Submission.exercise_id == submission.exercise_id, same_context)
        .order_by(Submission.created_at, Submission.id)
    )
    if submission.course_id is None:
        return [Attempt(row[0], row[1], row[2].value if row[2] else None, None, None) for row in g.db.execute(query)]
    counted = attempts_query(submission.course_id).subquery()
    rows = g.db.execute(
        query.add_columns(counted.c.late, counted.c.counted).outerjoin(
            counted, counted.c.submission_id == Submission.id
        )
    )
    return [
        Attempt(row[0], row[1], row[2].value if row[2] else None, None if row[3] is None else bool(row[3]), row[4])
        for row in rows
    ]


def _instructor_extras(submission: Submission, access: Access) -> dict:
    if not access.instructor:
        return {}
    return {
        "attempts": learner_attempts(submission),
        "history": [grading_summary(grading, access, submission.current_grading_id) for grading in submission.gradings],
        "previous_id": neighbour(submission, later=False),
        "next_id": neighbour(submission, later=True),
        "rejudge_form": RejudgeForm(formdata=None),
    }


@submissions.get("/<int:submission_id>")
@login_required
def show(submission_id: int):
    submission = visible_submission(submission_id, current_user)
    access = access_for(g.db, current_user, submission)
    return render_template(
        "submissions/show.html",
        submission=submission,
        access=access,
        view=submission_view(submission, current_user, g.lang, access),
        lateness=submission_lateness(g.db, submission),
        **_instructor_extras(submission, access),
    )


@submissions.get("/<int:submission_id>/result")
@login_required
def result(submission_id: int):
    """The result region alone: what the page polls while the submission is queued or running
    (with ``?wait=S``, the answer comes when the verdict is in, or after S seconds)."""
    submission = submission_when_graded(submission_id, current_user)
    access = access_for(g.db, current_user, submission)
    return render_template(
        "submissions/_result.html",
        submission=submission,
        access=access,
        view=submission_view(submission, current_user, g.lang, access),
    )


@submissions.get("/<int:submission_id>/results.json")
@login_required
def results_json(submission_id: int):
    """The API's ``results.json`` for a signed-in browser: the link on the submission's page."""
    submission = visible_submission(submission_id, current_user)
    return jsonify(results_document(submission, current_user, g.lang, access_for(g.db, current_user, submission)))


@submissions.post("/<int:submission_id>/rejudge")
@login_required
def rejudge(submission_id: int):
    submission = visible_submission(submission_id, current_user)
    refuse_unless(teaches_context_of(g.db, current_user, submission), "rejudging")
    if not RejudgeForm().validate_on_submit():
        abort(400)
    try:
        requested = rejudge_submission(g.db, services().queue, submission, current_user)
    except NotGradableHere as refused:
        flash(localized(refused.text), "error")
        return redirect(url_for("submissions.show", submission_id=submission.id))
    return redirect(url_for("rejudges.show", rejudge_id=requested.rejudge.id))


@submissions.get("/<int:submission_id>/code")
@login_required
def code(submission_id: int):
    """The submission's code as a file to download (what a diff too large to show offers)."""
    submission = visible_submission(submission_id, current_user)
    disposition = f'attachment; filename="submission-{submission.id}.py"'
    return Response(submission.code, mimetype="text/x-python", headers={"Content-Disposition": disposition})


def _diff_cache() -> DiffCache:
    """This app's cache of diffs (per app: ids of two test sites' databases must not meet)."""
    return current_app.extensions.setdefault("probjudge_diffs", DiffCache())


@submissions.get("/<int:old_id>/diff/<int:new_id>")
@login_required
@limiter.limit(DIFF_LIMIT, key_func=account_key)
def diff(old_id: int, new_id: int):
    old = visible_submission(old_id, current_user)
    new = visible_submission(new_id, current_user)
    if old.user_id != new.user_id or old.exercise_id != new.exercise_id:
        return render_template("submissions/diff.html", old=old, new=new, refused=True), 400
    accesses = [access_for(g.db, current_user, attempt) for attempt in (old, new)]
    views = [
        submission_view(attempt, current_user, g.lang, access)
        for attempt, access in zip((old, new), accesses, strict=True)
    ]
    return render_template(
        "submissions/diff.html",
        old=old,
        new=new,
        refused=False,
        views=views,
        instructor=all(access.instructor for access in accesses),  # full times (web.access.presenting.shown_time)
        diff=_diff_cache().diff(old.id, old.code, new.id, new.code),
        diff_limits={"lines": MAX_LINES, "kib": MAX_BYTES // 1024},
    )
