"""The fork server of the ``strict`` level: imports torch once, forks one confined child per job.

Run by :class:`judge.sandbox.strict.Zygote` as ``python judge/sandbox/zygote.py --control FD``.
It holds no hidden data (whatever it holds, every child could read): it receives, per job, only
the confinement settings and three file descriptors (the two protocol pipes and the output
file), over a ``SOCK_SEQPACKET`` socket with ``SCM_RIGHTS``. Not even the learner's source: the
confined child reads it from its own pipe, so no job can find another job's code in memory it
inherited from the zygote.

Messages (JSON, one per packet):
  judge  -> zygote  ``{"op": "spawn", "job", "device", "confinement"}`` + 3 fds
  zygote -> judge   ``{"op": "ready"}`` once; ``{"op": "spawned", "job", "pid"}``;
                    ``{"op": "exited", "pid", "status"}`` when a child ends (raw wait status)

A spare child is forked ahead of time and waits for its job, so a job starts without paying
for ``fork()``. torch runs single-threaded here: a child forked after a multi-threaded region
would deadlock in its first parallel op.
"""

from __future__ import annotations

import json
import os
import select
import socket
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if sys.path and sys.path[0] == str(Path(__file__).resolve().parent):
    sys.path[0] = _ROOT
else:
    sys.path.insert(0, _ROOT)

from judge import child, wire  # noqa: E402
from judge.sandbox import confine, seccomp  # noqa: E402

MAX_MESSAGE = 4 << 20


def _run_job(job: dict, fds: list[int], seccomp_filter) -> int:
    """In the forked child: confine, then serve the learner's code on the job's fds."""
    fd_in, fd_out, output_fd = fds
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(output_fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    try:
        confine.confine(confine.Confinement.from_json(job["confinement"]), seccomp_filter)
    except BaseException as exc:  # noqa: BLE001 - reported to the judge as an internal error
        with os.fdopen(fd_out, "wb") as out:
            wire.write_frame(out, {"sandbox_error": f"{type(exc).__name__}: {exc}", "tensors": []})
        return 70
    # The source arrives only now, from the judge, on this job's own pipe.
    load, _ = wire.read_frame(os.fdopen(os.dup(fd_in), "rb", buffering=0))
    return child.serve(str(load.get("source", "")), str(load.get("filename", "solution.py")), job["device"],
                       fd_in, fd_out)


class _Spare:
    """A child forked ahead of time, blocked until the zygote hands it a job."""

    def __init__(self, control: socket.socket, seccomp_filter) -> None:
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                parent_end.close()
                control.close()
                message, fds, _, _ = socket.recv_fds(child_end, MAX_MESSAGE, 3)
                child_end.close()
                if message:
                    code = _run_job(json.loads(message), fds, seccomp_filter)
                else:
                    code = 0  # the zygote is shutting down
            finally:
                os._exit(code)
        child_end.close()
        self.pid = pid
        self.channel = parent_end

    def hand_over(self, message: bytes, fds: list[int]) -> None:
        socket.send_fds(self.channel, [message], fds)
        self.channel.close()


def serve(control: socket.socket) -> int:
    child.prepare_torch()
    seccomp_filter = seccomp.build_filter()
    spare = _Spare(control, seccomp_filter)
    control.send(json.dumps({"op": "ready", "pid": os.getpid()}).encode())
    while True:
        readable, _, _ = select.select([control], [], [], 0.05)
        if _reap(control, spare):
            spare = _Spare(control, seccomp_filter)  # the spare died before its job: replace it
        if not readable:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(control, MAX_MESSAGE, 3)
        except OSError:
            return 0
        if not message:
            return 0  # the judge closed its end
        request = json.loads(message)
        if request.get("op") != "spawn" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        job_spare = spare
        job_spare.hand_over(message, fds)
        for fd in fds:
            os.close(fd)
        control.send(json.dumps({"op": "spawned", "job": request.get("job"), "pid": job_spare.pid}).encode())
        spare = _Spare(control, seccomp_filter)


def _reap(control: socket.socket, spare: _Spare) -> bool:
    """Collect ended children and tell the judge; return whether the waiting spare was among them."""
    spare_died = False
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return spare_died
        if pid == 0:
            return spare_died
        if pid == spare.pid:
            spare_died = True
        else:
            control.send(json.dumps({"op": "exited", "pid": pid, "status": status}).encode())


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="ProbJudge fork server (strict sandbox)")
    parser.add_argument("--control", type=int, required=True)
    options = parser.parse_args(argv)
    control = socket.socket(fileno=options.control)
    return serve(control)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
