"""What a viewer sees of a report: nothing of a hidden case that its code could have chosen, its
failed rule in the page's language, less at an assignment's lower visibility, and everything
(seeds and hidden messages included) for those who teach the author."""

from __future__ import annotations

import re
from html import unescape
from types import SimpleNamespace

import pytest

from web.access.presenting import INSTRUCTOR_ACCESS, Access, hidden_failure_text, submission_view, visible_case
from web.core.models import Role, Visibility

LEARNER = SimpleNamespace(role=Role.learner)
INSTRUCTOR = SimpleNamespace(role=Role.instructor)
SEED = 4503599627370497  # the run's master seed
RULE = "sample with per-row parameters, row 7 (-inf logits and a tie at the top-k cut): the draws do not follow the target distribution"
RULE_ZH = "sample（每行各自的参数），第 7 行（-inf logits，top-k 截断处有并列）：抽样不服从目标分布"


def _case(suite: str, name: str, time_ms: float, verdict: str = "WA", **extra) -> dict:
    return {"name": name, "suite": suite, "title": name, "title_zh": f"{name}（中文）", "verdict": verdict,
            "message": f"row 3 of {name}: 1.0793", "time_ms": time_ms, "seed": 1717171717171717,
            "statistic": 12.5, "p_value": 0.0107, "diagnosis": "top-k",
            "checks": [{"kind": "fit", "label": "row 3 (top_k=2)", "statistic": 12.5, "p_value": 0.0107,
                        "alpha": 1e-9, "passed": True, "df": 3}], **extra}


def _submission(*cases: dict, message: str = "the report's message") -> SimpleNamespace:
    report = {"verdict": "WA", "time_ms": 5000.0, "message": message, "seed": SEED, "cases": list(cases)}
    grading = SimpleNamespace(id=23, status=SimpleNamespace(value="done"), verdict_code="WA", report_json=report,
                              seed=SEED, judge_version="0.1.0", finished_at=None)
    return SimpleNamespace(id=17, exercise=SimpleNamespace(number=39), shown=grading, created_at=None)


def test_a_hidden_case_shows_no_number_the_learners_code_controls():
    shown = visible_case(_case("hidden", "zipf", 1079.3))
    assert shown["message"] == "" and "seed" not in shown
    assert shown["time_ms"] is None and shown["statistic"] is None and shown["p_value"] is None
    assert shown["cpu_ms"] is None
    assert shown["checks"] == [{"kind": "fit", "alpha": 1e-9, "passed": True}]
    assert shown["verdict"] == "WA" and shown["diagnosis"] == "top-k" and shown["title"] == "zipf"


def test_a_public_case_shows_everything_but_its_seed():
    case = _case("public", "softmax", 3.0, rule="softmax, row 3: a wrong value", rule_zh="softmax，第 3 行：值不对")
    shown = visible_case(case)
    assert "seed" not in shown
    assert shown == {k: v for k, v in case.items() if k != "seed"}
    assert visible_case(case, seeds=True) == case


@pytest.mark.parametrize("suite", ["public", "hidden"])
def test_a_failed_case_keeps_its_rule_and_a_passed_one_has_none(suite):
    failed = visible_case(_case(suite, "zipf", 1.0, rule=RULE, rule_zh=RULE_ZH))
    assert (failed["rule"], failed["rule_zh"]) == (RULE, RULE_ZH)
    for verdict in ("AC", "SK"):
        passed = visible_case(_case(suite, "zipf", 1.0, verdict, rule=RULE, rule_zh=RULE_ZH))
        assert passed["rule"] == passed["rule_zh"] == ""


@pytest.mark.parametrize("stored", [{}, {"rule": "", "rule_zh": ""}, {"rule": None, "rule_zh": 7}])
def test_a_report_without_rules_gets_empty_ones(stored):
    shown = visible_case(_case("hidden", "zipf", 1.0, **stored))
    assert shown["rule"] == shown["rule_zh"] == ""


@pytest.mark.parametrize("stored, lang, expected", [
    ({"rule": RULE, "rule_zh": RULE_ZH}, "en", RULE),
    ({"rule": RULE, "rule_zh": RULE_ZH}, "zh", RULE_ZH),
    ({"rule": RULE}, "zh", RULE),  # no Chinese rule: the English one
    ({"rule": RULE, "rule_zh": ""}, "zh", RULE),
    ({}, "en", "zipf"),  # an old report: the title, in the page's language
    ({}, "zh", "zipf（中文）"),
    ({"rule": "", "rule_zh": ""}, "en", "zipf"),
])
def test_the_headline_of_a_failed_hidden_case_is_its_rule_else_its_title(stored, lang, expected):
    case = _case("hidden", "zipf", 1.0, **stored)
    assert hidden_failure_text(case, lang) == expected
    view = submission_view(_submission(_case("public", "softmax", 1.0, "AC"), case), LEARNER, lang)
    assert view["message"] == expected
    shown = str(view["cases"][1]) + view["message"]
    assert "1.0793" not in shown and "row 3" not in shown  # never the message


def test_a_public_failure_keeps_the_reports_headline():
    view = submission_view(_submission(_case("public", "softmax", 1.0), _case("hidden", "zipf", 1.0, rule=RULE)),
                           LEARNER, "zh")
    assert view["message"] == "the report's message"


def test_the_submission_time_counts_the_public_cases_only():
    view = submission_view(_submission(_case("public", "softmax", 3.0), _case("hidden", "zipf", 1079.3),
                                       _case("public", "greedy", 2.5)), LEARNER)
    assert view["time_ms"] == 5.5
    hidden = view["cases"][1]
    assert "1079" not in str(hidden) and "row 3" not in str(hidden)


@pytest.mark.parametrize("viewer", [LEARNER, None])
def test_a_learner_gets_the_run_id_and_no_seed_anywhere(viewer):
    view = submission_view(_submission(_case("public", "softmax", 1.0), _case("hidden", "zipf", 1.0)), viewer)
    assert view["seed"] is None and view["run_id"] == 17
    assert str(SEED) not in str(view) and "1717171717171717" not in str(view)


def test_a_site_instructor_role_alone_shows_nothing_more():
    view = submission_view(_submission(_case("public", "softmax", 1.0), _case("hidden", "zipf", 1.0)), INSTRUCTOR)
    assert view["seed"] is None and view["cases"][1]["message"] == ""


def test_one_who_teaches_the_author_gets_the_seeds_and_the_full_hidden_messages():
    view = submission_view(_submission(_case("public", "softmax", 1.0), _case("hidden", "zipf", 1079.3)),
                           INSTRUCTOR, access=INSTRUCTOR_ACCESS)
    assert view["seed"] == SEED and view["run_id"] == 17
    assert [case["seed"] for case in view["cases"]] == [1717171717171717] * 2
    hidden = view["cases"][1]
    assert hidden["message"] == "row 3 of zipf: 1.0793" and hidden["time_ms"] == 1079.3
    assert hidden["p_value"] == 0.0107 and hidden["checks"][0]["label"] == "row 3 (top_k=2)"
    assert view["message"] == "the report's message" and view["time_ms"] == 5000.0


def test_diagnosis_visibility_keeps_hidden_verdicts_and_the_diagnosis_not_the_rule():
    report_cases = (_case("public", "softmax", 1.0, "AC"), _case("hidden", "zipf", 1.0, rule=RULE, rule_zh=RULE_ZH))
    submission = _submission(*report_cases)
    submission.shown.report_json["diagnosis"] = "top-k applied after softmax"
    view = submission_view(submission, LEARNER, "en", Access(visibility=Visibility.diagnosis))
    hidden = view["cases"][1]
    assert hidden["verdict"] == "WA" and hidden["rule"] == "" and hidden["checks"] == []
    assert RULE not in str(view) and RULE_ZH not in str(view) and "row 3" not in str(hidden)
    assert view["diagnosis"] == "top-k applied after softmax" and view["verdict"] == "WA"
    assert view["message"] and RULE not in view["message"]


def test_nothing_visibility_withholds_the_verdict_when_it_depends_on_hidden_cases():
    submission = _submission(_case("public", "softmax", 1.0, "AC"), _case("hidden", "zipf", 1.0, rule=RULE))
    submission.shown.report_json.update(diagnosis="top-k", score={"passed": 1, "total": 2})
    view = submission_view(submission, LEARNER, "en", Access(visibility=Visibility.nothing))
    assert view["withheld"] is True and view["verdict"] is None and view["score"] is None
    assert view["diagnosis"] is None and view["message"] is None
    assert [case["suite"] for case in view["cases"]] == ["public"]
    assert "zipf" not in str(view)


def test_nothing_visibility_still_shows_a_public_failure():
    submission = _submission(_case("public", "softmax", 1.0, "WA"), _case("hidden", "zipf", 1.0))
    view = submission_view(submission, LEARNER, "en", Access(visibility=Visibility.nothing))
    assert view["withheld"] is False and view["verdict"] == "WA" and view["message"] == "the report's message"
    assert [case["suite"] for case in view["cases"]] == ["public"]


def test_the_functions_not_implemented_yet_are_those_of_the_cases_shown():
    """A starter's report: no diagnosis, and the learner's functions that raised NotImplementedError,
    from the cases the viewer may see (at ``nothing``, a hidden case's are not shown)."""
    public = _case("public", "softmax", 1.0, "RE", diagnosis=None, not_implemented=["sampling_probs"])
    hidden = _case("hidden", "zipf", 1.0, "RE", diagnosis=None, not_implemented=["sampling_probs", "sample"])
    view = submission_view(_submission(public, hidden), LEARNER)
    assert view["not_implemented"] == ["sampling_probs", "sample"]
    view = submission_view(_submission(public, hidden), LEARNER, "en", Access(visibility=Visibility.nothing))
    assert view["not_implemented"] == ["sampling_probs"]
    old = _case("public", "softmax", 1.0, "RE")  # a report from before the key
    assert submission_view(_submission(old), LEARNER)["not_implemented"] == []


def test_the_result_page_shows_one_likely_mistake_and_what_is_not_implemented(make_site):
    from flask import g, render_template

    app = make_site()
    first = _case("public", "softmax", 1.0, "WA", diagnosis="top-k keeps k + 1", diagnosis_zh="top-k 多一个")
    second = _case("public", "zipf", 1.0, "WA", diagnosis="min-p is absolute", diagnosis_zh="min-p 用成了绝对值")
    third = _case("public", "raises", 1.0, "RE", diagnosis=None, not_implemented=["sample"])
    view = submission_view(_submission(first, second, third), LEARNER)
    view.update(diagnosis="top-k keeps k + 1", diagnosis_zh="top-k 多一个", status="done")
    with app.test_request_context("/?lang=en"):
        html = render_template("submissions/_result.html", view=view, submission=SimpleNamespace(id=17))
    assert "Likely mistake:</strong> top-k keeps k + 1" in html
    assert "Likely mistake: top-k keeps k + 1" in html  # the first case's, the headline's
    assert "Also consistent with: min-p is absolute" in html and "Likely mistake: min-p" not in html
    assert "Not implemented yet: sample" in html
    with app.test_request_context("/?lang=zh"):
        g.lang = "zh"  # what the site's before_request sets from ?lang=
        html = render_template("submissions/_result.html", view=view, submission=SimpleNamespace(id=17))
    assert "也符合: min-p 用成了绝对值" in html and "尚未实现：sample" in html


def _graded(*cases: dict) -> SimpleNamespace:
    """A finished grading (1 of 2 cases passed) of a report with ``cases``, as the history lists it."""
    import datetime as dt

    created = dt.datetime(2027, 3, 2, 12, 0, 17, 250_000, tzinfo=dt.UTC)
    report = {"verdict": "WA", "score": {"passed": 1, "total": 2}, "diagnosis": "top-k", "cases": list(cases)}
    return SimpleNamespace(id=23, status=SimpleNamespace(value="done"), verdict_code="WA", report_json=report,
                           score_passed=1, score_total=2, diagnosis="top-k", seed=SEED, rejudge_id=None,
                           judge_version="0.1.0", created_at=created, finished_at=created + dt.timedelta(seconds=7.3))


@pytest.mark.parametrize("failing", ["hidden", "public"])
def test_a_gradings_history_line_shows_each_viewer_what_the_submission_view_does(failing):
    """grading_summary: the author sees the verdict and score at ``rule`` and ``diagnosis``; at
    ``nothing`` no score nor diagnosis, and no verdict when a hidden case decided it; never a
    seed or the finish time, and the submission time to the minute. Who teaches the author sees
    it all, the finish time as ISO 8601 text."""
    from web.access.presenting import grading_summary

    verdicts = {"public": "AC", "hidden": "AC"} | {failing: "WA"}
    grading = _graded(_case("public", "softmax", 1.0, verdicts["public"]),
                      _case("hidden", "zipf", 1.0, verdicts["hidden"]))
    common = {"id": 23, "status": "done", "current": True, "rejudge": None, "judge_version": "0.1.0"}
    learner = common | {"verdict": "WA", "score": {"passed": 1, "total": 2}, "diagnosis": "top-k", "seed": None,
                        "created_at": "2027-03-02T12:00:00+00:00", "finished_at": None}
    for level in (Visibility.rule, Visibility.diagnosis):
        assert grading_summary(grading, Access(visibility=level), 23) == learner, level
    withheld = failing == "hidden"
    assert grading_summary(grading, Access(visibility=Visibility.nothing), 23) == learner | {
        "verdict": None if withheld else "WA", "score": None, "diagnosis": None}
    assert grading_summary(grading, INSTRUCTOR_ACCESS, 7) == common | {
        "current": False, "verdict": "WA", "score": {"passed": 1, "total": 2}, "diagnosis": "top-k", "seed": SEED,
        "created_at": "2027-03-02T12:00:17.250000+00:00", "finished_at": "2027-03-02T12:00:24.550000+00:00"}


def test_the_shared_accesses_cannot_be_changed():
    """LEARNER_ACCESS is every view's default and INSTRUCTOR_ACCESS what access_for returns to all
    who teach: one caller must not be able to turn the shared learner's access into an instructor's."""
    import dataclasses

    from web.access.presenting import LEARNER_ACCESS

    for access, field in ((LEARNER_ACCESS, "instructor"), (INSTRUCTOR_ACCESS, "visibility")):
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{field}'"):
            setattr(access, field, True)
    assert (Access(), Access(instructor=True)) == (LEARNER_ACCESS, INSTRUCTOR_ACCESS)


def _load_failures() -> dict[str, tuple[str, object]]:
    """Each way a file fails to load, as the engine words it (judge.learner.interface.load_failure and
    judge.engine.runner.signature_problems): its verdict and its Bilingual message."""
    from judge.engine.runner import signature_message, signature_problems
    from judge.learner.interface import load_failure
    from judge.learner.protocol import ExceptionInfo

    def failed(type_name: str, text: str, line: int, mro: tuple[str, ...]):
        trace = f'File "39.py", line {line}\n    bad line\n{type_name}: {text}'
        failure = load_failure(ExceptionInfo(type_name, text, line, trace, False, mro))
        return failure.verdict.value, failure.message

    spec = SimpleNamespace(name="sampling_probs", signature="sampling_probs(logits, temperature)",
                           params=("logits", "temperature"))
    return {
        "syntax-error": failed("SyntaxError", "'(' was never closed", 3, ("builtins.SyntaxError",)),
        "import-error": failed("ModuleNotFoundError", "No module named 'nope'", 2,
                               ("builtins.ModuleNotFoundError", "builtins.ImportError")),
        "raised-at-import": failed("ZeroDivisionError", "division by zero", 4, ("builtins.ZeroDivisionError",)),
        "missing-function": ("CE", signature_message(signature_problems(SimpleNamespace(functions=[spec]), {}))),
    }


LOAD_FAILURES = {  # id -> (English engine words, Chinese engine words, the learner's own text)
    "syntax-error": ("syntax error (line 3):", "语法错误（第 3 行）：", "SyntaxError: '(' was never closed"),
    "import-error": ("import error (line 2): No module named 'nope'", "导入错误（第 2 行）：No module named 'nope'",
                     "ModuleNotFoundError: No module named 'nope'"),
    "raised-at-import": ("your file raised while being imported (line 4):", "导入你的文件时抛出了异常（第 4 行）：",
                         "ZeroDivisionError: division by zero"),
    "missing-function": ("your file does not define `sampling_probs(logits, temperature)`",
                         "你的文件没有定义 `sampling_probs(logits, temperature)`", "sampling_probs"),
}
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


@pytest.mark.parametrize("failure", list(LOAD_FAILURES))
@pytest.mark.parametrize("lang, said", [
    ("en", "No case ran: your code stopped before the first one; fix the error and judge again."),
    ("zh", "没有运行任何测试点：你的代码在第一个测试点之前就停止了；修正这个错误后再评测。"),
], ids=["en", "zh"])
def test_a_file_that_did_not_load_shows_what_to_fix_and_no_score(make_site, lang, said, failure):
    """A file that did not load: the headline names the error (its line) in the page's language and
    says no case ran; no "0/2 cases passed", no table of skipped cases (the CLI says the same, from
    the same table: judge.i18n.SHARED). The learner's own error text stays as Python wrote it."""
    from flask import g, render_template

    from judge.reports.report import Report
    from judge.verdicts import Verdict

    verdict, message = _load_failures()[failure]
    engine_en, engine_zh, learners = LOAD_FAILURES[failure]
    skipped = [dict(_case("public", name, 0.0, "SK"), message="not run: the file did not load", diagnosis=None)
               for name in ("softmax", "zipf")]
    # The message and its Chinese as the engine's report stores them (judge.reports.report.Report.to_json).
    stored = Report({}, Verdict(verdict), [], SEED, "cpu", "local", [], "0", {}, message=message).to_json()
    submission = _submission(*skipped, message=stored["message"])
    submission.shown.verdict_code = verdict
    submission.shown.report_json.update(verdict=verdict, score={"passed": 0, "total": 2},
                                        message_zh=stored["message_zh"])
    view = submission_view(submission, LEARNER, lang)
    assert view["no_case_ran"] is True
    with app_context(make_site(), lang):
        g.lang = lang
        html = unescape(render_template("submissions/_result.html", view=view, submission=SimpleNamespace(id=17)))
    assert said in html and learners in html
    assert "0/2" not in html and "<table" not in html and "not run: the file did not load" not in html
    if lang == "zh":
        assert engine_zh in html and engine_en not in html
        english = ("syntax error", "import error", "does not define", "while being", "(line ")
        assert not [word for word in english if word in html]
    else:
        assert engine_en in html and engine_zh not in html and not CJK.search(html)
    ran = _submission(_case("public", "softmax", 1.0, "WA"), _case("public", "zipf", 0.0, "SK"))
    assert submission_view(ran, LEARNER)["no_case_ran"] is False  # a case ran: the score stands


def test_a_report_from_before_message_zh_shows_its_message_in_chinese_too():
    """Stored reports without ``message_zh`` (written before it) still show their message."""
    submission = _submission(message="syntax error (line 3):")
    submission.shown.report_json["cases"] = []
    assert submission_view(submission, LEARNER, "zh")["message"] == "syntax error (line 3):"


def app_context(app, lang: str):
    return app.test_request_context(f"/?lang={lang}")
