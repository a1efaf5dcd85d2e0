"""judge.reports.exports: real reports of exercise 1 as Gradescope results.json and JUnit XML, hidden
messages kept out of what a learner may see, and the validator's own rejections."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import pytest

import judge
from judge.exercises.exercise import resolve
from judge.reports.exports import junit_xml, results_json, validate_results_json
from judge.sandbox.launchers import LocalLauncher

SEED = 5
RAISING = """
import torch

def flip(p, n, generator=None):
    raise ValueError("no coin here \\x07 (a bell)")
"""


@pytest.fixture(scope="module")
def reports() -> dict[str, dict]:
    """Exercise 1 judged: the reference, a mistake only a hidden case sees, code that raises, a syntax error.
    Every case runs (``settle=False``), as for a score that counts the cases passed (``--results-json``)."""
    exercise = resolve("1")
    sources = {
        "reference": exercise.reference_path.read_text(encoding="utf-8"),
        "zero_edge": (exercise.solutions_root / "wrong" / "zero_edge.py").read_text(encoding="utf-8"),
        "raising": RAISING,
        "syntax": "def flip(p, n, generator=None:\n",
    }
    return {
        name: judge.grade(exercise, source, seed=SEED, launcher=LocalLauncher(), settle=False).to_json()
        for name, source in sources.items()
    }


def _hidden_messages(report: dict) -> list[str]:
    return [c["message"] for c in report["cases"] if c["suite"] == "hidden" and c["message"]]


def test_the_reference_gets_every_point_and_the_evidence(reports):
    report = reports["reference"]
    results = results_json(report, full_hidden=True)
    assert validate_results_json(results) == []
    assert results["score"] == len(report["cases"]) == results["extra_data"]["max_score"]
    assert all(test["status"] == "passed" and test["score"] == test["max_score"] == 1 for test in results["tests"])
    visibility = {test["extra_data"]["case"]: test["visibility"] for test in results["tests"]}
    suites = {case["name"]: case["suite"] for case in report["cases"]}
    assert {visibility[n] for n, s in suites.items() if s == "hidden"} == {"after_due_date"}
    assert {visibility[n] for n, s in suites.items() if s != "hidden"} == {"visible"}
    extra = results["extra_data"]
    assert extra["seed"] == SEED and extra["judge_version"] == report["judge_version"]
    assert extra["false_failure_budget"] == report["false_failure_budget"]
    checks = [check for test in results["tests"] for check in test["extra_data"]["checks"]]
    assert checks and all({"kind", "statistic", "p_value", "alpha", "passed"} <= set(check) for check in checks)
    assert results["output_format"] == results["test_output_format"] == "text"
    assert json.loads(json.dumps(results, allow_nan=False)) == results


def test_a_failing_hidden_case_is_scored_and_explained_in_full_for_instructors(reports):
    report = reports["zero_edge"]
    results = results_json(report, full_hidden=True, hidden_visibility="after_published")
    assert validate_results_json(results) == []
    failed = [test for test in results["tests"] if test["status"] == "failed"]
    assert [test["extra_data"]["case"] for test in failed] == ["edges"]
    assert results["score"] == len(report["cases"]) - 1
    (message,) = _hidden_messages(report)
    assert message in failed[0]["output"] and failed[0]["visibility"] == "after_published"
    assert "Likely mistake: p = 0 can still give a 1" in failed[0]["output"]
    assert message not in results["output"]  # the top-level output is shown at once: the site's headline
    assert "Wrong answer (WA)" in results["output"]


def test_results_in_chinese_name_tests_by_their_chinese_titles(reports):
    results = results_json(reports["zero_edge"], full_hidden=True, lang="zh")
    assert "答案错误" in results["output"] and any("0 和 1" in test["name"] for test in results["tests"])


def test_an_unknown_visibility_is_refused(reports):
    with pytest.raises(ValueError, match="after_due_date"):
        results_json(reports["reference"], full_hidden=True, hidden_visibility="later")


@pytest.mark.parametrize("name", ["zero_edge", "raising"])
def test_without_full_hidden_no_hidden_message_seed_or_output_leaves(reports, name):
    report = reports[name]
    hidden = _hidden_messages(report)
    assert hidden
    exported = [json.dumps(results_json(report, full_hidden=False), ensure_ascii=False),
                junit_xml(report, full_hidden=False)]
    for text in exported:
        for message in hidden:
            assert message not in text
        assert str(report["seeds"][report["cases"][0]["name"]]) not in text
    results = results_json(report, full_hidden=False)
    assert validate_results_json(results) == []
    assert "seed" not in results["extra_data"] and "output" not in results["extra_data"]
    for test in results["tests"]:
        if test["tags"] == ["hidden"]:
            assert test["extra_data"]["statistic"] is None and test["extra_data"]["time_ms"] is None
            assert all(set(check) <= {"kind", "alpha", "passed"} for check in test["extra_data"]["checks"])
            if test["status"] == "failed":  # the rule a learner is shown, not the message
                case = next(c for c in report["cases"] if c["name"] == test["extra_data"]["case"])
                assert (case["rule"] or case["title"]) in test["output"]


BROKEN = [
    ("not an object", lambda r: ["score", 1]),
    ("score is not the sum", lambda r: {**r, "score": r["score"] + 1}),
    ("unknown status", lambda r: _first_test(r, status="ok")),
    ("unknown visibility", lambda r: {**r, "visibility": "public"}),
    ("unknown test visibility", lambda r: _first_test(r, visibility="students")),
    ("score as text", lambda r: _first_test(r, score="1")),
    ("NaN", lambda r: {**r, "score": float("nan")}),
    ("boolean score", lambda r: _first_test(r, max_score=True)),
    ("tests not a list", lambda r: {**r, "tests": {"a": 1}}),
    ("unknown field", lambda r: {**r, "max_score": 10}),
    ("no score", lambda r: {"output": "nothing"}),
    ("tags not strings", lambda r: _first_test(r, tags=[1])),
    ("format", lambda r: {**r, "output_format": "rtf"}),
    ("not JSON", lambda r: {**r, "extra_data": {"when": object()}}),
]


def _first_test(results: dict, **changes) -> dict:
    broken = copy.deepcopy(results)
    broken["tests"][0].update(changes)
    return broken


@pytest.mark.parametrize("mutate", [m for _, m in BROKEN], ids=[name for name, _ in BROKEN])
def test_validate_rejects_broken_results(reports, mutate):
    results = results_json(reports["zero_edge"], full_hidden=True)
    assert validate_results_json(results) == []
    assert validate_results_json(mutate(results)) != []


def _suites(xml: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml)
    assert root.tag == "testsuites"
    return {suite.get("name"): suite for suite in root.findall("testsuite")}


def test_junit_of_the_reference_has_one_suite_per_suite_and_one_case_per_case(reports):
    report = reports["reference"]
    xml = junit_xml(report, full_hidden=True)
    root = ET.fromstring(xml)
    suites = _suites(xml)
    names = {case["suite"] for case in report["cases"]}
    assert set(suites) == {f"probjudge.weighted-coin.{suite}" for suite in names}
    assert root.get("tests") == str(len(report["cases"]))
    assert (root.get("failures"), root.get("errors"), root.get("skipped")) == ("0", "0", "0")
    for name, suite in suites.items():
        cases = suite.findall("testcase")
        assert suite.get("tests") == str(len(cases)) and {c.get("classname") for c in cases} == {name}
        assert all(float(c.get("time")) >= 0 for c in cases)
        properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
        assert properties["seed"] == str(SEED) and properties["verdict"] == "AC"
    distribution = next(c for c in root.iter("testcase") if c.get("name") == "distribution")
    assert "p_value=" in distribution.find("system-out").text and "alpha=" in distribution.find("system-out").text


def test_junit_marks_wrong_answers_failures_errors_errors_and_skipped_cases_skipped(reports):
    hidden = _suites(junit_xml(reports["zero_edge"], full_hidden=True))["probjudge.weighted-coin.hidden"]
    (failure,) = hidden.iter("failure")
    assert hidden.get("failures") == "1" and failure.get("type") == "WA"
    assert failure.get("message").startswith("flip(p = [0, 1, 0, 1]") and "Likely mistake" in failure.text

    raising = ET.fromstring(junit_xml(reports["raising"], full_hidden=True))
    errors = list(raising.iter("error"))
    assert errors and raising.get("errors") == str(len(errors)) and {e.get("type") for e in errors} == {"RE"}
    assert "\\x07 (a bell)" in errors[0].text  # a control character XML cannot hold, escaped

    syntax = ET.fromstring(junit_xml(reports["syntax"], full_hidden=True))
    assert syntax.get("skipped") == syntax.get("tests") == str(len(reports["syntax"]["cases"]))
    assert all(case.find("skipped") is not None for case in syntax.iter("testcase"))
