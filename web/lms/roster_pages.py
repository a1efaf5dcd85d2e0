"""The instructors' button that syncs a course's roster from its LMS, and what the course page shows of it.

``POST /courses/<id>/lti/roster-sync`` (an instructor of the course, a CSRF token): syncs every
platform course linked to the course (:func:`web.lms.roster.sync_roster`) and says what it did;
a platform that fails is a message on the course page, never an error page. The course page
(``courses/teach.html``) asks :func:`lti_roster_status` whether to show the button, through a
template global this blueprint adds: teaching's pages do not import this package.
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, url_for
from flask_login import current_user, login_required
from sqlalchemy import select

from web.access.permissions import course_to_teach
from web.core.forms import ConfirmForm
from web.core.i18n import t
from web.lms.models import LtiContext
from web.lms.roster import RosterError, last_sync, sync_roster
from web.lms.service_client import ServiceError
from web.lms.services_job import client_for
from web.services import services

roster_pages = Blueprint("lti_roster", __name__, url_prefix="/courses")


def linked_contexts(course_id: int) -> list[LtiContext]:
    """The platform courses linked to site course ``course_id`` that offer Names and Roles."""
    return list(
        g.db.scalars(
            select(LtiContext)
            .where(LtiContext.course_id == course_id, LtiContext.memberships_url.is_not(None))
            .order_by(LtiContext.id)
        )
    )


def lti_roster_status(course_id: int) -> list[dict]:
    """For the course page: each linked platform course's title and its last sync (or None)."""
    return [
        {"title": row.title or row.context_id, "last": last_sync(g.db, row.id)} for row in linked_contexts(course_id)
    ]


@roster_pages.app_context_processor
def _roster_globals() -> dict:
    return {"lti_roster_status": lti_roster_status}


@roster_pages.post("/<int:course_id>/lti/roster-sync")
@login_required
def sync_course_roster(course_id: int):
    course = course_to_teach(course_id, current_user)
    back = redirect(url_for("courses.show", course_id=course.id))
    if not ConfirmForm().validate_on_submit():
        abort(400)
    contexts = linked_contexts(course.id)
    if not contexts:
        flash(t("lti_roster_none"), "info")
        return back
    client = client_for(services().sessions)
    for context in contexts:
        title = context.title or context.context_id
        try:
            done = sync_roster(g.db, client, context)
        except (ServiceError, RosterError) as error:
            flash(t("lti_roster_failed", title=title, error=str(error)[:300]), "error")
            continue
        flash(
            t(
                "lti_roster_synced",
                title=title,
                members=done.members,
                added=len(done.added),
                updated=len(done.updated),
                removed=len(done.removed),
                kept=len(done.kept),
            ),
            "success",
        )
    return back
