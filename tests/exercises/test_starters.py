"""Every exercise's untouched starter fails unnamed: no "Likely mistake" (its functions only raise
NotImplementedError, which is evidence of no mistake), and a report that says which functions are
not implemented yet (docs/report.md, "Likely mistakes")."""

from __future__ import annotations

import pytest

from judge.engine.runner import judge_file
from judge.exercises.exercise import load_all
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict

EXERCISES = load_all()


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_the_starter_gets_no_diagnosis_and_its_functions_are_listed_as_not_implemented(exercise, warm):
    report = judge_file(exercise, exercise.starter_path, seed=7, launcher=warm)
    assert report.verdict is not Verdict.AC
    named = {case.name: case.diagnosis for case in report.cases if case.diagnosis}
    assert report.diagnosis is None and not named, named
    assert report.not_implemented, report.message
    assert set(report.not_implemented) <= {function.name for function in exercise.functions}
