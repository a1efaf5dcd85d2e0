"""What runs next to the learner's code, at every level: load it, describe it, watch its calls.

Shared by the ``local`` and ``strict`` levels' child (:mod:`judge.sandbox.child`) and the
browser's in-process learner (:mod:`judge.browser.learner`). It lives on the learner's side,
not under :mod:`judge.sandbox`, because the browser bundle ships the learner's side and never the
sandbox (:mod:`judge.browser.subset` says which modules): this module holds nothing of the
server's sandbox (no process, no confinement), only what must behave the same wherever the
learner's code runs.

Nothing here is trusted by the judge: what it produces crosses a pipe and is validated by
:mod:`judge.learner.protocol` first (the browser has nothing to protect).
"""

from __future__ import annotations

import builtins
import errno
import linecache
import os
import sys
import traceback
from collections import OrderedDict
from typing import Any, NamedTuple

# The phases that patch torch's uniform sources live in their own module; kept importable from here.
from judge.learner.uniform_sources import DrawSites as DrawSites
from judge.learner.uniform_sources import ExtremeUniforms as ExtremeUniforms

OUTPUT_FILE_LIMIT = 16 << 20  # any one file the learner's code writes (RLIMIT_FSIZE)
MEMORY_MARKERS = ("can't allocate memory", "DefaultCPUAllocator", "out of memory", "CUDA out of memory")
MAX_CLASSES = 32  # classes an exception's description names (see exception_classes)
MAX_OWN_CLASSES = 16  # of which, classes that are not Python's built-in exceptions
MAX_CLASS_NAME = 256

# Python's own exception classes, by identity, taken when this module is imported, before any
# learner code runs: a learner may rebind ``builtins.ValueError`` or name a class of its own
# ``ValueError`` in module ``builtins``, never make its class one of these objects.
_BUILTIN_EXCEPTIONS = {
    id(value): (value, name)
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}
# Read from the type itself, past any metaclass: a learner's metaclass may give its classes a
# ``__name__``, ``__module__`` or ``__mro__`` of its own (a property that raises, say).
_TYPE_NAME = type.__dict__["__name__"]
_TYPE_QUALNAME = type.__dict__["__qualname__"]
_TYPE_MODULE = type.__dict__["__module__"]
_TYPE_MRO = type.__dict__["__mro__"]
_TRACEBACK = BaseException.__dict__["__traceback__"]


def qualified_name(cls: type) -> str:
    """How an exception class is named on the wire: ``module.qualname`` (``builtins.ValueError``,
    ``submission.InputError``). The judge names the class a check expects this way, and
    :func:`exception_classes` the classes of what the learner raised."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _text_of(value: Any) -> str | None:
    """``value`` as a plain ``str`` when it is a string (a subclass's own methods are never called)."""
    return str.__str__(value) if issubclass(type(value), str) else None


def class_name(cls: type) -> str:
    """``cls.__name__`` as the type holds it (never a metaclass's), or ``"?"``."""
    try:
        return _text_of(_TYPE_NAME.__get__(cls)) or "?"
    except BaseException:  # noqa: BLE001 - a learner's class, whatever it does
        return "?"


def _class_entry(cls: type) -> tuple[str, bool]:
    """One class of an exception's MRO on the wire, and whether it is one of Python's own exceptions.

    A class of the learner's that claims module ``builtins`` is named ``~builtins.X``: only the
    class objects :data:`_BUILTIN_EXCEPTIONS` holds are ``builtins.X``.
    """
    known = _BUILTIN_EXCEPTIONS.get(id(cls))
    if known is not None and known[0] is cls:
        return f"builtins.{known[1]}", True
    try:
        module = _text_of(_TYPE_MODULE.__get__(cls)) or "?"
        qualname = _text_of(_TYPE_QUALNAME.__get__(cls)) or class_name(cls)
    except BaseException:  # noqa: BLE001 - a learner's class, whatever it does
        module, qualname = "?", class_name(cls)
    if module == "builtins":
        module = "~builtins"
    return _sendable(f"{module}.{qualname}")[:MAX_CLASS_NAME], False


def exception_classes(cls: type) -> list[str]:
    """The classes of ``cls.__mro__`` (``object`` left out) by :func:`qualified_name`, in order:
    what the judge compares a check's expected exception with (``isinstance`` by name, see
    :meth:`judge.learner.interface.LearnerRaised.derives_from`).

    Bounded: at most :data:`MAX_CLASSES` names of at most :data:`MAX_CLASS_NAME` characters, and
    of the classes that are not Python's own exceptions only the first :data:`MAX_OWN_CLASSES`
    (so a deep hierarchy of the learner's never pushes ``builtins.ValueError`` out). The MRO is
    read from the type itself (a metaclass's ``__mro__`` is not asked); never raises.
    """
    try:
        mro = _TYPE_MRO.__get__(cls)
    except BaseException:  # noqa: BLE001 - not a class the type machinery knows: name it alone
        mro = (cls,)
    names: list[str] = []
    own = 0
    for base in mro:
        if base is object:
            continue
        name, builtin = _class_entry(base)
        if not builtin:
            own += 1
            if own > MAX_OWN_CLASSES and names:
                continue
        names.append(name)
        if len(names) == MAX_CLASSES:
            break
    return names


def _derives(exc: BaseException, cls: type[BaseException]) -> bool:
    """``isinstance(exc, cls)`` by the exception's real type (``isinstance`` would ask a
    ``__class__`` property of the learner's, which may raise)."""
    return issubclass(type(exc), cls)


def _traceback_of(exc: BaseException) -> Any:
    """``exc.__traceback__`` as BaseException holds it (a subclass's property is not asked)."""
    try:
        return _TRACEBACK.__get__(exc)
    except BaseException:  # noqa: BLE001 - cannot happen for a real exception; never raise here
        return None


def learner_frames(exc: BaseException, learner_path: str) -> traceback.StackSummary:
    """The frames of ``exc``'s traceback that run the learner's file (never the judge's), oldest first.

    What ``traceback.extract_tb`` gives for them (file, line number, function, source line),
    built directly: ``StackSummary.extract`` would also work out every frame's column positions
    and look the file up in :mod:`linecache` twice more per frame, which cost most of a raising
    call's bookkeeping. The source line comes from :mod:`linecache` as there (the learner's
    source is registered by :func:`load_learner_module`; where the learner's code removed it,
    both end up at the same lookup by file name).
    """
    frames = traceback.StackSummary()
    tb = _traceback_of(exc)
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == learner_path:
            lineno = tb.tb_lineno
            line = linecache.getline(learner_path, lineno) if lineno is not None else None
            frames.append(traceback.FrameSummary(learner_path, lineno, code.co_name, lookup_line=False, line=line))
        tb = tb.tb_next
    return frames


# The first line of a learner's traceback (Python's own, saying whose frames it keeps), and how a
# report's Chinese message says it (judge.learner.interface.load_failure): the frames below stay as they are.
TRACEBACK_HEADER = "Traceback (your code, most recent call last):"
TRACEBACK_HEADER_ZH = "回溯（你的代码，最近的调用在最后）："


def learner_traceback(exc: BaseException, learner_path: str, frames: traceback.StackSummary | None = None) -> str:
    """Format ``exc`` keeping only frames from the learner's file (never the judge's); ``frames``
    is :func:`learner_frames`' answer where the caller has it already."""
    if frames is None:
        frames = learner_frames(exc, learner_path)
    lines = []
    if frames:
        lines.append(f"{TRACEBACK_HEADER}\n")
        name = os.path.basename(learner_path)
        for frame in frames:
            lines.append(f'  File "{name}", line {frame.lineno}, in {frame.name}\n')
            if frame.line:
                lines.append(f"    {frame.line.strip()}\n")
    lines.extend(exception_lines(exc))
    return "".join(lines)


def exception_lines(exc: BaseException) -> list[str]:
    """The last lines of ``exc``'s traceback (``ValueError: message``, a SyntaxError's caret,
    notes), as ``traceback.format_exception_only`` writes them: this runs the learner's
    ``__str__`` and ``__notes__`` again (a description calls ``__str__`` once for its message, once
    here). A refusals batch that describes a call without its traceback runs it too, so the
    learner's code runs as often as in the same calls one at a time (see judge.sandbox.child)."""
    return traceback.format_exception_only(type(exc), exc)


def _sendable(text: str) -> str:
    """``text`` with anything that is not valid Unicode (lone surrogates) escaped, so it can be sent."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class ExceptionSummary(NamedTuple):
    """What :func:`describe_exception` works out of an exception before it formats a traceback."""

    message: str  # ``str(exc)`` whole (a file too large reworded), or what says it cannot be shown
    line: Any  # the learner's line it was raised at: a frame's, or a SyntaxError's ``lineno`` as set


def summarize_exception(exc: BaseException, learner_path: str) -> ExceptionSummary:
    """The message and line of ``exc``, worked out once: its ``__str__`` is called here, and a
    SyntaxError in the learner's file is renamed to the file's short name first (so pass the
    summary on to :func:`describe_exception` rather than summarizing ``exc`` again). Never raises,
    whatever the exception's class does (its ``__str__``, its attributes, its metaclass)."""
    try:
        return _summary(exc, learner_path)
    except BaseException:  # noqa: BLE001 - a learner's exception, whatever its attributes do
        return ExceptionSummary(f"<{class_name(type(exc))} whose message cannot be shown>", None)


def _summary(exc: BaseException, learner_path: str) -> ExceptionSummary:
    syntax = _derives(exc, SyntaxError)
    syntax_line = exc.lineno if syntax and exc.filename == learner_path else None  # type: ignore[attr-defined]
    if syntax_line is not None and syntax:
        exc.filename = os.path.basename(learner_path)  # type: ignore[attr-defined]  # where the file lives is nobody's business
    try:
        message = _text_of(str(exc)) or ""
    except BaseException:  # noqa: BLE001 - a learner's __str__ may raise anything
        message = f"<{class_name(type(exc))} whose message cannot be shown>"
    if _derives(exc, OSError) and exc.errno == errno.EFBIG:  # type: ignore[attr-defined]
        message = f"your code wrote a file larger than {OUTPUT_FILE_LIMIT >> 20} MB ({message})"
    if syntax_line is not None:
        return ExceptionSummary(message, syntax_line)
    line = None
    tb = _traceback_of(exc)
    while tb is not None:  # the last of learner_frames' line numbers, without their source lines
        if tb.tb_frame.f_code.co_filename == learner_path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return ExceptionSummary(message, line)


def describe_exception(
    exc: BaseException, learner_path: str, summary: ExceptionSummary | None = None, *, with_traceback: bool = True
) -> dict:
    """The ``{"type", "message", "line", "traceback", "memory", "mro"}`` description the judge accepts.

    ``type``: the class's own name; ``mro``: its classes, :func:`exception_classes`.
    ``summary``: :func:`summarize_exception`'s of ``exc``, where the caller has it already.
    Without ``with_traceback``, ``"traceback"`` is empty and none is formatted (the rest is the
    same): for a caller that sends no more than the type and the message's start. Never raises.
    """
    if summary is None:
        summary = summarize_exception(exc, learner_path)
    message = summary.message
    name = class_name(type(exc))
    trace = ""
    if with_traceback:
        try:
            trace = learner_traceback(exc, learner_path, learner_frames(exc, learner_path))
        except BaseException:  # noqa: BLE001 - formatting calls the learner's __str__ again
            trace = f"{name}: {message}\n"
    return {
        "type": _sendable(name)[:MAX_CLASS_NAME],
        "message": _sendable(message[:4000]),
        "line": summary.line if isinstance(summary.line, int) else None,
        "traceback": _sendable(trace[-8000:]),
        "memory": _derives(exc, MemoryError) or any(m in message for m in MEMORY_MARKERS),
        "mro": exception_classes(type(exc)),
    }


def load_learner_module(source: str, filename: str):
    """Execute the learner's source as module ``submission``; exceptions propagate.

    ``filename`` names it in tracebacks (only frames with this name are shown to the learner,
    by its last path component). The source is registered with :mod:`linecache` under that
    name, so a traceback quotes the learner's lines even where no file holds them.
    """
    import types

    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    code = compile(source, filename, "exec")
    module = types.ModuleType("submission")
    module.__file__ = filename
    sys.modules["submission"] = module
    exec(code, module.__dict__)
    return module


def describe_functions(module) -> dict:
    """Name -> parameter list of every public callable, for the parent's signature check. A value
    whose signature cannot be read (a class whose metaclass raises on every attribute, say) is
    left out, as one without a signature is: the parent then says the function is missing."""
    import inspect

    functions = {}
    for name, value in vars(module).items():
        if not issubclass(type(name), str) or name.startswith("_") or not callable(value):
            continue
        try:
            signature = inspect.signature(value)
            functions[name] = {
                "params": [
                    {"name": p.name, "kind": p.kind.name, "has_default": p.default is not inspect.Parameter.empty}
                    for p in signature.parameters.values()
                ],
                "signature": _sendable(f"{name}{signature}")[:2000],
            }
        except BaseException:  # noqa: BLE001 - the learner's object, whatever inspecting it runs
            continue
    return functions


# Generators one learner process keeps by key; judge.checks.testing.Context lets a case use no more.
KEPT_GENERATORS = 64


class LearnerGenerators:
    """The ``torch.Generator`` objects the learner's functions receive, made from the judge's
    :class:`judge.learner.wire.GeneratorSpec` on ``device`` (``torch.Generator(device=device)``).

    A spec without a key gives a new generator seeded with its seed at every call (what
    ``ctx.generator()`` promises). A kept spec (``ctx.kept_generator()``) gives such a generator at
    the first call it is passed to and the very same object at every later one, whatever the calls
    in between did with it: two calls draw from one stream. A generator is kept by its key and
    seed; at most :data:`KEPT_GENERATORS` are, the first made forgotten first. The judge never uses
    a key twice and lets a case use at most that many, so no case finds one of its own forgotten,
    nor one another case had (whatever the learner's code did with it there).
    """

    def __init__(self, torch, device: str) -> None:
        self.torch, self.device = torch, device
        self.kept: OrderedDict[tuple[int, int], Any] = OrderedDict()

    def make(self, spec) -> Any:
        """The generator for ``spec`` (a :class:`judge.learner.wire.GeneratorSpec`)."""
        if spec.kept is None:
            return self.torch.Generator(device=self.device).manual_seed(spec.seed)
        key = (spec.kept, spec.seed)
        generator = self.kept.get(key)
        if generator is None:
            generator = self.kept[key] = self.torch.Generator(device=self.device).manual_seed(spec.seed)
            while len(self.kept) > KEPT_GENERATORS:
                self.kept.popitem(last=False)
        return generator


class DefaultGeneratorWatch:
    """Whether a call changed the state of torch's default generators: the CPU one, and on a CUDA
    run (``device`` ``cuda`` or ``cuda:N``) that device's.

    Made before the learner's code is loaded, so it holds torch's own CPU generator object (code
    that rebinds ``torch.default_generator`` changes nothing here); the CUDA one is found when first
    needed, as ``torch.cuda.get_rng_state`` finds it. :meth:`snapshot` before the call,
    :meth:`changed` after it: a few microseconds (the CPU state is ~5 kB), so only the calls
    that ask pay for it. What it says is the learner's side's word: code that forged it could only
    claim what saving and restoring the state itself would make true.
    """

    def __init__(self, torch, device: str) -> None:
        self.torch, self.device = torch, device
        self.cpu, self._equal = torch.default_generator, torch.equal  # torch's own, before the learner's code
        self._cuda: Any = None

    def _generators(self) -> list:
        if not self.device.startswith("cuda"):
            return [self.cpu]
        if self._cuda is None:
            cuda = self.torch.cuda
            cuda.init()
            index = self.torch.device(self.device).index
            self._cuda = cuda.default_generators[cuda.current_device() if index is None else index]
        return [self.cpu, self._cuda]

    def snapshot(self) -> list:
        """The states of the default generators now."""
        return [generator.get_state() for generator in self._generators()]

    def changed(self, before: list) -> bool:
        """Whether any state differs from ``before`` (a :meth:`snapshot`) now."""
        after = self.snapshot()
        return any(not self._equal(old, new) for old, new in zip(before, after, strict=True))


class LearnerRandomness(NamedTuple):
    """What the learner's side keeps of torch's randomness for the judge, made before the learner's
    code is loaded: the generators it hands out and the watch on the default ones."""

    generators: LearnerGenerators
    watch: DefaultGeneratorWatch

    @classmethod
    def on(cls, torch, device: str) -> LearnerRandomness:
        return cls(LearnerGenerators(torch, device), DefaultGeneratorWatch(torch, device))


def tensor_inputs(function, args: list, kwargs: dict, torch) -> dict:
    """Parameter name -> each tensor argument of the call (positional ones named by the signature)."""
    names = _parameter_names(function) if any(isinstance(value, torch.Tensor) for value in args) else []
    found = {}
    for index, value in enumerate(args):
        if isinstance(value, torch.Tensor):
            found[names[index] if index < len(names) else f"argument {index + 1}"] = value
    for name, value in kwargs.items():
        if isinstance(value, torch.Tensor):
            found[str(name)] = value
    return found


_NAMES: dict[int, tuple[Any, Any, list[str]]] = {}  # id -> (the callable, its __code__, its parameters)
_NAMES_KEPT = 64


def _parameter_names(function) -> list[str]:
    """The names of ``function``'s parameters, in order ([] when it has no signature).

    ``inspect.signature`` costs about 70 us a call and the same few functions are called again and
    again: the names are kept per callable, and worked out again when its code object changes.
    (Only how a changed argument is named depends on them, never whether it is found changed.)
    """
    import inspect

    code = getattr(function, "__code__", None)
    kept = _NAMES.get(id(function))
    if kept is not None and kept[0] is function and kept[1] is code:
        return kept[2]
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        names = []
    if len(_NAMES) >= _NAMES_KEPT:
        _NAMES.clear()
    _NAMES[id(function)] = (function, code, names)  # the callable is kept: its id cannot be reused meanwhile
    return names


def same_tensor(before, after) -> bool:
    """Whether ``after`` still holds what ``before`` copied (NaN equal to NaN; shape and dtype too)."""
    if before.shape != after.shape or before.dtype != after.dtype or before.device != after.device:
        return False
    if before.is_floating_point():
        nan = before.isnan()
        # No boolean indexing: the browser's torch subset has none for a 0-d tensor (a temperature).
        return bool((nan == after.isnan()).all()) and bool(((before == after) | nan).all())
    return bool((before == after).all())
