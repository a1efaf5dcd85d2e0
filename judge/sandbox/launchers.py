"""The launchers: how a learner process starts, at each isolation level, behind one protocol.

:class:`Launcher` starts a child that speaks :mod:`judge.sandbox.child`'s protocol on the fds it is
given; :class:`Launched` is that started job as the judge sees it.
:class:`judge.process.LearnerProcess` drives either the same way, sending the learner's source
over the job's own pipe. Two levels sit side by side:

- ``local`` (:class:`LocalLauncher`, here): a fresh Python process with time and memory limits,
  for a learner judging their own code;
- ``strict`` (:class:`judge.sandbox.strict.StrictLauncher`): forked from a warm fork server and
  confined by every layer of :mod:`judge.sandbox.confine`, for a server grading strangers' code.

Each has ``close()``, which stops what it keeps running between jobs (nothing, for ``local``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Protocol

from judge.learner import SandboxFailure
from judge.sandbox import keeper
from judge.sandbox.keeper import Lifeline

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
    :class:`judge.process.LearnerProcess` sends, the same at every level). ``launch`` raises
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
                env=_child_environment(scratch.name),
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


def _child_environment(home: str) -> dict[str, str]:
    """A near-empty environment: nothing of the judge's (tokens, database URLs) reaches the child."""
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
