"""Credentials and grants that can be taken back, at once: an admin's revocation of an account's
tokens and sessions, a password change that revokes tokens, removed members and learners who
leave, rotated join codes, withdrawn extensions and overrides (the gradebook keeps the history)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from sqlalchemy import select

from tests.web.site_client import csrf_token, sign_in
from tests.web.test_course_api import assignment, call, course_with_learners, graded, people_site
from web.core.models import ApiToken, ExtensionEvent, User
from web.services import services


@pytest.fixture
def site(make_site):
    return people_site(make_site)


def _browser(site, name: str):
    client = site.test_client()
    assert sign_in(client, name).status_code == 302
    return client, csrf_token(client, "/profile/")


def _signed_in(client) -> bool:
    return client.get("/profile/").status_code == 200


def _user_id(site, name: str) -> int:
    with services(site).sessions() as session:
        return session.scalar(select(User.id).where(User.name == name))


# --- an admin revokes an account's credentials ---------------------------------------------------


def test_an_admin_revokes_every_token_and_session_of_an_account_at_once(site):
    ann, _ = _browser(site, "ann")
    assert call(site, "ann", "GET", "/api/v1/courses").status_code == 200
    admin, token = _browser(site, "root")
    url = f"/admin/users/{_user_id(site, 'ann')}/revoke"
    assert admin.post(url, data={"csrf_token": token}).status_code == 400  # not confirmed: nothing happens
    assert _signed_in(ann) and call(site, "ann", "GET", "/api/v1/courses").status_code == 200
    answer = admin.post(url, data={"csrf_token": token, "confirm": "y"}, follow_redirects=True)
    assert answer.status_code == 200
    assert "1 API tokens revoked, 1 sign-in sessions ended" in answer.get_data(as_text=True)
    assert call(site, "ann", "GET", "/api/v1/courses").status_code == 401
    assert not _signed_in(ann)
    assert sign_in(site.test_client(), "ann").status_code == 302  # the password still works
    assert admin.post(url, data={"confirm": "y"}).status_code == 400  # no CSRF token


@pytest.mark.parametrize("who", ["ann", "tia", "tom"])
def test_only_the_admin_may_revoke_anothers_credentials(site, who):
    browser, token = _browser(site, who)
    victim = _user_id(site, "bob")
    assert browser.get(f"/admin/users/{victim}").status_code == 404
    assert browser.get("/admin/users").status_code == 404
    assert browser.post(f"/admin/users/{victim}/revoke", data={"csrf_token": token, "confirm": "y"}).status_code == 404
    assert call(site, who, "POST", f"/api/v1/admin/users/{victim}/revoke", {"confirm": True}).status_code == 404
    assert call(site, "bob", "GET", "/api/v1/courses").status_code == 200


def test_the_admin_api_revokes_with_a_confirmation(site):
    url = f"/api/v1/admin/users/{_user_id(site, 'bob')}/revoke"
    assert call(site, "root", "POST", url, {}).status_code == 400
    answer = call(site, "root", "POST", url, {"confirm": True})
    assert answer.status_code == 200 and answer.json == {"user": "bob", "tokens_revoked": 1, "sessions_ended": 0}
    assert call(site, "bob", "GET", "/api/v1/courses").status_code == 401


def test_python_m_web_revoke(database_url, project_root):
    from web.accounts.users import create_user
    from web.core.database import make_engine, session_factory

    engine = make_engine(database_url)
    with session_factory(engine)() as session:
        user = create_user(session, "cli-ann", "password123")
        token, _ = ApiToken.issue(user)
        session.add(token)
        session.commit()
    env = {"DATABASE_URL": database_url, "PATH": "/usr/bin:/bin", "SECRET_KEY": "k"}
    done = subprocess.run([sys.executable, "-m", "web", "revoke", "CLI-ANN"], cwd=project_root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1 API tokens revoked" in done.stdout
    with session_factory(engine)() as session:
        assert session.scalars(select(ApiToken)).all() == []
    missing = subprocess.run([sys.executable, "-m", "web", "revoke", "nobody"], cwd=project_root, env=env,
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "no user named" in missing.stderr
    engine.dispose()


# --- a password change ---------------------------------------------------------------------------


def _change_password(site, revoke: bool | None):
    ann, token = _browser(site, "ann")
    other, _ = _browser(site, "ann")
    data = {"csrf_token": token, "current_password": "password123", "new_password": "password456",
            "new_password_again": "password456"}
    if revoke:
        data["revoke_tokens"] = "y"
    assert ann.post("/profile/password", data=data).status_code == 302
    return ann, other


def test_a_password_change_offers_to_revoke_tokens_ticked_by_default(site):
    ann, _ = _browser(site, "ann")
    box = re.search(r"<input[^>]*name=\"revoke_tokens\"[^>]*>", ann.get("/profile/").get_data(as_text=True))
    assert box and "checked" in box.group(0) and 'type="checkbox"' in box.group(0)
    this, other = _change_password(site, revoke=True)
    assert call(site, "ann", "GET", "/api/v1/courses").status_code == 401
    assert _signed_in(this) and not _signed_in(other)


def test_a_password_change_with_the_box_unticked_keeps_the_tokens(site):
    this, other = _change_password(site, revoke=False)
    assert call(site, "ann", "GET", "/api/v1/courses").status_code == 200
    assert _signed_in(this) and not _signed_in(other)


# --- members, leaving, join codes ----------------------------------------------------------------


def test_a_removed_learner_loses_access_at_once_and_their_work_stays(site):
    course = course_with_learners(site, "ann", "bob")
    assert assignment(site, course["id"]).status_code == 201
    submission = graded(site, "ann")
    ann, _ = _browser(site, "ann")
    url = f"/api/v1/courses/{course['id']}/members/remove"
    assert call(site, "tia", "POST", url, {"user": "ann"}).status_code == 400  # not confirmed
    assert call(site, "bob", "POST", url, {"user": "ann", "confirm": True}).status_code == 403  # a learner
    assert call(site, "tom", "POST", url, {"user": "ann", "confirm": True}).status_code == 404  # another course
    removed = call(site, "tia", "POST", url, {"user": "ann", "confirm": True})
    assert removed.json == {"user": "ann", "removed": "learner"}
    assert call(site, "ann", "GET", f"/api/v1/courses/{course['id']}").status_code == 404
    assert ann.get(f"/courses/{course['id']}").status_code == 404
    # Work made for the course stays the course's record (docs/security.md section 10): its
    # instructors still open it, though she is no longer listed or counted.
    assert call(site, "tia", "GET", f"/api/v1/submissions/{submission}").status_code == 200
    assert call(site, "ann", "GET", f"/api/v1/submissions/{submission}").status_code == 200  # still hers
    gradebook = call(site, "tia", "GET", f"/api/v1/courses/{course['id']}/gradebook").json
    assert [row["user"] for row in gradebook["learners"]] == ["bob"]
    # Back with the code, her work counts again.
    assert call(site, "ann", "POST", "/api/v1/courses/join", {"join_code": course["join_code"]}).status_code == 200
    gradebook = call(site, "tia", "GET", f"/api/v1/courses/{course['id']}/gradebook").json
    assert gradebook["learners"][0]["user"] == "ann" and gradebook["learners"][0]["exercises"]["39"]["attempts"] == 1


def test_the_last_instructor_cannot_be_removed_or_leave_but_another_can(site):
    course = course_with_learners(site, "ann")
    url = f"/api/v1/courses/{course['id']}"
    assert call(site, "tia", "POST", f"{url}/leave", {"confirm": True}).status_code == 400
    assert call(site, "tia", "POST", f"{url}/members/remove", {"user": "tia", "confirm": True}).status_code == 400
    call(site, "tia", "POST", f"{url}/instructors", {"user": "tom"})
    invitation = call(site, "tom", "GET", "/api/v1/invitations").json["invitations"][0]["id"]
    call(site, "tom", "POST", f"/api/v1/invitations/{invitation}/accept")
    removed = call(site, "tia", "POST", f"{url}/members/remove", {"user": "tom", "confirm": True})
    assert removed.status_code == 200 and removed.json["removed"] == "instructor"
    assert call(site, "tom", "GET", url).status_code == 404


def test_a_learner_leaves_only_when_they_confirm(site):
    course = course_with_learners(site, "ann")
    ann, token = _browser(site, "ann")
    page = f"/courses/{course['id']}"
    assert ann.post(f"{page}/leave", data={"csrf_token": token}).status_code == 302
    assert ann.get(page).status_code == 200  # not confirmed: still a member
    assert ann.post(f"{page}/leave", data={"csrf_token": token, "confirm": "y"}).location == "/courses/"
    assert ann.get(page).status_code == 404
    course_with_learners(site, "bob")
    assert call(site, "bob", "POST", f"/api/v1/courses/{course['id']}/leave", {"confirm": True}).status_code == 404


def test_a_rotated_join_code_refuses_the_old_code_and_takes_the_new(site):
    course = course_with_learners(site)
    url = f"/api/v1/courses/{course['id']}/join-code"
    assert call(site, "tia", "POST", url, {}).status_code == 400
    rotated = call(site, "tia", "POST", url, {"confirm": True}).json["join_code"]
    assert rotated != course["join_code"]
    assert call(site, "ann", "POST", "/api/v1/courses/join", {"join_code": course["join_code"]}).status_code == 404
    assert call(site, "ann", "POST", "/api/v1/courses/join", {"join_code": rotated}).status_code == 200
    tia, token = _browser(site, "tia")
    tia.post(f"/courses/{course['id']}/join-code", data={"csrf_token": token, "confirm": "y"})
    assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": rotated}).status_code == 404


# --- extensions and overrides --------------------------------------------------------------------


def _cell(site, course_id: int) -> dict:
    return call(site, "tia", "GET", f"/api/v1/courses/{course_id}/gradebook").json["learners"][0]["exercises"]["39"]


def test_a_withdrawn_extension_brings_back_the_assignments_due_date_and_the_cell_follows(site):
    course = course_with_learners(site, "ann")
    work = assignment(site, course["id"], due_at="2020-06-01T00:00Z").json  # long past; late work not accepted
    extensions = f"/api/v1/courses/{course['id']}/assignments/{work['id']}/extensions"
    assert call(site, "tia", "POST", extensions, {"user": "ann", "due_at": "2099-01-01T00:00Z"}).status_code == 200
    graded(site, "ann")
    assert _cell(site, course["id"])["counted"] == 0.5
    withdrawn = call(site, "tia", "POST", f"{extensions}/withdraw", {"user": "ann"})
    assert withdrawn.status_code == 200 and withdrawn.json["due_at"] == "2020-06-01T00:00:00+00:00"
    assert _cell(site, course["id"])["counted"] is None and _cell(site, course["id"])["score"] == 0.0
    assert call(site, "tia", "POST", f"{extensions}/withdraw", {"user": "ann"}).status_code == 400  # none left
    with services(site).sessions() as session:
        events = session.scalars(select(ExtensionEvent).order_by(ExtensionEvent.id)).all()
        assert [event.due_at is None for event in events] == [False, True]
    tia, _ = _browser(site, "tia")
    html = tia.get(f"/courses/{course['id']}/assignments/{work['id']}").get_data(as_text=True)
    assert "withdrew the extension of ann" in html and "set the due date of ann" in html


def test_the_assignment_page_withdraws_an_extension_only_when_the_box_is_ticked(site):
    course = course_with_learners(site, "ann")
    work = assignment(site, course["id"], due_at="2020-06-01T00:00Z").json
    extensions = f"/api/v1/courses/{course['id']}/assignments/{work['id']}/extensions"
    assert call(site, "tia", "POST", extensions, {"user": "ann", "due_at": "2099-01-01T00:00Z"}).status_code == 200
    tia, token = _browser(site, "tia")
    page = f"/courses/{course['id']}/assignments/{work['id']}"
    url = f"{page}/extensions/{_user_id(site, 'ann')}/withdraw"
    assert f'action="{url}"' in tia.get(page).get_data(as_text=True)  # the button, with its box
    unticked = tia.post(url, data={"csrf_token": token}, follow_redirects=True).get_data(as_text=True)
    assert "Tick the box to confirm." in unticked and "withdrew the extension" not in unticked
    tia.post(url, data={"csrf_token": token, "confirm": "y"})
    with services(site).sessions() as session:
        assert [event.due_at is None for event in session.scalars(select(ExtensionEvent))] == [False, True]


def test_a_withdrawn_override_counts_the_graded_score_again_and_the_history_shows_both(site):
    course = course_with_learners(site, "ann")
    assignment(site, course["id"])
    graded(site, "ann")
    overrides = f"/api/v1/courses/{course['id']}/overrides"
    body = {"user": "ann", "exercise": 39, "score": 1.0, "comment": "the grader was wrong"}
    assert call(site, "tia", "POST", overrides, body).status_code == 201
    assert _cell(site, course["id"])["score"] == 1.0
    withdrawn = call(site, "tia", "POST", f"{overrides}/withdraw", {"user": "ann", "exercise": 39})
    assert withdrawn.status_code == 201 and withdrawn.json["withdrawn"] is True and withdrawn.json["score"] is None
    cell = _cell(site, course["id"])
    assert cell["score"] == 0.5 and cell["override"] is None
    assert call(site, "tia", "POST", f"{overrides}/withdraw", {"user": "ann", "exercise": 39}).status_code == 400
    tia, token = _browser(site, "tia")
    page = f"/courses/{course['id']}/gradebook/{_user_id(site, 'ann')}/39"
    html = tia.get(page).get_data(as_text=True)
    assert "withdrawn (the graded score counts)" in html and "the grader was wrong" in html
    # A new override after the withdrawal counts again; the page's button withdraws it.
    assert call(site, "tia", "POST", overrides, body | {"score": 0.75}).status_code == 201
    assert tia.post(f"{page}/withdraw", data={"csrf_token": token}).status_code == 302
    assert _cell(site, course["id"])["score"] == 0.5
    ann, _ = _browser(site, "ann")
    assert "the grader was wrong" not in ann.get(f"/courses/{course['id']}").get_data(as_text=True)
