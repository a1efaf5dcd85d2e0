"""Tests of the tests, for every exercise: references pass (under many seeds), wrong ones fail, diagnosed."""

from __future__ import annotations

import pytest

from judge.catalogue import check_exercise, diagnosis_found, parse_wrong_solution
from judge.exercise import load_all
from judge.process import LearnerProcess
from judge.runner import judge_file
from judge.verdicts import Verdict

EXERCISES = load_all()
SEEDS = range(200)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_check_passes(exercise):
    outcomes = check_exercise(exercise, seed=20261129)
    failures = [f"{o.solution}: {o.problem}" for o in outcomes if not o.ok]
    assert not failures, "\n".join(failures)
    assert outcomes[0].solution == "reference" and len(outcomes) >= 2


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_reference_passes_under_200_seeds(exercise):
    """The documented false-failure bound makes a failure here a one-in-5000 event at most."""
    with LearnerProcess(exercise.reference_path, memory_limit_mb=exercise.memory_limit_mb) as process:
        failed = []
        for seed in SEEDS:
            report = judge_file(exercise, exercise.reference_path, seed=seed, process=process)
            if report.verdict is not Verdict.AC:
                failed.append(f"seed {seed}: {report.message}")
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_every_wrong_solution_states_its_mistake_and_diagnosis(exercise):
    for path in exercise.wrong_solutions():
        wrong = parse_wrong_solution(path)
        assert len(wrong.mistake) > 20 and len(wrong.diagnosis) > 5, path


def test_a_wrong_solution_without_its_docstring_is_refused(tmp_path):
    from judge.exercise import ExerciseError

    path = tmp_path / "bad.py"
    path.write_text('"""Only a mistake.\n\nMistake: something"""\n')
    with pytest.raises(ExerciseError, match="Diagnosis"):
        parse_wrong_solution(path)


def test_diagnosis_must_appear_in_a_failing_case(exercise39):
    report = judge_file(exercise39, exercise39.solutions_root / "wrong" / "top_k_plus_one.py", seed=3)
    assert report.verdict is Verdict.WA
    assert diagnosis_found(report, "top-k keeps one token too many")
    assert not diagnosis_found(report, "the rows share the same random numbers")
