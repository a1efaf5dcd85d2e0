"""A failed check's picture on the submission page (web/learning/figures.py, submissions/_figure.html): the
figure and its data table under a failed visible case, in the page and in the result region the
page polls; never for a hidden case, whoever looks; escaped; in the reader's language."""

from __future__ import annotations

import copy

import pytest
from site_client import sign_in, sign_up, submit, wait_for_result
from sqlalchemy import select

from judge.exercises.exercise import resolve
from tests.web.world import store_graded
from web.core.models import Exercise, Role, User
from web.learning.figures import shown_figure
from web.services import services

HIDDEN_ID = 987654  # an outcome id only the hidden case's figure has
DISTRIBUTION = {
    "type": "distribution", "outcome": "token", "outcome_zh": "词元", "n": 20000,
    "bars": [{"id": 3, "target": 0.41, "observed": 7650, "expected": 8200.0, "residual": -6.07, "worst": True},
             {"id": 17, "target": 0.3, "observed": 6500, "expected": 6000.0, "residual": 6.45, "worst": True},
             {"id": 5, "target": 0.28, "observed": 5550, "expected": 5600.0, "residual": -0.67, "worst": False}],
    "rest": {"count": 120, "target": 0.01, "observed": 300, "expected": 200.0},
    "worst": [3, 17],
}
CALIBRATION = {"type": "calibration", "n": 400,
               "levels": [{"z": 1.0, "covered": 180, "expected": 0.6827, "passed": False},
                          {"z": 2.0, "covered": 381, "expected": 0.9545, "passed": True}]}


def _check(kind: str, label: str, figure: dict | None, passed: bool = False) -> dict:
    return {"kind": kind, "label": label, "statistic": 50.0, "p_value": 1e-12, "alpha": 1e-9,
            "passed": passed, "df": 3, "figure": figure}


def _case(name: str, suite: str, checks: list[dict]) -> dict:
    return {"name": name, "suite": suite, "title": name, "title_zh": name, "verdict": "WA",
            "message": f"{name} failed", "time_ms": 5.0, "statistic": 50.0, "p_value": 1e-12,
            "diagnosis": None, "diagnosis_zh": None, "checks": checks, "sandbox": "local",
            "rule": "", "rule_zh": ""}


def _report(distribution: dict = DISTRIBUTION) -> dict:
    hidden_figure = copy.deepcopy(DISTRIBUTION)
    hidden_figure["bars"][0]["id"] = HIDDEN_ID
    cases = [
        _case("sample_fits", "public", [_check("fit", "row 2", distribution),
                                        _check("fit", "row 3", DISTRIBUTION, passed=True)]),
        _case("error_bars", "public", [_check("calibration", "z = 1, 2", CALIBRATION),
                                       _check("calibration", "unknown", {"type": "violin", "n": 3})]),
        _case("sample_hidden", "hidden", [_check("fit", "row 7", hidden_figure)]),
    ]
    return {"schema": 1, "verdict": "WA", "score": {"passed": 0, "total": 3}, "seed": 7,
            "message": "sample_fits failed",
            "diagnosis": None, "diagnosis_zh": None, "device": "cpu", "sandbox": "local", "time_ms": 15.0,
            "false_failure_budget": {"total": 1e-6}, "cases": cases, "output": "", "environment": {}}


@pytest.fixture
def site(make_site):
    """A site with a learner (ann) and an admin (ida); ann's graded submission is app.config["SUBMISSION"]."""
    app = make_site(start_workers=False)
    with services(app).sessions() as session:
        for name, role in (("ann", Role.learner), ("ida", Role.admin)):
            user = User(name=name, role=role)
            user.set_password("password123")
            session.add(user)
        session.commit()
    return app


def _store(app, report: dict) -> int:
    with services(app).sessions() as session:
        ann = session.scalar(select(User).where(User.name == "ann"))
        return store_graded(session, ann, session.scalar(select(Exercise)), "# code\n", report)


def _page(app, viewer: str, path: str, lang: str = "en") -> str:
    client = app.test_client()
    sign_in(client, viewer)
    response = client.get(path, query_string={"lang": lang})
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


def _squeezed(html: str) -> str:
    return " ".join(html.split())


@pytest.mark.parametrize("path", ["/submissions/{id}", "/submissions/{id}/result"])
def test_a_failed_visible_check_shows_its_figure_and_its_numbers(site, path):
    html = _squeezed(_page(site, "ann", path.format(id=_store(site, _report()))))
    assert html.count('<figure class="check-figure"') == 2  # row 2's fit and the calibration; not the passed row 3
    assert '<canvas data-figure="figure-1-1"' in html and '<script type="application/json" id="figure-1-1">' in html
    assert '<details class="figure-numbers" open>' in html  # open until figures.js draws the chart
    assert "row 2: Each token: observed frequency against target probability (draws: 20000)" in html
    # id, target %, observed %, expected count, observed count, marker (colour is not the only mark)
    assert ('<th scope="row">3</th> <td class="number">41</td><td class="number">38.2</td> '
            '<td class="number">8200</td><td class="number">7650</td> <td>▲ farthest off</td>') in html
    assert '<th scope="row">5</th> <td class="number">28</td><td class="number">27.8</td>' in html
    assert '<th scope="row">120 more</th> <td class="number">1</td><td class="number">1.5</td>' in html
    assert ('<th scope="row">z = 1</th> <td class="number">68.3</td><td class="number">45</td> '
            '<td class="number">273.1</td><td class="number">180</td> <td>▲ coverage failed</td>') in html
    assert '<th scope="row">z = 2</th>' in html and "violin" not in html  # an unknown type shows nothing
    if path == "/submissions/{id}":
        assert "build/figures.js" in html


@pytest.mark.parametrize("viewer", ["ann", "ida"])
def test_a_hidden_case_never_shows_a_figure_whoever_looks(site, viewer):
    submission = _store(site, _report())
    for path in (f"/submissions/{submission}", f"/submissions/{submission}/result"):
        html = _page(site, viewer, path)
        assert html.count('<figure class="check-figure"') == 2, path
        assert str(HIDDEN_ID) not in html, path
    if viewer == "ida":  # the instructor sees the hidden case itself, and its message
        assert "sample_hidden failed" in html


def test_the_figure_is_escaped(site):
    hostile = dict(DISTRIBUTION, outcome='<img src=x onerror="alert(1)">')
    html = _page(site, "ann", f"/submissions/{_store(site, _report(hostile))}")
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html  # the caption and the table's heading
    assert "\\u003cimg src=x" in html  # the JSON the chart is drawn from


def test_the_figure_speaks_chinese(site):
    html = _squeezed(_page(site, "ann", f"/submissions/{_store(site, _report())}", lang="zh"))
    assert "row 2: 每个 词元：观测频率与目标概率（20000 次抽样）" in html
    assert "<th scope=\"col\">词元</th><th scope=\"col\" class=\"number\">目标概率 (%)</th>" in html
    assert "<td>▲ 偏离最大</td>" in html and "<td>▲ 覆盖率未通过</td>" in html and "其余 120 个" in html
    assert '"target": "\\u76ee\\u6807\\u6982\\u7387"' in html  # the chart's own words: 目标概率


@pytest.mark.parametrize("figure", [
    None, "distribution", {"type": "violin", "n": 3}, {"type": "distribution", "n": 0, "bars": []},
    {"type": "distribution", "n": 10, "bars": [{"id": 1}]}, {"type": "calibration", "n": 10},
])
def test_a_figure_the_site_cannot_show_is_shown_as_nothing(figure):
    assert shown_figure(figure) is None


def test_a_real_wrong_sampler_graded_by_the_site_shows_the_engines_figure(make_site):
    """End to end: the engine's figure (judge/reports/figures.py) reaches the page the site renders, through
    a real grading of 039's reference drawing from probs**2 (the screenshots' wrong sampler)."""
    draw = "return torch.multinomial(probs, num_samples, replacement=True, generator=generator)"
    source = resolve("39").reference_path.read_text(encoding="utf-8")
    assert source.count(draw) == 1, "039's reference changed: update this test's wrong sampler"
    wrong = source.replace(draw, "sharp = probs**2 / (probs**2).sum(dim=-1, keepdim=True)\n    "
                           + draw.replace("(probs,", "(sharp,"))
    app = make_site()
    client = app.test_client()
    sign_up(client, "bea")
    response = submit(client, wrong)
    assert response.status_code == 302, response.get_data(as_text=True)[:300]
    html = _squeezed(wait_for_result(client, response.headers["Location"]))
    assert '<span class="verdict v-WA"' in html
    assert '<figure class="check-figure"' in html  # a failed public fit, drawn
    assert "observed frequency against target probability" in html
    assert "▲ farthest off" in html
