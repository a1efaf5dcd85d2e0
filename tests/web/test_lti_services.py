"""LTI Advantage services against an independent platform (lti1p3platform, tests/web/lti_platform.py):
access tokens, the paged Names and Roles roster, line items made once, and scores that follow the
course's counting (a grading, an override, a rejudge), retried while the LMS is down, never twice."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import select

from tests.web.lti_platform import CLIENT_ID, ISSUER, NRPS, FakePlatform, public_jwk, rsa_pems, serve
from tests.web.site_client import csrf_token, sign_in
from tests.web.world import account, attempt, course_with_assignment, exercise, learner_in
from web.core.models import Course, CourseRole, Grading, Membership, Role, Status, Submission, User, utcnow
from web.lms.models import LtiAccount, LtiContext, LtiPlatform, LtiResourceLink, LtiToolKey
from web.lms.passback import backoff, passback_round, queue_changed_scores, scores_url
from web.lms.passback_models import LtiRosterSync, LtiScorePost
from web.lms.roster import RECENT_S, course_role, roster_round, sync_roster, sync_roster_after_launch
from web.lms.service_client import Platform, ServiceClient, ServiceError, SigningKey
from web.services import services
from web.teaching.courses import override_score

KID = "tool-key-1"
BUDGET = {"total": 1e-06, "spent": 3.96e-07}


@pytest.fixture(scope="module")
def tool_keys():
    private, public = rsa_pems()
    return private, public_jwk(public, KID)


@pytest.fixture
def lms(tool_keys):
    """The fake platform on loopback, trusting the tool's key."""
    platform = FakePlatform(tool_jwks={"keys": [tool_keys[1]]})
    server = serve(platform)
    yield platform
    server.shutdown()
    server.server_close()


@pytest.fixture
def linked(make_site, lms, tool_keys):
    """A site with the tool's key, the platform registered, a course with "Week 1" (exercises 1
    and 39) linked to the platform's course, a link to exercise 1, and learner ann with her LMS account."""
    return link_site(make_site(start_workers=False), lms, tool_keys)


def link_site(app, lms, tool_keys):
    """:func:`linked`'s world on ``app``: (app, sessions, a service client, the ids)."""
    sessions = services(app).sessions
    with sessions() as session:
        session.add(LtiToolKey(kid=KID, private_pem=tool_keys[0], public_jwk=tool_keys[1]))
        platform = LtiPlatform(name="LMS", issuer=ISSUER, client_id=CLIENT_ID, auth_login_url=f"{lms.base}/auth",
                               auth_token_url=f"{lms.base}/token", key_set_url=f"{lms.base}/jwks")
        teacher, course, work = course_with_assignment(session)
        ann = learner_in(session, course, "ann")
        session.add(platform)
        session.flush()
        context = LtiContext(platform_id=platform.id, issuer=ISSUER, context_id="c1", course_id=course.id,
                             title="Sampling (LMS)", memberships_url=f"{lms.base}/nrps/members",
                             lineitems_url=f"{lms.base}/lineitems", ags_scopes=[])
        session.add(context)
        session.flush()
        link = LtiResourceLink(context_row_id=context.id, resource_link_id="rl-1",
                               exercise_id=exercise(session, 1).id, title="Exercise 1")
        session.add_all([link, LtiAccount(issuer=ISSUER, sub="sub-ann", user_id=ann.id)])
        session.commit()
        ids = dict(course=course.id, teacher=teacher.id, teacher_name=teacher.name, ann=ann.id, context=context.id,
                   link=link.id, platform=platform.id, assignment=work.id)
    client = ServiceClient(lambda: SigningKey(KID, tool_keys[0]))
    return app, sessions, client, ids


def graded(session, user_id: int, number: int, passed: int, total: int = 10, at: str = "2027-03-02 10:00",
           course_id: int | None = None) -> Submission:
    """An attempt of ``user_id`` at exercise ``number`` for the course, with a report carrying the budget."""
    user, course = session.get(User, user_id), session.get(Course, course_id)
    submission = attempt(session, user, exercise(session, number), at, "AC" if passed == total else "WA",
                         passed=passed, total=total, course=course)
    submission.current.report_json = submission.current.report_json | {"false_failure_budget": BUDGET}
    session.commit()
    return submission


# --- access tokens ---

def test_a_token_comes_from_the_platform_for_our_signed_assertion_and_is_cached(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        platform = Platform.of(session.get(LtiPlatform, ids["platform"]))
    token = client.token(platform, (NRPS,))
    assert lms.lti.validate_token(token, allowed_scopes=[NRPS]) is True
    assert client.token(platform, (NRPS,)) == token
    assert (client.tokens_fetched, lms.tokens_issued) == (1, 1)


def test_an_assertion_signed_by_a_key_the_platform_does_not_know_gets_no_token(linked, lms):
    _, sessions, _, ids = linked
    stranger = ServiceClient(lambda: SigningKey("other-kid", rsa_pems()[0]))
    with sessions() as session:
        platform = Platform.of(session.get(LtiPlatform, ids["platform"]))
    with pytest.raises(ServiceError, match="answered 400"):
        stranger.token(platform, (NRPS,))
    assert lms.tokens_issued == 0


# --- Names and Roles ---

def member(sub: str, *roles: str, status: str = "Active", name: str | None = None) -> dict:
    return {"user_id": sub, "roles": list(roles), "status": status, "name": name or sub}


LIS = "http://purl.imsglobal.org/vocab/lis/v2/membership#"


@pytest.mark.parametrize(("roles", "role"), [
    ([f"{LIS}Learner"], CourseRole.learner),
    ([f"{LIS}Instructor"], CourseRole.instructor),
    (["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"], CourseRole.instructor),
    (["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"], CourseRole.instructor),
    (["Learner", "Instructor"], CourseRole.instructor),
    ([f"{LIS}Mentor"], None),
    ("Learner", None),  # not a list: nothing is guessed
])
def test_lti_roles_map_to_course_roles(roles, role):
    assert course_role(roles) is role


def test_a_roster_of_three_pages_enrols_its_members_and_removes_those_gone(linked, lms):
    app, sessions, client, ids = linked
    lms.pages = [
        [member("sub-ann", f"{LIS}Learner"), member("sub-bo", f"{LIS}Learner", name="Bo Li")],
        [member("sub-ta", "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"),
         member("sub-mentor", f"{LIS}Mentor")],
        [member("sub-cy", f"{LIS}Learner", status="Inactive"), member("sub-di", f"{LIS}Learner", name="ann")],
    ]
    with sessions() as session:
        done = sync_roster(session, client, session.get(LtiContext, ids["context"]))
    assert [path for method, path in lms.requests if "members" in path] == [
        "/nrps/members", "/nrps/members?page=1", "/nrps/members?page=2"]
    assert done.members == 6 and done.skipped == 2 and done.removed == [] and len(done.added) == 3
    with sessions() as session:
        roles = {sub: role for sub, role in session.execute(
            select(LtiAccount.sub, Membership.role).join(Membership, Membership.user_id == LtiAccount.user_id)
            .where(Membership.course_id == ids["course"]))}
        names = set(session.scalars(select(User.name).join(LtiAccount, LtiAccount.user_id == User.id)))
    assert roles == {"sub-ann": CourseRole.learner, "sub-bo": CourseRole.learner, "sub-ta": CourseRole.instructor,
                     "sub-di": CourseRole.learner}
    bo_li = next(name for name in names if name.startswith("Bo-Li-"))  # every LMS name gets a random suffix
    assert len(names) == 4 and any(name.startswith("ann-") for name in names)  # "ann" was taken anyway
    with sessions() as session:  # an account the LMS made has no password anyone knows
        from web.accounts.users import authenticate

        assert [authenticate(session, bo_li, guess) for guess in ("sub-bo", "", "Bo Li", "password123")] == [None] * 4
    # Bo is gone from the LMS: removed, his work kept; ann's account made with the join code is the platform's too.
    with sessions() as session:
        bo = session.scalar(select(LtiAccount.user_id).where(LtiAccount.sub == "sub-bo"))
        graded(session, bo, 1, 5, course_id=ids["course"])
    lms.pages = [[member("sub-ann", f"{LIS}Learner"), member("sub-ta", f"{LIS}TeachingAssistant")],
                 [member("sub-di", f"{LIS}Learner")], []]
    with sessions() as session:
        again = sync_roster(session, client, session.get(LtiContext, ids["context"]))
        assert again.removed == [bo_li] and again.added == []
        assert session.scalar(select(Membership).where(Membership.user_id == bo)) is None
        assert session.scalar(select(Submission.id).where(Submission.user_id == bo)) is not None
        assert session.scalar(select(Membership).where(Membership.user_id == ids["teacher"])) is not None


@pytest.mark.parametrize("hostile", ["Ann\x00Lee", "\ud800", "<script>alert(1)</script>", "李雷", "x" * 5000])
def test_a_member_whose_id_a_launch_refuses_is_skipped_and_the_others_are_synced(linked, lms, hostile):
    """A 300-character ``user_id`` (the spec bounds ids at 255; PostgreSQL's column would refuse it and
    fail the whole sync) is skipped as a launch refuses it; a hostile name still gets a valid account."""
    from web.core.names import USER_NAME

    _, sessions, client, ids = linked
    lms.pages = [[member("s" * 300, f"{LIS}Learner", name=hostile), member("sub-eve", f"{LIS}Learner", name=hostile),
                  member("sub-ann", f"{LIS}Learner")]]
    with sessions() as session:
        done = sync_roster(session, client, session.get(LtiContext, ids["context"]))
    assert done.members == 3 and done.skipped == 1 and len(done.added) == 1 and done.removed == []
    with sessions() as session:
        subs = set(session.scalars(select(LtiAccount.sub)))
        eve = session.scalar(select(User).join(LtiAccount, LtiAccount.user_id == User.id)
                             .where(LtiAccount.sub == "sub-eve"))
        assert subs == {"sub-ann", "sub-eve"} and session.scalar(select(LtiRosterSync.error)) is None
        assert eve is not None and re.fullmatch(USER_NAME, eve.name) and not eve.check_password("")


def test_an_empty_roster_removes_nobody(linked, lms):
    _, sessions, client, ids = linked
    lms.pages = [[]]
    with sessions() as session:
        done = sync_roster(session, client, session.get(LtiContext, ids["context"]))
        assert done.removed == []
        assert session.scalar(select(Membership).where(Membership.user_id == ids["ann"])) is not None


def test_a_next_page_on_another_host_is_not_followed_and_nothing_changes(linked, lms):
    _, sessions, client, ids = linked
    lms.pages = [[member("sub-new", f"{LIS}Learner")], [member("sub-ann", f"{LIS}Learner")]]
    lms.next_link_host = "http://evil.example"
    with sessions() as session, pytest.raises(ServiceError, match="another host"):
        sync_roster(session, client, session.get(LtiContext, ids["context"]))
    with sessions() as session:
        assert session.scalar(select(LtiAccount).where(LtiAccount.sub == "sub-new")) is None
        failed = session.scalar(select(LtiRosterSync))
        assert failed is not None and "another host" in failed.error


def test_the_launch_sync_is_skipped_when_the_roster_was_synced_recently(linked, lms):
    _, sessions, client, ids = linked
    lms.pages = [[member("sub-ann", f"{LIS}Learner")]]
    with sessions() as session:
        assert sync_roster_after_launch(session, client, session.get(LtiContext, ids["context"])) is not None
        assert sync_roster_after_launch(session, client, session.get(LtiContext, ids["context"])) is None
    assert len([path for _, path in lms.requests if "members" in path]) == 1


def test_a_launch_brings_the_roster_in_at_the_next_round_and_a_failing_lms_waits(linked, lms):
    app, sessions, client, ids = linked
    lms.pages = [[member("sub-ann", f"{LIS}Learner"), member("sub-bo", f"{LIS}Learner", name="Bo")]]
    assert roster_round(sessions, client) == 1  # never synced: the launch that made the context counts
    assert roster_round(sessions, client) == 0  # synced since the last launch: nothing to do
    with sessions() as session:
        assert session.scalar(select(LtiAccount.id).where(LtiAccount.sub == "sub-bo")) is not None
        context = session.get(LtiContext, ids["context"])
        context.updated_at = utcnow() + dt.timedelta(seconds=1)  # a new launch
        session.commit()
    assert roster_round(sessions, client) == 0  # launched again, but synced under RECENT_S ago
    with sessions() as session:  # the last good sync long ago, a launch since: the LMS is down now
        for sync in session.scalars(select(LtiRosterSync)):
            sync.started_at -= dt.timedelta(seconds=RECENT_S + 60)
        session.commit()
    lms.roster_down = True
    calls = len(lms.requests)
    assert roster_round(sessions, client) == 0  # tried, failed, recorded
    assert len(lms.requests) > calls
    calls = len(lms.requests)
    assert roster_round(sessions, client) == 0  # within RETRY_S of the failure: not asked again
    assert len(lms.requests) == calls


def test_a_site_without_platform_courses_idles_on_one_primary_key_look_up(make_site):
    """The periodic job runs :func:`roster_round` every 20 s in every site process; a site no LMS
    launched into must not run the sync's query (correlated over the roster syncs) each time."""
    from sqlalchemy import event

    app = make_site(start_workers=False)
    statements: list[str] = []

    def seen(conn, cursor, statement, *_):
        statements.append(statement)

    engine = services(app).engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        assert roster_round(services(app).sessions, ServiceClient(lambda: None)) == 0
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert len(statements) == 1 and "lti_roster_sync" not in statements[0], statements
    assert "FROM lti_context" in statements[0] and "LIMIT" in statements[0]


# --- line items and scores ---

def posts(sessions) -> list[LtiScorePost]:
    with sessions() as session:
        return list(session.scalars(select(LtiScorePost).order_by(LtiScorePost.id)))


def test_linking_twice_makes_one_line_item(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        queue_changed_scores(session, client)
        first = session.get(LtiResourceLink, ids["link"]).lineitem_url
        # A second link to the same exercise (the instructor placed it twice), and the first one forgotten.
        session.add(LtiResourceLink(context_row_id=ids["context"], resource_link_id="rl-2",
                                    exercise_id=session.get(LtiResourceLink, ids["link"]).exercise_id))
        session.get(LtiResourceLink, ids["link"]).lineitem_url = None
        session.commit()
        queue_changed_scores(session, client)
        urls = set(session.scalars(select(LtiResourceLink.lineitem_url)))
    assert len(lms.lineitems) == 1 and urls == {first}
    assert lms.lineitems[0]["resourceId"].startswith("exercise-") and lms.lineitems[0]["scoreMaximum"] == 1.0
    assert [m for m, p in lms.requests if p == "/lineitems"] == ["POST"]


def test_a_line_item_the_platform_puts_on_another_host_is_not_used(linked, lms):
    _, sessions, client, ids = linked
    lms.lineitems.append({"id": "http://evil.example/lineitems/1", "resourceId": "exercise-1", "scoreMaximum": 1})
    with sessions() as session:
        link = session.get(LtiResourceLink, ids["link"])
        lms.lineitems[0]["resourceId"] = f"exercise-{link.exercise_id}"
        graded(session, ids["ann"], 1, 10, course_id=ids["course"])
        queued = queue_changed_scores(session, client)
        assert (queued.queued, queued.links_failed) == (0, 1)
        assert session.get(LtiResourceLink, ids["link"]).lineitem_url is None


def test_a_line_item_from_the_launch_is_used_as_it_is(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        session.get(LtiResourceLink, ids["link"]).lineitem_url = f"{lms.base}/lineitems/77?x=1"
        session.commit()
        graded(session, ids["ann"], 1, 10, course_id=ids["course"])
    passback_round(sessions, client)
    assert lms.lineitems == [] and [url for url, _ in lms.scores] == ["/lineitems/77"]
    assert scores_url(f"{lms.base}/lineitems/77?x=1") == f"{lms.base}/lineitems/77/scores?x=1"


def test_a_grading_is_posted_with_fully_graded_and_its_evidence(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        graded(session, ids["ann"], 1, 7, course_id=ids["course"])
    queued, sent = passback_round(sessions, client)
    assert (queued.queued, sent.posted, sent.failed) == (1, 1, 0)
    (_, score), = lms.scores
    assert score["userId"] == "sub-ann" and score["scoreGiven"] == pytest.approx(0.7) and score["scoreMaximum"] == 1.0
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    assert "WA: 7 of 10 cases passed" in score["comment"] and "alpha = 1e-06" in score["comment"]
    assert "误判上界" in score["comment"]
    assert posts(sessions)[0].posted_at is not None


def test_an_unchanged_score_is_not_posted_again(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        graded(session, ids["ann"], 1, 7, course_id=ids["course"])
    passback_round(sessions, client)
    with sessions() as session:  # a worse later attempt: the best still counts, the score is the same
        graded(session, ids["ann"], 1, 3, at="2027-03-03 10:00", course_id=ids["course"])
    queued, sent = passback_round(sessions, client)
    assert (queued.queued, sent.posted) == (0, 0) and len(lms.scores) == 1 and len(posts(sessions)) == 1


def test_an_override_and_a_rejudge_change_the_counted_score_and_each_is_posted(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        submission_id = graded(session, ids["ann"], 1, 7, course_id=ids["course"]).id
    passback_round(sessions, client)
    with sessions() as session:
        course, ann = session.get(Course, ids["course"]), session.get(User, ids["ann"])
        override_score(session, course, ann, exercise(session, 1), 0.9, "extra credit", session.get(User, ids["teacher"]))
        session.commit()
    passback_round(sessions, client)
    assert [score["scoreGiven"] for _, score in lms.scores] == [pytest.approx(0.7), pytest.approx(0.9)]
    assert "instructor's score 0.9" in lms.scores[-1][1]["comment"]
    with sessions() as session:  # the override withdrawn, then a rejudge gives the attempt 8 of 10
        from web.teaching.courses import withdraw_override

        course, ann = session.get(Course, ids["course"]), session.get(User, ids["ann"])
        withdraw_override(session, course, ann, exercise(session, 1), session.get(User, ids["teacher"]))
        submission = session.get(Submission, submission_id)
        new = Grading(status=Status.done, verdict=submission.current.verdict, score_passed=8, score_total=10,
                      seed=99, attempts=1, report_json={"false_failure_budget": BUDGET},
                      replaces_id=submission.current.id)
        submission.gradings.append(new)
        session.flush()
        submission.current_grading_id = new.id
        session.commit()
    passback_round(sessions, client)
    assert [score["scoreGiven"] for _, score in lms.scores][-1] == pytest.approx(0.8)
    assert len(lms.scores) == 3 and [p.sequence for p in posts(sessions)] == [1, 2, 3]


def test_a_link_to_an_assignment_sends_the_sum_of_its_exercises(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        session.add(LtiResourceLink(context_row_id=ids["context"], resource_link_id="rl-week",
                                    assignment_id=ids["assignment"], title="Week 1"))
        session.commit()
        graded(session, ids["ann"], 1, 10, course_id=ids["course"])
        graded(session, ids["ann"], 39, 5, course_id=ids["course"])
    passback_round(sessions, client)
    week = [score for url, score in lms.scores if score["scoreMaximum"] == 2.0]
    assert len(week) == 1 and week[0]["scoreGiven"] == pytest.approx(1.5)
    assert week[0]["comment"].count("\n") == 1  # one line per exercise


def test_while_the_lms_is_down_the_score_waits_and_is_posted_once_when_it_is_back(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        graded(session, ids["ann"], 1, 7, course_id=ids["course"])
    lms.down = True
    _, sent = passback_round(sessions, client)
    (row,) = posts(sessions)
    assert (sent.failed, row.posted_at, row.attempts) == (1, None, 1) and "503" in row.last_error
    assert row.next_attempt_at > row.created_at + dt.timedelta(seconds=backoff(1) - 5)
    _, sent = passback_round(sessions, client)  # not due yet: not tried, not lost
    assert (sent.posted, sent.failed) == (0, 0) and lms.scores == []
    lms.down = False
    with sessions() as session:  # the backoff has run out
        session.get(LtiScorePost, row.id).next_attempt_at = row.created_at
        session.commit()
    _, sent = passback_round(sessions, client)
    _, again = passback_round(sessions, client)
    (row,) = posts(sessions)
    assert (sent.posted, again.posted, len(lms.scores)) == (1, 0, 1)
    assert row.posted_at is not None and row.attempts == 2 and row.last_error is None


def test_the_site_sends_a_new_grading_by_itself(make_site, lms, tool_keys):
    """The periodic job the application factory starts (here every 0.2 s) reads the tool's key
    from the database and posts the score, with no call from the test or from grading."""
    import time

    app, sessions, _, ids = link_site(make_site(lti_passback_s=0.2), lms, tool_keys)
    with sessions() as session:
        graded(session, ids["ann"], 1, 9, course_id=ids["course"])
    deadline = time.monotonic() + 30
    while not lms.scores and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [score["scoreGiven"] for _, score in lms.scores] == [pytest.approx(0.9)]


def test_backoff_doubles_up_to_an_hour():
    assert [backoff(n) for n in (1, 2, 3)] == [30.0, 60.0, 120.0] and backoff(30) == 3600.0


def test_learners_without_an_lms_account_and_unattempted_cells_send_nothing(linked, lms):
    _, sessions, client, ids = linked
    with sessions() as session:
        course = session.get(Course, ids["course"])
        zed = learner_in(session, course, "zed")
        session.commit()
        graded(session, zed.id, 1, 10, course_id=ids["course"])
    queued, _ = passback_round(sessions, client)
    assert queued.queued == 0 and lms.scores == []


# --- the pages and the API ---

def test_the_course_page_offers_the_sync_and_a_failing_lms_is_a_message_not_an_error(linked, lms):
    app, sessions, _, ids = linked
    client = app.test_client()
    sign_in(client, ids["teacher_name"])
    page = client.get(f"/courses/{ids['course']}")
    assert page.status_code == 200 and b"lti-roster-sync" in page.data
    lms.pages = [[member("sub-ann", f"{LIS}Learner")], []]
    lms.next_link_host = "http://evil.example"  # the sync fails
    response = client.post(f"/courses/{ids['course']}/lti/roster-sync",
                           data={"csrf_token": csrf_token(client, f"/courses/{ids['course']}")}, follow_redirects=True)
    assert response.status_code == 200 and b"could not be read" in response.data
    lms.next_link_host = None
    response = client.post(f"/courses/{ids['course']}/lti/roster-sync",
                           data={"csrf_token": csrf_token(client, f"/courses/{ids['course']}")}, follow_redirects=True)
    assert b"1 member in the LMS" in response.data
    assert client.post(f"/courses/{ids['course']}/lti/roster-sync", data={}).status_code == 400  # no CSRF token


def test_a_learner_may_not_sync_the_roster(linked, lms):
    app, sessions, _, ids = linked
    client = app.test_client()
    sign_in(client, "ann")
    token = csrf_token(client, "/courses/")
    assert client.post(f"/courses/{ids['course']}/lti/roster-sync", data={"csrf_token": token}).status_code == 403


def test_the_api_syncs_the_roster_and_reports_a_failure_in_its_entry(linked, lms):
    app, sessions, _, ids = linked
    from web.core.models import ApiToken

    with sessions() as session:
        token, secret = ApiToken.issue(session.get(User, ids["teacher"]))
        session.add(token)
        learner_token, learner_secret = ApiToken.issue(session.get(User, ids["ann"]))
        session.add(learner_token)
        session.commit()
    lms.pages = [[member("sub-ann", f"{LIS}Learner"), member("sub-eve", f"{LIS}Learner")]]
    url = f"/api/v1/courses/{ids['course']}/lti/roster-sync"
    answer = app.test_client().post(url, headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 200 and answer.json["synced"][0]["members"] == 2
    assert len(answer.json["synced"][0]["added"]) == 1
    lms.down = True  # scores only: the roster still answers
    lms.next_link_host = "http://evil.example"
    lms.pages = [[member("sub-ann", f"{LIS}Learner")], []]
    failed = app.test_client().post(url, headers={"Authorization": f"Bearer {secret}"})
    assert failed.status_code == 200 and "another host" in failed.json["synced"][0]["error"]
    assert app.test_client().post(url, headers={"Authorization": f"Bearer {learner_secret}"}).status_code == 403


def test_a_course_linked_to_no_lms_has_no_sync(make_site):
    app = make_site(start_workers=False)
    with services(app).sessions() as session:
        teacher = account(session, "lonely", Role.instructor)
        _, course, _ = course_with_assignment(session)
        session.commit()
        course_id = course.id
    assert teacher is not None
    from web.core.models import ApiToken

    with services(app).sessions() as session:
        owner = session.scalar(select(User).join(Membership, Membership.user_id == User.id)
                               .where(Membership.course_id == course_id))
        token, secret = ApiToken.issue(owner)
        session.add(token)
        session.commit()
    answer = app.test_client().post(f"/api/v1/courses/{course_id}/lti/roster-sync",
                                    headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 400 and "linked to no LMS course" in answer.json["message"]
