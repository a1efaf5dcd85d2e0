"""The LMS roster sync in the JSON API, the twin of :mod:`web.lms.roster_pages`.

``POST /api/v1/courses/<id>/lti/roster-sync``: syncs every platform course linked to the course
(an instructor of it; bearer token as in :mod:`web.api.base`) and answers, per platform course,
what the sync did (``members``, ``added``, ``updated``, ``removed``, ``kept``: user names) or its
``error``; 200 even when a platform failed (the error is in its entry); a course that
is linked to no platform course offering Names and Roles is a 400 that says so. The route
needs no body; one that is sent must be a JSON object, as every POST's of the API.
"""

from __future__ import annotations

from flask import Blueprint, abort, g, request

from web.access.permissions import course_to_teach
from web.api.base import json_object, token_required
from web.lms.roster import RosterError, sync_roster
from web.lms.roster_pages import linked_contexts
from web.lms.service_client import ServiceError
from web.lms.services_job import client_for
from web.services import services

lti_api = Blueprint("lti_api", __name__, url_prefix="/api/v1")


@lti_api.post("/courses/<int:course_id>/lti/roster-sync")
@token_required
def api_roster_sync(course_id: int):
    course = course_to_teach(course_id, g.user)
    if request.get_data():
        json_object("{}")  # no body is needed; one that is sent is checked as every POST's
    contexts = linked_contexts(course.id)
    if not contexts:
        abort(400, description="this course is linked to no LMS course offering its roster")
    client, synced = client_for(services().sessions), []
    for context in contexts:
        entry: dict = {"context": context.context_id, "title": context.title}
        try:
            done = sync_roster(g.db, client, context)
        except (ServiceError, RosterError) as error:
            entry["error"] = str(error)[:500]
        else:
            entry.update(
                members=done.members, added=done.added, updated=done.updated, removed=done.removed, kept=done.kept
            )
        synced.append(entry)
    return {"course": course.id, "synced": synced}
