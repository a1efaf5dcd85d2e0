"""The keeper: a tiny process that outlives nothing it watches over.

Every learner process, at every sandbox level, is started as a pair on Linux: a *keeper* that
runs no learner code, and its child, the *worker*, which loads the learner's file. The keeper is
a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every process the worker starts stays its
descendant, even one that calls ``setsid()`` or double-forks: orphans are re-parented to the
keeper, never to PID 1. The keeper holds the read end of a *lifeline* pipe whose only write end
belongs to the judge. The job ends, and the keeper kills every descendant, when

- the worker exits or dies (whatever it left running is killed), or
- the judge cuts the lifeline (it abandons the case, or closes the process), or
- the judge itself ends, however it ends (``SIGKILL`` included): the kernel closes its end.

The keeper then exits the way the worker did (same exit code, or the same signal), so whoever
waits for the keeper reads the worker's fate; but a worker killed by ``SIGKILL`` is told as exit
code :data:`WORKER_KILLED` (137), so that a keeper that itself dies of ``SIGKILL`` (the learner's
code killed it: the judge never does before its verdict) is not taken for a worker out of memory.
It keeps no other file descriptor: the protocol pipes and the output capture report end-of-file
as soon as the worker's tree is gone.

Elsewhere (macOS) there is no subreaper: :func:`split` only closes the lifeline, and the judge
falls back on killing the process group.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import time
from collections.abc import Collection
from typing import NoReturn

SUPPORTED = sys.platform.startswith("linux")
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
KILL_DEADLINE_S = 5.0  # how long the keeper keeps killing (a process in uninterruptible sleep)
_POLL_S = 1.0
WORKER_KILLED = 128 + signal.SIGKILL  # the keeper's exit code for a worker that died of SIGKILL


class Lifeline:
    """The judge's side: a pipe whose read end goes to the keeper; cutting it ends the job."""

    def __init__(self) -> None:
        # Both ends are close-on-exec: no other program the judge starts can hold the write end
        # (which would keep the lifeline up after the judge is gone).
        self.read_fd, self._write_fd = os.pipe()
        self._write_open = True

    def handed_over(self) -> None:
        """Close the judge's copy of the read end, once the keeper has it."""
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1

    def cut(self) -> None:
        """Tell the keeper to end the job (idempotent)."""
        self.handed_over()
        if self._write_open:
            self._write_open = False
            os.close(self._write_fd)


def split(lifeline_fd: int) -> None:
    """Fork the worker. Returns in the worker only; the calling process becomes its keeper.

    Call it before the worker loads anything of the learner's. The keeper closes every file
    descriptor but the lifeline, watches the job (module docstring) and never returns.
    """
    if not SUPPORTED:
        os.close(lifeline_fd)
        return
    prepare()
    worker = os.fork()
    if worker == 0:
        os.close(lifeline_fd)  # the subreaper flag is not inherited: the worker is a plain process
        return
    watch(worker, lifeline_fd)


def prepare() -> None:
    """Make the calling process a keeper-to-be: a session of its own, and a child subreaper.

    Then fork the worker and call :func:`watch` (which :func:`split` does in one go; the fork
    server forks its worker ahead of the job, so it calls the two itself).
    """
    try:
        os.setsid()  # out of the fork server's process group: killing that group must not orphan the job
    except OSError:
        pass  # already a session leader (the local level starts it so)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def watch(worker: int, lifeline_fd: int) -> NoReturn:
    """Keep the job of ``worker`` (a child of the caller) until it ends; exit as the worker did."""
    try:
        status = _keep(worker, lifeline_fd)
    except BaseException:  # noqa: BLE001 - whatever happens, the tree dies and the keeper exits
        _kill_descendants()
        os._exit(70)
    _exit_like(status)


def _keep(worker: int, lifeline_fd: int) -> int | None:
    """Watch until the worker ends or the lifeline is cut; kill the tree; the worker's wait status."""
    _close_everything_but(lifeline_fd)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wake-up fd sees SIGCHLD
    signal.set_wakeup_fd(wake_write)
    for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGPIPE"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)  # only the lifeline ends the watch
    worker_status = None
    while worker_status is None:
        worker_status = reap().get(worker)
        if worker_status is not None:
            break
        readable, _, _ = select.select([lifeline_fd, wake_read], [], [], _POLL_S)
        if wake_read in readable:
            os.read(wake_read, 4096)
        if lifeline_fd in readable:
            break  # end-of-file (or any byte): the judge is done with this job, or gone
    _kill_descendants(wake_read=wake_read)
    if worker_status is None:
        worker_status = reap().get(worker)
    return worker_status


def _exit_like(status: int | None) -> NoReturn:
    """Exit with the worker's exit code, or die of the signal that killed it."""
    if status is None:
        os._exit(70)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        os._exit(WORKER_KILLED)  # the keeper's own death by SIGKILL must read differently
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        import resource  # here, not at the top: Pyodide (which imports this module's users) has none

        _prctl(PR_SET_DUMPABLE, 0)  # dying of SIGXCPU or SIGSEGV must not dump the keeper's core
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        except (OSError, ValueError):
            pass  # SIGKILL cannot be handled: its default is all there is
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # a signal whose default is not to terminate
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def reap() -> dict[int, int]:
    """Collect every ended child (orphans re-parented here included): pid -> wait status."""
    return _collect()[0]


def _collect() -> tuple[dict[int, int], bool]:
    """Collect every ended child: pid -> wait status, and whether the caller still has a child then."""
    ended: dict[int, int] = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended, False
        if pid == 0:
            return ended, True
        ended[pid] = status


def _kill_descendants(deadline_s: float = KILL_DEADLINE_S, wake_read: int | None = None) -> None:
    """SIGKILL every descendant until none is left (or the deadline passes).

    The keeper is a child subreaper, so whatever lives below it has an ancestor chain of living
    processes up to one of the keeper's children: once ``waitpid`` says the keeper has no child
    at all (none alive, none a zombie), nothing is left below it. That is the kernel's word, not
    a listing of ``/proc`` that a fork could race; the listings only say whom to kill (the
    keeper's own ``children`` files first: a scan of every process costs milliseconds per round).

    ``wake_read`` is the SIGCHLD wake-up pipe of :func:`_keep`, where there is one: a killed
    process takes a few milliseconds to end (its memory is torn down), and the keeper looks again
    as soon as one has, instead of polling.
    """
    me = os.getpid()
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if not _reap_has_children():
            return
        living = [pid for pid, zombie in _descendants_below(me) if not zombie]
        for pid in living:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if not _reap_has_children():
            return
        if wake_read is None:
            time.sleep(0.002)
            continue
        # Every end reaches the keeper as SIGCHLD (an orphan is its child); the timeout is a fallback.
        readable, _, _ = select.select([wake_read], [], [], 0.02)
        if readable:
            os.read(wake_read, 4096)
    reap()


def set_subreaper(on: bool) -> bool:
    """Make the calling process a child subreaper (or no longer one); whether it was one before.

    Whatever a subreaper's descendants orphan (a double fork, a killed keeper's worker) is
    re-parented to it, so :func:`end_descendants` finds it. Linux only (False elsewhere)."""
    if not SUPPORTED:
        return False
    was = ctypes.c_int(0)
    libc = _LIBC or ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, int(on))
    return bool(was.value)


def descendants_now() -> set[int]:
    """The calling process's descendants now (to spare in :func:`end_descendants`)."""
    return {pid for pid, _ in descendants(os.getpid())} if SUPPORTED else set()


def end_descendants(spare: Collection[int] = (), deadline_s: float = KILL_DEADLINE_S) -> bool:
    """SIGKILL every descendant of the calling process but ``spare`` and theirs, and reap those
    that are its children; whether none of them is left (living or zombie) within ``deadline_s``.

    With :func:`become_subreaper` first, a process that left its session or lost its parent is
    still a descendant; ``spare`` (see :func:`descendants_now`) keeps what the caller ran before."""
    if not SUPPORTED:
        return True
    me, spared = os.getpid(), set(spare)
    deadline = time.monotonic() + deadline_s
    while True:
        left = descendants(me, spare=spared)
        if not left:
            return True
        if time.monotonic() > deadline:
            return False
        for pid, zombie in left:
            if not zombie:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for pid, _ in left:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass  # not ours: its own parent (killed too) hands it to us, or reaps it
        time.sleep(0.005)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read()
    except OSError:
        return False
    return fields[fields.rfind(b")") + 2 :][:1] != b"Z"


def _reap_has_children() -> bool:
    """Collect every ended child (as :func:`reap`); whether the caller still has a child then."""
    return _collect()[1]


def _descendants_below(root: int) -> list[tuple[int, bool]]:
    """Every descendant of ``root`` as ``(pid, is_zombie)`` (a zombie as :func:`descendants` has
    it): from the kernel's ``children`` lists where it has them and they name someone living,
    else (they may miss a process that forks or ends while they are read) from :func:`descendants`."""
    found = []
    for pid in _child_pids(root):
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read()
        except OSError:
            continue  # it ended meanwhile
        after = fields[fields.rfind(b")") + 2 :].split()  # "pid (comm) state ppid ..."
        # A "Z" leader whose other threads still run (num_threads above 1) is no zombie.
        found.append((pid, bool(after) and after[0] == b"Z" and (len(after) < 18 or int(after[17]) <= 1)))
    if any(not zombie for _, zombie in found):
        return found
    return descendants(root)


def descendants(root: int, spare: Collection[int] = ()) -> list[tuple[int, bool]]:
    """Every descendant of ``root`` as ``(pid, is_zombie)``, from ``/proc`` (no other source is portable),
    but those in ``spare`` and what lies below them.

    A zombie is a process that has ended entirely. One whose main thread alone has ended (the
    ``exit`` system call, not ``exit_group``) also reads as ``Z`` while its other threads run on:
    it is not a zombie here, so that it is killed like any other.
    """
    children: dict[int, list[tuple[int, bool]]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read()
        except OSError:
            continue  # it ended meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
        after = fields[fields.rfind(b")") + 2 :].split()
        if len(after) >= 2:
            # Field 20 of stat (num_threads): above 1 for a "Z" leader whose other threads still run.
            ended = after[0] == b"Z" and (len(after) < 18 or int(after[17]) <= 1)
            children.setdefault(int(after[1]), []).append((int(entry.name), ended))
    found, pending = [], [root]
    while pending:
        for child in children.get(pending.pop(), []):
            if child[0] in spare:
                continue
            found.append(child)
            pending.append(child[0])
    return found


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system) used by ``root`` and every process below it, ended ones included.

    Each process counts its own time and that of the children it has reaped (a keeper reaps
    what ends below it), so nothing is counted twice and nothing is lost when a process ends.
    Read from ``/proc`` (0.0 where it says nothing, e.g. ``root`` has gone): the learner's code
    cannot change what it says, unlike anything the learner's process could report itself.
    """
    ticks = 0
    for pid in [root, *_child_pids(root)]:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read()
        except OSError:
            continue  # ended meanwhile: its time is in its parent's reaped-children figures
        after = fields[fields.rfind(b")") + 2 :].split()
        if len(after) >= 15:  # fields 14-17 of stat: utime stime cutime cstime
            ticks += sum(int(v) for v in after[11:15])
    return ticks / _CLOCK_TICKS


def _child_pids(root: int) -> list[int]:
    """Every descendant of ``root`` (from ``/proc/PID/task/TID/children`` where the kernel has it)."""
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as listing:
                    children = [int(c) for c in listing.read().split()]
            except FileNotFoundError:  # a kernel without CONFIG_PROC_CHILDREN: the slow scan
                return [pid for pid, _ in descendants(root)]
            except (OSError, ValueError):
                continue
            found.extend(children)
            pending.extend(children)
    return found


def _close_everything_but(keep: int) -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != devnull:
            os.dup2(devnull, fd)
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 20)


# Loaded once, where the fork server imports this module: each keeper it forks would otherwise
# load it anew (~0.3 ms of a keeper's CPU).
_LIBC = ctypes.CDLL(None, use_errno=True) if SUPPORTED else None


def _prctl(option: int, value: int) -> None:
    libc = _LIBC or ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")
