"""A refusals batch describes a refused call without formatting its traceback, and sends the
same bytes as before, when it formatted one and cut it away (see ``child._BatchDescription``).

The former way is kept here as the oracle: the full description, as ``describe_exception`` made
it (copied below as it was), then cut by ``child._refusal``. Each learner function below is run
in a batch of its own (refused, or stopping the batch) and in one batch after another, both
ways, and the replies' frames must be equal byte for byte (the times, which vary, set to 0).
"""

from __future__ import annotations

import errno
import io
import os

import pytest
import torch

from judge.learner.code import (
    MEMORY_MARKERS,
    OUTPUT_FILE_LIMIT,
    _sendable,
    describe_exception,
    exception_classes,
    learner_frames,
    learner_traceback,
    load_learner_module,
)
from judge.sandbox import child

SOURCE = """
import errno, json, sys

def returns():
    return 1

def refused():
    raise ValueError("bad input")

def other_type():
    raise TypeError("no")

def no_message():
    raise ValueError()

def blank():
    raise ValueError("   ")

def blank_where_cut():
    raise ValueError(" " * 5000 + "x")

def space_at_the_cut():
    raise ValueError("a" * 31 + " " + "b" * 40)

def leading_space():
    raise ValueError("\\n\\t  bad")

def system_exit():
    sys.exit(3)

def keyboard_interrupt():
    raise KeyboardInterrupt("stop")

def base_exception():
    raise BaseException("base")

class Unshowable(ValueError):
    def __str__(self):
        raise RuntimeError("no")

def str_raises():
    raise Unshowable()

class Huge(ValueError):
    def __str__(self):
        return "h" * 1_000_000

def huge():
    raise Huge()

def surrogate():
    raise ValueError("\\ud800 bad")

Weird = type("Ошибка错误", (ValueError,), {"__module__": "\\udc80.x", "__qualname__": "a.b"})

Spaced = type("Value Error\\n", (ValueError,), {"__module__": ""})

def spaced_name():
    raise Spaced("spaced")

def weird_name():
    raise Weird("weird")

Long = type("V" * 1000, (ValueError,), {"__module__": None})

def long_name():
    raise Long("long")

Posing = type("ValueError", (Exception,), {"__module__": "builtins"})

def posing():
    raise Posing("a ValueError of its own")

def memory():
    raise MemoryError()

def memory_message():
    raise MemoryError("DefaultCPUAllocator: can't allocate memory")

def memory_marker_past_the_cut():
    raise ValueError("x" * 5000 + "out of memory")

def file_too_large():
    raise OSError(errno.EFBIG, "File too large")

def syntax_in_learner_file():
    compile("x = (", __file__, "exec")

def syntax_elsewhere():
    compile("x = (", "other.py", "exec")

def syntax_line_not_int():
    error = SyntaxError("odd", (__file__, 1, 1, "x"))
    error.lineno = "seven"
    raise error

def syntax_line_bool():
    error = SyntaxError("odd", (__file__, 1, 1, "x"))
    error.lineno = True
    raise error

def nested():
    return _inner([1])

def _inner(values):
    return values[
        5
    ]

def from_the_standard_library():
    json.loads("{")

def chained():
    try:
        {}["k"]
    except KeyError as error:
        raise ValueError("chained") from error

def with_notes():
    error = ValueError("noted")
    error.add_note("a note")
    raise error

class NotesBreak(ValueError):
    @property
    def __notes__(self):
        raise RuntimeError("no notes")

def notes_break():
    raise NotesBreak("breaks formatting")

def unicode_subclass():
    raise UnicodeError("bad")
"""

FUNCTIONS = [
    line[4 : line.index("(")]
    for line in SOURCE.splitlines()
    if line.startswith("def ") and not line.startswith("def _")
]
# Class names, as the judge asks (judge.learner.code.qualified_name): Python's own, and the learner's
# module's (loaded as ``submission``) for the classes of its own above.
ACCEPT = [
    f"builtins.{name}"
    for name in ("ValueError", "UnicodeError", "SystemExit", "KeyboardInterrupt", "MemoryError")
]
ACCEPT += [
    "builtins.OSError",
    "builtins.SyntaxError",
    "builtins.IndexError",
    "json.decoder.JSONDecodeError",
    "\\udc80.x.a.b",
    "submission.Value Error\n",
    "?.VVV",
    "submission.Huge",
    "submission.Unshowable",
    "~builtins.ValueError",
]


def _former_describe_exception(exc: BaseException, learner_path: str) -> dict:
    """``describe_exception`` as it was before the refusals batch stopped formatting tracebacks
    (with the exception's classes, ``mro``, added since)."""
    syntax_line = exc.lineno if isinstance(exc, SyntaxError) and exc.filename == learner_path else None
    if syntax_line is not None and isinstance(exc, SyntaxError):
        exc.filename = os.path.basename(learner_path)
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - as it was
        message = f"<{type(exc).__name__} whose message cannot be shown>"
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        message = f"your code wrote a file larger than {OUTPUT_FILE_LIMIT >> 20} MB ({message})"
    line = None
    frames = learner_frames(exc, learner_path)
    if frames:
        line = frames[-1].lineno
    if syntax_line is not None:
        line = syntax_line
    try:
        trace = learner_traceback(exc, learner_path, frames)
    except BaseException:  # noqa: BLE001 - as it was
        trace = f"{type(exc).__name__}: {message}\n"
    return {
        "type": _sendable(type(exc).__name__)[:256],
        "message": _sendable(message[:4000]),
        "line": line if isinstance(line, int) else None,
        "traceback": _sendable(trace[-8000:]),
        "memory": isinstance(exc, MemoryError) or any(m in message for m in MEMORY_MARKERS),
        "mro": exception_classes(type(exc)),
    }


def _former_refusals(request: dict, module, name: str) -> tuple[dict, object]:
    """``child._refusals`` as it was: each call described in full, then cut to a refusal."""
    accepted = {str(n) for n in request["accept"]}
    refused: list[dict] = []
    refused_ms: list[float] = []
    for call in request["calls"]:
        one = {**call, **{key: request.get(key) for key in ("tensors", "extreme_uniforms", "global_seed")}}
        header, value = child._one_call(one, [], module, name, "cpu", torch, set(), _FormerDescription(name))
        refusal = child._refusal(header["raised"], accepted) if "raised" in header else None
        if refusal is not None:
            refused.append(refusal)
            refused_ms.append(header["elapsed_ms"])
            continue
        header.update(refused=refused, refused_ms=refused_ms)
        return header, value
    return {"refused": refused, "refused_ms": refused_ms}, None


class _FormerDescription:
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, exc: BaseException) -> dict:
        return _former_describe_exception(exc, self.name)


def _frame(header: dict, value: object) -> bytes:
    """The reply's bytes as ``child._reply`` writes them, with the learner's times set to 0."""
    if "elapsed_ms" in header:
        header["elapsed_ms"] = 0.0
    header["refused_ms"] = [0.0 for _ in header.get("refused_ms", [])]
    outbox = io.BytesIO()
    child._reply(outbox, header, value)
    return outbox.getvalue()


@pytest.fixture(scope="module", params=["solution.py", "/learners/someone/solution.py"], ids=["strict", "local"])
def loaded(request):
    """The module loaded under the name the strict level gives it, and under a local path."""
    name = request.param
    return load_learner_module(SOURCE, name), name


def _request(functions: list[str]) -> dict:
    return {
        "op": "refusals",
        "calls": [{"function": function, "args": [], "kwargs": {}} for function in functions],
        "accept": ACCEPT,
        "extreme_uniforms": None,
        "global_seed": None,
        "tensors": [],
    }


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_batch_of_one_call_sends_the_bytes_it_sent_before(function, loaded):
    module, name = loaded
    request = _request([function])
    now = _frame(*child._refusals(request, [], module, name, "cpu", torch))
    before = _frame(*_former_refusals(request, module, name))
    assert now == before


def test_the_outcomes_cover_refusals_and_stops(loaded):
    """The learner functions above are not all refused: some stop the batch, in every way."""
    module, name = loaded
    stops = {
        function
        for function in FUNCTIONS
        if len(child._refusals(_request([function]), [], module, name, "cpu", torch)[0]["refused"]) == 0
    }
    assert {"returns", "other_type", "no_message", "blank", "blank_where_cut", "memory"} <= stops
    assert "syntax_line_bool" in stops  # a line the judge refuses
    assert {
        "refused",
        "system_exit",
        "keyboard_interrupt",
        "huge",
        "str_raises",
        "weird_name",
        "memory_message",
    }.isdisjoint(stops)


def test_a_long_batch_sends_the_bytes_it_sent_before(loaded):
    """Every refused function, then one that stops the batch, then the rest (never run)."""
    module, name = loaded
    refused = [f for f in FUNCTIONS if child._refusals(_request([f]), [], module, name, "cpu", torch)[0]["refused"]]
    for stop in ("returns", "other_type", "no_message", "memory", "syntax_line_bool", None):
        functions = refused + ([stop, "refused"] if stop else [])
        request = _request(functions)
        now_header, now_value = child._refusals(request, [], module, name, "cpu", torch)
        assert len(now_header["refused"]) == len(refused)
        assert _frame(now_header, now_value) == _frame(*_former_refusals(request, module, name))


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_description_without_traceback_is_the_full_one_less_its_traceback(function, loaded):
    module, name = loaded
    errors = []
    for _ in range(3):  # one each: a SyntaxError of the learner's file is renamed once described
        try:
            getattr(module, function)()
        except BaseException as error:  # noqa: BLE001 - whatever the learner's code raised
            errors.append(error)
    if not errors:
        return
    full = describe_exception(errors[0], name)
    assert full == _former_describe_exception(errors[1], name)
    assert describe_exception(errors[2], name, with_traceback=False) == {**full, "traceback": ""}
