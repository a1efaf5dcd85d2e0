"""Wrong solutions written as patches against the reference (judge/exercises/patches.py)."""

from __future__ import annotations

import ast
import difflib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from judge.authoring.catalogue import parse_wrong_solution
from judge.exercises.exercise import load_all
from judge.exercises.folders import ExerciseError
from judge.exercises.patches import StalePatch, expand, expanded_path, patch_header

ROOT = Path(__file__).resolve().parents[2]

REFERENCE = '''"""Reference solution: a coin."""

import torch


def flip(p, n, generator=None):
    u = torch.rand(n, generator=generator)
    return (u < p).to(torch.int64)


def other():
    return 1
'''

HEADER = """Mistake: the coin compares with 0.5, whatever p is.

Diagnosis: the coin lands heads with the wrong probability

"""

DIFF = """--- a/reference.py
+++ b/reference.py
@@ -5,5 +5,5 @@
 
 def flip(p, n, generator=None):
     u = torch.rand(n, generator=generator)
-    return (u < p).to(torch.int64)
+    return (u < 0.5).to(torch.int64)
 
"""


def _files(tmp_path, patch: str, reference: str = REFERENCE):
    (tmp_path / "wrong").mkdir(exist_ok=True)
    (tmp_path / "reference.py").write_text(reference)
    (tmp_path / "wrong" / "halves.patch").write_text(patch)
    return tmp_path / "wrong" / "halves.patch", tmp_path / "reference.py"


def test_a_patch_expands_to_the_reference_with_its_change_and_the_header_as_docstring(tmp_path):
    source = expand(*_files(tmp_path, HEADER + DIFF))
    assert "(u < 0.5)" in source and "(u < p)" not in source and "def other():" in source
    assert ast.get_docstring(ast.parse(source)) == HEADER.strip()
    assert "Reference solution" not in source  # the reference's docstring gave way to the header's


def test_the_expanded_file_is_a_wrong_solution_like_any_other(tmp_path):
    patch, reference = _files(tmp_path, HEADER + DIFF)
    path = expanded_path(patch, reference)
    assert path.name == "halves.py" and path.read_text() == expand(patch, reference)
    from_file, from_patch = parse_wrong_solution(path), parse_wrong_solution(patch)
    assert from_file.diagnosis == from_patch.diagnosis == "the coin lands heads with the wrong probability"
    assert from_file.mistake == from_patch.mistake
    assert patch_header(patch.read_text()) == HEADER
    reference.write_text(REFERENCE.replace("def other():\n    return 1", "def other():\n    return 2"))
    again = expanded_path(patch, reference)  # an edited reference is expanded anew
    assert again != path and "return 2" in again.read_text()


def test_a_stale_patch_names_the_hunk_and_the_line(tmp_path):
    edited = REFERENCE.replace("u = torch.rand(n, generator=generator)", "u = torch.rand(n, generator=generator, dtype=torch.float64)")
    patch, reference = _files(tmp_path, HEADER + DIFF, edited)
    with pytest.raises(StalePatch) as raised:
        expand(patch, reference)
    message = str(raised.value)
    assert message.startswith("wrong/halves.patch no longer applies to reference.py: hunk 1 (")
    assert "context line 7" in message and "dtype=torch.float64" in message
    assert raised.value.patch == patch
    with pytest.raises(StalePatch, match=re.escape(message)):
        expanded_path(patch, reference)


def test_the_second_hunk_is_named_when_it_alone_no_longer_applies(tmp_path):
    second = DIFF + """@@ -11,2 +11,2 @@
 def other():
-    return 1
+    return 3
"""
    edited = REFERENCE.replace("    return 1\n", "    return 10\n")
    with pytest.raises(StalePatch, match=r"hunk 2 \("):
        expand(*_files(tmp_path, HEADER + second, edited))
    assert "return 3" in expand(*_files(tmp_path, HEADER + second))


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (HEADER, "must hold one unified diff of reference.py; it holds 0"),
        (HEADER + DIFF.replace("reference.py", "starter.py"), "must be a diff of reference.py, not of starter.py"),
        (HEADER + DIFF + DIFF.replace("reference.py", "other.py"), "it holds 2"),
    ],
)
def test_a_patch_that_is_no_diff_of_the_reference_is_refused(tmp_path, patch, message):
    with pytest.raises(StalePatch, match=message):
        expand(*_files(tmp_path, patch))


@pytest.mark.parametrize("exercise", load_all(), ids=lambda e: e.folder)
def test_every_correct_patch_applies_and_is_judged_as_its_expansion(exercise):
    for path in exercise.correct_solution_files():
        if path.suffix == ".patch":
            ast.parse(expanded_path(path, exercise.reference_path).read_text())
    assert [p.stem for p in exercise.correct_solutions()] == [p.stem for p in exercise.correct_solution_files()]
    assert all(p.suffix == ".py" and p.is_file() for p in exercise.correct_solutions())


def test_a_correct_solution_may_be_a_patch_of_the_reference_too(tmp_path):
    """correct/NAME.patch expands like a wrong one; a .py and a .patch of one name are refused."""
    import shutil

    shutil.copytree(ROOT / "exercises" / "001-weighted-coin", tmp_path / "exercises" / "001-weighted-coin")
    solutions = tmp_path / "solutions" / "001-weighted-coin"
    (solutions / "correct").mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / "001-weighted-coin" / "reference.py", solutions / "reference.py")
    reference = (solutions / "reference.py").read_text().splitlines(keepends=True)
    line = next(i for i, text in enumerate(reference) if "torch.rand(" in text)
    changed = reference[line].replace("torch.rand(", "torch.rand(  ")  # the same draw, written otherwise
    diff = "".join(difflib.unified_diff(reference, [*reference[:line], changed, *reference[line + 1 :]],
                                        "a/reference.py", "b/reference.py"))
    (solutions / "correct" / "spaced.patch").write_text("Same draws, spaced otherwise.\n\n" + diff)
    (exercise,) = load_all(tmp_path / "exercises")
    assert [p.name for p in exercise.correct_solution_files()] == ["spaced.patch"]
    (expanded,) = exercise.correct_solutions()
    assert expanded.name == "spaced.py" and "torch.rand(  " in expanded.read_text()
    assert ast.get_docstring(ast.parse(expanded.read_text())) == "Same draws, spaced otherwise."
    (solutions / "correct" / "spaced.py").write_text("")
    with pytest.raises(ExerciseError, match="spaced is both a .py and a .patch"):
        exercise.correct_solutions()
    (solutions / "correct" / "spaced.py").unlink()
    (solutions / "reference.py").write_text("".join(reference).replace("torch.rand(", "torch.rand (", 1))
    with pytest.raises(StalePatch, match="correct/spaced.patch no longer applies"):
        exercise.correct_solutions()


@pytest.mark.parametrize("exercise", load_all(), ids=lambda e: e.folder)
def test_every_patch_of_the_catalogue_applies_and_keeps_its_fields(exercise):
    for path in exercise.wrong_solution_files():
        if path.suffix == ".patch":
            expanded = expanded_path(path, exercise.reference_path)
            ast.parse(expanded.read_text())
            assert parse_wrong_solution(expanded) == parse_wrong_solution(path).__class__(
                expanded, parse_wrong_solution(path).mistake, parse_wrong_solution(path).diagnosis
            )
    assert [p.stem for p in exercise.wrong_solutions()] == [p.stem for p in exercise.wrong_solution_files()]


def test_the_expanded_files_go_when_the_process_ends(tmp_path):
    patch, reference = _files(tmp_path, HEADER + DIFF)
    code = (
        "import sys; from pathlib import Path; from judge.exercises.patches import expanded_path; "
        f"print(expanded_path(Path({str(patch)!r}), Path({str(reference)!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    written = Path(done.stdout.strip())
    assert written.name == "halves.py" and not written.exists() and not written.parent.parent.exists()
