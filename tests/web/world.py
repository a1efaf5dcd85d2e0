"""The one course world of the web tests: people by role, two courses, attempts with gradings.

:func:`build_world` makes, on a site's database:

- course A, "Sampling 101" (time zone Europe/Berlin), taught by ``teach_a`` (role ``instructor``),
  with the assignment "Week 1" over exercises 1 and 39; its learners ``ann`` (``learner``) and
  ``Bobby``;
- course B, "Other course" (UTC), taught by ``teach_b`` (``other_instructor``), with "Other week"
  over exercise 39 and its one learner ``cleo`` (``learner_elsewhere``);
- ``otto`` (``outsider``), a learner in no course, and the site admin ``root`` (``admin``).

Everyone signs in with :data:`PASSWORD` and has an API token; ``anonymous`` is the visitor.
The attempts are listed in :func:`build_world`'s docstring; :func:`route_world` adds what a test
walking the whole URL map needs (a real value for every route parameter).

The smaller builders (:func:`account`, :func:`attempt`, :func:`store_graded`,
:func:`course_with_assignment`…) make one row each, for a test that needs a world of its own. This
is a module, not part of conftest.py, because the tests call these builders with their own options
(and pytest's conftest is for fixtures, not for importing); conftest.py exposes the world as the
``world`` fixture.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field

from flask.testing import FlaskClient
from sqlalchemy import select

from judge.verdicts import Verdict
from tests.web.site_client import sign_in
from web.access.contexts import NOT_GIVEN, Unset, default_context
from web.core.models import (
    ApiToken,
    Course,
    CourseRole,
    Exercise,
    Grading,
    Invitation,
    Rejudge,
    RejudgeScope,
    Role,
    SimilarityReport,
    SimilarityState,
    Status,
    Submission,
    User,
    utcnow,
)
from web.services import services
from web.teaching.courses import create_course, enroll, save_assignment

UTC = dt.UTC
PASSWORD = "password123"
# The roles a test of who-may-what walks; "outsider" (in no course) is one more person of the world.
ROLES = ("anonymous", "learner", "learner_elsewhere", "other_instructor", "instructor", "admin")
ACCOUNT = {"learner": "ann", "learner_elsewhere": "cleo", "other_instructor": "teach_b", "instructor": "teach_a",
           "admin": "root", "outsider": "otto"}
# A graded report with a public case passed and a hidden one failed, with details to withhold.
REPORT = {"verdict": "WA", "score": {"passed": 1, "total": 2}, "seed": 7, "diagnosis": "a named mistake",
          "cases": [{"name": "softmax", "suite": "public", "verdict": "AC", "message": "", "time_ms": 1.0,
                     "checks": []},
                    {"name": "zipf", "suite": "hidden", "verdict": "WA", "message": "hidden detail", "time_ms": 1.0,
                     "rule": "a rule", "checks": []}]}


@functools.cache
def password_hash(password: str = PASSWORD) -> str:
    """The stored form of ``password``, hashed once per test process: a hash costs about 0.1 s,
    and the world makes several accounts per test (they sign in with the password as usual)."""
    from web.core.models import hash_password

    return hash_password(password)


def moment(text: str) -> dt.datetime:
    """An aware UTC datetime from ``2027-03-01 12:00``."""
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def account(session, name: str, role: Role = Role.learner) -> User:
    """A user ``name`` with site role ``role`` who signs in with :data:`PASSWORD` (flushed)."""
    row = User(name=name, role=role)
    row.password_hash = password_hash()
    session.add(row)
    session.flush()
    return row


def exercise(session, number: int) -> Exercise:
    """The synced exercise ``number``."""
    row = session.scalar(select(Exercise).where(Exercise.number == number))
    assert row is not None, f"exercise {number} is not synced"
    return row


def context_of(session, learner: User, exercise_row: Exercise, course: Course | None | Unset = NOT_GIVEN) -> int | None:
    """The course id a builder's submission is made for: ``course``'s, or the site's default."""
    if course is NOT_GIVEN:
        session.flush()
        return default_context(session, learner, exercise_row)
    return course.id if isinstance(course, Course) else None


def _with_grading(session, submission: Submission, grading: Grading | None) -> Submission:
    """``submission`` added, with ``grading`` (when given) as its one and current grading."""
    session.add(submission)
    if grading is not None:
        submission.gradings.append(grading)
        session.flush()
        submission.current_grading_id = grading.id
    session.flush()
    return submission


def attempt(session, learner: User, exercise_row: Exercise, at: dt.datetime | str, verdict: str = "AC",
            passed: int | None = None, total: int = 10, graded: bool = True,
            course: Course | None | Unset = NOT_GIVEN) -> Submission:
    """A submission made at ``at`` with one finished grading of ``verdict`` (unless ``graded`` is
    false; a failing one has the diagnosis "mistake <verdict>" on case zipf), for ``course`` (None:
    practice; not given: the default the site would choose, see web.access.contexts). Flushed."""
    at = moment(at) if isinstance(at, str) else at
    submission = Submission(user=learner, exercise=exercise_row, code=f"# {verdict}\n", created_at=at,
                            course_id=context_of(session, learner, exercise_row, course))
    grading = None
    if graded:
        passed = total if passed is None and verdict == "AC" else (passed if passed is not None else 0)
        grading = Grading(status=Status.done, verdict=Verdict(verdict), score_passed=passed, score_total=total,
                          seed=1234, attempts=1, created_at=at, started_at=at, finished_at=at,
                          diagnosis=None if verdict == "AC" else f"mistake {verdict}",
                          failed_case=None if verdict == "AC" else "zipf",
                          report_json={"verdict": verdict, "score": {"passed": passed, "total": total}, "cases": []})
    return _with_grading(session, submission, grading)


def store_graded(session, user: User, exercise_row: Exercise, code: str, report: dict,
                 course: Course | None | Unset = NOT_GIVEN, **grading) -> int:
    """A submission of ``user`` made now with one finished grading carrying ``report``
    (committed); its id. ``course`` as in :func:`attempt`; ``grading`` sets other columns of the
    grading (``seed``, ``judge_version``…)."""
    score = report.get("score") or {}
    submission = Submission(user=user, exercise=exercise_row, code=code,
                            course_id=context_of(session, user, exercise_row, course))
    row = Grading(status=Status.done, verdict=Verdict(report["verdict"]), score_passed=score.get("passed"),
                  score_total=score.get("total"), seed=report.get("seed"), report_json=report,
                  diagnosis=report.get("diagnosis"), started_at=utcnow(), finished_at=utcnow(), attempts=1)
    for key, value in grading.items():
        setattr(row, key, value)
    _with_grading(session, submission, row)
    session.commit()
    return submission.id


def course_with_assignment(session, *, exercises=(1, 39), time_zone: str = "UTC", **assignment):
    """A new instructor, a course with one assignment over ``exercises``; returns (teacher, course, assignment)."""
    teacher = account(session, f"teacher{session.scalar(select(User.id).order_by(User.id.desc()).limit(1)) or 0}",
                      Role.instructor)
    course = create_course(session, teacher, "Sampling 101", time_zone)
    fields = dict(title="Week 1", exercises=list(exercises), opens_at="2027-03-01T00:00Z",
                  due_at="2027-03-08T00:00Z")
    fields.update(assignment)
    work = save_assignment(session, course, **fields)
    return teacher, course, work


def learner_in(session, course: Course, name: str) -> User:
    """A new learner ``name`` enrolled in ``course``."""
    row = account(session, name)
    enroll(session, course, row)
    session.flush()
    return row


def api_token(app, name: str = "api-user") -> dict:
    """A new learner ``name`` with an API token; the Authorization header that uses it."""
    with services(app).sessions() as session:
        user = User(name=name)
        user.set_password(PASSWORD)
        token, secret = ApiToken.issue(user)
        session.add_all([user, token])
        session.commit()
    return {"Authorization": f"Bearer {secret}"}


@dataclass
class World:
    """What :func:`build_world` made: ids, attempts by name, API secrets by account name, and (once
    :func:`route_world` made them) a real value for each route parameter."""

    app: object
    course_id: int
    other_course_id: int
    assignment_id: int
    attempts: dict[str, int] = field(default_factory=dict)  # name → submission id
    tokens: dict[str, str] = field(default_factory=dict)  # account name → API secret
    values: dict[str, object] = field(default_factory=dict)  # route parameter → a real value

    def client(self, role: str) -> FlaskClient:
        """A test client signed in as ``role`` (one of :data:`ROLES` or "outsider")."""
        client = self.app.test_client()
        if role != "anonymous":
            assert sign_in(client, ACCOUNT[role], PASSWORD).status_code == 302
        return client

    def headers(self, role: str) -> dict:
        """The API headers of ``role``: its token, or none for ``anonymous``."""
        if role == "anonymous":
            return {}
        return {"Authorization": f"Bearer {self.tokens[ACCOUNT[role]]}"}

    def user_id(self, role: str) -> int:
        """The id of ``role``'s account."""
        with services(self.app).sessions() as session:
            found = session.scalar(select(User.id).where(User.name == ACCOUNT[role]))
        assert found is not None, role
        return found


def build_world(app, *, opens_at: str = "2027-03-01T00:00Z", due_at: str = "2027-03-08T00:00Z",
                with_attempts: bool = True) -> World:
    """The world of the module docstring, with both assignments open from ``opens_at`` to
    ``due_at``. Attempts (UTC), when ``with_attempts``:

    - ``ann_39_wa``  ann, 39, 2027-03-02 10:00, WA 4/10, diagnosis "mistake WA"
    - ``ann_39_ac``  ann, 39, 2027-03-03 10:00, AC
    - ``ann_1_late`` ann, 1,  2027-03-09 12:00, AC, late
    - ``bob_1_tle``  Bobby, 1, 2027-03-02 09:00, TLE, diagnosis "mistake TLE"
    - ``bob_39_wa``  Bobby, 39, 2027-03-02 23:30 (3 March in Berlin), WA 2/10
    - ``bob_practice`` Bobby, 39, 2027-02-20 (before the assignment opened: not counted)
    - ``cleo_39``    cleo, 39, 2027-03-02 (in course B only)
    """
    with services(app).sessions() as session:
        teach_a = account(session, "teach_a", Role.instructor)
        teach_b = account(session, "teach_b", Role.instructor)
        root = account(session, "root", Role.admin)
        ann, bob, cleo, otto = (account(session, name) for name in ("ann", "Bobby", "cleo", "otto"))
        course = create_course(session, teach_a, "Sampling 101", "Europe/Berlin")
        other = create_course(session, teach_b, "Other course", "UTC")
        work = save_assignment(session, course, title="Week 1", exercises=[1, 39], opens_at=opens_at, due_at=due_at)
        save_assignment(session, other, title="Other week", exercises=[39], opens_at=opens_at, due_at=due_at)
        enroll(session, course, ann)
        enroll(session, course, bob)
        enroll(session, other, cleo)
        session.flush()
        world = World(app, course.id, other.id, work.id)
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
        for user in (teach_a, teach_b, root, ann, bob, cleo, otto):
            token, secret = ApiToken.issue(user)
            session.add(token)
            world.tokens[user.name] = secret
        session.commit()
    return world


def route_world(app) -> World:
    """The world for walking the whole URL map on ``app``: both assignments open now, no attempts
    but ann's two graded submissions of exercise 39 in course A (``x = 1``, then ``x = 2``, each
    with :data:`REPORT`), a rejudge of exercise 39 there, a finished similarity check there (one
    pair, ranked 1), and an invitation of otto to course A
    (not answered). ``values`` holds a real value for every route parameter: the token is
    teach_a's, the invitation otto's."""
    world = build_world(app, opens_at="2020-01-01T00:00Z", due_at="2099-01-01T00:00Z", with_attempts=False)
    with services(app).sessions() as session:
        people = {user.name: user for user in session.scalars(select(User))}
        ann, teacher = people[ACCOUNT["learner"]], people[ACCOUNT["instructor"]]
        thirty_nine = exercise(session, 39)
        first = store_graded(session, ann, thirty_nine, "x = 1\n", REPORT, seed=7)
        second = store_graded(session, ann, thirty_nine, "x = 2\n", REPORT, seed=8)
        rejudge = Rejudge(scope=RejudgeScope.exercise, course_id=world.course_id, exercise_id=thirty_nine.id,
                          requested_by_id=teacher.id)
        invitation = Invitation(course_id=world.course_id, user_id=people[ACCOUNT["outsider"]].id,
                                role=CourseRole.learner, invited_by_id=teacher.id)
        bobby = people["Bobby"]
        report = SimilarityReport(  # a finished similarity check with one pair, ann's two submissions
            course_id=world.course_id, created_by_id=teacher.id, threshold=0.5, state=SimilarityState.done,
            parameters={"scope": "exercise:39", "exercises": [39]}, done_count=1, total_count=1,
            results={"exercises": [{"id": thirty_nine.id, "number": 39, "compared": 2}], "truncated": False,
                     "pairs": [{"a": ann.id, "b": bobby.id, "score": 0.9, "exercises": [
                         {"id": thirty_nine.id, "number": 39, "similarity": 0.9, "a_submission": first,
                          "b_submission": second, "fragments": [[0, 1, 0, 1]], "behaviour": None}]}]})
        session.add_all([rejudge, invitation, report])
        session.commit()
        token_id = session.scalar(select(ApiToken.id).where(ApiToken.user_id == teacher.id))
        world.values = {
            "course_id": world.course_id, "other_course_id": world.other_course_id,
            "assignment_id": world.assignment_id, "submission_id": first, "old_id": first, "new_id": second,
            "user_id": ann.id, "number": 39, "rejudge_id": rejudge.id, "identifier": "39", "code": "en",
            "token_id": token_id, "invitation_id": invitation.id, "report_id": report.id, "rank": 1,
        }
    return world
