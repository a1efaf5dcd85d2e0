"""make lint holds the exercises' suites and the solutions to the code base's ruff rules and format."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest

LINTED = ("exercises", "solutions")


def test_make_lint_covers_the_exercises_and_the_solutions(project_root):
    makefile = (project_root / "Makefile").read_text(encoding="utf-8")
    linted = re.search(r"^LINTED := (.*)$", makefile, flags=re.M)
    assert linted is not None and set(LINTED) <= set(linted.group(1).split())
    lint = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    assert "ruff check $(LINTED)" in lint and "ruff format --check $(LINTED)" in lint


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_the_exercises_and_the_solutions_pass_ruff(project_root, command):
    ruff = [sys.executable, "-m", "ruff", *command, *LINTED]
    done = subprocess.run(ruff, cwd=project_root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_exception_of_the_lint_configuration_says_why(project_root):
    """A per-file ignore or a format exclusion is preceded by the comment that says why."""
    text = (project_root / "pyproject.toml").read_text(encoding="utf-8")
    ruff = tomllib.loads(text)["tool"]["ruff"]
    lines = text.splitlines()
    for pattern in ruff["lint"]["per-file-ignores"]:
        index = next(i for i, line in enumerate(lines) if line.startswith(f'"{pattern}" ='))
        assert lines[index - 1].startswith("#"), pattern
    assert "solutions/**" in ruff["lint"]["per-file-ignores"]
    excluded = ruff["format"]["exclude"]
    assert excluded and all((project_root / path).is_file() for path in excluded)
    start = next(i for i, line in enumerate(lines) if line.startswith("exclude = ["))
    assert lines[start - 1].startswith("#")
