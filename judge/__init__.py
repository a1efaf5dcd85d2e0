"""ProbJudge engine: exercise loading, runner, statistics, checks, verdicts and reports."""

__version__ = "0.1.0"
JUDGE_VERSION = __version__
