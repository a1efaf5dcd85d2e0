"""What docs/checks.md ("Bilingual texts") promises of judge.i18n.Bilingual, pinned."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

from judge.checks.base import Label, rule
from judge.i18n import Bilingual, in_language
from judge.reports.report import CaseResult
from judge.verdicts import Verdict

SHARED = Bilingual("the rows share the same random numbers", "各行共用了同一组随机数")


def test_a_bilingual_is_its_english_string_and_carries_the_chinese():
    assert isinstance(SHARED, str) and str(SHARED) == "the rows share the same random numbers"
    assert SHARED.zh == SHARED.in_language("zh") == in_language(SHARED, "zh") == "各行共用了同一组随机数"
    assert SHARED.in_language("en") == in_language(SHARED, "en") == str(SHARED)
    assert in_language("plain", "zh") == "plain" and in_language(None, "zh") == ""


def test_operations_give_plain_english_and_equality_is_the_englishs():
    for derived in (SHARED + ".", f"{SHARED}", SHARED.lower(), "{}".format(SHARED)):
        assert type(derived) is str and not hasattr(derived, "zh")
    other = Bilingual(str(SHARED), "另一种说法")
    assert other == SHARED and hash(other) == hash(SHARED) and len({SHARED: 1, other: 2}) == 1


def test_copies_and_pickles_keep_the_chinese():
    for again in (copy.copy(SHARED), copy.deepcopy(SHARED), pickle.loads(pickle.dumps(SHARED))):
        assert type(again) is Bilingual and again.zh == SHARED.zh


def test_reports_store_both_languages_and_a_plain_string_twice():
    case = CaseResult("c", "hidden", "t", Verdict.WA, diagnosis=SHARED, rule=rule("sample", "bad", "不对", row=2))
    data = case.to_json()
    assert (data["diagnosis"], data["diagnosis_zh"]) == (str(SHARED), SHARED.zh)
    assert data["rule"] == "sample, row 2: bad" and data["rule_zh"] == "sample，第 2 行：不对"
    plain = CaseResult("c", "hidden", "t", Verdict.WA, diagnosis="plain").to_json()
    assert plain["diagnosis"] == plain["diagnosis_zh"] == "plain"
    label = Label("top_k=17 > V", Bilingual("top-k larger than V", "top-k 大于词表"))
    assert rule("sample", "bad", "不对", row=0, labels=[label]).zh == "sample，第 0 行（top-k 大于词表）：不对"


def test_the_checks_page_documents_it():
    page = (Path(__file__).resolve().parents[2] / "docs" / "checks.md").read_text(encoding="utf-8")
    section = page.split("## Bilingual texts", 1)[1].split("\n## ", 1)[0]
    for phrase in ("Bilingual(en, zh)", "in_language", "Where one is accepted", "Operations give plain English"):
        assert phrase in section


# The browser's Run, as the Web Worker calls it (the torch subset installed): one report per source.
BROWSER_RUN = """
import json, sys
import judge.browser.torchlike as subset
subset.install()
from judge.browser.run import run_browser_variant
sources = json.loads(sys.stdin.read())
reports = {name: json.loads(run_browser_variant("exercises/039-sampling", s, 5)) for name, s in sources.items()}
print(json.dumps(reports))
"""
# A file that does not load: its source, verdict, the engine's words in English and Chinese, and the
# learner's own error text, which stays as Python wrote it in both.
LOAD_FAILURES = {
    "syntax-error": ("import torch\n\ndef sampling_probs(logits:\n    pass\n", "CE",
                     "syntax error (line 3):", "语法错误（第 3 行）：", "SyntaxError: '(' was never closed"),
    "import-error": ("import torch\nimport no_such_module_here\n", "CE", "import error (line 2): No module named",
                     "导入错误（第 2 行）：No module named", "No module named 'no_such_module_here'"),
    "missing-function": ("import torch\n\ndef sample(logits, num_samples=1, **kwargs):\n    return None\n", "CE",
                         "your file does not define `sampling_probs(", "你的文件没有定义 `sampling_probs(",
                         "sampling_probs(logits"),
    "raised-at-import": ("import torch\n\nx = 1 / 0\n", "RE", "your file raised while being imported (line 3):",
                         "导入你的文件时抛出了异常（第 3 行）：", "ZeroDivisionError: division by zero"),
}
ENGLISH_ENGINE_WORDS = (
    "syntax error", "import error", "does not define", "raised while being imported", "(line ", "your ",
)


def test_the_runs_report_says_why_a_file_did_not_load_in_both_languages():
    """The browser's Run (the same engine as the CLI and the site): ``message`` in English with no
    Chinese, ``message_zh`` in Chinese with no English engine words; the line and the learner's
    error class and text in both (docs/report.md)."""
    import json
    import re
    import subprocess
    import sys

    sources = {name: source for name, (source, *_) in LOAD_FAILURES.items()}
    done = subprocess.run([sys.executable, "-c", BROWSER_RUN], input=json.dumps(sources), capture_output=True,
                          text=True, timeout=300, check=True, cwd=Path(__file__).resolve().parents[2])
    reports = json.loads(done.stdout)
    for name, (_, verdict, engine_en, engine_zh, learners) in LOAD_FAILURES.items():
        report = reports[name]
        assert report["verdict"] == verdict and report["sandbox"] == "browser", name
        english, chinese = report["message"], report["message_zh"]
        assert engine_en in english and learners in english and not re.search(r"[\u3000-\u9fff\uff00-\uffef]", english)
        assert engine_zh in chinese and learners in chinese, name
        assert not [word for word in ENGLISH_ENGINE_WORDS if word in chinese], (name, chinese)


def test_a_redacted_message_keeps_its_chinese():
    from judge.reports.redaction import PROJECT_ROOT, redact_report
    from judge.reports.report import Report

    message = Bilingual(f"syntax error: {PROJECT_ROOT}/x.py", f"语法错误：{PROJECT_ROOT}/x.py")
    report = Report({}, Verdict.CE, [], 1, "cpu", "local", [], "0", {}, message=message)
    data = redact_report(report).to_json()
    assert (data["message"], data["message_zh"]) == ("syntax error: <judge>/x.py", "语法错误：<judge>/x.py")
    report.message = "plain"
    assert (report.to_json()["message"], report.to_json()["message_zh"]) == ("plain", "plain")
