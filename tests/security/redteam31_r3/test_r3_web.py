"""Red team 31, third round: attacks on the site and API (claims 2 to 8), first on the fixes of
the second round and their neighbours (the wait that re-checks its credential, paged history,
shared submit limit), then surfaces nobody tried. Each test PASSES when the claim holds."""

from __future__ import annotations

import re
import threading
import time

import pytest
from sqlalchemy import select

from tests.security.redteam31_web2.test_redteam31_web2 import _browser, _norm, _store, _uid, report
from tests.web.site_client import HeldWait, csrf_token
from tests.web.test_course_api import assignment, call, course_with_learners, people_site
from web.core.models import Exercise, Grading, Invitation, Override, Status, Submission, User, utcnow
from web.services import services


@pytest.fixture
def site(make_site):
    return people_site(make_site)


def _co_teacher(site, course, who="tom"):
    """``who`` invited to teach ``course`` and accepting."""
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/instructors", {"user": who}).status_code == 200
    pending = call(site, who, "GET", "/api/v1/invitations").json["invitations"]
    for invitation in pending:
        assert call(site, who, "POST", f"/api/v1/invitations/{invitation['id']}/accept").status_code == 200
    assert call(site, who, "GET", f"/api/v1/courses/{course['id']}").json["role"] == "instructor"


def _during(site, fn, act):
    """Run ``fn`` (a request that waits) in a thread, do ``act`` while it is inside its wait (held
    there by :class:`HeldWait`, not by a clock), then let it finish; its response."""
    out = {}
    with HeldWait(site) as held:
        worker = threading.Thread(target=lambda: out.setdefault("r", fn()))
        worker.start()
        assert held.entered.wait(30), "the request never started waiting"
        act()
        held.release()
        worker.join()
    return out["r"]


# --- claim 8: a wait re-checks the credential, but not the permission ------------------------


def _removed_co_teacher_setting(site, code):
    """ann's course submission (``code``) that tom co-teaches; what removes tom from the course."""
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    _co_teacher(site, course)
    made = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": code, "course": course["id"]})
    assert made.status_code == 202

    def remove_tom():
        removed = call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/members/remove",
                       {"user": "tom", "confirm": True})
        assert removed.status_code == 200

    return made.json["id"], remove_tom


def test_claim8_instructor_removed_during_an_api_wait_gets_nothing(site):
    """tom co-teaches; he holds a ?wait= on ann's course submission; tia removes him meanwhile.
    His token is still live (the fix checks only that), so the answer, code and all, is his."""
    sid, remove_tom = _removed_co_teacher_setting(site, "secret_code = 31\n")
    assert call(site, "tom", "GET", f"/api/v1/submissions/{sid}").status_code == 200
    answer = _during(site, lambda: call(site, "tom", "GET", f"/api/v1/submissions/{sid}?wait=3"), remove_tom)
    assert call(site, "tom", "GET", f"/api/v1/submissions/{sid}").status_code == 404  # afterwards: refused
    assert answer.status_code != 200, f"removed instructor got {answer.get_data(as_text=True)[:200]}"


def test_claim8_instructor_removed_during_a_page_wait_gets_nothing(site):
    sid, remove_tom = _removed_co_teacher_setting(site, "secret_code = 32\n")
    tom = _browser(site, "tom")
    answer = _during(site, lambda: tom.get(f"/submissions/{sid}/result?wait=3"), remove_tom)
    assert answer.status_code != 200, answer.status_code


def test_claim8_own_token_revoke_on_the_profile_ends_a_wait_in_flight(site):
    """Not an admin revoke (tried before): ann revokes the stolen token herself on her profile."""
    ann = _browser(site, "ann")
    token = csrf_token(ann, "/profile/")
    made = ann.post("/profile/tokens", data={"csrf_token": token, "label": "laptop"})
    secret = re.search(r"pj_[A-Za-z0-9_\-]+", made.get_data(as_text=True)) or re.search(
        r"[A-Za-z0-9_\-]{32,}", ann.get("/profile/").get_data(as_text=True)
    )
    assert secret, "no token secret shown"
    headers = {"Authorization": f"Bearer {secret.group(0)}"}
    sub = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "x = 1\n"}).json["id"]
    assert site.test_client().get(f"/api/v1/submissions/{sub}", headers=headers).status_code == 200
    def revoke_every_token():
        page = ann.get("/profile/").get_data(as_text=True)
        for token_id in re.findall(r"/profile/tokens/(\d+)/revoke", page):
            ann.post(f"/profile/tokens/{token_id}/revoke", data={"csrf_token": csrf_token(ann, "/profile/")})

    answer = _during(site, lambda: site.test_client().get(f"/api/v1/submissions/{sub}?wait=3", headers=headers),
                     revoke_every_token)
    assert site.test_client().get(f"/api/v1/submissions/{sub}", headers=headers).status_code == 401
    assert answer.status_code == 401, answer.status_code


def test_claim8_admin_revoke_ends_a_page_wait_of_a_stolen_cookie(site):
    sub = call(site, "ann", "POST", "/api/v1/submissions", {"exercise": "39", "code": "x = 1\n"}).json["id"]
    thief = _browser(site, "ann")
    def revoke_ann():
        revoked = call(site, "root", "POST", f"/api/v1/admin/users/{_uid(site, 'ann')}/revoke", {"confirm": True})
        assert revoked.status_code == 200

    answer = _during(site, lambda: thief.get(f"/submissions/{sub}/result?wait=3"), revoke_ann)
    assert answer.status_code != 200, answer.status_code


# --- claim 3: a learner's practice is nobody's course work -------------------------------------


def test_claim3_a_learners_practice_is_not_shown_to_their_instructor(site):
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    practice = _store(site, "ann", None, report(False))
    tia = _browser(site, "tia")
    for url in (f"/submissions/{practice}", f"/submissions/{practice}/result", f"/submissions/{practice}/code"):
        assert tia.get(url).status_code == 404, url
    for url in (f"/api/v1/submissions/{practice}", f"/api/v1/submissions/{practice}/results.json"):
        assert call(site, "tia", "GET", url).status_code == 404, url
    assert call(site, "tia", "POST", f"/api/v1/submissions/{practice}/rejudge").status_code == 404
    cell = tia.get(f"/courses/{course['id']}/gradebook/{_uid(site, 'ann')}/39").get_data(as_text=True)
    assert f'/submissions/{practice}"' not in cell
    with services(site).sessions() as session:
        assert len(session.scalars(select(Grading).where(Grading.submission_id == practice)).all()) == 1


def test_claim3_another_courses_work_does_not_count_in_this_gradebook(make_site):
    """ann is in A (tia) and B (tom), both assign 39; her only work is for A, AC in one world and WA
    in the other: B's gradebook (page, JSON, both CSVs) must read the same in both worlds."""
    outs = []
    for passes in (True, False):
        site = people_site(make_site)
        a = course_with_learners(site, "ann")
        b = course_with_learners(site, "ann", teacher="tom")
        assert assignment(site, a["id"]).status_code == 201
        assert assignment(site, b["id"], who="tom").status_code == 201
        _store(site, "ann", a["id"], report(passes))
        tom = _browser(site, "tom")
        got = [
            _norm(tom.get(f"/courses/{b['id']}/gradebook").get_data(as_text=True)),
            _norm(tom.get(f"/courses/{b['id']}/gradebook.csv").get_data(as_text=True)),
            _norm(call(site, "tom", "GET", f"/api/v1/courses/{b['id']}/gradebook").get_data(as_text=True)),
            _norm(call(site, "tom", "GET", f"/api/v1/courses/{b['id']}/gradebook.csv").get_data(as_text=True)),
            _norm(call(site, "tom", "GET", f"/api/v1/courses/{b['id']}/analytics").get_data(as_text=True)),
        ]
        code = re.compile("|".join(re.escape(c) for c in (a["join_code"], b["join_code"])), re.I)
        outs.append([code.sub("<code>", text) for text in got])
    differing = [(i, a[:3000], b[:3000]) for i, (a, b) in enumerate(zip(*outs, strict=True)) if a != b]
    assert not differing, differing


# --- claim 4: withheld on the doors the earlier rounds did not walk -----------------------------


def _world(make_site, hidden_passes, visibility="nothing", course_work=True):
    site = people_site(make_site)
    course = course_with_learners(site, "ann", "cy")
    assert assignment(site, course["id"], visibility_before=visibility).status_code == 201
    done = utcnow().replace(second=30)
    first = _store(site, "ann", course["id"] if course_work else None, report(hidden_passes), finished_at=done)
    second = _store(site, "ann", course["id"] if course_work else None, report(False), finished_at=done)
    return site, course, first, second


def test_claim4_nothing_holds_on_exercise_api_browser_files_download_and_history_pages(make_site):
    outs = []
    for passes in (True, False):
        site, course, first, second = _world(make_site, passes)
        got = []
        for viewer in ("ann", "cy"):
            for url in (
                "/api/v1/exercises",
                "/api/v1/exercises/39",
                f"/api/v1/exercises/39?course={course['id']}",
                f"/api/v1/submissions/{first}?wait=0.1",
                "/api/v1/invitations",
                "/api/v1/courses",
            ):
                got.append((viewer, url, _norm(call(site, viewer, "GET", url).get_data(as_text=True))))
            client = _browser(site, viewer)
            for url in (
                "/exercises/39/submissions?page=1",
                "/exercises/39/submissions?page=2",
                "/browser/exercises/39/files.json",
                "/courses/",
                "/",
                f"/courses/{course['id']}",
            ):
                got.append((viewer, url, _norm(client.get(url).get_data(as_text=True))))
            token = csrf_token(client, "/exercises/39")
            got.append(
                (
                    viewer,
                    "download",
                    _norm(client.post("/exercises/39/download", data={"csrf_token": token}).get_data(as_text=True)),
                )
            )
        outs.append(got)
    differing = [(a[0], a[1]) for a, b in zip(*outs, strict=True) if a != b]
    assert not differing, differing


def test_claim4_diagnosis_level_withholds_the_rule_everywhere(make_site):
    site, course, first, second = _world(make_site, False, visibility="diagnosis")
    secret_bits = ("zipf row 7", "row 7 drew 3 too often")
    ann = _browser(site, "ann")
    seen = []
    for url in (
        f"/submissions/{first}",
        f"/submissions/{first}/result",
        f"/submissions/{second}/diff/{first}",
        "/exercises/39/submissions",
        f"/exercises/39?course={course['id']}",
        f"/courses/{course['id']}",
    ):
        text = ann.get(url).get_data(as_text=True)
        seen += [(url, bit) for bit in secret_bits if bit in text]
    for url in (f"/api/v1/submissions/{first}", f"/api/v1/submissions/{first}/results.json"):
        text = call(site, "ann", "GET", url).get_data(as_text=True)
        seen += [(url, bit) for bit in secret_bits if bit in text]
    assert not seen, seen


# --- claim 5: a hidden case's time at the default level ----------------------------------------


def test_claim5_a_hidden_cases_time_does_not_reach_its_author_in_practice(make_site):
    """Two practice submissions identical but for how long the hidden case ran (4 ms vs 900 ms): a
    learner's code could sleep by a hidden input's value, so nothing the author sees may differ."""
    outs = []
    for slow in (False, True):
        site = people_site(make_site)
        rep = report(False)
        rep["cases"] = [dict(c) for c in rep["cases"]]
        rep["cases"][1]["time_ms"] = 900.0 if slow else 4.0
        rep["time_ms"] = 903.0 if slow else 7.0
        sid = _store(site, "ann", None, rep, finished_at=utcnow().replace(second=30))
        ann = _browser(site, "ann")
        got = [
            _norm(ann.get(u).get_data(as_text=True))
            for u in (f"/submissions/{sid}", f"/submissions/{sid}/result", "/exercises/39/submissions")
        ]
        for u in (f"/api/v1/submissions/{sid}", f"/api/v1/submissions/{sid}/results.json"):
            got.append(_norm(call(site, "ann", "GET", u).get_data(as_text=True)))
        outs.append(got)
    assert outs[0] == outs[1], [i for i, (a, b) in enumerate(zip(*outs, strict=True)) if a != b]


# --- claim 6: a learner's flood and the instructor's pages --------------------------------------


def test_claim6_a_learners_flood_does_not_make_the_gradebook_cell_page_unbounded(site):
    """The learner's own history is paged now; the instructor's cell page for that learner lists
    every attempt made for the course: one learner's 3000 attempts make it as large as they like."""
    course = course_with_learners(site, "ann")
    assert assignment(site, course["id"]).status_code == 201
    with services(site).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        for i in range(3000):
            sub = Submission(user=ann, exercise=exercise, code=f"x = {i}\n", course_id=course["id"])
            sub.gradings.append(
                Grading(
                    status=Status.done,
                    verdict="WA",
                    score_passed=1,
                    score_total=2,
                    report_json=report(False),
                    attempts=1,
                    finished_at=utcnow(),
                )
            )
            session.add(sub)
        session.commit()
    tia = _browser(site, "tia")
    started = time.monotonic()
    page = tia.get(f"/courses/{course['id']}/gradebook/{_uid(site, 'ann')}/39")
    took = time.monotonic() - started
    links = len(set(re.findall(r'/submissions/(\d+)"', page.get_data(as_text=True))))
    assert links <= 200, f"the cell page rendered {links} attempts in {took:.2f} s"


# --- claim 7: join-code guessing from several addresses ----------------------------------------


def test_claim7_join_guessing_per_account_holds_across_addresses(site):
    course = course_with_learners(site)
    bob = site.test_client()
    from tests.web.site_client import sign_in

    for i in range(10):
        address = {"REMOTE_ADDR": f"10.0.{i}.1"}
        bob = site.test_client()
        bob.environ_base.update(address)
        assert sign_in(bob, "bob").status_code == 302
        token = csrf_token(bob, "/courses/")
        assert bob.post("/courses/join", data={"csrf_token": token, "join_code": f"QQQQQQQ{i}"}).status_code == 404
    answer = site.test_client().post(
        "/api/v1/courses/join",
        json={"join_code": course["join_code"]},
        headers=site.config["HEADERS"]["bob"],
        environ_base={"REMOTE_ADDR": "10.9.9.9"},
    )
    assert answer.status_code == 429, answer.status_code


# --- claim 8: rotation, withdrawals --------------------------------------------------------------


def test_claim8_old_join_code_refused_by_the_api_in_any_spelling(site):
    course = course_with_learners(site)
    old = course["join_code"]
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/join-code", {"confirm": True}).status_code == 200
    for spelling in (old, old.lower(), f" {old} ", old[:4] + "-" + old[4:]):
        answer = call(site, "bob", "POST", "/api/v1/courses/join", {"join_code": spelling})
        assert answer.status_code >= 400, spelling
    assert call(site, "bob", "GET", f"/api/v1/courses/{course['id']}").status_code == 404


def test_claim8_a_withdrawn_override_stops_counting_and_keeps_its_history(make_site):
    outs = []
    for withdraw in (True, None):
        site = people_site(make_site)
        course = course_with_learners(site, "ann")
        assert assignment(site, course["id"]).status_code == 201
        _store(site, "ann", course["id"], report(False))
        base = f"/api/v1/courses/{course['id']}/overrides"
        if withdraw:
            assert (
                call(
                    site, "tia", "POST", base, {"user": "ann", "exercise": 39, "score": 1.0, "comment": "ok"}
                ).status_code
                == 201
            )
            assert call(site, "tia", "POST", base + "/withdraw", {"user": "ann", "exercise": 39}).status_code == 201
        ann_course = call(site, "ann", "GET", f"/api/v1/courses/{course['id']}").json
        csv = call(site, "tia", "GET", f"/api/v1/courses/{course['id']}/gradebook.csv").get_data(as_text=True)
        outs.append((re.sub(r"\d{4}-\d\d-\d\dT[\d:.+Z-]+", "", str(ann_course)), csv))
        if withdraw:
            with services(site).sessions() as session:
                assert len(session.scalars(select(Override)).all()) == 2
    assert outs[0] == outs[1]


# --- claim 2: somebody else's invitation -------------------------------------------------------


def test_claim2_nobody_accepts_anothers_invitation_on_the_page(site):
    course = course_with_learners(site)
    assert call(site, "tia", "POST", f"/api/v1/courses/{course['id']}/roster", {"csv": "ann"}).status_code == 200
    with services(site).sessions() as session:
        invitation = session.scalar(select(Invitation.id))
    for thief in ("bob", "tom", "root"):
        client = _browser(site, thief)
        client.post(f"/courses/invitations/{invitation}/accept", data={"csrf_token": csrf_token(client, "/courses/")})
        call(site, thief, "POST", f"/api/v1/invitations/{invitation}/accept")
    assert call(site, "ann", "GET", f"/api/v1/courses/{course['id']}").status_code == 404
    for thief in ("bob", "tom"):
        assert call(site, thief, "GET", f"/api/v1/courses/{course['id']}").status_code == 404
