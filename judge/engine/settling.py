"""A run stops once its verdict and its headline are settled: the cases after that are not run.

Most submissions a course sees are wrong, and the case that shows it often comes early; running
every later case costs the learner's CPU and the time to a verdict without changing what the
learner is told. What a report says depends only on the cases up to the first one that fails
*naming a known mistake*:

- the verdict is the first failing case's (:func:`judge.engine.runner._submission_verdict`), and
  every case before the deciding one ran;
- the message is the first failing case's, again one of those;
- the headline diagnosis is the first failing case's, in the suites' order, that names one: the
  deciding case by definition.

So :class:`Settlement` records the lowest-numbered case that failed with a diagnosis; a lane
skips any case numbered above it, and when the lanes are done, :meth:`Settlement.settled` reports
every case above it as skipped (SK), *including* any that another lane had already run. That last
step makes the report independent of how the lanes' threads interleaved: the deciding case is the
lowest-numbered failing-with-a-name case whatever the timing (no case below it is ever skipped),
so a seed reproduces the same report on a busy machine and a quiet one.

A failure that names nothing does not settle the run: a later case may still name the mistake.
Skipping can only lower the probability that a correct submission fails (it fails no case it would
have passed), so the false-failure bound is untouched. What a learner loses is the later cases'
own failures ("also consistent with", docs/report.md); an instructor's analytics count the deciding
case (docs/instructors.md). ``grade(..., sequential=False)`` runs every case, as before.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from judge.exercises.suites import CaseSpec
from judge.i18n import Bilingual, bilingual
from judge.reports.report import CaseResult, Report, is_failure
from judge.verdicts import Verdict

# How a case skipped because an earlier one settled the run begins (in English: the report's mark of it).
SETTLED = "not run: the verdict was settled by an earlier case"


def stopped_early(report: Report) -> bool:
    """Whether ``report``'s run skipped cases because an earlier one settled it."""
    return any(case.verdict is Verdict.SK and str(case.rule).startswith(SETTLED) for case in report.cases)


def settles(result: CaseResult) -> bool:
    """Whether ``result`` settles its run: a failure (not an internal error) that names a mistake."""
    return is_failure(result.verdict) and result.verdict is not Verdict.IE and bool(result.diagnosis)


@dataclass
class Settlement:
    """The lowest-numbered case of a run that settled it (None while none has); safe across lanes.

    ``enabled`` False (a fixed run) settles nothing: every case runs."""

    enabled: bool = True
    deciding: int | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def skip(self, index: int) -> bool:
        """Whether case ``index`` need not run: a case numbered below it settled the run."""
        with self._lock:
            return self.deciding is not None and index > self.deciding

    def record(self, index: int, result: CaseResult) -> None:
        """Note case ``index``'s ``result``; it settles the run if it is the lowest to do so yet."""
        if not self.enabled or not settles(result):
            return
        with self._lock:
            if self.deciding is None or index < self.deciding:
                self.deciding = index

    def settled(self, case: CaseSpec | CaseResult, deciding: CaseSpec) -> CaseResult:
        """The report's entry for ``case`` (a case of the suites, or the judge's own too-regular case),
        not run (or run but dropped) because ``deciding`` settled the run."""
        return CaseResult(
            case.name,
            case.suite,
            case.title,
            Verdict.SK,
            # No message: the rule says it in the learner's language (the CLI and the site show it).
            title_zh=case.title_zh,
            rule=bilingual(
                SETTLED + " ({title})",
                "未运行：前面的测试点（{title}）已经确定了结果",
                title=Bilingual(deciding.title, deciding.title_zh or deciding.title),
            ),
        )
