"""What a viewer may see of a stored submission: the judge's report minus anything hidden.

Shared by the pages and the JSON API, so both show exactly the same thing. Of a hidden case a
learner sees its name, titles, verdict and diagnosis, of each of its checks the kind, the level
and whether it passed, and, when it failed, its rule (``rule``/``rule_zh``: the engine's public,
number-free description of the rule that failed and the row's label). Never its message (a
failure message quotes input values, and an error message is whatever the learner's code chose
to raise or print about its inputs), the labels of its checks (they describe its inputs), nor its
time, statistics or p-values: the learner's code controls those (it can sleep, or skew its draws,
in proportion to a hidden input), so they would carry the hidden inputs out a few digits at a
time. The submission's time is the sum of its public cases' for the same reason. The learner's
printed output is never shown either: the code could print the hidden inputs.

Seeds are for instructors only (:func:`shows_seeds`): ``practice/judge.py test N --seed S``
replays a run's hidden failure messages locally, so a learner who saw the seed of a site attempt
could read that attempt's hidden messages. A learner sees the run id instead (the submission id:
a submission is graded into exactly one stored run), which an instructor can look up. Case seeds
go too: each is a hash of the master seed, and a search over the 53-bit master seeds could find it.
"""

from __future__ import annotations

from typing import Any

from judge.report import first_failure, is_failure
from web.i18n import pick
from web.models import Role, Submission, User

HIDDEN = "hidden"
RULE_FIELDS = ("rule", "rule_zh")  # missing or empty in reports from before the engine wrote them
HIDDEN_CHECK_FIELDS = ("kind", "alpha", "passed")  # what a learner sees of a hidden case's checks


def shows_seeds(viewer: User | None) -> bool:
    """Whether ``viewer`` may see seeds (see the module docstring): instructors only."""
    return viewer is not None and viewer.role is Role.instructor


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def visible_case(case: dict[str, Any], *, seeds: bool = False) -> dict[str, Any]:
    """One case of a report as a viewer may see it (a new dict); ``seeds`` for an instructor.

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


def _visible_time_ms(report: dict[str, Any]) -> float | None:
    """The time of the cases the learner may see the times of (see the module docstring)."""
    times = [c.get("time_ms") for c in report.get("cases", []) if c.get("suite") != HIDDEN]
    numbers = [t for t in times if isinstance(t, (int, float))]
    return round(sum(numbers), 3) if numbers else None


def _visible_message(report: dict[str, Any], lang: str) -> str | None:
    """The report's headline; when it comes from a hidden case, only that case's rule (or title)."""
    failing = first_failure(report.get("cases", []))
    if failing is not None and failing.get("suite") == HIDDEN:
        return hidden_failure_text(failing, lang)
    return report.get("message")


def submission_view(submission: Submission, viewer: User | None, lang: str = "en") -> dict[str, Any]:
    """What ``viewer`` sees of ``submission`` (the JSON the API answers; the pages render it).

    ``lang`` (``en`` or ``zh``) is the language of the headline ``message`` when it comes from a
    hidden case; everything else carries both languages, as the report does.
    """
    grading = submission.shown  # the current (newest finished) grading, else the one under way
    report = (grading.report_json if grading is not None else None) or {}
    seeds = shows_seeds(viewer)
    return {
        "id": submission.id,
        "run_id": submission.id,
        "grading": grading.id if grading is not None else None,
        "exercise": submission.exercise.number,
        "status": grading.status.value if grading is not None else "queued",
        "verdict": grading.verdict_code if grading is not None else None,
        "score": report.get("score"),
        "message": _visible_message(report, lang),
        "diagnosis": report.get("diagnosis"),
        "diagnosis_zh": report.get("diagnosis_zh"),
        "seed": grading.seed if seeds and grading is not None else None,
        "judge_version": grading.judge_version if grading is not None else None,
        "device": report.get("device"),
        "sandbox": report.get("sandbox"),
        "time_ms": _visible_time_ms(report),
        "false_failure_budget": report.get("false_failure_budget"),
        "cases": [visible_case(case, seeds=seeds) for case in report.get("cases", [])],
        "created_at": submission.created_at.isoformat() if submission.created_at else None,
        "finished_at": grading.finished_at.isoformat() if grading is not None and grading.finished_at else None,
    }
