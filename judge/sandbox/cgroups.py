"""Per-job cgroups for memory and process limits: cgroup v1 (this kind of machine) or v2 (systemd).

The judge (root) creates one cgroup per job, the learner's process joins it before dropping
privileges, and afterwards the judge reads whether the kernel's OOM killer fired (MLE rather
than RE), kills whatever is left in it (grandchildren that left the process group included)
and removes it. Where the kernel counts CPU time per cgroup (v2 always; v1 with a ``cpuacct``
hierarchy, which joins the job's others), the job's CPU time is read there too: it counts every
process that ever ran in the job, even one whose time no parent collected (see
:meth:`JobCgroup.cpu_seconds`).
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
GROUP = "probjudge"
CPUACCT_V1 = ROOT / "cpuacct"  # v1's CPU accounting hierarchy (often a link to "cpu,cpuacct")


@dataclass(frozen=True)
class CgroupSupport:
    version: int  # 1, 2, or 0 when no usable memory+pids controllers
    reason: str

    @property
    def available(self) -> bool:
        return self.version in (1, 2)


def detect() -> CgroupSupport:
    """Which cgroup version offers writable memory and pids controllers here."""
    controllers = ROOT / "cgroup.controllers"
    if controllers.is_file():
        names = controllers.read_text().split()
        if {"memory", "pids"} <= set(names) and os.access(ROOT, os.W_OK):
            return CgroupSupport(2, "cgroup v2 with memory and pids controllers")
        return CgroupSupport(0, f"cgroup v2 without memory/pids controllers here (has: {' '.join(names) or 'none'})")
    memory, pids = ROOT / "memory", ROOT / "pids"
    if (memory / "cgroup.procs").is_file() and (pids / "cgroup.procs").is_file():
        if os.access(memory, os.W_OK) and os.access(pids, os.W_OK):
            return CgroupSupport(1, "cgroup v1 memory and pids hierarchies")
        return CgroupSupport(0, "cgroup v1 hierarchies are not writable (run the judge as root)")
    return CgroupSupport(0, "no cgroup memory/pids controller mounted")


class JobCgroup:
    """The cgroup(s) of one job. ``dirs`` go to the learner's process, which joins them itself."""

    def __init__(self, name: str, *, memory_bytes: int, max_pids: int, support: CgroupSupport | None = None) -> None:
        self.support = support or detect()
        if not self.support.available:
            raise OSError(self.support.reason)
        if self.support.version == 2:
            parent = ROOT / GROUP
            parent.mkdir(exist_ok=True)
            _enable_controllers(parent)
            self.dirs = [parent / name]
        else:
            self.dirs = [ROOT / "memory" / GROUP / name, ROOT / "pids" / GROUP / name]
            if _cpuacct_v1():
                accounting = CPUACCT_V1 / GROUP / name
                try:
                    accounting.mkdir(parents=True, exist_ok=True)
                    self.dirs.append(accounting)
                except OSError:
                    pass  # optional: the job's CPU time is read from /proc then
        for path in self.dirs:
            path.mkdir(parents=True, exist_ok=True)
        if self.support.version == 2:
            (self.dirs[0] / "memory.max").write_text(str(memory_bytes))
            if (self.dirs[0] / "memory.swap.max").exists():
                (self.dirs[0] / "memory.swap.max").write_text("0")
            (self.dirs[0] / "pids.max").write_text(str(max_pids))
        else:
            (self.dirs[0] / "memory.limit_in_bytes").write_text(str(memory_bytes))
            (self.dirs[1] / "pids.max").write_text(str(max_pids))
        self._oom_before = self._oom_kills()

    def _oom_kills(self) -> int:
        name = "memory.events" if self.support.version == 2 else "memory.oom_control"
        try:
            for line in (self.dirs[0] / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer fired inside this cgroup since it was made."""
        return self._oom_kills() > self._oom_before

    def limit_hit(self) -> bool:
        """Whether memory use reached the limit (OOM kill, or reclaim/stall at the limit)."""
        if self.oom_killed():
            return True
        try:
            if self.support.version == 2:
                for line in (self.dirs[0] / "memory.events").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key in ("max", "oom") and int(value) > 0:
                        return True
                return False
            return int((self.dirs[0] / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError):
            return False

    def cpu_seconds(self) -> float | None:
        """CPU seconds (user + system) of every process that has been in the job, ended ones included.

        None where the kernel does not count it here (v1 without ``cpuacct``), or no longer (the
        cgroup is removed). Unlike ``/proc`` (:func:`judge.sandbox.keeper.tree_cpu_seconds`), it
        also counts a process nobody waited for: one the kernel reaped by itself because its
        parent ignores ``SIGCHLD`` adds its time to no parent's figures.
        """
        try:
            if self.support.version == 2:
                for line in (self.dirs[0] / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
                return None
            if len(self.dirs) < 3:
                return None
            return int((self.dirs[2] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.dirs:
            try:
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return sorted(found)

    def kill_all(self, *, wait: bool = True) -> None:
        """SIGKILL every process in the cgroup; with ``wait``, until none is left (or two seconds pass).

        A killed process leaves the cgroup once the kernel has torn its memory down (milliseconds
        for one forked from a torch-loaded zygote), so the wait looks again soon, and then less often.
        """
        deadline = time.monotonic() + 2
        pause = 0.0005
        while True:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not wait or time.monotonic() >= deadline:
                return
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def remove(self) -> None:
        self.kill_all()
        for path in self.dirs:
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)  # the last process is still being torn down


STALE_AFTER_S = 300.0  # a job's cgroup is joined within milliseconds of being made


def remove_stale(support: CgroupSupport, older_than_s: float = STALE_AFTER_S) -> int:
    """Remove job cgroups that a judge killed before it could remove them; return how many.

    Only empty ones older than ``older_than_s``: another judge's job (a server beside a CLI run)
    holds processes, or was made moments ago and is about to be joined. The kernel refuses to
    remove a cgroup that still holds a process, so a live job is never touched.
    """
    if not support.available:
        return 0
    parents = (
        [ROOT / GROUP] if support.version == 2 else [ROOT / "memory" / GROUP, ROOT / "pids" / GROUP, CPUACCT_V1 / GROUP]
    )
    cutoff = time.time() - older_than_s
    removed = 0
    for parent in parents:
        try:
            children = [path for path in parent.iterdir() if path.is_dir()]
        except OSError:
            continue
        for path in children:
            try:
                if path.stat().st_mtime < cutoff and not (path / "cgroup.procs").read_text().split():
                    path.rmdir()
                    removed += 1
            except OSError:
                pass  # joined, removed or busy meanwhile: not stale after all
    return removed


def _cpuacct_v1() -> bool:
    """Whether v1's ``cpuacct`` hierarchy is mounted here and the judge may make cgroups in it."""
    return (CPUACCT_V1 / "cpuacct.usage").is_file() and os.access(CPUACCT_V1, os.W_OK)


def join(dirs: list[str]) -> None:
    """Move the calling process into the job cgroup(s) (called by the learner's process)."""
    pid = str(os.getpid())
    for path in dirs:
        with open(os.path.join(path, "cgroup.procs"), "w") as procs:
            procs.write(pid)


def _enable_controllers(parent: Path) -> None:
    for path in (ROOT, parent):
        control = path / "cgroup.subtree_control"
        try:
            control.write_text("+memory +pids")
        except OSError:
            pass
