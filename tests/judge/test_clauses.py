"""The statement's contract list (judge/exercises/clauses.py): which sentences bind, and what the list must hold."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from judge.exercises.clauses import (
    ContractError,
    contract_path,
    contract_problems,
    load_contract,
    statement_clauses,
    statement_sentences,
)
from judge.exercises.exercise import load_exercise

STATEMENT = textwrap.dedent(
    """\
    # 9. A statement

    ## Contract

    ```python
    def f(x) -> Tensor  # this must be ignored: it is code
    ```

    - `x` is a float tensor. The result has the dtype of `x`.
    - Draws are independent: within a row and across rows.
    - A token of probability 0 must never be returned. Ties go to
      the first index.

    Raise `ValueError` with a message when:

    - `x` is not 2-D;
    - `x` holds NaN.

    Afterwards, an ordinary paragraph that binds nothing.

    Every function raises `ValueError` for: an empty row; a negative entry; an unknown `method`.

    **Left open.** The tests never depend on the order of your draws.
    """
)


def texts(markdown: str) -> list[str]:
    return [sentence.text for sentence in statement_clauses(markdown)]


def test_binding_sentences_are_those_with_must_never_raise_and_the_cases_of_a_refusal_list():
    assert texts(STATEMENT) == [
        "A token of probability 0 must never be returned.",
        "Raise `ValueError` with a message when:",
        "`x` is not 2-D;",
        "`x` holds NaN.",
        "Every function raises `ValueError` for:",
        "an empty row",
        "a negative entry",
        "an unknown `method`.",
        "**Left open.** The tests never depend on the order of your draws.",
    ]


def test_code_headings_and_tables_never_bind_and_lines_of_a_paragraph_are_joined():
    sentences = statement_sentences(STATEMENT)
    assert not any("ignored" in s.text for s in sentences)
    assert not any(s.text.startswith("#") for s in sentences)
    joined = next(s for s in sentences if s.text.startswith("Ties go"))
    assert joined.text == "Ties go to the first index." and not joined.binding
    assert next(s for s in sentences if "must never" in s.text).line == 11


def test_a_refusal_list_ends_at_the_next_paragraph():
    sentences = statement_sentences(STATEMENT)
    after = next(s for s in sentences if s.text.startswith("Afterwards"))
    assert not after.binding


def test_words_inside_other_words_do_not_bind():
    assert texts("Draws are independent and mustard is yellow; raisins too.") == []
    assert texts("The caller raised nothing.") == ["The caller raised nothing."]


def write_exercise(tmp_path, exercise39, contract: str | None):
    folder = tmp_path / "exercises" / exercise39.folder
    shutil.copytree(exercise39.root, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "statement.en.md").write_text(STATEMENT)
    path = folder / "tests" / "hidden" / "contract.toml"
    path.unlink(missing_ok=True)
    if contract is not None:
        path.write_text(textwrap.dedent(contract))
    return load_exercise(folder)


COMPLETE = """\
    [[clause]]
    quote = "A token of probability 0 must never be returned"
    checks = ["hidden.a", "tiny.b"]

    [[clause]]
    quote = "Raise `ValueError` with a message when"
    checks = ["hidden.bad"]

    [[clause]]
    quote = "`x` is not 2-D"
    checks = ["hidden.bad"]

    [[clause]]
    quote = "`x` holds NaN"
    checks = ["hidden.bad"]

    [[clause]]
    quote = "Every function raises `ValueError` for"
    checks = ["hidden.bad"]

    [[clause]]
    quote = "an empty row"
    checks = ["hidden.bad"]

    [[clause]]
    quote = "a negative entry"
    checks = ["hidden.bad"]

    [[clause]]
    quote = "an unknown `method`"
    checks = ["hidden.bad"]

    [[clause]]
    quote = "The tests never depend on the order"
    note = "a promise of the tests"

    [[clause]]
    quote = "Draws are independent: within a row"
    checks = ["hidden.a"]
    """
CASES = ["hidden.a", "hidden.bad", "tiny.b"]


def test_a_complete_list_has_no_problems(tmp_path, exercise39):
    exercise = write_exercise(tmp_path, exercise39, COMPLETE)
    assert contract_problems(exercise, CASES) == []


def test_a_missing_list_is_a_problem(tmp_path, exercise39):
    exercise = write_exercise(tmp_path, exercise39, None)
    (problem,) = contract_problems(exercise, CASES)
    assert "tests/hidden/contract.toml is missing" in problem


def test_an_uncovered_sentence_is_named_with_its_line(tmp_path, exercise39):
    exercise = write_exercise(tmp_path, exercise39, COMPLETE.replace('quote = "a negative entry"', 'quote = "an empty row"'))
    assert contract_problems(exercise, CASES) == [
        "statement.en.md line 21: no clause quotes 'a negative entry'"
    ]


def test_a_stale_quote_an_unknown_case_and_a_clause_without_checks_or_note_are_problems(tmp_path, exercise39):
    contract = COMPLETE + """
    [[clause]]
    quote = "a sentence the statement no longer has"
    checks = ["hidden.gone"]

    [[clause]]
    quote = "Ties go to the first index"
    """
    problems = contract_problems(write_exercise(tmp_path, exercise39, contract), CASES)
    assert problems == [
        "contract.toml: 'a sentence the statement no longer has' is in no sentence of the statement",
        "contract.toml: 'a sentence the statement no longer has' names 'hidden.gone', which is no case",
        "contract.toml: 'Ties go to the first index' has no checks and no note saying why",
    ]


def test_the_cases_default_to_those_of_the_suites(tmp_path, exercise39):
    exercise = write_exercise(tmp_path, exercise39, COMPLETE)
    problems = contract_problems(exercise)
    assert "contract.toml: 'A token of probability 0 must never be returned' names 'hidden.a', which is no case" in (
        problems
    )
    real = write_exercise(tmp_path / "again", exercise39, COMPLETE.replace('"hidden.a", "tiny.b"', '"hidden.probs_float64"'))
    assert not any("'hidden.probs_float64'" in p for p in contract_problems(real))


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("[[clause]]\nquote = 'short'\nchecks = []", "12 characters or more"),
        ("[[clause]]\nquote = 'a long enough quote'\nchecks = 'hidden.a'", "a list of 'suite.case' names"),
        ("[[clause]]\nquote = 'a long enough quote'\nchecks = ['no_suite']", "a list of 'suite.case' names"),
        ("[[clause]]\nquote = 'a long enough quote'\nnote = ' '", "'note' must be a sentence"),
        ("[[clause]]\nquote = 'a long enough quote'\nwhy = 'x'", "a table of quote, checks and note"),
        ("[clauses]\nquote = 'x'", "unknown key 'clauses'"),
        ("clause = 3", "must be an array of tables"),
        ("[[clause]\n", "contract.toml"),
    ],
)
def test_a_malformed_list_is_refused_naming_the_entry(tmp_path, text, complaint):
    path = tmp_path / "contract.toml"
    path.write_text(text)
    with pytest.raises(ContractError, match="contract.toml") as raised:
        load_contract(path)
    assert complaint in str(raised.value)


def test_contract_path_is_beside_the_hidden_suite(exercise39):
    assert contract_path(exercise39) == exercise39.root / "tests" / "hidden" / "contract.toml"
