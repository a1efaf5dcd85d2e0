"""The one short list of verdicts shared by every layer (engine, CLI, web, browser).

Modelled on DMOJ's judge: a submission and each of its test cases end in one of these.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any


class Verdict(str, enum.Enum):
    """A verdict. The value is the short code stored in reports and databases."""

    AC = "AC"  # accepted
    WA = "WA"  # wrong answer (a check failed)
    TLE = "TLE"  # time limit exceeded (CPU or wall clock)
    MLE = "MLE"  # memory limit exceeded
    RE = "RE"  # runtime error: the learner's code raised or the process died
    CE = "CE"  # compile error: syntax/import error, missing function, wrong signature
    IE = "IE"  # internal error: a bug in the judge or the exercise, never the learner's fault
    SK = "SK"  # skipped: a case not run because an earlier failure made it pointless (cases only)

    @property
    def passed(self) -> bool:
        return self is Verdict.AC

    @property
    def title_en(self) -> str:
        return _TITLES[self][0]

    @property
    def title_zh(self) -> str:
        return _TITLES[self][1]


_TITLES = {
    Verdict.AC: ("Accepted", "通过"),
    Verdict.WA: ("Wrong answer", "答案错误"),
    Verdict.TLE: ("Time limit exceeded", "超出时间限制"),
    Verdict.MLE: ("Memory limit exceeded", "超出内存限制"),
    Verdict.RE: ("Runtime error", "运行错误"),
    Verdict.CE: ("Compile error", "编译错误"),
    Verdict.IE: ("Internal error", "评测系统内部错误"),
    Verdict.SK: ("Skipped", "已跳过"),
}


def ran_no_case(verdict: str, cases: Iterable[Mapping[str, Any]]) -> bool:
    """True when the learner's code never reached a case: it did not compile or import, lacks a
    function, or its process could not start (every case SK under a run verdict that is not SK
    itself; a run that is SK as a whole is the browser's "not available here", said otherwise).
    Such a run has no score to speak of and no seed worth replaying: its reports say what to fix."""
    verdicts = [case.get("verdict") for case in cases]
    return bool(verdicts) and verdict != Verdict.SK.value and all(v == Verdict.SK.value for v in verdicts)
