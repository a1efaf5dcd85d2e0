"""The server-rendered pages through Flask's test client: accounts, exercises, submissions, profile."""

from __future__ import annotations

import re
import subprocess
import sys
from html import unescape as html_unescape

import pytest
from markupsafe import escape as html_escape
from site_client import csrf_token, sign_in, sign_up, submit, wait_for_result
from sqlalchemy import select

from judge.exercises.exercise import resolve
from web.core.models import ApiToken, Role, Submission, User
from web.core.texts import TEXTS
from web.services import services

EXERCISE = resolve("39")
REFERENCE = EXERCISE.reference_path.read_text()
WRONG_TOP_K = (EXERCISE.root.parents[1] / "solutions" / "039-sampling" / "wrong" / "top_k_plus_one.py").read_text()


def add_user(app, name: str, role: Role = Role.learner, password: str = "password123") -> None:
    with services(app).sessions() as session:
        user = User(name=name, role=role)
        user.set_password(password)
        session.add(user)
        session.commit()


# --- texts ------------------------------------------------------------------------------------

def test_every_text_exists_in_both_languages_with_the_same_fields():
    fields = re.compile(r"\{(\w+)")
    for key, (en, zh) in TEXTS.items():
        assert en.strip() and zh.strip(), key
        assert re.search(r"[\u4e00-\u9fff]", zh), f"{key}: the Chinese text has no Chinese"
        assert sorted(fields.findall(en)) == sorted(fields.findall(zh)), key


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_renders_in_both_languages(make_site, lang):
    app = make_site()
    client = app.test_client()
    for url in ("/", "/exercises/", "/exercises/39", "/exercises/sampling", "/auth/sign-up", "/auth/sign-in"):
        response = client.get(f"{url}?lang={lang}")
        assert response.status_code == 200, url
        html = response.get_data(as_text=True)
        assert f'<html lang="{"zh-CN" if lang == "zh" else "en"}">' in html
        assert TEXTS["exercises"][1 if lang == "zh" else 0] in html
    assert sign_up(client, "ann").status_code == 302
    submission = submit(client, REFERENCE).location
    wait_for_result(client, submission)
    for url in ("/profile/", "/exercises/39/submissions", submission, submission + "/result"):
        assert client.get(f"{url}?lang={lang}").status_code == 200, url
    missing = client.get(f"/exercises/77?lang={lang}")
    assert missing.status_code == 404 and TEXTS["error_404"][1 if lang == "zh" else 0] in missing.get_data(as_text=True)


def test_the_language_comes_from_the_cookie_then_the_browser(make_site):
    client = make_site().test_client()
    assert "登录" in client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"}).get_data(as_text=True)
    assert "Sign in" in client.get("/", headers={"Accept-Language": "en-US"}).get_data(as_text=True)
    client.get("/?lang=zh")  # sets the cookie
    assert "登录" in client.get("/", headers={"Accept-Language": "en-US"}).get_data(as_text=True)


# --- accounts ---------------------------------------------------------------------------------

def test_sign_up_validates_and_stores_a_hashed_password(make_site):
    app = make_site()
    client = app.test_client()
    no_token = client.post("/auth/sign-up", data={"name": "ann", "password": "password123",
                                                  "confirm": "password123", "language": "en"})
    assert no_token.status_code == 400  # CSRF
    for name, password, confirm, expected in (("a b", "password123", "password123", "letters, digits"),
                                              ("ann", "short", "short", "at least 8"),
                                              ("ann", "password123", "password124", "differ")):
        token = csrf_token(client, "/auth/sign-up")
        response = client.post("/auth/sign-up", data={"csrf_token": token, "name": name, "password": password,
                                                      "confirm": confirm, "language": "en"})
        assert response.status_code == 400 and expected in response.get_data(as_text=True)
    assert sign_up(client, "ann", language="zh").status_code == 302
    with services(app).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        assert ann.role is Role.learner and ann.language == "zh" and "password123" not in ann.password_hash
    other = app.test_client()
    taken = sign_up(other, "ann")
    assert taken.status_code == 400 and "taken" in taken.get_data(as_text=True)


def test_sign_in_and_out(make_site):
    app = make_site()
    add_user(app, "ann")
    client = app.test_client()
    for name, password in (("ann", "wrong-password"), ("nobody", "password123")):
        failed = sign_in(client, name, password)
        assert failed.status_code == 401 and "Wrong user name or password" in failed.get_data(as_text=True)
    assert client.get("/profile/").status_code == 302  # not signed in: sent to the sign-in page
    assert sign_in(client, "ann", next_url="/profile/").location == "/profile/"
    assert client.get("/profile/").status_code == 200
    # Sign-out is a POST with a CSRF token; a GET or a token-less POST does nothing.
    assert client.get("/auth/sign-out").status_code == 405
    assert client.post("/auth/sign-out").status_code == 400
    client.post("/auth/sign-out", data={"csrf_token": csrf_token(client, "/profile/")})
    assert client.get("/profile/").status_code == 302


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example"])
def test_sign_in_never_redirects_off_the_site(make_site, target):
    app = make_site()
    add_user(app, "ann")
    location = sign_in(app.test_client(), "ann", next_url=target).location
    assert location.startswith("/") and not location.startswith("//") and "evil" not in location


def test_cookies_are_http_only_and_secure_when_configured(make_site):
    app = make_site(secure_cookies=True)
    add_user(app, "ann")
    client = app.test_client()
    response = sign_in(client, "ann")
    cookie = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith("session="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" in cookie
    plain = make_site()
    add_user(plain, "ann")
    cookie = next(h for h in sign_in(plain.test_client(), "ann").headers.getlist("Set-Cookie")
                  if h.startswith("session="))
    assert "HttpOnly" in cookie and "Secure" not in cookie


def test_security_headers_keep_every_asset_on_this_site(make_site):
    response = make_site().test_client().get("/exercises/39")
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    html = response.get_data(as_text=True)
    assert not re.search(r'(src|href)="(https?:)?//', html), "an asset from another origin"


def test_sign_in_is_rate_limited(make_site):
    app = make_site()
    add_user(app, "ann")
    client = app.test_client()
    statuses = [sign_in(client, "ann", "wrong-password").status_code for _ in range(11)]
    assert statuses[:10] == [401] * 10 and statuses[10] == 429
    assert "Too many requests" in sign_in(client, "ann").get_data(as_text=True)
    # The limit is per account name: a classmate behind the same address still signs in.
    add_user(app, "ben")
    assert sign_in(client, "ben").status_code == 302


# --- exercises ----------------------------------------------------------------------------------

def test_the_exercise_page_has_statement_math_editor_and_starter(make_site):
    html = make_site().test_client().get("/exercises/39").get_data(as_text=True)
    assert "<h2>Contract</h2>" in html and '<span class="math inline">' in html
    assert "data-editor" in html and "def sampling_probs" in html  # the starter, in the editor's textarea
    assert "/static/build/editor.js" in html and "/static/build/katex/katex.min.css" in html
    assert "Sign in to submit" in html and "Download for local judging" in html


def test_hidden_tests_and_solutions_are_never_served(make_site):
    client = make_site().test_client()
    for url in ("/exercises/39/tests/hidden.py", "/exercises/39/tests/hidden/hidden.py",
                "/static/../solutions/039-sampling/reference.py",
                "/solutions/039-sampling/reference.py", "/exercises/39/solution"):
        assert client.get(url).status_code == 404, url
    html = client.get("/exercises/39").get_data(as_text=True)
    assert "def test_" not in html


# SQLite only (docs/testing.md): the download and the local judge store nothing.
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_download_gives_a_file_the_local_judge_accepts(make_site, tmp_path, project_root):
    client = make_site().test_client()
    response = client.post("/exercises/39/download", data={"csrf_token": csrf_token(client, "/exercises/39"),
                                                           "code": REFERENCE.replace("\n", "\r\n")})
    assert response.headers["Content-Disposition"] == 'attachment; filename="039-sampling.py"'
    path = tmp_path / "039-sampling.py"
    path.write_bytes(response.data)
    judged = subprocess.run([sys.executable, "practice/judge.py", "test", "39", str(path), "--json"],
                            cwd=project_root, capture_output=True, text=True, timeout=300)
    assert judged.returncode == 0 and '"verdict": "AC"' in judged.stdout


# SQLite only (docs/testing.md): a page and the grading queue, which test_grading runs on both databases.
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_submit_shows_live_status_then_the_verdict(make_site):
    app = make_site()
    client = app.test_client()
    sign_up(client, "ann")
    created = submit(client, REFERENCE)
    assert created.status_code == 302 and created.location.startswith("/submissions/")
    page = client.get(created.location).get_data(as_text=True)
    assert html_escape(REFERENCE.splitlines()[0]) in page
    html = wait_for_result(client, created.location)
    with services(app).sessions() as session:
        cases = len(session.scalar(select(Submission)).current.report_json["cases"])
    assert 'class="verdict v-AC"' in html and f"{cases}/{cases} cases passed" in html
    assert "A correct solution fails this judge with probability below 1e-06." in html
    listing = client.get("/exercises/").get_data(as_text=True)
    assert "solved" in listing and "100%" in listing and "1 of 1" in listing


def test_a_wrong_solution_gets_wa_with_its_diagnosis_and_hidden_cases_stay_hidden(make_site):
    app = make_site()
    client = app.test_client()
    sign_up(client, "ann")
    submission = submit(client, WRONG_TOP_K).location
    html = wait_for_result(client, submission)
    assert 'class="verdict v-WA"' in html and "Likely mistake:</strong> top-k keeps one token too many" in html
    zh = client.get(submission + "/result?lang=zh").get_data(as_text=True)
    assert "top-k 多保留了一个 token" in zh and "答案错误" in zh
    with services(app).sessions() as session:
        stored = session.scalar(select(Submission))
        report, seed = stored.current.report_json, stored.current.seed
    hidden = [c for c in report["cases"] if c["suite"] == "hidden" and c["message"]]
    assert hidden, "the stored report keeps hidden messages for the instructors"
    for case in hidden:
        assert case["message"] not in html and str(case["seed"]) not in html
        assert str(html_escape(case["title"])) in html  # escaped like every text (a title may hold "'")
        if case.get("rule"):  # what a learner reads of a failed hidden case
            assert str(html_escape(case["rule"])) in html
    assert seed is not None and str(seed) not in html  # the seed would replay the hidden messages locally
    assert "attempted" in client.get("/exercises/").get_data(as_text=True)


def test_refused_submissions_keep_the_code_and_say_why(make_site):
    app = make_site(max_code_bytes=1024, start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    big = "# " + "x" * 2000 + "\n"
    response = submit(client, big)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "the limit is 1024 bytes" in html and "x" * 2000 in html  # nothing typed is lost
    empty = submit(client, "   \n")
    assert empty.status_code == 400 and "the code is empty" in empty.get_data(as_text=True)
    for _ in range(5):
        assert submit(client, "import torch\n").status_code == 302
    waiting = submit(client, "import torch\n")
    assert waiting.status_code == 429 and "submissions waiting" in waiting.get_data(as_text=True)
    assert "代码是空的" in client.post("/exercises/39/submit?lang=zh", data={
        "csrf_token": csrf_token(client, "/exercises/39"), "code": ""}).get_data(as_text=True)


def test_submitting_is_rate_limited_per_account(make_site):
    app = make_site(start_workers=False)
    services(app).queue.max_queued_per_user = 1000
    client = app.test_client()
    sign_up(client, "ann")
    statuses = [submit(client, REFERENCE).status_code for _ in range(21)]
    assert statuses[:20] == [302] * 20 and statuses[20] == 429
    other = app.test_client()
    sign_up(other, "ben")
    assert submit(other, REFERENCE).status_code == 302  # per account, not per site


def test_learners_see_only_their_own_submissions(make_site):
    app = make_site(start_workers=False)
    add_user(app, "ida", Role.admin)
    add_user(app, "ivo", Role.instructor)  # teaches no course ann is in
    ann, ben, ida, ivo = app.test_client(), app.test_client(), app.test_client(), app.test_client()
    sign_up(ann, "ann")
    sign_up(ben, "ben")
    sign_in(ida, "ida")
    sign_in(ivo, "ivo")
    url = submit(ann, "# ann's secret\n" + REFERENCE).location
    assert ann.get(url).status_code == 200
    assert ben.get(url).status_code == 404 and ben.get(url + "/result").status_code == 404
    assert "ann&#39;s secret" not in ben.get("/exercises/39/submissions").get_data(as_text=True)
    assert ida.get(url).status_code == 200
    assert ivo.get(url).status_code == 404  # an instructor sees the learners of their own courses only
    assert app.test_client().get(url).status_code == 302  # anonymous: to the sign-in page


def test_history_lists_every_attempt_with_its_code(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    for number in range(3):
        submit(client, f"# attempt {number}\n" + REFERENCE)
    html = client.get("/exercises/39/submissions").get_data(as_text=True)
    assert all(f"# attempt {n}" in html for n in range(3)) and html.count('href="/submissions/') == 3


# --- profile --------------------------------------------------------------------------------------

def test_profile_creates_and_revokes_api_tokens(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    response = client.post("/profile/tokens", data={"csrf_token": csrf_token(client, "/profile/"), "label": "laptop"})
    secret = re.search(r'id="new-token">(pj_[^<]+)<', response.get_data(as_text=True)).group(1)
    api = app.test_client()
    headers = {"Authorization": f"Bearer {secret}"}
    assert api.get("/api/v1/exercises", headers=headers).status_code == 200
    assert secret not in client.get("/profile/").get_data(as_text=True)  # shown once
    with services(app).sessions() as session:
        token_id = session.scalar(select(ApiToken.id))
    client.post(f"/profile/tokens/{token_id}/revoke", data={"csrf_token": csrf_token(client, "/profile/")})
    assert api.get("/api/v1/exercises", headers=headers).status_code == 401


def test_an_account_holds_at_most_ten_api_tokens(make_site):
    """MAX_TOKENS at once: the tenth is made, the eleventh refused with a reason and not stored;
    revoking one makes room again. (Rate limits off: this is the count, not the creation rate.)"""
    from web.learning.profile import MAX_TOKENS

    app = make_site(start_workers=False, rate_limits=False)
    client = app.test_client()
    sign_up(client, "ann")

    def create():
        return client.post("/profile/tokens", data={"csrf_token": csrf_token(client, "/profile/"), "label": "cli"})

    def stored() -> list[int]:
        with services(app).sessions() as session:
            return list(session.scalars(select(ApiToken.id).order_by(ApiToken.id)))

    assert MAX_TOKENS == 10
    assert [create().status_code for _ in range(MAX_TOKENS)] == [200] * MAX_TOKENS
    refused = create()
    assert refused.status_code == 400 and "You have 10 tokens; revoke one first." in refused.get_data(as_text=True)
    assert len(stored()) == MAX_TOKENS
    client.post(f"/profile/tokens/{stored()[0]}/revoke", data={"csrf_token": csrf_token(client, "/profile/")})
    assert len(stored()) == MAX_TOKENS - 1
    assert create().status_code == 200 and len(stored()) == MAX_TOKENS


def test_profile_language_choice_is_remembered(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    client.post("/profile/language/zh", data={"csrf_token": csrf_token(client, "/profile/")})
    fresh = app.test_client()  # a new browser: no cookie, an English Accept-Language
    sign_in(fresh, "ann")
    assert "进度" in fresh.get("/profile/", headers={"Accept-Language": "en"}).get_data(as_text=True)


# --- run in the browser -------------------------------------------------------------------------

def test_the_browser_gets_the_engine_and_public_files_only(make_site):
    import io
    import zipfile

    client = make_site(start_workers=False).test_client()
    files = client.get("/browser/exercises/39/files.json")
    assert files.status_code == 200
    assert sorted(files.json) == ["exercise.toml", "tests/public/diagnoses.py", "tests/public/public.py",
                                  "tests/public/tiny.py"]
    hidden_text = EXERCISE.suite_path("hidden").read_text()
    assert all(hidden_text not in text for text in files.json.values())
    engine = client.get("/browser/engine.zip")
    names = zipfile.ZipFile(io.BytesIO(engine.data)).namelist()
    assert "judge/browser/run.py" in names and "judge/browser/torchlike/__init__.py" in names
    server_only = [n for n in names if "sandbox" in n or n.startswith("judge/cli") or n.endswith("render.py")]
    assert not server_only and not [n for n in names if "solutions" in n]
    again = client.get("/browser/engine.zip", headers={"If-None-Match": engine.headers["ETag"]})
    assert again.status_code == 304
    assert client.get("/browser/exercises/77/files.json").status_code == 404


def test_the_exercise_page_offers_run_with_its_configuration(make_site):
    html = make_site(start_workers=False).test_client().get("/exercises/39").get_data(as_text=True)
    assert 'id="run-button"' in html and 'data-pyodide-url="/static/build/pyodide/"' in html
    assert 'data-files-url="/browser/exercises/39/files.json?v=' in html and 'data-time-limit="10.0"' in html
    assert "wasm-unsafe-eval" in make_site(start_workers=False).test_client().get("/").headers["Content-Security-Policy"]


def test_the_exercise_list_follows_the_chapters_sections_in_both_languages(make_site):
    """The site groups exercises as `practice/judge.py list` does (judge.exercises.chapters), in the book's order."""
    from judge.exercises.chapters import group
    from judge.exercises.exercise import load_all

    client = make_site(start_workers=False).test_client()
    groups = group(load_all())
    for lang in ("en", "zh"):
        html = client.get(f"/exercises/?lang={lang}").get_data(as_text=True)
        positions = [html.index(str(html_escape(g.title.in_language(lang)))) for g in groups]
        assert positions == sorted(positions)
        for found in groups:
            for spec in found.exercises:
                assert str(html_escape(spec.title(lang))) in html
    assert 'class="chapter">Probability and sampling</h2>' in client.get("/exercises/?lang=en").get_data(as_text=True)


@pytest.mark.parametrize("lang, hint, other", [
    ("en", "# Filter each row once, then draw all num_samples tokens in one go.", "每行只过滤一次"),
    ("zh", "# 每行只过滤一次，然后一次抽完 num_samples 个 token。", "Filter each row once"),
])
def test_the_editors_starter_is_in_the_pages_language_without_cli_instructions(make_site, lang, hint, other):
    """The starter in the editor (and behind "Reset to the starter code") has its hints in the page's
    language and never says to run the command line: the page has Run and Submit."""
    html = make_site().test_client().get(f"/exercises/39?lang={lang}").get_data(as_text=True)
    editor = re.search(r'<textarea[^>]*data-starter="([^"]*)"[^>]*>(.*?)</textarea>', html, re.S)
    assert editor is not None
    for text in (html_unescape(editor[1]), html_unescape(editor[2])):
        assert "def sampling_probs" in text and hint in text and other not in text
        assert "practice/judge.py" not in text and "# [" not in text
        if lang == "en":
            assert not re.search(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]", text)
