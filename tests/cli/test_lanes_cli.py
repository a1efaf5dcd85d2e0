"""practice/judge.py lanes: an author's measurement of case costs against the declared lane weights.

The figures depend on the machine, so these tests check the output's structure and the exit
codes; the one that grades (exercise 1, one run, local level) never looks at a number.
"""

from __future__ import annotations

import json

import pytest

from judge import cli
from judge.authoring import balance
from judge.exercises.exercise import SUITES, resolve
from judge.exercises.suites import load_suite


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_lanes_grades_the_reference_and_prints_every_case_and_both_weightings(capsys):
    code, out, err = run_cli(capsys, "lanes", "1", "--runs", "1", "--warmups", "0", "--sandbox", "local", "--json")
    assert code == 0, err
    data = json.loads(out)
    exercise = resolve("1")
    specs = [case for suite in SUITES for case in load_suite(exercise, suite).cases]
    assert (data["exercise"], data["level"], data["runs"], data["warmups"]) == (1, "local", 1, 0)
    assert [(case["suite"], case["name"]) for case in data["cases"]] == [(spec.suite, spec.name) for spec in specs]
    assert [case["declared"] for case in data["cases"]] == [spec.weight for spec in specs]
    for case in data["cases"]:
        assert case["median_ms"] > 0 and case["learner_cpu_ms"] is None  # local: no CPU column
        assert isinstance(case["suggested"], int) and case["suggested"] >= 1
    for weighting in ("declared", "suggested"):
        lanes = data[weighting]
        assert lanes["lanes"] == 2 and len(lanes["weights"]) == len(lanes["costs_ms"]) == 2
        assert sorted(index for share in lanes["shares"] for index in share) == list(range(len(specs)))
        assert lanes["imbalance"] is None or lanes["imbalance"] >= 1.0
    assert data["tolerance"] is None and data["within_tolerance"] is None
    assert isinstance(data["keeps_declared"], bool) and data["unit_ms"] > 0 and data["unit_step"] in (1, 2, 3, 4)


@pytest.fixture
def measured(monkeypatch):
    """``lanes`` on made-up costs: the heavy case shares a lane with a light one when all weigh
    the same (7 to 3 ms: 2.33 apart); the suggested weights (1, 1, 4, 1) give it a lane of its
    own (6 to 4 ms: 1.50). No grading, no sandbox."""
    cases = [
        balance.CaseCost("public", "light", 1.0, (1.0, 1.0, 1.0), (0.5, 0.5, 0.5)),
        balance.CaseCost("public", "light_too", 1.0, (1.0, 1.0, 1.0), (0.5, 0.5, 0.5)),
        balance.CaseCost("hidden", "heavy", 1.0, (6.0, 6.0, 6.0), (4.0, 4.0, 4.0)),
        balance.CaseCost("hidden", "middle", 1.0, (2.0, 2.0, 2.0), (1.5, 1.5, 1.5)),
    ]

    def measure(exercise, launcher, *, runs, warmups, seed):
        return balance.Measurement(exercise, "strict", runs, warmups, cases)

    class NoLauncher:
        def close(self) -> None:
            pass

    monkeypatch.setattr(balance, "measure", measure)
    monkeypatch.setattr(cli.authoring, "_lanes_launcher", lambda level, err: NoLauncher())


def test_lanes_prints_the_cases_the_lanes_and_the_imbalance_under_each_weighting(capsys, measured):
    code, out, err = run_cli(capsys, "lanes", "1", "--runs", "3")
    assert code == 0, err
    text = " ".join(out.split())
    for phrase in (
        "public/light",
        "hidden/middle",
        "hidden/heavy 1 6.0 4.0 4 *",
        "suggested: time / 1.50 ms (the median case), rounded, at least 1",
        "lanes under the declared weights",
        "lanes under the suggested weights",
        "imbalance (heavier lane / lighter lane, in median ms): 2.33",
        "imbalance (heavier lane / lighter lane, in median ms): 1.50",
    ):
        assert phrase in text, phrase


@pytest.mark.parametrize(("tolerance", "code", "phrase"), [("2", 1, "over"), ("2.5", 0, "within")])
def test_lanes_fails_only_when_asked_and_over_the_tolerance(capsys, measured, tolerance, code, phrase):
    found, out, err = run_cli(capsys, "lanes", "1", "--runs", "3", "--tolerance", tolerance)
    assert found == code, out + err
    assert f"{phrase} the tolerance of {tolerance}" in " ".join(out.split())


@pytest.mark.parametrize("option", [["--tolerance", "0.9"], ["--runs", "0"], ["--warmups", "-1"], ["--lanes", "0"]])
def test_lanes_says_what_is_wrong_with_its_options(capsys, measured, option):
    code, _, err = run_cli(capsys, "lanes", "1", *option)
    assert code == cli.USAGE_ERROR and "error:" in err
