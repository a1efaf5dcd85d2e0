"""The launchers: how a learner process starts, at each isolation level, behind one protocol.

:class:`Launcher` starts a child that speaks :mod:`judge.sandbox.child`'s protocol on the fds it is
given; :class:`Launched` is that started job as the judge sees it.
:class:`judge.engine.process.LearnerProcess` drives either the same way, sending the learner's source
over the job's own pipe. Two levels sit side by side:

- ``local`` (:class:`LocalLauncher`, here): a fresh Python process with time and memory limits,
  for a learner judging their own code; :class:`WarmLocalLauncher` (here) is the same level
  forked from a fork server that imported torch once, for a command that judges many files;
- ``strict`` (:class:`judge.sandbox.strict.StrictLauncher`): forked from a warm fork server and
  confined by every layer of :mod:`judge.sandbox.confine`, for a server grading strangers' code.

Each has ``close()``, which stops what it keeps running between jobs (nothing, for ``LocalLauncher``).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Protocol

from judge.learner.interface import SandboxFailure
from judge.sandbox import keeper
from judge.sandbox.keeper import Lifeline
from judge.sandbox.zygote_client import LocalJob, SandboxUnavailable, Zygote

log = logging.getLogger("probjudge.sandbox")
CHILD_SCRIPT = Path(__file__).resolve().parent / "child.py"
STARTUP_ALLOWANCE_S = 60.0  # a fresh process imports torch first, and on a cold disk that takes a while
# The same start in CPU seconds: importing torch takes about 2.3 s of CPU here (a cold disk adds wall
# time, not CPU time), so a file that spins at import is stopped by this long before the wall clock.
STARTUP_CPU_ALLOWANCE_S = 15.0
KEEPER_EXIT_S = 10.0  # how long the judge waits for a keeper to finish killing its tree


class Launched(Protocol):
    """A started learner process, as its launcher sees it."""

    pid: int

    def poll(self) -> int | None:
        """None while it runs, else its exit code (negative: killed by that signal)."""

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for it to end; its exit code, or None if it still runs."""

    def kill(self) -> None:
        """SIGKILL the whole process tree, grandchildren that left its session included."""

    def memory_exceeded(self) -> bool:
        """Whether a memory limit outside the process (a cgroup) killed or starved it."""

    def cpu_time_s(self) -> float:
        """CPU seconds used by the whole process tree so far (see :func:`judge.sandbox.keeper.tree_cpu_seconds`)."""

    def release(self) -> None:
        """Kill the tree and free what the launch took (slot, scratch, cgroups); idempotent."""


class Launcher(Protocol):
    """Starts :mod:`judge.sandbox.child`'s protocol on the given fds, at one isolation level.

    The child then reads the learner's source from ``fd_in`` (a ``load`` frame that
    :class:`judge.engine.process.LearnerProcess` sends, the same at every level). ``launch`` raises
    :class:`SandboxFailure` when this level cannot run the job now (IE for that job only).
    """

    level: str
    startup_allowance_s: float  # added to the learner's load time: what starting a process costs
    # Where not None, loading is also bounded in CPU time: the learner's load time plus this.
    startup_cpu_allowance_s: float | None

    def launch(
        self,
        *,
        device: str,
        memory_limit_mb: int | None,
        fd_in: int,
        fd_out: int,
        output_fd: int,
        import_dir: str | None = None,
    ) -> Launched:
        """Start a child on the job's fds; ``import_dir`` is for levels that let the learner import
        helper modules from beside their file (``local``); others ignore it."""

    def close(self) -> None:
        """Stop what the launcher keeps running between jobs (a fork server)."""


class LocalLauncher:
    """The ``local`` level: a fresh ``python judge/sandbox/child.py`` per learner file, own session, rlimits.

    For a learner judging their own code: it keeps hidden data out of the process and stops
    runaway code, but does not stop code that sets out to read files or open sockets. The
    process is a keeper and its worker (:mod:`judge.sandbox.keeper`), so nothing the code starts outlives
    the judging, even when the judge itself is killed.
    """

    level = "local"

    def __init__(
        self,
        startup_allowance_s: float = STARTUP_ALLOWANCE_S,
        startup_cpu_allowance_s: float | None = STARTUP_CPU_ALLOWANCE_S,
    ) -> None:
        self.startup_allowance_s = startup_allowance_s
        self.startup_cpu_allowance_s = startup_cpu_allowance_s

    def launch(
        self,
        *,
        device: str,
        memory_limit_mb: int | None,
        fd_in: int,
        fd_out: int,
        output_fd: int,
        import_dir: str | None = None,
    ) -> Launched:
        scratch = tempfile.TemporaryDirectory(prefix="probjudge-")
        lifeline = Lifeline()
        command = [
            sys.executable,
            str(CHILD_SCRIPT),
            "--device",
            device,
            "--in",
            str(fd_in),
            "--out",
            str(fd_out),
            "--lifeline",
            str(lifeline.read_fd),
        ]
        if memory_limit_mb:
            command += ["--memory-mb", str(memory_limit_mb)]
        if import_dir:
            command += ["--import-dir", str(import_dir)]
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=output_fd,
                stderr=subprocess.STDOUT,
                pass_fds=(fd_in, fd_out, lifeline.read_fd),
                cwd=scratch.name,
                env=child_environment(scratch.name),
                start_new_session=True,  # its own process group: the fallback where no keeper runs
            )
        except OSError as error:
            lifeline.cut()
            scratch.cleanup()
            raise SandboxFailure("the judge could not start a Python process", str(error)) from None
        finally:
            lifeline.handed_over()
        return _LocalChild(process, scratch, lifeline)

    def close(self) -> None:
        pass


class _LocalChild:
    def __init__(self, process: subprocess.Popen, scratch: tempfile.TemporaryDirectory, lifeline: Lifeline) -> None:
        self._process = process
        self._scratch = scratch
        self._lifeline = lifeline
        self.pid = process.pid

    def poll(self) -> int | None:
        return self._process.poll()

    def wait(self, timeout: float) -> int | None:
        try:
            return self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        self._lifeline.cut()  # the keeper kills the whole tree, then exits
        if self.wait(KEEPER_EXIT_S) is None:
            try:  # no keeper here (not Linux), or it is stuck: the process group at least
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self._process.wait()

    def memory_exceeded(self) -> bool:
        return False

    def cpu_time_s(self) -> float:
        return keeper.tree_cpu_seconds(self.pid)

    def release(self) -> None:
        try:
            self.kill()
        finally:
            self._scratch.cleanup()


class WarmLocalLauncher(LocalLauncher):
    """The ``local`` level, started warm: each learner process is forked from a fork server that
    imported torch once (:mod:`judge.sandbox.zygote` at its ``local`` level), so a start costs
    milliseconds instead of a second or two of torch's import. For commands that judge many files
    in one process (``check``, the catalogue's tests); one run gains nothing from it.

    A job gets what :class:`LocalLauncher` gives a fresh process, the same way: a scratch directory
    as working directory and home, :func:`child_environment`, the learner's folder on ``sys.path``,
    the memory and file-size rlimits of ``child.py``, one torch thread, a keeper that kills the
    job's whole tree (and the process group as the fallback), CPU time read from ``/proc``. The
    fork server is started (at the first launch) before anything of a job exists and never holds
    a job's source, tests or expected values; each job reseeds the random generators it inherited
    (:func:`judge.sandbox.zygote._reseed`). It ends at :meth:`close`, and with its owner however
    that ends (its control socket closes).

    - ``cuda`` jobs start fresh (:meth:`LocalLauncher.launch`): CUDA cannot be used in a child forked after it
      was initialized; the server never initializes it, but no test proves that a forked child's
      own CUDA start works, and a ``cuda`` process pays CUDA's start (seconds) anyway.
    - A server that died is replaced at the next launch. One that cannot start (logged once)
      leaves every later job to fresh processes. A start that failed after the job's pipes
      reached the server is :class:`SandboxFailure` (IE) for that job, and the server is replaced:
      none of it can take the job's pipes later.
    """

    def __init__(
        self,
        startup_allowance_s: float = STARTUP_ALLOWANCE_S,
        startup_cpu_allowance_s: float | None = STARTUP_CPU_ALLOWANCE_S,
    ) -> None:
        # The same allowances as a fresh start: a file's load is judged alike whichever way it started.
        super().__init__(startup_allowance_s, startup_cpu_allowance_s)
        self._home = tempfile.TemporaryDirectory(prefix="probjudge-warm-")  # the server's own HOME
        self._server: Zygote | None = None
        self._lock = threading.Lock()
        self._unavailable = ""  # why jobs start fresh for good (the server would not start)
        self._closed = False

    @property
    def server_pid(self) -> int | None:
        """The fork server's pid while one runs (None before the first launch and after close)."""
        server = self._server
        return server.pid if server is not None and server.alive else None

    def _running_server(self) -> Zygote | None:
        """The fork server, started or replaced if need be; None when jobs must start fresh."""
        with self._lock:
            if self._closed or self._unavailable:
                return None
            if self._server is not None and self._server.alive:
                return self._server
            if self._server is not None:
                log.warning("the local level's fork server (pid %s) is gone; starting a new one", self._server.pid)
                self._server.close()
                self._server = None
            try:
                self._server = Zygote(
                    self.startup_allowance_s, level="local", environment=child_environment(self._home.name)
                )
            except (SandboxUnavailable, OSError) as error:
                self._unavailable = str(error) or type(error).__name__
                log.warning("no warm start for the local level (%s): each learner process starts fresh", error)
                return None
            return self._server

    def _retire(self, server: Zygote) -> None:
        """Stop ``server`` (the next launch starts a new one)."""
        with self._lock:
            if self._server is server:
                self._server = None
        server.close()

    def launch(
        self,
        *,
        device: str,
        memory_limit_mb: int | None,
        fd_in: int,
        fd_out: int,
        output_fd: int,
        import_dir: str | None = None,
    ) -> Launched:
        server = self._running_server() if device == "cpu" else None
        if server is None:  # a fresh process, as LocalLauncher starts it
            return super().launch(
                device=device,
                memory_limit_mb=memory_limit_mb,
                fd_in=fd_in,
                fd_out=fd_out,
                output_fd=output_fd,
                import_dir=import_dir,
            )
        scratch = tempfile.TemporaryDirectory(prefix="probjudge-")
        lifeline = Lifeline()
        job = LocalJob(scratch.name, memory_limit_mb, str(import_dir) if import_dir else None)
        try:
            try:
                pid, _ = server.spawn(device=device, confinement=job, fds=[fd_in, fd_out, output_fd, lifeline.read_fd])
            finally:
                lifeline.handed_over()
        except SandboxFailure as failure:
            lifeline.cut()
            if failure.pid:  # a keeper was forked: let it kill what it started
                server.exit_status(failure.pid, KEEPER_EXIT_S)
                server.forget(failure.pid)
            scratch.cleanup()
            self._retire(server)
            raise SandboxFailure(
                "the judge's fork server could not start your process", f"{failure}: {failure.detail}"
            ) from None
        except BaseException:
            lifeline.cut()
            scratch.cleanup()
            raise
        return _WarmLocalChild(server, pid, scratch, lifeline)

    def close(self) -> None:
        """Stop the fork server (jobs still running end with their lifelines, not with it); idempotent.

        Later launches start fresh processes."""
        with self._lock:
            self._closed = True
            server, self._server = self._server, None
        if server is not None:
            server.close()
        self._home.cleanup()

    def __enter__(self) -> WarmLocalLauncher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _WarmLocalChild:
    """A warm job, seen from the judge: its keeper (``pid``, a child of the fork server, which
    reports its exit status); the worker is the keeper's child, as for a fresh start."""

    def __init__(self, server: Zygote, pid: int, scratch: tempfile.TemporaryDirectory, lifeline: Lifeline) -> None:
        self._server = server
        self._scratch = scratch
        self._lifeline = lifeline
        self._released = False
        self.pid = pid

    def poll(self) -> int | None:
        return self._code(self._server.exit_status(self.pid, 0))

    def wait(self, timeout: float) -> int | None:
        return self._code(self._server.exit_status(self.pid, timeout))

    @staticmethod
    def _code(status: int | None) -> int | None:
        return None if status is None else os.waitstatus_to_exitcode(status)

    def kill(self) -> None:
        self._lifeline.cut()  # the keeper kills the whole tree, then exits
        if self.wait(KEEPER_EXIT_S) is not None:
            return
        if not self._server.alive:  # nobody reports the keeper's end now: watch /proc for it
            deadline = time.monotonic() + KEEPER_EXIT_S
            while keeper.running(self.pid) and time.monotonic() < deadline:
                time.sleep(0.01)
        try:  # the keeper is stuck: its process group at least (its session, its worker's too)
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def memory_exceeded(self) -> bool:
        return False

    def cpu_time_s(self) -> float:
        return keeper.tree_cpu_seconds(self.pid)

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        try:
            self.kill()
        finally:
            self._server.forget(self.pid)
            self._scratch.cleanup()


def child_environment(home: str) -> dict[str, str]:
    """A near-empty environment: nothing of the judge's (tokens, database URLs) reaches the child.

    ``home`` is the job's scratch directory (``HOME`` and ``TMPDIR``). A fresh local child is
    started with it; a warm one (:class:`WarmLocalLauncher`) puts it in place after the fork.
    """
    keep = (
        "PATH",
        "LANG",
        "LC_ALL",
        "CUDA_VISIBLE_DEVICES",
        "LD_LIBRARY_PATH",
        "OPENBLAS_CORETYPE",
        "OPENBLAS_L2_SIZE",
        "OMP_NUM_THREADS",
        "SYSTEMROOT",
    )
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(
        {
            "HOME": home,
            "TMPDIR": home,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONIOENCODING": "utf-8",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env
