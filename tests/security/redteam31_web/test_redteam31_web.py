"""Red team 31 attacks on the web site and API (claims 2 to 8 of the brief).

Each test PASSES when the claim holds and FAILS when the attack broke it."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select, update

from tests.web.site_client import csrf_token, sign_in, signed_in, user_id
from tests.web.test_course_api import assignment, call, course_with_learners, graded, people_site
from web.core.models import ApiToken, Grading, Invitation, InvitationState, Status, User
from web.services import services


@pytest.fixture
def site(make_site):
    return people_site(make_site)


_browser, _uid = signed_in, user_id  # short names the attacks below use


def _invite(site, course_id, name, role="learner"):
    if role == "learner":
        answer = call(site, "tia", "POST", f"/api/v1/courses/{course_id}/roster", {"csv": name})
    else:
        answer = call(site, "tia", "POST", f"/api/v1/courses/{course_id}/instructors", {"user": name})
    assert answer.status_code == 200, answer.json
    with services(site).sessions() as session:
        return session.scalar(select(Invitation.id).where(Invitation.user_id == select(User.id).where(
            User.name == name).scalar_subquery()).order_by(Invitation.id.desc()))


def _second_token(site, name):
    with services(site).sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        token, secret = ApiToken.issue(user, label="second")
        session.add(token)
        session.commit()
    return {"Authorization": f"Bearer {secret}"}


def _finish_all(site):
    """Pretend every waiting grading finished (so the 5-waiting cap does not stop a rate test)."""
    with services(site).sessions() as session:
        session.execute(update(Grading).values(status=Status.done))
        session.commit()


# --- claim 2: joining is consent -------------------------------------------------------------


def test_claim2_admin_cannot_accept_an_invitation_for_someone_else(site):
    course = course_with_learners(site)
    invitation = _invite(site, course["id"], "bob")
    assert call(site, "root", "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 404
    assert call(site, "tia", "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 404
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 404


def test_claim2_instructor_invitation_is_not_accepted_by_typing_the_join_code(site):
    course = course_with_learners(site)
    _invite(site, course["id"], "bob", role="instructor")
    joined = call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": course["join_code"]})
    assert joined.status_code == 200 and joined.json["role"] == "learner"
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}/gradebook").status_code == 403


def test_claim2_pending_invitee_is_in_no_gradebook_list_or_export(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    _invite(site, course["id"], "bob")
    graded(site, "bob")  # bob's practice work while invited
    book = call(site, "tia", "GET", f"/api/v1/courses/{course['id']}/gradebook").json
    assert [row["user"] for row in book["learners"]] == ["ann"]
    csv = call(site, "tia", "GET", f"/api/v1/courses/{course['id']}/gradebook.csv").get_data(as_text=True)
    assert "bob" not in csv
    subs = call(site, "tia", "GET", f"/api/v1/courses/{course['id']}/submissions").json
    assert all(row["user"] != "bob" for row in subs["submissions"])


def test_claim2_other_instructor_cannot_withdraw_or_see_invitation_through_own_course(site):
    course = course_with_learners(site)
    other = course_with_learners(site, teacher="tom")
    invitation = _invite(site, course["id"], "bob")
    url = f"/api/v1/courses/{other['id']}/invitations/{invitation}/withdraw"
    assert call(site, "tom", "POST", url).status_code == 404
    assert call(site, "tom", "GET", f"/api/v1/courses/{course['id']}/invitations").status_code == 404
    assert call(site, "bob", "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 200


def test_claim2_removed_instructors_pending_invitation_does_not_grant_teaching(site):
    """A rogue co-instructor invites an accomplice to teach, is removed; the accomplice accepts later."""
    course = course_with_learners(site)
    invite_tom = _invite(site, course["id"], "tom", role="instructor")
    assert call(site, "tom", "POST", f"/api/v1/invitations/{invite_tom}/accept").status_code == 200
    call(site, "tom", "POST", f"/api/v1/courses/{course['id']}/instructors", {"user": "bob"})
    removed = call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                   {"user": "tom", "confirm": True})
    assert removed.status_code == 200
    pending = call(site, "bob", "GET", "/api/v1/invitations").json["invitations"]
    for invitation in pending:  # an invitation by someone no longer teaching should not hand out teaching
        call(site, "bob", "POST", f"/api/v1/invitations/{invitation['id']}/accept")
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}/gradebook").status_code != 200


# --- claim 3: instructors see only their course's work ------------------------------------


def test_claim3_other_instructor_gets_404_on_submission_results_and_rejudge(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    submission = graded(site, "ann")
    course_with_learners(site, "ann", teacher="tom")
    for method, url in (("GET", f"/api/v1/submissions/{submission}"),
                        ("GET", f"/api/v1/submissions/{submission}/results.json"),
                        ("POST", f"/api/v1/submissions/{submission}/rejudge")):
        assert call(site, "tom", method, url).status_code == 404, url
    tom = _browser(site, "tom")
    for url in (f"/submissions/{submission}", f"/submissions/{submission}/code",
                f"/submissions/{submission}/result"):
        assert tom.get(url).status_code == 404, url


def test_claim3_other_instructor_cannot_read_a_rejudge_of_another_course(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    submission = graded(site, "ann")
    rejudge = call(site, "tia", "POST", f"/api/v1/submissions/{submission}/rejudge").json["rejudge"]
    course_with_learners(site, "ann", teacher="tom")
    assert call(site, "tom", "GET", f"/api/v1/rejudges/{rejudge}").status_code == 404
    assert call(site, "ann", "GET", f"/api/v1/rejudges/{rejudge}").status_code == 404
    assert _browser(site, "tom").get(f"/rejudges/{rejudge}").status_code == 404


def test_claim3_rejudge_in_other_course_does_not_touch_this_courses_work(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    submission = graded(site, "ann")
    other = course_with_learners(site, "ann", teacher="tom")
    assert assignment(site, other["id"], who="tom").status_code == 201
    answer = call(site, "tom", "POST", f"/api/v1/courses/{other['id']}/rejudge", {"exercise": 39})
    assert answer.status_code == 202 and answer.json["queued"] == 0
    with services(site).sessions() as session:
        assert len(session.scalars(select(Grading).where(Grading.submission_id == submission)).all()) == 1


def test_claim3_other_instructor_cannot_override_or_extend_through_own_course_ids(site):
    course = course_with_learners(site, "ann")
    work = assignment(site, course["id"]).json
    other = course_with_learners(site, teacher="tom")
    url = f"/api/v1/courses/{other['id']}/assignments/{work['id']}/extensions"
    assert call(site, "tom", "POST", url, {"user": "ann", "due_at": "2100-01-01T00:00Z"}).status_code == 404
    tom = _browser(site, "tom")
    token = csrf_token(tom, "/courses/")
    page = tom.post(f"/courses/{other['id']}/assignments/{work['id']}/extensions/{_uid(site, 'ann')}/withdraw",
                    data={"csrf_token": token, "confirm": "y"})
    assert page.status_code == 404
    cell = tom.get(f"/courses/{course['id']}/gradebook/{_uid(site, 'ann')}/39")
    assert cell.status_code == 404


# --- claim 4: withheld stays withheld ------------------------------------------------------


def test_claim4_nothing_withholds_the_verdict_in_api_gradings_and_results_json(site):
    """Two learners differ only in the hidden case (AC against WA): at "nothing" their answers match."""
    course = course_with_learners(site, "ann", "bob")
    assert assignment(site, course["id"], visibility_before="nothing").status_code == 201
    answers = {}
    for name, verdict in (("ann", "AC"), ("bob", "WA")):
        submission = graded(site, name, verdict=verdict)
        answer = call(site, name, "GET", f"/api/v1/submissions/{submission}").json
        assert answer["withheld"] is True and answer["verdict"] is None and answer["score"] is None
        assert all(row["verdict"] is None and row["score"] is None for row in answer["gradings"])
        results = call(site, name, "GET", f"/api/v1/submissions/{submission}/results.json").json
        answers[name] = (results, [{k: v for k, v in c.items() if k not in ("seed",)} for c in answer["cases"]])
    assert answers["ann"] == answers["bob"]


def test_claim4_nothing_is_withheld_on_the_exercise_page_and_course_page(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"], visibility_before="nothing").status_code == 201
    graded(site, "ann", verdict="AC")
    ann = _browser(site, "ann")
    for url in ("/exercises/39", f"/courses/{course['id']}", "/exercises/", "/profile/"):
        html = ann.get(url).get_data(as_text=True)
        assert "Accepted (AC)" not in html and 'data-verdict="AC"' not in html, url


# --- claim 5: time -------------------------------------------------------------------------


def test_claim5_learner_gets_no_finish_time_or_seconds(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    submission = graded(site, "ann")
    answer = call(site, "ann", "GET", f"/api/v1/submissions/{submission}").json
    assert answer["finished_at"] is None and "started_at" not in answer
    assert answer["created_at"].endswith(":00+00:00")
    for row in answer["gradings"]:
        assert row["finished_at"] is None and row["created_at"].endswith(":00+00:00")
    results = call(site, "ann", "GET", f"/api/v1/submissions/{submission}/results.json").get_data(as_text=True)
    assert "finished_at" not in results and "started_at" not in results and "execution_time" not in results


# --- claim 6: bounded work -----------------------------------------------------------------


@pytest.mark.parametrize("wait", ["inf", "nan", "1e309", "31", "-1", "30.0001", "0x10", "1_0"])
def test_claim6_wait_is_bounded(site, wait):
    submission = graded(site, "ann")
    started = time.monotonic()
    answer = call(site, "ann", "GET", f"/api/v1/submissions/{submission}?wait={wait}")
    assert answer.status_code in (200, 400) and time.monotonic() - started < 5
    if wait not in ("1_0",):
        assert answer.status_code == 400


def test_claim6_roster_over_the_row_limit_is_refused(site):
    course = course_with_learners(site)
    csv = "\n".join(f"u{i}" for i in range(5001))
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/roster", {"csv": csv}).status_code == 400


# --- claim 7: rate limits ------------------------------------------------------------------


def test_claim7_join_code_guessing_shared_between_api_and_page(site):
    course = course_with_learners(site)
    for i in range(10):
        assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": f"ZZZZZZZ{i}"}).status_code == 404
    bob = _browser(site, "bob")
    token = csrf_token(bob, "/courses/")
    answer = bob.post("/courses/join", data={"csrf_token": token, "join_code": course["join_code"]})
    assert answer.status_code == 429


def test_claim7_join_code_guessing_not_multiplied_by_tokens(site):
    course = course_with_learners(site)
    second = _second_token(site, "bob")
    for i in range(10):
        assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": f"ZZZZZZZ{i}"}).status_code == 404
    answer = site.test_client().post("/api/v1/courses/join", json={"join_code": course["join_code"]}, headers=second)
    assert answer.status_code == 429


def test_claim7_sign_in_guessing_not_bypassed_by_name_spellings(site):
    client = site.test_client()
    for _ in range(10):
        assert sign_in(client, "ann", "wrong-password").status_code == 401
    for spelling in ("ANN", "ａｎｎ", " ann ", "Ann"):
        assert sign_in(client, spelling, "password123").status_code == 429, spelling


def test_claim7_submissions_limit_is_per_account_not_per_token(site):
    """20 a minute per account: a second API token of the same account must not get 20 more."""
    second = _second_token(site, "ann")
    for i in range(20):
        answer = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": f"x = {i}\n"})
        assert answer.status_code == 202, (i, answer.json)
        _finish_all(site)
    more = site.test_client().post("/api/v1/submissions", json={"exercise": "39", "code": "x = 99\n"},
                                   headers=second)
    assert more.status_code == 429, more.json


def test_claim7_submissions_limit_is_shared_by_pages_and_api(site):
    """Docs: 20 a minute "pages and API together"."""
    for i in range(20):
        answer = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": f"x = {i}\n"})
        assert answer.status_code == 202, (i, answer.json)
        _finish_all(site)
    ann = _browser(site, "ann")
    token = csrf_token(ann, "/exercises/39")
    page = ann.post("/exercises/39/submit", data={"csrf_token": token, "code": "x = 99\n"})
    with services(site).sessions() as session:
        stored = len(session.scalars(select(Grading)).all())
    assert page.status_code == 429, (page.status_code, page.headers.get("Location"), f"{stored} gradings stored")


def test_claim7_token_creation_limited_even_with_revocations(site):
    ann = _browser(site, "ann")
    statuses = []
    for i in range(11):
        token = csrf_token(ann, "/profile/")
        statuses.append(ann.post("/profile/tokens", data={"csrf_token": token, "label": f"t{i}"}).status_code)
        with services(site).sessions() as session:  # revoke all (as the profile's button would)
            for row in session.scalars(select(ApiToken)).all():
                if row.user.name == "ann":
                    session.delete(row)
            session.commit()
    assert statuses[-1] == 429, statuses


# --- claim 8: taking back ------------------------------------------------------------------


def test_claim8_removed_learner_extension_can_be_withdrawn(site):
    course = course_with_learners(site, "ann")
    work = assignment(site, course["id"], due_at="2027-03-08T00:00Z").json
    base = f"/api/v1/courses/{course['id']}/assignments/{work['id']}/extensions"
    assert call(site, "tia", "POST", base, {"user": "ann", "due_at": "2027-03-10T00:00Z"}).status_code == 200
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                {"user": "ann", "confirm": True}).status_code == 200
    answer = call(site, "tia", "POST", base + "/withdraw", {"user": "ann"})
    assert answer.status_code == 200, answer.json


def test_claim8_removed_learner_override_can_be_withdrawn(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    url = f"/api/v1/courses/{course['id']}/overrides"
    assert call(site, "tia", "POST", url, {"user": "ann", "exercise": 39, "score": 1, "comment": "c"}).status_code == 201
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                {"user": "ann", "confirm": True}).status_code == 200
    answer = call(site, "tia", "POST", url + "/withdraw", {"user": "ann", "exercise": 39})
    assert answer.status_code == 201, answer.json


def test_claim8_removed_learner_cannot_submit_for_the_course(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                {"user": "ann", "confirm": True}).status_code == 200
    answer = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "x=1\n", "course": course["id"]})
    assert answer.status_code == 400
    free = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "x=1\n"})
    assert free.status_code == 202 and free.json["course_id"] is None


def test_claim8_removed_instructor_loses_every_course_route(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    submission = graded(site, "ann")
    invitation = _invite(site, course["id"], "tom", role="instructor")
    assert call(site, "tom", "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 200
    tom = _browser(site, "tom")
    assert tom.get(f"/courses/{course['id']}/gradebook").status_code == 200
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                {"user": "tom", "confirm": True}).status_code == 200
    for url in (f"/api/v1/courses/{course['id']}/gradebook", f"/api/v1/submissions/{submission}",
                f"/api/v1/courses/{course['id']}/gradebook.csv", f"/api/v1/courses/{course['id']}"):
        assert call(site, "tom", "GET", url).status_code == 404, url
    assert tom.get(f"/courses/{course['id']}/gradebook").status_code == 404
    assert tom.get(f"/submissions/{submission}").status_code == 404


def test_claim8_sign_out_ends_a_copied_cookie(site):
    ann = _browser(site, "ann")
    thief = site.test_client()
    for cookie in ann._cookies.values():
        thief._cookies[(cookie.domain, cookie.path, cookie.key)] = cookie
    assert thief.get("/profile/").status_code == 200
    ann.post("/auth/sign-out", data={"csrf_token": csrf_token(ann, "/profile/")})
    assert thief.get("/profile/").status_code != 200


def test_claim8_withdrawn_invitation_cannot_be_accepted_on_page_or_api(site):
    course = course_with_learners(site)
    invitation = _invite(site, course["id"], "bob")
    url = f"/api/v1/courses/{course['id']}/invitations/{invitation}/withdraw"
    assert call(site, "tia", "POST", url).status_code == 200
    assert call(site, "bob", "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 400
    bob = _browser(site, "bob")
    token = csrf_token(bob, "/courses/")
    assert bob.post(f"/courses/invitations/{invitation}/accept", data={"csrf_token": token}).status_code in (400, 404)
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 404
    with services(site).sessions() as session:
        assert session.get(Invitation, invitation).state is InvitationState.withdrawn


def test_claim8_old_join_code_refused_on_page_after_rotation(site):
    course = course_with_learners(site)
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/join-code", {"confirm": True}).status_code == 200
    bob = _browser(site, "bob")
    token = csrf_token(bob, "/courses/")
    assert bob.post("/courses/join", data={"csrf_token": token, "join_code": course["join_code"]}).status_code == 404
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 404
