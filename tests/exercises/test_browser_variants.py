"""Every exercise's browser variant, run as the browser runs it (the torch subset, in one interpreter).

Here the interpreter is CPython with the subset installed as ``torch``; tests/browser/ runs the
same code in Pyodide. The reference passes; every known-wrong solution fails with its diagnosis,
except exactly those the exercise lists as undetectable at the tiny sizes.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from judge.browser.catalogue import problems
from judge.exercise import ExerciseError, load_all, load_exercise

WITH_BROWSER = [e for e in load_all() if e.browser is not None]


@pytest.mark.parametrize("exercise", WITH_BROWSER, ids=lambda e: e.folder)
def test_browser_variant_passes_the_reference_and_catches_the_detectable_mistakes(exercise, project_root):
    done = subprocess.run([sys.executable, "-m", "judge.browser.catalogue", str(exercise.number), "--seed", "11"],
                          cwd=project_root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    outcomes = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["name"] for o in outcomes][1:] == [p.stem for p in exercise.wrong_solutions()]
    assert problems(exercise, outcomes) == []


def test_browser_variants_never_name_hidden_files(tmp_path, exercise39):
    folder = tmp_path / exercise39.folder
    folder.mkdir()
    (folder / "tests").mkdir()
    for name in ("__init__.py", "public.py", "hidden.py"):
        (folder / "tests" / name).write_text("")
    toml = (exercise39.root / "exercise.toml").read_text()
    head = toml.split("[browser]")[0]
    for browser, fragment in (('suites = ["public", "hidden"]', "may hold only"),
                              ('suites = ["public"]\nfiles = ["tests/hidden.py"]', "must not send"),
                              ('suites = ["public"]\nfiles = ["../secret.py"]', "is not a file")):
        (folder / "exercise.toml").write_text(head + "[browser]\n" + browser + "\n")
        with pytest.raises(ExerciseError, match=fragment):
            load_exercise(folder)
