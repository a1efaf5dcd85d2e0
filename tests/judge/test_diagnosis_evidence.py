"""A "Likely mistake" only on its own evidence: each failure says what kind of evidence it is,
``diagnosed`` names only its kinds, a NotImplementedError names nothing (a starter's report says
which functions are not implemented yet), and a report never shows two competing likely mistakes."""

from __future__ import annotations

import io
import re

import pytest
import torch
from rich.console import Console

from judge.checks import base, distributions, exact, refusals
from judge.checks.base import CheckFailed, CheckMisuse, diagnosed
from judge.checks.evidence import Evidence
from judge.engine.runner import judge_file
from judge.learner.code import exception_classes
from judge.learner.interface import LearnerRaised
from judge.learner.protocol import ExceptionInfo
from judge.reports.render import render_report
from judge.reports.report import CaseResult, Report
from judge.verdicts import Verdict
from tests.judge.refusals_support import refusals_exercise


def _raised(cls: type[BaseException], message: str = "boom") -> LearnerRaised:
    return LearnerRaised(ExceptionInfo(cls.__name__, message, None, "", False, tuple(exception_classes(cls))))


def _diagnosis_of(block, failing) -> str | None:
    """The diagnosis a failure raised by ``failing()`` inside ``block`` ends with."""
    with pytest.raises((CheckFailed, LearnerRaised)) as caught, block:
        failing()
    return caught.value.diagnosis


def _dtype_failure():
    exact.expect_tensor(torch.zeros(2, dtype=torch.float32), name="var", shape=(2,), dtype=torch.float64)


def _value_failure():
    exact.expect_close(
        torch.tensor([1.0], dtype=torch.float64),
        torch.tensor([2.0], dtype=torch.float64),
        rtol=0.0,
        atol=1e-9,
        what="var",
        per_row=True,
    )


def _out_of_range():
    distributions.expect_tokens_in_range(torch.tensor([0, 7]), 3, what="sample")


def _nan():
    exact.expect_close(torch.tensor([[float("nan")]]), torch.tensor([[0.5]]), rtol=0.0, atol=1e-6, what="p")


def _raise(cls):
    def go():
        raise _raised(cls)

    return go


def test_each_check_says_what_kind_of_evidence_its_failure_is():
    for failing, kind in (
        (_dtype_failure, Evidence.STRUCTURAL),
        (_out_of_range, Evidence.STRUCTURAL),
        (_nan, Evidence.STRUCTURAL),
        (_value_failure, Evidence.VALUE),
    ):
        with pytest.raises(CheckFailed) as failed:
            failing()
        assert failed.value.kind is kind, failing.__name__


def test_a_structural_failure_inside_a_diagnosed_block_gets_no_diagnosis():
    """The dtype failure that got "naive variance"."""
    naive = "the variance is computed as E[x^2] - E[x]^2"
    assert _diagnosis_of(diagnosed(naive), _dtype_failure) is None
    assert _diagnosis_of(diagnosed(naive), _out_of_range) is None
    assert _diagnosis_of(diagnosed(naive), _nan) is None
    assert _diagnosis_of(diagnosed(naive), _raise(IndexError)) is None  # an unrelated exception
    assert _diagnosis_of(diagnosed(naive), lambda: exact.expect(False, "unstated kind")) is None
    assert _diagnosis_of(diagnosed(naive), _value_failure) == naive
    assert _diagnosis_of(diagnosed(naive), lambda: exact.expect(False, "x", kind="value")) == naive


def test_raised_only_names_exceptions_and_never_a_not_implemented_error():
    crash = "the code fails when top_k is larger than the vocabulary"
    assert _diagnosis_of(diagnosed(crash, raised_only=True), _raise(RuntimeError)) == crash
    assert _diagnosis_of(diagnosed(crash, raised_only=True), _raise(NotImplementedError)) is None
    assert _diagnosis_of(diagnosed(crash, raised_only=True), _value_failure) is None


def test_evidence_names_the_kinds_an_author_shows_are_about_the_mistake():
    extreme = "the sampler fails when torch.rand returns 0.0"
    every = diagnosed(extreme, evidence=(Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED))
    assert _diagnosis_of(every, _out_of_range) == extreme
    every = diagnosed(extreme, evidence=("structural", "value", "raised"))
    assert _diagnosis_of(every, _raise(IndexError)) == extreme
    every = diagnosed(extreme, evidence=(Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED))
    assert _diagnosis_of(every, _raise(NotImplementedError)) is None  # never, whatever the block says
    own = diagnosed(extreme, evidence=(Evidence.VALUE,))
    assert _diagnosis_of(own, lambda: exact.expect(False, "x", diagnosis="its own", kind="value")) == "its own"


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"evidence": "value"}, "must be a collection of Evidence kinds (structural, value, raised); got the string"),
        ({"evidence": ()}, "must be a collection of Evidence kinds (structural, value, raised); got a tuple of 0"),
        ({"evidence": ("sideways",)}, "must be an Evidence (structural, value or raised) or None; got the string"),
        ({"evidence": (Evidence.NOT_IMPLEMENTED,)}, "must be kinds among structural, value and raised"),
        ({"evidence": (None,)}, "must be kinds among structural, value and raised"),
        ({"evidence": (Evidence.VALUE,), "raised_only": True}, "must be None when raised_only is given"),
    ],
)
def test_a_malformed_evidence_is_the_exercises_mistake(arguments, message):
    misuse = pytest.raises(CheckMisuse, match=re.escape("diagnosed(): argument `evidence` " + message))
    with misuse, diagnosed("d", **arguments):
        pass


def test_a_kind_that_is_not_evidence_is_the_exercises_mistake():
    with pytest.raises(CheckMisuse, match=re.escape("expect(): argument `kind` must be an Evidence (structural,")):
        exact.expect(True, "fine", kind="sideways")
    with pytest.raises(CheckMisuse, match=re.escape("fail(): argument `kind` must be an Evidence (structural,")):
        base.fail("x", kind=3)


def test_expect_raises_says_its_failures_kind():
    with pytest.raises(CheckFailed) as failed, refusals.expect_raises(ValueError, "f(-1)"):
        raise _raised(NotImplementedError, "write f here")
    assert failed.value.kind is Evidence.NOT_IMPLEMENTED
    with pytest.raises(CheckFailed) as failed, refusals.expect_raises(ValueError, "f(-1)"):
        raise _raised(TypeError)
    assert failed.value.kind is Evidence.RAISED
    with pytest.raises(CheckFailed) as failed, refusals.expect_raises(ValueError, "f(-1)"):
        pass
    assert failed.value.kind is Evidence.VALUE


# --- whole submissions --------------------------------------------------------------------------

SUITE = """
import torch

from judge.checks.base import diagnosed
from judge.checks.exact import expect_close, expect_tensor
from judge.checks.refusals import expect_bad_inputs_refused
from judge.learner.interface import LearnerRaised


def test_value(sub, ctx):
    '''refuse(x, 0) is x + 1

    zh: refuse(x, 0) 等于 x + 1
    '''
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    with diagnosed("adds two instead of one"):
        out = expect_tensor(sub.refuse(x, 0), name="refuse", shape=(2,), dtype=torch.float64, device=ctx.device)
        expect_close(out, x + 1, rtol=0.0, atol=1e-12, what="refuse(x, 0)", per_row=True,
                     mistakes={"adds two, listed": x + 2})


def test_crash(sub, ctx):
    '''other(x, 0) does not crash

    zh: other(x, 0) 不崩溃
    '''
    with diagnosed("crashes on a known input", raised_only=True):
        sub.other(torch.ones(2), 0)


def test_helper_names_every_exception(sub, ctx):
    '''A helper of the exercise names whatever the learner raised

    zh: 练习自己的辅助函数
    '''
    try:
        sub.other(torch.ones(2), 0)
    except LearnerRaised as raised:
        raised.diagnosis = "named by a helper that asks no questions"
        raise


def test_bad_inputs(sub, ctx):
    '''k < 0 raises ValueError

    zh: k < 0 抛出 ValueError
    '''
    expect_bad_inputs_refused(sub.refuse, [("k = -1", {"k": -1}), ("k = -2", {"k": -2})], args=(torch.ones(2),))
"""

STARTER = """
import torch


def refuse(x, k, g=None):
    raise NotImplementedError("refuse: write it here")


def other(x, k, g=None):
    raise NotImplementedError("other: write it here")
"""

HALF_DONE = """
import torch


def refuse(x, k, g=None):
    if k < 0:
        raise ValueError("k must be >= 0")
    return x + 2


def other(x, k, g=None):
    raise NotImplementedError("other: write it here")
"""


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evidence") / "914-evidence"
    return refusals_exercise(folder, SUITE, ("x", "k", "g"), time_limit_s=4.0, wall_limit_s=16.0)


def _render(report: Report, lang: str) -> str:
    out = io.StringIO()
    render_report(report, Console(file=out, width=200, color_system=None), lang)
    return out.getvalue()


def test_a_starter_gets_no_diagnosis_and_a_list_of_what_is_not_implemented(exercise, learner_file):
    report = judge_file(exercise, learner_file(STARTER), seed=3)
    assert report.verdict is Verdict.RE
    assert report.diagnosis is None
    assert [c.diagnosis for c in report.cases] == [None] * len(report.cases)
    assert report.not_implemented == ["refuse", "other"]
    data = report.to_json()
    assert data["not_implemented"] == ["refuse", "other"] and data["diagnosis"] is None
    assert {c["name"]: c["not_implemented"] for c in data["cases"]} == {
        "value": ["refuse"],
        "crash": ["other"],
        "helper_names_every_exception": ["other"],
        "bad_inputs": ["refuse"],
    }
    english, chinese = _render(report, "en"), _render(report, "zh")
    assert "Not implemented yet: refuse, other" in english and "Likely mistake" not in english
    assert "尚未实现：refuse、other" in chinese and "可能的错误" not in chinese


def test_a_half_done_submission_names_the_mistake_of_what_is_written(exercise, learner_file):
    report = judge_file(exercise, learner_file(HALF_DONE), seed=3, settle=False)  # every case runs
    assert report.diagnosis == "adds two, listed"
    assert report.not_implemented == ["other"]
    assert {c.name: c.diagnosis for c in report.cases} == {
        "value": "adds two, listed",
        "crash": None,
        "helper_names_every_exception": None,
        "bad_inputs": None,
    }
    # Settled at the case that names the mistake: the same headline, the later cases not run.
    settled = judge_file(exercise, learner_file(HALF_DONE), seed=3)
    assert settled.diagnosis == report.diagnosis and settled.message == report.message
    assert [c.verdict.value for c in settled.cases] == ["WA", "SK", "SK", "SK"]


def _report(*cases: CaseResult, diagnosis: str | None) -> Report:
    return Report(
        exercise={"number": 914},
        verdict=Verdict.WA,
        cases=list(cases),
        seed=1,
        device="cpu",
        sandbox="local",
        suites=["public"],
        judge_version="1",
        false_failure_budget={"total": 1e-6},
        message="first: wrong",
        diagnosis=diagnosis,
    )


def test_a_report_never_shows_two_likely_mistakes():
    """The headline's mistake is the likely one; another case's is "also consistent with"."""
    first = CaseResult("first", "public", "first", Verdict.WA, "wrong", diagnosis="top-k keeps k + 1")
    second = CaseResult("second", "public", "second", Verdict.WA, "other", diagnosis="min-p is absolute")
    third = CaseResult("third", "public", "third", Verdict.WA, "again", diagnosis="top-k keeps k + 1")
    report = _report(first, second, third, diagnosis="top-k keeps k + 1")
    english = _render(report, "en")
    assert english.count("Likely mistake: top-k keeps k + 1") >= 1
    assert "Likely mistake: min-p is absolute" not in english
    assert "Also consistent with: min-p is absolute" in english
    assert "也符合: min-p is absolute" in _render(report, "zh")


def test_the_headline_is_the_first_failing_case_that_names_a_mistake(exercise, learner_file):
    """docs/report.md: the first failing case may name none; the first that names one is the headline."""
    report = judge_file(exercise, learner_file(HALF_DONE), seed=3)
    failing = [c for c in report.cases if c.verdict is not Verdict.AC]
    assert failing[0].name == "value" and report.diagnosis == failing[0].diagnosis


def test_an_export_words_another_cases_mistake_as_secondary():
    from judge.reports.exports import case_text, results_json

    case = {"name": "c", "verdict": "WA", "message": "m", "diagnosis": "min-p is absolute", "suite": "public"}
    assert "Also consistent with: min-p is absolute" in case_text(case, "en", headline="top-k keeps k + 1")
    assert "Likely mistake: min-p is absolute" in case_text(case, "en", headline="min-p is absolute")
    first = CaseResult("first", "public", "first", Verdict.WA, "wrong", diagnosis="top-k keeps k + 1")
    second = CaseResult("second", "public", "second", Verdict.RE, "raised", not_implemented=["sample"])
    results = results_json(_report(first, second, diagnosis="top-k keeps k + 1"), full_hidden=True)
    assert "Not implemented yet: sample" in results["output"]


# --- torch's NotImplementedError inside a written function -----------------------------------------

INTEGER_SUITE = """
import torch

from judge.checks.base import diagnosed


def test_integer_logits(sub, ctx):
    '''refuse(x, 0) takes float64 and integer x alike

    zh: refuse(x, 0) 接受 float64 与整数 x
    '''
    sub.refuse(torch.tensor([1.0, 2.0], dtype=torch.float64), 0)
    with diagnosed("crashes on integer logits", raised_only=True):
        sub.refuse(torch.tensor([1, 2]), 0)
"""

# torch raises NotImplementedError for the softmax of an integer tensor: the function is written.
SOFTMAX = """
import torch


def refuse(x, k, g=None):
    return torch.softmax(x, 0)


def other(x, k, g=None):
    return x
"""


@pytest.fixture(scope="module")
def integer_exercise(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evidence") / "915-integer"
    return refusals_exercise(folder, INTEGER_SUITE, ("x", "k", "g"), time_limit_s=4.0, wall_limit_s=16.0)


def test_a_not_implemented_error_after_a_return_is_an_error_not_a_missing_function(integer_exercise, learner_file):
    report = judge_file(integer_exercise, learner_file(SOFTMAX), seed=3)
    assert report.verdict is Verdict.RE
    assert report.not_implemented == []
    assert report.diagnosis == "crashes on integer logits"


def test_a_not_implemented_error_before_any_return_is_still_a_function_not_written(integer_exercise, learner_file):
    report = judge_file(integer_exercise, learner_file(STARTER), seed=3)
    assert report.not_implemented == ["refuse"] and report.diagnosis is None
