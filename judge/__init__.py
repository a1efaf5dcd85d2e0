"""ProbJudge's engine: exercises, the runner, statistics and checks, verdicts and reports.

``judge.grade(exercise, source, ...)`` judges a learner's source text (see :func:`judge.engine.runner.grade`).
It is imported on first use only: ``import judge`` stays cheap (the CLI, the child script and the
browser bundle import this package before anything heavy).

Its packages and modules, top to bottom as .importlinter's ``judge-layers`` orders them (each may
import only those below it; docs/layout.md says why in this order):

- ``cli``, ``gradescope`` — the front doors: the command line and the Gradescope autograder.
- ``browser/`` — what runs in the learner's browser (Pyodide), and the tools around it.
- ``authoring/`` — tests of the exercises' tests, lanes, the scaffold, mutation testing.
- ``engine/`` — the runner and the trusted side of the learner process.
- ``exercises/`` — exercises on disk, their suites, chapters and statements' contracts.
- ``checks/`` — the statistics and the checks that tests call.
- ``reports/`` — the report and its renderings and exports.
- ``sandbox/`` — everything that runs next to learner code on a machine.
- ``learner/`` — the learner as the runner sees it, and the wire between them.
- ``i18n``, ``verdicts`` — the bilingual texts and the verdicts every layer shares.

May import: ``judge.engine.runner`` (for ``grade``, on first use) and nothing else; nothing of the
site, ever (``judge-never-imports-web``). Imported by: everything in ``judge`` and ``web``.
"""

__version__ = "0.1.0"
JUDGE_VERSION = __version__

__all__ = ["JUDGE_VERSION", "__version__", "grade"]


def __getattr__(name: str):
    if name == "grade":
        from judge.engine.runner import grade

        return grade
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
