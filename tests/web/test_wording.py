"""The site's wording, class by class: every count phrase agrees with its number in English ("1
submission", never "1 submissions"), no input says ``autocomplete="None"``, and each form field's
rule stands under that field.

The page-wide checks walk every page (each GET rule of the URL map) as each person of the course
world of tests/web/world.py, whose counts include ones: one learner in the other course, a diff of
one line, a learner with one submission.
"""

from __future__ import annotations

import re
import string
from html import unescape

import pytest
from sqlalchemy import select

from judge.i18n import _CLI, SHARED, format_text
from tests.web.site_client import build_url, rules, stop_site
from tests.web.world import ACCOUNT, REPORT, route_world, store_graded
from web.core.instructor_texts import INSTRUCTOR
from web.core.models import Exercise, User
from web.core.texts import SITE
from web.services import services

# "1 submissions": a 1 (not the end of "0/1" or "2.1") and a word that is an English plural.
ONE_PLURAL = re.compile(r"(?<![\d/.,])\b1 ([a-z]+s)\b")
NOT_PLURALS = frozenset(
    {
        "as",
        "is",
        "was",
        "has",
        "does",
        "its",
        "this",
        "thus",
        "plus",
        "minus",
        "less",
        "ms",
        "always",
        "across",
        "yes",
        "class",
        "pass",
        "access",
        "process",
        "status",
        "progress",
    }
)
# "{n} nouns" in an English text, where the number is not a count of them (each with why).
NOT_COUNTS = {
    ("judge.i18n.SHARED", "cases_summary"): "a fraction, {passed}/{total} cases",
    ("web.core.instructor_texts.INSTRUCTOR", "diff_too_large"): "a limit of the site, never 1",
    ("web.core.texts.SITE", "too_many_tokens"): "a limit of the site, never 1",
}
TABLES = {
    "judge.i18n.SHARED": SHARED,
    "judge.i18n._CLI": _CLI,
    "web.core.texts.SITE": SITE,
    "web.core.instructor_texts.INSTRUCTOR": INSTRUCTOR,
}
AUTOCOMPLETE = re.compile(r'autocomplete="([^"]*)"')
AUTOCOMPLETE_TOKENS = {"off", "on", "username", "current-password", "new-password", "name", "email"}


@pytest.mark.parametrize(
    ("count", "expected"), [(0, "0 lines added"), (1, "1 line added"), (2, "2 lines added"), (11, "11 lines added")]
)
def test_a_count_phrase_takes_the_form_of_its_number(count, expected):
    assert format_text("{added:# line|# lines} added", added=count) == expected
    assert format_text("{added} lines", added=count) == f"{count} lines"  # no spec: as str.format


def test_every_count_phrase_of_the_catalogues_has_its_singular():
    """A text "{n} nouns" must write "{n:# noun|# nouns}" (Chinese has no plural: its texts stay)."""
    bare = []
    for table, entries in TABLES.items():
        for key, (en, _) in entries.items():
            for _, field, spec, _ in string.Formatter().parse(en):
                if field is None or "|" in (spec or ""):
                    continue
                after = en.split("{" + field + (":" + spec if spec else "") + "}", 1)[1]
                noun = re.match(r" ([a-z]+s)\b", after)
                if noun and noun.group(1) not in NOT_PLURALS and (table, key) not in NOT_COUNTS:
                    bare.append(f"{table}[{key!r}]: {en!r}")
    assert not bare, "write {n:# noun|# nouns} in these texts:\n" + "\n".join(bare)


@pytest.fixture(scope="module")
def world(module_databases):
    """The course world, plus the outsider's one practice submission of one line."""
    from judge.engine.process import LocalLauncher
    from web.app import create_app
    from web.core.config import Settings

    def make_site(start_workers=False):
        settings = Settings(
            database_url=module_databases.new(), secret_key="test", workers=1, sandbox="local", rate_limits=False
        )
        return create_app(settings, launcher=LocalLauncher(), start_workers=start_workers)

    built = route_world(make_site())
    with services(built.app).sessions() as session:
        outsider = session.scalar(select(User).where(User.name == ACCOUNT["outsider"]))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 1))
        built.values["outsider_submission_id"] = store_graded(session, outsider, exercise, "x = 3", REPORT,
                                                              course=None)
    yield built
    stop_site(built.app)


def _pages(world):
    """(role, URL, HTML) of every page each person of the world reaches (status 200), in English;
    the other course's instructor walks them with the other course (its one learner) as the course."""
    for who in ("learner", "outsider", "instructor", "other_instructor", "admin"):
        client = world.client(who)
        values = dict(world.values)
        if who == "other_instructor":
            values["course_id"] = world.values["other_course_id"]
        urls = [build_url(rule, **values) for rule in rules(world.app, api=False, method="GET")]
        urls += [f"/submissions/{world.values['outsider_submission_id']}", "/exercises/1/submissions"]
        for url in urls:
            if url == "/auth/sign-out":
                continue
            response = client.get(url, query_string={"lang": "en"})
            if response.status_code == 200 and response.mimetype == "text/html":
                yield who, url, response.get_data(as_text=True)
    visitor = world.app.test_client()
    for url in ("/auth/sign-up", "/auth/sign-in"):
        yield None, url, visitor.get(url, query_string={"lang": "en"}).get_data(as_text=True)


@pytest.fixture(scope="module")
def pages(world):
    return list(_pages(world))


def _text(html: str) -> str:
    """The site's prose on a page: outside code, the editor and scripts (a learner's code is theirs),
    and outside an exercise's statement (its pack's text, where "$p = 1$ turns" is a verb)."""
    html = re.sub(r'<article class="statement".*?</article>', " ", html, flags=re.S)
    html = re.sub(r"<(code|pre|textarea|script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_no_page_says_one_with_a_plural(world, pages):
    found = [
        f"{who} {url}: {match.group(0)!r}"
        for who, url, html in pages
        for match in ONE_PLURAL.finditer(_text(html))
        if match.group(1) not in NOT_PLURALS
    ]
    assert not found, "\n".join(found)
    # The world has the ones these pages count: each is said in the singular.
    text = {(who, url): _text(html) for who, url, html in pages}
    other, old, new = (world.values[name] for name in ("other_course_id", "old_id", "new_id"))
    assert "1 learner." in text[("other_instructor", f"/courses/{other}")]
    assert "1 line added, 1 removed." in text[("instructor", f"/submissions/{old}/diff/{new}")]
    assert "attempted 1 more; 1 submission." in text[("outsider", "/profile/")]
    assert "(1 line)" in text[("outsider", "/exercises/1/submissions")]


def test_no_input_says_autocomplete_none(pages):
    found = {
        (who, url, value)
        for who, url, html in pages
        for value in AUTOCOMPLETE.findall(html)
        if value not in AUTOCOMPLETE_TOKENS
    }
    assert not found, sorted(found, key=str)
    sign_up = next(html for who, url, html in pages if url == "/auth/sign-up")
    assert re.search(r'<input[^>]*autocomplete="new-password"[^>]*id="password"', sign_up)
    language = re.search(r'<select[^>]*id="language"[^>]*>', sign_up).group(0)
    assert "autocomplete" not in language and "aria-describedby" not in language


def test_each_rule_stands_under_its_own_field_on_sign_up(world):
    client = world.app.test_client()
    html = client.get("/auth/sign-up?lang=en").get_data(as_text=True)
    fields = re.findall(r'<div class="field">(.*?)</div>', html, re.S)
    by_id = {re.search(r'id="(\w+)"', field).group(1): field for field in fields}
    assert 'aria-describedby="password-hint"' in by_id["password"]
    assert '<p class="hint" id="password-hint">At least 8 characters.</p>' in by_id["password"]
    assert 'id="name-hint">Letters, digits' in by_id["name"]
    assert "hint" not in by_id["confirm"] and "hint" not in by_id["language"]
    # With an error, the field names both its rule and its error.
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)
    refused = client.post(
        "/auth/sign-up?lang=en",
        data={"csrf_token": token, "name": "newbie", "password": "short", "confirm": "short", "language": "en"},
    )
    password = re.search(r'<input[^>]*id="password"[^>]*>', refused.get_data(as_text=True)).group(0)
    assert 'aria-describedby="password-hint password-errors"' in password and 'aria-invalid="true"' in password
    zh = client.get("/auth/sign-up?lang=zh").get_data(as_text=True)
    assert '<p class="hint" id="password-hint">至少 8 个字符。</p>' in zh
