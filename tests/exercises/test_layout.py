"""Every exercise folder has what the format promises, in both languages."""

from __future__ import annotations

import ast
import re

import pytest

from judge.exercises.exercise import LANGUAGES, load_all, public_import_problems, resolve
from judge.exercises.folders import ExerciseError
from judge.exercises.suites import load_suite

EXERCISES = load_all()


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_exercise_folder_is_complete(exercise):
    for lang in LANGUAGES:
        statement = exercise.statement(lang)
        assert statement.startswith("# ") and len(statement) > 500
        for function in exercise.functions:
            assert function.name in statement, (lang, function.name)
        assert exercise.title(lang)
        assert (exercise.solutions_root / f"explanation.{lang}.md").is_file()
    starter = ast.parse(exercise.starter_path.read_text())
    defined = {node.name for node in starter.body if isinstance(node, ast.FunctionDef)}
    assert {f.name for f in exercise.functions} <= defined
    assert exercise.reference_path.is_file()
    assert exercise.wrong_solutions()
    for suite in ("public", "hidden"):
        assert load_suite(exercise, suite).cases
    assert sorted(p.name for p in exercise.tests_dir.iterdir() if p.name != "__pycache__") == ["hidden", "public"]
    assert public_import_problems(exercise) == []


def test_the_repository_pack_holds_exercise_39():
    """Any number of exercises may exist: the listing holds 39 (and make test keeps working with more)."""
    assert 39 in [e.number for e in EXERCISES]
    assert len({e.number for e in EXERCISES}) == len({e.slug for e in EXERCISES}) == len(EXERCISES)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_statements_keep_their_math_balanced(exercise):
    for lang in LANGUAGES:
        text = re.sub(r"```.*?```", "", exercise.statement(lang), flags=re.S)
        text = re.sub(r"`[^`]*`", "", text)
        assert text.count("$$") % 2 == 0
        assert text.replace("$$", "").count("$") % 2 == 0, lang


def test_ids_resolve_by_number_slug_and_folder():
    assert resolve("39").slug == resolve("039").slug == resolve("sampling").slug == resolve("039-sampling").slug
    with pytest.raises(ExerciseError, match=r"known exercises: (.*, )?39 \(sampling\)"):
        resolve("999999")  # any number of exercises may exist; none has six digits
