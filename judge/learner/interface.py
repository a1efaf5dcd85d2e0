"""The learner as the runner sees it: its source, the interface it drives, and how it fails.

:class:`Learner` is what :mod:`judge.engine.runner` and :mod:`judge.checks.testing` call on the object that
runs the learner's code: :class:`judge.engine.process.LearnerProcess` on a machine (``local`` and
``strict`` levels), :class:`judge.browser.learner.InProcessLearner` in the browser. The
exceptions below are how either says what went wrong; the runner turns them into verdicts.

:class:`LearnerSource` is what every level receives: the learner's code as text, never a path.
:func:`checked_source` is the one place that decides what source can be judged (its size, UTF-8).
This module is pure Python with no import beyond the standard library and
:mod:`judge.learner.code` (standard library only too; the browser bundle ships both).
"""

from __future__ import annotations

import builtins
import math
import os
from collections.abc import Iterator
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from judge.i18n import Bilingual, bilingual
from judge.learner.code import TRACEBACK_HEADER, TRACEBACK_HEADER_ZH, qualified_name
from judge.verdicts import Verdict

if TYPE_CHECKING:
    from judge.learner.protocol import ExceptionInfo, FunctionInfo

MAX_SOURCE_BYTES = 512 << 10
DEFAULT_FILENAME = "solution.py"


class LearnerRaised(Exception):
    """The learner's function raised; carries the learner-only traceback and the exception's classes.

    ``type_name`` is the class's own name (for messages); ``mro`` names its classes
    (:func:`judge.learner.code.exception_classes`): what :meth:`derives_from` judges by.
    """

    def __init__(self, info: ExceptionInfo) -> None:
        self.type_name: str = info.type_name
        self.message: str = info.message
        self.line: int | None = info.line
        self.traceback: str = info.traceback
        self.memory: bool = info.memory
        self.mro: tuple[str, ...] = info.mro
        self.diagnosis: str | None = None  # set by judge.checks.base.diagnosed around a call that expects trouble
        # Set by the judge when the function had already returned in the case: then even a
        # NotImplementedError (torch's, for a dtype it lacks) says nothing about "not written yet".
        self.written: bool = False
        super().__init__(f"{self.type_name}: {self.message}")

    def derives_from(self, cls: type[BaseException]) -> bool:
        """``isinstance(the learner's exception, cls)``, by the names of its classes: a learner's
        ``class InputError(ValueError)`` derives from ValueError, a class of its own merely named
        ``ValueError`` does not."""
        return qualified_name(cls) in self.mro

    @property
    def not_implemented(self) -> bool:
        """Whether it is a NotImplementedError from a function that has not returned in the case:
        not written yet (a starter's), which is evidence of no mistake."""
        return self.derives_from(NotImplementedError) and not self.written

    def described(self) -> str:
        """The raised type for a message: ``ValueError``; a learner's class with its nearest built-in
        base, ``InputError (a ValueError)``; a class named like a built-in exception that is not one,
        ``ValueError-lookalike (a class of your own named ValueError, derived from Exception, not
        Python's ValueError)``."""
        return describe_raised(self.type_name, self.mro)


NOT_UTF8 = Bilingual(
    "your file is not valid UTF-8 text; save it as UTF-8", "你的文件不是有效的 UTF-8 文本；请以 UTF-8 编码保存"
)


class ProcessFailed(Exception):
    """The learner process died, hung, or broke the protocol; ``verdict`` says which."""

    def __init__(self, verdict: Verdict, message: str) -> None:
        self.verdict = verdict
        self.message = message  # a Bilingual where the engine wrote it in both languages
        super().__init__(message)


class LoadFailed(Exception):
    """The learner's file could not be imported (syntax error, import error, crash at import)."""

    def __init__(self, verdict: Verdict, message: str, line: int | None = None) -> None:
        self.verdict = verdict
        self.line = line
        # The report's message: a Bilingual (the engine's words in English and Chinese around the
        # learner's own exception text, which stays as Python wrote it); str(self) is its English.
        self.message = message
        super().__init__(message)


class SandboxFailure(Exception):
    """The sandbox could not run this job (no free slot, a layer failed, the fork server is gone): IE.

    Our fault, never the learner's, and it ends only this job. ``str(error)`` is safe to show to
    anyone; ``detail`` (which may name the server's paths) is for the operator's log only.
    """

    def __init__(self, public: str, detail: str = "", *, pid: int | None = None) -> None:
        super().__init__(public)
        self.detail = detail
        self.pid = pid  # a process the failed launch left behind, if any


def checked_source(data: bytes) -> str:
    """The learner's source as text; :class:`LoadFailed` (CE) when too large or not UTF-8.

    The one check of what source can be judged, for every level and every front door.
    """
    if len(data) > MAX_SOURCE_BYTES:
        raise LoadFailed(
            Verdict.CE,
            bilingual("your file is larger than {size} kB", "你的文件超过了 {size} kB", size=MAX_SOURCE_BYTES >> 10),
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LoadFailed(Verdict.CE, NOT_UTF8) from None


@dataclass(frozen=True)
class LearnerSource:
    """The learner's code as text, the short name it goes by in tracebacks, and (``local`` only)
    the folder its helper modules sit in, which the child appends to ``sys.path``."""

    text: str
    filename: str = DEFAULT_FILENAME
    import_dir: str | None = None

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> LearnerSource:
        """Read a learner's file; :class:`LoadFailed` (CE) when unreadable, too large or not UTF-8."""
        path = Path(path)
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_SOURCE_BYTES + 1)
        except OSError as exc:
            raise LoadFailed(
                Verdict.CE, bilingual("your file cannot be read ({why})", "无法读取你的文件（{why}）", why=exc.strerror)
            ) from None
        return cls(checked_source(data), path.name, str(path.resolve().parent))

    def load_frame(self) -> dict[str, Any]:
        """The first frame every level's child receives (:class:`LoadFailed` CE for unjudgeable text)."""
        try:
            data = self.text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: not text a file could hold
            raise LoadFailed(Verdict.CE, NOT_UTF8) from None
        return {"op": "load", "source": checked_source(data), "filename": self.filename}


@dataclass(frozen=True)
class DrawSitePush:
    """Which draw site of a call to push to an extreme (:class:`judge.learner.uniform_sources.DrawSites`).

    ``site``: the index of the uniform-drawing call to push, counted from 0, or None to push none
    and only count them; ``high``: push to the upper extreme (the largest float below 1,
    ``high - 1``) rather than the lower (0.0, ``low``); ``seed``: the private stream that picks
    positions within a longer line. The answer says how many draw sites the call made.
    """

    site: int | None = None
    high: bool = False
    seed: int = 0


@dataclass(frozen=True)
class CallOptions:
    """How to run one call: feed extreme uniforms (seeded), or count its draw sites and push one
    (``draw_sites``; the two exclude each other), or seed torch's default generator first, or
    report whether the call changed the state of torch's default generator (``watch_global_rng``:
    the CPU one, and the CUDA one of the run's device on a CUDA run)."""

    extreme_uniforms: int | None = None
    global_seed: int | None = None
    draw_sites: DrawSitePush | None = None
    watch_global_rng: bool = False


@dataclass(frozen=True)
class CallResult:
    """What one call of the learner's function gave: its value, its time, the names of the
    tensor arguments it changed in place (which every exercise forbids) and, when asked, how many
    draw sites it made and whether it changed the state of torch's default generator.

    Unpacks as ``value, elapsed_ms`` for callers that need only those two.
    """

    value: Any
    elapsed_ms: float = 0.0
    modified: tuple[str, ...] = ()
    draw_sites: int | None = None  # with CallOptions.draw_sites: the draw sites the call made, as its side says
    # Whether the call changed the state of torch's default generator, as the learner's side says
    # (None: not asked, ``CallOptions.watch_global_rng``).
    global_rng_changed: bool | None = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.value, self.elapsed_ms))


@dataclass(frozen=True)
class CallTiming:
    """Running totals over the calls a learner answered (a value or its own exception), for reports
    and benchmarks only: never for a verdict (part of it is the learner's own word).

    ``wall_s`` is the judge's time from starting to encode each request to having decoded its
    answer; ``learner_s`` the time the learner's side reports inside the learner's functions (until
    they returned or raised), each call's report clamped to ``[0, that call's wall]``;
    ``bytes_sent`` and ``bytes_received`` what crossed the pipes, frames whole. :attr:`transfer_s`
    is the rest: encoding, the pipes, decoding, and the checks around each call on the learner's
    side.
    """

    calls: int = 0
    wall_s: float = 0.0
    learner_s: float = 0.0
    bytes_sent: int = 0
    bytes_received: int = 0

    @property
    def transfer_s(self) -> float:
        """``wall_s - learner_s``: what the calls cost beyond the learner's functions."""
        return self.wall_s - self.learner_s

    def __add__(self, other: CallTiming) -> CallTiming:
        return CallTiming(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def __sub__(self, other: CallTiming) -> CallTiming:
        return CallTiming(*(a - b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def add(
        self, wall_s: float, reported_ms: float, bytes_sent: int, bytes_received: int, *, calls: int = 1
    ) -> CallTiming:
        """These totals with one more round trip that answered ``calls`` calls: its wall, the time
        its learner's side reported (clamped)."""
        wall_s = max(0.0, wall_s)
        learner_s = min(max(reported_ms / 1000.0, 0.0), wall_s) if math.isfinite(reported_ms) else 0.0
        return CallTiming(
            self.calls + calls,
            self.wall_s + wall_s,
            self.learner_s + learner_s,
            self.bytes_sent + bytes_sent,
            self.bytes_received + bytes_received,
        )


@runtime_checkable
class Learner(Protocol):
    """The learner's code, loaded and ready for calls: what the runner and the tests drive.

    ``functions`` (and any other first use) raises :class:`LoadFailed`, :class:`ProcessFailed` or
    :class:`SandboxFailure` when the code could not be loaded; ``call`` raises
    :class:`LearnerRaised` when the learner's function raised and :class:`ProcessFailed` when the
    process died, hung or broke the protocol. ``cpu_time_s`` and ``ended`` are optional: an
    in-process learner has no CPU clock of its own and never ends by itself (the runner reads
    them with ``getattr``). ``isinstance(x, Learner)`` reads every member, so ask it of a learner
    that has loaded (on one that has not, reading ``functions`` raises why).
    """

    @property
    def functions(self) -> dict[str, FunctionInfo]:
        """Name -> signature of every public callable the learner's code defines."""

    @property
    def torch_version(self) -> str:
        """The version of torch the learner's code runs against."""

    @property
    def alive(self) -> bool:
        """Whether it can take another call."""

    @property
    def sandbox(self) -> str:
        """The isolation level it runs under (``local``, ``strict`` or ``browser``)."""

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
        """Call ``function(*args, **kwargs)``; ``cpu_deadline_s``/``cpu_limit_s`` count where the learner
        has a CPU clock (an in-process learner has none and ignores them)."""

    def output_tail(self) -> str:
        """The last few kB of what the learner's code printed (readable after ``close``)."""

    def close(self) -> None:
        """Release whatever runs the learner's code (idempotent)."""


def describe_raised(type_name: str, mro: tuple[str, ...]) -> str:
    """See :meth:`LearnerRaised.described` (``type_name``: the class's name; ``mro``: its classes)."""
    if not mro or mro[0].startswith("builtins."):
        return type_name
    base = next((name.removeprefix("builtins.") for name in mro[1:] if name.startswith("builtins.")), None)
    if base is None:
        return type_name
    if isinstance(getattr(builtins, type_name, None), type) and issubclass(getattr(builtins, type_name), BaseException):
        return (
            f"{type_name}-lookalike (a class of your own named {type_name}, derived from {base}, "
            f"not Python's {type_name})"
        )
    article = "an" if base[:1] in "AEIOU" else "a"
    return f"{type_name} ({article} {base})"


def load_failure(info: ExceptionInfo) -> LoadFailed:
    """The :class:`LoadFailed` (CE, MLE or RE) for a validated ``load_error`` from the learner's side."""
    line = info.line
    where = bilingual(" (line {line})", "（第 {line} 行）", line=line) if line else Bilingual("", "")
    # The learner's traceback as Python wrote it; only the judge's header line is translated.
    english = info.traceback.strip()
    trace = Bilingual(english, english.replace(TRACEBACK_HEADER, TRACEBACK_HEADER_ZH, 1))
    if "builtins.UnicodeDecodeError" in info.mro:
        return LoadFailed(Verdict.CE, NOT_UTF8)
    if "builtins.SyntaxError" in info.mro:  # IndentationError and TabError too
        return LoadFailed(
            Verdict.CE,
            bilingual("syntax error{where}:\n{trace}", "语法错误{where}：\n{trace}", where=where, trace=trace),
            line,
        )
    if "builtins.ImportError" in info.mro:  # ModuleNotFoundError too
        return LoadFailed(
            Verdict.CE,
            bilingual(
                "import error{where}: {error}\n{trace}",
                "导入错误{where}：{error}\n{trace}",
                where=where,
                error=info.message,
                trace=trace,
            ),
            line,
        )
    if info.memory:
        return LoadFailed(
            Verdict.MLE,
            bilingual(
                "out of memory while importing your file{where}:\n{trace}",
                "导入你的文件时内存不足{where}：\n{trace}",
                where=where,
                trace=trace,
            ),
            line,
        )
    return LoadFailed(
        Verdict.RE,
        bilingual(
            "your file raised while being imported{where}:\n{trace}",
            "导入你的文件时抛出了异常{where}：\n{trace}",
            where=where,
            trace=trace,
        ),
        line,
    )
