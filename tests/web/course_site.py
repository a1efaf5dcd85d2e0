"""A site with a small course world for route-wide tests: who is who, and real ids for every
route parameter, so that a test can walk the whole URL map as each role."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from tests.web.site_client import password_hash, store_graded
from web.core.models import ApiToken, CourseRole, Exercise, Invitation, Rejudge, RejudgeScope, Role, User
from web.services import services
from web.teaching.courses import create_course, enroll, save_assignment

# name → (site role, what they are in the course world)
PEOPLE = {
    "tia": Role.instructor,  # teaches the course
    "tom": Role.instructor,  # teaches another course only
    "ann": Role.learner,  # a learner of the course, author of the submissions
    "bob": Role.learner,  # in no course
    "root": Role.admin,
}
REPORT = {"verdict": "WA", "score": {"passed": 1, "total": 2}, "seed": 7, "diagnosis": "a named mistake",
          "cases": [{"name": "softmax", "suite": "public", "verdict": "AC", "message": "", "time_ms": 1.0,
                     "checks": []},
                    {"name": "zipf", "suite": "hidden", "verdict": "WA", "message": "hidden detail", "time_ms": 1.0,
                     "rule": "a rule", "checks": []}]}


@dataclass
class World:
    app: object
    headers: dict[str, dict[str, str]] = field(default_factory=dict)
    values: dict[str, object] = field(default_factory=dict)  # route parameter → a real value


def course_world(make_site) -> World:
    app = make_site(start_workers=False)
    world = World(app)
    with services(app).sessions() as session:
        users = {}
        for name, role in PEOPLE.items():
            user = User(name=name, role=role)
            user.password_hash = password_hash()
            token, secret = ApiToken.issue(user)
            session.add_all([user, token])
            users[name] = user
            world.headers[name] = {"Authorization": f"Bearer {secret}"}
        session.flush()
        course = create_course(session, users["tia"], "Sampling 101", "Europe/Berlin")
        other = create_course(session, users["tom"], "Elsewhere", "UTC")
        enroll(session, course, users["ann"])
        assignment = save_assignment(session, course, title="Week 1", exercises=[39, 1],
                                     opens_at="2020-01-01T00:00Z", due_at="2099-01-01T00:00Z")
        save_assignment(session, other, title="Other", exercises=[39], opens_at="2020-01-01T00:00Z",
                        due_at="2099-01-01T00:00Z")
        session.commit()
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        first = store_graded(session, users["ann"], exercise, "x = 1\n", REPORT, seed=7)
        second = store_graded(session, users["ann"], exercise, "x = 2\n", REPORT, seed=8)
        rejudge = Rejudge(scope=RejudgeScope.exercise, course_id=course.id, exercise_id=exercise.id,
                          requested_by_id=users["tia"].id)
        invitation = Invitation(course_id=course.id, user_id=users["bob"].id, role=CourseRole.learner,
                                invited_by_id=users["tia"].id)  # bob is invited, not a member
        session.add_all([rejudge, invitation])
        session.commit()
        world.values = {
            "course_id": course.id, "other_course_id": other.id, "assignment_id": assignment.id,
            "submission_id": first, "old_id": first, "new_id": second, "user_id": users["ann"].id, "number": 39,
            "rejudge_id": rejudge.id, "identifier": "39", "code": "en", "token_id": 1,
            "invitation_id": invitation.id,
        }
    return world
