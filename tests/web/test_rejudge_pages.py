"""The rejudge pages: asking for one (a submission, an exercise of a course, an assignment), who
may, and the page that shows which verdicts changed, with a real rejudge run to the end."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from site_client import csrf_token
from sqlalchemy import select

from judge.verdicts import Verdict
from tests.web.world import ROLES, build_world, exercise, store_graded
from web.core.models import Assignment, Grading, Priority, Rejudge, RejudgeScope, Status, Submission, User
from web.services import services
from web.teaching.rejudge_pages import PER_PAGE

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions" / "001-weighted-coin"
MAX_WAIT_S = 300


def _post(world, role: str, url: str, data: dict | None = None):
    client = world.client(role)
    token = csrf_token(client, "/auth/sign-in" if role == "anonymous" else "/profile/")
    return client.post(url, data={"csrf_token": token, **(data or {})})


def _rejudge_id(response) -> int:
    match = re.fullmatch(r"/rejudges/(\d+)", response.location or "")
    assert match, (response.status_code, response.location)
    return int(match.group(1))


REJUDGE_STATUS = {"anonymous": 302, "learner": 403, "learner_elsewhere": 404, "other_instructor": 404,
                  "instructor": 302, "admin": 302}


@pytest.mark.parametrize("role", ROLES)
def test_who_may_rejudge_a_submission(world, role):
    submission_id = world.attempts["ann_39_wa"]
    response = _post(world, role, f"/submissions/{submission_id}/rejudge")
    assert response.status_code == REJUDGE_STATUS[role]
    with services(world.app).sessions() as session:
        gradings = session.get(Submission, submission_id).gradings
    if role in ("instructor", "admin"):
        rejudge_id = _rejudge_id(response)
        assert len(gradings) == 2 and gradings[-1].rejudge_id == rejudge_id
        assert gradings[-1].priority == Priority.rejudge and gradings[-1].status is Status.queued
        assert gradings[-1].replaces_id == gradings[0].id and gradings[0].status is Status.done  # the old one stays
    else:
        assert len(gradings) == 1
        if role == "anonymous":
            assert response.location.startswith("/auth/sign-in")


COURSE_STATUS = {"anonymous": 302, "learner": 403, "learner_elsewhere": 404, "other_instructor": 404,
                 "instructor": 302, "admin": 302}


@pytest.mark.parametrize("role", ROLES)
def test_who_may_rejudge_in_a_course(world, role):
    response = _post(world, role, f"/courses/{world.course_id}/rejudge", {"confirm": "y", "target": "exercise:39"})
    assert response.status_code == COURSE_STATUS[role]
    with services(world.app).sessions() as session:
        rejudges = [(row.id, row.scope, len(row.gradings)) for row in session.scalars(select(Rejudge))]
    if role in ("instructor", "admin"):
        # ann's two and Bobby's one counted attempts at 39 (not his practice, not cleo's in course B)
        assert rejudges == [(_rejudge_id(response), RejudgeScope.exercise, 3)]
    else:
        assert rejudges == []


PAGE_STATUS = {"anonymous": 302, "learner": 404, "learner_elsewhere": 404, "other_instructor": 404,
               "instructor": 200, "admin": 200}


@pytest.mark.parametrize("role", ROLES)
def test_who_may_see_a_rejudge(world, role):
    rejudge_id = _rejudge_id(_post(world, "instructor", f"/courses/{world.course_id}/rejudge",
                                   {"confirm": "y", "target": "exercise:1"}))
    response = world.client(role).get(f"/rejudges/{rejudge_id}")
    assert response.status_code == PAGE_STATUS[role]
    if role == "anonymous":
        assert response.location.startswith("/auth/sign-in")


def test_a_submission_rejudge_is_seen_by_those_who_teach_its_author(world):
    rejudge_id = _rejudge_id(_post(world, "admin", f"/submissions/{world.attempts['ann_39_wa']}/rejudge"))
    assert world.client("instructor").get(f"/rejudges/{rejudge_id}").status_code == 200
    assert world.client("other_instructor").get(f"/rejudges/{rejudge_id}").status_code == 404
    assert world.client("learner").get(f"/rejudges/{rejudge_id}").status_code == 404
    assert world.client("anonymous").get("/rejudges/999999").status_code == 302
    assert world.client("admin").get("/rejudges/999999").status_code == 404


def test_an_assignment_rejudge_page_while_it_waits(world):
    response = _post(world, "instructor", f"/courses/{world.course_id}/rejudge",
                     {"confirm": "y", "target": f"assignment:{world.assignment_id}"})
    assert response.status_code == 302
    html = world.client("instructor").get(response.location).get_data(as_text=True)
    assert '<meta http-equiv="refresh" content="5">' in html  # no inline script: the CSP forbids one
    assert "Rejudged: assignment Week 1 in Sampling 101." in html and "Requested by teach_a at " in html
    assert "5 queued, 0 running, 0 done; 0 verdicts changed." in html
    assert html.count('<tr class="">') == 5 and "Queued" in html
    zh = world.client("instructor").get(response.location + "?lang=zh").get_data(as_text=True)
    assert "重新评测的范围：Sampling 101 中的作业 Week 1。" in zh and "排队 5 个" in zh
    again = _post(world, "instructor", f"/courses/{world.course_id}/rejudge", {"confirm": "y", "target": "exercise:39"})
    html = world.client("instructor").get(again.location).get_data(as_text=True)
    assert "Nothing was queued" in html and "http-equiv" not in html  # all of them are being judged already


@pytest.mark.parametrize("target", ["exercise:2", "exercise:x", "assignment:999", "", "assignment:"])
def test_a_target_outside_the_course_is_a_400(world, target):
    response = _post(world, "instructor", f"/courses/{world.course_id}/rejudge", {"confirm": "y", "target": target})
    assert response.status_code == 400
    with services(world.app).sessions() as session:
        assert session.scalars(select(Rejudge)).all() == []


def test_another_courses_assignment_is_no_target(world):
    with services(world.app).sessions() as session:
        other = session.scalar(select(Assignment.id).where(Assignment.course_id == world.other_course_id))
    response = _post(world, "instructor", f"/courses/{world.course_id}/rejudge",
                     {"confirm": "y", "target": f"assignment:{other}"})
    assert response.status_code == 400


def test_the_course_home_offers_the_rejudge_form(world):
    html = world.client("instructor").get(f"/courses/{world.course_id}").get_data(as_text=True)
    assert f'method="get" action="/courses/{world.course_id}/rejudge/confirm"' in html  # it asks first
    assert f'href="/courses/{world.course_id}/rejudges"' in html  # and links the past ones
    assert f'<option value="assignment:{world.assignment_id}">' in html and '<option value="exercise:39">' in html


def _report(verdict: str) -> dict:
    passed = 3 if verdict == "AC" else 1
    return {"verdict": verdict, "score": {"passed": passed, "total": 3}, "diagnosis": None, "cases": []}


def test_a_course_rejudge_runs_to_the_end_and_shows_the_verdict_that_flipped(make_site):
    """The reference solution stored with a stale WA comes back AC; a wrong one stays WA."""
    app = make_site(start_workers=True)
    world = build_world(app, opens_at="2026-01-01T00:00Z", due_at="2030-01-01T00:00Z", with_attempts=False)
    with services(app).sessions() as session:
        ann, bob = (session.scalar(select(User).where(User.name == name)) for name in ("ann", "Bobby"))
        one = exercise(session, 1)
        wrong_id = store_graded(session, bob, one, (SOLUTIONS / "wrong" / "inverted.py").read_text(), _report("WA"),
                                seed=5, judge_version="0.old")
        stale_id = store_graded(session, ann, one, (SOLUTIONS / "reference.py").read_text(), _report("WA"),
                                seed=7, judge_version="0.old")
    started = _post(world, "instructor", f"/courses/{world.course_id}/rejudge",
                    {"confirm": "y", "target": "exercise:1"})
    rejudge_url = started.location
    _rejudge_id(started)
    client = world.client("instructor")
    deadline = time.monotonic() + MAX_WAIT_S
    html = client.get(rejudge_url).get_data(as_text=True)
    assert "Rejudged: exercise 1 in Sampling 101." in html
    while 'http-equiv="refresh"' in html:
        assert time.monotonic() < deadline, f"the rejudge did not finish in {MAX_WAIT_S} s"
        time.sleep(1)
        html = client.get(rejudge_url).get_data(as_text=True)
    assert "0 queued, 0 running, 2 done; 1 verdict changed." in html
    rows = re.findall(r'<tr class="(changed|)">\s*<td><a href="/submissions/(\d+)">.*?</tr>', html, re.S)
    assert [(kind, int(number)) for kind, number in rows] == [("changed", stale_id), ("", wrong_id)]  # changed first
    flipped = html[html.index(f'href="/submissions/{stale_id}"'):]
    flipped = flipped[:flipped.index("</tr>")]
    assert flipped.index("v-WA") < flipped.index("v-AC") and "changed" in flipped  # WA → AC
    with services(app).sessions() as session:
        for submission_id, old_seed, verdict in ((stale_id, 7, "AC"), (wrong_id, 5, "WA")):
            old, new = session.get(Submission, submission_id).gradings
            assert (old.status, old.verdict.value, old.seed) == (Status.done, "WA", old_seed)  # kept as it was
            assert new.status is Status.done and new.verdict.value == verdict
            assert new.priority == Priority.rejudge and new.replaces_id == old.id and new.rejudge_id is not None
            assert new.seed is not None and new.seed != old_seed  # a fresh seed
            assert session.get(Submission, submission_id).current_grading_id == new.id
            assert session.scalar(select(Grading.judge_version).where(Grading.id == new.id)) != "0.old"
    page = client.get(f"/submissions/{stale_id}").get_data(as_text=True)
    assert page.count("<tr") >= 2 and "(current)" in page and 'class="verdict v-AC"' in page
    assert f'href="/rejudges/{_rejudge_id(started)}"' in page  # the history names the rejudge


def _rejudge_count(world) -> int:
    with services(world.app).sessions() as session:
        return len(session.scalars(select(Rejudge)).all())


def test_a_course_rejudge_asks_with_its_count_and_the_count_is_what_it_queues(world):
    """ann's three and Bobby's two counted attempts (not his practice one, not cleo's course B)."""
    client = world.client("instructor")
    target = f"assignment:{world.assignment_id}"
    page = client.get(f"/courses/{world.course_id}/rejudge/confirm?target={target}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and _rejudge_count(world) == 0  # asking starts nothing
    assert "Rejudge 5 submissions of 2 learners? This re-runs their grading; verdicts may change." in html
    assert f'name="target" value="{target}"' in html and 'name="confirm" value="y"' in html
    zh = client.get(f"/courses/{world.course_id}/rejudge/confirm?target={target}&lang=zh").get_data(as_text=True)
    assert "重新评测 2 名学员的 5 次提交？" in zh
    one = client.get(f"/courses/{world.course_id}/rejudge/confirm?target=exercise:1&lang=en").get_data(as_text=True)
    assert "Rejudge 2 submissions of 2 learners?" in one
    started = _post(world, "instructor", f"/courses/{world.course_id}/rejudge", {"confirm": "y", "target": target})
    with services(world.app).sessions() as session:
        assert len(session.get(Rejudge, _rejudge_id(started)).gradings) == 5  # the count asked about
    again = client.get(f"/courses/{world.course_id}/rejudge/confirm?target={target}&lang=en").get_data(as_text=True)
    assert "Nothing to rejudge" in again and 'name="confirm"' not in again  # all five are being judged now


def test_a_course_rejudge_without_confirm_only_asks(world):
    response = _post(world, "instructor", f"/courses/{world.course_id}/rejudge", {"target": "exercise:39"})
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "Rejudge 3 submissions of 2 learners?" in html
    assert _rejudge_count(world) == 0
    for wrong in ("n", "yes", ""):
        _post(world, "instructor", f"/courses/{world.course_id}/rejudge", {"confirm": wrong, "target": "exercise:39"})
    assert _rejudge_count(world) == 0


@pytest.mark.parametrize("role", ROLES)
def test_who_may_see_the_rejudge_list_and_its_confirmation(world, role):
    expected = {"anonymous": 302, "instructor": 200, "admin": 200, "learner": 403}.get(role, 404)
    course = f"/courses/{world.course_id}"
    for url in (f"{course}/rejudges", f"{course}/rejudge/confirm?target=exercise:1"):
        assert world.client(role).get(url).status_code == expected, url


def test_the_rejudge_list_newest_first_with_its_counts(world):
    assert "No rejudge yet." in world.client("instructor").get(f"/courses/{world.course_id}/rejudges").get_data(
        as_text=True)
    first = _rejudge_id(_post(world, "instructor", f"/courses/{world.course_id}/rejudge",
                              {"confirm": "y", "target": "exercise:1"}))
    single = _rejudge_id(_post(world, "admin", f"/submissions/{world.attempts['ann_39_wa']}/rejudge"))
    elsewhere = _rejudge_id(_post(world, "other_instructor", f"/submissions/{world.attempts['cleo_39']}/rejudge"))
    with services(world.app).sessions() as session:  # one of the first rejudge's two gradings finishes, flipped
        grading = session.get(Rejudge, first).gradings[0]
        grading.status, grading.verdict = Status.done, Verdict.RE
        session.commit()
    html = world.client("instructor").get(f"/courses/{world.course_id}/rejudges").get_data(as_text=True)
    rows = re.findall(r'<tr><td><a href="/rejudges/(\d+)">.*?</tr>', html, re.S)
    assert [int(row) for row in rows] == [single, first] and elsewhere not in [int(row) for row in rows]
    assert "2 rejudges, newest first" in html
    line = html[html.index(f'href="/rejudges/{first}"'):]
    line = line[:line.index("</tr>")]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", line, re.S)
    assert cells[0] == "teach_a" and cells[2] == "exercise 1 in Sampling 101"  # (after the link cell)
    assert cells[3:6] == ["2", "1", "1 still waiting"]  # two submissions, one changed, one waits
    assert "submission #" in html and "root" in html
    assert 'role="region"' in html and 'tabindex="0"' in html  # the table scrolls in its own box


def test_the_rejudge_list_is_paged(world):
    with services(world.app).sessions() as session:
        for _ in range(PER_PAGE + 3):
            session.add(Rejudge(scope=RejudgeScope.exercise, course_id=world.course_id))
        session.commit()
        newest = session.scalar(select(Rejudge.id).order_by(Rejudge.id.desc()))
    client = world.client("instructor")
    first = client.get(f"/courses/{world.course_id}/rejudges").get_data(as_text=True)
    assert first.count('<tr><td><a href="/rejudges/') == PER_PAGE and f'href="/rejudges/{newest}"' in first
    assert "Page 1 of 2" in first and f'href="/courses/{world.course_id}/rejudges?page=2"' in first
    second = client.get(f"/courses/{world.course_id}/rejudges?page=2").get_data(as_text=True)
    assert second.count('<tr><td><a href="/rejudges/') == 3 and f'href="/rejudges/{newest}"' not in second
    assert client.get(f"/courses/{world.course_id}/rejudges?page=x").status_code == 200
