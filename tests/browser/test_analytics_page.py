"""The analytics pages in chromium, under the site's Content-Security-Policy: each declared chart
is drawn (Chart.js holds the page's numbers: bars per day, case titles, long labels whole on
several lines, each diagnosis with its exercise on the whole course's page), nothing goes to the
console, and axe finds no violation. With ``PROBJUDGE_SCREENSHOTS=1`` the whole course's page
refreshes docs/screenshots/analytics.png."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from browser_support import shoot
from werkzeug.serving import make_server

from judge.engine.process import LocalLauncher
from tests.web.test_analytics import SWAPPED, build_class
from web.app import create_app
from web.core.config import Settings
from web.services import services

AXE = Path(__file__).resolve().parents[2] / "web" / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
CHARTS = {
    "chart-over-time": ("bar", "x"),
    "chart-first-ac": ("bar", "x"),
    "chart-diagnoses": ("bar", "y"),
    "chart-failing-cases": ("bar", "y"),
}


@pytest.fixture
def analytics_site(sqlite_database, browser):
    """A site on loopback holding the class of tests/web/test_analytics.py; yields (base URL, course id, teacher).

    SQLite only, as every browser test (tests/browser/conftest.py says why): the analytics
    queries run on PostgreSQL in tests/web/test_analytics.py."""
    settings = Settings(database_url=sqlite_database(), secret_key="browser-tests", workers=0,
                        sandbox="local")
    app = create_app(settings, launcher=LocalLauncher(), start_workers=False)
    with services(app).sessions() as session:
        teacher, course, _ = build_class(session)
        teacher.set_password("password123")
        session.commit()
        course_id, name = course.id, teacher.name
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", course_id, name
    server.shutdown()


def _signed_in_page(browser, base: str, name: str, audit: bool = False):
    # Reduced motion: the bars stand at their values at once (for the numbers read and the picture).
    context = browser.new_context(base_url=base, viewport={"width": 1200, "height": 900}, bypass_csp=audit,
                                  reduced_motion="reduce")
    page = context.new_page()
    page.console_messages = []
    page.on("console", lambda message: page.console_messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: page.console_messages.append(f"pageerror: {error}"))
    page.goto("/auth/sign-in?lang=en")
    page.fill("#name", name)
    page.fill("#password", "password123")
    page.locator("form button[type=submit], form input[type=submit]").last.click()
    page.wait_for_load_state("networkidle")
    return context, page


DRAWN = """async () => {
        const { Chart } = await import('/static/build/charts.js');
        return Object.fromEntries([...document.querySelectorAll('canvas[data-chart]')].map(canvas => {
            const chart = Chart.getChart(canvas);
            return [canvas.dataset.chart, {type: chart.config.type, axis: chart.options.indexAxis,
                    labels: chart.data.labels, data: chart.data.datasets.map(set => set.data),
                    name: canvas.getAttribute('aria-label')}];
        }));
    }"""


def _drawn(page, url: str) -> dict:
    page.goto(url)
    page.wait_for_function("() => [...document.querySelectorAll('canvas[data-chart]')]"
                           ".every(canvas => canvas.getAttribute('role') === 'img')")
    return page.evaluate(DRAWN)


def test_each_chart_of_an_exercise_is_drawn_with_the_page_numbers(browser, analytics_site):
    base, course_id, name = analytics_site
    context, page = _signed_in_page(browser, base, name)
    drawn = _drawn(page, f"/courses/{course_id}/analytics?exercise=39")
    assert {key: (value["type"], value["axis"]) for key, value in drawn.items()} == CHARTS
    assert drawn["chart-diagnoses"]["labels"] == ["temperature ignored", "off by one"]
    assert drawn["chart-diagnoses"]["data"] == [[11, 3], [2, 2]]
    assert drawn["chart-first-ac"]["data"] == [[1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1]]
    assert drawn["chart-failing-cases"]["name"] == "Failing cases"
    assert drawn["chart-failing-cases"]["labels"] == ["Uniform logits", "Zipf-shaped logits, top-p 0.9"]
    # The whole course: each diagnosis names its exercise, and a long one is drawn whole on its lines.
    whole = _drawn(page, f"/courses/{course_id}/analytics/course")
    labels = whole["chart-diagnoses"]["labels"]
    assert [" ".join(label) if isinstance(label, list) else label for label in labels] == [
        "Exercise 39: temperature ignored", "Exercise 39: off by one", f"Exercise 1: {SWAPPED}"]
    assert len(labels[2]) > 1 and all(len(line) <= 30 for line in labels[2])  # wrapped, never cut
    assert whole["chart-over-time"]["type"] == "bar"
    ranks = page.locator("#diagnosis-learners tbody tr td:first-child").all_inner_texts()
    assert ranks == ["1", "2", "3"]
    assert page.console_messages == []
    page.set_viewport_size({"width": 1280, "height": 800})
    shoot(page, "analytics.png", focus=page.get_by_role("region", name=re.compile("^Diagnoses")))
    context.close()


@pytest.mark.audit
def test_the_analytics_pages_pass_the_accessibility_checker(browser, analytics_site):
    base, course_id, name = analytics_site
    context, page = _signed_in_page(browser, base, name, audit=True)
    for url in (f"/courses/{course_id}/analytics", f"/courses/{course_id}/analytics?exercise=39",
                f"/courses/{course_id}/analytics/course", f"/courses/{course_id}/analytics?exercise=39&lang=zh"):
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.add_script_tag(path=str(AXE))
        violations = page.evaluate("""async () => (await axe.run(document,
            {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']}))
            .violations.map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map(n => n.target.join(' '))}`)""")
        assert violations == [], url
    context.close()
