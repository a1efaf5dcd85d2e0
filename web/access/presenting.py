"""What a viewer may see of a stored submission: the judge's report minus anything hidden.

Shared by the pages and the JSON API, so both show exactly the same thing. What a learner sees
of a hidden case is :mod:`judge.reports.hiding`'s rule (shared with the exports). The learner's printed
output is never shown either: the code could print the hidden inputs.

Seeds are for instructors only: ``practice/judge.py test N --seed S`` replays a run's hidden
failure messages locally, so a learner who saw the seed of a site attempt could read that
attempt's hidden messages. A learner sees the run id instead (the submission id), which an
instructor can look up. Case seeds go too: each is a hash of the master seed, and a search over
the 53-bit master seeds could find it.

What a viewer gets is an :class:`Access` (worked out by :func:`web.access.visibility.access_for`):

- one who teaches the submission's course (:func:`web.access.permissions.teaches_context_of`) sees the report whole:
  every message, time, statistic, p-value and seed;
- the author sees it at its own context's assignment's :class:`~web.core.models.Visibility`:
  ``rule`` (:mod:`judge.reports.hiding`), ``diagnosis`` (each hidden case's verdict and the diagnosis,
  no rule or label), or ``nothing`` (no hidden case at all, and no verdict, score or diagnosis that
  depends on one: ``withheld``).

:func:`withholds` is the one rule for "this grading's verdict is withheld from this viewer"; every
surface that shows a verdict or score of one submission asks it (through these views), and the
surfaces that count asks :func:`web.access.visibility.withheld_exercises` (the same levels, per exercise).

Times (item 5 of issue 31): a submission that sleeps in proportion to a hidden value could read
that value back from when its grading finished. So a viewer who does not teach the author never
gets a grading's start or finish time, and gets the submission time only to the minute
(:func:`shown_time`); those who teach the author keep full times.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from flask import abort
from sqlalchemy.orm import object_session

from judge.reports.exports import results_json
from judge.reports.hiding import hidden_failure_text, report_message, visible_case, visible_message, visible_time_ms
from judge.reports.report import HIDDEN, first_failure
from judge.verdicts import ran_no_case
from web.core.i18n import pick
from web.core.models import Grading, Status, Submission, User, Visibility, as_utc
from web.core.texts import TEXTS
from web.grading.progress import queue_position

# Re-exported: the pages' and the tests' names for judge.reports.hiding's rule.
__all__ = [
    "HIDDEN",
    "Access",
    "grading_progress",
    "grading_summary",
    "hidden_failure_text",
    "shown_time",
    "submission_view",
    "visible_case",
    "withholds",
]


@dataclass(frozen=True)
class Access:
    """How much of a submission's report a viewer sees (see the module docstring)."""

    instructor: bool = False  # the whole report, seeds included
    visibility: Visibility = Visibility.rule  # for the author: how much of the hidden cases


LEARNER_ACCESS = Access()
INSTRUCTOR_ACCESS = Access(instructor=True)


def _visible_message(report: dict[str, Any], lang: str, visibility: Visibility = Visibility.rule) -> str | None:
    """The report's headline; when it comes from a hidden case, only that case's rule (or title),
    or at a lower visibility a sentence that says a hidden case failed."""
    if visibility is Visibility.rule:
        return visible_message(report, lang)
    failing = first_failure(report.get("cases", []))
    if failing is not None and failing.get("suite") == HIDDEN:
        return pick(*TEXTS["hidden_case_failed"], lang)
    return report_message(report, lang)


def _diagnosis_only(case: dict[str, Any]) -> dict[str, Any]:
    """A hidden case at ``diagnosis`` visibility: its name, titles, verdict and diagnosis."""
    case = visible_case(case)
    case["rule"] = case["rule_zh"] = ""
    case["checks"] = []
    return case


def _depends_on_hidden(report: dict[str, Any]) -> bool:
    """Whether the report's verdict comes from a hidden case (no public case failed)."""
    failing = first_failure(report.get("cases", []))
    return failing is None or failing.get("suite") == HIDDEN


def withholds(access: Access, grading: Grading | None) -> bool:
    """Whether ``grading``'s verdict and score are withheld from a viewer with ``access``: at
    ``nothing``, a finished grading whose verdict no public case decided (see the module docstring)."""
    return (
        not access.instructor
        and access.visibility is Visibility.nothing
        and grading is not None
        and grading.report_json is not None
        and _depends_on_hidden(grading.report_json)
    )


def minute(moment: dt.datetime) -> dt.datetime:
    """``moment`` (UTC) cut to the minute: what a viewer who does not teach the author sees."""
    return as_utc(moment).replace(second=0, microsecond=0)


def shown_time(moment: dt.datetime | None, access: Access) -> str | None:
    """A submission's time in ISO 8601 as ``access`` may see it: in full for those who teach the
    author, else to the minute (it never includes how long grading took)."""
    if moment is None:
        return None
    return as_utc(moment).isoformat() if access.instructor else minute(moment).isoformat()


def _not_implemented(cases: list[dict[str, Any]]) -> list[str]:
    """The learner's functions that raised NotImplementedError in the cases shown (not written yet)."""
    names = (name for case in cases for name in case.get("not_implemented") or [] if isinstance(name, str))
    return list(dict.fromkeys(names))


def submission_view(
    submission: Submission, viewer: User | None, lang: str = "en", access: Access = LEARNER_ACCESS
) -> dict[str, Any]:
    """What ``viewer`` sees of ``submission`` (the JSON the API answers; the pages render it).

    ``access`` says how much (see :class:`Access`; the default is a learner's at ``rule``).
    ``lang`` (``en`` or ``zh``) is the language of the headline ``message`` when it comes from a
    hidden case; everything else carries both languages, as the report does. ``withheld`` is
    True when the assignment's visibility hides the verdict and score (they depend on hidden cases).
    """
    grading = submission.shown  # the current (newest finished) grading, else the one under way
    report = (grading.report_json if grading is not None else None) or {}
    full = access.instructor
    visibility = Visibility.rule if full else access.visibility
    cases = report.get("cases", [])
    if full:
        shown_cases = [dict(case) for case in cases]
    elif visibility is Visibility.rule:
        shown_cases = [visible_case(case) for case in cases]
    elif visibility is Visibility.diagnosis:
        shown_cases = [visible_case(c) if c.get("suite") != HIDDEN else _diagnosis_only(c) for c in cases]
    else:
        shown_cases = [visible_case(case) for case in cases if case.get("suite") != HIDDEN]
    withheld = withholds(access, grading)
    diagnosis_hidden = visibility is Visibility.nothing and _depends_on_hidden(report)
    return {
        "id": submission.id,
        "run_id": submission.id,
        "grading": grading.id if grading is not None else None,
        "exercise": submission.exercise.number,
        "status": grading.status.value if grading is not None else "queued",
        "verdict": None if withheld or grading is None else grading.verdict_code,
        "withheld": withheld,
        "score": None if withheld or (visibility is Visibility.nothing and not full) else report.get("score"),
        "message": report_message(report, lang)
        if full
        else (None if withheld else _visible_message(report, lang, visibility)),
        "diagnosis": None if diagnosis_hidden else report.get("diagnosis"),
        "diagnosis_zh": None if diagnosis_hidden else report.get("diagnosis_zh"),
        "not_implemented": _not_implemented(shown_cases),
        # the code never reached a case (it did not compile or import): no score, what to fix
        "no_case_ran": not withheld and grading is not None and ran_no_case(grading.verdict_code or "", cases),
        "seed": grading.seed if full and grading is not None else None,
        "judge_version": grading.judge_version if grading is not None else None,
        "device": report.get("device"),
        "sandbox": report.get("sandbox"),
        "time_ms": report.get("time_ms") if full else visible_time_ms(report),
        "false_failure_budget": report.get("false_failure_budget"),
        "cases": shown_cases,
        "progress": grading_progress(grading, access),
        "created_at": shown_time(submission.created_at, access),
        # When grading finished would time the hidden cases: for those who teach the author only.
        "finished_at": grading.finished_at.isoformat()
        if full and grading is not None and grading.finished_at
        else None,
    }


def grading_progress(grading: Grading | None, access: Access) -> dict[str, Any] | None:
    """How far a queued or running grading has got, as ``access`` may see it; None once it is done.

    ``queue_position`` (queued: 1 is next), ``cases_done`` of ``cases_total`` (running; public
    cases only, and the count stops when the hidden cases start: ``hidden_running``), and
    ``hidden_cases``, how many of ``cases_total`` are hidden. At ``nothing`` a learner sees no
    hidden case, so not their number either: ``cases_total`` counts the public ones and
    ``hidden_cases`` is None. No times: a grading's start would time the gradings before it.
    """
    if grading is None or grading.status.value == Status.done.value:  # (.value: test doubles carry strings)
        return None
    session = object_session(grading)
    total, hidden = grading.cases_total, grading.cases_hidden
    if total is not None and hidden is not None and not access.instructor and access.visibility is Visibility.nothing:
        total, hidden = total - hidden, None
    return {
        "queue_position": queue_position(session, grading) if session is not None else None,
        "cases_done": grading.cases_done,
        "cases_total": total,
        "hidden_cases": hidden,
        "hidden_running": bool(grading.hidden_running),
    }


def grading_summary(grading: Grading, access: Access, current_id: int | None) -> dict[str, Any]:
    """One grading of a submission's history, as ``access`` allows (no seed for a learner; no
    verdict or score where the assignment withholds what depends on hidden cases)."""
    withheld = withholds(access, grading)
    return {
        "id": grading.id,
        "status": grading.status.value,
        "current": grading.id == current_id,
        "verdict": None if withheld else grading.verdict_code,
        "score": None
        if withheld
        or grading.score_total is None
        or (access.visibility is Visibility.nothing and not access.instructor)
        else {"passed": grading.score_passed, "total": grading.score_total},
        "diagnosis": grading.diagnosis if access.instructor or access.visibility is not Visibility.nothing else None,
        "seed": grading.seed if access.instructor else None,
        "rejudge": grading.rejudge_id,
        "judge_version": grading.judge_version,
        "created_at": shown_time(grading.created_at, access),
        "finished_at": grading.finished_at.isoformat() if access.instructor and grading.finished_at else None,
    }


def results_document(submission: Submission, viewer: User, lang: str, access: Access) -> dict[str, Any]:
    """The submission's current grading as Gradescope's ``results.json`` (see judge.reports.exports), for
    the API and the page's link alike; a 409 while it is not graded.

    Built from what the viewer may see (:func:`submission_view`): those who teach its course get
    the statistical evidence in full, the author what their assignment's visibility shows.
    """
    view = submission_view(submission, viewer, lang, access)
    if view["status"] != "done":
        abort(409, description=f"submission {submission.id} is {view['status']}: no result yet")
    grading = submission.shown
    stored = (grading.report_json if grading is not None else None) or {}
    seen = {key: view[key] for key in ("verdict", "score", "message", "diagnosis", "diagnosis_zh", "cases")}
    seen["exercise"] = stored.get("exercise")
    for key in ("schema", "judge_version", "false_failure_budget", "device", "sandbox", "suites"):
        seen[key] = stored.get(key)
    if access.instructor:
        seen = dict(stored)
    return results_json(seen, full_hidden=access.instructor, lang=lang)
