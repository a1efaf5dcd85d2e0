"""Every exercise lists its statement's binding sentences with the cases that check them (judge/exercises/clauses.py)."""

from __future__ import annotations

import pytest

from judge.exercises.clauses import contract_problems
from judge.exercises.exercise import load_all


@pytest.mark.parametrize("exercise", load_all(), ids=lambda e: e.folder)
def test_every_binding_sentence_of_the_statement_has_its_checks(exercise):
    problems = contract_problems(exercise)
    assert not problems, "\n".join(problems)
