"""python -m judge.gradescope: a temporary folder stands in for /autograder; the submission is
judged and results/results.json follows Gradescope's format, hidden evidence in full but the
hidden tests shown only when the instructor says."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from judge import gradescope
from judge.exercises.exercise import resolve
from judge.reports.exports import validate_results_json


@pytest.fixture
def exercise1():
    return resolve("1")


LOCAL = ["--sandbox", "local", "--allow-unsafe-local"]  # these tests pin the format, not the isolation


def _results(root) -> dict:
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert validate_results_json(results) == []
    return results


def test_the_reference_scores_every_test_and_hides_the_hidden_ones_until_the_due_date(tmp_path, exercise1):
    (tmp_path / "submission").mkdir()
    shutil.copy(exercise1.reference_path, tmp_path / "submission" / "001-weighted-coin.py")
    (tmp_path / "submission" / "notes.py").write_text("# a helper module, not the solution\n")
    assert gradescope.main(["--exercise", "1", "--root", str(tmp_path), "--seed", "3", *LOCAL]) == 0
    results = _results(tmp_path)
    assert results["score"] == len(results["tests"]) == results["extra_data"]["max_score"]
    assert results["extra_data"]["seed"] == 3 and results["stdout_visibility"] == "hidden"
    visibility = {tuple(test["tags"]): test["visibility"] for test in results["tests"]}
    assert visibility[("hidden",)] == "after_due_date" and visibility[("public",)] == "visible"


def test_a_hidden_failure_is_explained_in_full_to_instructors_only(tmp_path, monkeypatch, exercise1):
    monkeypatch.setenv(gradescope.ROOT_VARIABLE, str(tmp_path))
    (tmp_path / "submission").mkdir()
    shutil.copy(exercise1.solutions_root / "wrong" / "zero_edge.py", tmp_path / "submission" / "my_coin.py")
    code = gradescope.main(["--exercise", "weighted-coin", "--seed", "3", "--hidden-visibility", "after_published",
                            *LOCAL])
    assert code == 0
    results = _results(tmp_path)
    (failed,) = [test for test in results["tests"] if test["status"] == "failed"]
    assert failed["visibility"] == "after_published" and failed["extra_data"]["suite"] == "hidden"
    assert failed["output"].startswith("Wrong answer (WA)\nflip(p = [0, 1, 0, 1]")  # the message, in full
    assert "flip(p = [0, 1, 0, 1]" not in results["output"]  # shown at once: the rule only
    assert results["score"] == len(results["tests"]) - 1


@pytest.mark.parametrize("files, said", [([], "No Python file was submitted: submit 001-weighted-coin.py."),
                                         (["a.py", "b.py"], "(a.py, b.py) and none is named 001-weighted-coin.py")])
def test_without_one_solution_to_judge_the_student_is_told_what_to_submit(tmp_path, exercise1, files, said):
    (tmp_path / "submission").mkdir()
    for name in files:
        (tmp_path / "submission" / name).write_text("x = 1\n")
    results = gradescope.autograde(exercise1, tmp_path)
    assert _results(tmp_path) == results
    assert results["score"] == 0 and results["tests"] == [] and said in results["output"]


@pytest.mark.parametrize("make", ["link", "link_other_name", "hard_link", "folder", "fifo"])
def test_a_submission_that_is_not_a_plain_file_is_refused_unread(tmp_path, exercise1, make):
    """The autograder reads the submission as root: a link (symbolic or hard, to the reference, to
    any file root may read), a folder or a device named like the solution is refused, and nothing
    of it is read."""
    folder = tmp_path / "submission"
    folder.mkdir()
    name = "mine.py" if make == "link_other_name" else "001-weighted-coin.py"
    if make.startswith("link"):
        (folder / name).symlink_to(exercise1.reference_path.resolve())
    elif make == "hard_link":  # a second name of a file only root may read (same file system as tmp_path)
        secret = tmp_path / "root_only.py"
        secret.write_text("SECRET = 'never shown'\n")
        os.link(secret, folder / name)
    elif make == "folder":
        (folder / name).mkdir()
    else:
        os.mkfifo(folder / name)  # reading a FIFO nobody writes would block the autograder
    found = gradescope.find_submission(folder, exercise1)
    assert isinstance(found, str) and f"{name} is not a plain file" in found
    results = gradescope.autograde(exercise1, tmp_path)
    assert results["score"] == 0 and results["tests"] == [] and "not a plain file" in results["output"]


def test_the_module_runs_as_a_command_and_an_unknown_exercise_is_a_setup_error(tmp_path, project_root):
    env = {**os.environ, gradescope.ROOT_VARIABLE: str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "judge.gradescope", "--exercise", "1", "--lang", "zh", *LOCAL],
                          cwd=project_root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "没有提交 Python 文件" in _results(tmp_path)["output"]
    assert gradescope.main(["--exercise", "777", "--root", str(tmp_path)]) == gradescope.SETUP_ERROR
