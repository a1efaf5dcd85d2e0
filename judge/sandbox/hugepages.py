"""Back the fork server's private memory with huge pages, so that a job's processes cost less.

Every job forks the zygote twice (its keeper, then the keeper its worker) and each of those
processes ends; ``fork()`` copies one page-table entry per 4 KiB page of the zygote's private
memory (about 150 MB with torch loaded) and the exit drops each again. Backed by 2 MiB pages
(``MADV_COLLAPSE``, Linux 6.1+), that is one entry per 2 MiB: measured, 3.7 -> 1.5 ms of CPU
per fork in the zygote and ~2 ms less per process's life. The contents are the same bytes;
a job that writes to such a page gets a 4 KiB copy, as before (the kernel splits the shared
huge page's mapping in the writer), so what a job is charged for its memory does not change.
No ``MADV_HUGEPAGE``: the regions' flags stay as they were, so a job's own new memory is
faulted in exactly as without this (in 4 KiB pages, under this machine's ``madvise`` setting).

Collapsing costs the zygote ~150 ms of CPU once. :class:`Collapser` does it in slices, only
when asked (the zygote asks when it is idle, once it has served a few jobs: a one-grading run
of the command line never pays it). Best effort: where the kernel refuses (no THP, an older
kernel, no 2 MiB of free contiguous memory), the memory stays as it was.
"""

from __future__ import annotations

import ctypes
import sys

MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20
SLICE = 16 << 20  # bytes per step: ~20 ms of the zygote's time, so a request never waits long


class Collapser:
    """Collapses the calling process's private anonymous memory into huge pages, a slice per :meth:`step`."""

    def __init__(self) -> None:
        self._pending: list[tuple[int, int]] | None = None  # (start, length) still to collapse; None: not begun
        self._madvise = None
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
                self._madvise = libc.madvise
            except (OSError, AttributeError):
                pass

    @property
    def done(self) -> bool:
        return self._madvise is None or self._pending == []

    def step(self) -> None:
        """Collapse the next slice (the first call lists the regions); nothing once :attr:`done`."""
        if self.done or self._madvise is None:
            return
        if self._pending is None:
            self._pending = _slices(_private_regions())
        if self._pending:
            start, length = self._pending.pop(0)
            self._madvise(start, length, MADV_COLLAPSE)  # a refusal leaves the slice as it was


def _private_regions() -> list[tuple[int, int]]:
    """The calling process's private, writable anonymous mappings (the heap included) as
    ``(start, end)``, trimmed to whole huge pages; [] where ``/proc`` does not say."""
    regions = []
    try:
        with open("/proc/self/maps") as maps:
            lines = maps.readlines()
    except OSError:
        return []
    for line in lines:
        fields = line.split()
        if len(fields) < 5 or fields[1][:2] != "rw" or fields[1][3:4] != "p":
            continue
        if len(fields) > 5 and fields[5] != "[heap]":  # a file's pages, the stack, vdso...
            continue
        low, high = (int(part, 16) for part in fields[0].split("-"))
        start = (low + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)
        end = high & ~(HUGE_PAGE - 1)
        if end > start:
            regions.append((start, end))
    return regions


def _slices(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``regions`` cut into ``(start, length)`` pieces of at most :data:`SLICE` bytes."""
    return [(at, min(SLICE, end - at)) for start, end in regions for at in range(start, end, SLICE)]
