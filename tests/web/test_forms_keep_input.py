"""Every course form sent back with one bad field keeps what was typed in the others and says
what is wrong under the bad field, in words (its label, then what to type), linked to it with
aria-describedby: never a raw key such as ``due_at:`` and never WTForms' English."""

from __future__ import annotations

import html as markup
import re

import pytest
from site_client import csrf_token

from tests.web.world import build_world, exercise
from web.services import services


@pytest.fixture
def world(make_site):
    return build_world(make_site(start_workers=False))


RAW_KEYS = ("due_at:", "opens_at:", "penalty_per_day", "late_policy", "Not a valid", "Field must be")


def _post(world, url: str, data: dict, lang: str = "en"):
    client = world.client("instructor")
    token = csrf_token(client, f"/profile/?lang={lang}")
    response = client.post(url, data={"csrf_token": token, **data})
    return response.status_code, markup.unescape(response.get_data(as_text=True))


def _error_under(page: str, field_id: str) -> str:
    """The error list of ``field_id``, which the field names with aria-describedby."""
    field = re.search(rf'<(?:input|select|textarea)[^>]*\bid="{field_id}"[^>]*>', page)
    assert field, f"no field {field_id}"
    described = re.search(r'aria-describedby="([^"]*)"', field.group(0))
    assert described and f"{field_id}-errors" in described.group(1).split(), field.group(0)
    assert 'aria-invalid="true"' in field.group(0)
    errors = re.search(rf'<ul class="errors" id="{field_id}-errors">(.*?)</ul>', page, re.S)
    assert errors, f"no errors under {field_id}"
    text = re.sub(r"<[^>]+>", " ", errors.group(1))
    assert not any(key in text for key in RAW_KEYS), text
    return " ".join(text.split())


def _value(page: str, field_id: str) -> str | None:
    field = re.search(rf'<input[^>]*\bid="{field_id}"[^>]*>', page)
    assert field, f"no field {field_id}"
    found = re.search(r'\bvalue="([^"]*)"', field.group(0))
    return found.group(1) if found else None


def _selected(page: str, select_id: str) -> list[str]:
    select = re.search(rf'<select[^>]*\bid="{select_id}"[^>]*>(.*?)</select>', page, re.S)
    assert select, f"no select {select_id}"
    options = re.findall(r"<option[^>]*>", select.group(1))
    return [re.search(r'value="([^"]*)"', option).group(1) for option in options if " selected" in option]


ASSIGNMENT = {"title": "Week 9", "opens_at": "2027-04-10T09:00", "due_at": "2027-04-17T23:59",
              "late_policy": "penalty", "penalty_percent": "10", "visibility_before": "rule",
              "visibility_after": "rule"}


def _exercise_id(world, number: int) -> str:
    with services(world.app).sessions() as session:
        return str(exercise(session, number).id)


@pytest.mark.parametrize(("bad", "value", "expected"), [
    ("due_at", "2027-04-01T09:00", "Due: must come after the opening time."),
    ("opens_at", "next tuesday",
     "Opens: use the format 2027-03-14 23:59 (a date, then a time of day, in Europe/Berlin)."),
    ("penalty_percent", "ten", "Penalty per started day late (% of the score): a number, such as 10."),
    ("penalty_percent", "250",
     "Penalty per started day late (% of the score): a percentage from 0 to 100, such as 10."),
    ("title", "T" * 201, "Title: at most 200 characters."),
])
def test_the_assignment_form_keeps_what_was_typed(world, bad, value, expected):
    status, page = _post(world, f"/courses/{world.course_id}/assignments/new",
                         {**ASSIGNMENT, "exercises": _exercise_id(world, 40), bad: value})
    assert status == 400
    assert _error_under(page, bad) == expected
    for name in ("title", "opens_at", "due_at", "penalty_percent"):
        assert _value(page, name) == (value if name == bad else ASSIGNMENT[name]), name
    checked = [re.search(r'value="(\d+)"', box).group(1) for box in re.findall(r"<input[^>]*checked[^>]*>", page)
               if 'name="exercises"' in box]
    assert checked == [_exercise_id(world, 40)]
    assert _selected(page, "late_policy") == ["penalty"]


def test_the_assignment_form_says_it_in_chinese(world):
    status, page = _post(world, f"/courses/{world.course_id}/assignments/new",
                         {**ASSIGNMENT, "exercises": _exercise_id(world, 40), "due_at": "2027-04-01T09:00"},
                         lang="zh")
    assert status == 400 and _error_under(page, "due_at") == "截止时间一栏：必须晚于开放时间。"


def test_an_exercise_in_another_assignment_is_said_under_the_exercises(world):
    status, page = _post(world, f"/courses/{world.course_id}/assignments/new",
                         {**ASSIGNMENT, "exercises": _exercise_id(world, 39)})
    assert status == 400 and 'aria-describedby="exercises-errors"' in page
    errors = re.search(r'<ul class="errors" id="exercises-errors">(.*?)</ul>', page, re.S).group(1)
    assert "exercise 39 is already in the assignment “Week 1” of this course" in errors
    assert _value(page, "title") == "Week 9" and _value(page, "due_at") == ASSIGNMENT["due_at"]


def test_the_extension_form_keeps_the_learner_and_the_time(world):
    url = f"/courses/{world.course_id}/assignments/{world.assignment_id}"
    page = world.client("instructor").get(url).get_data(as_text=True)
    bobby = re.search(r'<option value="(\d+)">Bobby</option>', page).group(1)
    status, page = _post(world, f"{url}/extensions", {"learner": bobby, "due_at": "2027-03-01T08:00"})
    assert status == 400
    assert _error_under(page, "extension_due_at") == (
        "Due: an extension ends after the assignment's due time; choose a later one.")
    assert _value(page, "extension_due_at") == "2027-03-01T08:00"
    assert _selected(page, "learner") == [bobby]


def test_the_course_form_keeps_the_time_zone(world):
    status, page = _post(world, "/courses/", {"name": "", "time_zone": "Asia/Shanghai"})
    assert status == 400 and _error_under(page, "name") == "This field is required."
    assert _selected(page, "time_zone") == ["Asia/Shanghai"]


def test_the_instructor_and_roster_forms_keep_the_name(world):
    status, page = _post(world, f"/courses/{world.course_id}/instructors", {"name": "nobody_here"})
    assert status == 400 and _value(page, "name") == "nobody_here" and _error_under(page, "name")
    status, page = _post(world, f"/courses/{world.course_id}/roster", {"roster": "\n"})
    assert status == 400 and "the roster names nobody" in _error_under(page, "roster")


def test_the_sign_up_form_keeps_the_name_and_the_language(world):
    client = world.app.test_client()
    token = csrf_token(client, "/auth/sign-up?lang=en")
    response = client.post("/auth/sign-up", data={"csrf_token": token, "name": "ann", "password": "password123",
                                                  "confirm": "password123", "language": "zh"})
    page = markup.unescape(response.get_data(as_text=True))
    assert response.status_code == 400 and _error_under(page, "name")
    assert _value(page, "name") == "ann" and _selected(page, "language") == ["zh"]
    assert 'autocomplete="None"' not in page and 'autocomplete="new-password"' in page
