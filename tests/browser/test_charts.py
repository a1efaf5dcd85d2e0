"""web/frontend/src/charts.js in chromium: a chart declared in JSON (no inline script, under the
site's Content-Security-Policy) is drawn, with role="img" and its accessible name, and stays still for a
reader who asks for reduced motion; a chart of counts draws every label whole (on several lines where
long), its axis from 0 to the largest count in whole numbers, and equal counts as equal bars."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser_support import unavailable

from web.app import CONTENT_SECURITY_POLICY

BUNDLE = Path(__file__).resolve().parents[2] / "web" / "static" / "build" / "charts.js"
ORIGIN = "http://charts.test"
SPEC = {"type": "horizontal-bar", "labels": ["001", "039"], "xTitle": "share of learners",
        "datasets": [{"label": "accepted", "data": [0.82, 0.41]}, {"label": "tried", "data": [0.95, 0.7]}]}
LONG = "the logits are multiplied by the temperature instead of divided by it, so hot is cold"
CHINESE = "温度被忽略：采样时没有除以温度，分布和温度为一时完全一样"
COUNTS = {"type": "horizontal-bar", "labels": [LONG, "off by one", CHINESE],
          "datasets": [{"label": "attempts", "data": [11, 3, 3]}]}
PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<script type="module" src="/charts.js"></script></head>
<body><div style="width: 480px">
<canvas id="bars" data-chart="bars-data" data-chart-label="Learners who solved each exercise"></canvas>
<script type="application/json" id="bars-data">{json.dumps(SPEC)}</script>
<canvas id="orphan" data-chart="no-such-data"></canvas>
<canvas id="counts" data-chart="counts-data" data-chart-label="Diagnoses"></canvas>
<script type="application/json" id="counts-data">{json.dumps(COUNTS)}</script>
</div></body></html>"""


@pytest.fixture
def chromium(browser):
    """The session's chromium (conftest.py): Playwright's sync API runs one instance per thread,
    so a second ``sync_playwright()`` beside it fails once another browser test has started it."""
    if not BUNDLE.is_file():
        unavailable("web/static/build/charts.js is not built: run `make assets`")
    return browser


def _serve(route) -> None:
    if route.request.url.endswith("/charts.js"):
        route.fulfill(body=BUNDLE.read_bytes(), content_type="text/javascript")
    else:
        route.fulfill(body=PAGE, content_type="text/html", headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY})


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_declared_chart_is_drawn_as_an_image_with_its_name(chromium, motion):
    context = chromium.new_context(reduced_motion=motion)
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: messages.append(f"pageerror: {error}"))
    page.route(f"{ORIGIN}/**", _serve)
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("() => document.querySelector('#bars').getAttribute('role') === 'img'")
    drawn = page.evaluate("""async () => {
        const { Chart } = await import('/charts.js');
        const canvas = document.querySelector('#bars');
        const chart = Chart.getChart(canvas);
        return {label: canvas.getAttribute('aria-label'), type: chart.config.type,
                axis: chart.options.indexAxis, labels: chart.data.labels,
                sets: chart.data.datasets.map(set => [set.label, set.data]),
                xTitle: chart.options.scales.x.title.text,
                animation: Chart.defaults.animation === false,
                orphan: document.querySelector('#orphan').getAttribute('role')};
    }""")
    assert drawn == {"label": "Learners who solved each exercise", "type": "bar", "axis": "y",
                     "labels": SPEC["labels"], "sets": [[s["label"], s["data"]] for s in SPEC["datasets"]],
                     "xTitle": SPEC["xTitle"], "animation": motion == "reduce", "orphan": None}
    # Drawn: the chart's canvas has painted pixels, the orphan's none.
    painted = """id => { const canvas = document.getElementById(id);
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0; for (let i = 3; i < pixels.length; i += 4) count += pixels[i] > 0; return count; }"""
    page.wait_for_function(f"() => ({painted})('bars') > 1000")
    assert page.evaluate(painted, "orphan") == 0
    assert messages == ['warning: chart: no <script type="application/json" id="no-such-data">']
    if motion == "reduce":  # once is enough: the counts' chart does not depend on motion
        _counts_are_drawn_whole_and_to_scale(page)
    context.close()


def _counts_are_drawn_whole_and_to_scale(page) -> None:
    counts = page.evaluate("""async () => {
        const { Chart } = await import('/charts.js');
        const chart = Chart.getChart(document.querySelector('#counts'));
        const x = chart.scales.x, y = chart.scales.y;
        const bars = chart.getDatasetMeta(0).data.map(bar => Math.round(bar.width));
        return {labels: chart.data.labels, min: x.min, max: x.max, ticks: x.ticks.map(tick => tick.value),
                shown: y.ticks.length, bars,
                labelsLeft: y.left, chartLeft: chart.chartArea.left};
    }""")
    long_lines, short, chinese = counts["labels"]
    assert isinstance(long_lines, list) and len(long_lines) > 1 and " ".join(long_lines) == LONG  # whole, wrapped
    assert all(len(line) <= 30 for line in long_lines)
    assert short == "off by one"  # a short label stays one line
    assert "".join(chinese) == COUNTS["labels"][2] and len(chinese) > 1  # Chinese breaks between characters
    assert (counts["min"], counts["max"]) == (0, 11)  # the axis ends at the largest count (not at 12)
    assert counts["ticks"] and all(float(tick).is_integer() for tick in counts["ticks"])
    assert counts["shown"] == 3  # no label skipped for room
    assert counts["bars"][1] == counts["bars"][2] and counts["bars"][0] > counts["bars"][1]  # a tie: equal bars
    assert counts["labelsLeft"] >= 0  # the labels' column starts inside the canvas: nothing cut at the start
