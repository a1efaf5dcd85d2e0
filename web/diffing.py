"""The difference between two attempts' code, as a unified diff with line numbers on both sides.

:func:`code_diff` gives the rows a page renders (no HTML here, so the template escapes every
line): hunks of :data:`CONTEXT` unchanged lines around each change, as ``diff -u`` shows them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

CONTEXT = 3


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "hunk" (a header), "same", "removed" or "added"
    old_number: int | None  # the line's number in the older code (None: not in it)
    new_number: int | None
    text: str


@dataclass(frozen=True)
class CodeDiff:
    lines: list[DiffLine]
    added: int
    removed: int

    @property
    def same(self) -> bool:
        return not self.lines


def code_diff(old: str, new: str) -> CodeDiff:
    """The unified diff from ``old`` to ``new`` (empty ``lines`` when they are the same code)."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    lines: list[DiffLine] = []
    added = removed = 0
    for group in matcher.get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        header = f"@@ -{first[1] + 1},{last[2] - first[1]} +{first[3] + 1},{last[4] - first[3]} @@"
        lines.append(DiffLine("hunk", None, None, header))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [DiffLine("same", i + 1, j1 + k + 1, old_lines[i]) for k, i in enumerate(range(i1, i2))]
                continue
            if tag in ("replace", "delete"):
                lines += [DiffLine("removed", i + 1, None, old_lines[i]) for i in range(i1, i2)]
                removed += i2 - i1
            if tag in ("replace", "insert"):
                lines += [DiffLine("added", None, j + 1, new_lines[j]) for j in range(j1, j2)]
                added += j2 - j1
    return CodeDiff(lines, added, removed)
