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
from web.core.models import ApiToken, Role, Submission, User
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


def test_the_api_refuses_the_submission_with_the_same_message(site, without_transformers):
    with services(site).sessions() as session:
        user = User(name="ann", role=Role.learner)
        user.set_password("password123")
        token, secret = ApiToken.issue(user)
        session.add_all([user, token])
        session.commit()
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
