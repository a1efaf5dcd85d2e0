"""ProbJudge as a Gradescope autograder: ``python -m judge.gradescope --exercise 39``.

Gradescope's harness (https://gradescope-autograders.readthedocs.io/en/latest/specs/) puts the
student's files in ``<root>/submission/`` and uploads ``<root>/results/results.json``, written by
the autograder; ``<root>`` is ``/autograder`` there, ``$PROBJUDGE_AUTOGRADER_ROOT`` or ``--root``
anywhere else (a test, a dry run). ``docs/gradescope.md`` is the recipe (``setup.sh``,
``run_autograder``).

The submission is ``NNN-slug.py`` (the name ``practice/judge.py start`` gives it) when there is
one, else the only ``.py`` file; its other files are helper modules it may import. It is judged by
the one runner, public and hidden suites, under a fresh seed unless ``--seed`` says one. The
results carry every hidden case in full (messages in the tests' output, evidence in
``extra_data``: see :mod:`judge.exports`), and the hidden tests are shown to students when
``--hidden-visibility`` says (``after_due_date`` by default); the top-level output, shown at
once, is what the site would show. When results are written the exit code is 0 (Gradescope
reads the file, not the code); it is 2 when the autograder itself is set up wrong (an unknown
exercise, a strict sandbox that cannot run), which the instructor sees in the run's stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge import JUDGE_VERSION
from judge.exercise import Exercise, ExerciseError, resolve
from judge.exports import DEFAULT_HIDDEN_VISIBILITY, GRADESCOPE_VISIBILITIES, results_json, validate_results_json
from judge.i18n import LANGUAGES, t

ROOT_VARIABLE = "PROBJUDGE_AUTOGRADER_ROOT"
DEFAULT_ROOT = Path("/autograder")
SETUP_ERROR = 2

if TYPE_CHECKING:  # judge.sandbox.launchers is imported with the runner, when a submission is judged
    from judge.sandbox.launchers import Launcher


def autograder_root(root: str | Path | None = None) -> Path:
    """``root`` if given, else ``$PROBJUDGE_AUTOGRADER_ROOT``, else ``/autograder``."""
    if root is not None:
        return Path(root)
    return Path(os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT)


def find_submission(folder: Path, exercise: Exercise, lang: str = "en") -> Path | str:
    """The learner's solution in ``folder``, or why there is none to judge (a text for the student)."""
    expected = f"{exercise.folder}.py"
    files = sorted(path for path in folder.glob("*.py") if path.is_file()) if folder.is_dir() else []
    named = [path for path in files if path.name == expected]
    if named:
        return named[0]
    if len(files) == 1:
        return files[0]
    if not files:
        return t("gradescope_no_file", lang, name=expected)
    return t("gradescope_which_file", lang, name=expected, files=", ".join(path.name for path in files))


def autograde(
    exercise: Exercise,
    root: Path,
    *,
    hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY,
    seed: int | None = None,
    launcher: Launcher | None = None,
    lang: str = "en",
) -> dict[str, Any]:
    """Judge ``<root>/submission`` and write ``<root>/results/results.json``; returns what was written."""
    found = find_submission(root / "submission", exercise, lang)
    if isinstance(found, Path):
        from judge.runner import judge_file

        report = judge_file(exercise, found, seed=seed, launcher=launcher)
        results = results_json(report, full_hidden=True, hidden_visibility=hidden_visibility, lang=lang)
    else:
        results = {
            "score": 0.0,
            "output": found,
            "output_format": "text",
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "extra_data": {"judge_version": JUDGE_VERSION, "exercise": exercise.summary()},
            "tests": [],
        }
    problems = validate_results_json(results)
    if problems:  # a bug of ours: say it in the instructor's log, still hand Gradescope the file
        print("results.json does not follow Gradescope's format: " + "; ".join(problems), file=sys.stderr)
    target = root / "results" / "results.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return results


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m judge.gradescope",
        description="Grade a Gradescope submission with ProbJudge and write results/results.json.",
    )
    parser.add_argument("--exercise", required=True, help="the exercise: number (39) or slug (sampling)")
    parser.add_argument(
        "--root", default=None, help=f"the autograder folder (default: ${ROOT_VARIABLE}, else {DEFAULT_ROOT})"
    )
    parser.add_argument(
        "--hidden-visibility",
        choices=GRADESCOPE_VISIBILITIES,
        default=DEFAULT_HIDDEN_VISIBILITY,
        help="when students see the hidden tests' results (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=None, help="master seed (default: a fresh one per submission)")
    parser.add_argument(
        "--sandbox",
        choices=("local", "strict"),
        default="local",
        help="isolation level of the student's code (strict needs root and Linux: see docs/gradescope.md)",
    )
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="language of what students read")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        exercise = resolve(args.exercise)
    except ExerciseError as error:
        print(f"error: {error}", file=sys.stderr)
        return SETUP_ERROR
    launcher: Launcher | None = None
    if args.sandbox == "strict":
        from judge.sandbox.strict import SandboxUnavailable, StrictLauncher

        try:
            launcher = StrictLauncher(slots=1)
        except SandboxUnavailable as error:
            print(f"error: the strict sandbox is not available here: {error}", file=sys.stderr)
            return SETUP_ERROR
    try:
        results = autograde(
            exercise,
            autograder_root(args.root),
            hidden_visibility=args.hidden_visibility,
            seed=args.seed,
            launcher=launcher,
            lang=args.lang,
        )
    finally:
        if launcher is not None:
            launcher.close()
    seed = results["extra_data"].get("seed")
    print(f"{results['output'].splitlines()[0]} (score {results['score']:g}, seed {seed})")  # the instructors' log
    return 0


if __name__ == "__main__":
    sys.exit(main())
