"""A site with one course and every role around it, for the instructor pages' tests.

``build_class(app)`` makes: course A (time zone Europe/Berlin) with an assignment over exercises
1 and 39 taught by ``teach_a``, its learners ``ann`` and ``Bobby``; course B taught by
``teach_b`` with learner ``cleo`` ("learner elsewhere"); the site admin ``root``. Everyone can
sign in with PASSWORD and has an API token. The attempts are listed in the docstring of
:func:`build_class`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from site_client import password_hash, sign_in

from tests.web.course_world import attempt, exercise
from web.core.models import ApiToken, Role, User
from web.services import services
from web.teaching.courses import create_course, enroll, save_assignment

PASSWORD = "password123"
ROLES = ("anonymous", "learner", "learner_elsewhere", "other_instructor", "instructor", "admin")
ACCOUNT = {"learner": "ann", "learner_elsewhere": "cleo", "other_instructor": "teach_b", "instructor": "teach_a",
           "admin": "root"}


@dataclass
class Class:
    app: object
    course_id: int
    other_course_id: int
    assignment_id: int
    attempts: dict[str, int] = field(default_factory=dict)  # name → submission id
    tokens: dict[str, str] = field(default_factory=dict)  # user name → API secret

    def client(self, role: str):
        """A test client signed in as ``role`` (one of :data:`ROLES`)."""
        client = self.app.test_client()
        if role != "anonymous":
            assert sign_in(client, ACCOUNT[role]).status_code == 302
        return client

    def headers(self, role: str) -> dict:
        if role == "anonymous":
            return {}
        return {"Authorization": f"Bearer {self.tokens[ACCOUNT[role]]}"}


def _account(session, name: str, role: Role = Role.learner) -> User:
    user = User(name=name, role=role)
    user.password_hash = password_hash(PASSWORD)
    session.add(user)
    session.flush()
    return user


def build_class(app, *, opens_at: str = "2027-03-01T00:00Z", due_at: str = "2027-03-08T00:00Z",
                with_attempts: bool = True) -> Class:
    """The class above. Attempts (UTC), when ``with_attempts``:

    - ``ann_39_wa``  ann, 39, 2027-03-02 10:00, WA 4/10, diagnosis "mistake WA"
    - ``ann_39_ac``  ann, 39, 2027-03-03 10:00, AC
    - ``ann_1_late`` ann, 1,  2027-03-09 12:00, AC, late
    - ``bob_1_tle``  Bobby, 1, 2027-03-02 09:00, TLE, diagnosis "mistake TLE"
    - ``bob_39_wa``  Bobby, 39, 2027-03-02 23:30 (3 March in Berlin), WA 2/10
    - ``bob_practice`` Bobby, 39, 2027-02-20 (before the assignment opened: not counted)
    - ``cleo_39``    cleo, 39, 2027-03-02 (in course B only)
    """
    with services(app).sessions() as session:
        teach_a = _account(session, "teach_a", Role.instructor)
        teach_b = _account(session, "teach_b", Role.instructor)
        root = _account(session, "root", Role.admin)
        ann, bob, cleo = (_account(session, name) for name in ("ann", "Bobby", "cleo"))
        course = create_course(session, teach_a, "Sampling 101", "Europe/Berlin")
        other = create_course(session, teach_b, "Other course", "UTC")
        work = save_assignment(session, course, title="Week 1", exercises=[1, 39], opens_at=opens_at, due_at=due_at)
        save_assignment(session, other, title="Other week", exercises=[39], opens_at=opens_at, due_at=due_at)
        enroll(session, course, ann)
        enroll(session, course, bob)
        enroll(session, other, cleo)
        session.flush()
        world = Class(app, course.id, other.id, work.id)
        if with_attempts:
            one, thirty_nine = exercise(session, 1), exercise(session, 39)
            made = {
                "ann_39_wa": attempt(session, ann, thirty_nine, "2027-03-02 10:00", "WA", passed=4),
                "ann_39_ac": attempt(session, ann, thirty_nine, "2027-03-03 10:00", "AC"),
                "ann_1_late": attempt(session, ann, one, "2027-03-09 12:00", "AC"),
                "bob_1_tle": attempt(session, bob, one, "2027-03-02 09:00", "TLE"),
                "bob_39_wa": attempt(session, bob, thirty_nine, "2027-03-02 23:30", "WA", passed=2),
                "bob_practice": attempt(session, bob, thirty_nine, "2027-02-20 10:00", "WA"),
                "cleo_39": attempt(session, cleo, thirty_nine, "2027-03-02 10:00", "WA"),
            }
            world.attempts = {name: row.id for name, row in made.items()}
        for user in (teach_a, teach_b, root, ann, bob, cleo):
            token, secret = ApiToken.issue(user)
            session.add(token)
            world.tokens[user.name] = secret
        session.commit()
    return world


@pytest.fixture
def world(make_site):
    """The class on a site without grading workers."""
    return build_class(make_site(start_workers=False))
