"""The difference between two attempts' code, as a unified diff with line numbers on both sides.

:func:`code_diff` gives the rows a page renders (no HTML here, so the template escapes every
line): hunks of :data:`CONTEXT` unchanged lines around each change, as ``diff -u`` shows them.

Its work is bounded whatever the code (a diff is a GET anyone with two attempts can repeat):

- Code over :data:`MAX_LINES` lines or :data:`MAX_BYTES` bytes on either side is not diffed at
  all (``too_large``: the page offers both files to download instead).
- Below that, lines are interned to ints (a long line is hashed once, never compared twice),
  the common head and tail are cut off and lines found on one side only are set aside (all in
  linear time), and what is left is paired by Myers' O((N+M)·D) greedy diff, which counts its
  steps (diagonal probes, snake moves, saved frontier entries) and gives up past
  :data:`STEP_BUDGET`. The steps are the whole of its super-linear work, so the worst input
  under the limits costs about the budget (≈ 25 ms on an idle core here, against 0.6–12 s for
  the old diff; see benchmarks/diff_worst_case.py).
  When it gives up, the middle is shown as removed then added (``coarse``): still a correct diff,
  only not the shortest.

Why not ``difflib``: its ``SequenceMatcher`` is quadratic in lines repeated on both sides
(``autojunk=False``: two 36 KB files of one repeated line took 4 s) and with ``autojunk=True``
it stops pairing common lines (blank lines, ``return``) in files over 200 lines, which makes
learners' diffs unreadable; neither bounds its work in a way a caller can state. ``difflib`` is
still used to turn the pairing into hunks (:meth:`SequenceMatcher.get_grouped_opcodes`).

:class:`DiffCache` keeps the last few diffs by the two submissions' ids (code never changes
after submitting), bounded in entries and so in memory (each entry is at most twice the limits).
"""

from __future__ import annotations

import difflib
import threading
from collections import OrderedDict
from dataclasses import dataclass

CONTEXT = 3
MAX_LINES = 2000  # per side; also bounds the rows a page renders (4000)
MAX_BYTES = 128 * 1024  # per side (submissions are at most max_code_bytes, 64 KiB by default)
STEP_BUDGET = 200_000  # Myers steps before the middle is shown as one replacement


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
    too_large: bool = False  # over MAX_LINES/MAX_BYTES: not diffed, ``lines`` is empty
    coarse: bool = False  # over STEP_BUDGET: the changed middle is shown as one replacement
    steps: int = 0  # Myers steps taken (at most STEP_BUDGET plus one snake)

    @property
    def same(self) -> bool:
        return not self.lines and not self.too_large


@dataclass(frozen=True)
class _Pairing:
    blocks: list[tuple[int, int, int]]  # difflib's matching blocks, ending with (len(a), len(b), 0)
    steps: int
    complete: bool


class _PairedMatcher(difflib.SequenceMatcher):
    """A SequenceMatcher whose matching blocks are given (so only its hunk grouping is used)."""

    def __init__(self, a: list[str], b: list[str], blocks: list[tuple[int, int, int]]):
        super().__init__(None, a, b, autojunk=False)
        self._blocks = blocks

    def get_matching_blocks(self) -> list[difflib.Match]:
        return [difflib.Match(*block) for block in self._blocks]


def too_large(old: str, new: str) -> bool:
    """Whether either side is over the limits :func:`code_diff` diffs."""
    return any(len(code.encode()) > MAX_BYTES or code.count("\n") >= MAX_LINES for code in (old, new))


def code_diff(old: str, new: str, budget: int = STEP_BUDGET) -> CodeDiff:
    """The unified diff from ``old`` to ``new`` (empty ``lines`` when they are the same code).

    Work is linear in the code's size plus at most ``budget`` steps; over the size limits the
    answer is ``too_large`` with no lines."""
    if too_large(old, new):
        return CodeDiff([], 0, 0, too_large=True)
    old_lines, new_lines = old.splitlines(), new.splitlines()
    pairing = _pair_lines(old_lines, new_lines, budget)
    matcher = _PairedMatcher(old_lines, new_lines, pairing.blocks)
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
    return CodeDiff(lines, added, removed, coarse=not pairing.complete, steps=pairing.steps)


def _pair_lines(old_lines: list[str], new_lines: list[str], budget: int) -> _Pairing:
    """Which lines of the two sides are the same line, as difflib's matching blocks."""
    ids: dict[str, int] = {}
    a = [ids.setdefault(line, len(ids)) for line in old_lines]
    b = [ids.setdefault(line, len(ids)) for line in new_lines]
    n, m = len(a), len(b)
    head = 0
    while head < min(n, m) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    a_middle, b_middle = a[head : n - tail], b[head : m - tail]
    # A line on one side only is never paired: leaving it out keeps every longest common
    # subsequence and spares the budget for what can match (a rewrite is mostly such lines).
    in_a, in_b = set(a_middle), set(b_middle)
    a_kept = [i for i, line in enumerate(a_middle) if line in in_b]
    b_kept = [j for j, line in enumerate(b_middle) if line in in_a]
    middle, steps = _myers_pairs([a_middle[i] for i in a_kept], [b_middle[j] for j in b_kept], budget)
    pairs = [(a_kept[i] + head, b_kept[j] + head) for i, j in middle] if middle is not None else []
    blocks: list[tuple[int, int, int]] = [(0, 0, head)] if head else []
    for i, j in pairs:
        last = blocks[-1] if blocks else None
        if last and last[0] + last[2] == i and last[1] + last[2] == j:
            blocks[-1] = (last[0], last[1], last[2] + 1)
        else:
            blocks.append((i, j, 1))
    if tail:
        last = blocks[-1] if blocks else None
        if last and last[0] + last[2] == n - tail and last[1] + last[2] == m - tail:
            blocks[-1] = (last[0], last[1], last[2] + tail)
        else:
            blocks.append((n - tail, m - tail, tail))
    blocks.append((n, m, 0))
    return _Pairing(blocks, steps, middle is not None)


def _myers_pairs(a: list[int], b: list[int], budget: int) -> tuple[list[tuple[int, int]] | None, int]:
    """The (i, j) pairs of a shortest edit script from ``a`` to ``b`` and the steps it took;
    None when that would take more than ``budget`` steps (each probe, snake move and saved
    frontier entry is a step, so time and memory are O(budget))."""
    n, m = len(a), len(b)
    if not n or not m:
        return [], 0
    frontier: dict[int, int] = {1: 0}  # diagonal k = x - y → furthest x reached
    trace: list[dict[int, int]] = []
    steps = 0
    for d in range(n + m + 1):
        trace.append(dict(frontier))
        steps += len(frontier)
        for k in range(-d, d + 1, 2):
            down = k == -d or (k != d and frontier[k - 1] < frontier[k + 1])  # an insertion, else a deletion
            x = frontier[k + 1] if down else frontier[k - 1] + 1
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            steps += 1 + x - start
            frontier[k] = x
            if x >= n and y >= m:
                return _backtrack(trace, n, m), steps
            if steps > budget:
                return None, steps
    raise AssertionError("unreachable: d = n + m always reaches the end")


def _backtrack(trace: list[dict[int, int]], n: int, m: int) -> list[tuple[int, int]]:
    """The diagonal (matching) moves of the path the frontiers in ``trace`` reached (n, m) by
    (``trace[d]`` is the frontier before step d: where each diagonal stood after d - 1 edits)."""
    pairs: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        frontier, k = trace[d], x - y
        previous_k = k + 1 if k == -d or (k != d and frontier[k - 1] < frontier[k + 1]) else k - 1
        previous_x = frontier[previous_k]
        previous_y = previous_x - previous_k
        while x > previous_x and y > previous_y:  # the snake after step d's edit
            x, y = x - 1, y - 1
            pairs.append((x, y))
        x, y = previous_x, previous_y
    pairs.reverse()
    return pairs


class DiffCache:
    """The last ``size`` diffs, by (old id, new id); safe to share between server threads."""

    def __init__(self, size: int = 64):
        self.size = size
        self._diffs: OrderedDict[tuple[int, int], CodeDiff] = OrderedDict()
        self._lock = threading.Lock()

    def diff(self, old_id: int, old: str, new_id: int, new: str) -> CodeDiff:
        key = (old_id, new_id)
        with self._lock:
            if key in self._diffs:
                self._diffs.move_to_end(key)
                return self._diffs[key]
        found = code_diff(old, new)  # outside the lock: two threads may compute one pair, never wait
        with self._lock:
            self._diffs[key] = found
            self._diffs.move_to_end(key)
            while len(self._diffs) > self.size:
                self._diffs.popitem(last=False)
        return found
