"""Records that cross layers: one statistical check, one test case, one submission report.

The JSON form of :class:`Report` is a stable interface (the web site stores it, other tools
parse it); ``docs/report.md`` documents every field. Add fields, never rename or remove them
without bumping ``REPORT_SCHEMA``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

from judge.i18n import in_language
from judge.verdicts import Verdict

REPORT_SCHEMA = 1
# The suites a case comes from, as a report names them: the two folders under an exercise's tests/.
PUBLIC, HIDDEN = "public", "hidden"
_NOT_FAILED = frozenset({Verdict.AC.value, Verdict.SK.value})  # a case that passed, or did not run
Case = TypeVar("Case")  # a CaseResult, or its JSON form (a dict)


def is_failure(verdict: Verdict | str | None) -> bool:
    """Whether a case with this verdict failed: anything but passed (AC) or not run (SK).

    Takes a :class:`Verdict` or its code, as stored in a report's JSON.
    """
    value = verdict.value if isinstance(verdict, Verdict) else verdict
    return value not in _NOT_FAILED


def first_failure(cases: Iterable[Case], *, skipped: bool = False) -> Case | None:
    """The first failing case (:func:`is_failure`) of ``cases``, :class:`CaseResult` objects or their
    JSON dicts; with ``skipped``, when none failed, the first case not run (SK). None when there is none.

    The one answer to "which case does the report talk about", for the runner's message and
    diagnosis, the CLI, the site and the browser.
    """
    cases = list(cases)
    found = next((c for c in cases if is_failure(_verdict_of(c))), None)
    if found is None and skipped:
        found = next((c for c in cases if _verdict_of(c) == Verdict.SK.value), None)
    return found


def _verdict_of(case: Any) -> str | None:
    verdict = case.get("verdict") if isinstance(case, dict) else case.verdict
    return verdict.value if isinstance(verdict, Verdict) else verdict


@dataclass
class CheckRecord:
    """One hypothesis test inside a case (a goodness of fit, an independence test, ...)."""

    kind: str  # one of judge.checks.budget.KINDS: "fit", "pairs", "calibration", "unbiased", "independence", ...
    label: str  # what was tested, in the learner's terms ("row 3")
    statistic: float
    p_value: float
    alpha: float
    passed: bool
    df: int | None = None
    # What the front doors draw of a failed check of a visible case (never of a hidden one): the
    # observed counts against the target, or the coverage per z (judge.reports.figures; docs/report.md).
    figure: dict[str, Any] | None = None


@dataclass
class CaseResult:
    """The outcome of one test case (one test function)."""

    name: str
    suite: str  # "public" | "hidden" | "judge"
    title: str
    verdict: Verdict
    message: str = ""
    time_ms: float = 0.0
    seed: int | None = None
    statistic: float | None = None
    p_value: float | None = None
    diagnosis: str | None = None
    checks: list[CheckRecord] = field(default_factory=list)
    title_zh: str = ""
    sandbox: str | None = None  # the isolation level of the process that ran it (None: no process ran it)
    # Which rule failed, on which row, quoting no input value (a Bilingual): all a learner is
    # shown of a failing hidden case. Empty when the case passed or no check failed.
    rule: str = ""
    cpu_ms: float | None = None  # CPU time the learner's processes used in this case (what its limit counts)
    # The learner's functions that raised NotImplementedError in this case: not written yet (a starter's).
    not_implemented: list[str] = field(default_factory=list)

    @property
    def diagnosis_zh(self) -> str | None:
        return in_language(self.diagnosis, "zh") if self.diagnosis is not None else None

    def to_json(self) -> dict[str, Any]:
        """The case's JSON form: its fields as :func:`dataclasses.asdict` gives them (in their order),
        then ``diagnosis_zh`` and ``rule_zh``, with no NaN or infinity (see :func:`_finite`)."""
        values = {name: getattr(self, name) for name in _CASE_FIELDS}
        checks = values.pop("checks")
        missing = values.pop("not_implemented")
        if all(_is_scalar(value) for value in values.values()) and _plain_checks(checks):
            # The common case, built directly: asdict's deep copy and a second walk of the result
            # cost a few milliseconds per report, which a site pays on every grading it stores.
            data = {
                name: [_check_json(check) for check in checks]
                if name == "checks"
                else [str(function) for function in missing]
                if name == "not_implemented"
                else _finite_scalar(values[name])
                for name in _CASE_FIELDS
            }
        else:
            data = _finite(asdict(self))
        data["verdict"] = self.verdict.value
        data["title_zh"] = self.title_zh or self.title
        data["diagnosis"] = str(self.diagnosis) if self.diagnosis is not None else None
        data["diagnosis_zh"] = self.diagnosis_zh
        data["rule"] = str(self.rule) if self.rule else ""
        data["rule_zh"] = in_language(self.rule, "zh") if self.rule else ""
        data["time_ms"] = _finite_scalar(round(self.time_ms, 3))
        data["cpu_ms"] = _finite_scalar(round(self.cpu_ms, 1)) if self.cpu_ms is not None else None
        return data


@dataclass
class Report:
    """Everything the judge says about one submission."""

    exercise: dict[str, Any]
    verdict: Verdict
    cases: list[CaseResult]
    seed: int | None  # the master seed (None only in a report of a submission that was never judged)
    device: str
    sandbox: str
    suites: list[str]
    judge_version: str
    false_failure_budget: dict[str, Any]
    time_ms: float = 0.0
    # Submission-level message (compile error, process crash, ...): a Bilingual where the engine
    # wrote it (a file that did not load), whose Chinese the JSON carries as ``message_zh``.
    message: str = ""
    diagnosis: str | None = None  # the headline's known mistake: see judge.engine.runner's headline rule
    output: str = ""  # the tail of what the learner's code printed
    environment: dict[str, Any] = field(default_factory=dict)
    # Where time_ms went (milliseconds; ``calls`` a count): see :class:`judge.engine.timesplit.TimeSplit`.
    timing: dict[str, float] = field(default_factory=dict)
    # Probe name -> 16 hex digits of its outputs' hash (judge.engine.probing), for the site's
    # similarity pages only: None when not asked for. Never part of what a learner is shown.
    fingerprint: dict[str, str] | None = None

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c.verdict is Verdict.AC)

    @property
    def not_implemented(self) -> list[str]:
        """The learner's functions that raised NotImplementedError in any case (not written yet), in
        the order the cases first met them."""
        return list(dict.fromkeys(name for case in self.cases for name in case.not_implemented))

    def first_failure(self, *, skipped: bool = False) -> CaseResult | None:
        """The case the report talks about: see :func:`first_failure`."""
        return first_failure(self.cases, skipped=skipped)

    def to_json(self) -> dict[str, Any]:
        data = _finite(
            {
                "schema": REPORT_SCHEMA,
                "judge_version": self.judge_version,
                "exercise": self.exercise,
                "verdict": self.verdict.value,
                "score": {"passed": self.passed, "total": len(self.cases)},
                "message": str(self.message),
                "message_zh": in_language(self.message, "zh"),
                "diagnosis": str(self.diagnosis) if self.diagnosis is not None else None,
                "diagnosis_zh": in_language(self.diagnosis, "zh") if self.diagnosis is not None else None,
                "not_implemented": self.not_implemented,
                "seed": self.seed,
                "seeds": {c.name: c.seed for c in self.cases if c.seed is not None},
                "device": self.device,
                "sandbox": self.sandbox,
                "suites": self.suites,
                "time_ms": round(self.time_ms, 3),
                "false_failure_budget": self.false_failure_budget,
                "cases": [],  # filled below, in this place among the keys
                "output": self.output,
                "environment": self.environment,
                "timing": {key: round(value, 3) for key, value in self.timing.items()},
            }
        )
        data["cases"] = [c.to_json() for c in self.cases]  # each already finite: not walked twice
        if self.fingerprint is not None:  # only where asked for: the learner's front doors never carry it
            data["fingerprint"] = dict(self.fingerprint)
        return data


_CASE_FIELDS = tuple(f.name for f in fields(CaseResult))
_CHECK_FIELDS = tuple(f.name for f in fields(CheckRecord))
_SCALAR_CHECK_FIELDS = tuple(name for name in _CHECK_FIELDS if name != "figure")


def _is_scalar(value: Any) -> bool:
    """Whether ``value`` is one that :func:`dataclasses.asdict` keeps as it is (an immutable
    string, number or None: its deep copy is an equal value)."""
    return value is None or isinstance(value, (str, int, float))


def _plain_checks(checks: Any) -> bool:
    """Whether ``checks`` is a list of :class:`CheckRecord` whose every field is a scalar, but
    ``figure``, None or a dict (of JSON values: :func:`_check_json` copies it)."""
    return type(checks) is list and all(
        type(check) is CheckRecord
        and all(_is_scalar(getattr(check, name)) for name in _SCALAR_CHECK_FIELDS)
        and (check.figure is None or type(check.figure) is dict)
        for check in checks
    )


def _check_json(check: CheckRecord) -> dict[str, Any]:
    """A plain check's JSON form (see :func:`_plain_checks`): its figure a finite copy."""
    return {
        key: _finite(check.figure) if key == "figure" else _finite_scalar(getattr(check, key)) for key in _CHECK_FIELDS
    }


def _finite_scalar(value: Any) -> Any:
    """:func:`_finite` of a scalar: a NaN or an infinity as its string, anything else as it is."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _finite(value: Any) -> Any:
    """JSON has no NaN/inf: write them as strings so strict parsers accept the report."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
