"""Hostile input never gets a 500: every route is walked with numbers, ids, bodies and fields
that once crashed the site (or could), and must answer 400 or 404 with a clear message, storing
nothing. The route lists come from the app's URL map, so a new route is walked too.
"""

from __future__ import annotations

import io
import re
import time

import pytest
from flask_wtf.csrf import CSRFError
from site_client import build_url, csrf_token, rules, sign_in, sign_up
from sqlalchemy import func, select

from judge.exercises.exercise import resolve
from judge.exercises.folders import ExerciseError
from tests.web.world import ACCOUNT, api_token, route_world
from web.core import forms
from web.core.models import ApiToken, Submission
from web.core.validation import text_problem
from web.services import services

# Valid values for the route arguments a test is not attacking.
GOOD = {"identifier": "39", "code": "en"}


def _count(app, model) -> int:
    with services(app).sessions() as session:
        return session.scalar(select(func.count()).select_from(model))


def _signed_in(app, name: str = "ann"):
    """A client signed in as ``name``: signed up, or signed in where the account exists."""
    client = app.test_client()
    if sign_up(client, name).status_code != 302:
        assert sign_in(client, name).status_code == 302
    return client, csrf_token(client, "/profile/")


def _assert_json_error(response, status: int) -> None:
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    assert response.is_json and set(response.json) == {"error", "message"} and response.json["message"]


# --- route parameters ---------------------------------------------------------------------------

@pytest.mark.parametrize("number", [
    "99999999999999999999999",  # past SQLite's 64-bit integers
    str(2**63),
    str(2**31),                 # past PostgreSQL's INTEGER
    "9" * 5000,                 # past Python's int() conversion limit
    "٣",                        # a digit of another script (\d matched it)
])
def test_every_integer_route_parameter_past_the_database_is_a_404(make_site, number):
    app = make_site(start_workers=False)
    # Every integer parameter of the route (submission, token, course, assignment, user...) at once.
    walked = _every_route_answers_404(app, "<int:", lambda rule: build_url(
        rule, **GOOD, **{name: number for name in re.findall(r"<int:(\w+)>", rule.rule)}))
    assert walked >= 4  # the API's and the pages' submission routes, and revoking a token


def _every_route_answers_404(app, marker: str, url_of, form: dict | None = None) -> int:
    """Request every route whose rule holds ``marker``, with every method, signed in; all must be 404.

    API routes must answer JSON, with a message that does not echo a long value whole. Returns
    how many requests were made.
    """
    client, token = _signed_in(app)
    headers = api_token(app)
    walked = 0
    for rule in rules(app):
        if marker not in rule.rule:
            continue
        url = url_of(rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            if rule.rule.startswith("/api/"):
                response = client.open(url, method=method, headers=headers)
                _assert_json_error(response, 404)
                assert len(response.json["message"]) < 200  # the value is cut short, not echoed whole
            else:
                data = {"csrf_token": token, **(form or {})} if method == "POST" else None
                assert client.open(url, method=method, data=data).status_code == 404, (method, url[:80])
            walked += 1
    return walked


@pytest.mark.parametrize("identifier", ["²", "٣٩", "9" * 5000, "0000039", "%ED%A0%80", "39%00", "%00"])
def test_every_exercise_route_answers_404_for_an_id_that_names_nothing(make_site, identifier):
    app = make_site(start_workers=False)
    walked = _every_route_answers_404(app, "<identifier>", lambda rule: build_url(rule, identifier=identifier),
                                      form={"code": "x = 1\n"})
    assert walked >= 6
    assert _count(app, Submission) == 0


@pytest.mark.parametrize("identifier", ["²", "٣٩", "9" * 5000, "1" * 7])
def test_resolve_accepts_only_short_ascii_numbers(identifier):
    started = time.monotonic()
    with pytest.raises(ExerciseError, match="an exercise number is 1 to 6 digits 0-9"):
        resolve(identifier)
    assert time.monotonic() - started < 5
    assert resolve("039").number == resolve("39").number == 39


# --- JSON bodies ---------------------------------------------------------------------------------

NESTED = "[" * 200_000
HOSTILE_BODIES = {
    "nested arrays": (NESTED, 400),
    "nested objects": ('{"a":' * 40_000, 400),  # bodies stay under the size limit (256 KiB here): not a 413
    "nested inside a good object": ('{"exercise": "39", "code": "x = 1", "extra": ' + "[" * 100_000 + "]" * 100_000
                                    + "}", 400),
    "a list": ('[{"exercise": "39", "code": "x = 1"}]', 400),
    "a string": ('"x = 1"', 400),
    "a number": ("39", 400),
    "null": ("null", 400),
    "empty": ("", 400),
    "not JSON": ("exercise=39&code=x", 400),
    "not UTF-8": (b'{"exercise": "39", "code": "\xff\xfe"}', 400),
    "a 5000-digit number": ('{"exercise": ' + "9" * 5000 + ', "code": "x = 1"}', 400),
    "a lone surrogate in the code": ('{"exercise": "39", "code": "x = \\ud800"}', 400),
    "a lone surrogate in the exercise": ('{"exercise": "\\udfff", "code": "x = 1"}', 400),
    "a lone surrogate in a key": ('{"exercise": "39", "code": "x = 1", "\\ud800": 1}', 400),
    "a lone surrogate deep inside": ('{"exercise": "39", "code": "x = 1", "extra": [{"a": ["\\ud83d"]}]}', 400),
    "a NUL in the code": ('{"exercise": "39", "code": "x = 1\\u0000"}', 400),
    "a NUL in the exercise": ('{"exercise": "39\\u0000", "code": "x = 1"}', 400),
    "code missing": ('{"exercise": "39"}', 400),
    "exercise missing": ('{"code": "x = 1"}', 400),
    "code a number": ('{"exercise": "39", "code": 1}', 400),
    "exercise true": ('{"exercise": true, "code": "x = 1"}', 400),
    "exercise a float": ('{"exercise": 39.0, "code": "x = 1"}', 400),
    "exercise null": ('{"exercise": null, "code": "x = 1"}', 400),
    "exercise superscript two": ('{"exercise": "\\u00b2", "code": "x = 1"}', 404),
    "exercise of 5000 digits": ('{"exercise": "' + "9" * 5000 + '", "code": "x = 1"}', 404),
    # Escaped quotes after deep brackets: quadratic for a scanner that skips strings by backtracking
    # (it held the GIL, so every request of the site, for minutes).
    "escaped quotes after 40 brackets": ("[" * 40 + '"' + '\\"' * 100_000, 400),
    "escaped quotes inside a string": ('{"exercise": "39", "code": "' + "[" * 40 + '\\"' * 30_000 + '"}', 202),
}


# Bodies that are not a usable JSON object at all: every POST route of the API refuses them.
STRUCTURAL = {"nested arrays", "nested objects", "nested inside a good object", "a list", "a string", "a number",
              "null", "empty", "not JSON", "not UTF-8", "a 5000-digit number", "a lone surrogate in the code",
              "a lone surrogate in the exercise", "a lone surrogate in a key", "a lone surrogate deep inside",
              "a NUL in the code", "a NUL in the exercise", "escaped quotes after 40 brackets"}
# Routes that need no body: an empty one is a request like any other (anything else is checked).
BODYLESS = {"/api/v1/submissions/<int:submission_id>/rejudge", "/api/v1/invitations/<int:invitation_id>/accept",
            "/api/v1/invitations/<int:invitation_id>/decline",
            "/api/v1/courses/<int:course_id>/invitations/<int:invitation_id>/withdraw",
            "/api/v1/courses/<int:course_id>/lti/roster-sync"}


def _stored(app) -> dict:
    from web.core.models import Assignment, Course, Grading, Membership, Override, Rejudge

    return {model.__name__: _count(app, model) for model in (Submission, Grading, Course, Membership, Assignment,
                                                             Override, Rejudge)}


@pytest.mark.parametrize("kind", list(HOSTILE_BODIES))
# SQLite only (docs/testing.md): the body is refused before any query; the count of rows is the same on both.
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_every_api_post_answers_hostile_json_with_a_json_error_and_stores_nothing(make_site, kind):
    """Sent by the site admin (who may use every route) to real ids: the body is what fails."""
    world = route_world(make_site(start_workers=False))
    app, headers = world.app, world.headers("admin")
    body, status = HOSTILE_BODIES[kind]
    posts = rules(app, api=True, method="POST")
    assert len(posts) >= 8
    before = _stored(app)
    for rule in posts:
        if rule.rule != "/api/v1/submissions" and (kind not in STRUCTURAL or (kind == "empty" and rule.rule in BODYLESS)):
            continue  # the case is about a submission's fields, or the route takes no body
        started = time.monotonic()
        response = app.test_client().post(build_url(rule, **world.values), headers=headers, data=body,
                                          content_type="application/json")
        assert time.monotonic() - started < 30, "a hang detector: the body is checked in one linear pass"
        if status == 202:
            assert response.status_code == 202, response.get_data(as_text=True)[:300]
            continue
        _assert_json_error(response, status)
    after = _stored(app)
    if status == 202:
        after["Submission"] -= 1
        after["Grading"] -= 1
    assert after == before


@pytest.mark.parametrize("content_type, data", [
    ("application/x-www-form-urlencoded", {"exercise": "39", "code": "x = 1"}),
    ("multipart/form-data", {"exercise": "39", "code": (io.BytesIO(b"x = 1"), "code.py")}),
    ("text/plain", '{"exercise": "39", "code": "x = 1"}'),
    ("multipart/form-data", b"no boundary"),
])
def test_every_api_post_answers_a_body_that_is_not_json_with_a_400(make_site, content_type, data):
    world = route_world(make_site(start_workers=False))
    before = _stored(world.app)
    for rule in rules(world.app, api=True, method="POST"):
        sent = {k: (io.BytesIO(v[0].getvalue()), v[1]) if isinstance(v, tuple) else v for k, v in data.items()} \
            if isinstance(data, dict) else data
        response = world.app.test_client().post(build_url(rule, **world.values), headers=world.headers("admin"),
                                                data=sent, content_type=content_type)
        _assert_json_error(response, 400)
        assert "Content-Type: application/json" in response.json["message"], rule.rule
    assert _stored(world.app) == before


def test_a_refused_text_is_explained_in_both_languages(make_site):
    problem = text_problem("ok\nx = '\ud800'")
    assert "Line 2, column 6" in problem and "U+D800" in problem
    assert "第 2 行第 6 列" in problem.zh and "U+D800" in problem.zh
    assert "U+0000" in text_problem("\x00") and "NUL" in text_problem("\x00").zh
    assert text_problem("plain text, 中文, emoji 🎲") is None
    app = make_site(start_workers=False)
    response = app.test_client().post("/api/v1/submissions", headers=api_token(app),
                                      data='{"exercise": "39", "code": "x = \\ud800"}', content_type="application/json")
    assert response.json["message"].startswith('"code": Line 1, column 5: an invalid character')
    client, token = _signed_in(app)
    zh = client.post("/exercises/39/submit?lang=zh", data={"csrf_token": token, "code": "x = 1\x00"})
    assert zh.status_code == 400 and "NUL 字符（U+0000），本站无法保存" in zh.get_data(as_text=True)


# --- form fields ---------------------------------------------------------------------------------

# Every form POST of the pages: who sends it (a visitor, the course world's learner "ann" or its
# instructor "teach_a") and a valid body; "{name}" fields take the world's ids (see tests/web/world.py).
ASSIGNMENT_FORM = {"title": "Week 2", "exercises": "{exercise_id}", "opens_at": "2027-03-01T09:00",
                   "due_at": "2027-03-08T23:59", "late_policy": "flagged", "penalty_percent": "0",
                   "visibility_before": "rule", "visibility_after": "rule"}
PAGE_FORMS = {
    "auth.sign_up": ("visitor", {"name": "zed", "password": "password123", "confirm": "password123",
                                 "language": "en"}),
    "auth.sign_in": ("visitor", {"name": "ann", "password": "password123"}),
    "auth.sign_out": ("learner", {}),
    "exercises.submit": ("learner", {"code": "x = 1\n"}),
    "exercises.download": ("learner", {"code": "x = 1\n"}),
    "profile.create_token": ("learner", {"label": "laptop"}),
    "profile.revoke_token": ("learner", {}),
    "profile.set_language": ("learner", {}),
    "profile.set_password": ("learner", {"current_password": "password123", "new_password": "password456",
                                         "new_password_again": "password456"}),
    "courses.create": ("teacher", {"name": "Sampling 102", "time_zone": "UTC"}),
    "courses.join_course": ("learner", {"join_code": "ABCD2345"}),
    "courses.add_course_instructor": ("teacher", {"name": "otto"}),
    "courses.upload_roster": ("teacher", {"roster": "otto\n"}),
    "courses.new_assignment": ("teacher", ASSIGNMENT_FORM),
    "courses.edit_assignment": ("teacher", ASSIGNMENT_FORM),
    "courses.extend": ("teacher", {"learner": "{user_id}", "due_at": "2099-02-01T00:00"}),
    "submissions.rejudge": ("teacher", {}),
    "gradebook.cell_page": ("teacher", {"score_percent": "90", "comment": "regraded by hand"}),
    "rejudges.rejudge_in_course": ("teacher", {"target": "exercise:39"}),
    "similarity.index": ("teacher", {"scope": "exercise:39", "threshold": "0.5"}),
    # Buttons: a CSRF token (and, where something is taken away, a ticked box, which holds no text).
    "courses.accept_invitation": ("learner", {}),
    "courses.decline_invitation": ("learner", {}),
    "courses.withdraw_invitation": ("teacher", {}),
    "courses.remove_course_member": ("teacher", {}),
    "courses.leave": ("learner", {}),
    "courses.new_code": ("teacher", {}),
    "courses.withdraw_course_extension": ("teacher", {}),
    "gradebook.withdraw_cell_override": ("teacher", {}),
    "admin.revoke": ("teacher", {}),
    "lti.pick": ("teacher", {"item": "e:softmax"}),
    "lti.admin": ("admin", {"name": "LMS", "issuer": "https://lms.test", "client_id": "c1", "deployment_id": "d1",
                            "auth_login_url": "https://lms.test/auth", "auth_token_url": "https://lms.test/token",
                            "key_set_url": "https://lms.test/jwks", "auth_audience": ""}),
    "lti_roster.sync_course_roster": ("teacher", {}),
}
# The LMS posts these from its own page (web/lms/pages.py): the OIDC state, the nonce and the
# platform's signature protect them, not our CSRF token; tests/web/test_lti_launch.py attacks them.
CSRF_EXEMPT = {"lti.login", "lti.launch"}
FIELDS = [(endpoint, field) for endpoint, (_, data) in PAGE_FORMS.items() for field in [*data, "csrf_token"]]


def test_the_form_table_covers_every_page_post(make_site):
    app = make_site(start_workers=False)
    assert {rule.endpoint for rule in rules(app, api=False, method="POST")} == set(PAGE_FORMS) | CSRF_EXEMPT


def test_every_form_is_a_site_form(make_site):
    """SiteForm reads only form fields and checks every text: each form of the site must inherit it."""
    make_site(start_workers=False)  # imports every page module

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    classes = [cls for cls in subclasses(forms.FlaskForm) if cls.__module__.startswith("web.")]
    assert len(classes) >= 12
    assert [cls.__name__ for cls in classes if not issubclass(cls, forms.SiteForm)] == []


def test_every_page_post_from_a_visitor_is_sent_to_sign_in_or_answered(make_site):
    """Signed out, with a valid CSRF token: the rate-limit keys and views must not assume a user."""
    app = make_site(start_workers=False)
    for rule in rules(app, api=False, method="POST"):
        client = app.test_client()
        if rule.endpoint in CSRF_EXEMPT:  # no user to assume: a visitor is who posts them
            assert client.post(build_url(rule), data={"state": "x"}).status_code == 400, rule.rule
            continue
        _, data = PAGE_FORMS[rule.endpoint]
        data = {**data, "csrf_token": csrf_token(client, "/auth/sign-in")}
        response = client.post(build_url(rule, default=1, **GOOD, token_id=1), data=data)
        assert response.status_code in (200, 302, 401), (rule.rule, response.status_code)
        if rule.endpoint not in ("auth.sign_up", "auth.sign_in", "exercises.download"):
            assert response.location.startswith("/auth/sign-in"), rule.rule


def _form_request(make_site, endpoint: str):
    """A client in the right state for ``endpoint``, its URL, a valid body (CSRF token included), the app."""
    world = route_world(make_site(start_workers=False))
    app = world.app
    with services(app).sessions() as session:
        from web.core.models import Exercise

        values = {**world.values, "exercise_id": session.scalar(select(Exercise.id).where(Exercise.number == 1))}
    who, data = PAGE_FORMS[endpoint]
    client, token = _signed_in(app, ACCOUNT[{"teacher": "instructor", "admin": "admin"}.get(who, "learner")])
    if who == "visitor":
        client = app.test_client()
        token = csrf_token(client, "/auth/sign-in")
    rule = next(r for r in rules(app, api=False, method="POST") if r.endpoint == endpoint)
    token_id = _a_token_id(app, client, token) if endpoint == "profile.revoke_token" else world.values["token_id"]
    url = build_url(rule, **{**values, "token_id": token_id})
    body = {key: value.format(**values) for key, value in data.items()}
    return client, url, {**body, "csrf_token": token}, app


def _a_token_id(app, client, token: str) -> int:
    client.post("/profile/tokens", data={"csrf_token": token, "label": "to revoke"})
    with services(app).sessions() as session:
        return session.scalar(select(func.max(ApiToken.id)))


def _every_row(app) -> dict:
    """Every row of every table of the site's database (to see that a refused request stored nothing)."""
    from web.core.models import Base

    with services(app).sessions() as session:
        return {table.name: sorted(map(repr, session.execute(select(table)).all()))
                for table in Base.metadata.sorted_tables}


# SQLite only (docs/testing.md): the CSRF check runs before the view and its queries.
@pytest.mark.parametrize("database_backend", ["sqlite"])
@pytest.mark.parametrize("endpoint", sorted(PAGE_FORMS))
def test_every_page_post_without_a_valid_csrf_token_is_refused_and_stores_nothing(make_site, monkeypatch, endpoint):
    """Each form POST of the pages (PAGE_FORMS covers them all, see above), with a body that
    would otherwise be accepted: no token, or a token of another session, is the CSRF check's
    400 and changes no row; the same body with the right token passes that check."""
    from web.core.extensions import csrf

    client, url, data, app = _form_request(make_site, endpoint)
    refusals = []

    def refuse(reason):
        refusals.append(reason)
        raise CSRFError(reason)

    monkeypatch.setattr(csrf, "_error_response", refuse)
    foreign = csrf_token(app.test_client(), "/auth/sign-in")
    before = _every_row(app)
    without = {key: value for key, value in data.items() if key != "csrf_token"}
    for body, reason in ((without, "The CSRF token is missing."),
                         ({**data, "csrf_token": foreign}, "The CSRF tokens do not match."),
                         ({**data, "csrf_token": data["csrf_token"][:-2]}, "The CSRF token is invalid.")):
        response = client.post(url, data=body)
        assert (response.status_code, refusals) == (400, [reason]), (endpoint, response.status_code, refusals)
        refusals.clear()
        assert _every_row(app) == before, endpoint
    response = client.post(url, data=data)  # the positive control: the right token passes
    assert response.status_code < 500 and refusals == [], (endpoint, response.status_code, refusals)


# SQLite only (docs/testing.md): the forms refuse before anything is stored, which the SQLite run proves.
@pytest.mark.parametrize("database_backend", ["sqlite"])
@pytest.mark.parametrize("endpoint, field", FIELDS)
def test_every_form_field_refuses_a_nul_with_a_400(make_site, endpoint, field):
    client, url, data, app = _form_request(make_site, endpoint)
    data[field] = data[field] + "\x00" if data.get(field) else "\x00"
    response = client.post(url, data=data)
    assert response.status_code == 400, (endpoint, field, response.status_code)
    assert _count(app, Submission) == 2  # the course world's two
    if endpoint == "exercises.submit" and field == "code":
        html = response.get_data(as_text=True)
        assert "x = 1\n\x00" in html and "a NUL character (U+0000)" in html  # the code is shown back


# SQLite only (docs/testing.md): form parsing, before any query; about 2 minutes of test time per backend.
@pytest.mark.parametrize("database_backend", ["sqlite"])
@pytest.mark.parametrize("endpoint, field", FIELDS)
@pytest.mark.parametrize("kind", ["a file", "a JSON body"])
def test_every_form_field_sent_as_a_file_or_json_is_never_a_500(make_site, endpoint, field, kind):
    """Forms read form fields only: a file or a JSON body (with the CSRF header) is as good as missing."""
    client, url, data, _ = _form_request(make_site, endpoint)
    if kind == "a file":
        data[field] = (io.BytesIO(b"\x00\xff" * 10), "field.bin")
        response = client.post(url, data=data, content_type="multipart/form-data")
    else:
        response = client.post(url, data=NESTED if field == "csrf_token" else '{"%s": {"a": [1]}}' % field,
                               content_type="application/json", headers={"X-CSRFToken": data["csrf_token"]})
    assert response.status_code < 500, (endpoint, field, response.status_code)


@pytest.mark.parametrize("arguments", [
    ["create-user", "\udcff", "--password", "password123"],      # undecodable bytes in argv arrive as surrogates
    ["create-user", "zed\x00", "--password", "password123"],
    ["create-user", "zed", "--password", "pass\udcffword"],
    ["set-password", "\udcff", "--password", "password123"],
    ["set-password", "ann", "--password", "pass\udcffword"],
    ["set-password", "ann", "--password", "pass\x00word"],
])
def test_the_web_command_refuses_text_it_cannot_store_with_a_message(make_site, monkeypatch, capsys, arguments):
    from web.__main__ import main as web_command

    app = make_site(start_workers=False)
    sign_up(app.test_client(), "ann")
    monkeypatch.setenv("DATABASE_URL", services(app).settings.database_url)
    monkeypatch.setenv("SECRET_KEY", "test")
    assert web_command(arguments) == 2
    assert capsys.readouterr().err.startswith("error: ")


# --- the "next" parameter of the sign-in and sign-up pages ---------------------------------------

@pytest.mark.parametrize("target", ["//[", "http://[::1", "http://[", "/[", "//evil.example", "/\\evil.example",
                                    "https://evil.example/", "/%0d%0aSet-Cookie:x=1", "\x00", "/exercises/39"])
def test_the_next_parameter_is_never_a_500_and_never_leaves_the_site(make_site, target):
    app = make_site(start_workers=False)
    client = app.test_client()
    response = sign_up(client, "ann", next_url=target)
    assert response.status_code == 302, response.status_code
    assert response.headers["Location"].startswith("/"), response.headers["Location"]
    assert not response.headers["Location"].startswith("//")
    again = client.get("/auth/sign-in", query_string={"next": target})  # signed in: straight to next
    assert again.status_code == 302 and again.headers["Location"].startswith("/")
    assert not again.headers["Location"].startswith("//")
