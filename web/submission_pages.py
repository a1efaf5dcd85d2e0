"""One submission: its verdict and per-case results (live while it is graded) and its code."""

from __future__ import annotations

from flask import Blueprint, abort, g, render_template
from flask_login import current_user, login_required

from web.models import Role, Submission
from web.presenting import submission_view

submissions = Blueprint("submissions", __name__, url_prefix="/submissions")


def _visible_submission(submission_id: int) -> Submission:
    submission = g.db.get(Submission, submission_id)
    if submission is None or (submission.user_id != current_user.id and current_user.role is not Role.instructor):
        abort(404)  # 404, not 403: do not confirm that someone else's submission exists
    return submission


@submissions.get("/<int:submission_id>")
@login_required
def show(submission_id: int):
    submission = _visible_submission(submission_id)
    return render_template("submissions/show.html", submission=submission,
                           view=submission_view(submission, current_user, g.lang))


@submissions.get("/<int:submission_id>/result")
@login_required
def result(submission_id: int):
    """The result region alone: what the page polls while the submission is queued or running."""
    submission = _visible_submission(submission_id)
    return render_template("submissions/_result.html", submission=submission,
                           view=submission_view(submission, current_user, g.lang))
