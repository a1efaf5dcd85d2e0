"""Authorization on the server, for every route of the URL map, every method and every role.

A learner reaches no instructor page or route (403 inside their course, 404 elsewhere); an
instructor reaches their own courses only (another course is a 404, as if it did not exist);
the site admin reaches everything but another account's own things (its tokens, its
invitations); a visitor is sent to sign in (pages) or gets a 401 (API).

Every rule of the URL map, with each of its methods, is placed by hand in :data:`ROUTES`:
nothing is placed by a prefix or by having no id, so a new route fails
:func:`test_every_route_is_classified` until someone says who may use it. Each class is then
walked both ways: those who must be refused are refused, and those who may use it are not.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.web.site_client import build_url, csrf_token, rules, sign_in, stop_site
from tests.web.world import ACCOUNT, route_world, store_graded

PEOPLE = ("outsider", "other_instructor", "learner", "instructor", "admin")  # roles of tests/web/world.py
# Who may use a route of each class (the visitor, None, only an "open" one).
OPEN = "open"  # anyone, visitors included
SIGNED_IN = "signed in"  # any account
CREATOR = "course creator"  # site instructors and admins: a learner gets a 403 (the page exists for all)
OWN = "own"  # the account the id belongs to, not even an admin: anyone else a 404
MEMBER = "member"  # the course's members (either role) and admins: anyone else a 404
SUBMISSION = "submission"  # its author and who teaches its course (admins too): anyone else a 404
INSTRUCTOR = "instructor"  # the course's instructors and admins: its learner a 403, anyone else a 404
ADMIN = "admin"  # site admins alone: anyone else a 404, as if it did not exist
REJUDGE = "rejudge"  # who teaches the rejudge's course and admins: anyone else a 404, its learners too
OPERATOR = "operator"  # site admins alone, a route whose existence is no secret: anyone else a 403
SIMILARITY = "similarity"  # the course's instructors and admins: anyone else a 404, its learners too

ALLOWED = {
    OPEN: set(PEOPLE), SIGNED_IN: set(PEOPLE), CREATOR: {"instructor", "other_instructor", "admin"},
    OWN: set(),  # OWNERS decides
    MEMBER: {"learner", "instructor", "admin"}, SUBMISSION: {"learner", "instructor", "admin"},
    INSTRUCTOR: {"instructor", "admin"}, REJUDGE: {"instructor", "admin"},
    SIMILARITY: {"instructor", "admin"}, ADMIN: {"admin"}, OPERATOR: {"admin"},
}
# The owner of each OWN route's id in the course world (checked against the database below).
OWNERS = {"token_id": "instructor", "invitation_id": "outsider"}

# Every rule and method of the URL map. Keep it sorted by path; one line per (path, method).
ROUTES = {
    ("/", "GET"): OPEN,
    ("/admin/lti", "GET"): ADMIN,
    ("/admin/lti", "POST"): ADMIN,
    ("/admin/users", "GET"): ADMIN,
    ("/admin/users/<int:user_id>", "GET"): ADMIN,
    ("/admin/users/<int:user_id>/revoke", "POST"): ADMIN,
    ("/api/v1/admin/users/<int:user_id>/revoke", "POST"): ADMIN,
    ("/api/v1/courses", "GET"): SIGNED_IN,
    ("/api/v1/courses", "POST"): CREATOR,
    ("/api/v1/courses/<int:course_id>", "GET"): MEMBER,
    ("/api/v1/courses/<int:course_id>/analytics", "GET"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/assignments", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/assignments/<int:assignment_id>", "PUT"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/assignments/<int:assignment_id>/extensions", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/assignments/<int:assignment_id>/extensions/withdraw", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/gradebook", "GET"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/gradebook.csv", "GET"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/instructors", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/invitations", "GET"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/invitations/<int:invitation_id>/withdraw", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/join-code", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/leave", "POST"): MEMBER,
    ("/api/v1/courses/<int:course_id>/lti/roster-sync", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/members/remove", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/overrides", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/overrides/withdraw", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/rejudge", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/roster", "POST"): INSTRUCTOR,
    ("/api/v1/courses/<int:course_id>/similarity", "GET"): SIMILARITY,
    ("/api/v1/courses/<int:course_id>/similarity", "POST"): SIMILARITY,
    ("/api/v1/courses/<int:course_id>/similarity/<int:report_id>", "GET"): SIMILARITY,
    ("/api/v1/courses/<int:course_id>/similarity/<int:report_id>.csv", "GET"): SIMILARITY,
    ("/api/v1/courses/<int:course_id>/submissions", "GET"): INSTRUCTOR,
    ("/api/v1/courses/join", "POST"): SIGNED_IN,
    ("/api/v1/exercises", "GET"): SIGNED_IN,
    ("/api/v1/exercises/<identifier>", "GET"): SIGNED_IN,
    ("/api/v1/health", "GET"): OPERATOR,
    ("/api/v1/health/live", "GET"): OPEN,
    ("/api/v1/invitations", "GET"): SIGNED_IN,
    ("/api/v1/invitations/<int:invitation_id>/accept", "POST"): OWN,
    ("/api/v1/invitations/<int:invitation_id>/decline", "POST"): OWN,
    ("/api/v1/rejudges/<int:rejudge_id>", "GET"): REJUDGE,
    ("/api/v1/submissions", "POST"): SIGNED_IN,
    ("/api/v1/submissions/<int:submission_id>", "GET"): SUBMISSION,
    ("/api/v1/submissions/<int:submission_id>/rejudge", "POST"): INSTRUCTOR,
    ("/api/v1/submissions/<int:submission_id>/results.json", "GET"): SUBMISSION,
    ("/auth/sign-in", "GET"): OPEN,
    ("/auth/sign-in", "POST"): OPEN,
    ("/auth/sign-out", "POST"): SIGNED_IN,
    ("/auth/sign-up", "GET"): OPEN,
    ("/auth/sign-up", "POST"): OPEN,
    ("/browser/engine.zip", "GET"): OPEN,
    ("/browser/exercises/<identifier>/files.json", "GET"): OPEN,
    ("/courses/", "GET"): SIGNED_IN,
    ("/courses/", "POST"): CREATOR,
    ("/courses/<int:course_id>", "GET"): MEMBER,
    ("/courses/<int:course_id>/analytics", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/analytics/course", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/analytics/learners", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/assignments/<int:assignment_id>", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/assignments/<int:assignment_id>", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/assignments/<int:assignment_id>/extensions", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/assignments/<int:assignment_id>/extensions/<int:user_id>/withdraw", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/assignments/new", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/assignments/new", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/gradebook", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/gradebook.csv", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/gradebook/<int:user_id>/<int:number>", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/gradebook/<int:user_id>/<int:number>", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/gradebook/<int:user_id>/<int:number>/withdraw", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/instructors", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/invitations/<int:invitation_id>/withdraw", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/join-code", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/leave", "POST"): MEMBER,
    ("/courses/<int:course_id>/lti/roster-sync", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/members/<int:user_id>/remove", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/rejudge", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/rejudge/confirm", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/rejudges", "GET"): INSTRUCTOR,
    ("/courses/<int:course_id>/roster", "POST"): INSTRUCTOR,
    ("/courses/<int:course_id>/similarity", "GET"): SIMILARITY,
    ("/courses/<int:course_id>/similarity", "POST"): SIMILARITY,
    ("/courses/<int:course_id>/similarity/<int:report_id>", "GET"): SIMILARITY,
    ("/courses/<int:course_id>/similarity/<int:report_id>.csv", "GET"): SIMILARITY,
    ("/courses/<int:course_id>/similarity/<int:report_id>/pairs/<int:rank>", "GET"): SIMILARITY,
    ("/courses/<int:course_id>/submissions", "GET"): INSTRUCTOR,
    ("/courses/invitations/<int:invitation_id>/accept", "POST"): OWN,
    ("/courses/invitations/<int:invitation_id>/decline", "POST"): OWN,
    ("/courses/join", "POST"): SIGNED_IN,
    ("/exercises/", "GET"): OPEN,
    ("/exercises/<identifier>", "GET"): OPEN,
    ("/exercises/<identifier>/download", "POST"): OPEN,
    ("/exercises/<identifier>/submissions", "GET"): SIGNED_IN,
    ("/exercises/<identifier>/submit", "POST"): SIGNED_IN,
    # An LMS posts the login and the launch (no session of ours yet); a bare one is a 400 page.
    # The picker answers a signed-in user without a pending deep-linking launch with a 400 page.
    ("/lti/deep-link", "GET"): SIGNED_IN,
    ("/lti/deep-link", "POST"): SIGNED_IN,
    ("/lti/jwks", "GET"): OPEN,
    ("/lti/launch", "POST"): OPEN,
    ("/lti/login", "GET"): OPEN,
    ("/lti/login", "POST"): OPEN,
    ("/profile/", "GET"): SIGNED_IN,
    ("/profile/language/<code>", "POST"): SIGNED_IN,
    ("/profile/password", "POST"): SIGNED_IN,
    ("/profile/tokens", "POST"): SIGNED_IN,
    ("/profile/tokens/<int:token_id>/revoke", "POST"): OWN,
    ("/rejudges/<int:rejudge_id>", "GET"): REJUDGE,
    ("/submissions/<int:old_id>/diff/<int:new_id>", "GET"): SUBMISSION,
    ("/submissions/<int:submission_id>", "GET"): SUBMISSION,
    ("/submissions/<int:submission_id>/code", "GET"): SUBMISSION,
    ("/submissions/<int:submission_id>/rejudge", "POST"): INSTRUCTOR,
    ("/submissions/<int:submission_id>/result", "GET"): SUBMISSION,
    ("/submissions/<int:submission_id>/results.json", "GET"): SUBMISSION,
}
# Routes that change the caller's own state on a bare POST (signing out, answering an
# invitation, revoking a token): walked with a fresh client, or in a fresh world.
ENDS_THE_SESSION = {("/auth/sign-out", "POST")}


def _make_site(databases):
    from judge.engine.process import LocalLauncher
    from web.app import create_app
    from web.core.config import Settings

    def make_site(start_workers=False):
        settings = Settings(database_url=databases.new(), secret_key="test", workers=1,
                            sandbox="local", max_code_bytes=64 * 1024, rate_limits=False)
        return create_app(settings, launcher=LocalLauncher(), start_workers=start_workers)

    return make_site


def _with_clients(built):
    clients = {}
    for who in PEOPLE:
        client = built.client(who)
        clients[who] = (client, csrf_token(client, "/profile/"))
    visitor = built.app.test_client()
    clients[None] = (visitor, csrf_token(visitor, "/auth/sign-in"))
    built.clients = clients
    return built


@pytest.fixture(scope="module")
def world(module_databases):
    built = _with_clients(route_world(_make_site(module_databases)()))
    yield built
    stop_site(built.app)


def answer(world, who, rule, method):
    url = build_url(rule, **world.values)
    if rule.rule.startswith("/api/"):
        headers = world.headers(who) if who else {}
        return world.app.test_client().open(url, method=method, headers=headers, json={} if method != "GET" else None)
    client, token = world.clients[who]
    if who is not None and (rule.rule, method) in ENDS_THE_SESSION:  # keep the shared client signed in
        client = world.app.test_client()
        assert sign_in(client, ACCOUNT[who]).status_code == 302
        token = csrf_token(client, "/profile/")
    return client.open(url, method=method, data={"csrf_token": token} if method != "GET" else None)


def walked(world):
    for rule in rules(world.app):
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield rule, method


def place(rule, method) -> str:
    return ROUTES[(rule.rule, method)]


def allowed(rule, method) -> set:
    """Who of PEOPLE may use ``rule`` with ``method``."""
    kind = place(rule, method)
    if kind == OWN:
        return {OWNERS[name] for name in rule.arguments}
    return ALLOWED[kind]


def refusal(kind: str, who: str) -> int:
    """The status that refuses ``who``, signed in, a route of class ``kind``."""
    if kind in (CREATOR, OPERATOR):
        return 403  # these routes exist for everyone: no secret is kept by a 404
    if kind == INSTRUCTOR and who == "learner":
        return 403  # a learner of the course knows it exists
    return 404  # as if it did not exist


def _refused_visitor(response, rule) -> bool:
    if rule.rule.startswith("/api/"):
        return response.status_code == 401
    return response.status_code == 302 and response.location.startswith("/auth/sign-in")


def _refused(response, rule) -> bool:
    return response.status_code in (401, 403, 404) or _refused_visitor(response, rule)


def test_every_route_is_classified(world):
    found = {(rule.rule, method) for rule, method in walked(world)}
    unknown = sorted(found - ROUTES.keys())
    assert not unknown, f"say who may use these routes in ROUTES of {__file__}: {unknown}"
    gone = sorted(ROUTES.keys() - found)
    assert not gone, f"these routes are no longer in the URL map; remove them from ROUTES: {gone}"


def test_the_owners_are_who_the_table_says(world):
    from web.core.models import ApiToken, Invitation, User
    from web.services import services

    with services(world.app).sessions() as session:
        owner = {"token_id": session.get(ApiToken, world.values["token_id"]).user_id,
                 "invitation_id": session.get(Invitation, world.values["invitation_id"]).user_id}
        names = {who: session.scalar(select(User.id).where(User.name == ACCOUNT[who])) for who in OWNERS.values()}
    assert owner == {key: names[name] for key, name in OWNERS.items()}


def test_visitors_are_sent_to_sign_in_or_get_a_401(world):
    walked_open = 0
    for rule, method in walked(world):
        response = answer(world, None, rule, method)
        assert response.status_code < 500, (method, rule.rule, response.status_code)
        if place(rule, method) == OPEN:  # the positive control: a visitor uses these
            assert not _refused(response, rule), (method, rule.rule, response.status_code, response.location)
            walked_open += 1
        else:
            assert _refused_visitor(response, rule), (method, rule.rule, response.status_code)
    assert walked_open >= 10


@pytest.mark.parametrize("who", PEOPLE)
def test_each_role_reaches_exactly_what_it_may(world, who):
    refused = reached = 0
    for rule, method in walked(world):
        may = who in allowed(rule, method)
        if may and place(rule, method) == OWN:
            continue  # it would revoke or answer for good: test_the_owner_alone_uses_an_own_route
        response = answer(world, who, rule, method)
        status = response.status_code
        down = status == 503 and place(rule, method) == OPERATOR  # the report of a site with no worker
        assert status < 500 or down, (who, method, rule.rule, status)
        if may:
            # Allowed: whatever the body's fate (an empty body may be a 400), never a refusal.
            assert not _refused(response, rule), (who, method, rule.rule, status,
                                                  response.get_data(as_text=True)[:200])
            reached += 1
        else:
            assert status == refusal(place(rule, method), who), (who, method, rule.rule, status)
            refused += 1
    # Every role is refused something and reaches something (the admin: all but others' own things).
    assert reached >= 20 and refused >= 4, (reached, refused)


def test_the_owner_alone_uses_an_own_route(databases):
    """A fresh world (using an own route revokes a token or answers an invitation for good):
    the owner's use is no refusal; the admin's, in the world of the walk above, was a 404."""
    built = _with_clients(route_world(_make_site(databases)()))
    try:
        used = 0
        for rule, method in walked(built):
            if place(rule, method) == OWN:
                (owner,) = allowed(rule, method)
                response = answer(built, owner, rule, method)
                assert response.status_code < 500 and not _refused(response, rule), (
                    owner, method, rule.rule, response.status_code)
                used += 1
        assert used == 5
    finally:
        stop_site(built.app)


def test_the_admin_reaches_the_admin_routes(world):
    for rule, method in walked(world):
        if place(rule, method) in (ADMIN, OPERATOR):
            response = answer(world, "admin", rule, method)
            # An empty form or body is a 400 (no confirmation): nothing is revoked by the walk.
            # The health report is a 503 when something is down (no worker here).
            assert response.status_code in (200, 400, 503), (method, rule.rule, response.status_code)


def test_an_instructor_of_another_course_sees_none_of_this_ones_learners(world):
    client, _ = world.clients["other_instructor"]
    assert client.get(f"/submissions/{world.values['submission_id']}").status_code == 404
    assert client.get(f"/courses/{world.values['other_course_id']}").status_code == 200


def test_only_site_instructors_and_admins_create_courses(world):
    for who, expected in (("outsider", 403), ("learner", 403)):
        client, token = world.clients[who]
        response = client.post("/courses/", data={"csrf_token": token, "name": "Mine", "time_zone": "UTC"})
        assert response.status_code == expected, who
    client, token = world.clients["other_instructor"]
    response = client.post("/courses/", data={"csrf_token": token, "name": "Tom's second", "time_zone": "UTC"})
    assert response.status_code == 302 and response.location.startswith("/courses/")
    learner_page = world.clients["outsider"][0].get("/courses/").get_data(as_text=True)
    assert "Create a course" not in learner_page and "Join a course" in learner_page


def test_a_visitor_teaches_no_course_and_asking_reads_no_membership(world):
    from web.access.permissions import teaches
    from web.core.models import Course, User
    from web.services import services

    with services(world.app).sessions() as session:
        course = session.get(Course, world.values["course_id"])
        people = {who: session.scalar(select(User).where(User.name == ACCOUNT[who])) for who in PEOPLE}
        assert teaches(session, None, course) is False  # no account: no membership to look up
        assert {name for name in PEOPLE if teaches(session, people[name], course)} == {"instructor", "admin"}


def test_a_course_one_may_not_teach_is_the_404_of_a_missing_course_naming_the_id_asked(world):
    """The other course's instructor and the outsider (in no course) get, for the course, the very 404 of a course
    that does not exist: its message names the id they asked, nothing more (existence is a secret)."""
    course_id = world.values["course_id"]
    client = world.app.test_client()
    for who in ("other_instructor", "outsider"):
        for asked in (course_id, course_id + 1000):
            response = client.get(f"/api/v1/courses/{asked}/gradebook", headers=world.headers(who))
            assert (response.status_code, response.get_json()) == (
                404, {"error": "Not Found", "message": f"no course {asked}"}), (who, asked)
    learner = client.get(f"/api/v1/courses/{course_id}/gradebook", headers=world.headers("learner"))
    assert (learner.status_code, learner.get_json()["message"]) == (403, "this is for the course's instructors")
    assert client.get(f"/api/v1/courses/{course_id}/gradebook", headers=world.headers("instructor")).status_code == 200


def test_an_invitation_not_of_the_course_is_the_404_of_a_missing_one(world):
    """An instructor withdrawing, through their own course, an invitation of another course or one
    that does not exist gets a 404 (not a 403: the other course's invitation is a secret) that
    names the id; the other course's invitation stays pending."""
    from web.core.models import CourseRole, Invitation, InvitationState, User
    from web.services import services

    with services(world.app).sessions() as session:
        people = {who: session.scalar(select(User).where(User.name == ACCOUNT[who])) for who in PEOPLE}
        elsewhere = Invitation(course_id=world.values["other_course_id"], user_id=people["outsider"].id,
                               role=CourseRole.learner, invited_by_id=people["other_instructor"].id)
        session.add(elsewhere)
        session.commit()
        elsewhere_id = elsewhere.id
    course_id = world.values["course_id"]
    client, token = world.clients["instructor"]
    for invitation_id in (elsewhere_id, elsewhere_id + 1000):
        response = world.app.test_client().post(
            f"/api/v1/courses/{course_id}/invitations/{invitation_id}/withdraw", headers=world.headers("instructor"))
        assert (response.status_code, response.get_json()) == (
            404, {"error": "Not Found", "message": f"no invitation {invitation_id} in this course"})
        page = client.post(f"/courses/{course_id}/invitations/{invitation_id}/withdraw", data={"csrf_token": token})
        assert page.status_code == 404, invitation_id
    with services(world.app).sessions() as session:
        assert session.get(Invitation, elsewhere_id).state is InvitationState.pending


def test_a_rejudge_of_one_submission_is_seen_by_who_teaches_its_course_alone(world):
    """A rejudge of one submission has no course of its own: it is seen by whom the submission's
    context says (its course's instructor and the admin; of a practice submission, the admin
    alone), never by its author nor by who teaches another course."""
    from web.core.models import Exercise, Rejudge, RejudgeScope, User
    from web.services import services

    with services(world.app).sessions() as session:
        people = {who: session.scalar(select(User).where(User.name == ACCOUNT[who])) for who in PEOPLE}
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        practice = store_graded(session, people["learner"], exercise, "x = 4\n", {"verdict": "AC"}, course=None)
        rejudges = {}
        for name, submission_id in (("course", world.values["submission_id"]), ("practice", practice)):
            rejudge = Rejudge(scope=RejudgeScope.submission, submission_id=submission_id,
                              requested_by_id=people["admin"].id)
            session.add(rejudge)
            session.commit()
            rejudges[name] = rejudge.id
    seen_by = {"course": {"instructor", "admin"}, "practice": {"admin"}}
    for name, rejudge_id in rejudges.items():
        for who in PEOPLE:
            api = world.app.test_client().get(f"/api/v1/rejudges/{rejudge_id}", headers=world.headers(who))
            page = world.clients[who][0].get(f"/rejudges/{rejudge_id}")
            expected = 200 if who in seen_by[name] else 404
            assert (api.status_code, page.status_code) == (expected, expected), (name, who)
