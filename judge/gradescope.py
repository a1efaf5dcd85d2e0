"""ProbJudge as a Gradescope autograder: ``python -m judge.gradescope --exercise 39``.

Gradescope's harness (https://gradescope-autograders.readthedocs.io/en/latest/specs/) puts the
student's files in ``<root>/submission/`` and uploads ``<root>/results/results.json``, written by
the autograder; ``<root>`` is ``/autograder`` there, ``$PROBJUDGE_AUTOGRADER_ROOT`` or ``--root``
anywhere else (a test, a dry run). ``docs/gradescope.md`` is the recipe (``setup.sh``,
``run_autograder``).

The submission is ``NNN-slug.py`` (the name ``practice/judge.py start`` gives it) when there is
one, else the only ``.py`` file (a regular file: links are refused, see :func:`plain_file`); its
other files are helper modules it may import under ``local`` only (``strict`` judges the one file,
and says so when there are others). It is judged by
the one runner, public and hidden suites, under a fresh seed unless ``--seed`` says one. The
results carry every hidden case in full (messages in the tests' output, evidence in
``extra_data``: see :mod:`judge.reports.exports`), and the hidden tests are shown to students when
``--hidden-visibility`` says (``after_due_date`` by default); the top-level output, shown at
once, is what the site would show. When results are written the exit code is 0 (Gradescope
reads the file, not the code); it is 2 when the autograder itself is set up wrong (an unknown
exercise, a strict sandbox that cannot run), which the instructor sees in the run's stdout.

The student's code runs in the ``strict`` sandbox by default. ``--sandbox local`` isolates
nothing from a student who sets out to forge a grade: as root it is refused unless
``--allow-unsafe-local`` forces it, and it is always said (a warning on stderr, and a sentence
in the results' output). ``results.json`` is written only once every process of the job is gone
(the command is a child subreaper and kills whatever its descendants left running), into a
temporary file renamed into place, mode 0644, in a folder only its owner may write.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge import JUDGE_VERSION
from judge.exercises.exercise import Exercise, resolve
from judge.exercises.folders import ExerciseError
from judge.extras import MissingExtra, require
from judge.i18n import LANGUAGES, t
from judge.reports.exports import (
    DEFAULT_HIDDEN_VISIBILITY,
    GRADESCOPE_VISIBILITIES,
    results_json,
    validate_results_json,
)
from judge.sandbox import keeper

ROOT_VARIABLE = "PROBJUDGE_AUTOGRADER_ROOT"
DEFAULT_ROOT = Path("/autograder")
SETUP_ERROR = 2
SANDBOXES = ("strict", "local")
UNSAFE_LOCAL_FLAG = "--allow-unsafe-local"

if TYPE_CHECKING:  # judge.sandbox.launchers is imported with the runner, when a submission is judged
    from judge.sandbox.launchers import Launcher


def autograder_root(root: str | Path | None = None) -> Path:
    """``root`` if given, else ``$PROBJUDGE_AUTOGRADER_ROOT``, else ``/autograder``."""
    if root is not None:
        return Path(root)
    return Path(os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT)


def plain_file(path: Path) -> bool:
    """Whether ``path`` is a regular file of its own: not a symbolic link, not a second name (hard
    link) of another file, not a folder, device or pipe.

    The autograder reads the submission as root: a link of either kind would make any file root
    can read (the reference solution, the hidden tests, ``/etc/shadow``) the "student's file",
    and a device could block the read."""
    try:
        found = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_nlink == 1


def find_submission(folder: Path, exercise: Exercise, lang: str = "en") -> Path | str:
    """The learner's solution in ``folder``, or why there is none to judge (a text for the student).

    Only regular files count: a ``.py`` entry that is a link, a folder or a device is refused
    with a sentence saying so (see :func:`plain_file`)."""
    expected = f"{exercise.folder}.py"
    entries = sorted(folder.glob("*.py")) if folder.is_dir() and not folder.is_symlink() else []
    strange = [path for path in entries if not plain_file(path)]
    files = [path for path in entries if plain_file(path)]
    named = [path for path in entries if path.name == expected]
    if named:
        if named[0] in strange:
            return t("gradescope_not_a_file", lang, name=expected, files=expected)
        return named[0]
    if strange:
        return t("gradescope_not_a_file", lang, name=expected, files=", ".join(path.name for path in strange))
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
    isolated: bool = True,
) -> dict[str, Any]:
    """Judge ``<root>/submission`` and write ``<root>/results/results.json``; returns what was written.

    The caller ends the job's processes before the write where it can (:func:`main` does)."""
    results = grade(
        exercise, root, hidden_visibility=hidden_visibility, seed=seed, launcher=launcher, lang=lang, isolated=isolated
    )
    write_results(root, results)
    return results


def grade(
    exercise: Exercise,
    root: Path,
    *,
    hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY,
    seed: int | None = None,
    launcher: Launcher | None = None,
    lang: str = "en",
    isolated: bool = True,
) -> dict[str, Any]:
    """The results of ``<root>/submission`` (Gradescope's format), written nowhere.

    ``isolated=False`` (the ``local`` sandbox) adds to the output that the run was not isolated."""
    found = find_submission(root / "submission", exercise, lang)
    if isinstance(found, Path):
        from judge.engine.runner import judge_file

        # A Gradescope score is the sum of the cases passed: every case runs (settle=False), staged or not.
        report = judge_file(exercise, found, seed=seed, launcher=launcher, settle=False)
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
    if isolated and isinstance(found, Path):
        others = sorted(path.name for path in found.parent.glob("*.py") if path != found)
        if others:  # strict sends the one file as text: helper modules beside it are not there
            note = t("gradescope_one_file", lang, name=found.name, files=", ".join(others))
            results["output"] = f"{results['output']}\n\n{note}"
    if not isolated:
        results["output"] = f"{results['output']}\n\n{t('gradescope_not_isolated', lang)}"
    problems = validate_results_json(results)
    if problems:  # a bug of ours: say it in the instructor's log, still hand Gradescope the file
        print("results.json does not follow Gradescope's format: " + "; ".join(problems), file=sys.stderr)
    return results


def write_results(root: Path, results: dict[str, Any]) -> Path:
    """Write ``<root>/results/results.json`` atomically (a temporary file beside it, renamed into
    place) with mode 0644, the folder made writable by its owner only first; returns the path.

    A process that outlived the judge and opened the old file writes to a file nobody reads."""
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    mode = folder.stat().st_mode
    if mode & (stat.S_IWGRP | stat.S_IWOTH):  # nobody but its owner (the judge) may rename into it
        os.chmod(folder, stat.S_IMODE(mode) & ~(stat.S_IWGRP | stat.S_IWOTH))
    handle, temporary = tempfile.mkstemp(prefix=".results-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), 0o644)
            file.write(json.dumps(results, ensure_ascii=False, indent=1))
            file.flush()
            os.fsync(file.fileno())
        target = folder / "results.json"
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def sandbox_refusal(sandbox: str, allow_unsafe_local: bool, euid: int | None = None) -> str | None:
    """Why ``sandbox`` must not run here (a setup error for the staff), or None.

    ``local`` as root lets the student's code rewrite anything, the results included: refused
    unless ``allow_unsafe_local`` forces it."""
    euid = os.geteuid() if euid is None and hasattr(os, "geteuid") else euid
    if sandbox == "local" and euid == 0 and not allow_unsafe_local:
        return (
            "--sandbox local as root lets the student's code forge its grade and read the hidden tests; "
            f"use --sandbox strict (the default), or add {UNSAFE_LOCAL_FLAG} for a run you trust"
        )
    return None


def exposed_to_sandbox(exercise: Exercise, readable: list[str]) -> list[str]:
    """The exercise's hidden folders (solutions, tests) that the strict sandbox lets the student's
    code read (they lie under one of its ``readable`` roots); empty when none does."""
    hidden = [exercise.solutions_root.resolve(), (exercise.root / "tests").resolve()]
    roots = [Path(path).resolve() for path in readable]
    return sorted(str(path) for path in hidden for top in roots if path == top or top in path.parents)


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
        choices=SANDBOXES,
        default="strict",
        help="isolation level of the student's code (default: %(default)s, which needs root and Linux; "
        "local isolates nothing: see docs/gradescope.md)",
    )
    parser.add_argument(
        UNSAFE_LOCAL_FLAG,
        action="store_true",
        help="let --sandbox local run as root (the student's code can then forge its grade)",
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
    refusal = sandbox_refusal(args.sandbox, args.allow_unsafe_local)
    if refusal:
        print(f"error: {refusal}", file=sys.stderr)
        return SETUP_ERROR
    try:  # the image lacks what the hidden tests import (exercise 45's model): the staff's setup.sh
        for extra in exercise.extras:
            require(extra, what="extra_judging")
    except MissingExtra as missing:
        print(missing.error_line("en"), file=sys.stderr)  # the instructors' log, not the students' page
        return SETUP_ERROR
    spare = keeper.descendants_now()  # what the caller ran before (a test's processes) is not the job's
    was_subreaper = keeper.set_subreaper(True)  # what the student's code orphans stays ours to kill
    try:
        results = _grade_alone(args, exercise)
    finally:
        # Nothing of the job may outlive the judge: a daemon that left its session would rewrite results.json.
        if not keeper.end_descendants(spare):
            print("WARNING: a process of the student's code could not be killed", file=sys.stderr)
        keeper.set_subreaper(was_subreaper)
    if results is None:
        return SETUP_ERROR
    write_results(autograder_root(args.root), results)
    seed = results["extra_data"].get("seed")
    print(f"{results['output'].splitlines()[0]} (score {results['score']:g}, seed {seed})")  # the instructors' log
    return 0


def _grade_alone(args: argparse.Namespace, exercise: Exercise) -> dict[str, Any] | None:
    """The results at the sandbox ``args`` names, the launcher closed (every job's cgroup emptied
    and removed); None for a setup error, said on stderr."""
    launcher: Launcher | None = None
    if args.sandbox == "strict":
        from judge.sandbox.strict import SandboxUnavailable, StrictLauncher

        try:
            launcher = StrictLauncher(slots=1)
        except SandboxUnavailable as error:
            print(f"error: the strict sandbox is not available here: {error}", file=sys.stderr)
            return None
        exposed = exposed_to_sandbox(exercise, launcher.readable)
        if exposed:
            launcher.close()
            print(
                "error: the strict sandbox would let the student's code read "
                + ", ".join(exposed)
                + " (it lies inside the Python installation): install the checkout outside it",
                file=sys.stderr,
            )
            return None
    else:
        print(
            "WARNING: --sandbox local: the student's code is not isolated; it runs as "
            + ("root" if hasattr(os, "geteuid") and os.geteuid() == 0 else "this user")
            + ", can read the hidden tests and solutions, and can change files the judge writes",
            file=sys.stderr,
        )
    try:
        return grade(
            exercise,
            autograder_root(args.root),
            hidden_visibility=args.hidden_visibility,
            seed=args.seed,
            launcher=launcher,
            lang=args.lang,
            isolated=args.sandbox == "strict",
        )
    finally:
        if launcher is not None:
            launcher.close()


if __name__ == "__main__":
    sys.exit(main())
