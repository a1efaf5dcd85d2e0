"""Judge code against an exercise's browser variant in this interpreter: what "Run" does.

The entry point the Web Worker (and the Node.js runner of ``judge.py test --browser``) calls
after writing the exercise's browser files and this package into Pyodide's file system:

    from judge.browser.run import run_browser_variant
    report_json = run_browser_variant(exercise_folder, source, seed)

It returns the judge's report (docs/report.md) as a JSON string, with ``sandbox`` = "browser".
The suites are the exercise's ``[browser]`` suites; the same runner and statistics as on the
server decide, under the exercise's false-failure budget.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from judge.exercise import ExerciseError, load_exercise
from judge.runner import judge_file


def run_browser_variant(exercise_folder: str, source: str, seed: int | None = None) -> str:
    """The JSON report of ``source`` judged on the browser variant of the exercise in ``exercise_folder``."""
    from judge.browser.learner import InProcessLearner
    from judge.process import LoadFailed

    exercise = load_exercise(Path(exercise_folder))
    if exercise.browser is None:
        raise ExerciseError(f"exercise {exercise.number} has no browser variant")
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "solution.py"
        path.write_text(source, encoding="utf-8")
        try:
            learner = InProcessLearner(source)
        except LoadFailed as failure:
            learner = _FailedLoad(failure)
        report = judge_file(exercise, path, seed=seed, suites=exercise.browser.suites, process=learner)
    return json.dumps(report.to_json(), ensure_ascii=False)


class _FailedLoad:
    """Stands in for a learner whose file did not load: the runner reports it as CE/RE, as on the server."""

    sandbox = "browser"
    alive = False

    def __init__(self, failure) -> None:
        self._failure = failure

    @property
    def functions(self):
        raise self._failure

    def close(self) -> None:
        pass
