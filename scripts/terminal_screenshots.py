#!/usr/bin/env python3
"""The terminal pictures of docs/learners.md, from real runs of the judge (SVG, by rich).

    .venv/bin/python scripts/terminal_screenshots.py            # writes docs/screenshots/terminal-*.svg

``terminal-distribution.svg``: exercise 39's reference with its sampler drawing from the squared
probabilities (too sharp, the support right), judged on the public and tiny cases (what the
browser's Run judges) with seed 1: the failed fits drawn as bars under their cases.
``terminal-calibration.svg``: exercise 44's known-wrong ``se_divides_by_n`` (error bars too narrow)
on its tiny cases: the coverage per z against a correct procedure's. Both at 100 columns, in
English. Run it again after a change to what the CLI prints (judge/reports/render.py).
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))  # the project's judge, whatever the current directory

from rich.console import Console  # noqa: E402 - after the path is set

from judge.engine.runner import judge_file  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.patches import expanded_path  # noqa: E402
from judge.reports.render import render_report  # noqa: E402
from judge.reports.report import Report  # noqa: E402

SCREENSHOTS = PROJECT / "docs" / "screenshots"
WIDTH = 100
SEED = 1
DRAW = "return torch.multinomial(probs, num_samples, replacement=True, generator=generator)"


def sharpened_039(folder: Path) -> Path:
    """039's reference, its sampler drawing from probs**2 renormalised (a file in ``folder``)."""
    source = resolve("39").reference_path.read_text(encoding="utf-8")
    if source.count(DRAW) != 1:
        raise SystemExit("039's reference no longer draws with one torch.multinomial line: update this script")
    sharp = "sharp = probs**2 / (probs**2).sum(dim=-1, keepdim=True)\n    " + DRAW.replace("(probs,", "(sharp,")
    path = folder / "solution.py"
    path.write_text(source.replace(DRAW, sharp), encoding="utf-8")
    return path


def save(report: Report, name: str, title: str) -> Path:
    """Render ``report`` as the CLI does, at :data:`WIDTH` columns, into ``docs/screenshots/NAME``."""
    console = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    render_report(report, console, "en")
    path = SCREENSHOTS / name
    console.save_svg(str(path), title=title)
    return path


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="probjudge-screenshots-") as folder:
        report = judge_file(resolve("39"), sharpened_039(Path(folder)), seed=SEED, suites=("public", "tiny"))
        print(save(report, "terminal-distribution.svg", "python practice/judge.py test 39"))
    exercise = resolve("44")
    patch = PROJECT / "solutions/044-importance-sampling/wrong/se_divides_by_n.patch"
    wrong = expanded_path(patch, exercise.reference_path)
    report = judge_file(exercise, wrong, seed=SEED, suites=("tiny",))
    print(save(report, "terminal-calibration.svg", "python practice/judge.py test 44"))


if __name__ == "__main__":
    main()
