"""Per-job cgroups for memory and process limits: cgroup v1 (this kind of machine) or v2 (systemd).

The judge (root) creates one cgroup per job, the learner's process joins it before dropping
privileges, and afterwards the judge reads whether the kernel's OOM killer fired (MLE rather
than RE), kills whatever is left in it (grandchildren that left the process group included)
and removes it. Where the kernel accounts CPU time per cgroup (v1's ``cpuacct`` hierarchy, v2's
``cpu.stat``), the job's CPU time is one read too (:meth:`JobCgroup.cpu_seconds`): every
process the learner's code starts is born in the cgroup and cannot leave it (its files are
root's, and outside the sandbox's view), and what ended stays counted.

The files read during a job are opened once and read again with ``pread`` (a cgroup file
says what holds now at every read from offset 0): a call that raised, or a case's CPU time,
costs one system call instead of an ``open``/``read``/``close`` and a path.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
GROUP = "probjudge"


@dataclass(frozen=True)
class CgroupSupport:
    version: int  # 1, 2, or 0 when no usable memory+pids controllers
    reason: str
    cpu_accounting: bool = False  # v1: a writable cpuacct hierarchy (v2 has cpu.stat in every cgroup)

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
            cpuacct = ROOT / "cpuacct"
            accounting = (cpuacct / "cpuacct.usage").is_file() and os.access(cpuacct, os.W_OK)
            return CgroupSupport(1, "cgroup v1 memory and pids hierarchies", cpu_accounting=accounting)
        return CgroupSupport(0, "cgroup v1 hierarchies are not writable (run the judge as root)")
    return CgroupSupport(0, "no cgroup memory/pids controller mounted")


class JobCgroup:
    """The cgroup(s) of one job. ``dirs`` go to the learner's process, which joins them itself.

    ``dirs`` is the memory cgroup first; at v1 the pids one next, and the cpuacct one last where
    :attr:`CgroupSupport.cpu_accounting` says there is one. The files read while the job runs
    stay open until :meth:`remove` (safe to call from another thread than the readers).
    """

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
        for path in self.dirs:
            path.mkdir(parents=True, exist_ok=True)
        if self.support.version == 1 and self.support.cpu_accounting:
            accounting = ROOT / "cpuacct" / GROUP / name
            try:
                accounting.mkdir(parents=True, exist_ok=True)
                self.dirs.append(accounting)
            except OSError:
                pass  # optional: this job's CPU time is read from /proc then
        if self.support.version == 2:
            (self.dirs[0] / "memory.max").write_text(str(memory_bytes))
            if (self.dirs[0] / "memory.swap.max").exists():
                (self.dirs[0] / "memory.swap.max").write_text("0")
            (self.dirs[0] / "pids.max").write_text(str(max_pids))
        else:
            (self.dirs[0] / "memory.limit_in_bytes").write_text(str(memory_bytes))
            (self.dirs[1] / "pids.max").write_text(str(max_pids))
        self._lock = threading.Lock()  # a reader never meets a descriptor remove() closed (or reused)
        self._files: dict[str, int] = {}
        try:
            if self.support.version == 2:
                self._open("events", self.dirs[0] / "memory.events")
                self._open("cpu", self.dirs[0] / "cpu.stat", required=False)
            else:
                self._open("events", self.dirs[0] / "memory.oom_control")
                self._open("failcnt", self.dirs[0] / "memory.failcnt")
                if self.support.cpu_accounting:
                    if len(self.dirs) > 2:  # its cpuacct cgroup could be made
                        self._open("cpu", self.dirs[2] / "cpuacct.usage")
        except OSError:
            self._close_files()
            raise
        self.accounts_cpu = "cpu" in self._files  # whether cpu_seconds() has a figure for this job
        self._cpu_seen = 0.0  # the last figure read: what cpu_seconds() says once the cgroup is gone
        self._oom_before = self._oom_kills()

    def _open(self, key: str, path: Path, *, required: bool = True) -> None:
        try:
            self._files[key] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            if required:
                raise

    def _read(self, key: str) -> str | None:
        """What the file ``key`` says now; None where it is not open (removed, or none here)."""
        with self._lock:
            fd = self._files.get(key)
            if fd is None:
                return None
            try:
                return os.pread(fd, 4096, 0).decode("ascii", "replace")
            except OSError:
                return None

    def _close_files(self) -> None:
        with self._lock:
            files, self._files = self._files, {}
        for fd in files.values():
            try:
                os.close(fd)
            except OSError:
                pass

    def _oom_kills(self) -> int:
        return _field(self._read("events"), "oom_kill") or 0

    def cpu_seconds(self) -> float | None:
        """CPU seconds (user + system) used so far by every process that was ever in the job's
        cgroup, ended ones included; None where the kernel does not account it per cgroup here.

        Once the cgroup is removed, the last figure read (the job is over by then)."""
        if not self.accounts_cpu:
            return None
        text = self._read("cpu")
        if text is not None:
            try:
                if self.support.version == 2:
                    usage = _field(text, "usage_usec")
                    if usage is not None:
                        self._cpu_seen = max(self._cpu_seen, usage / 1e6)
                else:
                    self._cpu_seen = max(self._cpu_seen, int(text) / 1e9)
            except ValueError:
                pass
        return self._cpu_seen

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer fired inside this cgroup since it was made."""
        return self._oom_kills() > self._oom_before

    def limit_hit(self) -> bool:
        """Whether memory use reached the limit (OOM kill, or reclaim/stall at the limit)."""
        if self.support.version == 2:
            events = self._read("events")
            if (_field(events, "oom_kill") or 0) > self._oom_before:
                return True
            return any((_field(events, key) or 0) > 0 for key in ("max", "oom"))
        if self.oom_killed():
            return True
        failcnt = self._read("failcnt")
        try:
            return failcnt is not None and int(failcnt) > 0
        except ValueError:
            return False

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
        self._close_files()  # before rmdir; the CPU time read last stays readable
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


def _field(text: str | None, name: str) -> int | None:
    """The integer after ``name`` in a cgroup file of ``name value`` lines; None where it is not there."""
    for line in (text or "").splitlines():
        key, _, value = line.partition(" ")
        if key == name:
            try:
                return int(value)
            except ValueError:
                return None
    return None


STALE_AFTER_S = 300.0  # a job's cgroup is joined within milliseconds of being made


def remove_stale(support: CgroupSupport, older_than_s: float = STALE_AFTER_S) -> int:
    """Remove job cgroups that a judge killed before it could remove them; return how many.

    Only empty ones older than ``older_than_s``: another judge's job (a server beside a CLI run)
    holds processes, or was made moments ago and is about to be joined. The kernel refuses to
    remove a cgroup that still holds a process, so a live job is never touched.
    """
    if not support.available:
        return 0
    kinds = ("memory", "pids", "cpuacct")  # cpuacct: where there is one (a missing parent is skipped)
    parents = [ROOT / GROUP] if support.version == 2 else [ROOT / kind / GROUP for kind in kinds]
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
