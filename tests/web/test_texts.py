"""The pages' texts: one name per verdict (the engine's), and code shown as code, not as backticks."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_client import sign_in
from sqlalchemy import select

from judge.verdicts import Verdict
from tests.web.world import store_graded
from web.core.i18n import code_spans
from web.core.models import Exercise, Role, User
from web.core.texts import TEXTS
from web.services import services

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"
LANGS = ("en", "zh")


class _ProseText(HTMLParser):
    """The text a reader sees as prose: outside code, pre, textarea, script and style."""

    CODE = {"code", "pre", "textarea", "script", "style"}

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self.CODE

    def handle_endtag(self, tag):
        self.depth -= tag in self.CODE

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def prose(html: str) -> str:
    parser = _ProseText()
    parser.feed(html)
    return "".join(parser.parts)


def add_user(app, name: str, role: Role) -> None:
    with services(app).sessions() as session:
        user = User(name=name, role=role)
        user.set_password("password123")
        session.add(user)
        session.commit()


def store_compile_error(app, owner: str, verdict: str = "CE") -> int:
    """A graded submission of ``owner`` that ended in ``verdict`` before any case ran (all skipped); its id."""
    report = {"verdict": verdict, "score": {"passed": 0, "total": 2}, "seed": 5, "time_ms": 3.0,
              "message": "line 3: SyntaxError: invalid syntax", "diagnosis": None, "diagnosis_zh": None,
              "cases": [{"name": name, "suite": suite, "title": name, "title_zh": name, "verdict": "SK", "message": "",
                         "time_ms": 0.0, "seed": 7, "statistic": None, "p_value": None, "checks": []}
                        for name, suite in (("softmax", "public"), ("zipf", "hidden"))]}
    with services(app).sessions() as session:
        return store_graded(session, session.scalar(select(User).where(User.name == owner)),
                            session.scalar(select(Exercise)), "def (:\n", report, seed=5)


# --- verdicts ---------------------------------------------------------------------------------------

def test_every_verdict_has_the_engines_name_in_both_languages():
    for verdict in Verdict:
        assert TEXTS[f"verdict_{verdict.value}"] == (verdict.title_en, verdict.title_zh)


def test_no_template_names_a_verdict_itself():
    names = {name for verdict in Verdict for name in (verdict.title_en, verdict.title_zh)} | {
        "Does not load", "无法加载"}  # the compile error's former second name
    for template in TEMPLATES.rglob("*.html"):
        source = template.read_text(encoding="utf-8")
        assert not [name for name in names if name in source], template


@pytest.mark.parametrize("lang", LANGS)
def test_a_compile_error_has_one_name_on_every_page(make_site, lang):
    app = make_site(start_workers=False)
    add_user(app, "ann", Role.learner)
    submission_id = store_compile_error(app, "ann")
    client = app.test_client()
    sign_in(client, "ann")
    name = Verdict.CE.title_zh if lang == "zh" else Verdict.CE.title_en
    for url in (f"/submissions/{submission_id}", f"/submissions/{submission_id}/result"):
        html = client.get(url, query_string={"lang": lang}).get_data(as_text=True)
        assert f"<strong>{name}</strong>" in html and f'title="{name}"' in html
        assert "Does not load" not in html and "无法加载" not in html
    exercise_page = client.get("/exercises/39", query_string={"lang": lang}).get_data(as_text=True)
    run_texts = re.search(r'<script type="application/json" id="run-texts">(.*?)</script>', exercise_page, re.DOTALL)
    assert json.loads(run_texts.group(1))["verdicts"]["CE"] == name  # what the browser's Run shows


@pytest.mark.parametrize("lang", LANGS)
def test_an_internal_error_says_whose_fault_it_is(make_site, lang):
    app = make_site(start_workers=False)
    add_user(app, "ann", Role.learner)
    client = app.test_client()
    sign_in(client, "ann")
    index = LANGS.index(lang)
    pages = {verdict: client.get(f"/submissions/{store_compile_error(app, 'ann', verdict)}/result",
                                 query_string={"lang": lang}).get_data(as_text=True) for verdict in ("IE", "CE")}
    assert TEXTS["verdict_note_IE"][index] in pages["IE"] and TEXTS["verdict_note_IE"][index] not in pages["CE"]


# --- code in texts ----------------------------------------------------------------------------------

def test_code_spans_become_code_and_everything_else_is_escaped():
    assert code_spans("run `judge.py submit` <now> & `x<y`") == (
        "run <code>judge.py submit</code> &lt;now&gt; &amp; <code>x&lt;y</code>")
    assert code_spans("no code here") == "no code here"
    assert code_spans("one ` alone") == "one ` alone"


def test_every_text_with_code_goes_through_code_spans_in_the_templates():
    with_code = [key for key, texts in TEXTS.items() if any("`" in text for text in texts)]
    assert with_code, "no text with code: this test tests nothing"
    for template in TEMPLATES.rglob("*.html"):
        source = template.read_text(encoding="utf-8")
        for key in with_code:
            for use in re.finditer(rf"""t\(["']{key}["'][^)]*\)(\|code_spans)?""", source):
                assert use.group(1), f"{template.name}: {use.group(0)} shows its backticks"


# SQLite only (docs/testing.md): the pages' texts, not their data.
@pytest.mark.parametrize("database_backend", ["sqlite"])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("role", [Role.learner, Role.instructor])
def test_no_page_shows_a_backtick_outside_code(make_site, lang, role):
    app = make_site(start_workers=False)
    add_user(app, "ann", role)
    submission_id = store_compile_error(app, "ann")
    anonymous = app.test_client()
    pages = {url: anonymous for url in ("/", "/exercises/39", "/auth/sign-in", "/auth/sign-up", "/exercises/77")}
    client = app.test_client()
    sign_in(client, "ann")
    pages.update({url: client for url in ("/", "/exercises/", "/exercises/39", "/exercises/39/submissions",
                                          "/profile/", f"/submissions/{submission_id}",
                                          f"/submissions/{submission_id}/result", "/exercises/77")})
    for url, browser in pages.items():
        html = browser.get(url, query_string={"lang": lang}).get_data(as_text=True)
        assert "`" not in prose(html), url
    profile = client.get("/profile/", query_string={"lang": lang}).get_data(as_text=True)
    assert "<code>practice/judge.py submit</code>" in profile
