"""Every exercise of the packs, through the site: listed, shown in both languages, graded AC for its
reference, rejected with its diagnosis for a known mistake, and offered to the browser with its
public files only. A new exercise is covered the day it lands, with nothing to add here."""

from __future__ import annotations

import re

import pytest
from markupsafe import escape as html_escape
from site_client import sign_up, stop_site, submit, wait_for_result

from judge.authoring.catalogue import parse_wrong_solution
from judge.exercises.exercise import load_all

EXERCISES = load_all()
# SQLite only (docs/testing.md): the exercises through the site, a minute and a half per backend;
# the pages and the grading they use run on PostgreSQL in test_pages.py and test_api.py.
pytestmark = pytest.mark.parametrize("database_backend", ["sqlite"], scope="module")


@pytest.fixture(scope="module")
def site(module_databases):
    """One site for the module (its grading worker stays warm across the exercises, and so do its
    learner processes: each is forked from one fork server, not started afresh)."""
    from judge.sandbox.launchers import WarmLocalLauncher
    from web.app import create_app
    from web.core.config import Settings

    settings = Settings(
        database_url=module_databases.new(),
        secret_key="test",
        workers=1,
        sandbox="local",
        max_code_bytes=64 * 1024,
        # One account submits a reference and a mistake per exercise, seconds apart: more than the
        # site's 20 per minute once there are over ten exercises, and rate limits are not this test's
        # subject (test_api.py's test_submitting_through_the_api_is_rate_limited... pins the limit).
        rate_limits=False,
    )
    launcher = WarmLocalLauncher()
    app = create_app(settings, launcher=launcher, start_workers=True)
    client = app.test_client()
    sign_up(client, "every")
    yield app, client
    stop_site(app)
    launcher.close()


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_the_site_lists_shows_and_grades_the_exercise(site, exercise):
    _, client = site
    for lang in ("en", "zh"):
        listing = client.get(f"/exercises/?lang={lang}").get_data(as_text=True)
        assert str(html_escape(exercise.title(lang))) in listing
        page = client.get(f"/exercises/{exercise.number}?lang={lang}")
        assert page.status_code == 200 and str(html_escape(exercise.title(lang))) in page.get_data(as_text=True)

    client.get("/exercises/?lang=en")  # the verdicts below are read in English
    reference = exercise.reference_path.read_text(encoding="utf-8")
    html = wait_for_result(client, submit(client, reference, str(exercise.number)).location)
    assert 'class="verdict v-AC"' in html, html[:2000]

    wrong = parse_wrong_solution(exercise.wrong_solutions()[0])
    html = wait_for_result(client, submit(client, wrong.path.read_text(encoding="utf-8"), str(exercise.number)).location)
    overall = re.search(r'class="verdict v-(\w+)"', html)  # the first badge: the submission's verdict
    assert overall and overall.group(1) != "AC", html[:2000]
    assert str(html_escape(str(wrong.diagnosis).rstrip("."))) in html


@pytest.mark.parametrize("exercise", [e for e in EXERCISES if "browser" in e.runs_in], ids=lambda e: e.folder)
def test_the_browser_gets_the_public_files_and_never_a_hidden_one(site, exercise):
    _, client = site
    response = client.get(f"/browser/exercises/{exercise.number}/files.json")
    assert response.status_code == 200
    names = set(response.get_json())
    expected = {"exercise.toml"} | {path.relative_to(exercise.root).as_posix() for path in exercise.public_files()}
    assert names == expected
    assert all(name == "exercise.toml" or name.startswith("tests/public/") for name in names)
