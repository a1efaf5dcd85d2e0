"""The trusted side of a learner process: start it, send it the source, call its functions, read its answers.

:class:`LearnerProcess` (a :class:`judge.learner.interface.Learner`) asks a launcher
(:mod:`judge.sandbox.launchers`: ``local`` or ``strict``) for a child running
:mod:`judge.sandbox.child`, sends it the learner's source as text in a first ``load`` frame,
talks to it over two pipes, enforces a wall-clock and a CPU-time deadline on every call, and
turns whatever happens to the child into an exception the runner maps to a verdict (the pipes
themselves, their deadlines and the CPU watch: :mod:`judge.engine.pipes`). The
launchers are imported on first use only: this module is imported in the browser too (through
:mod:`judge.checks.testing`), where there is no sandbox.

Invariants, at every level:

- Everything read from the learner's pipes is hostile: frames are bounded by :mod:`judge.learner.wire`
  and every message is validated by :mod:`judge.learner.protocol`; any failure is RE (or TLE, MLE), never
  IE. Only a launcher's own channel can report a sandbox failure (:class:`SandboxFailure`, IE).
- What the learner prints goes through a pipe the judge drains (:class:`~judge.engine.pipes.OutputCapture`):
  the host's disk is never involved, and past :data:`~judge.engine.pipes.OUTPUT_LIMIT_BYTES` the
  process is stopped.
- Whatever the launch took (a sandbox slot, cgroups, the pipes) is released by :meth:`close`,
  which every failure path calls; nothing the learner started runs on after it (:mod:`judge.sandbox.keeper`).
- Once the judge kills a process, it is dead for the runner at once: its exit status is never
  read as the learner's fate in a later case.

Long on purpose: :class:`LearnerProcess` is one state machine over two pipes (loading, a call, a
batch of refusals, the callbacks of host functions inside a call, and every way the child can end),
whose failure paths share its state (the deadlines, the kill, the verdict of a death); split, each
part would reach into the others' state. What could leave did: the pipes and clocks (pipes.py),
the frames (judge.learner.wire, protocol), the host functions' budget and answers (judge.learner.hosts).
"""

from __future__ import annotations

import io
import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from judge.engine.pipes import (
    OUTPUT_LIMIT_BYTES,
    CpuLimitExceeded,
    CpuWatch,
    DeadlineReader,
    DeadlineWriter,
    OutputCapture,
    OutputLimitExceeded,
    widen_pipe,
)
from judge.i18n import Bilingual, bilingual
from judge.learner import hosts as host_functions
from judge.learner import protocol, wire
from judge.learner.interface import (
    CallOptions,
    CallResult,
    CallTiming,
    LearnerRaised,
    LearnerSource,
    LoadFailed,
    ProcessFailed,
    SandboxFailure,
    load_failure,
)
from judge.verdicts import Verdict

if TYPE_CHECKING:
    from judge.sandbox.launchers import Launched, Launcher

__all__ = [
    "CallOptions",
    "CallResult",
    "CallTiming",
    "LearnerProcess",
    "LearnerRaised",
    "LearnerSource",
    "LoadFailed",
    "OutputCapture",
    "ProcessFailed",
    "SandboxFailure",
    "load_failure",
]
# What the child is doing while it loads the learner's file, in its failure messages: both
# languages, since such a message is the report's (judge.engine.runner); a call's names stay English.
LOADING = Bilingual("loading your file", "加载你的文件")
DEFAULT_LOAD_TIMEOUT_S = 10.0  # the learner's own import time, when the caller does not say
# Where they lived before the launchers moved to judge.sandbox.launchers: imported on first use
# only, since this module is also what the browser's learner imports (and the sandbox is not there).
_LAUNCHERS = ("Launched", "Launcher", "LocalLauncher")


def __getattr__(name: str):
    if name in _LAUNCHERS:
        from judge.sandbox import launchers

        return getattr(launchers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# A refusals request holds at most this many calls, and this many bytes of their tensors (with
# at most wire.MAX_TENSORS tensors): what one frame to the child holds, with room for its header.
MAX_REFUSALS = 256
MAX_REFUSALS_PAYLOAD = wire.MAX_FRAME_BYTES - wire.MAX_HEADER_BYTES


class _Exchange:
    """One request's answer frame, read by :meth:`LearnerProcess._exchange`: validated with
    :meth:`parse`, decoded with :meth:`decode` (each kills the process and raises
    :class:`ProcessFailed` RE for what the judge does not understand), timed on leaving the
    ``with`` block when :meth:`count` said how many calls it answered."""

    def __init__(self, process: LearnerProcess, started: float, sent: int, received: int) -> None:
        self.process = process
        self.started, self.sent, self.received = started, sent, received
        self.header: dict[str, Any] = {}
        self.payloads: list[wire.Received] = []
        self._counted: tuple[int, float] | None = None

    def parse(self, validate: Callable[[dict[str, Any]], Any]) -> Any:
        return self.decode(lambda: validate(self.header))

    def decode(self, read: Callable[[], Any]) -> Any:
        try:
            return read()
        except wire.WireError as error:
            self.process.kill()
            raise ProcessFailed(
                Verdict.RE, f"your process sent an answer the judge does not understand: {error}"
            ) from None

    def count(self, calls: int, reported_ms: float) -> None:
        """The answer holds ``calls`` calls' outcomes, whose functions ran ``reported_ms`` in all."""
        self._counted = (calls, reported_ms)

    def __enter__(self) -> _Exchange:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None and self._counted is not None:
            process = self.process
            process._timing = process._timing.add(
                time.perf_counter() - self.started,
                self._counted[1],
                process._writer.sent - self.sent,
                process._reader.received - self.received,
                calls=self._counted[0],
            )


class LearnerProcess:
    """The learner's code loaded in a child process, ready to answer calls
    (a :class:`~judge.learner.interface.Learner`).

    ``source`` is the code as text (:class:`~judge.learner.interface.LearnerSource`); a path is read first,
    as :meth:`LearnerSource.from_file` reads it. Whatever the level, the child receives the text
    in a first ``load`` frame on its own pipe; :meth:`LearnerSource.load_frame` is the one check
    of its size and encoding (CE).

    Raises :class:`LoadFailed` (CE, RE, MLE), :class:`ProcessFailed` (the process died, hung or
    broke the protocol while loading) or :class:`SandboxFailure` (IE) from the constructor when
    the code cannot be loaded; whatever the launch took is released first. With ``wait=False``
    the constructor only starts the child (so the caller can import torch meanwhile) and never
    raises for those: the first use raises instead.

    ``load_timeout_s`` is the learner's own import time; the launcher adds what it needs to
    start a process (a fresh ``local`` process imports torch first, a ``strict`` fork has it).
    """

    def __init__(
        self,
        source: LearnerSource | os.PathLike[str],
        *,
        device: str = "cpu",
        memory_limit_mb: int | None = None,
        load_timeout_s: float = DEFAULT_LOAD_TIMEOUT_S,
        wait: bool = True,
        launcher: Launcher | None = None,
    ) -> None:
        if launcher is None:
            from judge.sandbox.launchers import LocalLauncher

            launcher = LocalLauncher()
        self.device = device
        self.memory_limit_mb = memory_limit_mb
        self.launcher = launcher
        self._startup_timeout_s = load_timeout_s + float(getattr(self.launcher, "startup_allowance_s", 0.0))
        # A file that spins at import burns CPU; one that sleeps does not: where the launcher says
        # what starting costs in CPU time, loading stops there too, long before the wall clock.
        cpu_allowance = getattr(self.launcher, "startup_cpu_allowance_s", None)
        self._startup_cpu_s = load_timeout_s + float(cpu_allowance) if cpu_allowance is not None else None
        self._ready: protocol.Ready | None = None
        self._failure: BaseException | None = None  # why it cannot be used, once that is known
        self._killed = False  # by the judge: dead for the runner from that moment
        self._closed = False
        self._timing = CallTiming()
        self._proc: Launched | None = None
        self._output = OutputCapture()
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        widen_pipe(self._to_child)
        widen_pipe(self._from_child)
        self._reader = DeadlineReader(self._from_child, self._output)
        self._writer = DeadlineWriter(self._to_child, self._output)
        load_frame = None
        try:
            if not isinstance(source, LearnerSource):
                source = LearnerSource.from_file(source)
            load_frame = source.load_frame()  # before a launch: a file that cannot be judged takes no slot
            unsent = self._start_sending(load_frame)
            self._proc = self.launcher.launch(
                device=device,
                memory_limit_mb=memory_limit_mb,
                fd_in=to_child_r,
                fd_out=from_child_w,
                output_fd=self._output.write_fd,
                import_dir=source.import_dir,
            )
        except (LoadFailed, SandboxFailure) as failure:
            self._failure = failure
        except BaseException:
            self.close()
            raise
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
            self._output.handed_over()
        if self._failure is not None:
            self.close()
        else:
            assert load_frame is not None  # no failure: the source was read
            self._send_source(unsent)
        if wait:
            self.wait_ready()

    def _start_sending(self, load_frame: dict[str, Any]) -> bytes:
        """Put the child's first frame (the learner's source) in its request pipe, as much of it as
        the pipe takes now; what is left, to send once the child runs.

        Done before the launch: a child reads its pipe only once it is confined (at ``strict``),
        so it finds its source there at once instead of waiting for the launcher's report to reach
        the judge and the judge's write to come back. Only the child reads that pipe.
        """
        frame = io.BytesIO()
        wire.write_frame(frame, {**load_frame, "tensors": []})
        data = frame.getvalue()
        try:
            taken = os.write(self._to_child, data)
        except BlockingIOError:
            taken = 0
        self._writer.sent += taken
        return data[taken:]

    def _send_source(self, unsent: bytes) -> None:
        """The rest of the child's first frame (:meth:`_start_sending`), within the load deadline."""
        if not unsent:
            return
        self._writer.deadline = time.monotonic() + self._startup_timeout_s
        try:
            self._writer.write(unsent)
        except TimeoutError:
            self._failure = ProcessFailed(
                Verdict.TLE,
                bilingual(
                    "your process did not take your file within {s:.1f} s",
                    "你的进程未在 {s:.1f} 秒内接收你的文件",
                    s=self._startup_timeout_s,
                ),
            )
            self.close()
        except OSError:
            pass  # the child died already; waiting for its ready frame reports why
        finally:
            self._writer.deadline = float("inf")

    def wait_ready(self) -> None:
        """Wait for the child to import torch and load the file (once).

        Raises :class:`LoadFailed` when the file does not import, :class:`ProcessFailed` when the
        child dies, hangs or lies while loading, :class:`SandboxFailure` when it could not start;
        the process is closed (its slot released) before any of them, and the same error is
        raised again on every later use.
        """
        if self._ready is not None:
            return
        if self._failure is not None:
            raise self._failure
        cpu_limit_s = self._startup_cpu_s
        if cpu_limit_s is not None:
            self._reader.watch = CpuWatch(self.cpu_time_s, cpu_limit_s)
        try:
            header, _ = self._receive(
                time.monotonic() + self._startup_timeout_s,
                LOADING,
                self._startup_timeout_s,
                cpu_limit_s,
                cpu_budget=Bilingual("its CPU time", "它的 CPU 时间"),
            )
            message = protocol.first_message(header)
        except ProcessFailed as failure:
            self._fail(failure)
        except wire.WireError as error:
            self._fail(
                ProcessFailed(
                    Verdict.RE,
                    bilingual(
                        "your process sent a malformed message while loading: {error}",
                        "你的进程在加载时发送了格式错误的消息：{error}",
                        error=str(error),
                    ),
                )
            )
        except BaseException:
            self.close()  # whatever went wrong, the slot and the processes go back first
            raise
        finally:
            self._reader.watch = None
        if isinstance(message, protocol.LoadError):
            self._fail(load_failure(message.error))
        self._ready = message

    def _fail(self, failure: BaseException) -> NoReturn:
        self._failure = failure
        self.close()
        raise failure

    @property
    def functions(self) -> dict[str, protocol.FunctionInfo]:
        """Name -> signature of every public callable the learner's file defines."""
        self.wait_ready()
        assert self._ready is not None  # wait_ready raised otherwise
        return dict(self._ready.functions)

    @property
    def torch_version(self) -> str:
        self.wait_ready()
        assert self._ready is not None  # wait_ready raised otherwise
        return self._ready.torch_version

    @property
    def alive(self) -> bool:
        """Whether it can take another call (not killed by the judge, not closed, not ended)."""
        if self._killed or self._closed or self._failure is not None or self._proc is None:
            return False
        return self._proc.poll() is None

    @property
    def sandbox(self) -> str:
        """The isolation level this process runs under (``local`` or ``strict``)."""
        return self.launcher.level

    def call(
        self,
        function: str,
        args: list[Any],
        kwargs: dict[str, Any],
        *,
        timeout_s: float,
        options: CallOptions = CallOptions(),
        cpu_deadline_s: float = float("inf"),
        cpu_limit_s: float | None = None,
    ) -> CallResult:
        """Call ``function(*args, **kwargs)`` in the child; its value, time and modified inputs.

        Tensors in the value come back on the CPU; ``modified`` names the tensor arguments the
        call changed in place; with ``options.watch_global_rng``, ``global_rng_changed`` says
        whether it changed torch's default generator (an answer without it is malformed). Raises
        :class:`LearnerRaised` when the learner's code raised, and :class:`ProcessFailed` when the
        process died, hung past ``timeout_s`` (wall clock), brought its processes' CPU time
        (:meth:`cpu_time_s`) past ``cpu_deadline_s`` (``cpu_limit_s`` is that case's limit, for the
        message) or sent something malformed (the process is killed then).
        """
        specs: list[dict[str, Any]] = []
        payloads: list[wire.Buffer] = []
        request = {
            "op": "call",
            "function": function,
            "args": wire.encode_values(list(args), specs, payloads),
            "kwargs": wire.encode_values(dict(kwargs), specs, payloads),
            "extreme_uniforms": options.extreme_uniforms,
            "global_seed": options.global_seed,
            "tensors": specs,
        }
        if options.draw_sites is not None:
            push = options.draw_sites
            request["draw_sites"] = {"site": push.site, "high": push.high, "seed": push.seed}
        watched = options.watch_global_rng
        if watched:
            request["watch_global_rng"] = True
        hosts = host_functions.collect([args, kwargs])
        with self._exchange(
            request, payloads, f"{function}()", timeout_s, cpu_deadline_s, cpu_limit_s, hosts=hosts
        ) as exchange:
            answer = exchange.parse(lambda header: protocol.reply(header, watched=watched))
            outcome = self._outcome(answer, exchange)
            exchange.count(1, answer.elapsed_ms)
        if isinstance(outcome, LearnerRaised):
            raise outcome
        return outcome

    def refusals(
        self,
        calls: Sequence[tuple[str, list[Any], dict[str, Any]]],
        accept: Sequence[str],
        *,
        timeout_s: float,
        options: CallOptions = CallOptions(),
        cpu_deadline_s: float = float("inf"),
        cpu_limit_s: float | None = None,
    ) -> list[CallResult | LearnerRaised]:
        """Calls expected to raise, ``(function, args, kwargs)`` each, in one request each way.

        The child runs them in order, as many :meth:`call` would, and stops after the first one
        that is not refused: one that returns, or raises a type none of whose classes is in
        ``accept`` (class names, :func:`judge.learner.code.qualified_name`),
        or raises without a message. The outcomes, in order: a :class:`LearnerRaised` for each
        call that raised (the last one's ``memory`` is set as :meth:`call` sets it), or the
        :class:`CallResult` of the call that returned; never more than one outcome that is not
        a refusal, and only last. Fewer outcomes than calls means the batch stopped there, or
        that the calls after it did not fit in one request (more than :data:`MAX_REFUSALS`,
        tensors past what one frame holds, a header past the wire's bounds; none at all when
        the first call alone does not fit): no later call ran. ``timeout_s`` and
        ``cpu_deadline_s`` hold for the batch as a whole, as they would for the same calls one
        after the other in one case. Raises
        :class:`ProcessFailed` as :meth:`call` does.
        """
        specs: list[dict[str, Any]] = []
        payloads: list[wire.Buffer] = []
        encoded: list[dict[str, Any]] = []
        marks: list[int] = []  # the first tensor of each call
        payload_bytes = 0
        for function, args, kwargs in calls[:MAX_REFUSALS]:
            mark = len(specs)
            try:
                one = {
                    "function": function,
                    "args": wire.encode_values(list(args), specs, payloads),
                    "kwargs": wire.encode_values(dict(kwargs), specs, payloads),
                }
            except wire.WireError:
                if not encoded:
                    raise
                # An input the wire cannot carry is the exercise's mistake, raised by this call
                # when it is made one at a time: after the earlier ones, as it would be.
                del specs[mark:], payloads[mark:]
                break
            encoded.append(one)
            marks.append(mark)
            payload_bytes += sum(spec["nbytes"] for spec in specs[mark:])
            if len(specs) > wire.MAX_TENSORS or payload_bytes > MAX_REFUSALS_PAYLOAD:
                break  # no later call fits beside these: encoding it would only copy its tensors
        marks.append(len(specs))
        request = {
            "op": "refusals",
            "calls": encoded,
            "accept": list(accept),
            "extreme_uniforms": options.extreme_uniforms,
            "global_seed": options.global_seed,
            "tensors": specs,
        }
        body = wire.encode_header(request)  # measured, then sent as it is: encoded once
        if not wire.frame_fits(body, specs, max_bytes=MAX_REFUSALS_PAYLOAD):
            # The child would refuse the frame: send the longest run of calls whose frame it takes
            # (each bound only grows with the calls); the rest go one at a time, as a batch cut
            # short says (no later call ran), and none of them when the first call alone does not fit.
            fits, fails, body = 0, len(encoded), b""
            while fails - fits > 1:
                middle = (fits + fails) // 2
                trial = wire.encode_header({**request, "calls": encoded[:middle], "tensors": specs[: marks[middle]]})
                if wire.frame_fits(trial, specs[: marks[middle]], max_bytes=MAX_REFUSALS_PAYLOAD):
                    fits, body = middle, trial
                else:
                    fails = middle
            del specs[marks[fits] :], payloads[marks[fits] :], encoded[fits:]
        if not encoded:
            return []
        calls = calls[: len(encoded)]
        # Which call was running when the process died or ran out of time is the learner's side's
        # to know; a message names every function of the batch (just one, most often).
        during = " or ".join(dict.fromkeys(f"{function}()" for function, _, _ in calls))
        # Room for each refusal on top of one reply (the child sends each one cut short).
        room = wire.MAX_REPLY_HEADER_BYTES + len(calls) * protocol.refusal_room(list(accept))
        with self._exchange(
            request, payloads, during, timeout_s, cpu_deadline_s, cpu_limit_s, max_header_bytes=room, body=body
        ) as exchange:
            answer = exchange.parse(lambda header: protocol.refusals_reply(header, len(calls)))
            outcomes: list[CallResult | LearnerRaised] = [LearnerRaised(info) for info in answer.refused]
            elapsed_ms = sum(answer.refused_ms)
            if answer.stopped is not None:
                outcomes.append(self._outcome(answer.stopped, exchange))
                elapsed_ms += answer.stopped.elapsed_ms
            exchange.count(len(outcomes), elapsed_ms)
        return outcomes

    def _exchange(
        self,
        request: dict[str, Any],
        payloads: list[wire.Buffer],
        during: str,
        timeout_s: float,
        cpu_deadline_s: float,
        cpu_limit_s: float | None,
        *,
        max_header_bytes: int = wire.MAX_REPLY_HEADER_BYTES,
        body: bytes | None = None,
        hosts: dict[int, host_functions.HostFunction] | None = None,
    ) -> _Exchange:
        """Send ``request`` (its tensors' bytes ``payloads``) and read the answer's frame: a context
        whose ``parse`` validates the header, and whose exit adds the round trip to the timing.

        ``during`` names the call(s) in messages; ``max_header_bytes`` bounds the answer's header;
        ``body``: ``request`` encoded (:func:`judge.learner.wire.encode_header`), where the caller has it;
        ``hosts``: the host functions the request carries, whose callbacks are answered while the
        answer is awaited (:meth:`_serve_callbacks`). Raises :class:`ProcessFailed` as :meth:`call` does.
        """
        self.wait_ready()
        if not self.alive:
            raise ProcessFailed(Verdict.RE, "your process is no longer running")
        exchange = _Exchange(self, time.perf_counter(), self._writer.sent, self._reader.received)
        deadline = time.monotonic() + timeout_s
        self._writer.deadline = deadline
        try:
            wire.write_encoded_frame(self._writer, wire.encode_header(request) if body is None else body, payloads)
        except TimeoutError:
            raise self._overdue(f"{during} did not take its input within {timeout_s:.1f} s") from None
        except OSError:
            raise self._death("before the call") from None
        finally:
            self._writer.deadline = float("inf")
        if cpu_deadline_s != float("inf"):
            self._reader.watch = CpuWatch(self.cpu_time_s, cpu_deadline_s)
        try:
            exchange.header, exchange.payloads = self._receive(
                deadline, during, timeout_s, cpu_limit_s, max_header_bytes=max_header_bytes
            )
            while hosts and protocol.is_callback(exchange.header):
                served = time.monotonic()
                self._serve_callbacks(exchange, hosts, deadline, during)
                deadline += time.monotonic() - served  # the host's time is the judge's, not the call's
                exchange.header, exchange.payloads = self._receive(
                    deadline, during, timeout_s, cpu_limit_s, max_header_bytes=max_header_bytes
                )
        finally:
            self._reader.watch = None
        return exchange

    def _serve_callbacks(
        self, exchange: _Exchange, hosts: dict[int, host_functions.HostFunction], deadline: float, during: str
    ) -> None:
        """Answer the callback frame in ``exchange`` (:func:`judge.learner.protocol.answer_callback`: malformed, or
        flooding past a host's budget, is RE). The host runs here: never the learner's CPU time, always
        within the call's wall-clock ``deadline``, which also bounds writing the answer."""
        try:
            reply, value = exchange.decode(lambda: protocol.answer_callback(hosts, exchange.header, exchange.payloads))
        except host_functions.HostViolation as violation:
            self.kill()
            raise ProcessFailed(Verdict.RE, f"your process flooded the judge with callbacks: {violation}") from None
        payloads: list[wire.Buffer] = []
        if "host_value" in reply:
            reply["host_value"] = wire.encode_values(value, reply["tensors"], payloads)
        self._writer.deadline = deadline
        try:
            wire.write_frame(self._writer, reply, payloads)
        except (TimeoutError, OSError):
            raise self._overdue(f"{during} did not take the answer of its callback") from None
        finally:
            self._writer.deadline = float("inf")

    def _outcome(self, answer: protocol.Returned | protocol.Raised, exchange: _Exchange) -> CallResult | LearnerRaised:
        """One call's answer as the runner sees it: its decoded value, or the learner's exception
        (flagged ``memory`` when the process hit its memory limit). Kills the process and raises
        :class:`ProcessFailed` for a value the wire cannot decode."""
        if isinstance(answer, protocol.Raised):
            raised = LearnerRaised(answer.error)
            assert self._proc is not None  # it answered, so it was launched
            if raised.memory or self._proc.memory_exceeded():
                raised.memory = True
            return raised
        value = exchange.decode(
            lambda: wire.decode_answer(answer.value, exchange.header.get("tensors", []), exchange.payloads)
        )
        return CallResult(
            value, answer.elapsed_ms, answer.modified, answer.draw_sites, global_rng_changed=answer.global_rng_changed
        )

    @property
    def call_timing(self) -> CallTiming:
        """Totals over the calls answered so far (:class:`~judge.learner.interface.CallTiming`): for reports
        and benchmarks, never for a verdict."""
        return self._timing

    def cpu_time_s(self) -> float:
        """CPU seconds used so far by the learner's processes (worker, keeper and what they started).

        Read by the judge from the kernel, so the learner's code cannot under-report it; 0.0
        for a process that never started."""
        if self._proc is None:
            return 0.0
        return self._proc.cpu_time_s()

    def output_tail(self) -> str:
        """The last few kB of what the learner's code printed."""
        return self._output.tail()

    def _receive(
        self,
        deadline: float,
        during: str,
        allowed_s: float,
        cpu_limit_s: float | None = None,
        cpu_budget: str = "the test case's CPU time",
        max_header_bytes: int = wire.MAX_REPLY_HEADER_BYTES,
    ) -> tuple[dict[str, Any], list[wire.Received]]:
        """The next frame before ``deadline`` (``allowed_s`` from the start, for the message)."""
        words = {"during": during, "budget": cpu_budget}  # Bilingual at load (a report's message), else English
        self._reader.deadline = deadline
        try:
            return wire.read_frame(self._reader, max_header_bytes=max_header_bytes)
        except CpuLimitExceeded:
            limit = (
                bilingual(" of {s:g} s", "（{s:g} 秒）", s=cpu_limit_s)
                if cpu_limit_s is not None
                else Bilingual("", "")
            )
            raise self._overdue(
                bilingual("{during} used up {budget}{limit}", "{during}用完了{budget}{limit}", **words, limit=limit)
            ) from None
        except TimeoutError:
            raise self._overdue(
                bilingual(
                    "{during} did not finish within {s:.1f} s", "{during}未在 {s:.1f} 秒内完成", **words, s=allowed_s
                )
            ) from None
        except OutputLimitExceeded:
            self.kill()
            raise ProcessFailed(
                Verdict.RE,
                bilingual(
                    "your process printed more than {mb} MB during {during}; print less",
                    "你的进程在{during}时输出超过了 {mb} MB；请少输出一些",
                    **words,
                    mb=OUTPUT_LIMIT_BYTES >> 20,
                ),
            ) from None
        except EOFError:
            raise self._death(during) from None
        except wire.WireError as exc:
            self.kill()
            raise ProcessFailed(
                Verdict.RE,
                bilingual(
                    "your process broke the result format during {during}: {exc}",
                    "你的进程在{during}时破坏了结果格式：{exc}",
                    **words,
                    exc=str(exc),
                ),
            ) from None
        finally:
            self._reader.deadline = float("inf")

    def _overdue(self, message: str) -> ProcessFailed:
        """Kill a process that ran out of time: TLE, or MLE when it stalled at its memory limit."""
        assert self._proc is not None  # only a launched process runs out of time
        memory = self._proc.memory_exceeded()
        self.kill()
        if memory:
            return ProcessFailed(
                Verdict.MLE,
                bilingual(
                    "your process hit its memory limit ({message})",
                    "你的进程达到了内存上限（{message}）",
                    message=message,
                ),
            )
        return ProcessFailed(Verdict.TLE, message)

    def ended(self, during: str) -> ProcessFailed | None:
        """Why the process is gone when it ended by itself (say, after answering); None otherwise.

        None for a process that still runs, one the judge killed or closed (its case already
        failed), or one that never started. The runner asks between cases, so that a death
        between two answers is a failure too, never a free restart.
        """
        if self._killed or self._closed or self._failure is not None or self._proc is None:
            return None
        if self._proc.poll() is None:
            return None
        return self._death(during)

    def _death(self, during: str) -> ProcessFailed:
        """Explain why the child is gone (it closed its pipe or exited)."""
        if self._killed:
            return ProcessFailed(
                Verdict.RE,
                bilingual(
                    "your process had already been stopped before {during}",
                    "你的进程在{during}之前就已被停止",
                    during=during,
                ),
            )
        assert self._proc is not None  # only a launched process dies
        code = self._proc.wait(timeout=5)
        memory = self._proc.memory_exceeded()
        self.kill()
        if memory:
            return ProcessFailed(
                Verdict.MLE,
                bilingual(
                    "your process ran out of memory during {during}", "你的进程在{during}时内存不足", during=during
                ),
            )
        if code is None:
            # Still running with its end of the pipe closed: whatever status it has now is the
            # judge's kill, not the learner's doing (it called no exit()).
            return ProcessFailed(
                Verdict.RE,
                bilingual(
                    "your process stopped answering during {during}: it closed its pipe to the judge",
                    "你的进程在{during}时不再应答：它关闭了与评测系统之间的管道",
                    during=during,
                ),
            )
        from judge.sandbox import keeper

        if keeper.SUPPORTED and code == -signal.SIGKILL:
            # The keeper tells its worker's SIGKILL as WORKER_KILLED: this SIGKILL killed the keeper.
            return ProcessFailed(
                Verdict.RE,
                bilingual(
                    "your process killed the judge's process that watches it (its keeper) during {during}",
                    "你的进程在{during}时杀死了评测系统用来监视它的进程（keeper）",
                    during=during,
                ),
            )
        if keeper.SUPPORTED and code == keeper.WORKER_KILLED:
            code = -signal.SIGKILL
        if code is not None and code < 0:
            sig = -code
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            if sig == signal.SIGXCPU:
                return ProcessFailed(
                    Verdict.TLE,
                    bilingual(
                        "your process used up its CPU time during {during}",
                        "你的进程在{during}时用完了 CPU 时间",
                        during=during,
                    ),
                )
            if sig == signal.SIGKILL:
                if getattr(self._proc, "accounts_memory", False):
                    # A cgroup saw no memory trouble: the CPU limit's hard stop (SIGXCPU was ignored).
                    return ProcessFailed(
                        Verdict.TLE,
                        bilingual(
                            "your process was killed at its CPU-time limit during {during}",
                            "你的进程在{during}时因达到 CPU 时间上限被终止",
                            during=during,
                        ),
                    )
                return ProcessFailed(
                    Verdict.MLE,
                    bilingual(
                        "your process was killed (SIGKILL, most likely out of memory) during {during}",
                        "你的进程在{during}时被终止（SIGKILL，很可能是内存不足）",
                        during=during,
                    ),
                )
            if sig == signal.SIGXFSZ:
                return ProcessFailed(
                    Verdict.RE,
                    bilingual(
                        "your process wrote too large a file during {during}",
                        "你的进程在{during}时写入了过大的文件",
                        during=during,
                    ),
                )
            return ProcessFailed(
                Verdict.RE,
                bilingual(
                    "your process died from signal {name} during {during}",
                    "你的进程在{during}时因信号 {name} 而终止",
                    during=during,
                    name=name,
                ),
            )
        return ProcessFailed(
            Verdict.RE,
            bilingual(
                "your process exited (status {code}) during {during}; do not call exit() or os._exit() in a solution",
                "你的进程在{during}时退出了（状态 {code}）；解答中不要调用 exit() 或 os._exit()",
                during=during,
                code=code,
            ),
        )

    def kill(self) -> None:
        """Kill the child's whole process tree (orphaned grandchildren could hold the pipe).

        From now on the process is dead for the runner, whatever its exit status says later.
        """
        self._killed = True
        if self._proc is not None:
            self._proc.kill()

    def close(self) -> None:
        """End the child's whole tree and free its resources; once it returns, every process of the
        job has been killed (what the learner printed stays readable). Waiting for the tree to be
        gone is the launcher's (``strict`` leaves it to a reaper thread, and reuses the job's slot
        and uid only after it), so a verdict never waits for a teardown.

        No polite ``exit`` first: nothing the child holds needs it (its output is unbuffered and
        already in the pipe), and waiting for it cost more than the rest of the close. Idempotent;
        safe on a process that never started. The sandbox slot and cgroups are released even when
        something on the way fails.
        """
        if self._closed:
            return
        self._closed = True
        try:
            if self._proc is not None:
                self._killed = True
                self._proc.release()  # kills the tree; the launcher frees the rest
        finally:
            for closer in (self._writer.close, lambda: os.close(self._from_child)):
                try:
                    closer()
                except OSError:
                    pass
            self._output.tail()  # keep the last output readable after close
            self._output.close()

    def __enter__(self) -> LearnerProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
