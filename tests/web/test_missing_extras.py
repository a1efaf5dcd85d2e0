"""A site installed without an extra an exercise's hidden tests need (exercise 45: ``transformers``,
the ``models`` extra): the exercise is listed and marked, its page says in both languages that it
cannot be graded here and which extra the deployer must install, and a submission, by the page or
the API, is refused with that message and never stored (before, it was stored and graded to an
internal error on every case: the hidden suite's prepare() could not load the model)."""

from __future__ import annotations

import sys

import pytest
from sqlalchemy import func, select

from tests.web.site_client import csrf_token, sign_up
from tests.web.world import build_world
from web.core.models import ApiToken, Grading, Role, Submission, User
from web.services import services

CODE = "def tokens_for_mass(logits, temperature, mass):\n    return 1\n"


@pytest.fixture
def without_transformers(monkeypatch):
    """This process as if ``transformers`` were not installed: finding it and importing it fail."""
    monkeypatch.setitem(sys.modules, "transformers", None)


@pytest.fixture
def site(make_site):
    return make_site(start_workers=False)


def _submissions(app) -> int:
    with services(app).sessions() as session:
        return session.scalar(select(func.count()).select_from(Submission)) or 0


@pytest.mark.parametrize(("language", "says"), [
    ("en", "This site cannot grade this exercise: its hidden tests need <code>transformers</code>"),
    ("zh", "本站无法评测这道练习：它的隐藏测试需要 <code>transformers</code>"),
])
def test_the_page_says_which_extra_is_missing_and_the_submission_is_refused(site, without_transformers,
                                                                              language, says):
    client = site.test_client()
    assert sign_up(client, "ann", language=language).status_code == 302
    page = client.get("/exercises/45").get_data(as_text=True)
    assert says in page and "pip install &#39;probjudge[models]&#39;" in page
    assert 'disabled aria-describedby="not-gradable"' in page  # the Submit button
    assert 'id="download-button"' in page  # the code can still be taken away
    token = csrf_token(client, "/exercises/45")
    refused = client.post("/exercises/45/submit", data={"csrf_token": token, "code": CODE})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 400 and says in html and "tokens_for_mass" in html  # the code is kept
    assert _submissions(site) == 0


def test_the_list_still_shows_the_exercise_marked(site, without_transformers):
    html = site.test_client().get("/exercises/").get_data(as_text=True)
    row_45 = html[html.index('href="/exercises/45"'):]
    row_45 = row_45[:row_45.index("</tr>")]
    assert "not graded on this site" in row_45
    row_39 = html[html.index('href="/exercises/39"'):]
    assert "not graded on this site" not in row_39[:row_39.index("</tr>")]


def _api_secret(site) -> str:
    """The API secret of a new learner, ann."""
    with services(site).sessions() as session:
        user = User(name="ann", role=Role.learner)
        user.set_password("password123")
        token, secret = ApiToken.issue(user)
        session.add_all([user, token])
        session.commit()
    return secret


def test_the_api_refuses_the_submission_with_the_same_message(site, without_transformers):
    secret = _api_secret(site)
    response = site.test_client().post("/api/v1/submissions", headers={"Authorization": f"Bearer {secret}"},
                                       json={"exercise": "45", "code": CODE})
    assert response.status_code == 400 and "pip install 'probjudge[models]'" in response.json["message"]
    assert _submissions(site) == 0


def test_with_the_extra_installed_nothing_is_marked_or_refused(site):
    client = site.test_client()
    assert sign_up(client, "ann").status_code == 302
    assert 'id="not-gradable"' not in client.get("/exercises/45").get_data(as_text=True)
    assert "not graded on this site" not in client.get("/exercises/").get_data(as_text=True)
    token = csrf_token(client, "/exercises/45")
    assert client.post("/exercises/45/submit", data={"csrf_token": token, "code": CODE}).status_code == 302
    assert _submissions(site) == 1


def test_the_api_lists_the_exercise_as_not_gradable_and_says_why(site, without_transformers):
    secret = _api_secret(site)
    headers = {"Authorization": f"Bearer {secret}"}
    listed = {row["number"]: row for row in site.test_client().get("/api/v1/exercises", headers=headers).json["exercises"]}
    assert listed[39]["gradable"] is True and "not_gradable" not in listed[39]
    assert listed[45]["gradable"] is False and listed[45]["not_gradable"]["extra"] == "models"
    assert "pip install 'probjudge[models]'" in listed[45]["not_gradable"]["message"]["en"]
    assert "本站无法评测这道练习" in listed[45]["not_gradable"]["message"]["zh"]
    one = site.test_client().get("/api/v1/exercises/45", headers=headers).json
    assert one["gradable"] is False and one["not_gradable"] == listed[45]["not_gradable"]


# Rejudges on a site that cannot grade one of the course's exercises: exercise 39 of the course
# world stands for it (ungradable_here is this process's view of the extras; 45 is in no course).
@pytest.fixture
def thirty_nine_not_gradable(monkeypatch):
    from judge.extras import MissingExtra
    from web.teaching import rejudging

    monkeypatch.setattr(rejudging, "ungradable_here", lambda: {39: MissingExtra("transformers", "models")})


def _queued_rejudges(app) -> int:
    with services(app).sessions() as session:
        return session.scalar(select(func.count()).select_from(Grading).where(Grading.rejudge_id.is_not(None))) or 0


def test_a_rejudge_of_one_submission_is_refused_and_queues_nothing(thirty_nine_not_gradable, make_site):
    world = build_world(make_site(start_workers=False))
    client = world.client("instructor")
    submission = world.attempts["ann_39_wa"]
    token = csrf_token(client, f"/submissions/{submission}")
    refused = client.post(f"/submissions/{submission}/rejudge", data={"csrf_token": token}, follow_redirects=True)
    assert refused.request.path == f"/submissions/{submission}"
    assert "This site cannot grade this exercise" in refused.get_data(as_text=True)
    api = world.app.test_client().post(f"/api/v1/submissions/{submission}/rejudge", headers=world.headers("instructor"))
    assert api.status_code == 409 and "pip install 'probjudge[models]'" in api.json["message"]
    assert _queued_rejudges(world.app) == 0
    # Another exercise's submission is rejudged as ever.
    fine = world.app.test_client().post(f"/api/v1/submissions/{world.attempts['ann_1_late']}/rejudge",
                                        headers=world.headers("instructor"))
    assert fine.status_code == 202 and fine.json["queued"] == 1 and "not_gradable" not in fine.json


def test_a_course_rejudge_leaves_the_exercise_out_and_says_so(thirty_nine_not_gradable, make_site):
    world = build_world(make_site(start_workers=False))
    client = world.client("instructor")
    target = f"assignment:{world.assignment_id}"
    asked = client.get(f"/courses/{world.course_id}/rejudge/confirm?target={target}").get_data(as_text=True)
    assert 'id="rejudge-not-gradable"' in asked
    assert "Left out: 3 submissions of exercise 39. This site cannot grade that exercise" in asked
    assert 'data-submissions="2"' in asked  # the two counted attempts at 1, not the three at 39
    token = csrf_token(client, f"/courses/{world.course_id}/rejudge/confirm?target={target}")
    done = client.post(f"/courses/{world.course_id}/rejudge", data={"csrf_token": token, "target": target,
                                                                   "confirm": "y"}, follow_redirects=True)
    assert "2 gradings queued." in done.get_data(as_text=True)
    assert "Left out: 3 submissions of exercise 39." in done.get_data(as_text=True)
    api = world.app.test_client().post(f"/api/v1/courses/{world.course_id}/rejudge", json={"exercise": 39},
                                       headers=world.headers("instructor"))
    assert api.status_code == 202 and api.json["queued"] == 0
    assert api.json["not_gradable"] == {"submissions": 3, "exercises": [39]}
    with services(world.app).sessions() as session:
        rejudged = session.scalars(select(Grading).where(Grading.rejudge_id.is_not(None))).all()
        assert sorted(g.submission_id for g in rejudged) == sorted([world.attempts["ann_1_late"],
                                                                   world.attempts["bob_1_tle"]])
