"""What makes writing an exercise easy: strict `Diagnosis:` matching in the catalogue, clear
misuse errors from the checks, the seed-contract and bad-input helpers, nouns for outcomes."""

from __future__ import annotations

import pytest

from judge.catalogue import DiagnosisPhrase, diagnosis_found, diagnosis_problem, parse_wrong_solution

# --------------------------------------------------------------------------- Diagnosis: matching

FULL = "top-k keeps one token too many (k+1)"


def _report(diagnosis, message="sample, row 0: token 3 was drawn 12 of 400 times; top-k excludes it",
            zh="top-k 多保留了一个 token（k+1 个）", verdict="WA"):
    case = {"name": "top_k", "verdict": verdict, "message": message, "diagnosis": diagnosis,
            "diagnosis_zh": zh if diagnosis else None}
    passed = {"name": "softmax", "verdict": "AC", "message": "", "diagnosis": "the rows share the same random numbers",
              "diagnosis_zh": None}
    return {"verdict": verdict, "message": f"top-k: {message}", "diagnosis": diagnosis,
            "diagnosis_zh": zh if diagnosis else None, "cases": [passed, case]}


def test_a_one_word_phrase_no_longer_passes():
    report = _report(FULL)
    for phrase in ("top-k", "token", "too many", "top-k keeps one token too many", "row 0", "excludes it"):
        assert not diagnosis_found(report, phrase), phrase


def test_the_whole_diagnosis_matches_in_either_language_whatever_its_spacing_and_case():
    report = _report(FULL)
    assert diagnosis_found(report, FULL)
    assert diagnosis_found(report, "Top-K keeps one   token\n too many (k+1).")
    assert diagnosis_found(report, "top-k 多保留了一个 token（k+1 个）")


def test_only_failing_cases_count_and_messages_never_do():
    report = _report(None)
    assert not diagnosis_found(report, "the rows share the same random numbers")  # a passing case's
    assert not diagnosis_found(report, "sample, row 0: token 3 was drawn 12 of 400 times; top-k excludes it")


def test_a_diagnosis_prefix_line_matches_the_opening_words_at_a_word_boundary():
    report = _report(FULL)
    assert diagnosis_found(report, DiagnosisPhrase("top-k keeps one token too many", prefix=True))
    assert diagnosis_found(report, "top-k keeps one", prefix=True)
    assert not diagnosis_found(report, "top-k keeps one tok", prefix=True)
    assert not diagnosis_found(report, "keeps one token too many", prefix=True)


def test_a_mismatch_shows_both_texts():
    problem = diagnosis_problem(_report(FULL), "top-k")
    assert "'top-k'" in problem and repr(FULL) in problem and "equals" in problem
    assert diagnosis_problem(_report(FULL), FULL) == ""
    assert "without a diagnosis" in diagnosis_problem(_report(None), FULL)


def test_the_docstring_gives_the_diagnosis_whole_or_as_a_prefix(tmp_path):
    from judge.exercise import ExerciseError

    path = tmp_path / "wrong.py"
    path.write_text('"""Mistake: keeps k+1 tokens.\n\nDiagnosis: top-k keeps one token\n   too many (k+1)\n"""\n')
    wrong = parse_wrong_solution(path)
    assert wrong.diagnosis == FULL and not wrong.diagnosis.prefix
    path.write_text('"""Mistake: keeps k+1 tokens.\n\nDiagnosis-prefix: top-k keeps one token\n"""\n')
    wrong = parse_wrong_solution(path)
    assert wrong.diagnosis == "top-k keeps one token" and wrong.diagnosis.prefix
    path.write_text('"""Mistake: keeps k+1 tokens.\n\nDiagnosis: a\n\nDiagnosis-prefix: b\n"""\n')
    with pytest.raises(ExerciseError, match="not both"):
        parse_wrong_solution(path)
