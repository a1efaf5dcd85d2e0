"""The trusted side of the learner process: start it, call its functions, read its answers.

:class:`LearnerProcess` runs ``judge/child.py`` in a fresh process with an empty-ish
environment, talks to it over two pipes, enforces a wall-clock deadline on every call, and
turns whatever happens to the child into an exception the runner maps to a verdict. This is
the ``local`` sandbox level: a separate process with time and memory limits, for a learner
judging their own code. Stricter levels wrap the same protocol.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from judge import wire
from judge.verdicts import Verdict

CHILD_SCRIPT = Path(__file__).resolve().parent / "child.py"
STARTUP_TIMEOUT_S = 60.0  # importing torch on a cold disk can take a while
OUTPUT_TAIL_BYTES = 4000


class LearnerRaised(Exception):
    """The learner's function raised; carries the learner-only traceback."""

    def __init__(self, info: dict[str, Any]) -> None:
        self.type_name: str = str(info.get("type", "Exception"))
        self.message: str = str(info.get("message", ""))
        self.line: int | None = info.get("line")
        self.traceback: str = str(info.get("traceback", ""))
        self.memory: bool = bool(info.get("memory"))
        super().__init__(f"{self.type_name}: {self.message}")


class ProcessFailed(Exception):
    """The learner process died, hung, or broke the protocol; ``verdict`` says which."""

    def __init__(self, verdict: Verdict, message: str) -> None:
        self.verdict = verdict
        super().__init__(message)


class LoadFailed(Exception):
    """The learner's file could not be imported (syntax error, import error, crash at import)."""

    def __init__(self, verdict: Verdict, message: str, line: int | None = None) -> None:
        self.verdict = verdict
        self.line = line
        super().__init__(message)


@dataclass(frozen=True)
class CallOptions:
    """How to run one call: feed extreme uniforms (seeded), or seed torch's default generator first."""

    extreme_uniforms: int | None = None
    global_seed: int | None = None


class _DeadlineReader:
    """A file-like ``read(n)`` over a pipe that raises ``TimeoutError`` past a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.deadline = float("inf")

    def read(self, n: int) -> bytes:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        ready, _, _ = select.select([self.fd], [], [], None if remaining == float("inf") else remaining)
        if not ready:
            raise TimeoutError
        return os.read(self.fd, min(n, 1 << 20))


class LearnerProcess:
    """One learner file loaded in a child process, ready to answer calls.

    Raises :class:`LoadFailed` from the constructor when the file does not import. With
    ``wait=False`` the constructor only starts the child (so the caller can import torch
    meanwhile); the first use waits for it and raises then.
    """

    def __init__(self, path: Path, *, device: str = "cpu", memory_limit_mb: int | None = None,
                 startup_timeout_s: float = STARTUP_TIMEOUT_S, wait: bool = True,
                 launcher: "Launcher | None" = None) -> None:
        self.path = Path(path).resolve()
        self.device = device
        self.memory_limit_mb = memory_limit_mb
        self.launcher = launcher or LocalLauncher()
        self._output = tempfile.TemporaryFile()
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        try:
            self._proc = self.launcher.launch(self.path, device=device, memory_limit_mb=memory_limit_mb,
                                              fd_in=to_child_r, fd_out=from_child_w, output_fd=self._output.fileno())
        except BaseException:
            for fd in (self._to_child, self._from_child):
                os.close(fd)
            self._output.close()
            raise
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self._reader = _DeadlineReader(self._from_child)
        self._writer = os.fdopen(self._to_child, "wb")
        first = getattr(self._proc, "initial_frame", None)
        if first is not None:
            try:
                wire.write_frame(self._writer, {**first, "tensors": []})
            except OSError:
                pass  # the child died already; waiting for its ready frame reports why
        self._startup_timeout_s = startup_timeout_s
        self._functions: dict[str, Any] | None = None
        self._torch_version = ""
        if wait:
            self.wait_ready()

    def wait_ready(self) -> None:
        """Wait for the child to import torch and load the file (once).

        Raises :class:`LoadFailed` when the file does not import, :class:`ProcessFailed` when the
        child dies or hangs while loading.
        """
        if self._functions is not None:
            return
        header, _ = self._receive(self._startup_timeout_s, during="loading your file")
        if "sandbox_error" in header:
            self.close()
            raise ProcessFailed(Verdict.IE, f"the sandbox could not start: {header['sandbox_error']}")
        if "load_error" in header:
            info = header["load_error"]
            self.close()
            raise load_failure(info)
        ready = header.get("ready", {})
        self._functions = ready.get("functions", {}) if isinstance(ready.get("functions"), dict) else {}
        self._torch_version = str(ready.get("torch", ""))

    @property
    def functions(self) -> dict[str, Any]:
        """Name -> parameter list of every public callable the learner's file defines."""
        self.wait_ready()
        return self._functions or {}

    @property
    def torch_version(self) -> str:
        self.wait_ready()
        return self._torch_version

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    @property
    def sandbox(self) -> str:
        """The isolation level this process runs under (``local`` or ``strict``)."""
        return self.launcher.level

    def call(self, function: str, args: list[Any], kwargs: dict[str, Any], *, timeout_s: float,
             options: CallOptions = CallOptions()) -> tuple[Any, float]:
        """Call ``function(*args, **kwargs)`` in the child; return ``(value, elapsed_ms)``.

        Tensors in the value come back on the CPU. Raises :class:`LearnerRaised` when the learner's
        code raised, and :class:`ProcessFailed` when the process died, hung past ``timeout_s`` or
        sent something malformed (the process is killed then).
        """
        self.wait_ready()
        specs: list[dict[str, Any]] = []
        payloads: list[bytes] = []
        request = {
            "op": "call",
            "function": function,
            "args": wire.encode_values(list(args), specs, payloads),
            "kwargs": wire.encode_values(dict(kwargs), specs, payloads),
            "extreme_uniforms": options.extreme_uniforms,
            "global_seed": options.global_seed,
            "tensors": specs,
        }
        try:
            wire.write_frame(self._writer, request, payloads)
        except (BrokenPipeError, OSError):
            raise self._death("before the call") from None
        header, payloads_out = self._receive(timeout_s, during=f"{function}()")
        if "raised" in header:
            if not isinstance(header["raised"], dict):
                self.kill()
                raise ProcessFailed(Verdict.RE, "your process sent an answer the judge does not understand")
            raised = LearnerRaised(header["raised"])
            if raised.memory or self._proc.memory_exceeded():
                raised.memory = True
            raise raised
        if header.get("ok") is not True:
            self.kill()
            raise ProcessFailed(Verdict.RE, "your process sent an answer the judge does not understand")
        try:
            value = wire.decode_values(header.get("value"), header.get("tensors", []), payloads_out)
        except (wire.WireError, ValueError, TypeError, RuntimeError) as exc:  # anything a forged frame can raise
            self.kill()
            raise ProcessFailed(Verdict.RE, f"your process sent a malformed result: {exc}") from None
        elapsed = header.get("elapsed_ms", 0.0)
        return value, float(elapsed) if isinstance(elapsed, (int, float)) else 0.0

    def output_tail(self) -> str:
        """The last few kB of what the learner's code printed."""
        self._output.flush()
        size = self._output.seek(0, os.SEEK_END)
        self._output.seek(max(0, size - OUTPUT_TAIL_BYTES))
        return self._output.read().decode("utf-8", "replace")

    def _receive(self, timeout_s: float, during: str) -> tuple[dict[str, Any], list[bytes]]:
        self._reader.deadline = time.monotonic() + timeout_s
        try:
            return wire.read_frame(self._reader)
        except TimeoutError:
            memory = self._proc.memory_exceeded()  # stalled at its memory limit: that is the cause
            self.kill()
            if memory:
                raise ProcessFailed(Verdict.MLE, f"your process hit its memory limit during {during}") from None
            raise ProcessFailed(Verdict.TLE, f"{during} did not finish within {timeout_s:.1f} s") from None
        except EOFError:
            raise self._death(during) from None
        except wire.WireError as exc:
            self.kill()
            raise ProcessFailed(Verdict.RE, f"your process broke the result format during {during}: {exc}") from None
        finally:
            self._reader.deadline = float("inf")

    def _death(self, during: str) -> ProcessFailed:
        """Explain why the child is gone (it closed its pipe or exited)."""
        code = self._proc.wait(timeout=5)
        memory = self._proc.memory_exceeded()
        self.kill()
        if code is None:
            code = self._proc.wait(timeout=5)
        if memory:
            return ProcessFailed(Verdict.MLE, f"your process ran out of memory during {during}")
        if code is not None and code < 0:
            sig = -code
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            if sig == signal.SIGXCPU:
                return ProcessFailed(Verdict.TLE, f"your process used up its CPU time during {during}")
            if sig == signal.SIGKILL:
                if getattr(self._proc, "accounts_memory", False):
                    # A cgroup saw no memory trouble: the CPU limit's hard stop (SIGXCPU was ignored).
                    return ProcessFailed(Verdict.TLE, f"your process was killed at its CPU-time limit during {during}")
                return ProcessFailed(Verdict.MLE, f"your process was killed (SIGKILL, most likely out of memory) during {during}")
            if sig == signal.SIGXFSZ:
                return ProcessFailed(Verdict.RE, f"your process wrote too much output during {during}")
            return ProcessFailed(Verdict.RE, f"your process died from signal {name} during {during}")
        return ProcessFailed(Verdict.RE, f"your process exited (status {code}) during {during}; "
                                         "do not call exit() or os._exit() in a solution")

    def kill(self) -> None:
        """Kill the child's whole process tree (orphaned grandchildren could hold the pipe)."""
        self._proc.kill()

    def close(self) -> None:
        """Ask the child to exit, then make sure its whole tree is gone and its resources freed."""
        if self._proc.poll() is None:
            try:
                wire.write_frame(self._writer, {"op": "exit", "tensors": []})
                self._proc.wait(timeout=2)
            except OSError:
                pass
        self._proc.kill()
        self._proc.release()
        for closer in (self._writer.close, lambda: os.close(self._from_child)):
            try:
                closer()
            except OSError:
                pass
        self._output.close()

    def __enter__(self) -> "LearnerProcess":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Launched(Protocol):
    """A started learner process, as its launcher sees it."""

    pid: int

    def poll(self) -> int | None:
        """None while it runs, else its exit code (negative: killed by that signal)."""

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for it to end; its exit code, or None if it still runs."""

    def kill(self) -> None:
        """SIGKILL the whole process tree."""

    def memory_exceeded(self) -> bool:
        """Whether a memory limit outside the process (a cgroup) killed or starved it."""

    def release(self) -> None:
        """Free what the launch took (scratch directory, cgroups); the process is gone by then."""


class Launcher(Protocol):
    """Starts ``judge/child.py``'s protocol on the given fds, at one isolation level."""

    level: str

    def launch(self, path: Path, *, device: str, memory_limit_mb: int | None, fd_in: int, fd_out: int,
               output_fd: int) -> Launched: ...


class LocalLauncher:
    """The ``local`` level: a fresh ``python judge/child.py`` per learner file, own session, rlimits.

    For a learner judging their own code: it keeps hidden data out of the process and stops
    runaway code, but does not stop code that sets out to read files or open sockets.
    """

    level = "local"

    def launch(self, path: Path, *, device: str, memory_limit_mb: int | None, fd_in: int, fd_out: int,
               output_fd: int) -> Launched:
        scratch = tempfile.TemporaryDirectory(prefix="probjudge-")
        command = [sys.executable, str(CHILD_SCRIPT), str(path), "--device", device,
                   "--in", str(fd_in), "--out", str(fd_out)]
        if memory_limit_mb:
            command += ["--memory-mb", str(memory_limit_mb)]
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=output_fd,
            stderr=subprocess.STDOUT,
            pass_fds=(fd_in, fd_out),
            cwd=scratch.name,
            env=_child_environment(scratch.name),
            start_new_session=True,  # its own process group, so the whole tree can be killed
        )
        return _LocalChild(process, scratch)


class _LocalChild:
    def __init__(self, process: subprocess.Popen, scratch: tempfile.TemporaryDirectory) -> None:
        self._process = process
        self._scratch = scratch
        self.pid = process.pid

    def poll(self) -> int | None:
        return self._process.poll()

    def wait(self, timeout: float) -> int | None:
        try:
            return self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self._process.poll() is None:
            self._process.wait()

    def memory_exceeded(self) -> bool:
        return False

    def release(self) -> None:
        self._scratch.cleanup()


def _child_environment(home: str) -> dict[str, str]:
    """A near-empty environment: nothing of the judge's (tokens, database URLs) reaches the child."""
    keep = ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "OPENBLAS_CORETYPE",
            "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS", "SYSTEMROOT")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update({"HOME": home, "TMPDIR": home, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
                "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1"})
    return env


def load_failure(info: dict[str, Any]) -> LoadFailed:
    """The :class:`LoadFailed` (CE, MLE or RE) for a ``load_error`` description from the learner's side."""
    kind = str(info.get("type", ""))
    line = info.get("line")
    where = f" (line {line})" if line else ""
    trace = str(info.get("traceback", "")).strip()
    if kind == "UnicodeDecodeError":
        return LoadFailed(Verdict.CE, "your file is not valid UTF-8 text; save it as UTF-8")
    if kind in ("SyntaxError", "IndentationError", "TabError"):
        return LoadFailed(Verdict.CE, f"syntax error{where}:\n{trace}", line)
    if kind in ("ImportError", "ModuleNotFoundError"):
        return LoadFailed(Verdict.CE, f"import error{where}: {info.get('message', '')}\n{trace}", line)
    if info.get("memory"):
        return LoadFailed(Verdict.MLE, f"out of memory while importing your file{where}:\n{trace}", line)
    return LoadFailed(Verdict.RE, f"your file raised while being imported{where}:\n{trace}", line)
