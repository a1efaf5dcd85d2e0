"""The pipes between the judge and a learner process, on the judge's side: the learner's output
drained into a bounded tail, requests written and answers read against a deadline, and the CPU
time of a call watched while the judge waits for its answer.

:class:`judge.engine.process.LearnerProcess` owns one of each per process; nothing here knows the
protocol (:mod:`judge.learner.wire` frames what goes through). Everything is non-blocking and
bounded: a learner that stops reading, never answers, answers a byte at a time or prints without
end costs the judge a deadline, never a hang or the host's disk.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable, Sequence

from judge.learner import wire

OUTPUT_TAIL_BYTES = 4000
OUTPUT_LIMIT_BYTES = 16 << 20  # printed by one learner process, all its calls together
PIPE_BYTES = 1 << 20  # each protocol pipe's buffer: Linux's default ceiling for a user (fs.pipe-max-size)


class OutputLimitExceeded(Exception):
    """The learner's process printed more than :data:`OUTPUT_LIMIT_BYTES`."""


class OutputCapture:
    """The learner's stdout and stderr: a pipe the judge drains, keeping only the last few kB.

    A pipe, not a file: nothing the learner does (``fallocate`` included) can take the host's
    disk, and the judge holds at most :data:`OUTPUT_TAIL_BYTES` of it however much is printed.
    """

    def __init__(self, limit: int = OUTPUT_LIMIT_BYTES) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        self.limit = limit
        self.total = 0
        self.open = True  # until end-of-file (every writer gone) or close()
        self._tail = bytearray()

    def drain(self) -> None:
        """Read whatever is waiting; raise :class:`OutputLimitExceeded` once past the limit."""
        while self.open:
            try:
                chunk = os.read(self.read_fd, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self.open = False
                break
            self.total += len(chunk)
            self._tail += chunk
            del self._tail[:-OUTPUT_TAIL_BYTES]
            if self.total > self.limit:
                raise OutputLimitExceeded
        if self.total > self.limit:
            raise OutputLimitExceeded

    def tail(self) -> str:
        try:
            self.drain()
        except OutputLimitExceeded:
            pass
        return self._tail.decode("utf-8", "replace")

    def handed_over(self) -> None:
        """Close the judge's copy of the write end (the learner's process has its own)."""
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def close(self) -> None:
        self.handed_over()
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1
            self.open = False


class CpuLimitExceeded(TimeoutError):
    """The learner's processes used up the CPU time of the current test case."""


CPU_WATCH_INTERVAL_S = 0.1  # how often a running call's CPU time is read (0.4 ms per read)


class CpuWatch:
    """Raises :class:`CpuLimitExceeded` once ``clock()`` passes ``limit_s``; reads the clock at most
    every :data:`CPU_WATCH_INTERVAL_S`, however often it is called.

    One per wait for an answer, called at every wake-up of that wait: the schedule is the watch's,
    not the wake-ups'. A learner that prints all the time, or sends its answer one byte at a time,
    wakes the judge up far more often than that: a check that waited for a quiet interval would
    never come.
    """

    def __init__(self, clock: Callable[[], float], limit_s: float) -> None:
        self._clock = clock
        self._limit_s = limit_s
        self._due = time.monotonic() + CPU_WATCH_INTERVAL_S

    def __call__(self) -> None:
        now = time.monotonic()
        if now < self._due:
            return
        self._due = now + CPU_WATCH_INTERVAL_S
        if self._clock() > self._limit_s:
            raise CpuLimitExceeded


def wait_until_ready(
    fd: int, deadline: float, output: OutputCapture, *, write: bool, watch: Callable[[], None] | None = None
) -> None:
    """Wait until ``fd`` can be read (or written), draining ``output`` meanwhile.

    Raises ``TimeoutError`` past ``deadline`` (``time.monotonic()``; infinity waits for ever),
    and whatever ``watch`` raises: it is called at every wake-up, and at least every
    :data:`CPU_WATCH_INTERVAL_S` while waiting (a :class:`CpuWatch`: the CPU-time limit).
    Draining while waiting means a learner that prints a lot never blocks on a full output pipe
    (so it goes on reading and answering), and one that prints too much is stopped.
    """
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        wait = remaining if watch is None else min(remaining, CPU_WATCH_INTERVAL_S)
        watched = [output.read_fd] if output.open else []
        readable, writable, _ = select.select(
            watched if write else [fd, *watched], [fd] if write else [], [], None if wait == float("inf") else wait
        )
        if watch is not None:
            watch()  # whatever woke us up: output or a trickle of bytes must not put the check off
        if not readable and not writable:
            if watch is None:
                raise TimeoutError
            continue
        if output.read_fd in readable:
            output.drain()
        if fd in (writable if write else readable):
            return


class DeadlineWriter:
    """A file-like ``write(data)`` / ``writev(buffers)`` to a pipe that raises ``TimeoutError`` past a deadline.

    The learner's process may stop reading its requests (and leave the judge blocked on a full
    pipe for ever); the pipe is non-blocking and every write waits at most until the deadline.
    A frame goes out in one ``writev`` where the pipe has room for it (:data:`PIPE_BYTES`).
    """

    def __init__(self, fd: int, output: OutputCapture) -> None:
        self.fd = fd
        self.output = output
        self.deadline = float("inf")
        self.sent = 0  # bytes written so far
        os.set_blocking(fd, False)

    def write(self, data: wire.Buffer) -> None:
        self.writev([data])

    def writev(self, buffers: Sequence[wire.Buffer]) -> None:
        """Write every buffer, in order (as many per system call as the pipe takes)."""
        pending = wire.byte_views(buffers)
        while pending:
            try:
                sent = os.writev(self.fd, pending[: wire.IOV_BATCH])
            except BlockingIOError:
                wait_until_ready(self.fd, self.deadline, self.output, write=True)
                continue
            self.sent += sent
            wire.consume(pending, sent)

    def flush(self) -> None:
        pass  # every write goes straight to the pipe

    def close(self) -> None:
        os.close(self.fd)


class DeadlineReader:
    """A file-like ``read(n)`` / ``readv(buffers)`` over a pipe that raises ``TimeoutError`` past a
    deadline (and whatever ``watch`` raises, called while it waits).

    The pipe is non-blocking: what is there already is read at once, and only an empty pipe
    costs a wait (which also drains the learner's output).
    """

    def __init__(self, fd: int, output: OutputCapture) -> None:
        self.fd = fd
        self.output = output
        self.deadline = float("inf")
        self.watch: Callable[[], None] | None = None
        self.received = 0  # bytes read so far
        os.set_blocking(fd, False)

    def read(self, n: int) -> bytes:
        while True:
            try:
                data = os.read(self.fd, min(n, 1 << 20))
            except BlockingIOError:
                self._wait()
                continue
            self.received += len(data)
            return data

    def readv(self, buffers: Sequence[memoryview]) -> int:
        while True:
            try:
                got = os.readv(self.fd, buffers)
            except BlockingIOError:
                self._wait()
                continue
            self.received += got
            return got

    def _wait(self) -> None:
        wait_until_ready(self.fd, self.deadline, self.output, write=False, watch=self.watch)


def widen_pipe(fd: int) -> None:
    """Give the pipe of ``fd`` room for :data:`PIPE_BYTES` (Linux), so that a frame crosses in one
    go instead of 64 kB at a time with both processes taking turns. Where the system refuses (a
    user past its quota of pipe memory, not Linux), the pipe keeps its size: only slower."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass
