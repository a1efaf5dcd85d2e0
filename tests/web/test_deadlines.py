"""Deadlines where the learner works (issue 33 §2): the exercise page names the assignment, its
due time in the course's zone to the second, the time left, the late policy in words and the
learner's extension; a late submit asks first and keeps the code; the submission page says
"late by …, counted …"; the courses list shows upcoming deadlines. Every share is the one the
gradebook counts (web.teaching.counting)."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import pytest
from site_client import csrf_token
from sqlalchemy import select, update

from judge.verdicts import Verdict
from tests.web.world import build_world
from web.core.models import Assignment, LatePolicy, Status, Submission, User, Visibility, utcnow
from web.core.moments import show
from web.services import services
from web.teaching.counting import cells
from web.teaching.courses import grant_extension
from web.teaching.deadlines import policy_words, span

CODE = "def sample():\n    return 'late but mine'\n"


def _iso(moment: dt.datetime) -> str:
    return moment.replace(microsecond=0).isoformat()


@pytest.fixture
def late_class(make_site):
    """Course A (Europe/Berlin) whose assignment (exercises 1, 39) was due 1 hour ago, late work
    losing 10 % per started day; ann is its learner. No grading workers."""
    now = utcnow()
    world = build_world(make_site(start_workers=False), opens_at=_iso(now - dt.timedelta(days=7)),
                        due_at=_iso(now - dt.timedelta(hours=1)), with_attempts=False)
    _set(world, late_policy=LatePolicy.penalty, penalty_per_day=0.1)
    return world


def _set(world, **values) -> None:
    with services(world.app).sessions() as session:
        session.execute(update(Assignment).where(Assignment.id == world.assignment_id).values(**values))
        session.commit()


def _submit(client, code: str = CODE, **extra):
    token = csrf_token(client, "/exercises/39")
    return client.post("/exercises/39/submit", data={"csrf_token": token, "code": code, **extra})


def _submissions(world) -> list[Submission]:
    with services(world.app).sessions() as session:
        return list(session.scalars(select(Submission).order_by(Submission.id)))


def test_a_submit_before_the_due_time_is_accepted_at_once_and_the_page_names_the_deadline(late_class):
    due = utcnow().replace(microsecond=0) + dt.timedelta(days=2, hours=3, minutes=30)
    _set(late_class, due_at=due)
    ann = late_class.client("learner")
    html = unescape(ann.get("/exercises/39").get_data(as_text=True))
    section = html[html.index('id="deadlines"'):html.index('id="editor-heading"')]
    assert "Sampling 101" in section and "Week 1" in section
    assert show(due, "Europe/Berlin", seconds=True) in section  # the course's zone, to the second
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d CES?T \(UTC\+0[12]:00\)", section)
    assert "2 days 3 h left" in section
    assert "lose 10 % of their score per started day late" in section and "up to 1 day late counts 90 %" in section
    answer = _submit(ann)
    assert answer.status_code == 302 and "/submissions/" in answer.headers["Location"]
    page = unescape(ann.get(answer.headers["Location"]).get_data(as_text=True))
    assert "on time" in page


def test_a_late_submit_warns_keeps_the_code_and_only_a_confirmed_one_is_accepted(late_class):
    ann = late_class.client("learner")
    warned = _submit(ann)
    html = unescape(warned.get_data(as_text=True))
    assert warned.status_code == 200 and 'id="late-warning"' in html
    assert re.search(r"This is 1 h( \d+ min)? past your due time; it will count 90 % of its score\. Submit anyway\?",
                     html)
    assert CODE in html  # the code stays in the editor
    assert _submissions(late_class) == []  # nothing accepted yet
    confirmed = _submit(ann, late_confirmed="1")
    assert confirmed.status_code == 302
    [stored] = _submissions(late_class)
    assert stored.code == CODE and stored.course_id == late_class.course_id
    page = unescape(ann.get(confirmed.headers["Location"]).get_data(as_text=True))
    assert re.search(r"late by 1 h( \d+ min)?, counted 90 %", page)
    # Those who teach see the same line.
    teacher = unescape(late_class.client("instructor").get(confirmed.headers["Location"]).get_data(as_text=True))
    assert re.search(r"late by 1 h( \d+ min)?, counted 90 %", teacher)
    # The submission's time is in the course's zone, to the second, wherever it is listed.
    when = show(stored.created_at, "Europe/Berlin", seconds=True)
    assert when in page
    assert when in unescape(ann.get("/exercises/39").get_data(as_text=True))
    assert when in unescape(ann.get("/exercises/39/submissions").get_data(as_text=True))
    cell = late_class.client("instructor").get(f"/courses/{late_class.course_id}/gradebook/{stored.user_id}/39")
    assert cell.status_code == 200 and when in unescape(cell.get_data(as_text=True))  # the attempts' times too


def test_the_share_the_warning_names_is_the_one_the_gradebook_counts(late_class):
    """Two days and a bit late: the third started day, 70 %; the gradebook counts 0.7 of a full score."""
    _set(late_class, due_at=utcnow() - dt.timedelta(days=2, minutes=5))
    ann = late_class.client("learner")
    html = unescape(_submit(ann).get_data(as_text=True))
    assert "it will count 70 % of its score" in html
    assert _submit(ann, late_confirmed="1").status_code == 302
    with services(late_class.app).sessions() as session:
        [stored] = session.scalars(select(Submission)).all()
        grading = stored.gradings[0]
        grading.status, grading.verdict, grading.score_passed, grading.score_total = Status.done, Verdict.AC, 4, 4
        session.flush()
        stored.current_grading_id = stored.gradings[0].id
        session.commit()
        counted = cells(session, late_class.course_id)[(stored.user_id, stored.exercise_id)].counted
    assert counted == pytest.approx(0.7)
    page = unescape(ann.get(f"/submissions/{stored.id}").get_data(as_text=True))
    assert re.search(r"late by 2 days( \d+ h)?, counted 70 %", page)


def test_not_counted_late_work_warns_so_and_flagged_late_work_is_accepted_at_once(late_class):
    ann = late_class.client("learner")
    _set(late_class, late_policy=LatePolicy.not_accepted)
    html = unescape(_submit(ann).get_data(as_text=True))
    assert "this course does not count late submissions. Submit anyway?" in html
    _set(late_class, late_policy=LatePolicy.flagged)
    answer = _submit(ann)
    assert answer.status_code == 302  # counts in full: nothing to confirm
    page = unescape(ann.get(answer.headers["Location"]).get_data(as_text=True))
    assert re.search(r"late by 1 h( \d+ min)?, counted 100 %", page)


def test_an_extension_moves_the_due_time_the_page_shows_and_the_warning(late_class):
    with services(late_class.app).sessions() as session:
        assignment = session.get(Assignment, late_class.assignment_id)
        ann = session.scalar(select(User).where(User.name == "ann"))
        teacher = session.scalar(select(User).where(User.name == "teach_a"))
        extended = utcnow().replace(microsecond=0) + dt.timedelta(hours=5)
        grant_extension(session, assignment, ann, extended.isoformat(), teacher)
        session.commit()
    client = late_class.client("learner")
    html = unescape(client.get("/exercises/39").get_data(as_text=True))
    assert f"your extension: due {show(extended, 'Europe/Berlin', seconds=True)}" in html
    assert re.search(r"due in [45] h", html)
    assert _submit(client).status_code == 302  # on time by the extension: no question


def test_the_api_accepts_late_work_and_says_how_late_and_what_it_counts_for(late_class):
    answer = late_class.app.test_client().post(
        "/api/v1/submissions", json={"exercise": 39, "code": CODE}, headers=late_class.headers("learner"))
    assert answer.status_code == 202
    lateness = answer.get_json()["lateness"]
    assert lateness["late"] is True and 3600 <= lateness["late_by_s"] < 3700
    assert lateness["counted_share"] == pytest.approx(0.9) and lateness["late_policy"] == "penalty"
    practice = late_class.app.test_client().post(
        "/api/v1/submissions", json={"exercise": 39, "code": CODE, "course": None},
        headers=late_class.headers("learner"))
    assert practice.get_json()["lateness"] is None


def test_hidden_details_limited_before_the_due_time_are_announced_with_until_when(late_class):
    due = utcnow().replace(microsecond=0) + dt.timedelta(days=1)
    _set(late_class, due_at=due, visibility_before=Visibility.diagnosis, visibility_after=Visibility.rule)
    html = unescape(late_class.client("learner").get("/exercises/39").get_data(as_text=True))
    assert (f"Hidden test details are limited to “verdict and diagnosis only” until "
            f"{show(due, 'Europe/Berlin', seconds=True)}; after that you will see “verdict, failed rule and row label”."
            in html)
    zh = unescape(late_class.client("learner").get("/exercises/39?lang=zh").get_data(as_text=True))
    assert "隐藏测试的详情只显示“只有结论和诊断”" in zh


def test_the_courses_list_shows_upcoming_deadlines_soonest_first_with_the_extension(late_class):
    due = utcnow().replace(microsecond=0) + dt.timedelta(days=3)
    _set(late_class, due_at=due)
    html = unescape(late_class.client("learner").get("/courses/").get_data(as_text=True))
    section = html[html.index('id="upcoming"'):]
    assert "Week 1" in section and show(due, "Europe/Berlin", seconds=True) in section
    assert re.search(r"(2 days 23 h|3 days) left", section)
    _set(late_class, due_at=utcnow() + dt.timedelta(days=30))
    html = unescape(late_class.client("learner").get("/courses/").get_data(as_text=True))
    assert "No deadline in the next 14 days." in html


@pytest.mark.parametrize("rate, words", [
    (0.1, "lose 10 % of their score per started day late: up to 1 day late counts 90 %; "
          "more than 9 days late counts nothing"),
    (0.3, "lose 30 % of their score per started day late: up to 1 day late counts 70 %; "
          "more than 3 days late counts nothing"),
    (0.0, "count in full and are marked late"),
    (1.0, "do not count"),
])
def test_the_late_policy_in_words_is_what_the_counting_computes(rate, words, make_site):
    app = make_site(start_workers=False)
    with app.test_request_context():
        assert words in policy_words(LatePolicy.penalty, rate)
        assert span(13) == "13 s" and span(3 * 3600 + 61) == "3 h 1 min" and span(86400 * 2 + 3600) == "2 days 1 h"


def test_the_course_form_accepts_a_valid_zone_it_does_not_offer_and_refuses_an_unknown_one(late_class):
    teacher = late_class.client("instructor")
    page = teacher.get("/courses/").get_data(as_text=True)
    assert '<option value="Europe/Berlin">' in page and 'value="Factory"' not in page
    token = csrf_token(teacher, "/courses/")
    made = teacher.post("/courses/", data={"csrf_token": token, "name": "Old zone", "time_zone": "Etc/GMT+5"})
    assert made.status_code == 302
    refused = teacher.post("/courses/", data={"csrf_token": token, "name": "No zone", "time_zone": "Mars/Olympus"})
    assert refused.status_code == 400 and "unknown time zone" in unescape(refused.get_data(as_text=True))


def test_the_opening_time_is_shown_to_the_second_where_it_decides_what_counts(late_class):
    """Work made before the opening counts nothing, so the opening, like the due time, is shown
    to the second in the course's zone on the learner's and the instructor's course page."""
    opens = utcnow().replace(microsecond=0) - dt.timedelta(days=2, seconds=17)
    _set(late_class, opens_at=opens)
    for who in ("learner", "instructor"):
        html = unescape(late_class.client(who).get(f"/courses/{late_class.course_id}").get_data(as_text=True))
        assert show(opens, "Europe/Berlin", seconds=True) in html, who
