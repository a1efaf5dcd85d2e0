"""What a learner may see of a stored submission: the judge's report minus anything hidden.

Shared by the pages and the JSON API, so both show exactly the same thing. Of a hidden case a
learner sees its name, titles, verdict, time, p-value and diagnosis; never its seed, the labels
of its checks (they describe its inputs) or its message (a failure message quotes input values,
and an error message is whatever the learner's code chose to raise or print about its inputs).
The learner's printed output is never shown either: the code could print the hidden inputs.
"""

from __future__ import annotations

from typing import Any

from web.models import Submission

HIDDEN = "hidden"


def visible_case(case: dict[str, Any]) -> dict[str, Any]:
    """One case of a report as the learner may see it (a new dict)."""
    case = dict(case)
    if case.get("suite") == HIDDEN:
        case.pop("seed", None)
        case["message"] = ""
        case["checks"] = [{k: v for k, v in check.items() if k != "label"} for check in case.get("checks", [])]
    return case


def _visible_message(report: dict[str, Any]) -> str | None:
    """The report's headline; when it comes from a hidden case, only that case's title."""
    first_failure = next((c for c in report.get("cases", []) if c.get("verdict") not in ("AC", "SK")), None)
    if first_failure is not None and first_failure.get("suite") == HIDDEN:
        return first_failure.get("title", "")
    return report.get("message")


def submission_view(submission: Submission) -> dict[str, Any]:
    """The learner's view of ``submission`` (the JSON the API answers; the pages render it)."""
    report = submission.report_json or {}
    return {
        "id": submission.id,
        "exercise": submission.exercise.number,
        "status": submission.status.value,
        "verdict": submission.verdict,
        "score": report.get("score"),
        "message": _visible_message(report),
        "diagnosis": report.get("diagnosis"),
        "diagnosis_zh": report.get("diagnosis_zh"),
        "seed": submission.seed,
        "judge_version": submission.judge_version,
        "device": report.get("device"),
        "sandbox": report.get("sandbox"),
        "time_ms": report.get("time_ms"),
        "false_failure_budget": report.get("false_failure_budget"),
        "cases": [visible_case(case) for case in report.get("cases", [])],
        "created_at": submission.created_at.isoformat() if submission.created_at else None,
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
    }
