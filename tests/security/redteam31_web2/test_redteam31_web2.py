"""Red team 31, second round: attacks on the web site and API (claims 2 to 8) that the first
round (tests/security/redteam31_web) did not try.

Each test PASSES when the claim holds and FAILS when the attack broke it."""

from __future__ import annotations

import datetime as dt
import re
import threading
import time

import pytest
from sqlalchemy import select

from tests.web.site_client import HeldWait, csrf_token, sign_in, signed_in, user_id
from tests.web.test_course_api import assignment, call, course_with_learners, people_site
from web.core.models import Exercise, ExtensionEvent, Grading, Invitation, Status, Submission, User, utcnow
from web.services import services

PUBLIC = {"name": "softmax", "suite": "public", "verdict": "AC", "message": "", "time_ms": 3.0, "checks": []}


def report(hidden_passes: bool) -> dict:
    hidden = {"name": "zipf", "suite": "hidden", "verdict": "AC" if hidden_passes else "WA",
              "message": "" if hidden_passes else "row 7 drew 3 too often", "rule": "zipf row 7",
              "time_ms": 4.0 if hidden_passes else 900.0,
              "checks": [{"kind": "fit", "label": "row 7", "passed": hidden_passes, "alpha": 1e-9}]}
    if hidden_passes:
        return {"verdict": "AC", "score": {"passed": 2, "total": 2}, "message": "", "seed": 11,
                "cases": [PUBLIC, hidden]}
    return {"verdict": "WA", "score": {"passed": 1, "total": 2}, "message": "zipf failed", "seed": 11,
            "diagnosis": "top-k keeps one too many", "cases": [PUBLIC, hidden]}


@pytest.fixture
def site(make_site):
    return people_site(make_site)


_browser, _uid = signed_in, user_id  # short names the attacks below use


def _store(site, name, course_id, rep, number=39, finished_at=None, created_at=None):
    """A graded submission of ``name`` made for ``course_id`` (None: practice)."""
    with services(site).sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        exercise = session.scalar(select(Exercise).where(Exercise.number == number))
        submission = Submission(user=user, exercise=exercise, code="x = 3\n",
                                course_id=course_id)
        if created_at is not None:
            submission.created_at = created_at
        score = rep.get("score") or {}
        row = Grading(status=Status.done, verdict=rep["verdict"], score_passed=score.get("passed"),
                      score_total=score.get("total"), seed=rep.get("seed"), report_json=rep,
                      diagnosis=rep.get("diagnosis"), started_at=utcnow(), finished_at=finished_at or utcnow(),
                      attempts=1)
        submission.gradings.append(row)
        session.add(submission)
        session.flush()
        submission.current_grading_id = row.id
        session.commit()
        return submission.id


def _two_courses_with_ann(site):
    """ann learns in tia's course A and tom's course B; both assign exercise 39; one submission each."""
    a = course_with_learners(site, "ann")
    b = course_with_learners(site, "ann", teacher="tom")
    assert assignment(site, a["id"]).status_code == 201
    assert assignment(site, b["id"], who="tom").status_code == 201
    in_a = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "secret_a = 1\n",
                                                               "course": a["id"]})
    in_b = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "b = 2\n",
                                                               "course": b["id"]})
    assert in_a.status_code == 202 and in_b.status_code == 202, (in_a.json, in_b.json)
    return a, b, in_a.json["id"], in_b.json["id"]


# --- claim 2: joining is consent -------------------------------------------------------------


def test_claim2_instructor_add_of_a_learner_member_needs_consent_to_promote(site):
    """Promoting a learner to instructor goes through an invitation, not at once."""
    course = course_with_learners(site, "ann")
    answer = call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/instructors", {"user": "ann"})
    assert answer.status_code == 200 and answer.json["outcome"] != "member"
    assert call(site, "ann", "GET", f"/api/v1/courses/{course['id']}").json["role"] == "learner"


def test_claim2_creating_a_course_adds_nobody_else(site):
    made = call(site, "tia", "POST", "/api/v1/courses", {"name": "X", "members": ["ann"], "learners": ["ann"],
                                                          "instructors": ["tom"], "user": "ann"})
    assert made.status_code == 201
    assert call(site, "ann", "GET", f"/api/v1/courses/{made.json['id']}").status_code == 404
    assert call(site, "tom", "GET", f"/api/v1/courses/{made.json['id']}").status_code == 404


def test_claim2_pending_invitee_not_in_analytics(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/roster", {"csv": "bob"})
    _store(site, "bob", None, report(False))
    answer = call(site, "tia", "GET", f"/api/v1/courses/{course['id']}/analytics")
    assert answer.status_code == 200
    assert "bob" not in answer.get_data(as_text=True)
    tia = _browser(site, "tia")
    for url in (f"/courses/{course['id']}/analytics", f"/courses/{course['id']}/analytics/learners?diagnosis=top-k%20keeps%20one%20too%20many",
                f"/courses/{course['id']}/analytics/course", f"/courses/{course['id']}/gradebook"):
        page = tia.get(url)
        assert page.status_code in (200, 404) and "bob" not in page.get_data(as_text=True), url


# --- claim 3: instructors see only their course's work ------------------------------------


def test_claim3_other_course_cell_page_and_lists_show_only_own_course(site):
    a, b, in_a, in_b = _two_courses_with_ann(site)
    tom = _browser(site, "tom")
    cell = tom.get(f"/courses/{b['id']}/gradebook/{_uid(site, 'ann')}/39")
    assert cell.status_code == 200
    html = cell.get_data(as_text=True)
    assert f"/submissions/{in_a}" not in html and f"/submissions/{in_b}" in html
    listing = call(site, "tom", "GET", f"/api/v1/courses/{b['id']}/submissions").json
    assert [row["id"] for row in listing["submissions"]] == [in_b]
    page = tom.get(f"/courses/{b['id']}/submissions").get_data(as_text=True)
    assert f"/submissions/{in_a}\"" not in page


def test_claim3_diff_across_courses_is_404_for_the_other_instructor(site):
    a, b, in_a, in_b = _two_courses_with_ann(site)
    tom = _browser(site, "tom")
    assert tom.get(f"/submissions/{in_a}/diff/{in_b}").status_code == 404
    assert tom.get(f"/submissions/{in_b}/diff/{in_a}").status_code == 404
    page = tom.get(f"/submissions/{in_b}").get_data(as_text=True)
    assert f"/submissions/{in_a}" not in page  # no previous/next link into course A


def test_claim3_other_course_assignment_ids_refused_everywhere(site):
    a, b, in_a, in_b = _two_courses_with_ann(site)
    with services(site).sessions() as session:
        from web.core.models import Assignment
        work_a = session.scalar(select(Assignment.id).where(Assignment.course_id == a["id"]))
    assert call(site, "tom", "POST", f"/api/v1/courses/{b['id']}/rejudge", {"assignment": work_a}).status_code == 404
    assert call(site, "tom", "PUT", f"/api/v1/courses/{b['id']}/assignments/{work_a}",
                {"title": "pwn", "exercises": [39], "opens_at": "2020-01-01T00:00Z",
                 "due_at": "2099-01-01T00:00Z"}).status_code == 404
    tom = _browser(site, "tom")
    assert tom.get(f"/courses/{b['id']}/assignments/{work_a}").status_code == 404
    with services(site).sessions() as session:
        assert len(session.scalars(select(Grading).where(Grading.submission_id == in_a)).all()) == 1


def test_claim3_analytics_of_other_course_count_only_its_own_work(site):
    a, b, in_a, in_b = _two_courses_with_ann(site)
    for _ in range(3):
        call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "more_a = 1\n", "course": a["id"]})
    body_b = call(site, "tom", "GET", f"/api/v1/courses/{b['id']}/analytics").get_data(as_text=True)
    counts = [int(n) for n in re.findall(r'"(?:attempts|submissions)"\s*:\s*(\d+)', body_b)]
    assert counts and max(counts) <= 1, body_b[:800]


def test_claim3_migration_0006_does_not_hand_pre_join_practice_to_a_course(tmp_path):
    """A submission made months before its author joined any course was practice; the migration must
    not make it the course's (its instructors would read code never submitted for them)."""
    from alembic import command
    from sqlalchemy import text

    from web.core.database import alembic_config, make_engine, upgrade

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0005")
    engine = make_engine(url)
    with engine.begin() as c:
        c.execute(text("INSERT INTO user (id, name, name_key, password_hash, role, language, created_at) "
                       "VALUES (1, 'ann', 'ann', 'x', 'learner', 'en', '2025-01-01 00:00:00')"))
        c.execute(text("INSERT INTO exercise (id, number, slug, title_en, title_zh, difficulty, tags, runs_in, "
                       "content_hash, synced_at) VALUES (1, 39, 'e39', 'S', 'S', 'easy', '[]', '[]', 'h', "
                       "'2025-01-01 00:00:00')"))
        c.execute(text("INSERT INTO course (id, name, join_code, time_zone, created_at) "
                       "VALUES (1, 'C', 'code1', 'UTC', '2026-01-01 00:00:00')"))
        c.execute(text("INSERT INTO assignment (id, course_id, title, opens_at, due_at, late_policy, penalty_per_day, "
                       "visibility_before, visibility_after, created_at) VALUES (1, 1, 'W', '2026-02-01 00:00:00', "
                       "'2026-03-01 00:00:00', 'not_accepted', 0, 'rule', 'rule', '2026-01-01 00:00:00')"))
        c.execute(text("INSERT INTO assignment_exercise (assignment_id, exercise_id, course_id, position) "
                       "VALUES (1, 1, 1, 0)"))
        c.execute(text("INSERT INTO membership (id, course_id, user_id, role, joined_at) "
                       "VALUES (1, 1, 1, 'learner', '2026-02-01 00:00:00')"))
        c.execute(text("INSERT INTO submission (id, user_id, exercise_id, code, created_at) "
                       "VALUES (1, 1, 1, 'my private practice', '2025-06-01 00:00:00')"))
    engine.dispose()
    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as c:
        course_id = c.execute(text("SELECT course_id FROM submission WHERE id = 1")).scalar()
    engine.dispose()
    assert course_id is None, "a 2025 practice submission was given to a course ann joined in 2026"


# --- claim 4: withheld stays withheld ------------------------------------------------------


def _withheld_world(make_site, hidden_passes):
    site = people_site(make_site)
    course = course_with_learners(site, "ann", "cy")
    assert assignment(site, course["id"], visibility_before="nothing").status_code == 201
    done = utcnow().replace(second=30)
    first = _store(site, "ann", course["id"], report(hidden_passes), finished_at=done)
    second = _store(site, "ann", course["id"], report(False), finished_at=done)
    return site, course, first, second


_NOISE = re.compile(r'(csrf_token"[^>]*value=")[^"]+"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?([+-]\d\d:\d\d|Z)?'
                    r'|x = \d+')


def _norm(text):
    return _NOISE.sub("<x>", text)


def test_claim4_nothing_holds_on_url_variants_languages_and_headers(make_site):
    """Two sites differing only in a withheld hidden outcome; URL variants the route walker does not
    try (?course=, ?lang=zh, pages of history, the diff both ways) and response headers."""
    worlds = [_withheld_world(make_site, passes) for passes in (True, False)]
    answers = []
    for site, course, first, second in worlds:
        cid = course["id"]
        urls = [f"/exercises/39?course={cid}", "/exercises/39?lang=zh", "/exercises/39/submissions?lang=zh",
                f"/exercises/39/submissions?course={cid}", f"/submissions/{first}?lang=zh",
                f"/submissions/{first}/result?lang=zh", f"/submissions/{second}/diff/{first}",
                f"/submissions/{first}/diff/{second}?lang=zh", f"/courses/{cid}?lang=zh", "/profile/?lang=zh",
                "/exercises/?lang=zh", f"/submissions/{first}/result?wait=0.1"]
        got = []
        for viewer in ("ann", "cy", "bob"):
            client = _browser(site, viewer)
            for url in urls:
                r = client.get(url)
                headers = {k: v for k, v in r.headers.items() if k not in ("Set-Cookie", "Date", "Content-Length", "X-RateLimit-Reset", "X-RateLimit-Remaining", "Retry-After")}
                got.append((viewer, url, r.status_code, headers, _norm(r.get_data(as_text=True))))
        for viewer in ("ann", "cy"):
            for url in (f"/api/v1/submissions/{first}", f"/api/v1/submissions/{first}/results.json",
                        f"/api/v1/courses/{cid}", "/api/v1/courses"):
                for lang in ("en", "zh"):
                    r = site.test_client().get(url, headers={**site.config["HEADERS"][viewer],
                                                             "Accept-Language": lang})
                    headers = {k: v for k, v in r.headers.items() if k not in ("Date", "Content-Length", "X-RateLimit-Reset", "X-RateLimit-Remaining", "Retry-After")}
                    got.append((viewer, url + lang, r.status_code, headers, _norm(r.get_data(as_text=True))))
        answers.append(got)
    differing = [(a[0], a[1], [k for k in set(a[3]) | set(b[3]) if a[3].get(k) != b[3].get(k)], a[4] == b[4])
                 for a, b in zip(*answers, strict=True) if a[2:] != b[2:]]
    assert not differing, differing


def test_claim4_classmate_and_counter_learn_nothing_from_withheld_ac(make_site):
    pages = []
    for passes in (True, False):
        site, course, first, second = _withheld_world(make_site, passes)
        cy = _browser(site, "cy")
        pages.append([_norm(cy.get(url).get_data(as_text=True)) for url in
                      ("/exercises/", f"/courses/{course['id']}", "/exercises/39")]
                     + [_norm(site.test_client().get("/exercises/").get_data(as_text=True))])
    assert pages[0] == pages[1]


def test_claim4_nothing_withholds_verdict_of_rejudge_in_progress(make_site):
    """A rejudge queued on a withheld submission: the learner's answers must not change with the old verdict."""
    outs = []
    for passes in (True, False):
        site, course, first, second = _withheld_world(make_site, passes)
        assert call(site, "tia", "POST", f"/api/v1/submissions/{first}/rejudge").status_code in (200, 202)
        body = call(site, "ann", "GET", f"/api/v1/submissions/{first}").json
        body.pop("created_at", None)
        outs.append(body)
        html = _norm(_browser(site, "ann").get(f"/submissions/{first}").get_data(as_text=True))
        outs.append(html)
    assert outs[0] == outs[2] and outs[1] == outs[3]


# --- claim 5: time -------------------------------------------------------------------------


def test_claim5_no_grading_order_or_finish_time_on_learner_history(make_site):
    """Two attempts graded in the opposite order (a slow hidden case finishes later): what the author
    sees must not depend on the finishing order."""
    outs = []
    for slow_first in (True, False):
        site = people_site(make_site)
        course = course_with_learners(site, "ann")
        assert assignment(site, course["id"]).status_code == 201
        base = utcnow().replace(second=5, microsecond=0)
        a = _store(site, "ann", course["id"], report(True),
                   finished_at=base + dt.timedelta(seconds=40 if slow_first else 1), created_at=base)
        b = _store(site, "ann", course["id"], report(True),
                   finished_at=base + dt.timedelta(seconds=1 if slow_first else 40), created_at=base)
        ann = _browser(site, "ann")
        got = [_norm(ann.get(u).get_data(as_text=True)) for u in
               ("/exercises/39/submissions", "/exercises/39", f"/submissions/{a}/diff/{b}", f"/submissions/{a}")]
        for sid in (a, b):
            j = call(site, "ann", "GET", f"/api/v1/submissions/{sid}").json
            got.append({k: v for k, v in j.items() if k not in ("created_at",)})
        outs.append(got)
    assert outs[0] == outs[1]


# --- claim 6: bounded work -----------------------------------------------------------------


def test_claim6_exercise_history_page_is_bounded(site):
    """A learner at 300 submissions an hour has thousands of attempts after a few days; the history
    page must not render (and load with every grading) all of them at once."""
    with services(site).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        for i in range(3000):
            sub = Submission(user=ann, exercise=exercise, code=f"x = {i}\n")
            sub.gradings.append(Grading(status=Status.done, verdict="WA", score_passed=1, score_total=2,
                                        report_json=report(False), attempts=1, finished_at=utcnow()))
            session.add(sub)
        session.commit()
    ann_client = _browser(site, "ann")
    started = time.monotonic()
    page = ann_client.get("/exercises/39/submissions")
    took = time.monotonic() - started
    links = len(set(re.findall(r'href="/submissions/(\d+)"', page.get_data(as_text=True))))
    assert links <= 200, f"one request rendered {links} attempts in {took:.2f} s"


@pytest.mark.parametrize("identifier", ["9" * 4400, "a" * 60000, "..%2f..%2fsolutions", "0" * 5000 + "39"])
def test_claim6_exercise_identifier_is_bounded_and_never_a_500(site, identifier):
    client = _browser(site, "ann")
    for url in (f"/exercises/{identifier}", f"/browser/exercises/{identifier}/files.json",
                f"/exercises/{identifier}/submissions"):
        started = time.monotonic()
        answer = client.get(url)
        assert answer.status_code in (404, 414) and time.monotonic() - started < 2, (url[:60], answer.status_code)
    api = call(site, "ann", "GET", f"/api/v1/exercises/{identifier}")
    assert api.status_code in (404, 414)


# --- claim 7: rate limits ------------------------------------------------------------------


def test_claim7_sign_in_limit_not_bypassed_by_forwarded_for(site):
    client = site.test_client()
    for i in range(10):
        assert sign_in(client, "ann", "wrong-password").status_code == 401
    token = csrf_token(client, "/auth/sign-in")
    answer = client.post("/auth/sign-in", data={"csrf_token": token, "name": "ann", "password": "password123"},
                         headers={"X-Forwarded-For": "10.9.8.7", "X-Real-IP": "10.9.8.7"})
    assert answer.status_code == 429


def test_claim7_join_code_page_guesses_count_for_the_api(site):
    course = course_with_learners(site)
    bob = _browser(site, "bob")
    for i in range(10):
        token = csrf_token(bob, "/courses/")
        assert bob.post("/courses/join", data={"csrf_token": token, "join_code": f"QQQQQQQ{i}"}).status_code == 404
    assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": course["join_code"]}).status_code == 429


def test_claim7_join_guessing_with_malformed_codes_is_counted(site):
    """Codes the API refuses as malformed (not strings, too long) still count, and a right code after them waits."""
    course = course_with_learners(site)
    for body in ({"join_code": 12345678}, {"join_code": ["X"]}, {"join_code": "Z" * 65}, {"join_code": " "},
                 {"join_code": "ZZZZ-ZZZ1"}, {"join_code": "zzzzzzz2"}, {"join_code": "ZZZZZZZ3\u200b"},
                 {"join_code": "ZZZZZZZ4"}, {"join_code": "ZZZZZZZ5"}, {"join_code": "ZZZZZZZ6"}):
        assert call(site, "bob", "POST", "/api/v1/courses/join", body).status_code >= 400
    assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": course["join_code"]}).status_code == 429


def test_claim7_password_change_guessing_limited_across_sessions(site):
    sessions = [_browser(site, "ann") for _ in range(2)]
    statuses = []
    for i in range(12):
        client = sessions[i % 2]
        token = csrf_token(client, "/profile/")
        statuses.append(client.post("/profile/password", data={
            "csrf_token": token, "current_password": f"guess{i:04d}xx", "new_password": "newpassword1",
            "new_password_again": "newpassword1", "revoke_tokens": "y"}).status_code)
    assert statuses[-1] == 429, statuses


# --- claim 8: taking back ------------------------------------------------------------------


def test_claim8_revoked_token_gets_nothing_from_a_wait_in_flight(site):
    """A thief's ``?wait=`` request made before an admin revoke must not deliver the verdict after it."""
    made = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "x = 1\n"})
    assert made.status_code == 202
    sid = made.json["id"]
    result = {}

    def thief():
        result["answer"] = call(site, "ann", "GET", f"/api/v1/submissions/{sid}?wait=3")

    with HeldWait(site) as held:  # the revoke lands inside the wait, however busy the machine
        worker = threading.Thread(target=thief)
        worker.start()
        assert held.entered.wait(30)
        revoked = call(site, "root", "POST", f"/api/v1/admin/users/{_uid(site, 'ann')}/revoke", {"confirm": True})
        assert revoked.status_code == 200
        held.release()
        worker.join()
    assert call(site, "ann", "GET", f"/api/v1/submissions/{sid}").status_code == 401
    assert result["answer"].status_code == 401, result["answer"].status_code


def test_claim8_removing_a_member_takes_back_their_pending_instructor_invitation(site):
    """bob is invited to teach, joins as a learner by the code meanwhile, and is removed: the
    invitation from before the removal must not let him back in, as an instructor."""
    course = course_with_learners(site)
    call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/instructors", {"user": "bob"})
    assert call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": course["join_code"]}).status_code == 200
    removed = call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                   {"user": "bob", "confirm": True})
    assert removed.status_code == 200
    pending = call(site, "bob", "GET", "/api/v1/invitations").json["invitations"]
    for invitation in pending:
        call(site, "bob", "POST", f"/api/v1/invitations/{invitation['id']}/accept")
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 404


def test_claim8_password_change_ends_a_stolen_cookie_and_its_tokens(site):
    ann = _browser(site, "ann")
    thief = site.test_client()
    for cookie in ann._cookies.values():
        thief._cookies[(cookie.domain, cookie.path, cookie.key)] = cookie
    token = csrf_token(thief, "/profile/")
    made = thief.post("/profile/tokens", data={"csrf_token": token, "label": "mine"})
    secret = re.search(r"pj_[A-Za-z0-9_\-]+|[A-Za-z0-9_\-]{32,}", made.get_data(as_text=True))
    other = _browser(site, "ann")  # ann signs in elsewhere and changes her password
    token = csrf_token(other, "/profile/")
    changed = other.post("/profile/password", data={"csrf_token": token, "current_password": "password123",
                                                    "new_password": "newpassword1", "new_password_again": "newpassword1",
                                                    "revoke_tokens": "y"})
    assert changed.status_code == 302
    assert thief.get("/profile/").status_code != 200
    assert ann.get("/profile/").status_code != 200
    if secret:
        headers = {"Authorization": f"Bearer {secret.group(0)}"}
        assert site.test_client().get("/api/v1/courses", headers=headers).status_code == 401


def test_claim8_admin_revoke_ends_cookie_sessions(site):
    ann = _browser(site, "ann")
    assert ann.get("/profile/").status_code == 200
    assert call(site, "root", "POST", f"/api/v1/admin/users/{_uid(site, 'ann')}/revoke",
                {"confirm": True}).status_code == 200
    assert ann.get("/profile/").status_code != 200
    assert call(site, "ann", "GET", "/api/v1/courses").status_code == 401


def test_claim8_extension_history_survives_withdraw_and_regrant(site):
    course = course_with_learners(site, "ann")
    work = assignment(site, course["id"], due_at="2027-03-08T00:00Z").json
    base = f"/api/v1/courses/{course['id']}/assignments/{work['id']}/extensions"
    assert call(site, "tia", "POST", base, {"user": "ann", "due_at": "2027-03-10T00:00Z"}).status_code == 200
    assert call(site, "tia", "POST", base + "/withdraw", {"user": "ann"}).status_code == 200
    assert call(site, "tia", "POST", base + "/withdraw", {"user": "ann"}).status_code == 400
    assert call(site, "tia", "POST", base, {"user": "ann", "due_at": "2027-03-12T00:00Z"}).status_code == 200
    with services(site).sessions() as session:
        events = session.scalars(select(ExtensionEvent).order_by(ExtensionEvent.id)).all()
        assert [e.due_at is None for e in events] == [False, True, False]


def test_claim8_removed_learner_cannot_submit_through_the_page_or_course_link(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    ann = _browser(site, "ann")
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                {"user": "ann", "confirm": True}).status_code == 200
    token = csrf_token(ann, f"/exercises/39?course={course['id']}")
    page = ann.post(f"/exercises/39/submit?course={course['id']}",
                    data={"csrf_token": token, "code": "x = 5\n", "course": str(course["id"])})
    assert page.status_code == 400
    token = csrf_token(ann, f"/exercises/39?course={course['id']}")
    hinted = ann.post(f"/exercises/39/submit?course={course['id']}", data={"csrf_token": token, "code": "x = 6\n"})
    with services(site).sessions() as session:
        contexts = session.scalars(select(Submission.course_id)).all()
    assert course["id"] not in contexts, (hinted.status_code, contexts)


def test_claim8_withdrawn_invitation_races_an_accept(site):
    """Withdraw and accept at the same moment (two threads): never both a membership and a 'withdrawn' row."""
    course = course_with_learners(site)
    call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/roster", {"csv": "bob"})
    with services(site).sessions() as session:
        invitation = session.scalar(select(Invitation.id))
    barrier = threading.Barrier(2)
    out = {}

    def go(who, method, url):
        barrier.wait()
        out[who] = call(site, who, method, url).status_code

    threads = [threading.Thread(target=go, args=("bob", "POST", f"/api/v1/invitations/{invitation}/accept")),
               threading.Thread(target=go, args=("tia", "POST",
                                                 f"/api/v1/courses/{course['id']}/invitations/{invitation}/withdraw"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    member = call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 200
    with services(site).sessions() as session:
        state = session.get(Invitation, invitation).state.value
    assert (member and state == "accepted") or (not member and state == "withdrawn"), (out, member, state)
