"""What a learner may see of a stored submission: the judge's report minus anything hidden.

Shared by the pages and the JSON API, so both show exactly the same thing. Of a hidden case a
learner sees its name, titles, verdict and diagnosis, and of each of its checks the kind, the
level and whether it passed. Never its seed, the labels of its checks (they describe its
inputs) or its message (a failure message quotes input values, and an error message is whatever
the learner's code chose to raise or print about its inputs); nor its time, statistics or
p-values: the learner's code controls those (it can sleep, or skew its draws, in proportion to
a hidden input), so they would carry the hidden inputs out a few digits at a time. The
submission's time is the sum of its public cases' for the same reason. The learner's printed
output is never shown either: the code could print the hidden inputs.
"""

from __future__ import annotations

from typing import Any

from web.models import Submission

HIDDEN = "hidden"


HIDDEN_CHECK_FIELDS = ("kind", "alpha", "passed")  # what a learner sees of a hidden case's checks


def visible_case(case: dict[str, Any]) -> dict[str, Any]:
    """One case of a report as the learner may see it (a new dict)."""
    case = dict(case)
    if case.get("suite") == HIDDEN:
        case.pop("seed", None)
        case["message"] = ""
        case["time_ms"] = case["statistic"] = case["p_value"] = None
        case["checks"] = [{k: check.get(k) for k in HIDDEN_CHECK_FIELDS} for check in case.get("checks", [])]
    return case


def _visible_time_ms(report: dict[str, Any]) -> float | None:
    """The time of the cases the learner may see the times of (see the module docstring)."""
    times = [c.get("time_ms") for c in report.get("cases", []) if c.get("suite") != HIDDEN]
    numbers = [t for t in times if isinstance(t, (int, float))]
    return round(sum(numbers), 3) if numbers else None


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
        "time_ms": _visible_time_ms(report),
        "false_failure_budget": report.get("false_failure_budget"),
        "cases": [visible_case(case) for case in report.get("cases", [])],
        "created_at": submission.created_at.isoformat() if submission.created_at else None,
        "finished_at": submission.finished_at.isoformat() if submission.finished_at else None,
    }
