"""An exercise's history page: the learner's attempts, newest first, one bounded page at a time."""

from __future__ import annotations

import re

from sqlalchemy import select

from tests.web.site_client import sign_in
from tests.web.test_course_api import people_site
from web.core.models import Exercise, Grading, Status, Submission, User
from web.learning.exercise_pages import HISTORY_PER_PAGE
from web.services import services


def _listed(page: str) -> list[int]:
    return [int(found) for found in re.findall(r'href="/submissions/(\d+)">#', page)]


def test_the_history_shows_one_page_of_attempts_at_a_time(make_site):
    site = people_site(make_site)
    count = HISTORY_PER_PAGE + 7
    with services(site).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        made = [Submission(user=ann, exercise=exercise, code=f"x = {i}\n", gradings=[Grading(status=Status.queued)])
                for i in range(count)]
        session.add_all(made)
        session.commit()
        ids = sorted((submission.id for submission in made), reverse=True)
    client = site.test_client()
    assert sign_in(client, "ann").status_code == 302
    first = client.get("/exercises/39/submissions").get_data(as_text=True)
    assert _listed(first) == ids[:HISTORY_PER_PAGE] and 'rel="next"' in first and "Page 1 of 2" in first
    second = client.get("/exercises/39/submissions?page=2").get_data(as_text=True)
    assert _listed(second) == ids[HISTORY_PER_PAGE:] and 'rel="prev"' in second and 'rel="next"' not in second
    assert _listed(client.get("/exercises/39/submissions?page=99").get_data(as_text=True)) == ids[HISTORY_PER_PAGE:]
    for bad in ("0", "-1", "two", "1" * 12):
        response = client.get(f"/exercises/39/submissions?page={bad}")
        assert response.status_code == 400, bad
