"""Authorization on the server, for every route of the URL map and every role.

A learner reaches no instructor page or route (403 inside their course, 404 elsewhere); an
instructor reaches their own courses only (another course is a 404, as if it did not exist);
the site admin reaches everything; a visitor is sent to sign in (pages) or gets a 401 (API).
The routes come from the app, so a new route is checked too, and one this test cannot place
fails it until it is classified here.
"""

from __future__ import annotations

import pytest

from tests.web.course_site import course_world
from tests.web.site_client import build_url, csrf_token, rules, sign_in, stop_site

# Routes of one course that only its instructors (and admins) may use.
INSTRUCTOR_PREFIXES = ("/courses/<int:course_id>/", "/api/v1/courses/<int:course_id>/")
INSTRUCTOR_ROUTES = {
    "/submissions/<int:submission_id>/rejudge",
    "/api/v1/submissions/<int:submission_id>/rejudge",
    "/rejudges/<int:rejudge_id>",
    "/api/v1/rejudges/<int:rejudge_id>",
}
# Routes its members may use: the course's home, and leaving it.
MEMBER_ROUTES = {"/courses/<int:course_id>", "/api/v1/courses/<int:course_id>",
                 "/courses/<int:course_id>/leave", "/api/v1/courses/<int:course_id>/leave"}
# Routes of one submission: its author and those who teach the author.
SUBMISSION_PREFIXES = ("/submissions/<int:", "/api/v1/submissions/<int:")
# Routes with an id that belong to the signed-in user alone (checked by their own tests).
OWN_ROUTES = {"/profile/tokens/<int:token_id>/revoke",
              "/courses/invitations/<int:invitation_id>/accept", "/courses/invitations/<int:invitation_id>/decline",
              "/api/v1/invitations/<int:invitation_id>/accept", "/api/v1/invitations/<int:invitation_id>/decline"}
# Routes of the site admin alone: everyone else gets a 404.
ADMIN_PREFIXES = ("/admin/", "/api/v1/admin/")


def kind(rule) -> str:
    path = rule.rule
    if path in MEMBER_ROUTES:  # before the instructor prefixes, which would take /leave
        return "member"
    if path.startswith(ADMIN_PREFIXES):
        return "admin"
    if path in INSTRUCTOR_ROUTES or path.startswith(INSTRUCTOR_PREFIXES):
        return "instructor"
    if path.startswith(SUBMISSION_PREFIXES):
        return "submission"
    if path in OWN_ROUTES:
        return "own"
    return "open" if "<int:" not in path else "unclassified"


@pytest.fixture(scope="module")
def world(module_databases):
    from judge.process import LocalLauncher
    from web.app import create_app
    from web.config import Settings

    def make_site(start_workers=False):
        settings = Settings(database_url=module_databases.new(), secret_key="test", workers=1,
                            sandbox="local", max_code_bytes=64 * 1024, rate_limits=False)
        return create_app(settings, launcher=LocalLauncher(), start_workers=start_workers)

    built = course_world(make_site)
    clients = {}
    for name in built.headers:
        client = built.app.test_client()
        assert sign_in(client, name).status_code == 302
        clients[name] = (client, csrf_token(client, "/profile/"))
    visitor = built.app.test_client()
    clients[None] = (visitor, csrf_token(visitor, "/auth/sign-in"))
    built.clients = clients
    yield built
    stop_site(built.app)


def answer(world, who, rule, method):
    url = build_url(rule, **world.values)
    if rule.rule.startswith("/api/"):
        headers = world.headers[who] if who else {}
        return world.app.test_client().open(url, method=method, headers=headers, json={} if method != "GET" else None)
    client, token = world.clients[who]
    return client.open(url, method=method, data={"csrf_token": token} if method != "GET" else None)


def walked(world):
    for rule in rules(world.app):
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield rule, method


def test_every_route_with_an_id_is_classified(world):
    unknown = sorted({rule.rule for rule, _ in walked(world) if kind(rule) == "unclassified"})
    assert not unknown, f"classify these routes in {__file__}: {unknown}"


def _refused_visitor(response, rule) -> bool:
    if rule.rule.startswith("/api/"):
        return response.status_code == 401
    return response.status_code == 302 and response.location.startswith("/auth/sign-in")


def test_visitors_are_sent_to_sign_in_or_get_a_401(world):
    for rule, method in walked(world):
        if kind(rule) in ("instructor", "member", "submission", "own", "admin"):
            response = answer(world, None, rule, method)
            assert _refused_visitor(response, rule), (method, rule.rule, response.status_code)


@pytest.mark.parametrize("who, allowed", [("bob", set()), ("tom", set()), ("ann", {"member", "submission"}),
                                          ("tia", {"member", "submission", "instructor"}),
                                          ("root", {"member", "submission", "instructor"})])
def test_each_role_reaches_exactly_what_it_may(world, who, allowed):
    checked = 0
    for rule, method in walked(world):
        place = kind(rule)
        if place not in ("instructor", "member", "submission"):
            continue
        response = answer(world, who, rule, method)
        status = response.status_code
        assert status < 500, (who, method, rule.rule, status)
        if place in allowed:
            # Allowed: whatever the body's fate (an empty body may be a 400), never a refusal.
            assert status not in (401, 403, 404), (who, method, rule.rule, status, response.get_data(as_text=True)[:200])
        elif who == "ann":
            assert status in (403, 404), (who, method, rule.rule, status)  # a learner of the course
        else:
            assert status == 404, (who, method, rule.rule, status)  # as if it did not exist
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("who", ["bob", "tom", "ann", "tia"])
def test_admin_routes_are_404s_for_everyone_but_the_admin(world, who):
    checked = 0
    for rule, method in walked(world):
        if kind(rule) == "admin" and "<int:" in rule.rule:
            response = answer(world, who, rule, method)
            assert response.status_code == 404, (who, method, rule.rule, response.status_code)
            checked += 1
    assert checked >= 3


def test_the_admin_reaches_the_admin_routes(world):
    for rule, method in walked(world):
        if kind(rule) == "admin":
            response = answer(world, "root", rule, method)
            # An empty form or body is a 400 (no confirmation): nothing is revoked by the walk.
            assert response.status_code in (200, 400), (method, rule.rule, response.status_code)


def test_an_instructor_of_another_course_sees_none_of_this_ones_learners(world):
    client, _ = world.clients["tom"]
    assert client.get(f"/submissions/{world.values['submission_id']}").status_code == 404
    assert client.get(f"/courses/{world.values['other_course_id']}").status_code == 200


def test_only_site_instructors_and_admins_create_courses(world):
    for who, expected in (("bob", 403), ("ann", 403)):
        client, token = world.clients[who]
        response = client.post("/courses/", data={"csrf_token": token, "name": "Mine", "time_zone": "UTC"})
        assert response.status_code == expected, who
    client, token = world.clients["tom"]
    response = client.post("/courses/", data={"csrf_token": token, "name": "Tom's second", "time_zone": "UTC"})
    assert response.status_code == 302 and response.location.startswith("/courses/")
    learner_page = world.clients["bob"][0].get("/courses/").get_data(as_text=True)
    assert "Create a course" not in learner_page and "Join a course" in learner_page
