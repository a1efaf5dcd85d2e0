"""A run stops at the first case that fails naming a mistake (judge/engine/settling.py): the same
verdict, message and headline as a run of every case, whatever the lanes' timing."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.engine.runner import judge_file
from judge.engine.settling import Settlement, settles
from judge.exercises.exercise import resolve
from judge.exercises.patches import expanded_path
from judge.reports.report import CaseResult
from judge.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions" / "039-sampling"


def _result(verdict: Verdict, diagnosis: str | None = None) -> CaseResult:
    return CaseResult("case", "hidden", "a case", verdict, diagnosis=diagnosis)


@pytest.mark.parametrize(
    ("verdict", "diagnosis", "settled"),
    [
        (Verdict.WA, "a named mistake", True),
        (Verdict.RE, "a named mistake", True),
        (Verdict.TLE, "a named mistake", True),
        (Verdict.WA, None, False),  # a later case may still name the mistake
        (Verdict.WA, "", False),
        (Verdict.IE, "a named mistake", False),  # the judge's fault settles nothing
        (Verdict.AC, None, False),
        (Verdict.SK, "a named mistake", False),
    ],
)
def test_only_a_failure_that_names_a_mistake_settles_a_run(verdict, diagnosis, settled):
    assert settles(_result(verdict, diagnosis)) is settled


def test_the_lowest_settling_case_decides_whatever_order_the_lanes_report_in():
    settlement = Settlement()
    settlement.record(9, _result(Verdict.WA, "later"))
    assert settlement.deciding == 9 and settlement.skip(10) and not settlement.skip(3)
    settlement.record(4, _result(Verdict.WA, "earlier"))
    settlement.record(6, _result(Verdict.WA, "between"))
    settlement.record(2, _result(Verdict.WA))  # names nothing
    assert settlement.deciding == 4
    assert not settlement.skip(4) and settlement.skip(5) and not settlement.skip(0)


def test_a_fixed_run_settles_nothing():
    settlement = Settlement(enabled=False)
    settlement.record(0, _result(Verdict.WA, "named"))
    assert settlement.deciding is None and not settlement.skip(1)


@pytest.fixture(scope="module")
def exercise():
    return resolve("39")


def _cases(report) -> list[tuple[str, str]]:
    return [(case["name"], case["verdict"]) for case in report["cases"]]


@pytest.fixture(scope="module")
def no_filtering(exercise):
    """One wrong solution judged sequentially on one and two lanes and fixed, under one seed."""
    path = SOLUTIONS / "wrong" / "no_filtering.py"
    return {
        "one lane": judge_file(exercise, path, seed=11).to_json(),
        "two lanes": judge_file(exercise, path, seed=11, lanes=2).to_json(),
        "fixed": judge_file(exercise, path, seed=11, sequential=False).to_json(),
    }


def test_the_cases_after_the_deciding_one_are_skipped_and_say_why(no_filtering):
    report = no_filtering["one lane"]
    verdicts = [case["verdict"] for case in report["cases"]]
    deciding = next(i for i, case in enumerate(report["cases"]) if case["verdict"] != "AC" and case["diagnosis"])
    assert all(v != "SK" for v in verdicts[: deciding + 1])
    assert verdicts[deciding + 1 :] and all(v == "SK" for v in verdicts[deciding + 1 :])
    title = report["cases"][deciding]["title"]
    title_zh = report["cases"][deciding]["title_zh"]
    for case in report["cases"][deciding + 1 :]:
        assert case["rule"] == f"not run: the verdict was settled by an earlier case ({title})"
        assert case["rule_zh"] == f"未运行：前面的测试点（{title_zh}）已经确定了结果"
        assert case["message"] == ""  # the rule says it, in the learner's language


def test_a_settled_run_says_what_a_fixed_run_says(no_filtering):
    sequential, fixed = no_filtering["one lane"], no_filtering["fixed"]
    for key in ("verdict", "message", "diagnosis", "diagnosis_zh", "message_zh"):
        assert sequential[key] == fixed[key], key
    assert all(v != "SK" for _, v in _cases(fixed))
    deciding = sum(v != "SK" for _, v in _cases(sequential))
    assert _cases(sequential)[:deciding] == _cases(fixed)[:deciding]
    assert sequential["timing"]["calls"] < fixed["timing"]["calls"]


def test_two_lanes_report_exactly_what_one_lane_reports(no_filtering):
    """Another lane may have run a case past the deciding one before it was known: dropped all the same."""
    one, two = no_filtering["one lane"], no_filtering["two lanes"]
    assert _cases(one) == _cases(two)
    assert [case["rule"] for case in one["cases"]] == [case["rule"] for case in two["cases"]]
    assert (one["verdict"], one["diagnosis"]) == (two["verdict"], two["diagnosis"])


def test_a_failure_that_names_nothing_runs_on_to_the_case_that_names_it(exercise, tmp_path):
    """The starter names no mistake: every case runs (nothing settles), as in a fixed run."""
    report = judge_file(exercise, exercise.starter_path, seed=3).to_json()
    assert report["verdict"] != "AC" and not report["diagnosis"]
    assert all(case["verdict"] != "SK" for case in report["cases"])


def test_a_mistake_shown_in_a_sixteenth_of_a_sample_stops_there(exercise, tmp_path):
    """39's staged mixed rows: a sampler whose draws come in antithetic pairs is rejected after the first stage."""
    path = expanded_path(SOLUTIONS / "wrong" / "antithetic_pairs.patch", exercise.reference_path)
    report = judge_file(exercise, path, seed=5).to_json()
    failing = next(case for case in report["cases"] if case["verdict"] == "WA")
    assert failing["name"] == "sample_mixed_rows", failing
    assert "[stage 1 of 3, after 63 of 1000 copies of each row]" in failing["message"]
    fixed = judge_file(exercise, path, seed=5, sequential=False).to_json()
    assert (report["verdict"], report["diagnosis"]) == (fixed["verdict"], fixed["diagnosis"])
    # What the learner's process sent back (draws, mostly): a count, not a time, so load cannot move it.
    assert report["timing"]["bytes_received"] * 2 < fixed["timing"]["bytes_received"]
