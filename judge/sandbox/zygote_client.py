"""The judge's side of the fork server (:mod:`judge.sandbox.zygote`): starting it, and what it is sent.

Both levels that fork learner processes from a warm server use it: ``strict``
(:class:`judge.sandbox.strict.StrictLauncher`, confined jobs) and the warm ``local`` level
(:class:`judge.sandbox.launchers.WarmLocalLauncher`). :class:`Zygote` starts the server and reads
its messages; a job's settings travel as a :class:`~judge.sandbox.confine.Confinement` (strict) or
a :class:`LocalJob` (local). The launchers import this module; it imports neither of them.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.learner.interface import SandboxFailure

if TYPE_CHECKING:  # a type only: the local level never loads the strict level's layers
    from judge.sandbox.confine import Confinement

ZYGOTE_SCRIPT = Path(__file__).resolve().parent / "zygote.py"
SPAWN_TIMEOUT_S = 30.0  # a loaded machine forks slowly; past this the job is IE, not a hang


class SandboxUnavailable(SandboxFailure):
    """The strict level cannot run here (not root, a layer missing, the zygote failed to start)."""

    def __init__(self, reason: str) -> None:
        super().__init__("the strict sandbox is not available here", reason)
        self.args = (reason,)


class Zygote:
    """A running fork server and the thread that reads its messages.

    ``level="strict"`` (root only) forks confined jobs; ``level="local"`` forks jobs set up as a
    fresh ``local`` child is (:class:`judge.sandbox.launchers.WarmLocalLauncher`), and then
    ``environment`` is the fork server's whole environment.
    """

    def __init__(
        self, startup_timeout_s: float = 60.0, *, level: str = "strict", environment: dict[str, str] | None = None
    ) -> None:
        if level == "strict" and os.geteuid() != 0:
            raise SandboxUnavailable("the strict sandbox needs root (to switch uids, mount and use cgroups)")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "PYTHONUNBUFFERED": "1"}
        env.update(
            {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "LD_LIBRARY_PATH") if k in os.environ}
        )
        if environment is not None:
            env = dict(environment)
        self._process = subprocess.Popen(
            [sys.executable, str(ZYGOTE_SCRIPT), "--control", str(theirs.fileno()), "--level", level],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        theirs.close()
        self._socket = ours
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self._spawned: dict[int, dict] = {}
        self._exits: dict[int, int] = {}
        self._jobs = 0
        self._closed = False
        ours.settimeout(startup_timeout_s)
        try:
            hello = json.loads(ours.recv(65536) or b"{}")
        except (OSError, ValueError) as exc:
            self.close()
            raise SandboxUnavailable(f"the zygote did not start: {exc}") from None
        if hello.get("op") != "ready":
            self.close()
            raise SandboxUnavailable("the zygote did not start")
        # What every job inherits mapped (the interpreter, torch): memory limits come on top of it.
        self.address_space_mb = int(hello.get("address_space", 0)) >> 20
        ours.settimeout(None)
        self._reader = threading.Thread(target=self._read, name="zygote-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                packet = self._socket.recv(65536)
            except OSError:
                packet = b""
            with self._changed:
                if not packet:
                    self._closed = True
                    self._changed.notify_all()
                    return
                message = json.loads(packet)
                if message.get("op") in ("spawned", "spawn_failed"):
                    self._spawned[int(message["job"])] = message
                elif message.get("op") == "exited":
                    self._exits[int(message["pid"])] = int(message["status"])
                self._changed.notify_all()

    def spawn(
        self, *, device: str, confinement: Confinement | LocalJob, fds: list[int], timeout_s: float = SPAWN_TIMEOUT_S
    ) -> tuple[int, int]:
        """A confined job on ``fds`` (request read end, result write end, output write end, lifeline read end).

        Returns ``(keeper pid, worker pid)`` once the worker is confined. Raises
        :class:`SandboxFailure` when a layer failed, the zygote is gone or it did not answer.
        """
        job = self._send({"op": "spawn", "device": device, "confinement": confinement.to_json()}, fds)
        return self.answer(job, timeout_s)

    def prepare(self, *, device: str, confinement: Confinement, fds: list[int]) -> int:
        """Ask for a job confined now, on ``fds`` (the worker's end of a socket of the judge's, the
        lifeline's read end), whose three descriptors come later on that socket; its request id.

        Does not wait: :meth:`answer` with that id says when (and whether) it is confined."""
        return self._send({"op": "prepare", "device": device, "confinement": confinement.to_json()}, fds)

    def _send(self, request: dict, fds: list[int]) -> int:
        with self._lock:
            self._jobs += 1
            job = self._jobs
            message = json.dumps({**request, "job": job}).encode()
            try:
                socket.send_fds(self._socket, [message], fds)
            except OSError as exc:
                raise SandboxFailure("the sandbox's fork server is not running", f"send to the zygote: {exc}") from None
        return job

    def answer(self, job: int, timeout_s: float = SPAWN_TIMEOUT_S) -> tuple[int, int]:
        """``(keeper pid, worker pid)`` once request ``job``'s worker is confined; raises
        :class:`SandboxFailure` (with the keeper's pid where one was forked) otherwise."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while job not in self._spawned:
                if self._closed or not self._changed.wait(max(0.0, deadline - time.monotonic())):
                    raise SandboxFailure("the sandbox's fork server did not answer", f"no answer for job {job}")
            answer = self._spawned.pop(job)
        if answer.get("op") != "spawned":
            raise SandboxFailure(
                "the sandbox could not confine the process",
                str(answer.get("error", "")),
                pid=int(answer.get("pid", 0)) or None,
            )
        return int(answer["pid"]), int(answer["worker"])

    def exit_status(self, pid: int, timeout_s: float) -> int | None:
        """The raw wait status of child ``pid`` once it has ended, or None after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while pid not in self._exits:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    return None
                self._changed.wait(remaining)
            return self._exits[pid]

    def forget(self, pid: int) -> None:
        with self._changed:
            self._exits.pop(pid, None)

    @property
    def alive(self) -> bool:
        return not self._closed and self._process.poll() is None

    @property
    def pid(self) -> int:
        return self._process.pid

    def close(self) -> None:
        try:
            self._socket.close()
        except OSError:
            pass
        if self._process.poll() is None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._process.wait()


@dataclass(frozen=True)
class LocalJob:
    """What one warm ``local`` job gets, sent from the judge to the fork server as JSON.

    The same as ``child.py``'s options tell a fresh child: its scratch directory (working
    directory, ``HOME``, ``TMPDIR``), its memory limit in MB (None: none) and the learner's folder.
    """

    scratch: str
    memory_mb: int | None = None
    import_dir: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LocalJob:
        memory_mb, import_dir = data.get("memory_mb"), data.get("import_dir")
        return cls(
            str(data["scratch"]),
            int(memory_mb) if memory_mb else None,
            str(import_dir) if import_dir else None,
        )
