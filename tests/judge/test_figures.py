"""The figures a failed check of a visible case carries (judge/reports/figures.py, docs/report.md), and
that a hidden case never carries one: made by the checks only when ``ctx.visible``, set by the
runner for every suite but the hidden one, and dropped by :func:`judge.reports.hiding.visible_case`."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from judge.browser.bundle import engine_bundle
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed
from judge.checks.distributions import expect_distribution
from judge.checks.estimators import expect_calibrated
from judge.checks.testing import Context
from judge.engine.runner import judge_file
from judge.exercises.exercise import resolve
from judge.exercises.patches import expanded_path
from judge.reports import figures
from judge.reports.hiding import visible_case
from judge.reports.report import CaseResult, CheckRecord
from judge.verdicts import Verdict

PROJECT = Path(__file__).resolve().parents[2]


def _ctx(*, visible: bool = True) -> Context:
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=4, calibration=2))
    return Context(seed=1, device="cpu", budget=budget, visible=visible)


def _long_tail(size: int = 40) -> list[float]:
    weights = [1.0 / (i + 1) for i in range(size)]
    return [w / sum(weights) for w in weights]


# --- the pure figure --------------------------------------------------------------------------


def test_a_distribution_figure_sorts_by_target_caps_the_bars_and_pools_the_rest():
    probs = _long_tail(40)[::-1] + [0.0]  # ids 0..39 in increasing target; id 40 excluded, never drawn
    n = 10_000
    counts = [round(n * p) for p in probs]
    counts[0] += 60  # the least probable outcome, far outside the 24 bars: a worst cell
    counts[39] -= 60
    figure = figures.distribution_figure(counts, probs, outcome="token")
    bars = figure["bars"]
    assert figure["type"] == "distribution" and figure["n"] == sum(counts)
    assert len(bars) == figures.MAX_BARS + 1  # the 24 most probable, and the worst cell among the rest
    targets = [bar["target"] for bar in bars]
    assert targets == sorted(targets, reverse=True)
    assert [bar["id"] for bar in bars[:24]] == list(range(39, 15, -1))
    assert bars[-1]["id"] == 0 and bars[-1]["worst"] is True
    assert figure["worst"][0] == 0
    pooled = [i for i in range(1, 16)]  # neither the 24 nor the worst cell; id 40 (target 0, not drawn) nowhere
    rest = figure["rest"]
    assert rest["count"] == len(pooled)
    assert rest["observed"] == sum(counts[i] for i in pooled)
    assert rest["target"] == pytest.approx(sum(probs[i] for i in pooled))
    assert rest["expected"] == pytest.approx(figure["n"] * rest["target"], abs=1e-3)
    assert all(bar["id"] != 40 for bar in bars)
    bar = bars[0]
    assert bar["expected"] == pytest.approx(figure["n"] * probs[39], abs=1e-3)
    assert bar["residual"] == pytest.approx((bar["observed"] - bar["expected"]) / math.sqrt(bar["expected"]), abs=1e-3)


def test_the_worst_cells_are_the_three_largest_residuals_past_three_and_a_drawn_excluded_one_first():
    probs = [0.4, 0.3, 0.2, 0.1, 0.0]
    n = 10_000
    counts = [4_000 + 300, 3_000 - 400, 2_000 + 150, 1_000 - 100, 50]  # residuals 15, -23.1, 3.35, -3.16
    counts[0] -= sum(counts) - n
    figure = figures.distribution_figure(counts, probs)
    assert figure["worst"][0] == 4  # drawn although its target is 0: always worst, first
    assert figure["worst"] == [4, 1, 0]  # then by |residual|, three at most
    excluded = next(bar for bar in figure["bars"] if bar["id"] == 4)
    assert excluded == {"id": 4, "target": 0.0, "observed": 50, "expected": 0.0, "residual": None, "worst": True}
    assert [bar["worst"] for bar in figure["bars"]] == [True, True, False, False, True]
    assert figure["rest"] is None


def test_no_cell_is_worst_when_every_residual_is_below_three():
    figure = figures.distribution_figure([510, 490], [0.5, 0.5])
    assert figure["worst"] == [] and not any(bar["worst"] for bar in figure["bars"])


def test_a_calibration_figure_holds_every_z_and_the_nearest_bound_of_a_bounded_coverage():
    figure = figures.calibration_figure(200, [(1.0, 80, 0.6827, 0.6827, False), (2.0, 150, 0.9, 0.97, False)])
    assert figure == {
        "type": "calibration",
        "n": 200,
        "levels": [
            {"z": 1.0, "covered": 80, "expected": 0.6827, "passed": False},
            {"z": 2.0, "covered": 150, "expected": 0.9, "passed": False, "low": 0.9, "high": 0.97},
        ],
    }


# --- the checks make it for a failed visible case only -------------------------------------------


def _draws(probs: list[float], n: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.multinomial(torch.tensor(probs), n, replacement=True, generator=generator)


def test_a_failed_fit_of_a_visible_case_records_its_figure_with_the_outcome_noun():
    ctx = _ctx()
    target = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
    with pytest.raises(CheckFailed, match="do not follow the target"):
        expect_distribution(ctx, _draws([0.2, 0.3, 0.5], 2000), target, label="row 0", outcome=("side", "面"))
    figure = ctx.records[-1].figure
    assert figure is not None and figure["outcome"] == "side" and figure["outcome_zh"] == "面"
    assert [bar["id"] for bar in figure["bars"]] == [0, 1, 2]
    assert sum(bar["observed"] for bar in figure["bars"]) == figure["n"] == 2000
    assert set(figure["worst"]) == {0, 2}


def test_a_passed_fit_and_a_failed_fit_of_a_hidden_case_record_no_figure():
    passed = _ctx()
    expect_distribution(passed, _draws([0.5, 0.5], 2000), torch.tensor([0.5, 0.5], dtype=torch.float64), label="r")
    hidden = _ctx(visible=False)
    with pytest.raises(CheckFailed, match="do not follow the target"):
        expect_distribution(hidden, _draws([0.9, 0.1], 2000), torch.tensor([0.5, 0.5], dtype=torch.float64), label="r")
    assert passed.records[-1].figure is None and hidden.records[-1].figure is None


def test_a_failed_calibration_records_one_figure_on_its_last_failed_record_covering_every_z():
    ctx = _ctx()
    generator = torch.Generator().manual_seed(3)
    estimates = 0.5 + 0.1 * torch.randn(400, generator=generator, dtype=torch.float64)
    errors = torch.full((400,), 0.03, dtype=torch.float64)  # a third of the true spread: far too narrow
    with pytest.raises(CheckFailed, match="covered the true value"):
        expect_calibrated(ctx, estimates, errors, 0.5, label="p-hat", coverage={1.0: 0.6827, 2.0: 0.9545})
    assert [record.figure is not None for record in ctx.records] == [False, True]
    figure = ctx.records[-1].figure
    assert figure is not None and figure["n"] == 400
    assert [(level["z"], level["expected"], level["passed"]) for level in figure["levels"]] == [
        (1.0, 0.6827, False),
        (2.0, 0.9545, False),
    ]
    assert [level["covered"] for level in figure["levels"]] == [int(record.statistic) for record in ctx.records]
    hidden = _ctx(visible=False)
    with pytest.raises(CheckFailed, match="covered the true value"):
        expect_calibrated(hidden, estimates, errors, 0.5, label="p-hat", coverage={1.0: 0.6827, 2.0: 0.9545})
    assert all(record.figure is None for record in hidden.records)


# --- the report and what a learner sees of it ---------------------------------------------------


def _case_with_figure(suite: str) -> dict:
    record = CheckRecord("fit", "row 0", 50.0, 1e-12, 1e-9, False, 2)
    record.figure = figures.distribution_figure([70, 20, 10], [0.5, 0.3, 0.2])
    return CaseResult("c", suite, "t", Verdict.WA, message="m", checks=[record]).to_json()


def test_a_figure_travels_in_the_case_json_and_a_hidden_case_never_shows_it():
    public = _case_with_figure("public")
    assert public["checks"][0]["figure"]["bars"][0] == {
        "id": 0, "target": 0.5, "observed": 70, "expected": 50.0, "residual": 2.828, "worst": False
    }  # fmt: skip
    assert json.loads(json.dumps(public)) == public
    assert visible_case(public)["checks"][0]["figure"] == public["checks"][0]["figure"]
    shown = visible_case(_case_with_figure("hidden"))
    assert all("figure" not in check for check in shown["checks"])


@pytest.fixture(scope="module")
def sharpened_039_report(tmp_path_factory):
    """A real run (public + hidden) of 039's reference whose sampler draws from probs squared: the
    public fit fails, and so do the hidden ones."""
    exercise = resolve("39")
    source = exercise.reference_path.read_text(encoding="utf-8")
    draw = "return torch.multinomial(probs, num_samples, replacement=True, generator=generator)"
    assert source.count(draw) == 1, "the reference's draw changed: update this wrong solution"
    sharpened = "sharp = probs**2 / (probs**2).sum(dim=-1, keepdim=True)\n    " + draw.replace("(probs,", "(sharp,")
    path = tmp_path_factory.mktemp("sharpened") / "solution.py"
    path.write_text(source.replace(draw, sharpened), encoding="utf-8")
    return judge_file(exercise, path, seed=1).to_json()


def test_a_real_run_draws_the_failed_public_fit_and_never_a_hidden_case(sharpened_039_report):
    cases = sharpened_039_report["cases"]
    hidden = [c for c in cases if c["suite"] == "hidden"]
    assert any(c["verdict"] == "WA" and any(ch["kind"] == "fit" for ch in c["checks"]) for c in hidden)
    assert all(check["figure"] is None for case in hidden for check in case["checks"])
    (public,) = [c for c in cases if c["name"] == "sample_distribution"]
    (figure,) = [check["figure"] for check in public["checks"] if check["figure"]]
    assert figure["type"] == "distribution" and figure["n"] == 4000
    assert [bar["id"] for bar in figure["bars"]] == [0, 1, 2]  # token 3 is outside the nucleus: target 0
    assert figure["bars"][0]["observed"] > figure["bars"][0]["expected"]  # squared: the likeliest drawn more


def test_a_real_run_of_too_narrow_error_bars_draws_their_coverage():
    exercise = resolve("44")
    patch = PROJECT / "solutions/044-importance-sampling/wrong/se_divides_by_n.patch"
    wrong = expanded_path(patch, exercise.reference_path)
    report = judge_file(exercise, wrong, seed=1, suites=("tiny",), settle=False).to_json()  # the case below runs
    (case,) = [c for c in report["cases"] if c["name"] == "calibrated"]
    (figure,) = [check["figure"] for check in case["checks"] if check["figure"]]
    assert figure["type"] == "calibration" and [level["z"] for level in figure["levels"]] == [1.0, 2.0]
    assert all(level["covered"] / figure["n"] < level["expected"] for level in figure["levels"])


def test_the_figures_go_to_the_browser_and_import_nothing_but_the_standard_library(project_root):
    assert "judge/reports/figures.py" in zipfile.ZipFile(io.BytesIO(engine_bundle())).namelist()
    script = "import sys, judge.reports.figures\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'judge')))"
    done = subprocess.run([sys.executable, "-c", script], cwd=project_root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # judge.reports is a package whose __init__ is a docstring only (tests/test_layout_docs.py)
    assert done.stdout.strip() == "['judge', 'judge.reports', 'judge.reports.figures']"


def test_a_real_run_of_43_draws_the_number_accepted_with_its_own_noun():
    exercise = resolve("43")
    patch = PROJECT / "solutions/043-speculative-sampling/wrong/num_counts_all_acceptances.patch"
    path = expanded_path(patch, exercise.reference_path)
    report = judge_file(exercise, path, seed=1, suites=("public",), settle=False).to_json()  # every case runs
    figures_of = [check["figure"] for case in report["cases"] for check in case["checks"] if check["figure"]]
    accepted = [figure for figure in figures_of if figure["outcome"] == "number accepted"]
    assert accepted and accepted[0]["outcome_zh"] == "接受个数"
    targets = [bar["target"] for bar in accepted[0]["bars"]]
    assert targets == sorted(targets, reverse=True) and accepted[0]["worst"]
