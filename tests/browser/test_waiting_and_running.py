"""Waiting and running in a real browser: the Run button says what it does, Python loads while the
page is idle, the editor lets go of the keyboard and wraps, the latest submission is one click
away, and a phone-sized window neither scrolls sideways nor hides the editor."""

from __future__ import annotations

import re

import pytest
from browser_support import accessibility_violations, sideways_overflow, sign_up, type_into_editor
from playwright.sync_api import expect

from judge.exercises.exercise import resolve
from web.core.models import Exercise, Grading, Status, Submission, User, utcnow
from web.services import services

EXERCISE = resolve("39")
REFERENCE = EXERCISE.reference_path.read_text()
RUN, LOADING, RUNNING = "Run in the browser", "Loading Python…", "Running…"
# Before the page's scripts: the browser says the connection is metered (no preload), and every
# text the Run button shows is noted with whether it took clicks then.
SAVE_DATA = "Object.defineProperty(navigator, 'connection', {value: {saveData: true, effectiveType: '4g'}});"
WATCH_BUTTON = """
window.runLabels = [];
new MutationObserver(() => {
  const button = document.getElementById('run-button');
  if (!button) return;
  const seen = [button.textContent, button.getAttribute('aria-disabled') === 'true'];
  const last = window.runLabels[window.runLabels.length - 1];
  if (!last || last[0] !== seen[0] || last[1] !== seen[1]) window.runLabels.push(seen);
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""


def _labels(page) -> list[tuple[str, bool]]:
    return [tuple(seen) for seen in page.evaluate("window.runLabels")]


@pytest.mark.audit
def test_a_cold_run_says_loading_then_running_and_brings_its_result_into_view(page, live_site):
    """No preload on a metered connection: the first click loads Python, and the button says so."""
    page.add_init_script(SAVE_DATA)
    page.add_init_script(WATCH_BUTTON)
    page.goto("/exercises/39")
    type_into_editor(page, REFERENCE)
    page.wait_for_timeout(1500)  # idle time passes: nothing may load on a metered connection
    assert not any(url.endswith("pyodide.asm.wasm") for url in page.requests)
    page.get_by_role("button", name=RUN).click()
    expect(page.locator("#run-button")).to_have_text(LOADING)
    expect(page.locator("#run-button")).to_be_disabled()
    heading = page.locator("#browser-result h3")
    expect(page.locator("#browser-result .verdict-line .v-AC")).to_be_visible(timeout=60_000)
    expect(page.locator("#run-button")).to_have_text(RUN)
    assert _labels(page)[-3:] == [(LOADING, True), (RUNNING, True), (RUN, False)]
    expect(heading).to_be_focused()  # the click's focus moves to what it produced
    expect(heading).to_be_in_viewport()
    assert accessibility_violations(page) == []


def test_python_loads_while_the_page_is_idle_so_the_first_run_is_warm(page, live_site):
    page.add_init_script(WATCH_BUTTON)
    page.goto("/exercises/39")
    expect(page.locator("#browser-result[data-warm]")).to_have_count(1, timeout=60_000)
    page.get_by_role("button", name=RUN).click()
    expect(page.locator("#browser-result .verdict-line")).to_be_visible(timeout=30_000)
    labels = [label for label, _ in _labels(page)]
    assert LOADING not in labels and labels[-2:] == [RUNNING, RUN]
    assert sum(url.endswith("pyodide.asm.wasm") for url in page.requests) == 1  # loaded once


def _store_attempt(app, name: str, code: str, report: dict) -> int:
    """A finished WA attempt at 039 by ``name`` (the page only reads it)."""
    from sqlalchemy import select

    from judge.verdicts import Verdict

    with services(app).sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        submission = Submission(user=user, exercise=exercise, code=code)
        grading = Grading(
            status=Status.done,
            verdict=Verdict.WA,
            score_passed=0,
            score_total=1,
            report_json=report,
            started_at=utcnow(),
            finished_at=utcnow(),
            attempts=1,
        )
        submission.gradings.append(grading)
        session.add(submission)
        session.flush()
        submission.current_grading_id = grading.id
        session.commit()
        return submission.id


def _store_running(app, name: str) -> int:
    """An attempt by ``name`` that a worker elsewhere is grading: 3 of 17 cases done (a live lease,
    so the site's own worker leaves it alone)."""
    import datetime as dt

    from sqlalchemy import select

    with services(app).sessions() as session:
        user = session.scalar(select(User).where(User.name == name))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        submission = Submission(user=user, exercise=exercise, code="x = 1\n")
        submission.gradings.append(
            Grading(
                status=Status.running,
                attempts=1,
                worker="elsewhere:1",
                started_at=utcnow(),
                lease_expires_at=utcnow() + dt.timedelta(hours=1),
                cases_done=3,
                cases_total=17,
                cases_hidden=12,
            )
        )
        session.add(submission)
        session.commit()
        return submission.id


@pytest.mark.audit
def test_on_a_phone_the_editor_is_one_tap_away_offers_the_latest_attempt_and_lets_go_of_tab(browser, served_site):
    context = browser.new_context(base_url=served_site.url, viewport={"width": 390, "height": 844}, bypass_csp=True)
    page = context.new_page()
    page.add_init_script(SAVE_DATA)  # nothing here needs Python
    try:
        sign_up(page, "ida")
        long_message = "the draws of token 7 " + "x" * 300
        report = {
            "verdict": "WA",
            "score": {"passed": 0, "total": 1},
            "message": "one case failed",
            "cases": [
                {
                    "name": "top_k_is_respected_" + "long_" * 12,
                    "suite": "public",
                    "title": "top-k",
                    "verdict": "WA",
                    "message": long_message,
                    "time_ms": 3.0,
                    "p_value": 0.001,
                }
            ],
        }
        attempt = "def sampling_probs(logits):\n    return 'my latest'  # " + "a long comment " * 20 + "\n"
        running_id = _store_running(served_site.app, "ida")
        submission_id = _store_attempt(served_site.app, "ida", attempt, report)  # the newest

        page.goto(f"/submissions/{submission_id}")
        expect(page.locator("#result .cases")).to_be_visible()
        assert sideways_overflow(page) == [], "the submission page scrolls sideways at 390 px"

        page.goto(f"/submissions/{running_id}")
        expect(page.locator("#result")).to_contain_text("3 of 17 cases")
        page.wait_for_timeout(500)  # the page's long poll (wait=10) is now waiting on the server
        with services(served_site.app).sessions() as session:
            session.get(Submission, running_id).gradings[0].cases_done = 5
            session.commit()
        # Well inside the poll's 10 s: the wait ends when the progress changes, not only with the verdict.
        expect(page.locator("#result")).to_contain_text("5 of 17 cases", timeout=3000)
        expect(page.locator("#result .elapsed")).to_have_text(re.compile(r" · [1-9]\d* s"), timeout=5000)  # it ticks
        assert accessibility_violations(page) == []

        page.goto("/exercises/39")
        expect(page.locator(".cm-editor")).to_be_visible()
        assert sideways_overflow(page) == [], "the exercise page scrolls sideways at 390 px"
        assert accessibility_violations(page) == []
        skip = page.get_by_role("link", name="Go to the editor")
        expect(skip).to_be_visible()
        skip.click()
        expect(page.locator(".cm-content")).to_be_focused()
        expect(page.locator(".cm-editor")).to_be_in_viewport()

        offer = page.get_by_role("button", name=f"Load my latest submission (#{submission_id},")
        expect(offer).to_contain_text("WA")
        assert "def sampling_probs" in page.locator(".cm-content").inner_text()  # the starter until asked
        offer.click()
        expect(offer).to_be_hidden()
        assert (
            page.evaluate("document.querySelector('textarea[data-editor]').editorView.state.doc.toString()") == attempt
        )
        # The long comment wraps inside the editor instead of widening it.
        assert page.evaluate(
            "(() => { const s = document.querySelector('.cm-scroller'); return s.scrollWidth <= s.clientWidth; })()"
        )
        assert sideways_overflow(page) == []

        # One Esc closes the completion list and lets Tab leave the editor.
        page.locator(".cm-content").click()
        page.keyboard.press("Control+End")
        page.keyboard.type("\nsampl")
        expect(page.locator(".cm-tooltip-autocomplete")).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.locator(".cm-tooltip-autocomplete")).to_be_hidden()
        page.keyboard.press("Tab")
        assert page.evaluate("!document.activeElement.closest('.cm-editor')"), "Tab stayed in the editor"
    finally:
        context.close()
