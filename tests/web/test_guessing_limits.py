"""Rate limits where guessing pays: join codes (page and API, one count), API tokens, diffs.

Each attack is the one the limit is for: a learner trying join codes until one opens a course,
through the page, the API or both; and each refusal is a 429 that says why, in the learner's
language on pages and as JSON in the API, while another account is unaffected.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.web.site_client import csrf_token, sign_in, sign_up
from tests.web.world import api_token
from web.core.models import ApiToken, Role, User
from web.services import services
from web.teaching.courses import create_course

WRONG_CODES_ALLOWED = 10  # JOIN_LIMIT's per-minute count (web.core.extensions)


def _course_code(app) -> str:
    with services(app).sessions() as session:
        teacher = User(name="tia", role=Role.instructor)
        teacher.set_password("password123")
        session.add(teacher)
        session.flush()
        course = create_course(session, teacher, "Sampling 101")
        session.commit()
        return course.join_code


def _join_page(client, code: str, lang: str = "en"):
    token = csrf_token(client, "/courses/")
    return client.post(f"/courses/join?lang={lang}", data={"csrf_token": token, "join_code": code})


def _join_api(app, headers: dict, code: str):
    return app.test_client().post("/api/v1/courses/join", json={"join_code": code}, headers=headers)


@pytest.fixture
def site(make_site):
    return make_site(start_workers=False, rate_limits=True)


@pytest.mark.parametrize("lang, refusal", [("en", "Too many requests"), ("zh", "请求过于频繁")])
def test_guessing_join_codes_on_the_page_is_stopped_then_even_the_right_code_waits(site, lang, refusal):
    code = _course_code(site)
    ann, bob = site.test_client(), site.test_client()
    sign_up(ann, "ann")
    sign_up(bob, "bob")
    statuses = [_join_page(ann, f"WRONG{n:03d}").status_code for n in range(WRONG_CODES_ALLOWED)]
    assert statuses == [404] * WRONG_CODES_ALLOWED
    refused = _join_page(ann, "WRONG999", lang)
    assert refused.status_code == 429 and refusal in refused.get_data(as_text=True)
    assert _join_page(ann, code, lang).status_code == 429  # the right code too, until the window passes
    assert _join_page(bob, code).status_code == 302  # another account (same address) is unaffected


def test_guessing_join_codes_through_the_api_is_stopped_with_a_json_answer(site):
    code = _course_code(site)
    ann, bob = api_token(site, "ann"), api_token(site, "bob")
    assert [_join_api(site, ann, f"WRONG{n:03d}").status_code for n in range(WRONG_CODES_ALLOWED)] == [404] * 10
    refused = _join_api(site, ann, code)
    assert refused.status_code == 429 and refused.is_json
    assert "too many wrong join codes" in refused.json["message"]
    assert _join_api(site, bob, code).status_code == 200


def test_the_page_and_the_api_share_one_count_of_wrong_codes(site):
    code = _course_code(site)
    ann = site.test_client()
    sign_up(ann, "ann")
    with services(site).sessions() as session:
        user = session.query(User).filter_by(name="ann").one()
        token, secret = ApiToken.issue(user)
        session.add(token)
        session.commit()
    for n in range(WRONG_CODES_ALLOWED // 2):
        assert _join_page(ann, f"WRONG{n:03d}").status_code == 404
        assert _join_api(site, {"Authorization": f"Bearer {secret}"}, f"WRONG{n:03d}").status_code == 404
    assert _join_api(site, {"Authorization": f"Bearer {secret}"}, code).status_code == 429
    assert _join_page(ann, code).status_code == 429


def test_joining_many_courses_by_their_right_codes_is_never_limited(site):
    ann = site.test_client()
    sign_up(ann, "ann")
    codes = []
    with services(site).sessions() as session:
        teacher = User(name="tia", role=Role.instructor)
        teacher.set_password("password123")
        session.add(teacher)
        session.flush()
        for n in range(WRONG_CODES_ALLOWED + 2):
            codes.append(create_course(session, teacher, f"Course {n}").join_code)
        session.commit()
    assert [_join_page(ann, code).status_code for code in codes] == [302] * len(codes)


def test_creating_api_tokens_is_limited_per_account(site):
    ann, bob = site.test_client(), site.test_client()
    sign_up(ann, "ann")
    sign_up(bob, "bob")

    def create(client):
        return client.post("/profile/tokens", data={"csrf_token": csrf_token(client, "/profile/"), "label": "cli"})

    for n in range(10):
        assert create(ann).status_code == 200, n
        _revoke_all(site, "ann")  # revoking does not give the count back
    refused = create(ann)
    assert refused.status_code == 429 and "Too many requests" in refused.get_data(as_text=True)
    assert create(bob).status_code == 200


def _revoke_all(app, name: str) -> None:
    """Revoke every token of ``name`` (the churn a limit on creating must still stop)."""
    with services(app).sessions() as session:
        user = session.query(User).filter_by(name=name).one()
        for token in list(user.tokens):
            session.delete(token)
        session.commit()


# --- the per-address limits (a class behind one NAT shares them) ---------------------------------

ELSEWHERE = {"REMOTE_ADDR": "10.1.2.3"}


def test_wrong_codes_from_one_address_are_limited_across_accounts(site):
    """JOIN_ADDRESS_LIMIT: 60 wrong codes a minute from one address, whoever sends them. Six
    accounts use their own ten each (all answered); a seventh account's first wrong code, and
    then its right one, are refused; the same account elsewhere joins at once."""
    code = _course_code(site)
    for n in range(6):
        client = site.test_client()
        sign_up(client, f"learner{n}")
        assert [_join_page(client, f"WRONG{k:03d}").status_code for k in range(10)] == [404] * 10, n
    seventh = site.test_client()
    sign_up(seventh, "seventh")
    assert _join_page(seventh, "WRONG999").status_code == 429
    assert _join_page(seventh, code).status_code == 429
    away = site.test_client()
    away.environ_base.update(ELSEWHERE)
    assert sign_in(away, "seventh").status_code == 302
    assert _join_page(away, code).status_code == 302


def test_signing_in_from_one_address_is_limited_across_names(site, monkeypatch):
    """SIGN_IN_ADDRESS_LIMIT: 120 sign-in tries a minute from one address, each name tried once
    (the per-name limit never bites): the 121st, even with the right password, is refused; the
    same account signs in from another address."""
    sign_up(site.test_client(), "ann")
    monkeypatch.setattr("web.accounts.auth.authenticate", lambda session, name, password: None)  # no hashing: fast
    sprayer = site.test_client()
    token = csrf_token(sprayer, "/auth/sign-in")
    statuses = [sprayer.post("/auth/sign-in", data={"csrf_token": token, "name": f"name{n}",
                                                    "password": "password123"}).status_code for n in range(120)]
    assert statuses == [401] * 120
    monkeypatch.undo()
    assert sign_in(sprayer, "ann").status_code == 429
    away = site.test_client()
    away.environ_base.update(ELSEWHERE)
    assert sign_in(away, "ann").status_code == 302


def test_signing_up_from_one_address_is_limited(site):
    """SIGN_UP_LIMIT: 60 sign-up tries an hour from one address, refused forms included; the
    60th still makes an account, the 61st does not; another address signs up."""
    for n in range(59):
        client = site.test_client()
        token = csrf_token(client, "/auth/sign-up")
        refused = client.post("/auth/sign-up", data={"csrf_token": token, "name": f"zed{n}", "password": "password123",
                                                     "confirm": "password124", "language": "en"})
        assert refused.status_code == 400, n  # the passwords differ: refused by the form, and counted
    assert sign_up(site.test_client(), "sixtieth").status_code == 302
    assert sign_up(site.test_client(), "sixty_first").status_code == 429
    away = site.test_client()
    away.environ_base.update(ELSEWHERE)
    assert sign_up(away, "from_elsewhere").status_code == 302
    with services(site).sessions() as session:
        names = set(session.scalars(select(User.name)))
    assert {"sixtieth", "from_elsewhere"} <= names and "sixty_first" not in names
