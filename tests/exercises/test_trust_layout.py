"""The trust boundary is visible in the tree: ``tests/public/`` may reach the learner and the
browser, ``tests/hidden/`` never does, whatever its files are called; exercises come in packs.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import zipfile

import pytest

from judge.browser.bundle import engine_bundle, exercise_files
from judge.exercises.exercise import load_all, load_exercise, resolve
from judge.exercises.folders import ExerciseError
from judge.exercises.suites import load_suite, suites_module, suites_package

SECRET = "hidden-helper-secret-7f3a9c"

TOML = """
number = {number}
slug = "{slug}"
difficulty = "easy"
[title]
en = "Echo"
zh = "回声"
[functions.double]
params = ["x"]
"""

SUITE = '''
from judge.checks.exact import expect
{imports}

def test_doubles(sub, ctx):
    """double doubles

    zh: 翻倍
    """
    expect(sub.double(2) == 4, "double(2) must be 4")
'''


def tiny_exercise(
    pack, number=901, slug="echo", *, public_imports="", hidden_imports="from ..public.values import TWO"
):
    """A one-function exercise in ``pack`` with a public and a hidden suite (the hidden one imports a public helper)."""
    folder = pack / f"{number:03d}-{slug}"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "exercise.toml").write_text(TOML.format(number=number, slug=slug))
    (folder / "tests" / "public" / "values.py").write_text("TWO = 2\n")
    (folder / "tests" / "public" / "public.py").write_text(SUITE.format(imports=public_imports))
    (folder / "tests" / "hidden" / "hidden.py").write_text(SUITE.format(imports=hidden_imports))
    return folder


# --- the browser receives tests/public/, never tests/hidden/ ------------------------------------------


def test_a_file_added_under_hidden_never_reaches_the_browser_bundle(tmp_path, exercise39):
    folder = tmp_path / "exercises" / exercise39.folder
    shutil.copytree(exercise39.root, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tests" / "hidden" / "new_helper.py").write_text(f"KEY = {SECRET!r}\n")
    (folder / "tests" / "hidden" / "notes.txt").write_text(SECRET)
    exercise = load_exercise(folder)

    files = exercise_files(exercise)
    public = sorted(p.relative_to(folder).as_posix() for p in (folder / "tests" / "public").rglob("*.py"))
    assert sorted(files) == ["exercise.toml", *public]  # every file under public/, and only those
    assert public == ["tests/public/diagnoses.py", "tests/public/public.py", "tests/public/tiny.py"]
    payload = json.dumps(files, ensure_ascii=False)
    assert SECRET not in payload and "new_helper" not in payload
    for path in (folder / "tests" / "hidden").rglob("*.py"):  # nor any hidden module's text
        assert all(path.read_text() not in text for text in files.values()), path
    engine = zipfile.ZipFile(io.BytesIO(engine_bundle()))
    assert not [n for n in engine.namelist() if not n.startswith("judge/")]
    assert all(SECRET.encode() not in engine.read(n) for n in engine.namelist())


def test_a_new_public_helper_is_sent_without_being_listed(tmp_path, exercise39):
    folder = tmp_path / "exercises" / exercise39.folder
    shutil.copytree(exercise39.root, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tests" / "public" / "shapes").mkdir()
    (folder / "tests" / "public" / "shapes" / "rows.json").write_text("[1, 2]")
    files = exercise_files(load_exercise(folder))
    assert files["tests/public/shapes/rows.json"] == "[1, 2]"


def test_a_link_under_public_is_refused(tmp_path):
    folder = tiny_exercise(tmp_path / "exercises")
    (folder / "exercise.toml").write_text(TOML.format(number=901, slug="echo") + '[browser]\nsuites = ["public"]\n')
    (folder / "tests" / "public" / "peek.py").symlink_to(folder / "tests" / "hidden" / "hidden.py")
    with pytest.raises(ExerciseError, match="link under tests/public/"):
        exercise_files(load_exercise(folder))


def test_tests_holds_only_the_two_trust_folders(tmp_path):
    folder = tiny_exercise(tmp_path / "exercises")
    (folder / "tests" / "oracle.py").write_text("")
    with pytest.raises(ExerciseError, match="move oracle.py into one of them"):
        load_exercise(folder)


def test_a_file_strayed_into_tests_after_a_first_load_is_refused_too(tmp_path):
    """A long-running site loads an exercise on every grading: its parse is cached, its layout check
    is not (the stray file leaves exercise.toml as it was)."""
    folder = tiny_exercise(tmp_path / "exercises", number=908)
    load_exercise(folder)
    (folder / "tests" / "oracle.py").write_text("")
    with pytest.raises(ExerciseError, match="move oracle.py into one of them"):
        load_exercise(folder)


# --- hidden may import public, never the reverse ------------------------------------------------------


def test_a_hidden_suite_imports_a_public_helper(tmp_path):
    exercise = load_exercise(tiny_exercise(tmp_path / "exercises"))
    assert [c.name for c in load_suite(exercise, "hidden").cases] == ["doubles"]
    assert suites_module(exercise, "hidden.hidden").TWO == 2


@pytest.mark.parametrize(
    "line",
    [
        "from ..hidden import hidden",
        "from ..hidden.hidden import test_doubles",
        "from .. import hidden",
        "from ...x import y",
        "import _probjudge_tests_901.hidden",
    ],
)
def test_a_public_module_importing_hidden_is_refused(tmp_path, line):
    folder = tiny_exercise(tmp_path / "exercises")
    (folder / "tests" / "public" / "values.py").write_text(f"TWO = 2\n\ndef later():\n    {line}\n")
    exercise = load_exercise(folder)
    with pytest.raises(ExerciseError, match=r"values\.py:4: "):
        load_suite(exercise, "public")  # refused however the import is hidden in the module


def test_the_judge_runs_the_tiny_exercise(tmp_path, learner_file):
    from judge.engine.runner import judge_file

    exercise = load_exercise(tiny_exercise(tmp_path / "exercises"))
    right = learner_file("def double(x):\n    return 2 * x\n")
    wrong = learner_file("def double(x):\n    return x + 1\n", "wrong.py")
    assert judge_file(exercise, right, seed=1).verdict.value == "AC"
    assert judge_file(exercise, wrong, seed=1).verdict.value == "WA"


# --- packs --------------------------------------------------------------------------------------------


def test_packs_come_from_probjudge_exercises(tmp_path, monkeypatch, exercise39):
    pack = tmp_path / "course" / "exercises"
    tiny_exercise(pack, 901)
    (tmp_path / "course" / "solutions" / "901-echo").mkdir(parents=True)
    monkeypatch.setenv("PROBJUDGE_EXERCISES", os.pathsep.join([str(pack), str(exercise39.pack)]))
    exercises = load_all()
    assert {39, 901} <= {e.number for e in exercises}
    private = resolve("echo")
    assert private.solutions_root == tmp_path / "course" / "solutions" / "901-echo"
    assert resolve("39").solutions_root == exercise39.solutions_root
    assert load_all(pack) == [private]  # an explicit folder still works
    monkeypatch.delenv("PROBJUDGE_EXERCISES")
    with pytest.raises(ExerciseError, match="no exercise 'echo'; known exercises: "):
        resolve("echo")


def test_a_missing_pack_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBJUDGE_EXERCISES", str(tmp_path / "nowhere"))
    with pytest.raises(ExerciseError, match="PROBJUDGE_EXERCISES: .*nowhere.* is not a folder"):
        load_all()


@pytest.mark.parametrize("number, slug, what", [(39, "echo", "number 39"), (901, "sampling", "slug 'sampling'")])
def test_two_packs_declaring_the_same_exercise_are_refused(tmp_path, monkeypatch, exercise39, number, slug, what):
    pack = tmp_path / "exercises"
    folder = tiny_exercise(pack, number, slug)
    monkeypatch.setenv("PROBJUDGE_EXERCISES", os.pathsep.join([str(exercise39.pack), str(pack)]))
    with pytest.raises(ExerciseError, match=what) as caught:
        load_all()
    assert str(exercise39.root) in str(caught.value) and str(folder) in str(caught.value)


def test_same_numbers_in_two_folders_never_share_suite_modules(tmp_path):
    first = load_exercise(tiny_exercise(tmp_path / "a" / "exercises", 902))
    second_folder = tiny_exercise(tmp_path / "b" / "exercises", 902)
    (second_folder / "tests" / "public" / "values.py").write_text("TWO = 'two'\n")
    second = load_exercise(second_folder)
    assert suites_package(first) != suites_package(second)
    load_suite(first, "public"), load_suite(second, "public")
    assert suites_module(first, "public.values").TWO == 2 and suites_module(second, "public.values").TWO == "two"
