"""ProbJudge engine: exercise loading, runner, statistics, checks, verdicts and reports.

``judge.grade(exercise, source, ...)`` judges a learner's source text (see :func:`judge.engine.runner.grade`).
It is imported on first use only: ``import judge`` stays cheap (the CLI, the child script and the
browser bundle import this package before anything heavy).
"""

__version__ = "0.1.0"
JUDGE_VERSION = __version__

__all__ = ["JUDGE_VERSION", "__version__", "grade"]


def __getattr__(name: str):
    if name == "grade":
        from judge.engine.runner import grade

        return grade
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
