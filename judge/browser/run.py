"""Judge code against an exercise's browser variant in this interpreter: what "Run" does.

The entry point the Web Worker (and the Node.js runner of ``judge.py test --browser``) calls
after writing the exercise's browser files and this package into Pyodide's file system:

    from judge.browser.run import run_browser_variant
    report_json = run_browser_variant(exercise_folder, source, seed)

It returns the judge's report (docs/report.md) as a JSON string, with ``sandbox`` = "browser".
The suites are the exercise's ``[browser]`` suites; the same runner and statistics as on the
server decide, under the exercise's false-failure budget.

One thing only the browser says: a case whose code needs an operation the torch subset lacks
is SK, with "not available in the browser: Submit to grade on the server" (English and
Chinese) as its diagnosis. When nothing else failed, the report's verdict is SK too (the run
could not judge the code; it found no mistake): never RE, which would blame the learner.
"""

from __future__ import annotations

import json
from pathlib import Path

from judge.engine.runner import grade
from judge.exercises.exercise import load_exercise
from judge.exercises.folders import ExerciseError
from judge.i18n import Bilingual
from judge.reports.report import Report
from judge.verdicts import Verdict


def run_browser_variant(exercise_folder: str, source: str, seed: int | None = None) -> str:
    """The JSON report of ``source`` judged on the browser variant of the exercise in ``exercise_folder``."""
    from judge.browser.learner import InProcessLearner, NotInBrowserAtLoad
    from judge.learner.interface import Learner, LoadFailed

    exercise = load_exercise(Path(exercise_folder))
    if exercise.browser is None:
        raise ExerciseError(f"exercise {exercise.number} has no browser variant")
    unavailable: dict[str, Bilingual] = {}
    learner: Learner
    try:
        learner = InProcessLearner(source)
        unavailable = learner.unavailable
    except NotInBrowserAtLoad as failure:
        learner = _FailedLoad(failure)
        unavailable = {str(failure.text): failure.text}
    except LoadFailed as failure:
        learner = _FailedLoad(failure)
    report = grade(exercise, source, seed=seed, suites=exercise.browser.suites, process=learner)
    if unavailable:
        _say_not_available(report, unavailable)
    return json.dumps(report.to_json(), ensure_ascii=False)


def _say_not_available(report: Report, unavailable: dict[str, Bilingual]) -> None:
    """Give each case the subset could not run its bilingual text; SK the report if nothing else failed."""
    for case in report.cases:
        if case.verdict is Verdict.SK and case.message in unavailable:
            case.diagnosis = unavailable[case.message]
    if report.message in unavailable:  # the file itself did not load
        report.diagnosis = unavailable[report.message]
        return
    skipped = next((c for c in report.cases if c.verdict is Verdict.SK and c.message in unavailable), None)
    if report.first_failure() is None and skipped is not None:
        report.verdict = Verdict.SK
        report.message = f"{skipped.title}: {skipped.message}"
        report.diagnosis = skipped.diagnosis


class _FailedLoad:
    """Stands in for a learner whose file did not load: the runner reports it as CE/RE, as on the server."""

    sandbox = "browser"
    alive = False

    def __init__(self, failure) -> None:
        self._failure = failure

    @property
    def functions(self):
        raise self._failure

    @property
    def torch_version(self) -> str:
        raise self._failure

    def call(self, *args, **kwargs):
        raise self._failure

    def output_tail(self) -> str:
        return ""

    def close(self) -> None:
        pass
