"""The course side of the JSON API, ``/api/v1``: courses, invitations, people, assignments,
extensions, overrides (granting and withdrawing) and rejudges (the gradebook, submission lists,
analytics and exports have their own modules). Bearer tokens and error bodies as in
:mod:`web.api.base`; authorization through :mod:`web.access.permissions` (a course one does not teach is a
404, an instructor route used by a learner a 403). What takes something away (leaving, removing
a member, a new join code) needs ``"confirm": true`` in its body, as the pages' box.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, jsonify, request
from sqlalchemy import select

from web.access.lookup import find_exercise, visible_submission
from web.access.permissions import (
    course_to_attend,
    course_to_teach,
    invitation_of,
    invitation_to_answer,
    may_create_courses,
    may_see_rejudge,
    refuse_unless,
    teaches,
    teaches_context_of,
)
from web.access.presenting import minute
from web.api.base import json_object, token_required
from web.core.extensions import join_code_limits
from web.core.models import Assignment, Course, CourseRole, Invitation, Membership, Rejudge, User
from web.core.moments import iso
from web.services import services
from web.teaching.courses import (
    CourseError,
    create_course,
    grant_extension,
    override_score,
    rotate_join_code,
    save_assignment,
    withdraw_extension,
    withdraw_override,
)
from web.teaching.membership import (
    accept,
    add_instructor,
    add_roster,
    decline,
    invitations_for,
    invitations_in,
    join,
    remove_member,
    withdraw,
)
from web.teaching.rejudging import (
    NotGradableHere,
    Requested,
    outcome,
    rejudge_assignment,
    rejudge_exercise,
    rejudge_submission,
)

course_api = Blueprint("course_api", __name__, url_prefix="/api/v1")


def course_json(course: Course, role: CourseRole | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": course.id,
        "name": course.name,
        "time_zone": course.time_zone,
        # A learner gets the minute, as for every time they see (web.access.presenting.shown_time).
        "created_at": iso(course.created_at if role is not CourseRole.learner else minute(course.created_at)),
    }
    if role is not None:
        data["role"] = role.value
    if role is CourseRole.instructor or role is None:
        data["join_code"] = course.join_code
    return data


def assignment_json(assignment: Assignment) -> dict[str, Any]:
    return {
        "id": assignment.id,
        "course": assignment.course_id,
        "title": assignment.title,
        "exercises": [exercise.number for exercise in assignment.exercises],
        "opens_at": iso(assignment.opens_at),
        "due_at": iso(assignment.due_at),
        "late_policy": assignment.late_policy.value,
        "penalty_per_day": assignment.penalty_per_day,
        "visibility_before": assignment.visibility_before.value,
        "visibility_after": assignment.visibility_after.value,
    }


def invitation_json(invitation: Invitation) -> dict[str, Any]:
    """An invitation as the API shows it; its times to the minute, like every time a learner
    reads (docs/security.md section 11)."""
    return {
        "id": invitation.id,
        "course": {"id": invitation.course_id, "name": invitation.course.name},
        "user": invitation.user.name,
        "role": invitation.role.value,
        "state": invitation.state.value,
        "invited_by": invitation.invited_by.name if invitation.invited_by else None,
        "created_at": iso(minute(invitation.created_at)),
        "decided_at": iso(minute(invitation.decided_at)) if invitation.decided_at else None,
    }


def _confirmed(body: dict) -> None:
    """Something is taken away only with ``"confirm": true`` in the body (as the pages' box)."""
    if body.get("confirm") is not True:
        abort(400, description='send {"confirm": true} to confirm')


def _no_body() -> None:
    """A route that needs no body: one that is sent must still be a JSON object (as every POST's)."""
    if request.get_data():
        json_object("{}")


def _refused(error: CourseError):
    abort(400, description=str(error))


def _member(course: Course, name: object, *, members_only: bool = True) -> User:
    """The learner of ``course`` named ``name`` (a 400 without a name, a 404 for none). With
    ``members_only=False``, any account: taking back what a learner was given (an extension, an
    override) must work after they left too, and the domain function refuses when there is none."""
    from web.accounts.users import find_user

    if not isinstance(name, str) or not name.strip():
        abort(400, description='"user" (a user name) is required')
    user = find_user(g.db, name)
    in_course = user is not None and (
        not members_only
        or g.db.scalar(
            select(Membership.id).where(
                Membership.course_id == course.id,
                Membership.user_id == user.id,
                Membership.role == CourseRole.learner,
            )
        )
        is not None
    )
    if user is None or not in_course:
        abort(404, description=f"no learner {name.strip()[:64]!r} in this course")
    return user


@course_api.post("/courses")
@token_required
def create():
    refuse_unless(may_create_courses(g.user), "creating a course")
    body = json_object('{"name": "Sampling 101", "time_zone": "Europe/Berlin"}')
    try:
        course = create_course(g.db, g.user, body.get("name"), body.get("time_zone", "UTC"))
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(course_json(course, CourseRole.instructor)), 201


@course_api.get("/courses")
@token_required
def list_courses():
    from web.teaching.courses import courses_of

    return jsonify({"courses": [course_json(course, role) for course, role in courses_of(g.db, g.user)]})


@course_api.post("/courses/join")
@token_required
@join_code_limits
def join_course():
    body = json_object('{"join_code": "K7MXP2QD"}')
    try:
        course = join(g.db, g.user, body.get("join_code"))
    except CourseError as error:
        abort(404 if "no course" in str(error) else 400, description=str(error))
    g.db.commit()
    role = g.db.scalar(
        select(Membership.role).where(Membership.course_id == course.id, Membership.user_id == g.user.id)
    )
    return jsonify(course_json(course, role) | {"role": role.value if role else "learner"})


@course_api.get("/courses/<int:course_id>")
@token_required
def get_course(course_id: int):
    course = course_to_attend(course_id, g.user)
    role = CourseRole.instructor if teaches(g.db, g.user, course) else CourseRole.learner
    data = course_json(course, role)
    data["assignments"] = [assignment_json(assignment) for assignment in course.assignments]
    return jsonify(data)


@course_api.post("/courses/<int:course_id>/roster")
@token_required
def upload_roster(course_id: int):
    """Body: the CSV itself (``text/csv``), or JSON ``{"csv": "..."}``."""
    course = course_to_teach(course_id, g.user)
    if request.mimetype == "text/csv":
        data: object = request.get_data()
    else:  # anything else must be the JSON form (and gets json_object's errors)
        data = json_object('{"csv": "name\\nann\\nbob"}').get("csv")
    if not isinstance(data, (str, bytes)):
        abort(400, description='send the roster as text/csv, or JSON {"csv": "..."}')
    try:
        result = add_roster(g.db, course, data, g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(
        {"invited": result.invited, "pending": result.pending, "already": result.already, "unknown": result.unknown}
    )


@course_api.post("/courses/<int:course_id>/instructors")
@token_required
def add_course_instructor(course_id: int):
    course = course_to_teach(course_id, g.user)
    body = json_object('{"user": "name"}')
    try:
        user, done = add_instructor(g.db, course, body.get("user"), g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify({"user": user.name, "role": CourseRole.instructor.value, "outcome": done.value})


@course_api.get("/invitations")
@token_required
def my_invitations():
    return jsonify({"invitations": [invitation_json(row) for row in invitations_for(g.db, g.user)]})


@course_api.post("/invitations/<int:invitation_id>/accept")
@token_required
def accept_invitation(invitation_id: int):
    _no_body()
    invitation = invitation_to_answer(invitation_id, g.user)
    try:
        course = accept(g.db, invitation, g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(invitation_json(invitation) | {"course": course_json(course, invitation.role)})


@course_api.post("/invitations/<int:invitation_id>/decline")
@token_required
def decline_invitation(invitation_id: int):
    _no_body()
    invitation = invitation_to_answer(invitation_id, g.user)
    try:
        decline(invitation, g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(invitation_json(invitation))


@course_api.get("/courses/<int:course_id>/invitations")
@token_required
def course_invitations(course_id: int):
    course = course_to_teach(course_id, g.user)
    return jsonify({"invitations": [invitation_json(row) for row in invitations_in(g.db, course)]})


@course_api.post("/courses/<int:course_id>/invitations/<int:invitation_id>/withdraw")
@token_required
def withdraw_invitation(course_id: int, invitation_id: int):
    _no_body()
    course = course_to_teach(course_id, g.user)
    invitation = invitation_of(course, invitation_id)
    try:
        withdraw(invitation, g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(invitation_json(invitation))


@course_api.post("/courses/<int:course_id>/members/remove")
@token_required
def remove_course_member(course_id: int):
    """Body: ``{"user": "ann", "confirm": true}``: a learner or another instructor leaves the course."""
    course = course_to_teach(course_id, g.user)
    body = json_object('{"user": "ann", "confirm": true}')
    name = body.get("user")
    if not isinstance(name, str) or not name.strip():
        abort(400, description='"user" (a user name) is required')
    _confirmed(body)
    from web.accounts.users import find_user

    member = find_user(g.db, name)
    if member is None:
        abort(404, description=f"no member {name.strip()[:64]!r} in this course")
    try:
        role = remove_member(g.db, course, member, by=g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify({"user": member.name, "removed": role.value})


@course_api.post("/courses/<int:course_id>/leave")
@token_required
def leave(course_id: int):
    """Body: ``{"confirm": true}``: the caller leaves the course (not its last instructor)."""
    course = course_to_attend(course_id, g.user)
    _confirmed(json_object('{"confirm": true}'))
    try:
        role = remove_member(g.db, course, g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify({"course": course.id, "left": role.value})


@course_api.post("/courses/<int:course_id>/join-code")
@token_required
def new_join_code(course_id: int):
    """Body: ``{"confirm": true}``: a new join code; the old one stops working at once."""
    course = course_to_teach(course_id, g.user)
    _confirmed(json_object('{"confirm": true}'))
    code = rotate_join_code(g.db, course)
    g.db.commit()
    return jsonify({"join_code": code})


def _assignment_fields(body: dict) -> dict[str, Any]:
    fields = {
        key: body[key]
        for key in (
            "title",
            "exercises",
            "opens_at",
            "due_at",
            "late_policy",
            "penalty_per_day",
            "visibility_before",
            "visibility_after",
        )
        if key in body
    }
    unknown = set(body) - set(fields)
    if unknown:
        abort(400, description=f"unknown fields: {', '.join(sorted(map(str, unknown)))[:200]}")
    return fields


ASSIGNMENT_EXAMPLE = (
    '{"title": "Week 1", "exercises": [39], "opens_at": "2027-03-01T09:00", '
    '"due_at": "2027-03-08T23:59", "late_policy": "penalty", "penalty_per_day": 0.1}'
)


@course_api.post("/courses/<int:course_id>/assignments")
@token_required
def create_assignment(course_id: int):
    course = course_to_teach(course_id, g.user)
    fields = _assignment_fields(json_object(ASSIGNMENT_EXAMPLE))
    for required in ("title", "exercises", "opens_at", "due_at"):
        if required not in fields:
            abort(400, description=f'"{required}" is required, e.g. {ASSIGNMENT_EXAMPLE}')
    try:
        assignment = save_assignment(g.db, course, **fields)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(assignment_json(assignment)), 201


def _assignment_of(course: Course, assignment_id: int) -> Assignment:
    assignment = g.db.get(Assignment, assignment_id)
    if assignment is None or assignment.course_id != course.id:
        abort(404, description=f"no assignment {assignment_id} in this course")
    return assignment


@course_api.put("/courses/<int:course_id>/assignments/<int:assignment_id>")
@token_required
def change_assignment(course_id: int, assignment_id: int):
    course = course_to_teach(course_id, g.user)
    assignment = _assignment_of(course, assignment_id)
    fields = assignment_json(assignment) | _assignment_fields(json_object(ASSIGNMENT_EXAMPLE))
    for derived in ("id", "course"):
        fields.pop(derived)
    try:
        save_assignment(g.db, course, assignment=assignment, **fields)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(assignment_json(assignment))


@course_api.post("/courses/<int:course_id>/assignments/<int:assignment_id>/extensions")
@token_required
def extend(course_id: int, assignment_id: int):
    course = course_to_teach(course_id, g.user)
    assignment = _assignment_of(course, assignment_id)
    body = json_object('{"user": "ann", "due_at": "2027-03-10T23:59"}')
    learner = _member(course, body.get("user"))
    try:
        extension = grant_extension(g.db, assignment, learner, body.get("due_at"), g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify({"assignment": assignment.id, "user": learner.name, "due_at": iso(extension.due_at)})


@course_api.post("/courses/<int:course_id>/assignments/<int:assignment_id>/extensions/withdraw")
@token_required
def withdraw_course_extension(course_id: int, assignment_id: int):
    """Body: ``{"user": "ann"}``: their due date is the assignment's again."""
    course = course_to_teach(course_id, g.user)
    assignment = _assignment_of(course, assignment_id)
    learner = _member(course, json_object('{"user": "ann"}').get("user"), members_only=False)
    try:
        withdraw_extension(g.db, assignment, learner, g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify({"assignment": assignment.id, "user": learner.name, "due_at": iso(assignment.due_at)})


def _override_json(row, learner: User, exercise) -> dict[str, Any]:
    return {
        "id": row.id,
        "user": learner.name,
        "exercise": exercise.number,
        "score": None if row.withdrawn else row.score,
        "withdrawn": row.withdrawn,
        "mode": None if row.withdrawn else row.mode.value,
        "comment": row.comment,
        "by": g.user.name,
        "created_at": iso(row.created_at),
    }


def _override_target(course: Course, body: dict, *, members_only: bool = True):
    learner = _member(course, body.get("user"), members_only=members_only)
    exercise_id = body.get("exercise")
    if not isinstance(exercise_id, (str, int)) or isinstance(exercise_id, bool):
        abort(400, description='"exercise" (a number or slug) is required')
    return learner, find_exercise(str(exercise_id))[0]


@course_api.post("/courses/<int:course_id>/overrides/withdraw")
@token_required
def withdraw_course_override(course_id: int):
    """Body: ``{"user": "ann", "exercise": 39}``: the graded score counts again (a new history row)."""
    course = course_to_teach(course_id, g.user)
    body = json_object('{"user": "ann", "exercise": 39}')
    learner, exercise = _override_target(course, body, members_only=False)
    try:
        row = withdraw_override(g.db, course, learner, exercise, g.user)
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(_override_json(row, learner, exercise)), 201


@course_api.post("/courses/<int:course_id>/overrides")
@token_required
def override(course_id: int):
    course = course_to_teach(course_id, g.user)
    body = json_object('{"user": "ann", "exercise": 39, "score": 1.0, "comment": "why", "mode": "replace"}')
    learner, exercise = _override_target(course, body)
    try:
        row = override_score(
            g.db, course, learner, exercise, body.get("score"), body.get("comment"), g.user, body.get("mode", "replace")
        )
    except CourseError as error:
        _refused(error)
    g.db.commit()
    return jsonify(_override_json(row, learner, exercise)), 201


def _requested_json(requested: Requested) -> dict[str, Any]:
    answer: dict[str, Any] = {"rejudge": requested.rejudge.id, "queued": requested.queued}
    if requested.not_gradable:  # left out: this site cannot grade their exercises (an extra is missing)
        answer["not_gradable"] = {
            "submissions": requested.not_gradable,
            "exercises": list(requested.not_gradable_exercises),
        }
    return answer


@course_api.post("/submissions/<int:submission_id>/rejudge")
@token_required
def rejudge_one(submission_id: int):
    _no_body()
    submission = visible_submission(submission_id, g.user)
    refuse_unless(teaches_context_of(g.db, g.user, submission), "rejudging")
    try:
        requested = rejudge_submission(g.db, services().queue, submission, g.user)
    except NotGradableHere as refused:
        abort(409, description=str(refused))
    g.db.refresh(submission)  # the grading was added by a bulk INSERT
    newest = submission.latest
    return jsonify(
        _requested_json(requested)
        | {"grading": newest.id if newest else None, "status": newest.status.value if newest else None}
    ), 202


@course_api.post("/courses/<int:course_id>/rejudge")
@token_required
def rejudge_in_course(course_id: int):
    """Body: ``{"exercise": 39}`` (an exercise within the course) or ``{"assignment": ID}``."""
    course = course_to_teach(course_id, g.user)
    body = json_object('{"exercise": 39} or {"assignment": 3}')
    if ("exercise" in body) == ("assignment" in body):
        abort(400, description='send one of "exercise" (a number or slug) or "assignment" (an id)')
    if "assignment" in body:
        assignment_id = body["assignment"]
        if not isinstance(assignment_id, int) or isinstance(assignment_id, bool):
            abort(400, description='"assignment" is an assignment id')
        requested = rejudge_assignment(g.db, services().queue, _assignment_of(course, assignment_id), g.user)
    else:
        exercise_id = body["exercise"]
        if not isinstance(exercise_id, (str, int)) or isinstance(exercise_id, bool):
            abort(400, description='"exercise" is a number or a slug')
        exercise = find_exercise(str(exercise_id))[0]
        requested = rejudge_exercise(g.db, services().queue, course, exercise, g.user)
    return jsonify(_requested_json(requested)), 202


@course_api.get("/rejudges/<int:rejudge_id>")
@token_required
def rejudge_status(rejudge_id: int):
    rejudge = g.db.get(Rejudge, rejudge_id)
    if rejudge is None or not may_see_rejudge(g.db, g.user, rejudge):
        abort(404, description=f"no rejudge {rejudge_id}")
    changes = outcome(g.db, rejudge)
    return jsonify(
        {
            "id": rejudge.id,
            "scope": rejudge.scope.value,
            "created_at": iso(rejudge.created_at),
            "pending": sum(1 for change in changes if change.after is None),
            "changed": sum(1 for change in changes if change.changed),
            "gradings": [
                {
                    "submission": change.submission_id,
                    "grading": change.grading_id,
                    "user": change.user,
                    "exercise": change.exercise,
                    "status": change.status.value,
                    "before": change.before.value if change.before else None,
                    "after": change.after.value if change.after else None,
                    "changed": change.changed,
                }
                for change in changes
            ],
        }
    )
