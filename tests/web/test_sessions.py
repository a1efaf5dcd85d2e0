"""Sign-in sessions are server-side records: the cookie holds a token, and ending the record
(sign-out, a password change elsewhere, ``python -m web set-password``, idleness) signs that
cookie out everywhere, copies included. Sign-in costs one password hash, name known or not.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import pytest
from flask_login.utils import encode_cookie
from markupsafe import escape as html_escape
from site_client import build_url, csrf_token, rules, sign_in, sign_up, submit
from sqlalchemy import select, update

from tests.web.world import api_token
from web.__main__ import main as web_command
from web.accounts import users as accounts
from web.core.models import Submission, User, UserSession
from web.core.texts import TEXTS
from web.services import services

SIGN_OUT_BUTTON = 'action="/auth/sign-out"'


def _rows(app, model=UserSession) -> list:
    with services(app).sessions() as session:
        return session.scalars(select(model).order_by(model.id)).all()


def _copy(app, client):
    """Another browser with a copy of ``client``'s session cookie (what a thief would have)."""
    thief = app.test_client()
    thief.set_cookie("session", client.get_cookie("session").value)
    return thief


def _cookie_session(app, client) -> dict:
    return app.session_interface.get_signing_serializer(app).loads(client.get_cookie("session").value)


def _pages(app, submission_id: int) -> list[str]:
    """Every page a browser GETs (not the API, not static files), with real ids filled in."""
    return [build_url(rule, default=1, identifier="39", submission_id=submission_id)
            for rule in rules(app, api=False, method="GET")]


def _set_password_command(app, monkeypatch, name: str, password: str) -> None:
    monkeypatch.setenv("DATABASE_URL", services(app).settings.database_url)
    monkeypatch.setenv("SECRET_KEY", "test")
    assert web_command(["set-password", name, "--password", password]) == 0


def _change_password(client, current: str, new: str):
    return client.post("/profile/password", data={"csrf_token": csrf_token(client, "/profile/"),
                                                  "current_password": current, "new_password": new,
                                                  "new_password_again": new})


# --- server-side records --------------------------------------------------------------------------

def test_the_cookie_holds_a_session_token_whose_hash_is_stored(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    (row,) = _rows(app)
    token = _cookie_session(app, client)["_user_id"]
    assert token != str(row.user_id) and len(token) >= 40
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest() and token not in row.token_hash
    # The token is a credential: no page shows it (the editor's draft key uses the account id).
    assert token not in client.get("/exercises/39").get_data(as_text=True)
    sign_in(app.test_client(), "ann")
    assert len(_rows(app)) == 2  # one row per signed-in browser


@pytest.mark.parametrize("ending", ["sign-out", "password change elsewhere", "python -m web set-password"])
def test_a_copied_cookie_signs_nobody_in_once_its_session_ends(make_site, monkeypatch, ending):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    submission_id = int(submit(client, "x = 1\n").location.rsplit("/", 1)[1])
    headers = api_token(app, "ben")
    thief = _copy(app, client)
    assert thief.get("/profile/").status_code == 200  # the copy works while the session lives
    if ending == "sign-out":
        client.post("/auth/sign-out", data={"csrf_token": csrf_token(client, "/profile/")})
    elif ending == "password change elsewhere":
        elsewhere = app.test_client()
        sign_in(elsewhere, "ann")
        assert _change_password(elsewhere, "password123", "password456").status_code == 302
        assert elsewhere.get("/profile/").status_code == 200  # the browser that changed it stays in
    else:
        _set_password_command(app, monkeypatch, "ann", "password456")
    anonymous = app.test_client()
    for url in _pages(app, submission_id):
        replayed, fresh = thief.get(url), anonymous.get(url)
        assert replayed.status_code == fresh.status_code, url
        if fresh.status_code == 302:
            assert replayed.location.startswith("/auth/sign-in"), url
        else:
            assert SIGN_OUT_BUTTON.encode() not in replayed.data, url
    for browser in (thief, client):  # the original cookie is dead as well
        assert browser.get("/profile/").status_code == 302
    assert app.test_client().get("/api/v1/exercises", headers=headers).status_code == 200  # tokens are separate


def test_a_password_change_keeps_this_session_ends_the_others_and_keeps_api_tokens(make_site):
    app = make_site(start_workers=False)
    here, laptop, phone = app.test_client(), app.test_client(), app.test_client()
    sign_up(here, "ann")
    sign_in(laptop, "ann")
    sign_in(phone, "ann")
    sign_up(app.test_client(), "ben")  # another account's session is not touched
    secret = re.search(r'id="new-token">(pj_[^<]+)<', here.post("/profile/tokens", data={
        "csrf_token": csrf_token(here, "/profile/"), "label": "cli"}).get_data(as_text=True)).group(1)
    changed = _change_password(here, "password123", "a new password")
    assert changed.status_code == 302
    assert "Sessions signed out elsewhere: 2." in here.get("/profile/").get_data(as_text=True)
    assert laptop.get("/profile/").status_code == 302 and phone.get("/profile/").status_code == 302
    assert len(_rows(app)) == 2  # this browser's, and ben's
    assert app.test_client().get("/api/v1/exercises", headers={"Authorization": f"Bearer {secret}"}).status_code == 200
    assert sign_in(app.test_client(), "ann", "password123").status_code == 401
    assert sign_in(app.test_client(), "ann", "a new password").status_code == 302


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_password_form_checks_the_current_password_and_the_new_one(make_site, lang):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    index = 1 if lang == "zh" else 0
    page = client.get(f"/profile/?lang={lang}").get_data(as_text=True)
    assert TEXTS["change_password"][index] in page and 'autocomplete="current-password"' in page
    wrong = _change_password(client, "not my password", "password456")
    assert wrong.status_code == 400
    assert html_escape(TEXTS["wrong_current_password"][index]) in wrong.get_data(as_text=True)
    for new, again, message in (("short", "short", "password_length"), ("password456", "password789", "passwords_differ")):
        response = client.post("/profile/password", data={"csrf_token": csrf_token(client, "/profile/"),
                                                          "current_password": "password123", "new_password": new,
                                                          "new_password_again": again})
        assert response.status_code == 400 and html_escape(TEXTS[message][index]) in response.get_data(as_text=True)
    no_token = client.post("/profile/password", data={"current_password": "password123",
                                                      "new_password": "password456",
                                                      "new_password_again": "password456"})
    assert no_token.status_code == 400  # CSRF
    assert sign_in(app.test_client(), "ann", "password123").status_code == 302  # nothing changed


def test_changing_the_password_is_rate_limited_like_signing_in(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    statuses = [_change_password(client, f"guess-{n:04d}", "password456").status_code for n in range(11)]
    assert statuses[:10] == [400] * 10 and statuses[10] == 429
    # Per account: a second browser of the same account is limited too.
    other = app.test_client()
    sign_in(other, "ann")
    assert _change_password(other, "password123", "password456").status_code == 429


def test_set_password_command_ends_every_session_of_that_user_only(make_site, monkeypatch, capsys):
    app = make_site(start_workers=False)
    ann, ann2, ben = app.test_client(), app.test_client(), app.test_client()
    sign_up(ann, "ann")
    sign_in(ann2, "ann")
    sign_up(ben, "ben")
    _set_password_command(app, monkeypatch, "ANN", "password456")  # found by its key, like signing in
    assert "2 sign-in sessions ended" in capsys.readouterr().out
    assert ann.get("/profile/").status_code == 302 and ann2.get("/profile/").status_code == 302
    assert ben.get("/profile/").status_code == 200
    assert sign_in(app.test_client(), "ann", "password456").status_code == 302


def test_a_remember_cookie_is_only_as_good_as_its_session(make_site):
    """The site sets no remember cookie; one made by hand still names a session row, so it dies with it."""
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    token = _cookie_session(app, client)["_user_id"]
    with app.test_request_context():
        remember = encode_cookie(token)
    assert not any("remember_token=" in h for h in sign_in(app.test_client(), "ann").headers.getlist("Set-Cookie"))
    carrier = app.test_client()
    carrier.set_cookie("remember_token", remember)
    assert carrier.get("/profile/").status_code == 200
    client.post("/auth/sign-out", data={"csrf_token": csrf_token(client, "/profile/")})
    later = app.test_client()
    later.set_cookie("remember_token", remember)
    assert later.get("/profile/").status_code == 302


def test_cookies_from_before_sessions_existed_sign_nobody_in(make_site):
    """A signed cookie holding an account id (what Flask-Login stored before) is no token."""
    app = make_site(start_workers=False)
    sign_up(app.test_client(), "ann")
    (ann,) = _rows(app, User)
    old = app.session_interface.get_signing_serializer(app).dumps({"_user_id": str(ann.id), "_fresh": True})
    client = app.test_client()
    client.set_cookie("session", old)
    assert client.get("/profile/").status_code == 302


def test_an_idle_session_ends(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")

    def idle_for(idle: dt.timedelta) -> None:
        with services(app).sessions() as session:
            session.execute(update(UserSession).values(last_seen_at=dt.datetime.now(dt.UTC) - idle))
            session.commit()

    idle_for(UserSession.IDLE_LIMIT - dt.timedelta(minutes=1))  # just inside the limit: still signed in
    assert client.get("/profile/").status_code == 200
    idle_for(UserSession.IDLE_LIMIT + dt.timedelta(minutes=1))  # just past it
    assert client.get("/profile/").status_code == 302
    sign_in(client, "ann")
    assert len(_rows(app)) == 1  # signing in again deleted the idle row


def test_requests_refresh_last_seen_at_most_every_few_minutes(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    (row,) = _rows(app)
    client.get("/profile/")
    assert _rows(app)[0].last_seen_at == row.last_seen_at  # no write on every request
    stale = dt.datetime.now(dt.UTC) - UserSession.SEEN_RESOLUTION - dt.timedelta(seconds=5)
    with services(app).sessions() as session:
        session.execute(update(UserSession).values(last_seen_at=stale))
        session.commit()
    client.get("/profile/")
    assert _rows(app)[0].last_seen_at.replace(tzinfo=None) > stale.replace(tzinfo=None)


def test_the_submit_limit_is_per_account_not_per_session(make_site):
    app = make_site(start_workers=False)
    services(app).queue.max_queued_per_user = 1000
    first, second = app.test_client(), app.test_client()
    sign_up(first, "ann")
    assert [submit(first, "x = 1\n").status_code for _ in range(20)] == [302] * 20
    sign_in(second, "ann")  # a new session must not start a new count
    assert submit(second, "x = 1\n").status_code == 429
    assert len(_rows(app, Submission)) == 20


# --- sign-in timing ------------------------------------------------------------------------------

def test_sign_in_hashes_a_password_whether_or_not_the_name_exists(make_site, monkeypatch):
    app = make_site(start_workers=False)
    sign_up(app.test_client(), "ann")
    checked: list[str] = []
    real = accounts.check_password_hash

    def spy(stored: str, password: str) -> bool:
        checked.append(stored)
        return real(stored, password)

    monkeypatch.setattr(accounts, "check_password_hash", spy)
    for name in ("nobody", "ann", "somebody-else"):
        assert sign_in(app.test_client(), name, "wrong-password").status_code == 401
    assert len(checked) == 3  # one hash check per attempt, known name or not
    unknown, known, unknown_again = checked
    (ann,) = _rows(app, User)
    assert known == ann.password_hash and unknown == unknown_again == accounts.dummy_password_hash()
    # The dummy is made once, with the method and parameters of real hashes.
    assert unknown.split("$")[0] == known.split("$")[0]
    assert sign_in(app.test_client(), "ann").status_code == 302 and len(checked) == 4
