#!/usr/bin/env python3
"""The diff page's worst inputs: the old quadratic difflib diff against the bounded one.

    .venv/bin/python benchmarks/diff_worst_case.py [--repeats 3]

For each input (two attempts a learner could submit), times, best of ``--repeats``, the diff
the page used to run (``difflib.SequenceMatcher(autojunk=False)``, copied here as it was) and
:func:`web.diffing.code_diff`, and prints both and their ratio, with the bounded diff's steps
and whether it was too large or coarse. The target: the worst input the page diffs takes well
under 100 ms. Inputs over the limits are answered "too large" (the second column is that
answer's cost); the old diff took seconds on them.
"""

from __future__ import annotations

import argparse
import difflib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from web.diffing import MAX_LINES, code_diff  # noqa: E402  (after the path is set)


def old_diff(old: str, new: str) -> int:
    """What ``web.diffing.code_diff`` did before it was bounded: its rows' count."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    return sum(i2 - i1 + j2 - j1 for group in matcher.get_grouped_opcodes(3) for _, i1, i2, j1, j2 in group)


def random_lines(count: int, seed: int, width: int = 30) -> str:
    rng = random.Random(seed)
    return "".join("".join(rng.choice("abcdefghij ") for _ in range(width)) + "\n" for _ in range(count))


def inputs() -> dict[str, tuple[str, str]]:
    half = MAX_LINES // 2 - 1
    rng = random.Random(3)
    return {
        "36 KB random lines": (random_lines(1200, 1), random_lines(1200, 2)),
        "36 KB one repeated line (over the limit)": ("x = 1\n" * 6000, "x = 1\n" * 3000 + "y\n" + "x = 1\n" * 3000),
        f"{MAX_LINES - 1} repeated lines, one changed": ("x\n" * (MAX_LINES - 1), "x\n" * half + "y\n" + "x\n" * half),
        "two blocks swapped": ("a\n" * half + "b\n" * half, "b\n" * half + "a\n" * half),
        "alternating lines": ("a\nb\n" * half, "b\na\n" * half),
        "two symbols, random": (
            "".join(rng.choice("ab\n") for _ in range(3 * MAX_LINES // 2)),
            "".join(rng.choice("ab\n") for _ in range(3 * MAX_LINES // 2)),
        ),
        "one 36 KB line": ("a" * 36_000, "b" * 36_000),
    }


def best(repeats: int, run) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'input':45s} {'before ms':>10s} {'after ms':>9s} {'ratio':>7s}  steps / answer")
    worst_after = 0.0
    for name, (old, new) in inputs().items():
        before = best(args.repeats, lambda old=old, new=new: old_diff(old, new))
        after = best(args.repeats, lambda old=old, new=new: code_diff(old, new))
        diff = code_diff(old, new)
        answer = "too large" if diff.too_large else ("coarse" if diff.coarse else "exact")
        worst_after = max(worst_after, after)
        print(f"{name:45s} {before * 1e3:10.1f} {after * 1e3:9.1f} {before / after:7.1f}  {diff.steps} / {answer}")
    print(f"worst after: {worst_after * 1e3:.1f} ms (target: well under 100 ms)")


if __name__ == "__main__":
    main()
