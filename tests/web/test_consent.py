"""Joining a course is the learner's act: an instructor's roster or "add" is an invitation, and
nothing of the learner reaches the course until they accept it (pages and API alike)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from tests.web.site_client import csrf_token, sign_in
from tests.web.test_course_api import assignment, call, course_with_learners, graded, people_site
from web.core.models import Invitation, InvitationState, Membership
from web.services import services


@pytest.fixture
def site(make_site):
    return people_site(make_site)


@pytest.fixture
def rostered(site):
    """Course A (tia's) with ann in it and a submission of hers; course B (tom's) rosters ann."""
    course_a = course_with_learners(site, "ann")
    assert assignment(site, course_a["id"]).status_code == 201
    course_b = course_with_learners(site, teacher="tom")
    assert assignment(site, course_b["id"], who="tom").status_code == 201
    submission = graded(site, "ann")
    roster = call(site, "tom", "POST", f"/api/v1/courses/{course_b['id']}/roster", data="ann\n",
                  content_type="text/csv")
    assert roster.status_code == 200 and roster.json["invited"] == ["ann"]
    return site, course_b["id"], submission


def _invitation_id(site, who="ann") -> int:
    invitations = call(site, who, "GET", "/api/v1/invitations").json["invitations"]
    assert len(invitations) == 1, invitations
    return invitations[0]["id"]


def _memberships(site) -> int:
    with services(site).sessions() as session:
        return session.scalar(select(func.count()).select_from(Membership))


def _tom_sees_ann(site, course_b: int, submission: int) -> dict[str, bool]:
    gradebook = call(site, "tom", "GET", f"/api/v1/courses/{course_b}/gradebook").json
    page = site.test_client()
    assert sign_in(page, "tom").status_code == 302
    return {
        "gradebook": "ann" in str(gradebook),
        "course page": ">ann<" in page.get(f"/courses/{course_b}").get_data(as_text=True),
        "gradebook page": ">ann<" in page.get(f"/courses/{course_b}/gradebook").get_data(as_text=True),
        "submission": call(site, "tom", "GET", f"/api/v1/submissions/{submission}").status_code == 200,
        "submission page": page.get(f"/submissions/{submission}").status_code == 200,
    }


def test_a_roster_of_another_course_makes_no_member_until_the_learner_accepts(rostered):
    site, course_b, submission = rostered
    assert _tom_sees_ann(site, course_b, submission) == dict.fromkeys(
        ("gradebook", "course page", "gradebook page", "submission", "submission page"), False)
    assert call(site, "ann", "GET", f"/api/v1/courses/{course_b}").status_code == 404  # not a member either
    pending = call(site, "tom", "GET", f"/api/v1/courses/{course_b}/invitations").json["invitations"]
    assert [(row["user"], row["state"]) for row in pending] == [("ann", "pending")]
    page = site.test_client()
    assert sign_in(page, "tom").status_code == 302
    assert "ann (learner)" in page.get(f"/courses/{course_b}").get_data(as_text=True)  # shown as pending

    accepted = call(site, "ann", "POST", f"/api/v1/invitations/{_invitation_id(site)}/accept")
    assert accepted.status_code == 200 and accepted.json["state"] == "accepted"
    assert call(site, "ann", "GET", f"/api/v1/courses/{course_b}").json["role"] == "learner"
    assert _tom_sees_ann(site, course_b, submission)["gradebook"]


def test_declining_leaves_no_membership_and_the_answer_is_kept(rostered):
    site, course_b, _ = rostered
    before = _memberships(site)
    invitation = _invitation_id(site)
    declined = call(site, "ann", "POST", f"/api/v1/invitations/{invitation}/decline")
    assert declined.status_code == 200 and declined.json["state"] == "declined"
    assert _memberships(site) == before
    assert call(site, "ann", "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 400  # answered
    assert call(site, "ann", "GET", f"/api/v1/courses/{course_b}").status_code == 404
    with services(site).sessions() as session:
        row = session.get(Invitation, invitation)
        assert row.state is InvitationState.declined and row.decided_at is not None


def test_only_the_invited_account_can_answer(rostered):
    site, course_b, _ = rostered
    invitation = _invitation_id(site)
    for who in ("bob", "tom", "tia", "root"):  # another learner, the inviter, another instructor, the admin
        for answer in ("accept", "decline"):
            assert call(site, who, "POST", f"/api/v1/invitations/{invitation}/{answer}").status_code == 404, who
    assert call(site, None, "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 401
    bob = site.test_client()
    assert sign_in(bob, "bob").status_code == 302
    token = csrf_token(bob, "/profile/")
    assert bob.post(f"/courses/invitations/{invitation}/accept", data={"csrf_token": token}).status_code == 404
    visitor = site.test_client()
    token = csrf_token(visitor, "/auth/sign-in")
    answer = visitor.post(f"/courses/invitations/{invitation}/accept", data={"csrf_token": token})
    assert answer.status_code == 302 and answer.location.startswith("/auth/sign-in")
    assert call(site, "ann", "GET", f"/api/v1/courses/{course_b}").status_code == 404


def test_inviting_twice_or_inviting_a_member_adds_nothing(rostered):
    site, course_b, _ = rostered
    again = call(site, "tom", "POST", f"/api/v1/courses/{course_b}/roster", {"csv": "ann\n"}).json
    assert again["pending"] == ["ann"] and again["invited"] == []
    with services(site).sessions() as session:
        assert session.scalar(select(func.count()).select_from(Invitation)) == 1
    call(site, "ann", "POST", f"/api/v1/invitations/{_invitation_id(site)}/accept")
    member = call(site, "tom", "POST", f"/api/v1/courses/{course_b}/roster", {"csv": "ann\n"}).json
    assert member["already"] == ["ann"] and member["invited"] == []


def test_an_instructor_withdraws_a_pending_invitation(rostered):
    site, course_b, _ = rostered
    invitation = _invitation_id(site)
    url = f"/api/v1/courses/{course_b}/invitations/{invitation}/withdraw"
    assert call(site, "tia", "POST", url).status_code == 404  # not her course
    assert call(site, "ann", "POST", url).status_code == 404
    withdrawn = call(site, "tom", "POST", url)
    assert withdrawn.status_code == 200 and withdrawn.json["state"] == "withdrawn"
    assert call(site, "ann", "GET", "/api/v1/invitations").json["invitations"] == []
    assert call(site, "ann", "POST", f"/api/v1/invitations/{invitation}/accept").status_code == 400


def test_the_learner_accepts_on_the_courses_page(rostered):
    site, course_b, _ = rostered
    ann = site.test_client()
    assert sign_in(ann, "ann").status_code == 302
    html = ann.get("/courses/").get_data(as_text=True)
    assert "Invitations for you" in html and "as learner, from tom" in html
    invitation = _invitation_id(site)
    token = csrf_token(ann, "/profile/")
    answer = ann.post(f"/courses/invitations/{invitation}/accept", data={"csrf_token": token})
    assert answer.status_code == 302 and answer.location == f"/courses/{course_b}"
    assert ann.get(f"/courses/{course_b}").status_code == 200


def test_the_join_code_still_works_and_settles_a_pending_invitation(rostered):
    site, course_b, _ = rostered
    code = call(site, "tom", "GET", f"/api/v1/courses/{course_b}").json["join_code"]
    assert call(site, "ann", "POST", "/api/v1/courses/join", {"join_code": code}).status_code == 200
    assert call(site, "ann", "GET", "/api/v1/invitations").json["invitations"] == []
    assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": code}).status_code == 200


def test_the_roster_page_reports_invited_members_and_unknown_names_in_both_languages(site):
    course = course_with_learners(site, "ann")
    tia = site.test_client()
    assert sign_in(tia, "tia").status_code == 302
    token = csrf_token(tia, f"/courses/{course['id']}")
    reports = {}
    for language in ("en", "zh"):
        answer = tia.post(f"/courses/{course['id']}/roster", query_string={"lang": language},
                          data={"csrf_token": token, "roster": "ann\nbob\nzed\n"}, follow_redirects=True)
        reports[language] = answer.get_data(as_text=True)
    assert "1 invited (they join when they accept), 0 already invited" in reports["en"]
    assert "1 already in the course, 1 without an account" in reports["en"] and "No account for: zed" in reports["en"]
    # The second upload: bob's invitation is pending, not made again.
    assert "新邀请 0 人" in reports["zh"] and "1 人此前已被邀请" in reports["zh"]
    assert "以下用户名没有账号：zed" in reports["zh"]
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 404
