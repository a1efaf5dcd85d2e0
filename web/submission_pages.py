"""One submission: its verdict and per-case results (live while it is graded) and its code."""

from __future__ import annotations

from flask import Blueprint, g, render_template
from flask_login import current_user, login_required

from web.lookup import visible_submission
from web.presenting import submission_view
from web.visibility import access_for

submissions = Blueprint("submissions", __name__, url_prefix="/submissions")


@submissions.get("/<int:submission_id>")
@login_required
def show(submission_id: int):
    submission = visible_submission(submission_id, current_user)
    return render_template(
        "submissions/show.html",
        submission=submission,
        view=submission_view(submission, current_user, g.lang, access_for(g.db, current_user, submission)),
    )


@submissions.get("/<int:submission_id>/result")
@login_required
def result(submission_id: int):
    """The result region alone: what the page polls while the submission is queued or running."""
    submission = visible_submission(submission_id, current_user)
    return render_template(
        "submissions/_result.html",
        submission=submission,
        view=submission_view(submission, current_user, g.lang, access_for(g.db, current_user, submission)),
    )
