"""The zygote's huge-page collapse: best effort, in slices, and the memory's contents unchanged."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from judge.sandbox import hugepages

# In a process of its own (what it does to the pytest process's memory is none of the tests' business).
COLLAPSE = textwrap.dedent(
    """
    import hashlib
    from judge.sandbox import hugepages
    data = bytearray(range(256)) * (64 << 12)  # 64 MiB of private memory, with contents to check
    digest = hashlib.sha256(data).hexdigest()
    collapser, steps = hugepages.Collapser(), 0
    while not collapser.done:
        collapser.step()
        steps += 1
    print(steps, hashlib.sha256(data).hexdigest() == digest)
    """
)


def test_the_collapse_ends_and_changes_no_byte():
    done = subprocess.run([sys.executable, "-c", COLLAPSE], capture_output=True, text=True, timeout=60, check=True)
    steps, same = done.stdout.split()
    assert same == "True"
    if sys.platform.startswith("linux"):
        # The 64 MiB (at least 62 of them in whole huge pages) alone take 4 slices: no request waits for all.
        assert int(steps) >= 4


def test_slices_cover_each_region_and_no_more():
    regions = [(0, 3 * hugepages.SLICE + hugepages.HUGE_PAGE), (1 << 40, (1 << 40) + hugepages.HUGE_PAGE)]
    pieces = hugepages._slices(regions)
    assert sum(length for _, length in pieces) == sum(end - start for start, end in regions)
    assert all(length <= hugepages.SLICE for _, length in pieces)
    assert pieces[-1] == (1 << 40, hugepages.HUGE_PAGE)
