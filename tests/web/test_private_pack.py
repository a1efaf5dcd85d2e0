"""A course's private pack, in a folder outside the repository, judged by the site.

``PROBJUDGE_EXERCISES`` names the pack and the repository's exercises; the site lists, shows and
grades the private exercise like any other, and never serves its ``tests/hidden/`` folder or its
solutions (the ``solutions/`` folder beside the pack). Only the HTTP API and the pages are used.
"""

from __future__ import annotations

import io
import json
import os
import textwrap
import time
import zipfile

import pytest

from judge.exercises.folders import EXERCISES_DIR
from tests.web.world import api_token

NUMBER, SLUG = 987, "echo"
HIDDEN_SECRET = "hidden-oracle-value-5d81e2"
HELPER_SECRET = "hidden-helper-name-a04c77"
REFERENCE_SECRET = "reference-trick-93bb10"

TOML = f"""
number = {NUMBER}
slug = "{SLUG}"
difficulty = "easy"
runs_in = ["local", "server", "browser"]

[title]
en = "Double it"
zh = "翻倍"

[functions.double]
params = ["x"]

[judging]
time_limit_s = 5.0

[browser]
suites = ["public"]
time_limit_s = 10.0
"""

STATEMENT = """# {title}

Write `double(x)`: it returns `2 * x` for an integer `x`.

## Contract

`double(x)` returns twice `x`.
"""

PUBLIC = '''
from judge.checks.exact import expect

from .examples import EXAMPLES


def test_examples(sub, ctx):
    """small examples

    zh: 小例子
    """
    for x, expected in EXAMPLES:
        expect(sub.double(x) == expected, f"double({x}) must be {expected}")
'''

HIDDEN = f'''
from judge.checks.exact import expect

from ..public.examples import EXAMPLES
from .helper import LARGE

SECRET = "{HIDDEN_SECRET}"


def test_large(sub, ctx):
    """large values

    zh: 大数
    """
    for x in LARGE + [x for x, _ in EXAMPLES]:
        expect(sub.double(x) == 2 * x, "double must double every integer")
'''


@pytest.fixture
def pack(tmp_path, monkeypatch):
    """A course folder with exercises/987-echo and solutions/987-echo; the site reads it and the repo's."""
    course = tmp_path / "course"
    folder = course / "exercises" / f"{NUMBER}-{SLUG}"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "exercise.toml").write_text(TOML)
    (folder / "statement.en.md").write_text(STATEMENT.format(title="Double it"))
    (folder / "statement.zh.md").write_text(STATEMENT.format(title="翻倍"))
    (folder / "starter.py").write_text("def double(x):\n    raise NotImplementedError\n")
    (folder / "tests" / "public" / "examples.py").write_text("EXAMPLES = [(0, 0), (1, 2), (-3, -6)]\n")
    (folder / "tests" / "public" / "public.py").write_text(textwrap.dedent(PUBLIC))
    (folder / "tests" / "hidden" / "hidden.py").write_text(textwrap.dedent(HIDDEN))
    (folder / "tests" / "hidden" / "helper.py").write_text(f"# {HELPER_SECRET}\nLARGE = [10**12, -(10**15)]\n")
    solutions = course / "solutions" / f"{NUMBER}-{SLUG}"
    (solutions / "wrong").mkdir(parents=True)
    (solutions / "reference.py").write_text(f"# {REFERENCE_SECRET}\ndef double(x):\n    return x + x\n")
    (solutions / "wrong" / "small_only.py").write_text(
        '"""Mistake: right on small numbers only.\n\nDiagnosis: double must double\n"""\n'
        "def double(x):\n    return 2 * x if abs(x) < 100 else x\n")
    monkeypatch.setenv("PROBJUDGE_EXERCISES", os.pathsep.join([str(course / "exercises"), str(EXERCISES_DIR)]))
    return course


SECRETS = (HIDDEN_SECRET, HELPER_SECRET, REFERENCE_SECRET)


def _no_secret(text: str, where: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{where} shows {secret!r}"


def _verdict(client, headers, code: str) -> dict:
    created = client.post("/api/v1/submissions", headers=headers, json={"exercise": str(NUMBER), "code": code})
    assert created.status_code == 202, created.get_data(as_text=True)
    url = f"/api/v1/submissions/{created.json['id']}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = client.get(url, headers=headers).json
        if body["status"] == "done":
            return body
        time.sleep(0.2)
    raise AssertionError(f"{url} got no verdict in 120 s")


def test_a_private_pack_is_listed_shown_and_judged(pack, make_site):
    app = make_site()
    client = app.test_client()
    headers = api_token(app, "ann")

    listing = client.get("/api/v1/exercises", headers=headers).json["exercises"]
    assert {39, NUMBER} <= {e["number"] for e in listing}  # the repository's exercises stay
    assert client.get(f"/api/v1/exercises/{SLUG}", headers=headers).json["number"] == NUMBER

    right = _verdict(client, headers, "def double(x):\n    return 2 * x\n")
    assert right["verdict"] == "AC", right
    wrong = _verdict(client, headers, (pack / "solutions" / f"{NUMBER}-{SLUG}" / "wrong" / "small_only.py").read_text())
    assert wrong["verdict"] == "WA", wrong
    _no_secret(json.dumps(wrong), "a wrong submission's result")

    page = client.get(f"/exercises/{NUMBER}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Double it" in html and "def double" in html
    _no_secret(html, "the exercise page")


def test_the_browser_gets_only_the_public_folder_of_a_private_exercise(pack, make_site):
    client = make_site(start_workers=False).test_client()
    html = client.get(f"/exercises/{NUMBER}").get_data(as_text=True)
    assert f"/browser/exercises/{NUMBER}/files.json" in html  # the page offers "Run"

    files = client.get(f"/browser/exercises/{NUMBER}/files.json")
    assert files.status_code == 200
    assert sorted(files.json) == ["exercise.toml", "tests/public/examples.py", "tests/public/public.py"]
    _no_secret(files.get_data(as_text=True), "files.json")
    engine = zipfile.ZipFile(io.BytesIO(client.get("/browser/engine.zip").data))
    for name in engine.namelist():
        _no_secret(engine.read(name).decode("utf-8", "replace"), name)

    folder = f"{NUMBER}-{SLUG}"
    for url in (f"/exercises/{NUMBER}/tests/hidden/hidden.py", f"/exercises/{folder}/tests/hidden/helper.py",
                f"/browser/exercises/{NUMBER}/tests/hidden/hidden.py", f"/solutions/{folder}/reference.py",
                f"/static/../solutions/{folder}/reference.py", f"/exercises/{NUMBER}/solution"):
        response = client.get(url)
        assert response.status_code == 404, url
        _no_secret(response.get_data(as_text=True), url)
