"""The JSON API with Flask's test client: auth, exercises, submitting and polling, errors."""

from __future__ import annotations

import re
import time

import pytest
from sqlalchemy import select

from judge.exercises.exercise import resolve
from web.core.models import ApiToken, Role, User
from web.services import services

EXERCISE = resolve("39")


@pytest.fixture
def app(make_site):
    app = make_site()
    sessions = services(app).sessions
    tokens = {}
    with sessions() as session:
        for name, role in (("ann", Role.learner), ("ben", Role.learner), ("ida", Role.admin)):
            user = User(name=name, role=role)
            user.set_password("password123")
            token, secret = ApiToken.issue(user)
            session.add_all([user, token])
            tokens[name] = secret
        session.commit()
    app.config["TOKENS"] = tokens
    return app


def auth(app, name):
    return {"Authorization": f"Bearer {app.config['TOKENS'][name]}"}


def test_requests_without_a_valid_token_are_401_json(app):
    client = app.test_client()
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}):
        response = client.get("/api/v1/exercises", headers=headers)
        assert response.status_code == 401 and response.is_json and response.json["message"]


def test_exercises_by_number_or_slug(app):
    client = app.test_client()
    listing = client.get("/api/v1/exercises", headers=auth(app, "ann")).json["exercises"]
    by_number = {e["number"]: e for e in listing}  # any number of exercises; 39 among them
    assert 39 in by_number and by_number[39]["title"]["zh"].startswith("温度")
    for identifier in ("39", "039", "sampling", "039-sampling"):
        assert client.get(f"/api/v1/exercises/{identifier}", headers=auth(app, "ann")).json["slug"] == "sampling"
    missing = client.get("/api/v1/exercises/77", headers=auth(app, "ann"))
    assert missing.status_code == 404 and "77" in missing.json["message"]


def test_submit_then_poll_until_the_verdict(app):
    client = app.test_client()
    created = client.post("/api/v1/submissions", headers=auth(app, "ann"),
                          json={"exercise": "39", "code": EXERCISE.reference_path.read_text()})
    assert created.status_code == 202 and created.json["status"] == "queued"
    url = f"/api/v1/submissions/{created.json['id']}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = client.get(url, headers=auth(app, "ann")).json
        if body["status"] == "done":
            break
        assert body["status"] in ("queued", "running") and body["verdict"] is None
        time.sleep(0.2)
    assert body["verdict"] == "AC" and body["exercise"] == 39 and body["cases"]
    hidden = [c for c in body["cases"] if c["suite"] == "hidden"]
    assert hidden and all("seed" not in c and all("label" not in k for k in c["checks"]) for c in hidden)
    # Another learner cannot see it; an instructor can.
    assert client.get(url, headers=auth(app, "ben")).status_code == 404
    assert client.get(url, headers=auth(app, "ida")).json["verdict"] == "AC"


def test_a_get_that_waits_answers_with_the_verdict(app):
    """``?wait=S`` holds the answer until the verdict is in: one GET instead of a polling loop."""
    client = app.test_client()
    created = client.post("/api/v1/submissions", headers=auth(app, "ann"),
                          json={"exercise": "39", "code": EXERCISE.reference_path.read_text()})
    url = f"/api/v1/submissions/{created.json['id']}"
    body = client.get(url + "?wait=30", headers=auth(app, "ann")).json
    for _ in range(5):  # a slow machine: each wait ends by 30 s at the latest
        if body["status"] == "done":
            break
        body = client.get(url + "?wait=30", headers=auth(app, "ann")).json
    assert body["status"] == "done" and body["verdict"] == "AC" and body["cases"]
    # Waiting reveals nothing about others' submissions: the same 404, at once.
    assert client.get(url + "?wait=30", headers=auth(app, "ben")).status_code == 404


@pytest.mark.parametrize("wait", ["abc", "-1", "30.5", "nan", "inf", ""])
def test_a_bad_wait_is_a_clear_400(app, wait):
    client = app.test_client()
    created = client.post("/api/v1/submissions", headers=auth(app, "ann"), json={"exercise": "39", "code": "x = 1"})
    response = client.get(f"/api/v1/submissions/{created.json['id']}?wait={wait}", headers=auth(app, "ann"))
    assert response.status_code == 400 and "wait must be a number of seconds from 0 to 30" in response.json["message"]


@pytest.mark.parametrize("body, status, fragment", [
    ("not json", 400, "JSON object"),
    ({"exercise": "39"}, 400, '"code"'),
    ({"exercise": "77", "code": "x = 1"}, 404, "no exercise"),
    ({"exercise": "39", "code": "   "}, 400, "empty"),
    ({"exercise": "39", "code": "x" * (64 * 1024 + 1)}, 400, "the limit is 65536 bytes"),
])
def test_bad_submissions_get_clear_json_errors(app, body, status, fragment):
    client = app.test_client()
    if isinstance(body, str):
        response = client.post("/api/v1/submissions", headers=auth(app, "ann"), data=body,
                               content_type="application/json")
    else:
        response = client.post("/api/v1/submissions", headers=auth(app, "ann"), json=body)
    assert response.status_code == status and fragment in response.json["message"]
    sessions = services(app).sessions
    with sessions() as session:
        assert session.scalars(select(User)).all()  # nothing else was stored


# SQLite only (docs/testing.md): the CLI over HTTP; submitting through the API runs on both backends above.
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_the_cli_submit_command_waits_for_the_verdict(app, project_root):
    import json
    import subprocess
    import sys
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        base = [sys.executable, "practice/judge.py", "submit", "39"]
        wrong = subprocess.run(base + ["solutions/039-sampling/wrong/top_k_plus_one.py", "--server", url,
                                       "--token", app.config["TOKENS"]["ann"]],
                               cwd=project_root, capture_output=True, text=True, timeout=300)
        assert wrong.returncode == 1, wrong.stderr
        assert "WA" in wrong.stdout and "top-k keeps one token too many" in wrong.stdout
        # The submission's page, to open in a browser: the last line, the site's own route for it.
        page = re.search(r"This submission on the site: (\S+)$", wrong.stdout.strip())
        assert page is not None, wrong.stdout
        submission_id = int(page[1].rsplit("/", 1)[1])
        assert page[1] == f"{url}/submissions/{submission_id}"
        assert app.url_map.bind("127.0.0.1").match(f"/submissions/{submission_id}")[0] == "submissions.show"
        refused = subprocess.run(base + ["solutions/039-sampling/reference.py", "--server", url, "--token", "bad"],
                                 cwd=project_root, capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2 and "401" in refused.stderr
        token = ["--server", url, "--token", app.config["TOKENS"]["ann"]]
        # --course: a course the learner may not submit for is the server's 400, said plainly.
        foreign = subprocess.run(base + ["solutions/039-sampling/reference.py", "--course", "999999", *token],
                                 cwd=project_root, capture_output=True, text=True, timeout=60)
        assert foreign.returncode == 2 and "400" in foreign.stderr, foreign.stderr
        practice = subprocess.run(base + ["solutions/039-sampling/reference.py", "--course", "practice", "--json",
                                          *token], cwd=project_root, capture_output=True, text=True, timeout=300)
        assert practice.returncode == 0, practice.stderr
        answer = json.loads(practice.stdout)
        assert answer["course_id"] is None and answer["url"] == f"{url}/submissions/{answer['id']}"
        typo = subprocess.run(base + ["solutions/039-sampling/reference.py", "--course", "first", *token],
                              cwd=project_root, capture_output=True, text=True, timeout=60)
        assert typo.returncode == 2 and "neither a course id nor 'practice'" in typo.stderr
    finally:
        server.shutdown()


def test_the_openapi_file_describes_every_api_route(app, project_root):
    import json

    spec = json.loads((project_root / "docs" / "openapi.json").read_text())
    documented = {(path, method.upper()) for path, item in spec["paths"].items() for method in item}
    served = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/"):
            # Flask's <int:course_id> and <identifier> are OpenAPI's {course_id} and {identifier}.
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule.removeprefix("/api/v1"))
            served |= {(path, method) for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert served == documented


def test_submitting_through_the_api_is_rate_limited_with_a_json_error(app):
    services(app).queue.stop()  # nothing needs grading here
    services(app).queue.max_queued_per_user = 1000
    client = app.test_client()
    answers = [client.post("/api/v1/submissions", headers=auth(app, "ben"), json={"exercise": "39", "code": "x = 1"})
               for _ in range(21)]
    assert [a.status_code for a in answers[:20]] == [202] * 20
    assert answers[20].status_code == 429 and answers[20].is_json
    assert "at most 20 a minute" in answers[20].json["message"]
