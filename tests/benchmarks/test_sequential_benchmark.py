"""benchmarks/sequential.py on the smallest catalogue (exercise 1): both ways judged under the same
seed, the same verdicts and headlines, the wrong solutions cheaper in what they drew."""

from __future__ import annotations

from benchmarks.sequential import FIGURES, _ratio, measure
from judge.exercises.exercise import resolve
from judge.sandbox.launchers import WarmLocalLauncher


class _Quiet:
    def print(self, *args, **kwargs) -> None:
        raise AssertionError(f"a verdict or headline differed: {args}")


def test_every_solution_is_judged_both_ways_with_the_same_verdict_and_headline():
    exercise = resolve("1")
    with WarmLocalLauncher() as launcher:
        result = measure(exercise, 1, launcher, _Quiet())
    assert result["all_same"] and result["exercise"] == 1
    kinds = {row["kind"] for row in result["rows"]}
    assert kinds == {"wrong", "correct"}
    assert result["summary"]["wrong"]["solutions"] == len(exercise.wrong_solution_files())
    for row in result["rows"]:
        assert set(FIGURES) <= set(row["fixed"]) and set(FIGURES) <= set(row["sequential"])
        if row["kind"] == "correct":  # a correct solution runs every case both ways
            assert row["fixed"]["verdict"] == row["sequential"]["verdict"] == "AC"
            assert row["fixed"]["cases_run"] == row["sequential"]["cases_run"]
        else:
            assert row["sequential"]["cases_run"] <= row["fixed"]["cases_run"]
    # Calls, not times: a count that load cannot move.
    assert _ratio(result["summary"]["wrong"]["calls"]) >= 1.0


def test_a_ratio_is_fixed_over_sequential():
    assert _ratio({"fixed": 30.0, "sequential": 10.0}) == 3.0
    assert _ratio({"fixed": 1.0, "sequential": 0.0}) == float("inf")
