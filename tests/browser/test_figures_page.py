"""A failed check's picture in chromium (web/frontend/src/figures.js): drawn on the submission page
beside its table of numbers, and drawn by the browser Run from the same renderer; never a hidden
case's; both pages clean under the accessibility checker."""

from __future__ import annotations

import json

import pytest
from browser_support import accessibility_violations, shoot, sign_up
from playwright.sync_api import expect
from sqlalchemy import select

from judge.verdicts import Verdict
from tests.web.world import store_graded
from web.core.models import Exercise, Grading, Status, User, utcnow
from web.services import services

DISTRIBUTION = {
    "type": "distribution", "outcome": "token", "n": 20000,
    "bars": [{"id": 3, "target": 0.41, "observed": 7650, "expected": 8200.0, "residual": -6.07, "worst": True},
             {"id": 5, "target": 0.28, "observed": 5550, "expected": 5600.0, "residual": -0.67, "worst": False},
             {"id": 17, "target": 0.2, "observed": 4620, "expected": 4000.0, "residual": 9.8, "worst": True},
             {"id": 8, "target": 0.09, "observed": 1880, "expected": 1800.0, "residual": 1.9, "worst": False}],
    "rest": {"count": 120, "target": 0.02, "observed": 300, "expected": 400.0},
    "worst": [17, 3],
}
CALIBRATION = {"type": "calibration", "n": 400,
               "levels": [{"z": 1.0, "covered": 180, "expected": 0.6827, "passed": False},
                          {"z": 2.0, "covered": 330, "expected": 0.9545, "passed": False}]}


def _case(name: str, suite: str, kind: str, figure: dict) -> dict:
    check = {"kind": kind, "label": "row 2", "statistic": 91.0, "p_value": 1e-15, "alpha": 1e-9, "passed": False,
             "df": 4, "figure": figure}
    return {"name": name, "suite": suite, "title": name.replace("_", " "), "title_zh": name, "verdict": "WA",
            "message": f"{name}: the draws do not follow the target distribution", "time_ms": 12.0,
            "statistic": 91.0, "p_value": 1e-15, "diagnosis": None, "diagnosis_zh": None, "checks": [check],
            "sandbox": "local", "rule": "", "rule_zh": ""}


REPORT = {"schema": 1, "verdict": "WA", "score": {"passed": 0, "total": 3}, "seed": 7,
          "message": "sample_follows_top_k: the draws do not follow the target distribution",
          "diagnosis": None, "diagnosis_zh": None, "device": "cpu", "sandbox": "local", "time_ms": 30.0,
          "false_failure_budget": {"total": 1e-6}, "output": "", "environment": {},
          "cases": [_case("sample_follows_top_k", "public", "fit", DISTRIBUTION),
                    _case("error_bars_cover", "public", "calibration", CALIBRATION),
                    _case("sample_hidden_rows", "hidden", "fit", DISTRIBUTION)]}

# A Run's worker that answers at once with REPORT (the Run's own judging is test_site.py's): what
# run.js does with a report that carries figures is what this file tests.
FAKE_WORKER = f"""self.onmessage = (event) => {{
  self.postMessage({{type: "started", id: event.data.id}});
  self.postMessage({{type: "report", id: event.data.id, report: {json.dumps({**REPORT, "sandbox": "browser"})}}});
}};"""

DRAWN = """canvas => import('/static/build/figures.js').then(({ Chart }) => {
  const chart = Chart.getChart(canvas);
  return chart && {labels: chart.data.labels, sets: chart.data.datasets.map(set => set.data),
                   title: chart.options.plugins.title.text, role: canvas.getAttribute('role'),
                   name: canvas.getAttribute('aria-label')};
})"""


def _expect_drawn(figures) -> list[dict]:
    expect(figures).to_have_count(2)  # the hidden case's figure is not drawn
    drawn = [figures.nth(i).locator("canvas").evaluate(DRAWN) for i in range(2)]
    assert drawn[0]["labels"] == ["▲ 3", "5", "▲ 17", "8", "120 more"]
    assert drawn[0]["sets"] == [[41, 28, 20, 9, 2], [38.3, 27.8, 23.1, 9.4, 1.5]]
    title = "Each token: observed frequency against target probability (draws: 20000)"
    assert drawn[0]["title"] == drawn[0]["name"] == title
    assert drawn[0]["role"] == "img"
    assert drawn[1]["labels"] == ["▲ z = 1", "▲ z = 2"] and drawn[1]["sets"] == [[68.3, 95.5], [45, 82.5]]
    return drawn


@pytest.mark.audit
def test_a_failed_distribution_is_drawn_on_the_submission_page_and_in_the_run(page, served_site):
    sign_up(page, "ann")
    with services(served_site.app).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        submission = store_graded(session, ann, exercise, "# code\n", REPORT)

    page.goto(f"/submissions/{submission}")
    figures = page.locator("#result figure.check-figure")
    _expect_drawn(figures)
    first = figures.first
    expect(first.locator(".figure-canvas")).to_be_visible()
    expect(first.locator("details.figure-numbers")).not_to_have_attribute("open", "")  # folded once drawn
    expect(first.locator("table.figure-table tbody tr")).to_have_count(5)
    expect(first.locator("tr.marked").first).to_contain_text("▲ farthest off")
    page.wait_for_load_state("networkidle")
    assert accessibility_violations(page) == []
    shoot(page, "distribution-site.png", focus=first)

    page.route("**/static/build/run-worker.js",
               lambda route: route.fulfill(body=FAKE_WORKER, content_type="text/javascript"))
    page.goto("/exercises/39")
    page.get_by_role("button", name="Run in the browser").click()
    result = page.locator("#browser-result")
    expect(result.locator(".verdict-line .v-WA")).to_be_visible()
    _expect_drawn(result.locator("figure.check-figure"))
    expect(result.locator("figure.check-figure table.figure-table").first).to_be_attached()
    assert accessibility_violations(page) == []
    shoot(page, "distribution-run.png", focus=result.locator("figure.check-figure").first)
    assert page.console_errors == []


def test_a_figure_is_drawn_when_the_polled_result_arrives(page, served_site):
    """The page that waited for its verdict swaps the result in (site.js): the swapped-in figures
    are drawn too, not left as bare tables."""
    sign_up(page, "bea")
    with services(served_site.app).sessions() as session:
        bea = session.scalar(select(User).where(User.name == "bea"))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        submission = store_graded(session, bea, exercise, "# code\n", REPORT, status=Status.running, verdict=None,
                                  finished_at=None)
    page.goto(f"/submissions/{submission}")
    expect(page.locator("#result[data-poll-url]")).to_have_count(1)  # waiting, so polling
    with services(served_site.app).sessions() as session:
        grading = session.scalar(select(Grading).where(Grading.submission_id == submission))
        grading.status, grading.verdict, grading.finished_at = Status.done, Verdict.WA, utcnow()
        session.commit()
    expect(page.locator("#result .verdict-line .v-WA")).to_be_visible(timeout=20_000)
    _expect_drawn(page.locator("#result figure.check-figure"))
