"""LTI 1.3 deep linking, our keys and their rotation, and registering platforms (page and CLI),
against the independent platform of tests/web/lti_platform.py."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import jwt
import pytest
from sqlalchemy import select

from tests.web.lti_platform import (
    INSTRUCTOR,
    LEARNER,
    TOOL,
    TestPlatform,
    _Conf,
    key_server,
    platform,
    site,
)
from tests.web.site_client import csrf_token, sign_in
from web.accounts.users import create_user
from web.core.models import Exercise, Role
from web.lms.keys import GRACE, published, rotate
from web.lms.models import LtiDeployment, LtiPlatform, LtiResourceLink
from web.services import services

# Over https, Flask-WTF checks that a form comes from our own pages (a browser sends this Referer).
SAME = {"Referer": f"{TOOL}/"}


def _first_exercise(app) -> str:
    with services(app).sessions() as session:
        return session.scalar(select(Exercise.slug).order_by(Exercise.number).limit(1))


def _answer(client, items: list[str]) -> tuple[str, str]:
    """Pick ``items`` on the picker page; the (return URL, JWT) of the auto-submitted form."""
    token = csrf_token(client, f"{TOOL}/lti/deep-link")
    response = client.post("/lti/deep-link", data={"csrf_token": token, "item": items}, base_url=TOOL, headers=SAME)
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html[:400]
    action = unescape(re.search(r'action="([^"]+)" id="lti-return"', html).group(1))
    token = re.search(r'name="JWT" value="([^"]+)"', html).group(1)
    assert f"form-action 'self' {TOOL.replace('tool', 'lms')}" in response.headers["Content-Security-Policy"]
    return action, token


def _platform_reads(app, platform: TestPlatform, token: str) -> list[dict]:
    """What the platform accepts, checked with lti1p3platform against our published JWKS."""
    registration = platform.registration()
    registration.set_tool_key_set(app.test_client().get("/lti/jwks", base_url=TOOL).json)
    return _Conf(registration=registration).validate_deeplinking_resp({"JWT": token})


def test_deep_linking_round_trip_then_the_link_opens_the_exercise(site, platform):
    slug = _first_exercise(site)
    client = site.test_client()
    response = platform.launch(client, sub="teacher-1", roles=(INSTRUCTOR,), deep_link=True, link_id=None)
    assert response.location.endswith("/lti/deep-link")
    picker = client.get("/lti/deep-link", base_url=TOOL).get_data(as_text=True)
    assert f'value="e:{slug}"' in picker
    return_url, token = _answer(client, [f"e:{slug}", "e:no-such-exercise"])
    assert return_url == f"{platform.issuer}/deep_link_return"
    items = _platform_reads(site, platform, token)
    assert [item["custom"] for item in items] == [{"probjudge_exercise": slug}]
    assert items[0]["type"] == "ltiResourceLink" and items[0]["url"] == f"{TOOL}/lti/launch"
    assert items[0]["lineItem"]["scoreMaximum"] == 100.0
    body = jwt.decode(token, options={"verify_signature": False})
    assert body["aud"] == [platform.issuer] and body["iss"] == platform.client_id
    assert body["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == {"d": 1}
    # The LMS now launches the link it made, with the custom parameters it was given.
    learner = site.test_client()
    response = platform.launch(learner, sub="learner-1", roles=(LEARNER,), link_id="placed", custom=items[0]["custom"])
    assert f"/exercises/{slug}" in response.location
    with services(site).sessions() as session:
        link = session.scalar(select(LtiResourceLink).where(LtiResourceLink.resource_link_id == "placed"))
        assert link.exercise_id is not None


def test_deep_linking_offers_the_courses_assignments_and_links_them(site, platform):
    from web.core.models import Assignment, Course

    client = site.test_client()
    platform.launch(client, sub="teacher-1", roles=(INSTRUCTOR,), deep_link=True, link_id=None)
    with services(site).sessions() as session:
        course = session.scalar(select(Course))
        now = dt.datetime.now(dt.UTC)
        assignment = Assignment(course_id=course.id, title="Week 1", opens_at=now, due_at=now + dt.timedelta(days=7))
        session.add(assignment)
        session.commit()
        number = assignment.id
    assert "Week 1" in client.get("/lti/deep-link", base_url=TOOL).get_data(as_text=True)
    _, token = _answer(client, [f"a:{number}"])
    items = _platform_reads(site, platform, token)
    assert items[0]["custom"] == {"probjudge_assignment": str(number)} and items[0]["title"] == "Week 1"


def test_a_learner_cannot_deep_link_and_nothing_picked_is_refused(site, platform):
    platform.launch(site.test_client(), sub="teacher-1", roles=(INSTRUCTOR,))
    response = platform.launch(site.test_client(), sub="l", roles=(LEARNER,), deep_link=True, link_id=None)
    assert response.status_code == 403 and 'data-reason="not_instructor"' in response.get_data(as_text=True)
    client = site.test_client()
    platform.launch(client, sub="teacher-1", roles=(INSTRUCTOR,), deep_link=True, link_id=None)
    token = csrf_token(client, f"{TOOL}/lti/deep-link")
    answer = client.post("/lti/deep-link", data={"csrf_token": token, "item": ["a:999999", "x"]}, base_url=TOOL,
                         headers=SAME)
    assert answer.status_code == 400 and "Tick at least one item." in answer.get_data(as_text=True)


def test_the_picker_without_a_deep_linking_launch_is_a_clear_page(site, platform):
    client = site.test_client()
    platform.launch(client, sub="teacher-1", roles=(INSTRUCTOR,))
    response = client.get("/lti/deep-link", base_url=TOOL)
    assert response.status_code == 400 and 'data-reason="bad_state"' in response.get_data(as_text=True)


def test_rotation_keeps_the_old_key_published_for_its_grace_and_signs_with_the_new(site, platform):
    client = site.test_client()
    platform.launch(client, sub="teacher-1", roles=(INSTRUCTOR,), deep_link=True, link_id=None)
    _, old_token = _answer(client, [f"e:{_first_exercise(site)}"])
    old_kid = jwt.get_unverified_header(old_token)["kid"]
    with services(site).sessions() as session:
        new_kid = rotate(session).kid
        session.commit()
    listed = [key["kid"] for key in client.get("/lti/jwks", base_url=TOOL).json["keys"]]
    assert set(listed) == {old_kid, new_kid}
    assert _platform_reads(site, platform, old_token)  # signed before the rotation: still verifies
    platform.launch(client, sub="teacher-1", roles=(INSTRUCTOR,), deep_link=True, link_id=None)
    _, new_token = _answer(client, [f"e:{_first_exercise(site)}"])
    assert jwt.get_unverified_header(new_token)["kid"] == new_kid
    with services(site).sessions() as session:
        later = dt.datetime.now(dt.UTC) + GRACE + dt.timedelta(minutes=1)
        assert [key.kid for key in published(session, later)] == [new_kid]


def _admin(app):
    with services(app).sessions() as session:
        create_user(session, "root", "password123", Role.admin)
        create_user(session, "ann", "password123", Role.learner)
        session.commit()


def test_the_admin_page_registers_a_platform_and_shows_what_to_give_the_lms(site, key_server):
    _admin(site)
    client = site.test_client()
    sign_in(client, "root")
    page = client.get("/admin/lti").get_data(as_text=True)
    for path in ("/lti/jwks", "/lti/login", "/lti/launch"):
        assert f"http://localhost{path}" in page  # the address the site is reached at
    fields = {"issuer": "https://canvas.test", "client_id": "10000000000001", "deployment_id": "1:abc",
              "auth_login_url": "https://canvas.test/api/lti/authorize_redirect",
              "auth_token_url": "https://canvas.test/login/oauth2/token", "key_set_url": key_server.url}
    token = csrf_token(client, "/admin/lti")
    response = client.post("/admin/lti", data={**fields, "csrf_token": token})
    assert response.status_code == 302
    bad = client.post("/admin/lti", data={**fields, "key_set_url": "file:///etc/passwd", "csrf_token": token})
    assert bad.status_code == 400 and "key_set_url must be an https:// URL" in bad.get_data(as_text=True)
    again = client.post("/admin/lti", data={**fields, "deployment_id": "2:def", "csrf_token": token})
    assert again.status_code == 302
    with services(site).sessions() as session:
        assert session.scalar(select(LtiPlatform.client_id)) == "10000000000001"
        assert sorted(session.scalars(select(LtiDeployment.deployment_id))) == ["1:abc", "2:def"]
    learner = site.test_client()
    sign_in(learner, "ann")
    assert learner.get("/admin/lti").status_code == 404


def test_the_command_line_registers_lists_and_rotates(site, key_server, monkeypatch, capsys):
    from web.__main__ import main

    monkeypatch.setenv("DATABASE_URL", services(site).settings.database_url)
    platform = TestPlatform(key_server, issuer="https://moodle.test")
    assert main([*platform.register_command(), "--site", "https://judge.example.org"]) == 0
    out = capsys.readouterr().out
    assert "https://judge.example.org/lti/jwks" in out and "https://judge.example.org/lti/login" in out
    assert main(["lti", "platforms"]) == 0
    assert "https://moodle.test\tclient-1\tdeployments: deployment-1" in capsys.readouterr().out
    assert main(["lti", "rotate-keys"]) == 0
    assert "new signing key" in capsys.readouterr().out
    with services(site).sessions() as session:
        assert len(published(session)) == 2  # the first key (made at registration) and the new one
    assert main(["lti", "register", "--issuer", "moodle.test", "--client-id", "c", "--deployment", "d",
                 "--auth-login-url", "x", "--auth-token-url", "x", "--key-set-url", "x"]) == 2
    assert "issuer must be an https:// URL" in capsys.readouterr().err
    # The platform the command registered can launch.
    response = platform.launch(site.test_client(), sub="t", roles=(INSTRUCTOR,))
    assert response.status_code == 302
