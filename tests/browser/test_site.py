"""The site in a real browser: sign up, write a solution in the editor, submit, read the verdict."""

from __future__ import annotations

import re
import time

import pytest
from browser_support import ENDLESS, accessibility_violations, shoot, sign_up, type_into_editor
from playwright.sync_api import expect

from judge.exercises.exercise import resolve
from judge.exercises.starters import starter_text
from judge.exercises.suites import load_suite

EXERCISE = resolve("39")
REFERENCE = EXERCISE.reference_path.read_text()
STARTER = starter_text(EXERCISE, "en", "web")  # what the English page's editor starts from
WRONG_TOP_K = (EXERCISE.root.parents[1] / "solutions" / "039-sampling" / "wrong" / "top_k_plus_one.py").read_text()
VERDICT_TIMEOUT_MS = 180_000


def editor_text(page) -> str:
    return page.evaluate("document.querySelector('textarea[data-editor]').editorView.state.doc.toString()")


def only_this_origin(page, origin: str) -> list[str]:
    return [url for url in page.requests if not (url.startswith(origin + "/") or url.startswith(("data:", "blob:")))]


def test_reference_is_accepted_and_a_known_mistake_is_named(page, live_site):
    sign_up(page, "ann")
    page.goto("/exercises/39")
    expect(page.locator(".cm-editor")).to_be_visible()
    expect(page.locator(".statement .katex").first).to_be_visible()  # math typeset by KaTeX from this site
    assert "def sampling_probs" in editor_text(page)  # the starter is loaded

    type_into_editor(page, REFERENCE)
    assert editor_text(page) == REFERENCE
    shoot(page, "exercise-page.png")
    page.keyboard.press("Control+Enter")  # the submit shortcut
    page.wait_for_url(re.compile(r"/submissions/\d+$"))
    expect(page.locator("#result .verdict-line .v-AC")).to_be_visible(timeout=VERDICT_TIMEOUT_MS)
    total = _reference_case_count()
    expect(page.locator("#result")).to_contain_text(f"{total}/{total} cases passed")
    expect(page.locator("#result table.cases tbody tr")).to_have_count(total)
    shoot(page, "verdict-accepted.png")

    page.goto("/exercises/39")
    type_into_editor(page, WRONG_TOP_K)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#result .verdict-line .v-WA")).to_be_visible(timeout=VERDICT_TIMEOUT_MS)
    expect(page.locator("#result .diagnosis").first).to_contain_text("top-k keeps one token too many")
    shoot(page, "verdict-wrong-answer.png")

    page.goto("/exercises/")
    expect(page.locator("tbody tr", has_text="Temperature, top-k, top-p and min-p sampling")).to_contain_text("solved")
    assert only_this_origin(page, live_site) == []
    assert page.console_errors == []


SAVE_DELAY_MS = 400  # web/frontend/src/editor.js: the draft is saved this long after the last change


def test_the_draft_survives_a_reload_because_it_was_saved_and_a_reset_clears_it(page, live_site):
    """The page's clock is paused, so the editor's delayed save happens exactly when the test
    moves the clock: never before the delay, never raced by a reload. What a reload restores is
    what the save wrote to this browser's storage, and a reset leaves no draft behind, then or later."""
    sign_up(page, "ben")
    page.clock.install()
    page.goto("/exercises/39")
    assert editor_text(page) == STARTER
    page.clock.pause_at(time.time() * 1000 + 60_000)
    status = page.locator("#draft-status")
    key = page.locator("textarea[data-editor]").get_attribute("data-draft-key")
    assert key and key.endswith(":39")

    def stored():
        return page.evaluate("key => window.localStorage.getItem(key)", key)

    type_into_editor(page, "# my draft\nimport torch\n")
    page.clock.run_for(SAVE_DELAY_MS - 1)
    assert stored() is None and status.text_content() == ""  # not saved before the delay
    page.clock.run_for(1)
    assert stored() == "# my draft\nimport torch\n"
    expect(status).to_have_text("Draft saved in this browser.")
    page.reload()
    expect(status).to_have_text("Your draft from this browser was restored.")
    assert editor_text(page) == "# my draft\nimport torch\n"

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Reset to the starter code").click()
    assert editor_text(page) == STARTER and stored() is None
    page.clock.run_for(10 * SAVE_DELAY_MS)  # the reset's own change saves nothing afterwards
    assert stored() is None and status.text_content() == ""
    page.reload()
    assert editor_text(page) == STARTER and status.text_content() == ""
    assert only_this_origin(page, live_site) == [] and page.console_errors == []


def test_the_pages_work_in_chinese(page, live_site):
    page.goto("/exercises/39?lang=zh")
    expect(page.get_by_role("link", name="登录后提交")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator(".statement h1")).to_contain_text("温度")
    expect(page.locator(".cm-editor")).to_be_visible()
    # The starter's hints in the page's language, and no command line to run: the page has Run and Submit.
    assert editor_text(page) == starter_text(EXERCISE, "zh", "web")
    assert "每行只过滤一次" in editor_text(page) and "practice/judge.py" not in editor_text(page)
    # The Run says why a file did not load in Chinese (message_zh), with Python's own error text as it is.
    type_into_editor(page, "import torch\n\ndef sampling_probs(logits:\n    pass\n")
    page.get_by_role("button", name="在浏览器中运行").click()
    result = page.locator("#browser-result")
    expect(result.locator(".verdict-line .v-CE")).to_be_visible(timeout=60_000)
    expect(result.locator(".message")).to_contain_text("语法错误（第 3 行）：")
    expect(result.locator(".message")).to_contain_text("SyntaxError")
    expect(result).not_to_contain_text("syntax error")
    assert page.console_errors == []




def test_run_judges_in_the_page_and_survives_an_endless_loop(page, live_site):
    page.goto("/exercises/39")  # anyone may Run: nothing is stored, nothing reaches the server
    expect(page.get_by_role("button", name="Run in the browser")).to_be_visible()
    type_into_editor(page, REFERENCE)
    page.get_by_role("button", name="Run in the browser").click()
    result = page.locator("#browser-result")
    expect(result.locator(".verdict-line .v-AC")).to_be_visible(timeout=60_000)
    cases = sum(len(load_suite(EXERCISE, suite).cases) for suite in EXERCISE.browser.suites) + 1  # + not_too_regular
    expect(result).to_contain_text(f"{cases}/{cases} cases passed")
    expect(result.locator("tbody tr")).to_have_count(cases)
    shoot(page, "run-in-browser.png", focus=page.locator("#run-button"))

    type_into_editor(page, ENDLESS)
    page.get_by_role("button", name="Run in the browser").click()
    expect(result.locator(".verdict-line .v-TLE")).to_be_visible(timeout=60_000)
    expect(result).to_contain_text("was stopped")
    # The page still works: a fresh worker judges the next run.
    type_into_editor(page, WRONG_TOP_K)
    page.get_by_role("button", name="Run in the browser").click()
    expect(result.locator(".verdict-line .v-WA")).to_be_visible(timeout=60_000)
    expect(result.locator(".diagnosis").first).to_contain_text("top-k keeps one token too many")
    # A syntax error reaches no case: the error and its line, "No case ran", no score, no table.
    type_into_editor(page, "import torch\n\ndef sampling_probs(logits:\n    pass\n")
    page.get_by_role("button", name="Run in the browser").click()
    expect(result.locator(".verdict-line .v-CE")).to_be_visible(timeout=60_000)
    expect(result).to_contain_text("No case ran: your code stopped before the first one")
    expect(result).to_contain_text("line 3")
    expect(result).not_to_contain_text("cases passed")
    expect(result.locator("table.cases")).to_have_count(0)
    assert any(url.endswith("/static/build/pyodide/pyodide.asm.wasm") for url in page.requests)
    assert only_this_origin(page, live_site) == []
    assert page.console_errors == []


@pytest.mark.audit
def test_pages_pass_the_accessibility_checker(page, live_site):
    """axe-core (npm) finds nothing on each kind of page, in both languages, signed out and in."""
    urls = ["/", "/auth/sign-up", "/auth/sign-in", "/exercises/39", "/exercises/39?lang=zh"]
    for url in urls:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        assert accessibility_violations(page) == [], url
    page.goto("/?lang=en")  # back to English for the helpers' labels
    sign_up(page, "cai")
    page.goto("/exercises/39")
    type_into_editor(page, WRONG_TOP_K)
    page.get_by_role("button", name="Run in the browser").click()
    expect(page.locator("#browser-result .verdict-line .v-WA")).to_be_visible(timeout=60_000)
    assert accessibility_violations(page) == [], "exercise page with a browser result"
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#result .verdict-line .v-WA")).to_be_visible(timeout=VERDICT_TIMEOUT_MS)
    submission = page.url
    for url in (submission, "/exercises/39/submissions", "/profile/", "/exercises/"):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        assert accessibility_violations(page) == [], url


def _reference_case_count() -> int:
    """Cases a full judging of exercise 39 reports: both suites and the judge's own."""
    from judge.exercises.exercise import resolve
    from judge.exercises.suites import load_suite

    exercise = resolve("39")
    return sum(len(load_suite(exercise, suite).cases) for suite in ("public", "hidden")) + 1
