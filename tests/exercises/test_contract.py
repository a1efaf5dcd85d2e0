"""Every exercise lists its statement's binding sentences with the cases that check them (judge/clauses.py)."""

from __future__ import annotations

import pytest

from judge.clauses import contract_problems
from judge.exercise import load_all


@pytest.mark.parametrize("exercise", load_all(), ids=lambda e: e.folder)
def test_every_binding_sentence_of_the_statement_has_its_checks(exercise):
    problems = contract_problems(exercise)
    assert not problems, "\n".join(problems)
