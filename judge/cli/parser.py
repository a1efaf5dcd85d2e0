"""The command line's grammar: every command, its arguments and their help (``--help``)."""

from __future__ import annotations

import argparse

from judge import JUDGE_VERSION
from judge.i18n import LANGUAGES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python practice/judge.py", description="ProbJudge: judge sampling exercises with statistical tests."
    )
    parser.add_argument("--version", action="version", version=f"ProbJudge {JUDGE_VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_lang(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sub.add_argument("--lang", choices=LANGUAGES, default=None, help="language of the texts (default: from locale)")
        return sub

    with_lang(commands.add_parser("list", help="list the exercises"))
    show = with_lang(commands.add_parser("show", help="print an exercise's statement"))
    show.add_argument("exercise", help="number (39, 039) or slug (sampling)")
    show.add_argument(
        "--raw",
        action="store_true",
        help="print the Markdown source (default: rendered, with the math as Unicode text)",
    )
    start = with_lang(commands.add_parser("start", help="write the starter to practice/workspace/ (never overwrites)"))
    start.add_argument("exercise")
    test = with_lang(commands.add_parser("test", help="judge your solution: public + hidden tests"))
    test.add_argument("exercise")
    test.add_argument("file", nargs="?", help="your solution (default: practice/workspace/NNN-slug.py)")
    test.add_argument(
        "--public-only", action="store_true", help="run only the public examples (quick; the hidden tests are skipped)"
    )
    test.add_argument("--seed", type=int, default=None, help="master seed, to reproduce a run")
    test.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    test.add_argument("--json", action="store_true", help="print the report as one JSON object on stdout")
    test.add_argument(
        "--fixed",
        action="store_true",
        help="run every case on its whole sample (default: stop at the first case that names a mistake, "
        "and draw large samples in stages; docs/statistics.md, 'Sequential verdicts')",
    )
    test.add_argument(
        "--junit", metavar="FILE", default=None, help="also write the report to FILE as JUnit XML (for CI tools)"
    )
    test.add_argument(
        "--results-json",
        metavar="FILE",
        default=None,
        help="also write the report to FILE as a Gradescope autograder results.json (docs/gradescope.md)",
    )
    test.add_argument(
        "--browser",
        action="store_true",
        help="run the exercise's browser variant under Node.js, as the site's Run button does",
    )
    test.add_argument(
        "--sandbox",
        choices=("local", "strict"),
        default="local",
        help="isolation level: local (default; your own code) or strict (as a server grades; "
        "needs root and Linux, see `doctor`)",
    )
    solution = with_lang(commands.add_parser("solution", help="print the reference solution and its explanation"))
    solution.add_argument("exercise")
    solution.add_argument(
        "--yes", action="store_true", help="show it without asking first (needed when stdin is not a terminal)"
    )
    check = commands.add_parser(
        "check",
        help="maintainers: references pass, starters name no mistake, known-wrong solutions fail with their "
        "headline diagnosis (docs/authoring.md, 'What check verifies')",
    )
    check.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    check.add_argument("--seed", type=int, default=None)
    check.add_argument("--device", default="cpu")
    check.add_argument("--jobs", type=int, default=2, help="solutions judged at once")
    check.add_argument(
        "--seeds",
        type=int,
        default=1,
        metavar="N",
        help="judge every solution under N master seeds (derived from --seed): the reference must "
        "pass and each wrong solution fail, diagnosed, every time",
    )
    check.add_argument(
        "--lane-runs",
        type=int,
        default=3,
        metavar="N",
        help="after each exercise, grade its reference N times on one lane and print how far apart "
        "its weights leave the site's lanes (advice, never a failure; 0 skips it; see `lanes`)",
    )
    contract = commands.add_parser(
        "contract", help="authors: the statement's binding sentences and the cases that check each one"
    )
    contract.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    mutation = commands.add_parser(
        "mutation", help="maintainers: judge mutants of each reference with its suites (minutes; make mutation)"
    )
    mutation.add_argument("exercises", nargs="*", help="exercise ids (default: all)")
    mutation.add_argument(
        "--sample",
        default=None,
        metavar="N|all",
        help="mutants judged per exercise, a seeded random sample (default 100); 'all' judges every one",
    )
    mutation.add_argument("--seed", type=int, default=0, help="seeds the sample and each mutant's master seed")
    mutation.add_argument("--jobs", type=int, default=2, help="mutants judged at once")
    mutation.add_argument("--strict", action="store_true", help="exit 1 when a mutant survives or errs too (for CI)")
    mutation.add_argument("--json", dest="json_path", metavar="PATH", help="write every mutant's outcome as JSON")
    mutation.add_argument("--markdown", metavar="PATH", help="write the table for docs/benchmarks.md")
    mutation.add_argument("--keep", metavar="DIR", help="write each judged mutant to DIR/NNN-slug/ID.py")
    mutation.add_argument(
        "--operators", default=None, help="comma-separated operator names, e.g. cmp.lt-le,stmt.drop (default: all)"
    )
    lanes = commands.add_parser(
        "lanes", help="authors: measure each case's cost and how evenly the lane weights share it"
    )
    lanes.add_argument("exercise")
    lanes.add_argument("--runs", type=int, default=5, help="measured gradings of the reference (default 5)")
    lanes.add_argument("--warmups", type=int, default=2, help="gradings first, not measured (default 2)")
    lanes.add_argument("--lanes", type=int, default=2, help="lanes to share the cases between (default 2, the site's)")
    lanes.add_argument(
        "--sandbox",
        choices=("auto", "strict", "local"),
        default="auto",
        help="isolation level of the gradings (default: strict where it can run, else local)",
    )
    lanes.add_argument(
        "--tolerance",
        type=float,
        default=None,
        metavar="RATIO",
        help="exit 1 when the declared weights leave the heavier lane more than RATIO times the "
        "lighter one (each case's median time over the runs); without it the command only reports",
    )
    lanes.add_argument("--seed", type=int, default=0, help="master seed the gradings' seeds derive from")
    lanes.add_argument("--json", action="store_true", help="print the measurement as one JSON object")
    new = commands.add_parser("new", help="authors: write a small working exercise to start from (never overwrites)")
    new.add_argument("number", help="the exercise's number, 1 to 999")
    new.add_argument("slug", help="lowercase letters, digits and hyphens, e.g. beam-search")
    new.add_argument("--title-en", default=None, help="the English title (default: from the slug)")
    new.add_argument("--title-zh", default=None, help="the Chinese title (default: a TODO)")
    new.add_argument(
        "--into",
        default=None,
        metavar="FOLDER",
        help="the pack to write into (default: the first exercises folder); the solutions go to "
        "the solutions/ folder beside it",
    )
    with_lang(commands.add_parser("doctor", help="what this machine can judge"))
    submit = with_lang(
        commands.add_parser("submit", help="grade a file on a ProbJudge server and wait for the verdict")
    )
    submit.add_argument("exercise")
    submit.add_argument("file")
    submit.add_argument("--server", required=True, help="the site's URL, e.g. http://127.0.0.1:5000")
    submit.add_argument("--token", required=True, help="your API token")
    submit.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the verdict")
    submit.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    submit.add_argument(
        "--course",
        type=course_choice,
        default=argparse.SUPPRESS,  # absent unless given: the server then picks the course
        help="the course id to submit for, or 'practice' (default: the server's rule, see docs/learners.md)",
    )
    return parser


def course_choice(text: str) -> int | None:
    """``--course``: a course id, or ``practice`` (None: a submission for no course)."""
    if text.strip().lower() == "practice":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a course id nor 'practice'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a course id (ids are positive)")
    return value
