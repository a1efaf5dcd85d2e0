"""A judge report in other tools' formats: Gradescope's autograder ``results.json`` and JUnit XML.

Pure functions of a report: a :class:`~judge.reports.report.Report` or its JSON form (``Report.to_json()``,
what a site stores as ``report_json``, see ``docs/report.md``). Nothing here judges or writes files.

**What a reader may see.** Every function takes ``full_hidden``, and the caller decides: True for an
instructor, an autograder's evidence, or the learner's own local run (which already shows hidden
messages); False for anything a learner sees of a server's run. With False every case passes
through :func:`judge.reports.hiding.visible_case`, the site's one rule (a hidden case keeps its name,
titles, verdict, diagnosis and failed rule, loses its message, times, statistics, p-values, check
labels and seed), and a failed hidden case is described by
:func:`judge.reports.hiding.hidden_failure_text`; neither the seed nor the learner's printed output is
exported. Gradescope's top-level ``output`` is shown to a student at once, whatever the tests'
visibility, so it is always the learner's view (the site's headline), even with ``full_hidden``.

**Gradescope's format**, from the autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/, the same text as
``docs/specs.md`` in github.com/gradescope/autograder_samples). Top level: ``score`` (overrides the
tests' total when given), ``execution_time``, ``output``, ``output_format``, ``test_output_format``,
``test_name_format``, ``visibility``, ``stdout_visibility``, ``extra_data``, ``tests``,
``leaderboard``. A test: ``score``, ``max_score``, ``status`` (``passed`` or ``failed``), ``name``,
``name_format``, ``number``, ``output``, ``output_format``, ``tags``, ``visibility``,
``extra_data``. A visibility is ``hidden``, ``after_due_date``, ``after_published`` or
``visible`` (the default); a format is ``text``, ``simple_format`` (the top-level output's
default: HTML with line breaks), ``html``, ``md`` or ``ansi``. The specification has no top-level
``max_score``: it is in ``extra_data``. Here: one point per case (``max_score`` 1), ``score`` is
the sum of the tests' scores, a test passed iff its case is AC, every format is ``text`` (a
learner's message is never rendered as HTML), the run's stdout stays with the instructors.

**JUnit XML**, as Jenkins, GitLab and most CI tools read it: ``<testsuites>`` of one
``<testsuite>`` per suite that ran (``public``, ``hidden``, ``judge``), one ``<testcase>`` per case
(classname ``probjudge.<slug>.<suite>``), ``<failure>`` for WA, ``<error>`` for RE, TLE, MLE, CE
and IE, ``<skipped>`` for SK; each check's evidence in the case's ``<system-out>``. Characters
that XML 1.0 cannot hold (control characters a learner's message may carry) are written as
``\\xNN`` escapes.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from judge.i18n import function_list, t
from judge.reports.hiding import hidden_failure_text, visible_case, visible_message
from judge.reports.report import HIDDEN, Report, is_failure
from judge.verdicts import Verdict

GRADESCOPE_VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
GRADESCOPE_STATUSES = ("passed", "failed")
GRADESCOPE_FORMATS = ("text", "simple_format", "html", "md", "ansi")
DEFAULT_HIDDEN_VISIBILITY = "after_due_date"
CASE_POINTS = 1.0
ERROR_VERDICTS = frozenset({Verdict.RE.value, Verdict.TLE.value, Verdict.MLE.value, Verdict.CE.value, Verdict.IE.value})
# The evidence exported of a case and of each of its checks, where the (possibly redacted) case has it.
CASE_EVIDENCE = ("suite", "verdict", "statistic", "p_value", "time_ms", "cpu_ms", "seed", "diagnosis", "diagnosis_zh")
CHECK_EVIDENCE = ("kind", "label", "statistic", "df", "p_value", "alpha", "passed", "draws", "n")

_TOP_LEVEL_FIELDS = frozenset(
    {
        "score",
        "execution_time",
        "output",
        "output_format",
        "test_output_format",
        "test_name_format",
        "visibility",
        "stdout_visibility",
        "extra_data",
        "tests",
        "leaderboard",
    }
)
_TEST_FIELDS = frozenset(
    {
        "score",
        "max_score",
        "status",
        "name",
        "name_format",
        "number",
        "output",
        "output_format",
        "tags",
        "visibility",
        "extra_data",
    }
)
# XML 1.0 allows tab, newline and carriage return of the C0 controls, and no surrogate or U+FFFE/U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def results_json(
    report: Report | Mapping[str, Any],
    *,
    full_hidden: bool,
    hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY,
    lang: str = "en",
) -> dict[str, Any]:
    """``report`` as Gradescope's ``results.json`` object (see the module docstring).

    ``full_hidden``: hidden cases' messages and evidence in full, else as a learner sees them.
    ``hidden_visibility`` is the hidden cases' tests' visibility (public cases are ``visible``);
    ``lang`` (``en``/``zh``) the language of names and outputs. Raises ValueError for a
    visibility Gradescope does not know. The result passes :func:`validate_results_json`.
    """
    if hidden_visibility not in GRADESCOPE_VISIBILITIES:
        raise ValueError(f"hidden_visibility must be one of {', '.join(GRADESCOPE_VISIBILITIES)}")
    data = _report_dict(report)
    headline = _headline_diagnosis(data, lang)
    tests = [_gradescope_test(case, hidden_visibility, lang, headline) for case in _shown_cases(data, full_hidden)]
    extra: dict[str, Any] = {
        "schema": data.get("schema"),
        "judge_version": data.get("judge_version"),
        "exercise": data.get("exercise"),
        "verdict": data.get("verdict"),
        "max_score": CASE_POINTS * len(tests),
        "false_failure_budget": data.get("false_failure_budget"),
        "device": data.get("device"),
        "sandbox": data.get("sandbox"),
        "suites": data.get("suites"),
    }
    if full_hidden:
        for key in ("seed", "message", "time_ms", "output", "environment"):
            extra[key] = data.get(key)
    return {
        "score": sum(test["score"] for test in tests),
        "output": _headline(data, lang),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": extra,
        "tests": tests,
    }


def validate_results_json(obj: Any) -> list[str]:
    """What is wrong with ``obj`` as a Gradescope ``results.json`` (empty when nothing is).

    Checks the fields' names, types and allowed values, that the object is strict JSON (no NaN),
    and, stricter than Gradescope (where a top-level score silently overrides the tests'), that a
    top-level ``score`` equals the sum of the tests' scores.
    """
    if not isinstance(obj, dict):
        return ["results.json must be a JSON object"]
    problems = [f"unknown top-level field {key!r}" for key in obj if key not in _TOP_LEVEL_FIELDS]
    tests = obj.get("tests")
    if "score" not in obj and tests is None:
        problems.append("a top-level score or a list of tests is required")
    _check_fields(obj, "", problems, numbers=("score", "execution_time"), strings=("output",))
    for key in ("output_format", "test_output_format", "test_name_format"):
        _check_choice(obj, key, GRADESCOPE_FORMATS, "", problems)
    for key in ("visibility", "stdout_visibility"):
        _check_choice(obj, key, GRADESCOPE_VISIBILITIES, "", problems)
    if tests is not None and not isinstance(tests, list):
        problems.append("tests must be a list")
    elif tests is not None:
        for index, test in enumerate(tests):
            problems.extend(_test_problems(test, f"tests[{index}]", scored_above="score" in obj))
        # A test without a score is informational (a status only); one with a bad score is reported above.
        scores = [float(test["score"]) for test in tests if isinstance(test, dict) and _is_number(test.get("score"))]
        if _is_number(obj.get("score")):
            total = math.fsum(scores)
            if not math.isclose(obj["score"], total, rel_tol=1e-9, abs_tol=1e-9):
                problems.append(f"score {obj['score']} is not the sum of the tests' scores ({total})")
    if "leaderboard" in obj and not _leaderboard_ok(obj["leaderboard"]):
        problems.append("leaderboard must be a list of {name, value[, order: asc|desc]} objects")
    try:
        json.dumps(obj, allow_nan=False)
    except (TypeError, ValueError) as error:
        problems.append(f"not strict JSON: {error}")
    return problems


def junit_xml(report: Report | Mapping[str, Any], *, full_hidden: bool, lang: str = "en") -> str:
    """``report`` as a JUnit XML document (see the module docstring); ``full_hidden`` as for
    :func:`results_json`, ``lang`` the language of the failure texts."""
    data = _report_dict(report)
    exercise = data.get("exercise") or {}
    slug = str(exercise.get("slug") or exercise.get("number") or "exercise")
    suites: dict[str, list[dict[str, Any]]] = {}  # in the order the suites ran
    for case in _shown_cases(data, full_hidden):
        suites.setdefault(str(case.get("suite") or "public"), []).append(case)
    root = ET.Element("testsuites", name=f"probjudge.{slug}")
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    seconds = 0.0
    for index, (suite, cases) in enumerate(suites.items()):
        counts = _junit_counts(cases)
        times = [c["time_ms"] / 1000 for c in cases if _is_number(c.get("time_ms"))]
        attributes = {"name": f"probjudge.{slug}.{suite}", "id": str(index)}
        attributes.update({key: str(value) for key, value in counts.items()})
        element = ET.SubElement(root, "testsuite", attributes, time=f"{math.fsum(times):.3f}")
        properties = ET.SubElement(element, "properties")
        for name, value in _junit_properties(data, full_hidden):
            ET.SubElement(properties, "property", name=name, value=_xml_text(value))
        for case in cases:
            _junit_case(element, case, f"probjudge.{slug}.{suite}", lang, _headline_diagnosis(data, lang))
        totals = {key: totals[key] + counts[key] for key in totals}
        seconds += math.fsum(times)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{seconds:.3f}")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def case_text(case: Mapping[str, Any], lang: str = "en", headline: str | None = None) -> str:
    """What a case (as shown: see ``full_hidden``) says: its verdict, message (of a redacted failed
    hidden case, its rule) and likely mistake, one per line. ``headline``: the report's likely
    mistake, in ``lang``; a case's other one is "also consistent with" (docs/report.md)."""
    code = str(case.get("verdict") or "")
    lines = [f"{_verdict_title(code, lang)} ({code})"]
    message = _case_message(case, lang)
    if message:
        lines.append(message)
    diagnosis = case.get("diagnosis_zh" if lang == "zh" else "diagnosis") or case.get("diagnosis")
    if diagnosis and diagnosis not in message:
        label = "diagnosis" if headline is None or diagnosis == headline else "also_consistent_with"
        lines.append(f"{t(label, lang)}: {diagnosis}")
    return "\n".join(lines)


def _headline_diagnosis(data: Mapping[str, Any], lang: str) -> str | None:
    """The report's likely mistake in ``lang`` (English when it has no Chinese), or None."""
    return data.get("diagnosis_zh" if lang == "zh" else "diagnosis") or data.get("diagnosis")


def _case_message(case: Mapping[str, Any], lang: str) -> str:
    """The case's message; of a failed hidden case shown without it, its rule (else its title)."""
    message = str(case.get("message") or "")
    if not message and case.get("suite") == HIDDEN and is_failure(case.get("verdict")):
        message = hidden_failure_text(dict(case), lang)
    return message


def _report_dict(report: Report | Mapping[str, Any]) -> dict[str, Any]:
    return report.to_json() if isinstance(report, Report) else dict(report)


def _shown_cases(data: Mapping[str, Any], full_hidden: bool) -> list[dict[str, Any]]:
    cases = data.get("cases") or []
    if full_hidden:
        return [dict(case) for case in cases]
    return [visible_case(case) for case in cases]


def _headline(data: Mapping[str, Any], lang: str) -> str:
    """The top-level output: verdict, score, the headline as the site shows it, the likely mistake."""
    code = str(data.get("verdict") or "")
    score = data.get("score") or {}
    lines = [f"{_verdict_title(code, lang)} ({code}): {t('cases', lang, **score)}" if score else code]
    message = visible_message(dict(data), lang) or ""
    if message:
        lines.append(message)
    diagnosis = _headline_diagnosis(data, lang)
    if diagnosis and diagnosis not in message:
        lines.append(f"{t('diagnosis', lang)}: {diagnosis}")
    missing = data.get("not_implemented") or []
    if missing and code != Verdict.AC.value:
        lines.append(t("not_implemented_yet", lang, functions=function_list(missing, lang)))
    return "\n".join(lines)


def _gradescope_test(case: dict[str, Any], hidden_visibility: str, lang: str, headline: str | None) -> dict[str, Any]:
    passed = case.get("verdict") == Verdict.AC.value
    title = case.get("title_zh" if lang == "zh" else "title") or case.get("title") or case.get("name") or ""
    suite = str(case.get("suite") or "public")
    return {
        "name": str(title),
        "score": CASE_POINTS if passed else 0.0,
        "max_score": CASE_POINTS,
        "status": "passed" if passed else "failed",
        "output": case_text(case, lang, headline),
        "tags": [suite],
        "visibility": hidden_visibility if suite == HIDDEN else "visible",
        "extra_data": _evidence(case),
    }


def _evidence(case: Mapping[str, Any]) -> dict[str, Any]:
    """The statistical evidence of a (possibly redacted) case: what it has of :data:`CASE_EVIDENCE`,
    and of each check what it has of :data:`CHECK_EVIDENCE`."""
    evidence: dict[str, Any] = {"case": case.get("name")}
    evidence.update({key: case[key] for key in CASE_EVIDENCE if key in case})
    evidence["checks"] = [
        {key: check[key] for key in CHECK_EVIDENCE if key in check} for check in case.get("checks", [])
    ]
    return evidence


def _junit_counts(cases: list[dict[str, Any]]) -> dict[str, int]:
    verdicts = [str(case.get("verdict")) for case in cases]
    return {
        "tests": len(verdicts),
        "failures": sum(v == Verdict.WA.value for v in verdicts),
        "errors": sum(v in ERROR_VERDICTS for v in verdicts),
        "skipped": sum(v == Verdict.SK.value for v in verdicts),
    }


def _junit_properties(data: Mapping[str, Any], full_hidden: bool) -> list[tuple[str, Any]]:
    exercise = data.get("exercise") or {}
    budget = data.get("false_failure_budget") or {}
    found = [
        ("exercise", exercise.get("number")),
        ("verdict", data.get("verdict")),
        ("judge_version", data.get("judge_version")),
        ("device", data.get("device")),
        ("sandbox", data.get("sandbox")),
        ("false_failure_budget", budget.get("total")),
    ]
    if full_hidden:
        found.append(("seed", data.get("seed")))
    return [(name, value) for name, value in found if value is not None]


def _junit_case(suite: ET.Element, case: dict[str, Any], classname: str, lang: str, headline: str | None) -> None:
    attributes = {"name": _xml_text(case.get("name") or ""), "classname": classname}
    if _is_number(case.get("time_ms")):
        attributes["time"] = f"{case['time_ms'] / 1000:.3f}"
    element = ET.SubElement(suite, "testcase", attributes)
    code = str(case.get("verdict") or "")
    text = _xml_text(case_text(case, lang, headline))
    message = _case_message(case, lang).strip()
    summary = _xml_text(message.splitlines()[0] if message else _verdict_title(code, lang))
    if code == Verdict.SK.value:
        ET.SubElement(element, "skipped", message=summary)
    elif code == Verdict.WA.value:
        ET.SubElement(element, "failure", message=summary, type=code).text = text
    elif code in ERROR_VERDICTS:
        ET.SubElement(element, "error", message=summary, type=code).text = text
    evidence = [_check_line(check) for check in case.get("checks", [])]
    if evidence:
        ET.SubElement(element, "system-out").text = _xml_text("\n".join(evidence))


def _check_line(check: Mapping[str, Any]) -> str:
    """``fit row 3 (top_k=2): statistic=12.5 df=3 p_value=0.0107 alpha=1e-09 passed=True``."""
    head = " ".join(str(check[key]) for key in ("kind", "label") if check.get(key))
    values = " ".join(f"{key}={check[key]}" for key in CHECK_EVIDENCE[2:] if check.get(key) is not None)
    return f"{head}: {values}" if values else head


def _verdict_title(code: str, lang: str) -> str:
    try:
        verdict = Verdict(code)
    except ValueError:
        return code
    return verdict.title_zh if lang == "zh" else verdict.title_en


def _xml_text(value: Any) -> str:
    """``value`` as text XML 1.0 can hold: each character it cannot written as ``\\xNN``/``\\uNNNN``."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", str(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_fields(
    obj: Mapping[str, Any], where: str, problems: list[str], *, numbers: tuple[str, ...], strings: tuple[str, ...]
) -> None:
    for key in numbers:
        if key in obj and not _is_number(obj[key]):
            problems.append(f"{where}{key} must be a finite number")
    for key in strings:
        if key in obj and not isinstance(obj[key], str):
            problems.append(f"{where}{key} must be a string")
    if "extra_data" in obj and not isinstance(obj["extra_data"], dict):
        problems.append(f"{where}extra_data must be an object")


def _check_choice(obj: Mapping[str, Any], key: str, allowed: tuple[str, ...], where: str, problems: list[str]) -> None:
    if key in obj and obj[key] not in allowed:
        problems.append(f"{where}{key} {obj[key]!r} is not one of {', '.join(allowed)}")


def _test_problems(test: Any, where: str, *, scored_above: bool) -> list[str]:
    if not isinstance(test, dict):
        return [f"{where} must be an object"]
    problems = [f"unknown field {where}.{key}" for key in test if key not in _TEST_FIELDS]
    if "score" not in test and not scored_above and "status" not in test:
        problems.append(f"{where} needs a score (or a status) when there is no top-level score")
    _check_fields(test, f"{where}.", problems, numbers=("score", "max_score"), strings=("name", "number", "output"))
    if _is_number(test.get("max_score")) and test["max_score"] < 0:
        problems.append(f"{where}.max_score must not be negative")
    _check_choice(test, "status", GRADESCOPE_STATUSES, f"{where}.", problems)
    _check_choice(test, "visibility", GRADESCOPE_VISIBILITIES, f"{where}.", problems)
    for key in ("name_format", "output_format"):
        _check_choice(test, key, GRADESCOPE_FORMATS, f"{where}.", problems)
    tags = test.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        problems.append(f"{where}.tags must be a list of strings")
    return problems


def _leaderboard_ok(board: Any) -> bool:
    return isinstance(board, list) and all(
        isinstance(entry, dict)
        and isinstance(entry.get("name"), str)
        and (_is_number(entry.get("value")) or isinstance(entry.get("value"), str))
        and entry.get("order", "desc") in ("asc", "desc")
        for entry in board
    )
