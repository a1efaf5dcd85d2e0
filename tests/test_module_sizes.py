"""No module of judge/ or web/ is over 800 lines without saying why.

A module that long usually holds more than one thing; better split it by what it owns. Where
it is long on purpose (one table, one state machine read top to bottom), its docstring says so
in a paragraph that starts with ``Long on purpose:``, so that the next reader knows it was a
choice and the one after that knows what the choice was. This test lists every module over the
limit without such a paragraph, with its length.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("judge", "web")
MAX_LINES = 800
MARKER = "Long on purpose:"
NOT_OURS = {"node_modules", "__pycache__"}  # web/frontend's npm packages, compiled files


def _modules() -> list[Path]:
    return sorted(
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if not NOT_OURS.intersection(path.relative_to(ROOT).parts)
    )


def _says_why(source: str) -> bool:
    """Whether the module docstring has a paragraph (lines between blank lines) starting with MARKER."""
    docstring = ast.get_docstring(ast.parse(source)) or ""
    paragraphs = [paragraph.strip() for paragraph in docstring.split("\n\n")]
    return any(paragraph.startswith(MARKER) for paragraph in paragraphs)


def _too_long_without_a_reason(path: Path) -> int | None:
    """The module's length when it is over MAX_LINES and its docstring does not say why, else None."""
    source = path.read_text(encoding="utf-8")
    lines = len(source.splitlines())
    return lines if lines > MAX_LINES and not _says_why(source) else None


def test_every_long_module_says_why_it_is_long():
    modules = _modules()
    assert len(modules) > 100, f"found only {len(modules)} modules under {PACKAGES}"
    offenders = {path.relative_to(ROOT).as_posix(): _too_long_without_a_reason(path) for path in modules}
    listed = "\n".join(f"  {name}: {lines} lines" for name, lines in sorted(offenders.items()) if lines is not None)
    assert not listed, (
        f"over {MAX_LINES} lines, with no docstring paragraph starting {MARKER!r} (split the module by "
        f"what it owns, or say why it is one):\n{listed}"
    )


ONE_LINE = "x = 1\n"
LONG_BODY = ONE_LINE * MAX_LINES  # with the docstring's line: one past the limit


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        (f'"""A module."""\n{LONG_BODY}', True),
        (f'"""A module.\n\n{MARKER} one table, read top to bottom.\n"""\n{LONG_BODY}', False),
        (f'"""A module.\n\nIt is {MARKER} in the middle of a paragraph.\n"""\n{LONG_BODY}', True),
        (f'"""A module."""\n# {MARKER} in a comment, not in the docstring\n{LONG_BODY}', True),
        (f'"""A module."""\n{ONE_LINE * (MAX_LINES - 1)}', False),  # exactly MAX_LINES lines
    ],
    ids=["long-no-reason", "long-with-reason", "marker-mid-paragraph", "marker-in-a-comment", "at-the-limit"],
)
def test_the_check_flags_exactly_the_long_modules_without_a_reason(tmp_path, source, flagged):
    module = tmp_path / "module.py"
    module.write_text(source, encoding="utf-8")
    assert (_too_long_without_a_reason(module) is not None) is flagged
