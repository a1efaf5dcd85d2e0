"""What a learner may see of a report's hidden cases: one rule for the site, the API and the exports.

Of a hidden case a learner sees its name, titles, verdict and diagnosis, of each of its checks
the kind, the level and whether it passed (never its ``figure``, the counts a failed check of a
visible case carries: the engine makes none for a hidden case, and this drops any), and, when
it failed, its rule (``rule``/``rule_zh``: the engine's public, number-free description of the
rule that failed and the row's label).
Never its message (a failure message quotes input values, and an error message is whatever the
learner's code chose to raise or print about its inputs), the labels of its checks (they
describe its inputs), nor its time, statistics or p-values: the learner's code controls those
(it can sleep, or skew its draws, in proportion to a hidden input), so they would carry the
hidden inputs out a few digits at a time. The report's time is the sum of its public cases'
for the same reason. Case seeds go too (each is a hash of the master seed).

Pure functions of a report's JSON form (``Report.to_json()``, what a site stores); used by
:mod:`web.access.presenting` (pages and API) and :mod:`judge.reports.exports` (Gradescope, JUnit).
"""

from __future__ import annotations

from typing import Any

from judge.reports.report import HIDDEN, first_failure, is_failure

RULE_FIELDS = ("rule", "rule_zh")  # missing or empty in reports from before the engine wrote them
HIDDEN_CHECK_FIELDS = ("kind", "alpha", "passed")  # what a learner sees of a hidden case's checks


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def pick(en: str | None, zh: str | None, lang: str) -> str:
    """Of an English/Chinese pair, the one for ``lang`` (English when the Chinese one is missing)."""
    return (zh or en or "") if lang == "zh" else (en or "")


def report_message(report: dict[str, Any], lang: str) -> str:
    """A report's headline message in ``lang``: ``message_zh`` for Chinese where the report has it
    (reports from before the key have ``message`` alone), else ``message``."""
    return pick(_text(report.get("message")), _text(report.get("message_zh")), lang)


def visible_case(case: dict[str, Any], *, seeds: bool = False) -> dict[str, Any]:
    """One case of a report as a learner may see it (a new dict); ``seeds`` keeps its seed.

    ``rule`` and ``rule_zh`` are always strings: the stored ones for a failed case, else empty.
    """
    case = dict(case)
    failed = is_failure(case.get("verdict"))
    for key in RULE_FIELDS:
        case[key] = _text(case.get(key)) if failed else ""
    if not seeds:
        case.pop("seed", None)
    if case.get("suite") == HIDDEN:
        case["message"] = ""
        case["time_ms"] = case["cpu_ms"] = case["statistic"] = case["p_value"] = None
        case["checks"] = [{k: check.get(k) for k in HIDDEN_CHECK_FIELDS} for check in case.get("checks", [])]
    return case


def hidden_failure_text(case: dict[str, Any], lang: str) -> str:
    """What a learner reads of a failed hidden case: its rule in ``lang`` (else English), else its title."""
    return (
        pick(_text(case.get("rule")), _text(case.get("rule_zh")), lang)
        or pick(_text(case.get("title")), _text(case.get("title_zh")), lang)
        or _text(case.get("name"))
    )


def visible_time_ms(report: dict[str, Any]) -> float | None:
    """The time of the cases a learner may see the times of (the public ones)."""
    times = [c.get("time_ms") for c in report.get("cases", []) if c.get("suite") != HIDDEN]
    numbers = [t for t in times if isinstance(t, (int, float))]
    return round(sum(numbers), 3) if numbers else None


def visible_message(report: dict[str, Any], lang: str) -> str | None:
    """The report's headline; when it comes from a hidden case, only that case's rule (or title)."""
    failing = first_failure(report.get("cases", []))
    if failing is not None and failing.get("suite") == HIDDEN:
        return hidden_failure_text(failing, lang)
    return report_message(report, lang)
