"""Course analytics: the figures against hand counts, days across a DST change, the pages with their
charts and tables, the JSON API, and who may see them."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from tests.web.site_client import sign_in
from tests.web.world import account, attempt, course_with_assignment, exercise, learner_in, moment
from web.core.database import make_engine, session_factory
from web.core.models import ApiToken, Role
from web.learning.exercises import sync_exercises
from web.services import services
from web.teaching.analytics import analytics, competition_ranks, learners_with_diagnosis, offset_spans, overview

ZONE = "Europe/Berlin"  # clocks go from UTC+1 to UTC+2 at 2027-03-28 01:00 UTC
DAY = dt.date.fromisoformat
# A diagnosis longer than a line of a chart's label (charts.js wraps it; nothing cuts it).
SWAPPED = "heads and tails swapped: the coin says 1 where the statement says 0, on every draw"
# The cases' titles, as the reports write them (the charts show titles, never the names).
TITLES = {"zipf": "Zipf-shaped logits, top-p 0.9", "uniform": "Uniform logits", "fair coin": "A fair coin"}


def tried(session, learner, number, at, verdict="WA", diagnosis=None, case=None, graded=True):
    """An attempt with its diagnosis (English, and a Chinese text made from it) and first failed
    case, which its report titles (:data:`TITLES`, and a Chinese title made from it)."""
    submission = attempt(session, learner, exercise(session, number), at, verdict, graded=graded)
    if graded:
        grading = submission.gradings[0]
        grading.diagnosis, grading.failed_case = diagnosis, case
        grading.diagnosis_zh = f"中文：{diagnosis}" if diagnosis else None
        if case is not None:
            grading.report_json = {**grading.report_json, "cases": [
                {"name": case, "title": TITLES.get(case, ""), "title_zh": f"测试点：{TITLES.get(case, case)}",
                 "verdict": verdict}]}
    session.flush()
    return submission


def build_class(session):
    """The course of these tests (see the expectations below each attempt); returns (teacher, course, people)."""
    teacher, course, _ = course_with_assignment(session, exercises=(1, 39), time_zone=ZONE,
                                                opens_at="2027-03-01T00:00Z", due_at="2027-04-30T00:00Z")
    ann, bob, cat, dan, eve = (learner_in(session, course, name) for name in ("ann", "bob", "cat", "dan", "eve"))
    # ann: WA then AC (first AC at attempt 2); local days 03-27 (23:30 UTC+1) and 03-28 (00:30 UTC+1).
    tried(session, ann, 39, "2027-03-27 22:30", diagnosis="off by one", case="zipf")
    tried(session, ann, 39, "2027-03-27 23:30", "AC")
    # bob: never AC. 01:30 UTC+1 and 23:30 UTC+2 are 03-28; 00:30 UTC+2 is 03-29 (UTC+1 would say 03-28).
    tried(session, bob, 39, "2027-03-28 00:30", diagnosis="off by one", case="zipf")
    tried(session, bob, 39, "2027-03-28 21:30", diagnosis="temperature ignored", case="uniform")
    people = {"bob_last_off_by_one": tried(session, bob, 39, "2027-03-28 22:30", diagnosis="off by one", case="zipf")}
    tried(session, bob, 39, "2027-03-29 08:00", graded=False)  # an attempt, not graded yet
    # cat: AC at once, then an IE (not a graded attempt).
    tried(session, cat, 39, "2027-03-02 12:00", "AC")
    tried(session, cat, 39, "2027-03-02 13:00", "IE")
    # dan: ten WAs, then AC at attempt 11 (the "10+" bucket), all on 03-03.
    for minute in range(10):
        tried(session, dan, 39, f"2027-03-03 10:{minute:02d}", diagnosis="temperature ignored", case="uniform")
    tried(session, dan, 39, "2027-03-03 11:00", "AC")
    # exercise 1: ann AC at once, cat one WA (never AC), both on 03-05.
    tried(session, ann, 1, "2027-03-05 09:00", "AC")
    tried(session, cat, 1, "2027-03-05 10:00", diagnosis=SWAPPED, case="fair coin")
    # Not counted: eve's practice before the assignment opened, and a learner of another course.
    tried(session, eve, 39, "2027-02-20 10:00", diagnosis="off by one", case="zipf")
    _, other, _ = course_with_assignment(session, exercises=(39,))
    tried(session, learner_in(session, other, "fay"), 39, "2027-03-10 10:00", diagnosis="off by one", case="zipf")
    people.update(teacher=teacher, ann=ann, bob=bob, other=other)
    return teacher, course, people


@pytest.fixture
def session(database_url):
    engine = make_engine(database_url)
    with session_factory(engine)() as session:
        sync_exercises(session)
        yield session
    engine.dispose()


# --- the figures -----------------------------------------------------------------------------------

def test_one_exercise_against_hand_counts(session):
    _, course, people = build_class(session)
    figures = analytics(session, course.id, ZONE, exercise(session, 39).id)
    totals = figures.totals
    assert (totals.attempts, totals.learners, totals.learners_accepted, totals.graded, totals.accepted) == (
        19, 4, 3, 17, 3)
    assert totals.share_accepted == 0.75 and totals.ac_share_of_graded == pytest.approx(3 / 17)
    assert [(row.day, row.attempts, row.learners) for row in figures.over_time] == [
        (DAY("2027-03-02"), 2, 1), (DAY("2027-03-03"), 11, 1), (DAY("2027-03-27"), 1, 1),
        (DAY("2027-03-28"), 3, 2), (DAY("2027-03-29"), 2, 1)]
    assert (figures.first_accepted.counts, figures.first_accepted.never) == ({1: 1, 2: 1, 10: 1}, 1)
    assert figures.first_accepted.labelled() == [
        ("1", 1), ("2", 1), ("3", 0), ("4", 0), ("5", 0), ("6", 0), ("7", 0), ("8", 0), ("9", 0), ("10+", 1),
        ("never", 1)]
    assert [(row.case, row.exercise_number, row.title, row.title_zh, row.attempts, row.learners, row.rank)
            for row in figures.failing_cases] == [
        ("uniform", 39, "Uniform logits", "测试点：Uniform logits", 11, 2, 1),
        ("zipf", 39, "Zipf-shaped logits, top-p 0.9", "测试点：Zipf-shaped logits, top-p 0.9", 3, 2, 2)]
    assert [(row.diagnosis, row.diagnosis_zh, row.exercise_number, row.attempts, row.learners,
             [p.name for p in row.shown], row.rank) for row in figures.diagnoses] == [
        ("temperature ignored", "中文：temperature ignored", 39, 11, 2, ["bob", "dan"], 1),
        ("off by one", "中文：off by one", 39, 3, 2, ["ann", "bob"], 2)]
    bob_link = figures.diagnoses[1].shown[1]
    assert (bob_link.name, bob_link.submission_id) == ("bob", people["bob_last_off_by_one"].id)


def test_the_whole_course_counts_learner_exercise_pairs(session):
    _, course, _ = build_class(session)
    figures = analytics(session, course.id, ZONE)
    totals = figures.totals
    assert (totals.attempts, totals.learners, totals.learners_accepted, totals.graded, totals.accepted) == (
        21, 4, 3, 19, 4)
    assert (figures.first_accepted.counts, figures.first_accepted.never) == ({1: 2, 2: 1, 10: 1}, 2)
    assert (DAY("2027-03-05"), 2, 2) in [(row.day, row.attempts, row.learners) for row in figures.over_time]
    assert [(row.diagnosis, row.exercise_number, row.attempts, row.learners) for row in figures.diagnoses] == [
        ("temperature ignored", 39, 11, 2), ("off by one", 39, 3, 2), (SWAPPED, 1, 1, 1)]
    assert [(row.case, row.exercise_number, row.title) for row in figures.failing_cases] == [
        ("uniform", 39, "Uniform logits"), ("zipf", 39, "Zipf-shaped logits, top-p 0.9"),
        ("fair coin", 1, "A fair coin")]


@pytest.mark.parametrize(("counts", "ranks"), [([], []), ([5], [1]), ([5, 3, 3, 1], [1, 2, 2, 4]),
                                               ([2, 2, 2], [1, 1, 1]), ([4, 4, 1, 1], [1, 1, 3, 3])])
def test_equal_counts_share_a_rank_and_the_next_skips(counts, ranks):
    assert competition_ranks(counts) == ranks


def test_ties_are_ranked_equal_and_ordered_by_name_then_exercise(session):
    """Equal counts: one rank, and the order of the names (then of the exercises), whatever the
    order the attempts came in; the same diagnosis or case name on two exercises is two rows."""
    _, course, _ = course_with_assignment(session, exercises=(1, 39), time_zone="UTC")
    ann, bob = learner_in(session, course, "ann"), learner_in(session, course, "bob")
    for number, diagnosis, case, learner, at in [
        (39, "b mistake", "zipf", ann, "2027-03-02 10:00"), (39, "b mistake", "zipf", bob, "2027-03-02 10:01"),
        (39, "c mistake", "uniform", ann, "2027-03-02 10:02"),
        (39, "a mistake", "fair coin", bob, "2027-03-02 10:03"),
        (39, "a mistake", "fair coin", ann, "2027-03-02 10:04"),
        (1, "a mistake", "fair coin", ann, "2027-03-02 10:05"), (1, "a mistake", "fair coin", bob, "2027-03-02 10:06"),
    ]:
        tried(session, learner, number, at, diagnosis=diagnosis, case=case)
    figures = analytics(session, course.id, "UTC")
    assert [(row.diagnosis, row.exercise_number, row.attempts, row.rank) for row in figures.diagnoses] == [
        ("a mistake", 1, 2, 1), ("a mistake", 39, 2, 1), ("b mistake", 39, 2, 1), ("c mistake", 39, 1, 4)]
    assert [(row.case, row.exercise_number, row.attempts, row.rank) for row in figures.failing_cases] == [
        ("fair coin", 1, 2, 1), ("fair coin", 39, 2, 1), ("zipf", 39, 2, 1), ("uniform", 39, 1, 4)]
    # One exercise's page: its own rows, ranked among themselves.
    one = analytics(session, course.id, "UTC", exercise(session, 39).id)
    assert [(row.diagnosis, row.rank) for row in one.diagnoses] == [
        ("a mistake", 1), ("b mistake", 1), ("c mistake", 3)]
    # Everyone behind a diagnosis on any exercise: each learner once, by name.
    assert [p.name for p in learners_with_diagnosis(session, course.id, "a mistake")] == ["ann", "bob"]
    # The overview's most frequent diagnosis: all of those tied at the top.
    rows = {row.number: row for row in overview(session, course.id)}
    assert [en for en, _ in rows[39].tied_at_top] == ["a mistake", "b mistake"] and rows[39].top_diagnosis_attempts == 2
    assert (rows[39].top_diagnosis, [en for en, _ in rows[1].tied_at_top]) == ("a mistake", ["a mistake"])


def test_the_overview_has_one_row_per_exercise_with_its_top_diagnosis(session):
    _, course, _ = build_class(session)
    rows = {row.number: row for row in overview(session, course.id)}
    assert sorted(rows) == [1, 39]
    assert (rows[39].totals.attempts, rows[39].totals.learners, rows[39].totals.share_accepted) == (19, 4, 0.75)
    assert (rows[39].top_diagnosis, rows[39].top_diagnosis_zh, rows[39].top_diagnosis_attempts) == (
        "temperature ignored", "中文：temperature ignored", 11)
    assert rows[39].tied_at_top == (("temperature ignored", "中文：temperature ignored"),)
    assert (rows[1].totals.attempts, rows[1].totals.share_accepted, rows[1].top_diagnosis) == (
        2, 0.5, SWAPPED)


def test_an_exercise_nobody_tried_has_empty_figures(session):
    _, course, _ = course_with_assignment(session, exercises=(39,))
    figures = analytics(session, course.id, "UTC", exercise(session, 39).id)
    assert figures.totals.attempts == 0 and figures.totals.share_accepted is None
    assert figures.over_time == [] and figures.diagnoses == [] and figures.first_accepted.never == 0
    (row,) = overview(session, course.id)
    assert (row.number, row.totals.attempts, row.top_diagnosis) == (39, 0, None)


def test_the_names_behind_a_diagnosis_are_capped_and_all_on_request(session):
    _, course, _ = build_class(session)
    capped = analytics(session, course.id, ZONE, exercise(session, 39).id, learners_shown=1)
    assert [[p.name for p in row.shown] for row in capped.diagnoses] == [["bob"], ["ann"]]
    assert [p.name for p in learners_with_diagnosis(session, course.id, "off by one")] == ["ann", "bob"]
    assert learners_with_diagnosis(session, course.id, "off by one", exercise(session, 1).id) == []


@pytest.mark.parametrize("time_zone, first, last, expected", [
    ("Europe/Berlin", "2027-03-01 00:00", "2027-04-01 00:00", [("2027-03-28 01:00", 3600), (None, 7200)]),
    ("Europe/Berlin", "2027-03-01 00:00", "2027-11-30 00:00",
     [("2027-03-28 01:00", 3600), ("2027-10-31 01:00", 7200), (None, 3600)]),
    ("America/New_York", "2027-03-13 00:00", "2027-03-15 00:00", [("2027-03-14 07:00", -18000), (None, -14400)]),
    ("Asia/Kolkata", "2027-01-01 00:00", "2027-12-31 00:00", [(None, 19800)]),
    ("UTC", "2027-03-01 00:00", "2027-03-01 00:00", [(None, 0)]),
])
def test_offset_spans_find_each_change_to_the_second(time_zone, first, last, expected):
    spans = offset_spans(time_zone, moment(first), moment(last))
    assert spans == [(moment(until) if until else None, offset) for until, offset in expected]


def test_days_follow_a_half_hour_zone(session):
    _, course, _ = course_with_assignment(session, exercises=(39,), time_zone="Asia/Kolkata")
    ann = learner_in(session, course, "ann")
    tried(session, ann, 39, "2027-03-02 18:29", "AC")  # 23:59 in Kolkata
    tried(session, ann, 39, "2027-03-02 18:30", "AC")  # 00:00 the next day
    figures = analytics(session, course.id, "Asia/Kolkata")
    assert [(row.day, row.attempts) for row in figures.over_time] == [(DAY("2027-03-02"), 1), (DAY("2027-03-03"), 1)]


# --- pages and API ---------------------------------------------------------------------------------

@pytest.fixture
def site(make_site):
    """A site holding the class of build_class; the people's passwords are password123 (the world's)."""
    app = make_site(start_workers=False)
    with services(app).sessions() as session:
        teacher, course, people = build_class(session)
        outsider = account(session, "olga", Role.instructor)
        admin = account(session, "root", Role.admin)
        tokens = {}
        for row in (teacher, people["ann"], outsider, admin):
            token, secret = ApiToken.issue(row)
            session.add(token)
            tokens[row.name] = {"Authorization": f"Bearer {secret}"}
        session.commit()
        ids = {"course": course.id, "other": people["other"].id, "teacher": teacher.name}
    return app, ids, tokens


def _chart(html: str, chart_id: str) -> dict:
    found = re.search(rf'<script type="application/json" id="{chart_id}">(.*?)</script>', html, re.S)
    assert found, f"no JSON block {chart_id}"
    assert f'<canvas data-chart="{chart_id}"' in html
    return json.loads(found.group(1))


def _table(html: str, chart_id: str) -> list[list[str]]:
    """The rows of the data table beside chart ``chart_id``, as text cells."""
    found = re.search(rf'<table class="listing" data-chart-table="{chart_id}">(.*?)</table>', html, re.S)
    assert found, f"no table for {chart_id}"
    body = found.group(1).split("<tbody>")[1]
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_exercise_page_declares_each_chart_with_its_table(site):
    app, ids, _ = site
    client = app.test_client()
    sign_in(client, ids["teacher"])
    response = client.get(f"/courses/{ids['course']}/analytics?exercise=39")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "build/charts.js" in html and "<script>" not in html  # no inline script: the CSP forbids it
    over_time = _chart(html, "chart-over-time")
    assert over_time["type"] == "bar"  # a count per day: bars, not a line between days
    assert over_time["labels"][0] == "2027-03-02" and over_time["labels"][-1] == "2027-03-29"
    assert len(over_time["labels"]) == 28  # the days between, with zeros
    by_day = dict(zip(over_time["labels"], zip(*(s["data"] for s in over_time["datasets"]))))
    assert by_day["2027-03-28"] == (3, 2) and by_day["2027-03-29"] == (2, 1) and by_day["2027-03-10"] == (0, 0)
    assert ["2027-03-28", "3", "2"] in _table(html, "chart-over-time")
    first_ac = _chart(html, "chart-first-ac")
    assert first_ac["type"] == "bar" and first_ac["labels"][-2:] == ["10+", "never"]
    assert first_ac["datasets"][0]["data"] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1]
    assert _table(html, "chart-first-ac")[-1] == ["never", "1"]
    diagnoses = _chart(html, "chart-diagnoses")
    assert diagnoses["type"] == "horizontal-bar"
    assert diagnoses["labels"] == ["temperature ignored", "off by one"] and diagnoses["ranks"] == [1, 2]
    assert [s["data"] for s in diagnoses["datasets"]] == [[11, 3], [2, 2]]
    cases = _chart(html, "chart-failing-cases")
    assert cases["labels"] == ["Uniform logits", "Zipf-shaped logits, top-p 0.9"]  # titles, not names
    assert [s["data"] for s in cases["datasets"]] == [[11, 3], [2, 2]]
    assert _table(html, "chart-failing-cases") == [["1", "Uniform logits", "11", "2"],
                                                   ["2", "Zipf-shaped logits, top-p 0.9", "3", "2"]]
    assert _table(html, "chart-diagnoses") == [["1", "temperature ignored", "11", "2"], ["2", "off by one", "3", "2"]]
    assert re.search(r'<a href="/submissions/\d+">bob</a>', html)


def test_the_page_speaks_chinese(site):
    app, ids, _ = site
    client = app.test_client()
    sign_in(client, ids["teacher"])
    html = client.get(f"/courses/{ids['course']}/analytics?exercise=39&lang=zh").get_data(as_text=True)
    assert _chart(html, "chart-diagnoses")["labels"] == ["中文：temperature ignored", "中文：off by one"]
    assert _chart(html, "chart-failing-cases")["labels"] == [
        "测试点：Uniform logits", "测试点：Zipf-shaped logits, top-p 0.9"]
    assert "首次通过之前的提交次数" in html and "从未通过" in html


def test_the_overview_lists_every_exercise_and_the_whole_course(site):
    app, ids, _ = site
    client = app.test_client()
    sign_in(client, ids["teacher"])
    html = client.get(f"/courses/{ids['course']}/analytics").get_data(as_text=True)
    overview_table = html.split('id="analytics-overview"')[1].split("</table>")[0]
    assert f'href="/courses/{ids["course"]}/analytics?exercise=39"' in overview_table
    assert "temperature ignored (11)" in overview_table and f"{SWAPPED} (1)" in overview_table
    assert "75%" in overview_table and "50%" in overview_table
    assert "Analytics</a>" in html  # the course's navigation links here
    assert f'href="/courses/{ids["course"]}/analytics/course"' in html
    whole = client.get(f"/courses/{ids['course']}/analytics/course").get_data(as_text=True)
    assert _chart(whole, "chart-diagnoses")["labels"] == [
        "Exercise 39: temperature ignored", "Exercise 39: off by one", f"Exercise 1: {SWAPPED}"]
    assert _chart(whole, "chart-failing-cases")["labels"] == [
        "Exercise 39: Uniform logits", "Exercise 39: Zipf-shaped logits, top-p 0.9", "Exercise 1: A fair coin"]
    learners = whole.split('id="diagnosis-learners"')[1].split("</table>")[0]
    assert f'<th scope="row">Exercise 1: {SWAPPED}</th>' in learners  # the table says what the chart says
    assert _table(whole, "chart-first-ac")[-1] == ["never", "2"]


def test_the_full_list_of_a_diagnosis(site, monkeypatch):
    app, ids, _ = site
    monkeypatch.setattr("web.teaching.analytics_pages.LEARNERS_SHOWN", 1)
    client = app.test_client()
    sign_in(client, ids["teacher"])
    course = ids["course"]
    html = client.get(f"/courses/{course}/analytics?exercise=39").get_data(as_text=True)
    link = re.search(r'<a href="([^"]+)">all 2 learners</a>', html)
    assert link and html.count("all 2 learners") == 2  # both diagnoses have one more learner than shown
    page = client.get(f"/courses/{course}/analytics/learners", query_string={"diagnosis": "off by one",
                                                                             "exercise": "39"})
    assert page.status_code == 200
    names = re.findall(r'<a href="/submissions/\d+">(\w+)</a>', page.get_data(as_text=True))
    assert names == ["ann", "bob"]
    assert client.get(f"/courses/{course}/analytics/learners?diagnosis=nothing+like+it").status_code == 404
    assert client.get(f"/courses/{course}/analytics/learners").status_code == 400


def test_the_api_answers_one_exercise(site):
    app, ids, tokens = site
    client = app.test_client()
    data = client.get(f"/api/v1/courses/{ids['course']}/analytics?exercise=39", headers=tokens[ids["teacher"]]).json
    assert {key: data[key] for key in ("course", "exercise", "attempts", "learners", "share_accepted")} == {
        "course": ids["course"], "exercise": 39, "attempts": 19, "learners": 4, "share_accepted": 0.75}
    assert data["ac_share_of_graded"] == pytest.approx(3 / 17)
    assert data["over_time"][-1] == {"day": "2027-03-29", "attempts": 2, "learners": 1}
    assert data["attempts_until_first_ac"] == {"1": 1, "2": 1, "3": 0, "4": 0, "5": 0, "6": 0, "7": 0, "8": 0,
                                               "9": 0, "10+": 1, "never": 1}
    assert data["failing_cases"] == [
        {"case": "uniform", "title": "Uniform logits", "title_zh": "测试点：Uniform logits", "attempts": 11,
         "learners": 2, "rank": 1},
        {"case": "zipf", "title": "Zipf-shaped logits, top-p 0.9", "title_zh": "测试点：Zipf-shaped logits, top-p 0.9",
         "attempts": 3, "learners": 2, "rank": 2}]
    assert data["diagnoses"][1] == {"diagnosis": "off by one", "diagnosis_zh": "中文：off by one", "attempts": 3,
                                    "learners": ["ann", "bob"], "learner_count": 2, "rank": 2}
    everyone = client.get(f"/api/v1/courses/{ids['course']}/analytics?exercise=39&learners=all",
                          headers=tokens[ids["teacher"]])
    assert everyone.json["diagnoses"] == data["diagnoses"]
    bad = client.get(f"/api/v1/courses/{ids['course']}/analytics?exercise=39&learners=some",
                     headers=tokens[ids["teacher"]])
    assert bad.status_code == 400 and bad.is_json


def test_the_api_overview_without_an_exercise(site):
    app, ids, tokens = site
    data = app.test_client().get(f"/api/v1/courses/{ids['course']}/analytics", headers=tokens["root"]).json
    assert data["course"] == ids["course"] and data["time_zone"] == ZONE
    assert [(row["exercise"], row["attempts"], row["learners"], row["top_diagnosis"]) for row in data["exercises"]] == [
        (1, 2, 2, SWAPPED), (39, 19, 4, "temperature ignored")]


@pytest.mark.parametrize("who, status", [("ann", 403), ("olga", 404), ("root", 200), ("teacher", 200)])
def test_who_may_see_the_analytics(site, who, status):
    app, ids, tokens = site
    name = ids["teacher"] if who == "teacher" else who
    client = app.test_client()
    sign_in(client, name)
    for url in (f"/courses/{ids['course']}/analytics", f"/courses/{ids['course']}/analytics?exercise=39",
                f"/courses/{ids['course']}/analytics/course",
                f"/courses/{ids['course']}/analytics/learners?diagnosis=off+by+one"):
        assert client.get(url).status_code == status, url
    for query in ("", "?exercise=39"):
        answer = client.get(f"/api/v1/courses/{ids['course']}/analytics{query}", headers=tokens[name])
        assert answer.status_code == status and answer.is_json


def test_strangers_and_wrong_exercises(site):
    app, ids, tokens = site
    client = app.test_client()
    assert client.get(f"/courses/{ids['course']}/analytics").status_code == 302  # to sign in
    assert client.get(f"/api/v1/courses/{ids['course']}/analytics").status_code == 401
    sign_in(client, ids["teacher"])
    assert client.get(f"/courses/{ids['course']}/analytics?exercise=77").status_code == 404
    assert client.get(f"/courses/{ids['course']}/analytics?exercise=sampling").status_code == 200
    assert client.get("/courses/999/analytics").status_code == 404
    # exercise 1 is in no assignment of the other course (the teacher does not teach it either: 404 first)
    headers = tokens["root"]
    assert client.get(f"/api/v1/courses/{ids['other']}/analytics?exercise=1", headers=headers).status_code == 404
    assert client.get(f"/api/v1/courses/{ids['other']}/analytics?exercise=39", headers=headers).status_code == 200
