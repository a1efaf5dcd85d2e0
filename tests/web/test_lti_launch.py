"""LTI 1.3 launches against an independent platform (lti1p3platform, tests/web/lti_platform.py):
registration, accounts, courses and memberships, and every refusal as a clear 4xx page."""

from __future__ import annotations

import base64
import datetime as dt
import json
import logging
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import func, select

from tests.web.lti_platform import (
    INSTRUCTOR,
    LEARNER,
    TOOL,
    TestPlatform,
    key_server,
    platform,
    rsa_pem,
    site,
)
from web.core.models import Course, CourseRole, Membership, User
from web.lms.models import LtiAccount, LtiContext, LtiResourceLink
from web.services import services


def _count(app, model, *where) -> int:
    with services(app).sessions() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where)) or 0


def _refused(response, reason: str, status: int) -> None:
    html = response.get_data(as_text=True)
    assert response.status_code == status, (response.status_code, html[:400])
    assert f'data-reason="{reason}"' in html
    assert "The LMS launch was refused" in html


def test_an_instructors_first_launch_makes_the_account_the_course_and_signs_in(site, platform):
    response = platform.launch(site.test_client(), sub="teacher-1", roles=(INSTRUCTOR,), name="Mei Chen")
    assert response.status_code == 302
    with services(site).sessions() as session:
        account = session.scalar(select(LtiAccount).where(LtiAccount.sub == "teacher-1"))
        assert account is not None and account.issuer == platform.issuer
        user = session.get(User, account.user_id)
        assert user.name.startswith("Mei-Chen-") and not user.check_password("")
        context = session.scalar(select(LtiContext))
        course = session.get(Course, context.course_id)
        assert course.name == "Probability 101"
        membership = session.scalar(select(Membership).where(Membership.user_id == user.id))
        assert membership.role is CourseRole.instructor and membership.course_id == course.id
        assert context.memberships_url == f"{platform.issuer}/api/memberships"
        assert context.lineitems_url == f"{platform.issuer}/api/lineitems"
        link = session.scalar(select(LtiResourceLink))
        assert link.lineitem_url == f"{platform.issuer}/api/lineitems/7"
    assert response.location.endswith(f"/courses/{course.id}")


def test_the_launch_signs_in_with_a_cross_site_cookie_and_lets_the_lms_frame_the_pages(site, platform):
    client = site.test_client()
    response = platform.launch(client, sub="teacher-1", roles=(INSTRUCTOR,))
    cookie = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith("session="))
    assert "SameSite=None" in cookie and "Secure" in cookie
    page = client.get(response.location, base_url=TOOL)
    assert page.status_code == 200  # signed in: the course page, not the sign-in redirect
    assert "frame-ancestors https://lms.test" in page.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in page.headers


def test_normal_sign_in_keeps_lax_cookies_and_refuses_frames(site):
    from tests.web.site_client import sign_up

    response = sign_up(site.test_client(), "zed")
    cookie = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith("session="))
    assert "SameSite=Lax" in cookie
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


def test_a_second_launch_reuses_the_account_course_and_membership(site, platform):
    platform.launch(site.test_client(), sub="teacher-1", roles=(INSTRUCTOR,))
    platform.launch(site.test_client(), sub="learner-1", roles=(LEARNER,))
    response = platform.launch(site.test_client(), sub="learner-1", roles=(LEARNER,))
    assert response.status_code == 302
    assert _count(site, LtiAccount) == 2
    assert _count(site, User) == 2
    assert _count(site, Course) == 1
    assert _count(site, Membership) == 2
    assert _count(site, Membership, Membership.role == CourseRole.learner) == 1


def test_a_learner_cannot_open_a_course_no_instructor_has_launched(site, platform):
    response = platform.launch(site.test_client(), sub="learner-1", roles=(LEARNER,))
    _refused(response, "no_course_yet", 403)
    assert _count(site, Course) == 0
    assert _count(site, LtiContext) == 0


def test_two_client_ids_of_one_issuer_are_one_person(site, key_server, platform):
    second = TestPlatform(key_server, client_id="client-2", deployment_id="deployment-9")
    second.register_in(site)
    platform.launch(site.test_client(), sub="teacher-1", roles=(INSTRUCTOR,))
    response = second.launch(site.test_client(), sub="teacher-1", roles=(INSTRUCTOR,))
    assert response.status_code == 302
    assert _count(site, LtiAccount) == 1
    assert _count(site, User) == 1


def test_custom_parameters_open_the_exercise_and_never_another_courses_assignment(site, platform):
    from web.core.models import Assignment
    from web.teaching.courses import create_course

    with services(site).sessions() as session:
        stranger = User(name="stranger", password_hash="!")
        session.add(stranger)
        session.flush()
        other = create_course(session, stranger, "Other course")
        now = dt.datetime.now(dt.UTC)
        foreign = Assignment(course_id=other.id, title="theirs", opens_at=now, due_at=now)
        session.add(foreign)
        session.commit()
        foreign_id = foreign.id
    client = site.test_client()
    response = platform.launch(
        client, sub="t", roles=(INSTRUCTOR,), link_id="l-ex", custom={"probjudge_exercise": _slug(site)}
    )
    assert f"/exercises/{_slug(site)}" in response.location
    response = platform.launch(
        client, sub="t", roles=(INSTRUCTOR,), link_id="l-as", custom={"probjudge_assignment": str(foreign_id)}
    )
    assert "/assignments/" not in response.location  # the course page, not the other course's assignment
    with services(site).sessions() as session:
        link = session.scalar(select(LtiResourceLink).where(LtiResourceLink.resource_link_id == "l-as"))
        assert link.assignment_id is None


def _slug(app) -> str:
    from web.core.models import Exercise

    with services(app).sessions() as session:
        return session.scalar(select(Exercise.slug).order_by(Exercise.number).limit(1))


def test_a_replayed_launch_is_refused(site, platform):
    client = site.test_client()
    response = platform.login(client)
    preflight = {k: v[0] for k, v in parse_qs(urlsplit(response.location).query).items()}
    data = platform.id_token(preflight, sub="teacher-1", roles=(INSTRUCTOR,))
    form = {"id_token": data["id_token"], "state": data["state"]}
    assert client.post("/lti/launch", data=form, base_url=TOOL).status_code == 302
    _refused(client.post("/lti/launch", data=form, base_url=TOOL), "replayed", 403)


def test_a_nonce_the_tool_never_issued_is_refused(site, platform):
    client = site.test_client()
    response = platform.login(client)
    preflight = {k: v[0] for k, v in parse_qs(urlsplit(response.location).query).items()}
    preflight["nonce"] = "made-up"
    data = platform.id_token(preflight, roles=(INSTRUCTOR,))
    _refused(
        client.post("/lti/launch", data={"id_token": data["id_token"], "state": data["state"]}, base_url=TOOL),
        "replayed",
        403,
    )


def test_a_token_for_another_audience_is_refused(site, platform):
    response = platform.launch(
        site.test_client(), roles=(INSTRUCTOR,), claims={"aud": "someone-else", "azp": "someone-else"}
    )
    _refused(response, "unknown_platform", 400)
    assert _count(site, User) == 0


def test_an_expired_token_is_refused(site, platform):
    response = platform.launch(site.test_client(), roles=(INSTRUCTOR,), expires_in=-120)
    _refused(response, "expired", 403)


def test_an_unknown_deployment_is_refused(site, platform):
    claims = {"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "not-registered"}
    response = platform.launch(site.test_client(), roles=(INSTRUCTOR,), claims=claims)
    _refused(response, "unknown_deployment", 403)
    assert _count(site, User) == 0


def test_an_unknown_issuer_is_refused_at_login_and_at_launch(site, key_server, platform):
    stranger = TestPlatform(key_server, issuer="https://elsewhere.test")
    _refused(stranger.login(site.test_client()), "unknown_platform", 400)
    response = platform.launch(site.test_client(), roles=(INSTRUCTOR,), claims={"iss": "https://elsewhere.test"})
    _refused(response, "unknown_platform", 400)


def test_a_token_signed_by_another_key_is_refused(site, platform):
    response = platform.launch(site.test_client(), roles=(INSTRUCTOR,), sign_with=rsa_pem())
    _refused(response, "bad_signature", 403)
    assert _count(site, User) == 0


def test_a_token_tampered_after_signing_is_refused(site, platform):
    client = site.test_client()
    response = platform.login(client)
    preflight = {k: v[0] for k, v in parse_qs(urlsplit(response.location).query).items()}
    data = platform.id_token(preflight, roles=(LEARNER,))
    header, body, signature = data["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims[CLAIM_ROLES] = [INSTRUCTOR]
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    response = client.post(
        "/lti/launch", data={"id_token": f"{header}.{forged}.{signature}", "state": data["state"]}, base_url=TOOL
    )
    _refused(response, "bad_signature", 403)


CLAIM_ROLES = "https://purl.imsglobal.org/spec/lti/claim/roles"


def test_a_wrong_message_type_is_refused(site, platform):
    claims = {"https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiSubmissionReviewRequestX"}
    _refused(platform.launch(site.test_client(), roles=(INSTRUCTOR,), claims=claims), "wrong_message", 400)


def test_a_launch_without_a_context_is_refused(site, platform):
    response = platform.launch(
        site.test_client(), roles=(INSTRUCTOR,), drop=("https://purl.imsglobal.org/spec/lti/claim/context",)
    )
    _refused(response, "missing_claims", 400)
    assert _count(site, Course) == 0


def test_a_launch_without_state_or_token_is_a_clear_page(site, platform, caplog):
    client = site.test_client()
    with caplog.at_level(logging.WARNING, logger="probjudge.lti"):
        _refused(client.post("/lti/launch", data={}, base_url=TOOL), "bad_state", 400)
        _refused(client.post("/lti/launch", data={"state": "x", "id_token": "a.b"}, base_url=TOOL), "bad_state", 400)
    assert "Missing state" in caplog.text  # the detail goes to the log, not the page


def test_garbage_tokens_after_a_real_login_never_make_a_500(site, platform):
    client = site.test_client()
    response = platform.login(client)
    state = parse_qs(urlsplit(response.location).query)["state"][0]
    for token in ("a.b", "a.b.c", "eyJhbGciOiJub25lIn0.eyJub25jZSI6MX0.", "x" * 5000, "..", "\u00e9.\u00e9.\u00e9"):
        answer = client.post("/lti/launch", data={"state": state, "id_token": token}, base_url=TOOL)
        assert 400 <= answer.status_code < 500, (token[:20], answer.status_code)


def test_the_login_page_checks_cookies_first_and_offers_a_new_window(site, platform):
    response = platform.login(site.test_client(), lti1p3_new_window="")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'id="lti-cookie-check"' in html and "lti1p3_new_window=1" in html
    assert 'target="_blank"' in html and "<script>" not in html  # no inline script: our CSP forbids it


@pytest.mark.parametrize("name", ["李雷", "../../root", "a" * 500, "", "  ", "Ann\x00Lee", "root"])
def test_generated_names_are_valid_unique_and_never_an_existing_account(site, platform, name):
    from web.core.names import USER_NAME

    platform.launch(site.test_client(), sub="teacher-1", roles=(INSTRUCTOR,), name="root")
    response = platform.launch(site.test_client(), sub="someone", roles=(LEARNER,), name=name or None)
    assert response.status_code == 302
    with services(site).sessions() as session:
        names = list(session.scalars(select(User.name)))
    assert len(names) == len(set(names)) == 2 and all(re.fullmatch(USER_NAME, n) for n in names)
    assert "root" not in names


def test_an_overlong_sub_is_refused_rather_than_cut(site, platform):
    platform.launch(site.test_client(), sub="x" * 255, roles=(INSTRUCTOR,))
    response = platform.launch(site.test_client(), sub="x" * 255 + "y", roles=(INSTRUCTOR,))
    _refused(response, "missing_claims", 400)
    assert _count(site, LtiAccount) == 1


def test_claims_the_database_cannot_store_are_dropped_or_refused(site, platform):
    claims = {"https://purl.imsglobal.org/spec/lti/claim/context": {"id": "c-1", "title": "Prob\x00ability"}}
    response = platform.launch(site.test_client(), sub="t", roles=(INSTRUCTOR,), claims=claims)
    assert response.status_code == 302
    with services(site).sessions() as session:
        assert session.scalar(select(Course.name)) == "c-1"  # the title could not be stored: the id names it
    _refused(platform.launch(site.test_client(), sub="t\x00", roles=(INSTRUCTOR,)), "missing_claims", 400)


def test_the_nonce_is_shared_by_every_process_of_the_site_and_used_once(make_site, site, platform):
    """Two site processes on one database: the login on one, the launch on the other (a load
    balancer may do that), then the same launch replayed on the first is refused."""
    other = make_site(start_workers=False, database_url=services(site).settings.database_url)
    first, second = site.test_client(), other.test_client()
    response = platform.login(first)
    preflight = {k: v[0] for k, v in parse_qs(urlsplit(response.location).query).items()}
    state_cookie = first.get_cookie(f"lti1p3-{preflight['state']}", domain="tool.test")
    assert state_cookie is not None
    second.set_cookie(state_cookie.key, state_cookie.value, domain="tool.test")
    data = platform.id_token(preflight, sub="teacher-1", roles=(INSTRUCTOR,))
    form = {"id_token": data["id_token"], "state": data["state"]}
    assert second.post("/lti/launch", data=form, base_url=TOOL).status_code == 302
    _refused(first.post("/lti/launch", data=form, base_url=TOOL), "replayed", 403)
