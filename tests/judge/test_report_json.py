"""A report's JSON form is what its definition says, key order included, whatever its values.

``CaseResult.to_json`` builds the common case (scalars and check records) directly instead of
through :func:`dataclasses.asdict`; these tests hold it to the definition, written here as the
general path: ``asdict``, the overrides, then no NaN or infinity anywhere.
"""

from __future__ import annotations

import dataclasses
import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.i18n import Bilingual, in_language
from judge.reports.report import CaseResult, CheckRecord, Report, _finite
from judge.verdicts import Verdict


def defined_case_json(case: CaseResult) -> dict:
    data = dataclasses.asdict(case)
    data["verdict"] = case.verdict.value
    data["title_zh"] = case.title_zh or case.title
    data["diagnosis"] = str(case.diagnosis) if case.diagnosis is not None else None
    data["diagnosis_zh"] = case.diagnosis_zh
    data["rule"] = str(case.rule) if case.rule else ""
    data["rule_zh"] = in_language(case.rule, "zh") if case.rule else ""
    data["time_ms"] = round(case.time_ms, 3)
    data["cpu_ms"] = round(case.cpu_ms, 1) if case.cpu_ms is not None else None
    return _finite(data)


def as_text(data: dict) -> str:
    """The stored form: every key in its order, every value (a NaN would not equal itself)."""
    return json.dumps(data, ensure_ascii=False)


floats = st.floats(allow_nan=True, allow_infinity=True)
texts = st.one_of(st.text(max_size=8), st.builds(Bilingual, st.text(max_size=8), st.text(max_size=8)))
checks = st.builds(
    CheckRecord,
    kind=st.sampled_from(["fit", "pairs", "independence"]),
    label=texts,
    statistic=floats,
    p_value=floats,
    alpha=floats,
    passed=st.booleans(),
    df=st.one_of(st.none(), st.integers(0, 10**6)),
    figure=st.one_of(
        st.none(),
        st.dictionaries(
            st.text(max_size=4),
            st.one_of(floats, st.lists(st.dictionaries(st.text(max_size=3), floats, max_size=3), max_size=3)),
            max_size=3,
        ),
    ),
)
cases = st.builds(
    CaseResult,
    name=st.text(max_size=8),
    suite=st.sampled_from(["public", "hidden", "judge"]),
    title=texts,
    verdict=st.sampled_from(list(Verdict)),
    message=texts,
    time_ms=floats,
    seed=st.one_of(st.none(), st.integers(0, 2**53)),
    statistic=st.one_of(st.none(), floats),
    p_value=st.one_of(st.none(), floats),
    diagnosis=st.one_of(st.none(), texts),
    checks=st.lists(checks, max_size=4),
    title_zh=st.text(max_size=8),
    sandbox=st.one_of(st.none(), st.sampled_from(["strict", "local"])),
    rule=texts,
    cpu_ms=st.one_of(st.none(), floats),
    not_implemented=st.lists(st.text(max_size=8), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(cases)
def test_a_case_json_is_its_definition(case):
    assert as_text(case.to_json()) == as_text(defined_case_json(case))


def test_a_case_with_values_of_other_kinds_takes_the_general_path():
    case = CaseResult("c", "public", "t", Verdict.WA, message=["not", "a", "string"], time_ms=math.nan)  # type: ignore[arg-type]
    case.checks = [{"statistic": math.inf}]  # type: ignore[list-item]
    assert as_text(case.to_json()) == as_text(defined_case_json(case))
    assert case.to_json()["checks"] == [{"statistic": "inf"}]


@settings(max_examples=100, deadline=None)
@given(st.lists(cases, max_size=5), floats, st.dictionaries(st.text(max_size=4), floats, max_size=3))
def test_a_report_json_is_its_definition(report_cases, time_ms, timing):
    report = Report(
        exercise={"number": 39, "slug": "sampling", "content_hash": "abc"},
        verdict=Verdict.AC,
        cases=report_cases,
        seed=7,
        device="cpu",
        sandbox="strict",
        suites=["public", "hidden"],
        judge_version="1",
        false_failure_budget={"total": 1e-3, "odd": math.nan},
        time_ms=time_ms,
        message=Bilingual("m", "信"),
        diagnosis=Bilingual("d", "诊"),
        environment={"python": "3.11", "x": [math.inf]},
        timing=timing,
    )
    defined = _finite(
        {
            "schema": 1,
            "judge_version": "1",
            "exercise": report.exercise,
            "verdict": "AC",
            "score": {"passed": report.passed, "total": len(report_cases)},
            "message": "m",
            "message_zh": "信",
            "diagnosis": "d",
            "diagnosis_zh": "诊",
            "not_implemented": list(dict.fromkeys(name for c in report_cases for name in c.not_implemented)),
            "seed": 7,
            "seeds": {c.name: c.seed for c in report_cases if c.seed is not None},
            "device": "cpu",
            "sandbox": "strict",
            "suites": ["public", "hidden"],
            "time_ms": round(time_ms, 3),
            "false_failure_budget": report.false_failure_budget,
            "cases": [defined_case_json(c) for c in report_cases],
            "output": "",
            "environment": report.environment,
            "timing": {key: round(value, 3) for key, value in timing.items()},
        }
    )
    assert as_text(report.to_json()) == as_text(defined)
