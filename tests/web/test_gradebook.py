"""The gradebook: values against hand-computed cells, sorting, filters, pages, the CSV, the JSON, who may see it.

The class (two assignments; exercise 1 due first, so it is the first column):

- "Week 0": exercise 1, open 02-01, due 02-15, late work flagged;
- "Week 1": exercise 39, open 03-01, due 03-08, late work at 25 % less per started day.

=======  ============================  ==============================  =======  ====
learner  exercise 1                    exercise 39                     total    late
=======  ============================  ==============================  =======  ====
-eve     WA 5/10 on time: 0.5          never tried                     0.5      0
ann      AC on time: 1.0               WA 7/10, WA 2/10 on time: 0.7   1.7      0
bob      AC late (flagged): 1.0 late   AC 6 h late: 0.75 late          1.75     2
cat      never tried                   never tried                     0        0
dan      never tried                   WA 3/10, overridden to 0.9      0.9      0
=======  ============================  ==============================  =======  ====
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from zoneinfo import ZoneInfo

import pytest
from site_client import csrf_token, sign_in
from sqlalchemy import select

from tests.web.world import attempt, exercise, password_hash
from web.core.models import ApiToken, Course, Override, Role, User
from web.services import services
from web.teaching.courses import create_course, enroll, override_score, save_assignment
from web.teaching.gradebook import GradebookError, course_exercises, gradebook_page, gradebook_rows

PASSWORD = "password123"


def _account(session, name: str, role: Role = Role.learner) -> User:
    row = User(name=name, role=role)
    row.password_hash = password_hash(PASSWORD)
    session.add(row)
    session.flush()
    return row


def _build(session) -> dict[str, int]:
    teacher = _account(session, "teacher", Role.instructor)
    other_teacher = _account(session, "stranger", Role.instructor)
    _account(session, "admin", Role.admin)
    _account(session, "outsider")
    course = create_course(session, teacher, "Sampling 101", "Europe/Berlin")
    create_course(session, other_teacher, "Another course")
    save_assignment(session, course, title="Week 1", exercises=[39], opens_at="2027-03-01T00:00Z",
                    due_at="2027-03-08T00:00Z", late_policy="penalty", penalty_per_day=0.25)
    save_assignment(session, course, title="Week 0", exercises=[1], opens_at="2027-02-01T00:00Z",
                    due_at="2027-02-15T00:00Z", late_policy="flagged")
    one, thirty_nine = exercise(session, 1), exercise(session, 39)
    people = {}
    for name in ("ann", "bob", "cat", "dan", "-eve"):
        people[name] = _account(session, name)
        enroll(session, course, people[name])
    session.flush()
    attempt(session, people["-eve"], one, "2027-02-10 10:00", "WA", passed=5)
    attempt(session, people["ann"], one, "2027-02-02 10:00", "AC")
    attempt(session, people["ann"], thirty_nine, "2027-03-02 10:00", "WA", passed=7)
    attempt(session, people["ann"], thirty_nine, "2027-03-03 10:00", "WA", passed=2)
    attempt(session, people["bob"], one, "2027-02-20 10:00", "AC")
    attempt(session, people["bob"], thirty_nine, "2027-03-08 06:00", "AC")
    attempt(session, people["dan"], thirty_nine, "2027-03-02 10:00", "WA", passed=3)
    override_score(session, course, people["dan"], thirty_nine, 0.9, "read by hand", teacher)
    session.commit()
    return {"course": course.id} | {name: row.id for name, row in people.items()}


@pytest.fixture
def site(make_site):
    app = make_site(start_workers=False)
    with services(app).sessions() as session:
        ids = _build(session)
    return app, ids


def _signed_in(app, name: str):
    client = app.test_client()
    assert sign_in(client, name).status_code == 302
    return client


def _token(app, name: str) -> dict:
    with services(app).sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        row, secret = ApiToken.issue(user)
        session.add(row)
        session.commit()
    return {"Authorization": f"Bearer {secret}"}


def _titles(app, number: int) -> tuple[str, str]:
    with services(app).sessions() as session:
        row = exercise(session, number)
        return row.title_en, row.title_zh


def _names(page) -> list[str]:
    return [row.name for row in page.rows]


# --- values, sorting, filters, pages (web.teaching.gradebook) ---------------------------------------------

def test_columns_follow_the_due_dates_and_totals_match_the_hand_computed_table(site):
    app, ids = site
    with services(app).sessions() as session:
        course = session.get(Course, ids["course"])
        assert [column.number for column in course_exercises(session, course)] == [1, 39]
        page = gradebook_page(session, course)
        assert _names(page) == ["-eve", "ann", "bob", "cat", "dan"]  # instructors are not rows
        assert (page.total_learners, page.pages, page.max_total) == (5, 1, 2)
        totals = {row.name: (round(row.total, 6), row.late_count) for row in page.rows}
        assert totals == {"-eve": (0.5, 0), "ann": (1.7, 0), "bob": (1.75, 2), "cat": (0.0, 0), "dan": (0.9, 0)}
        by_name = {row.name: row for row in page.rows}
        one, thirty_nine = exercise(session, 1).id, exercise(session, 39).id
        assert by_name["cat"].cells == {}
        assert by_name["bob"].cells[thirty_nine].score == pytest.approx(0.75) and by_name["bob"].cells[thirty_nine].late
        assert by_name["bob"].cells[one].score == 1.0 and by_name["bob"].cells[one].late
        assert (by_name["ann"].cells[thirty_nine].attempts, by_name["ann"].cells[thirty_nine].score) == (2, 0.7)
        dan = by_name["dan"].cells[thirty_nine]
        assert (dan.counted, dan.override, dan.score) == (pytest.approx(0.3), 0.9, 0.9)


@pytest.mark.parametrize("sort, descending, expected", [
    ("name", False, ["-eve", "ann", "bob", "cat", "dan"]),
    ("name", True, ["dan", "cat", "bob", "ann", "-eve"]),
    ("total", True, ["bob", "ann", "dan", "-eve", "cat"]),
    ("total", False, ["cat", "-eve", "dan", "ann", "bob"]),
    ("late", True, ["bob", "-eve", "ann", "cat", "dan"]),  # ties by name
    ("exercise:39", True, ["dan", "bob", "ann", "-eve", "cat"]),  # never tried sorts below a 0
    ("exercise:1", False, ["cat", "dan", "-eve", "ann", "bob"]),
])
def test_sorting(site, sort, descending, expected):
    app, ids = site
    with services(app).sessions() as session:
        page = gradebook_page(session, session.get(Course, ids["course"]), sort=sort, descending=descending)
        assert _names(page) == expected


@pytest.mark.parametrize("filter_, name_filter, expected", [
    ("late", "", ["bob"]),
    ("missing", "", ["-eve", "cat", "dan"]),
    ("overridden", "", ["dan"]),
    ("all", "A", ["ann", "cat", "dan"]),  # case-insensitive part of the name
    ("missing", "a", ["cat", "dan"]),
    ("all", "%", []),  # a LIKE wildcard is a character like any other
    ("all", "-e", ["-eve"]),
])
def test_filters(site, filter_, name_filter, expected):
    app, ids = site
    with services(app).sessions() as session:
        page = gradebook_page(session, session.get(Course, ids["course"]), filter=filter_, name_filter=name_filter)
        assert _names(page) == expected and page.total_learners == len(expected)


def test_pages_split_the_order_and_count_every_match(site):
    app, ids = site
    with services(app).sessions() as session:
        course = session.get(Course, ids["course"])
        seen = [gradebook_page(session, course, sort="total", descending=True, page=number, per_page=2)
                for number in (1, 2, 3, 4)]
        assert [_names(page) for page in seen] == [["bob", "ann"], ["dan", "-eve"], ["cat"], []]
        assert {(page.total_learners, page.pages) for page in seen} == {(5, 3)}
        assert gradebook_page(session, course, per_page=10_000).per_page == 200


@pytest.mark.parametrize("arguments, message", [({"sort": "exercise:2"}, "sort is one of name, "),
                                                ({"sort": "points"}, "sort is one of name, "),
                                                ({"filter": "lazy"}, "filter is one of all, "),
                                                ({"page": 0}, "page and per_page are whole numbers from 1"),
                                                ({"per_page": 0}, "page and per_page are whole numbers from 1")])
def test_unknown_requests_are_refused(site, arguments, message):
    app, ids = site
    with services(app).sessions() as session, pytest.raises(GradebookError, match=message):
        gradebook_page(session, session.get(Course, ids["course"]), **arguments)


def test_export_rows_cover_every_learner_in_batches(site):
    app, ids = site
    with services(app).sessions() as session:
        course = session.get(Course, ids["course"])
        rows = list(gradebook_rows(session, course, batch=2))
        assert [row.name for row in rows] == ["-eve", "ann", "bob", "cat", "dan"]
        assert [len(row.cells) for row in rows] == [1, 2, 2, 0, 1]


# --- the pages -----------------------------------------------------------------------------------

def test_the_page_shows_scores_badges_links_and_sort_state(site):
    app, ids = site
    client = _signed_in(app, "teacher")
    html = client.get(f"/courses/{ids['course']}/gradebook?sort=total&order=desc").get_data(as_text=True)
    assert html.index(">bob<") < html.index(">ann<") < html.index(">cat<")
    assert 'aria-sort="descending"' in html and html.count("aria-sort=") == 1
    assert "75%" in html and "90%" in html and "70%" in html and 'class="verdict v-AC"' in html
    assert f"/courses/{ids['course']}/gradebook/{ids['bob']}/39" in html
    assert "/submissions/" in html
    assert "87.5%" in html  # the total too is a percent: one unit on the page
    zh = client.get(f"/courses/{ids['course']}/gradebook?lang=zh").get_data(as_text=True)
    assert "成绩册" in zh


def test_the_column_headers_name_each_exercise_in_the_pages_language(site):
    app, ids = site
    client = _signed_in(app, "teacher")
    (one_en, one_zh), (nine_en, nine_zh) = _titles(app, 1), _titles(app, 39)
    assert one_en != one_zh and nine_en != nine_zh
    html = client.get(f"/courses/{ids['course']}/gradebook").get_data(as_text=True)
    head = html[html.index("<thead>"):html.index("</thead>")]
    assert f'<span class="column-title">{one_en}</span>' in head
    assert f'<span class="column-title">{nine_en}</span>' in head
    zh = client.get(f"/courses/{ids['course']}/gradebook?lang=zh").get_data(as_text=True)
    assert f'<span class="column-title">{nine_zh}</span>' in zh[zh.index("<thead>"):zh.index("</thead>")]


def test_the_page_filters_and_pages(site):
    app, ids = site
    client = _signed_in(app, "teacher")
    html = client.get(f"/courses/{ids['course']}/gradebook?filter=missing&per_page=2").get_data(as_text=True)
    assert ">-eve<" in html and ">cat<" in html and ">dan<" not in html and ">ann<" not in html
    assert 'rel="next"' in html and "page=2" in html and "filter=missing" in html
    assert client.get(f"/courses/{ids['course']}/gradebook?sort=nonsense").status_code == 400
    assert client.get(f"/courses/{ids['course']}/gradebook?page=-1").status_code == 400


def test_the_cell_page_lists_attempts_in_time_order_and_marks_the_counted_one(site):
    app, ids = site
    client = _signed_in(app, "teacher")
    html = client.get(f"/courses/{ids['course']}/gradebook/{ids['ann']}/39").get_data(as_text=True)
    assert html.count('class="counted"') == 1
    assert html.index("2027-03-02 11:00:00 CET") < html.index("2027-03-03 11:00:00 CET")  # course zone, seconds
    assert html.index('class="counted"') < html.index("2027-03-03 11:00")  # the first (0.7) counts
    assert client.get(f"/courses/{ids['course']}/gradebook/{ids['ann']}/2").status_code == 404
    with services(app).sessions() as session:
        teacher = session.scalar(select(User).where(User.name == "teacher"))
    assert client.get(f"/courses/{ids['course']}/gradebook/{teacher.id}/39").status_code == 404  # not a learner


def test_an_override_from_the_cell_page_is_recorded_and_shown(site):
    app, ids = site
    client = _signed_in(app, "teacher")
    url = f"/courses/{ids['course']}/gradebook/{ids['cat']}/1"
    token = csrf_token(client, url)
    refused = client.post(url, data={"csrf_token": token, "score_percent": "120", "comment": "too much"})
    assert refused.status_code == 400
    assert client.post(url, data={"csrf_token": token, "score_percent": "80", "comment": ""}).status_code == 400
    response = client.post(url, data={"csrf_token": token, "score_percent": "80", "comment": "excused, oral exam"})
    assert response.status_code == 302 and response.location.endswith(url)
    html = client.get(url).get_data(as_text=True)
    assert "excused, oral exam" in html and "teacher" in html and "80%" in html
    with services(app).sessions() as session:
        row = session.scalar(select(Override).where(Override.user_id == ids["cat"]))
        assert (row.score, row.comment) == (0.8, "excused, oral exam")
        page = gradebook_page(session, session.get(Course, ids["course"]), filter="overridden")
        assert _names(page) == ["cat", "dan"]


def _set(client, url: str, percent: str, mode: str | None, comment: str = "by hand"):
    data = {"csrf_token": csrf_token(client, url), "score_percent": percent, "comment": comment}
    if mode is not None:
        data["mode"] = mode
    return client.post(url, data=data)


def test_an_at_least_override_is_a_floor_and_removing_it_restores_the_computed_score(site):
    """ann's 39 is computed 70 %: "at least 50" leaves 70, "at least 80" gives 80; the mode is kept
    in the history; "Remove the override" puts the computed 70 back and the history keeps every row."""
    app, ids = site
    client = _signed_in(app, "teacher")
    url = f"/courses/{ids['course']}/gradebook/{ids['ann']}/39"
    assert _set(client, url, "50", "at_least").status_code == 302
    html = client.get(url).get_data(as_text=True)
    assert '<strong id="cell-score">70%</strong>' in html and "(at least)" in html
    assert 'id="withdraw-override"' in html and "Remove the override" in html
    assert "override-below" not in html  # "at least" never hides a better computed score
    assert _set(client, url, "80", "at_least").status_code == 302
    assert '<strong id="cell-score">80%</strong>' in client.get(url).get_data(as_text=True)
    with services(app).sessions() as session:
        newest = session.scalar(select(Override).where(Override.user_id == ids["ann"]).order_by(Override.id.desc()))
        assert (newest.score, newest.mode.value, newest.by.name) == (0.8, "at_least", "teacher")
    removed = client.post(f"{url}/withdraw", data={"csrf_token": csrf_token(client, url)})
    assert removed.status_code == 302
    html = client.get(url).get_data(as_text=True)
    assert '<strong id="cell-score">70%</strong>' in html and 'id="withdraw-override"' not in html
    history = html[html.index('id="overrides-heading"'):]
    assert history.count("<tr") == 4  # the header, two scores and the removal, newest first
    assert history.index("withdrawn (the graded score counts)") < history.index("80%") < history.index("50%")


def test_a_form_without_a_mode_sets_a_replacing_override_and_an_unknown_mode_is_refused(site):
    app, ids = site
    client = _signed_in(app, "teacher")
    url = f"/courses/{ids['course']}/gradebook/{ids['ann']}/39"
    assert _set(client, url, "50", "sometimes").status_code == 400
    assert _set(client, url, "50", None).status_code == 302
    with services(app).sessions() as session:
        assert session.scalar(select(Override.mode).where(Override.user_id == ids["ann"])).value == "replace"


def test_a_replace_override_below_the_computed_score_is_flagged_counted_and_filtered(site):
    """ann's 39 is computed 70 %; a "replace" 50 % (as set before a rejudge raised the grading)
    counts 50 % and is flagged: on the cell, on the gradebook with a count at the top and a filter,
    and in the JSON. dan's 90 % over a computed 30 % is not."""
    app, ids = site
    client = _signed_in(app, "teacher")
    url = f"/courses/{ids['course']}/gradebook/{ids['ann']}/39"
    assert _set(client, url, "50", "replace").status_code == 302
    cell = client.get(url).get_data(as_text=True)
    assert '<strong id="cell-score">50%</strong>' in cell and "override below the computed score" in cell
    assert "The computed score (70%) is above this override (50%)." in cell
    book = client.get(f"/courses/{ids['course']}/gradebook").get_data(as_text=True)
    assert "1 override is below the computed score" in book and book.count('class="tag warning override-below"') == 1
    assert "filter=below" in book
    below = client.get(f"/courses/{ids['course']}/gradebook?filter=below").get_data(as_text=True)
    assert ">ann<" in below and ">dan<" not in below and ">bob<" not in below
    with services(app).sessions() as session:
        course = session.get(Course, ids["course"])
        assert _names(gradebook_page(session, course, filter="below")) == ["ann"]
        ann = next(row for row in gradebook_page(session, course).rows if row.name == "ann")
        assert ann.total == pytest.approx(1.5)  # the override counts, flagged, never changed
    data = app.test_client().get(f"/api/v1/courses/{ids['course']}/gradebook?q=ann",
                                 headers=_token(app, "teacher")).json
    assert data["overrides_below"] == 1
    flagged = data["learners"][0]["exercises"]["39"]
    assert (flagged["override"], flagged["override_mode"], flagged["override_below"], flagged["score"]) == (
        0.5, "replace", True, 0.5)
    zh = client.get(f"/courses/{ids['course']}/gradebook?lang=zh").get_data(as_text=True)
    assert "有 1 处改分低于评测得分" in zh


def test_the_override_api_takes_a_mode(site):
    app, ids = site
    client, headers = app.test_client(), _token(app, "teacher")
    made = client.post(f"/api/v1/courses/{ids['course']}/overrides", headers=headers,
                       json={"user": "ann", "exercise": 39, "score": 0.5, "comment": "floor", "mode": "at_least"})
    assert made.status_code == 201 and made.json["mode"] == "at_least"
    plain = client.post(f"/api/v1/courses/{ids['course']}/overrides", headers=headers,
                        json={"user": "bob", "exercise": 39, "score": 0.5, "comment": "flat"})
    assert plain.status_code == 201 and plain.json["mode"] == "replace"
    bad = client.post(f"/api/v1/courses/{ids['course']}/overrides", headers=headers,
                      json={"user": "bob", "exercise": 39, "score": 0.5, "comment": "x", "mode": "max"})
    assert bad.status_code == 400 and "mode is one of replace, at_least" in bad.json["message"]
    cells = client.get(f"/api/v1/courses/{ids['course']}/gradebook", headers=headers).json["learners"]
    by_name = {row["user"]: row["exercises"]["39"] for row in cells}
    assert (by_name["ann"]["score"], by_name["bob"]["score"]) == (0.7, 0.5)


# --- the CSV -------------------------------------------------------------------------------------

def _csv(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"].startswith("attachment;")
    body = response.get_data()
    assert body.startswith(b"\xef\xbb\xbf")  # the BOM Excel needs for UTF-8
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


def test_the_csv_has_a_row_per_learner_with_scores_late_flags_and_totals(site):
    app, ids = site
    client = _signed_in(app, "teacher")
    response = client.get(f"/courses/{ids['course']}/gradebook.csv")
    rows = _csv(response)
    header = list(rows[0])
    # The older columns keep their names and places; the overridden flags come after them.
    assert header == ["learner", "ex1", "ex39", "ex1_late", "ex39_late", "total", "max_total", "late_count",
                      "ex1_overridden", "ex39_overridden"]
    assert len(rows) == 5
    by_name = {row["learner"]: row for row in rows}
    assert by_name["bob"] == {"learner": "bob", "ex1": "1", "ex39": "0.75", "ex1_late": "1", "ex39_late": "1",
                              "total": "1.75", "max_total": "2", "late_count": "2", "ex1_overridden": "0",
                              "ex39_overridden": "0"}
    assert by_name["cat"] | {} == {"learner": "cat", "ex1": "", "ex39": "", "ex1_late": "0", "ex39_late": "0",
                                   "total": "0", "max_total": "2", "late_count": "0", "ex1_overridden": "0",
                                   "ex39_overridden": "0"}
    assert (by_name["ann"]["total"], by_name["dan"]["ex39"]) == ("1.7", "0.9")
    assert (by_name["dan"]["ex1_overridden"], by_name["dan"]["ex39_overridden"]) == ("0", "1")


def test_the_csv_is_named_after_the_course_and_its_day(site):
    app, ids = site
    response = _signed_in(app, "teacher").get(f"/courses/{ids['course']}/gradebook.csv")
    day = dt.datetime.now(ZoneInfo("Europe/Berlin")).date().isoformat()  # the course's zone
    assert response.headers["Content-Disposition"] == f'attachment; filename="sampling-101-gradebook-{day}.csv"'


@pytest.mark.parametrize("name, plain, utf8", [
    ("Sampling 101", "sampling-101", None),
    ('Stats "A"; rm -rf / ..', "stats-a-rm-rf", None),
    ("Übung: Wahrscheinlichkeit", "ubung-wahrscheinlichkeit", "übung-wahrscheinlichkeit"),
    ("概率论 2026", "2026", "概率论-2026"),
    ("概率论", "course-7", "概率论"),
])
def test_the_csv_file_name_keeps_safe_characters_and_gives_non_ascii_names_as_filename_star(name, plain, utf8):
    from urllib.parse import quote

    from web.teaching.gradebook_export import content_disposition, csv_filename

    course = Course(id=7, name=name)
    day = dt.date(2026, 12, 6)
    expected_utf8 = None if utf8 is None else f"{utf8}-gradebook-2026-12-06.csv"
    assert csv_filename(course, day) == (f"{plain}-gradebook-2026-12-06.csv", expected_utf8)
    header = content_disposition(course, day)
    assert header.startswith(f'attachment; filename="{plain}-gradebook-2026-12-06.csv"')
    assert header.isascii()
    if utf8 is not None:
        assert header.endswith(f"; filename*=UTF-8''{quote(expected_utf8, safe='')}")


def test_a_name_a_spreadsheet_would_run_as_a_formula_gets_an_apostrophe(site):
    app, ids = site
    rows = _csv(_signed_in(app, "teacher").get(f"/courses/{ids['course']}/gradebook.csv"))
    assert rows[0]["learner"] == "'-eve"
    assert all(not row["learner"].startswith(("=", "+", "-", "@")) for row in rows)


def test_the_api_csv_is_the_same_file(site):
    app, ids = site
    page = _signed_in(app, "teacher").get(f"/courses/{ids['course']}/gradebook.csv").get_data()
    api = app.test_client().get(f"/api/v1/courses/{ids['course']}/gradebook.csv", headers=_token(app, "teacher"))
    assert api.get_data() == page


# --- the JSON API --------------------------------------------------------------------------------

def test_the_json_gradebook(site):
    app, ids = site
    client = app.test_client()
    response = client.get(f"/api/v1/courses/{ids['course']}/gradebook?sort=total&order=desc&per_page=2",
                          headers=_token(app, "teacher"))
    assert response.status_code == 200
    data = response.json
    assert data["course"]["id"] == ids["course"] and data["exercises"] == [1, 39]
    assert (data["page"], data["per_page"], data["pages"], data["total_learners"]) == (1, 2, 3, 5)
    bob, ann = data["learners"]
    assert (bob["user"], bob["total"], bob["late_count"]) == ("bob", 1.75, 2)
    assert set(bob["exercises"]) == {"1", "39"}
    late_ac = bob["exercises"]["39"]
    assert set(late_ac) == {"verdict", "score", "counted", "attempts", "late", "override", "override_mode",
                            "override_below", "submission"}
    assert (late_ac["verdict"], late_ac["score"], late_ac["late"], late_ac["attempts"]) == ("AC", 0.75, True, 1)
    assert isinstance(late_ac["submission"], int)
    assert ann["exercises"]["39"]["counted"] == 0.7
    dan = client.get(f"/api/v1/courses/{ids['course']}/gradebook?filter=overridden",
                     headers=_token(app, "teacher")).json["learners"][0]
    assert dan["exercises"]["39"]["override"] == 0.9 and dan["exercises"]["1"] == {
        "verdict": None, "score": 0.0, "counted": None, "attempts": 0, "late": False, "override": None,
        "override_mode": None, "override_below": False, "submission": None}
    assert (dan["exercises"]["39"]["override_mode"], dan["exercises"]["39"]["override_below"]) == ("replace", False)
    title_en, title_zh = _titles(app, 39)
    assert data["columns"][1] == {"number": 39, "title_en": title_en, "title_zh": title_zh}
    assert data["overrides_below"] == 0
    bad = client.get(f"/api/v1/courses/{ids['course']}/gradebook?filter=x", headers=_token(app, "teacher"))
    assert bad.status_code == 400 and bad.json["error"]


# --- who may see it ------------------------------------------------------------------------------

PAGES = ["/courses/{course}/gradebook", "/courses/{course}/gradebook.csv", "/courses/{course}/gradebook/{ann}/39"]
APIS = ["/api/v1/courses/{course}/gradebook", "/api/v1/courses/{course}/gradebook.csv"]


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("who, status", [("teacher", 200), ("admin", 200), ("ann", 403), ("stranger", 404),
                                         ("outsider", 404)])
def test_pages_by_role(site, path, who, status):
    app, ids = site
    assert _signed_in(app, who).get(path.format(**ids)).status_code == status


@pytest.mark.parametrize("path", PAGES)
def test_pages_send_a_visitor_to_sign_in(site, path):
    app, ids = site
    response = app.test_client().get(path.format(**ids))
    assert response.status_code == 302 and response.location.startswith("/auth/sign-in")


@pytest.mark.parametrize("path", APIS)
@pytest.mark.parametrize("who, status", [("teacher", 200), ("admin", 200), ("ann", 403), ("stranger", 404),
                                         ("outsider", 404), (None, 401)])
def test_api_by_role(site, path, who, status):
    app, ids = site
    headers = _token(app, who) if who else {}
    response = app.test_client().get(path.format(**ids), headers=headers)
    assert response.status_code == status
    if status != 200:
        assert response.is_json and response.json["message"]


def test_a_learner_cannot_override_and_nothing_is_stored(site):
    app, ids = site
    client = _signed_in(app, "ann")
    token = csrf_token(client, "/profile/")
    url = f"/courses/{ids['course']}/gradebook/{ids['ann']}/39"
    assert client.post(url, data={"csrf_token": token, "score_percent": "100", "comment": "me"}).status_code == 403
    with services(app).sessions() as session:
        assert session.scalar(select(Override).where(Override.user_id == ids["ann"])) is None


def test_a_course_without_learners_or_assignments_has_an_empty_gradebook(site):
    app, _ = site
    with services(app).sessions() as session:
        course = session.scalar(select(Course).where(Course.name == "Another course"))
        page = gradebook_page(session, course)
        assert (page.rows, page.total_learners, page.pages, page.max_total) == ([], 0, 1, 0)
        course_id = course.id
    client = _signed_in(app, "stranger")
    rows = _csv(client.get(f"/courses/{course_id}/gradebook.csv"))
    assert rows == []
    html = client.get(f"/courses/{course_id}/gradebook").get_data(as_text=True)
    with services(app).sessions() as session:
        code = session.get(Course, course_id).join_code
    # What to do next: share the join code or invite, and create an assignment.
    assert f"Give them the join code {code}" in html and f"<code>{code}</code>" in html
    assert f'href="/courses/{course_id}#people-heading"' in html
    assert f'href="/courses/{course_id}/assignments/new"' in html and "Create an assignment" in html
    assert "<table" not in html and "Matching learners" not in html
    zh = client.get(f"/courses/{course_id}/gradebook?lang=zh").get_data(as_text=True)
    assert f"把加入码 {code} 发给他们" in zh and "创建作业" in zh
