"""Every exercise's browser variant, run as the browser runs it (the torch subset, in one interpreter).

Here the interpreter is CPython with the subset installed as ``torch`` (exercise 39, through the
authors' command); tests/browser/test_pyodide.py runs every exercise's in Pyodide. The reference
passes; every known-wrong solution fails with its diagnosis, except exactly those the exercise lists
as undetectable at the tiny sizes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from judge.browser.catalogue import problems
from judge.exercises.exercise import load_all, load_exercise
from judge.exercises.folders import ExerciseError

WITH_BROWSER = [e for e in load_all() if e.browser is not None]


@pytest.mark.parametrize("exercise", [e for e in WITH_BROWSER if e.number == 39], ids=lambda e: e.folder)
def test_browser_variant_passes_the_reference_and_catches_the_detectable_mistakes(exercise, project_root):
    # Every exercise's catalogue runs in Pyodide, as the page runs it (tests/browser/test_pyodide.py,
    # required under CI); here only 39's, through the command authors run (python -m
    # judge.browser.catalogue NNN), which needs no Node.js: every exercise again under CPython cost
    # make test minutes and showed nothing Pyodide does not.
    done = subprocess.run([sys.executable, "-m", "judge.browser.catalogue", str(exercise.number), "--seed", "11"],
                          cwd=project_root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    outcomes = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["name"] for o in outcomes] == (
        ["reference"]
        + [f"correct/{p.stem}" for p in exercise.correct_solutions()]
        + [p.stem for p in exercise.wrong_solutions()]
    )
    assert problems(exercise, outcomes) == []


def test_browser_variants_never_name_hidden_files(tmp_path, exercise39):
    folder = tmp_path / exercise39.folder
    for part in ("public", "hidden"):
        (folder / "tests" / part).mkdir(parents=True)
        (folder / "tests" / part / f"{part}.py").write_text("")
    toml = (exercise39.root / "exercise.toml").read_text()
    head = toml.split("[browser]")[0]
    for browser, fragment in (
        ('suites = ["public", "hidden"]', "may hold only"),
        ('suites = ["public"]\nfiles = ["tests/public/public.py"]', "not read any more"),
        ('suites = ["public", "tiny"]', "needs tests/public/tiny.py"),
    ):
        (folder / "exercise.toml").write_text(head + "[browser]\n" + browser + "\n")
        with pytest.raises(ExerciseError, match=re.escape(fragment)):
            load_exercise(folder)


def test_tiny_edge_cases_of_exercise_39_match_the_oracle(exercise39):
    """The frozen rows of the tiny variant's edge cases (top-k at its edges, one draw per row,
    extreme uniforms) are what the server's float64 oracle computes, with its margins."""
    import torch

    from judge.exercises.suites import suites_module

    oracle = suites_module(exercise39, "hidden.oracle")
    tiny = suites_module(exercise39, "public.tiny")

    def exact(rows, params):
        return oracle.target(torch.tensor(rows, dtype=torch.float32), params).probs

    edge = [oracle.RowParams(top_k=k) for k in tiny.EDGE_TOP_K]
    torch.testing.assert_close(
        torch.tensor(tiny.EDGE_EXPECTED, dtype=torch.float64), exact(tiny.EDGE_LOGITS, edge), rtol=0, atol=1e-9
    )
    ignored = oracle.mistaken(torch.tensor(tiny.EDGE_LOGITS), edge, "top_k_one_ignored")[3]
    torch.testing.assert_close(
        torch.tensor(tiny.EDGE_TOP_K_ONE_IGNORED, dtype=torch.float64), ignored, rtol=0, atol=1e-9
    )
    tied = exact(tiny.EDGE_LOGITS, edge)[0]
    assert [t for t in range(6) if tied[t] > 0] == list(tiny.EDGE_TIED)
    one = oracle.mistaken(torch.tensor([tiny.ONE_DRAW_ROW]), [oracle.RowParams(top_k=1)], "no_filtering")[0]
    torch.testing.assert_close(torch.tensor(tiny.ONE_DRAW_UNFILTERED, dtype=torch.float64), one, rtol=0, atol=1e-9)
    assert exact([tiny.ONE_DRAW_ROW], [oracle.RowParams(top_k=1)])[0].tolist() == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    extreme = [oracle.RowParams(temperature=t, top_k=k) for t, k in zip(*tiny.EXTREME_PARAMS.values())]
    probs = exact(tiny.EXTREME_LOGITS, extreme)
    torch.testing.assert_close(torch.tensor(tiny.EXTREME_EXPECTED, dtype=torch.float64), probs, rtol=0, atol=1e-9)
    # Rows 0 and 1 exclude both ends (an inverse CDF runs off them); rows 2 and 3 allow one token, not token 0.
    assert all(probs[r, 0] == 0 and probs[r, -1] == 0 and int((probs[r] > 0).sum()) > 1 for r in (0, 1))
    assert all(int((probs[r] > 0).sum()) == 1 and probs[r, 0] == 0 for r in (2, 3))
