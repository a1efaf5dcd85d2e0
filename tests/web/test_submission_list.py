"""All submissions of a course: filters (in the course's time zone), paging, and who may list them."""

from __future__ import annotations

import pytest

from tests.web.world import ROLES, build_world
from web.teaching.submission_list import MAX_PER_PAGE


def _api(world, role: str = "instructor", **query):
    return world.app.test_client().get(f"/api/v1/courses/{world.course_id}/submissions", query_string=query,
                                       headers=world.headers(role))


def _ids(world, **query) -> list[int]:
    response = _api(world, **query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return [row["id"] for row in response.json["submissions"]]


def _named(world, *names) -> list[int]:
    return [world.attempts[name] for name in names]


def test_the_list_holds_the_counted_attempts_newest_first(world):
    response = _api(world)
    body = response.json
    assert body["total"] == 5 and body["page"] == 1 and body["per_page"] == 50
    assert [row["id"] for row in body["submissions"]] == _named(
        world, "ann_1_late", "ann_39_ac", "bob_39_wa", "ann_39_wa", "bob_1_tle")  # no practice, no other course
    late = body["submissions"][0]
    assert late["user"] == "ann" and late["exercise"] == 1 and late["verdict"] == "AC" and late["late"] is True
    assert late["score"] == {"passed": 10, "total": 10} and late["created_at"].startswith("2027-03-09T12:00:00")
    assert body["submissions"][1]["late"] is False


@pytest.mark.parametrize("query, names", [
    ({"user": "ANN"}, ("ann_1_late", "ann_39_ac", "ann_39_wa")),       # any case
    ({"user": "obb"}, ("bob_39_wa", "bob_1_tle")),                      # a part of the name
    ({"user": "%"}, ()),                                                # LIKE's wildcards are plain text
    ({"exercise": "1"}, ("ann_1_late", "bob_1_tle")),
    ({"verdict": "wa"}, ("bob_39_wa", "ann_39_wa")),
    ({"verdict": "WA", "user": "bobby"}, ("bob_39_wa",)),
    ({"diagnosis": "MISTAKE t"}, ("bob_1_tle",)),
    ({"diagnosis": "mistake"}, ("bob_39_wa", "ann_39_wa", "bob_1_tle")),
    # Dates are the course's (Europe/Berlin, UTC+1 in March): 23:30 UTC on 2 March is 3 March there.
    ({"from": "2027-03-03"}, ("ann_1_late", "ann_39_ac", "bob_39_wa")),
    ({"to": "2027-03-02"}, ("ann_39_wa", "bob_1_tle")),                 # "to" a date includes that day
    ({"from": "2027-03-03", "to": "2027-03-03"}, ("ann_39_ac", "bob_39_wa")),
    ({"from": "2027-03-02T11:30"}, ("ann_1_late", "ann_39_ac", "bob_39_wa")),  # 10:30 UTC
    ({"from": "2027-03-02T11:00"}, ("ann_1_late", "ann_39_ac", "bob_39_wa", "ann_39_wa")),  # from is inclusive
    ({"from": "2027-03-02T10:00Z", "to": "2027-03-02T10:00Z"}, ("ann_39_wa",)),  # a moment, inclusive
    ({"late": "1"}, ("ann_1_late",)),
])
def test_filters(world, query, names):
    assert _ids(world, **query) == _named(world, *names)


def test_paging_counts_every_match_and_caps_the_page_size(world):
    first = _api(world, per_page="2").json
    second = _api(world, per_page="2", page="2").json
    third = _api(world, per_page="2", page="3").json
    assert [first["total"], second["total"], third["total"]] == [5, 5, 5]
    pages = [[row["id"] for row in body["submissions"]] for body in (first, second, third)]
    assert pages == [_named(world, "ann_1_late", "ann_39_ac"), _named(world, "bob_39_wa", "ann_39_wa"),
                     _named(world, "bob_1_tle")]
    assert _api(world, page="9").json["submissions"] == []
    assert _api(world, per_page="100000").json["per_page"] == MAX_PER_PAGE


@pytest.mark.parametrize("query, message", [
    ({"verdict": "XX"}, '"verdict" is one of AC'),
    ({"exercise": "one"}, '"exercise" is a whole number'),
    ({"page": "-1"}, '"page" is a whole number'),
    ({"per_page": "9" * 5000}, '"per_page" is at most'),
    ({"from": "yesterday"}, '"from": \'yesterday\' is not an ISO 8601 date-time'),
    ({"to": "2027-03-28T02:30"}, "does not exist in Europe/Berlin"),  # clocks go forward
    ({"user": "a\x00"}, "NUL"),
])
def test_a_filter_that_cannot_be_used_is_a_400_that_says_why(world, query, message):
    response = _api(world, **query)
    assert response.status_code == 400 and message in response.json["message"], response.json


def test_the_page_lists_filters_and_pages(world):
    client = world.client("instructor")
    html = client.get(f"/courses/{world.course_id}/submissions").get_data(as_text=True)
    assert "5 submissions match." in html and "Times are shown in the course&#39;s time zone, Europe/Berlin." in html
    for name in ("ann_1_late", "bob_1_tle"):
        assert f'href="/submissions/{world.attempts[name]}">#{world.attempts[name]}</a>' in html
    assert "2027-03-03 00:30:00 CET (UTC+01:00)" in html  # Bobby's 23:30 UTC, in the course's zone, to the second
    assert 'class="verdict v-TLE"' in html and "mistake TLE" in html
    assert f'href="/courses/{world.course_id}/submissions"' in html  # the course's pages link here
    filtered = client.get(f"/courses/{world.course_id}/submissions?user=bobby&verdict=WA").get_data(as_text=True)
    assert "1 submission matches." in filtered and f"#{world.attempts['bob_39_wa']}</a>" in filtered
    assert 'value="bobby"' in filtered and '<option value="WA" selected>' in filtered  # the form keeps them
    paged = client.get(f"/courses/{world.course_id}/submissions?per_page=2&page=2&late=").get_data(as_text=True)
    assert "Page 2 of 3" in paged
    assert f'href="/courses/{world.course_id}/submissions?per_page=2&amp;page=3"' in paged
    assert f'href="/courses/{world.course_id}/submissions?per_page=2&amp;page=1"' in paged
    zh = client.get(f"/courses/{world.course_id}/submissions?lang=zh").get_data(as_text=True)
    assert "全部提交" in zh and "共有 5 条提交符合条件。" in zh
    refused = client.get(f"/courses/{world.course_id}/submissions?verdict=XX&lang=en")
    assert refused.status_code == 400 and "is one of AC, " in refused.get_data(as_text=True)


PAGE_STATUS = {"anonymous": 302, "learner": 403, "learner_elsewhere": 404, "other_instructor": 404,
               "instructor": 200, "admin": 200}
API_STATUS = PAGE_STATUS | {"anonymous": 401}


@pytest.mark.parametrize("role", ROLES)
def test_who_may_list_the_submissions(world, role):
    page = world.client(role).get(f"/courses/{world.course_id}/submissions")
    assert page.status_code == PAGE_STATUS[role]
    if role == "anonymous":
        assert page.location.startswith("/auth/sign-in")
    api = _api(world, role)
    assert api.status_code == API_STATUS[role] and api.is_json
    if API_STATUS[role] == 200:
        assert api.json["total"] == 5


def test_an_empty_course_lists_nothing(make_site):
    world = build_world(make_site(start_workers=False), with_attempts=False)
    assert _api(world).json == {"submissions": [], "page": 1, "per_page": 50, "total": 0}
    html = world.client("instructor").get(f"/courses/{world.course_id}/submissions").get_data(as_text=True)
    assert "No submission matches." in html
