"""What the learner's process may say, checked field by field before the judge uses any of it.

Everything that arrives on the learner's result pipe is hostile: a submission can write its own
frames there. :func:`first_message` and :func:`reply` accept exactly the messages that
:mod:`judge.sandbox.child` sends, with every field of the right type and size, and turn them into
records; anything else raises :class:`~judge.learner.wire.WireError`, which the judge reports as RE
(the learner's fault), never IE. There is no message a learner can send to claim a sandbox
error: only the fork server's own control channel reports those.

Messages (the header of one :mod:`judge.learner.wire` frame; ``tensors`` describes its payloads):
  first:  ``{"ready": {"functions": {name: {"params": [...], "signature"}}, "torch"}}``
          or ``{"load_error": EXCEPTION}``
  reply:  ``{"ok": true, "value", "elapsed_ms", "modified"[, "draw_sites"]}`` or ``{"raised": EXCEPTION,
          "elapsed_ms"}`` (``elapsed_ms``: the time the learner's side says the function ran, for
          reports only; ``draw_sites``: how many draw sites the call made, when the request asked);
          a call that asked to watch torch's default generator (``watch_global_rng``) is answered
          ``{"ok": true, ..., "global_rng_changed": true | false}``, and only such a call
  refusals reply (to a batch of calls expected to raise): ``{"refused": [EXCEPTION...],
          "refused_ms": [...]}``, with the fields of one reply added when a call was not refused
          (the batch stopped there)
  callback (only while a call that was given host functions runs, :mod:`judge.learner.hosts`):
          ``{"callback": {"host": KEY, "args": [...], "kwargs": {...}}}``, KEY one of that call's
          host functions; the judge answers it and goes on waiting for the call's reply
  EXCEPTION = ``{"type", "message", "line", "traceback", "memory", "mro"}`` (``mro``: the names of the
          exception's classes, :func:`judge.learner.code.exception_classes`)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.learner import wire
from judge.learner.hosts import HostFunction
from judge.learner.wire import WireError

PARAMETER_KINDS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")
MAX_FUNCTIONS = 5000
MAX_PARAMETERS = 256
MAX_NAME = 256
MAX_SIGNATURE = 2000
MAX_MESSAGE = 4000
MAX_TRACEBACK = 8000
# A refusals reply holds, for each call refused, only what the judge checks of it (its type and
# that its message says something): the message's first REFUSAL_MESSAGE characters, no traceback.
# That keeps each one within REFUSAL_BYTES of the reply's header, whatever the learner raised, so
# a batch's reply fits where the replies of the same calls one at a time each fit: the judge
# reads it with that much room per call on top of one reply's.
REFUSAL_MESSAGE = 32
REFUSAL_BYTES = 2048
# An exception's classes: at most this many names (judge.learner.code.exception_classes), each at
# most MAX_NAME characters. A refusal keeps of them only those the request accepts (the judge's
# own names), so it holds at most REFUSAL_BYTES plus what the request's accepted names take.
MAX_CLASSES = 32


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # one of PARAMETER_KINDS (inspect.Parameter.kind names)
    has_default: bool


@dataclass(frozen=True)
class FunctionInfo:
    """A public callable of the learner's module, as ``inspect.signature`` saw it."""

    name: str
    params: tuple[Parameter, ...]
    signature: str


@dataclass(frozen=True)
class ExceptionInfo:
    """An exception raised by the learner's code, described by its own process."""

    type_name: str
    message: str
    line: int | None
    traceback: str
    memory: bool  # a MemoryError or an allocator's out-of-memory message
    # The exception's classes, itself first (``builtins.ValueError``, ``submission.InputError``): what
    # ``isinstance`` is judged by (judge.learner.interface.LearnerRaised.derives_from).
    mro: tuple[str, ...] = ()


MAX_MODIFIED = 64  # argument names an answer may list as changed in place
MAX_DRAW_SITES = 1 << 31  # an answer's count of draw sites is below this (the judge pushes at most a few)


@dataclass(frozen=True)
class Ready:
    functions: Mapping[str, FunctionInfo]
    torch_version: str


@dataclass(frozen=True)
class LoadError:
    error: ExceptionInfo


@dataclass(frozen=True)
class Returned:
    value: Any  # the JSON form; decode it with judge.learner.wire.decode_values
    elapsed_ms: float
    modified: tuple[str, ...] = ()  # the tensor arguments the call changed in place, by parameter name
    draw_sites: int | None = None  # how many uniform-drawing calls it made, when asked (the learner's word)
    global_rng_changed: bool | None = None  # None: the call did not ask (watch_global_rng)


@dataclass(frozen=True)
class Raised:
    error: ExceptionInfo
    elapsed_ms: float = 0.0  # until the function raised, as the learner's side says


def first_message(header: dict[str, Any]) -> Ready | LoadError:
    """The learner process's first message: its file loaded (``Ready``) or did not (``LoadError``)."""
    kind = _only_key(header, ("ready", "load_error"))
    if kind == "load_error":
        return LoadError(exception_info(header["load_error"]))
    ready = _object(header["ready"], "ready", ("functions", "torch"))
    return Ready(functions=functions_info(ready["functions"]), torch_version=_text(ready["torch"], "torch", 64))


def reply(header: dict[str, Any], *, watched: bool = False) -> Returned | Raised:
    """The answer to one call: a value (still in JSON form) or the learner's exception.

    ``watched``: the call asked whether it changed torch's default generator, so a value must
    say it (``global_rng_changed``, a bool), where any other answer must not.
    """
    kind = _only_key(
        header, ("ok", "raised"), extra=("value", "elapsed_ms", "modified", "draw_sites", "global_rng_changed")
    )
    elapsed = _elapsed_ms(header)
    if kind == "raised":
        if "value" in header or "modified" in header or "draw_sites" in header or "global_rng_changed" in header:
            raise WireError("an answer cannot both raise and return")
        return Raised(exception_info(header["raised"]), elapsed)
    if header["ok"] is not True:
        raise WireError("'ok' must be true")
    modified = header.get("modified", [])
    if not isinstance(modified, list) or len(modified) > MAX_MODIFIED:
        raise WireError(f"'modified' must be a list of at most {MAX_MODIFIED} argument names")
    names = tuple(_text(name, "a modified argument's name", 100, truncate=True) for name in modified)
    sites = header.get("draw_sites")
    if sites is not None and (isinstance(sites, bool) or not isinstance(sites, int) or not 0 <= sites < MAX_DRAW_SITES):
        raise WireError(f"'draw_sites' must be a whole number in [0, {MAX_DRAW_SITES})")
    changed = header.get("global_rng_changed")
    if watched and not isinstance(changed, bool):
        raise WireError("'global_rng_changed' must be true or false")
    if not watched and "global_rng_changed" in header:
        raise WireError("unexpected field 'global_rng_changed': the call did not ask for it")
    return Returned(
        value=header.get("value"), elapsed_ms=elapsed, modified=names, draw_sites=sites, global_rng_changed=changed
    )


@dataclass(frozen=True)
class Refusals:
    """The answer to a batch of calls expected to raise (``op: refusals``), in the batch's order.

    ``refused``: what the first calls raised, each one an exception of an accepted type with a
    message (as the learner's side saw it; the judge checks each again); ``refused_ms``: their
    times, as the learner's side says. ``stopped``: the reply to the first call that was not
    refused (it returned, or raised something else), after which no call ran; None when every
    call was refused.
    """

    refused: tuple[ExceptionInfo, ...]
    refused_ms: tuple[float, ...]
    stopped: Returned | Raised | None


def refusals_reply(header: dict[str, Any], calls: int) -> Refusals:
    """The answer to a batch of ``calls`` calls expected to raise (see :class:`Refusals`).

    Every call is accounted for: as many refusals as calls, or fewer and then one reply for the
    call that stopped the batch. Anything else raises :class:`~judge.learner.wire.WireError`.
    """
    refused, refused_ms = header.get("refused"), header.get("refused_ms")
    if not isinstance(refused, list) or not isinstance(refused_ms, list) or len(refused) != len(refused_ms):
        raise WireError("'refused' and 'refused_ms' must be lists of the same length")
    if len(refused) > calls:
        raise WireError(f"{len(refused)} refusals for a batch of {calls} calls")
    infos = tuple(exception_info(info) for info in refused)
    times = tuple(_elapsed_ms({"elapsed_ms": elapsed}) for elapsed in refused_ms)
    rest = {key: value for key, value in header.items() if key not in ("refused", "refused_ms")}
    if len(refused) == calls:
        unexpected = set(rest) - {"tensors"}
        if unexpected:
            raise WireError(f"unexpected field {sorted(unexpected)[0][:40]!r} after every call was refused")
        return Refusals(infos, times, None)
    return Refusals(infos, times, reply(rest))


def _elapsed_ms(header: dict[str, Any]) -> float:
    """An answer's ``elapsed_ms`` (0.0 when absent): a finite, non-negative number, or WireError."""
    elapsed = header.get("elapsed_ms", 0.0)
    if not isinstance(elapsed, (int, float)) or isinstance(elapsed, bool) or not math.isfinite(elapsed) or elapsed < 0:
        raise WireError("'elapsed_ms' must be a finite, non-negative number")
    return float(elapsed)


def functions_info(functions: Any) -> dict[str, FunctionInfo]:
    """Validate ``describe_functions``'s output (name -> params and signature)."""
    if not isinstance(functions, dict):
        raise WireError("'functions' must be an object")
    if len(functions) > MAX_FUNCTIONS:
        raise WireError(f"more than {MAX_FUNCTIONS} functions")
    described = {}
    for name, entry in functions.items():
        _text(name, "function name", MAX_NAME)
        entry = _object(entry, f"function {name[:40]!r}", ("params", "signature"))
        params = entry["params"]
        if not isinstance(params, list) or len(params) > MAX_PARAMETERS:
            raise WireError(f"the parameters of {name[:40]!r} must be a list of at most {MAX_PARAMETERS}")
        described[name] = FunctionInfo(
            name,
            tuple(_parameter(p) for p in params),
            _text(entry["signature"], "signature", MAX_SIGNATURE, truncate=True),
        )
    return described


def exception_info(info: Any) -> ExceptionInfo:
    """Validate ``describe_exception``'s output; long texts are cut, not refused."""
    info = _object(info, "exception", ("type", "message", "line", "traceback", "memory", "mro"))
    line = info["line"]
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or not 0 <= line < 1 << 31):
        raise WireError("'line' must be a line number or null")
    if not isinstance(info["memory"], bool):
        raise WireError("'memory' must be true or false")
    return ExceptionInfo(
        type_name=_text(info["type"], "exception type", MAX_NAME, truncate=True),
        message=_text(info["message"], "message", MAX_MESSAGE, truncate=True),
        line=line,
        traceback=_text(info["traceback"], "traceback", MAX_TRACEBACK, truncate=True, tail=True),
        memory=info["memory"],
        mro=_classes(info["mro"]),
    )


def _classes(value: Any) -> tuple[str, ...]:
    """An exception's ``mro``: a list of at most :data:`MAX_CLASSES` names, each a string of at
    most ``MAX_NAME`` characters; anything else raises WireError."""
    if not isinstance(value, list) or len(value) > MAX_CLASSES:
        raise WireError(f"'mro' must be a list of at most {MAX_CLASSES} class names")
    return tuple(_text(name, "a class name", MAX_NAME) for name in value)


def refusal_room(accept: list[str]) -> int:
    """The bytes one refusal may take in a refusals reply's header, for a request accepting ``accept``
    (class names): :data:`REFUSAL_BYTES`, and the accepted names it may repeat (JSON-escaped)."""
    return REFUSAL_BYTES + sum(6 * len(name) + 3 for name in accept)


def _parameter(value: Any) -> Parameter:
    value = _object(value, "parameter", ("name", "kind", "has_default"))
    if value["kind"] not in PARAMETER_KINDS:
        raise WireError(f"unknown parameter kind {str(value['kind'])[:40]!r}")
    if not isinstance(value["has_default"], bool):
        raise WireError("'has_default' must be true or false")
    return Parameter(_text(value["name"], "parameter name", MAX_NAME), value["kind"], value["has_default"])


def _only_key(header: dict[str, Any], choices: tuple[str, ...], extra: tuple[str, ...] = ()) -> str:
    present = [key for key in choices if key in header]
    if len(present) != 1:
        raise WireError(f"expected exactly one of {', '.join(choices)}")
    unexpected = set(header) - {present[0], "tensors", *extra}
    if unexpected:
        raise WireError(f"unexpected field {sorted(unexpected)[0][:40]!r}")
    return present[0]


def _object(value: Any, what: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict) or set(value) != set(keys):
        raise WireError(f"{what} must be an object with exactly {', '.join(keys)}")
    return value


def _text(value: Any, what: str, limit: int, *, truncate: bool = False, tail: bool = False) -> str:
    if not isinstance(value, str):
        raise WireError(f"{what} must be a string")
    if len(value) > limit:
        if not truncate:
            raise WireError(f"{what} is longer than {limit} characters")
        return value[-limit:] if tail else value[:limit]
    return value


MAX_CALLBACK_ARGUMENTS = 16  # positional and keyword arguments of one callback, each


@dataclass(frozen=True)
class Callback:
    """A call of a host function from the learner's side: its key, and its arguments in JSON form
    (decode them with :func:`judge.learner.wire.decode_answer`: every tensor of the frame is one of them)."""

    host: int
    args: list[Any]
    kwargs: dict[str, Any]
    nbytes: int  # the bytes of the frame's tensors, as its header declares them (the wire checked them)


def is_callback(header: dict[str, Any]) -> bool:
    """Whether a frame from the learner's side asks for a host function (validate it with :func:`callback`)."""
    return "callback" in header


def callback(header: dict[str, Any], hosts: Mapping[int, Any]) -> Callback:
    """A callback frame, checked field by field: exactly ``callback`` (and ``tensors``), naming a host
    function of the current call (``hosts``), with at most :data:`MAX_CALLBACK_ARGUMENTS` positional
    and keyword arguments each. Anything else raises :class:`~judge.learner.wire.WireError`."""
    _only_key(header, ("callback",))
    call = _object(header["callback"], "callback", ("host", "args", "kwargs"))
    host = call["host"]
    if isinstance(host, bool) or not isinstance(host, int) or host not in hosts:
        raise WireError("a callback must name a host function of the current call")
    args, kwargs = call["args"], call["kwargs"]
    if not isinstance(args, list) or len(args) > MAX_CALLBACK_ARGUMENTS:
        raise WireError(f"a callback's 'args' must be a list of at most {MAX_CALLBACK_ARGUMENTS}")
    if not isinstance(kwargs, dict) or len(kwargs) > MAX_CALLBACK_ARGUMENTS:
        raise WireError(f"a callback's 'kwargs' must be an object of at most {MAX_CALLBACK_ARGUMENTS} entries")
    for name in kwargs:
        _text(name, "a keyword argument's name", MAX_NAME)
    tensors = header.get("tensors", [])
    nbytes = (
        sum(spec.get("nbytes", 0) for spec in tensors if isinstance(spec, dict)) if isinstance(tensors, list) else 0
    )
    return Callback(host, args, kwargs, int(nbytes))


def answer_callback(
    hosts: dict[int, HostFunction], header: dict[str, Any], payloads: list[Any]
) -> tuple[dict[str, Any], Any]:
    """The reply to one callback frame (``header``, ``payloads``) of a call that carries ``hosts``:
    ``(reply, value)``, ``reply["tensors"]`` an empty list for the value's tensors to be encoded into.

    The frame is checked by :func:`callback`, its arguments decoded with every
    tensor used once; raises :class:`~judge.learner.wire.WireError` for a malformed frame and
    :class:`~judge.learner.hosts.HostViolation` for flooding (both the learner's fault, RE)."""
    call = callback(header, hosts)
    host = hosts[call.host]
    started = time.monotonic()
    try:
        return _answer(host, call, header, payloads)
    finally:
        host.seconds += time.monotonic() - started


def _answer(host: HostFunction, call: Any, header: dict[str, Any], payloads: list[Any]) -> tuple[dict[str, Any], Any]:
    if call.nbytes > host.max_bytes:
        reply, value = host.oversize(call.nbytes), None
    else:
        args, kwargs = wire.decode_answer([call.args, call.kwargs], header.get("tensors", []), payloads)
        reply, value = host.answer(args, kwargs)
    reply["tensors"] = []
    return reply, value
