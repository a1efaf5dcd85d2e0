"""What docs/checks.md ("Bilingual texts") promises of judge.i18n.Bilingual, pinned."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

from judge.checks import Label, rule
from judge.i18n import Bilingual, in_language
from judge.report import CaseResult
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
