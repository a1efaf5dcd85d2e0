"""The fork server: imports torch once, forks one child per job (``strict``: confined; ``local``: warm).

Run by :class:`judge.sandbox.zygote_client.Zygote` as ``python judge/sandbox/zygote.py --control FD
[--level strict|local]``. At the ``strict`` level (:class:`judge.sandbox.strict.StrictLauncher`)
each job is confined by every layer of :mod:`judge.sandbox.confine`; at the ``local`` level
(:class:`judge.sandbox.launchers.WarmLocalLauncher`) a job is set up exactly as a fresh
``python judge/sandbox/child.py`` would be (scratch directory as its working directory and home,
the same scrubbed environment, the learner's folder on ``sys.path``, the same rlimits), only
without importing torch again. It holds no hidden data (whatever it holds, every child could
read): it receives, per job, only the job's settings and four file descriptors (the two protocol
pipes, the output pipe and the job's lifeline), over a ``SOCK_SEQPACKET`` socket with
``SCM_RIGHTS``. Not even the learner's source: the child reads it from its own pipe, so no job
can find another job's code in memory it inherited from the zygote. What a fork copies that a
fresh process would not share (the random generators of torch, ``random`` and numpy) is reseeded
from ``os.urandom`` in each job before anything else runs there.

Messages (JSON, one per packet):
  judge  -> zygote  ``{"op": "spawn", "job", "device", "confinement"}`` + 4 fds (``confinement``:
                    a :class:`~judge.sandbox.confine.Confinement` at the strict level, a
                    :class:`~judge.sandbox.zygote_client.LocalJob` at the local level);
                    ``{"op": "prepare", ...}`` the same + 2 fds (a socket of the judge's, the
                    lifeline): a job confined now, whose three descriptors the judge sends later
                    on that socket, straight to the worker (which answers ``{"op": "started"}``
                    there), so that starting it costs one round trip and no confinement
  zygote -> judge   ``{"op": "ready", "pid", "address_space"}`` once (bytes it maps with torch loaded);
                    ``{"op": "spawned", "job", "pid", "worker"}`` once the job's worker is confined,
                    or ``{"op": "spawn_failed", "job", "pid", "error"}`` when a layer failed;
                    ``{"op": "exited", "pid", "status"}`` when a job's keeper ends (raw wait status)

A job is two processes (see :mod:`judge.sandbox.keeper`): the keeper (``pid``, unconfined, runs no
learner code, kills the job's whole tree when it ends) and its child the worker (``worker``),
which confines (at the local level: sets up) itself, reports on a channel of its own to the
zygote *before* any learner code runs, closes that channel, and only then reads the source. So a
sandbox error can only come from here; nothing the learner writes can claim one.

A spare process is forked ahead of time and waits for its job, so a job starts without paying
for ``fork()``. torch runs single-threaded here: a child forked after a multi-threaded region
would deadlock in its first parallel op.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import select
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path

# As for the child: the judge this script belongs to, and judge/sandbox/ itself off the path.
_ROOT = str(Path(__file__).resolve().parents[2])
if sys.path and sys.path[0] == str(Path(__file__).resolve().parent):
    sys.path[0] = _ROOT
elif _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from judge.sandbox import child, confine, hugepages, keeper, seccomp, warmup  # noqa: E402
from judge.sandbox.launchers import child_environment  # noqa: E402
from judge.sandbox.zygote_client import LocalJob  # noqa: E402

MAX_MESSAGE = 4 << 20
LEVELS = ("strict", "local")

# Requests served before the zygote collapses its memory into huge pages when idle (see
# judge.sandbox.hugepages): a command-line run that grades once (a launch, then the slot's next
# job prepared) never pays for it; a server pays once.
COLLAPSE_AFTER = 3
JOB_FDS = 4  # request pipe (read end), result pipe (write end), output pipe (write end), lifeline
_wake_up: list[int] = []  # the zygote's SIGCHLD pipe (read end, write end); closed in every child

# In the worker, before any learner code: put the job's settings in place; returns the folder the
# learner's helper modules import from (``local``), or None. Raises when the job must not run.
SetUp = Callable[[dict], "str | None"]


def _set_up_and_report(job: dict, report: socket.socket, set_up: SetUp) -> tuple[bool, str | None]:
    """In the worker: reseed, set up (confine) and tell the zygote how that went on ``report``,
    which is closed then (before any learner code: the learner can never speak on it). Whether
    the worker is confined, and the import folder ``set_up`` gave."""
    try:
        _reseed()
        import_dir = set_up(job)
    except BaseException as exc:  # noqa: BLE001 - reported on the zygote's channel, never the learner's pipe
        report.send(json.dumps({"op": "failed", "error": f"{type(exc).__name__}: {exc}"}).encode())
        return False, None
    report.send(json.dumps({"op": "confined", "worker": os.getpid()}).encode())
    report.close()
    return True, import_dir


def _run_job(job: dict, fds: list[int], report: socket.socket, set_up: SetUp) -> int:
    """In the worker: set up (confine), tell the zygote how that went, then serve the learner's code."""
    fd_in, fd_out, output_fd = fds
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(output_fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    confined, import_dir = _set_up_and_report(job, report, set_up)
    if not confined:
        return 70
    # The source arrives only now, from the judge, on this job's own pipe (child.serve reads it).
    return child.serve(job["device"], fd_in, fd_out, import_dir)


def _reseed() -> None:
    """Give this job random generators of its own, as a fresh process has.

    A fork copies the zygote's generator states: without this, two jobs calling ``torch.rand()``
    (or ``random.random()``, or numpy's) without a generator would draw the same numbers.
    """
    import random

    import torch

    random.seed(os.urandom(32))
    seed = int.from_bytes(os.urandom(8), "little")
    if _cpu_only(torch):
        # The CPU's generator is all there is: torch.manual_seed would also queue the seeding of
        # CUDA's, with a formatted stack (0.2 ms, more in a confined job), for a CUDA this build lacks.
        torch.default_generator.manual_seed(seed)
    else:
        torch.manual_seed(seed)
    numpy = sys.modules.get("numpy")  # torch imports it where it is installed
    if numpy is not None:
        # 128 bits, as a fresh process's seed from entropy: one 32-bit integer (2**32 streams)
        # would give two jobs in some 77 000 the same numbers.
        numpy.random.seed(numpy.frombuffer(os.urandom(16), dtype=numpy.uint32))


def _cpu_only(torch) -> bool:
    """Whether this build of torch has no device but the CPU (no CUDA, MPS or XPU in it)."""
    xpu = getattr(torch, "xpu", None)
    return not (
        torch.backends.cuda.is_built()
        or torch.backends.mps.is_built()
        or (xpu is not None and getattr(xpu, "_is_compiled", lambda: True)())
    )


def _confine(seccomp_filter, job: dict) -> None:
    """The strict level's set-up: every layer of :mod:`judge.sandbox.confine`."""
    confine.confine(confine.Confinement.from_json(job["confinement"]), seccomp_filter)
    return None  # a strict job is one file: nothing of the learner's folder is importable


def _set_up_local(job: dict) -> str | None:
    """The local level's set-up: what ``LocalLauncher`` and ``child.main`` give a fresh process.

    The job's scratch directory as working directory, ``HOME`` and ``TMPDIR``; the environment of
    :func:`~judge.sandbox.launchers.child_environment` (nothing of the judge's); the learner's
    folder at the end of ``sys.path``; the rlimits of :func:`judge.sandbox.child._apply_limits`.
    Returns the learner's folder (resolved, as ``child.main`` resolves it), or None.
    """
    settings = LocalJob.from_json(job["confinement"])
    os.chdir(settings.scratch)
    environment = child_environment(settings.scratch)  # from the zygote's own (already scrubbed) one
    os.environ.clear()
    os.environ.update(environment)
    import tempfile

    tempfile.tempdir = None  # gettempdir() reads TMPDIR again: the job's scratch, not the zygote's
    import_dir = str(Path(settings.import_dir).resolve()) if settings.import_dir else None
    if import_dir:
        sys.path.append(import_dir)
    child._apply_limits(settings.memory_mb, job["device"])
    return import_dir


class _Spare:
    """A job's keeper and worker, forked ahead of time and blocked until the zygote hands over a job.

    Both are forked before the job exists, so a job starts without paying for ``fork()``: the
    keeper (``pid``) receives the job, passes the worker its three descriptors and keeps the
    lifeline (see :mod:`judge.sandbox.keeper`); the worker confines itself and reports to the zygote on
    the spare's channel.
    """

    def __init__(self, control: socket.socket, set_up: SetUp, inherited: list[socket.socket]) -> None:
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # Other jobs' report channels (and the zygote's own sockets) are none of this job's business.
        self.pid = _fork(_keep_a_job, child_end, set_up, closing=[parent_end, control, *inherited])
        child_end.close()
        self.channel = parent_end

    def hand_over(self, message: bytes, fds: list[int]) -> None:
        socket.send_fds(self.channel, [message], fds)


def _fork(run, *args, closing: list[socket.socket]) -> int:
    """Fork a child that closes ``closing``, returns ``run(*args)`` as its exit code; its pid."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            _no_wake_up()
            for sock in closing:
                sock.close()
            code = run(*args)
        finally:
            os._exit(code)
    return pid


def _work_on_a_job(from_keeper: socket.socket, channel: socket.socket, set_up: SetUp) -> int:
    """In the worker: wait for the job's descriptors from the keeper, then run the job (a
    ``prepare`` brings one descriptor only: see :func:`_run_prepared`)."""
    message, fds, _, _ = socket.recv_fds(from_keeper, MAX_MESSAGE, JOB_FDS - 1)
    from_keeper.close()
    if message and len(fds) == 1:
        return _run_prepared(json.loads(message), socket.socket(fileno=fds[0]), channel, set_up)
    if not message or len(fds) != JOB_FDS - 1:
        return 0  # no job: the keeper is going away
    return _run_job(json.loads(message), fds, channel, set_up)


def _run_prepared(job: dict, judge: socket.socket, report: socket.socket, set_up: SetUp) -> int:
    """In a prepared worker: confine (set up) and report to the zygote before the job exists, then
    wait for the job's three descriptors from the judge on ``judge``, answer there and serve.

    Nothing of a job is here before the worker is confined; both channels are closed before the
    learner's source is read, and the worker serves the first descriptors it gets, then ends:
    one job at most."""
    devnull = os.open(os.devnull, os.O_RDONLY)  # now: Landlock would refuse it later
    os.dup2(devnull, 0)
    os.close(devnull)
    confined, import_dir = _set_up_and_report(job, report, set_up)
    if not confined:
        return 70
    message, fds, _, _ = socket.recv_fds(judge, MAX_MESSAGE, JOB_FDS - 1)
    if not message or len(fds) != JOB_FDS - 1:
        return 0  # discarded before a job came
    fd_in, fd_out, output_fd = fds
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(output_fd)
    judge.send(b'{"op": "started"}')
    judge.close()  # before any learner code: the learner can never speak on this channel
    return child.serve(job["device"], fd_in, fd_out, import_dir)


def _keep_a_job(channel: socket.socket, set_up: SetUp) -> int:
    """In the spare: fork the worker, wait for the job, hand it over, then keep it (never returns
    once a job came; returns the exit code when the zygote shut down first)."""
    keeper.prepare()
    to_worker, from_keeper = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    worker = _fork(_work_on_a_job, from_keeper, channel, set_up, closing=[to_worker])
    from_keeper.close()
    message, fds, _, _ = socket.recv_fds(channel, MAX_MESSAGE, JOB_FDS)
    if message and len(fds) == 2:  # a prepare: the judge's socket for the worker, and the lifeline
        fds = [fds[0], -1, -1, fds[1]]
    elif not message or len(fds) != JOB_FDS:
        os.kill(worker, signal.SIGKILL)
        return 0  # the zygote is shutting down
    try:
        socket.send_fds(to_worker, [message], [fd for fd in fds[:3] if fd >= 0])
    except OSError as exc:  # the waiting worker died: say so on the zygote's channel
        channel.send(json.dumps({"op": "failed", "error": f"the waiting worker is gone: {exc}"}).encode())
    keeper.watch(worker, fds[3])  # closes every other descriptor first, the job's channel included


def serve(control: socket.socket, level: str = "strict") -> int:
    """Fork a child per ``spawn`` request on ``control`` until the judge closes it; the exit code.

    torch is imported (one thread) and warmed up first. CUDA is never touched here: a child forked
    after CUDA's initialization cannot use it (and the launchers send no ``cuda`` job here).
    """
    torch = child.prepare_torch()
    warmup.warm_up(torch)  # a job's first calls cost as much as its later ones
    # Once here, before any fork: numpy.random is imported on first use, and paying that in every
    # job cost 20-35 ms of each learner process's start (it is the same state in every child;
    # each job then draws its own seeds from os.urandom).
    _reseed()
    set_up: SetUp = functools.partial(_confine, seccomp.build_filter()) if level == "strict" else _set_up_local
    # What torch and the judge allocated so far is the same in every job: out of the collector's
    # reach, a job's collections neither walk it nor write to it (each write copies a page that
    # the fork shared).
    gc.collect()
    gc.freeze()
    starting: dict[socket.socket, tuple[object, int]] = {}  # a job's report channel -> (job id, keeper pid)
    spare = _Spare(control, set_up, [])
    huge_pages = hugepages.Collapser()
    served = 0
    control.send(
        json.dumps({"op": "ready", "pid": os.getpid(), "address_space": child.address_space_in_use()}).encode()
    )
    wake_up = _wake_up_on_child_exit()
    while True:
        watched: list[socket.socket | int] = [control, *starting, wake_up]
        readable, _, _ = select.select(watched, [], [], 0.05)
        if not readable and not starting and served >= COLLAPSE_AFTER:
            huge_pages.step()  # idle: a slice at a time, so that a request waits little
        if wake_up in readable:
            _drain(wake_up)
        if _reap(control, spare):
            spare = _Spare(control, set_up, list(starting))  # the spare died before its job
        for channel in [r for r in readable if r in starting]:
            _report_start(control, channel, *starting.pop(channel))
        if control not in readable:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(control, MAX_MESSAGE, JOB_FDS)
        except OSError:
            return 0
        if not message:
            return 0  # the judge closed its end
        request = json.loads(message)
        if (request.get("op"), len(fds)) not in (("spawn", JOB_FDS), ("prepare", 2)):
            for fd in fds:
                os.close(fd)
            continue
        spare.hand_over(message, fds)
        for fd in fds:
            os.close(fd)
        starting[spare.channel] = (request.get("job"), spare.pid)
        served += 1
        spare = _Spare(control, set_up, list(starting))


def _wake_up_on_child_exit() -> int:
    """A pipe that turns readable when a child of the zygote ends: the loop then reaps it and the
    judge hears of it at once (a job's close waits for that), not at the loop's next tick."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    os.set_blocking(write_end, False)
    _wake_up[:] = [read_end, write_end]
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that the wake-up fd sees SIGCHLD
    signal.set_wakeup_fd(write_end)
    return read_end


def _no_wake_up() -> None:
    """In a child of the zygote: none of the zygote's SIGCHLD set-up (a job must not hold its pipe)."""
    if _wake_up:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in _wake_up:
            os.close(fd)
        _wake_up.clear()


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


def _report_start(control: socket.socket, channel: socket.socket, job: object, pid: int) -> None:
    """Relay a worker's confinement report to the judge (end-of-file: it died before reporting)."""
    try:
        packet = channel.recv(65536)
    except OSError:
        packet = b""
    channel.close()
    try:
        report = json.loads(packet) if packet else {}
    except ValueError:
        report = {}
    if report.get("op") == "confined" and isinstance(report.get("worker"), int):
        control.send(json.dumps({"op": "spawned", "job": job, "pid": pid, "worker": report["worker"]}).encode())
        return
    error = str(report.get("error") or "the job's process ended before it was confined")
    control.send(json.dumps({"op": "spawn_failed", "job": job, "pid": pid, "error": error[:2000]}).encode())


def _reap(control: socket.socket, spare: _Spare) -> bool:
    """Collect ended children and tell the judge; return whether the waiting spare was among them."""
    spare_died = False
    for pid, status in keeper.reap().items():
        if pid == spare.pid:
            spare_died = True
        else:
            control.send(json.dumps({"op": "exited", "pid": pid, "status": status}).encode())
    return spare_died


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description="ProbJudge fork server (strict sandbox, or the local level's warm start)"
    )
    parser.add_argument("--control", type=int, required=True)
    parser.add_argument("--level", choices=LEVELS, default="strict")
    options = parser.parse_args(argv)
    control = socket.socket(fileno=options.control)
    return serve(control, options.level)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
