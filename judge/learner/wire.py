"""The byte format between the trusted judge and the untrusted learner process.

Frames carry a JSON header and raw tensor payloads with a declared dtype and shape. Nothing
is ever unpickled: the parser accepts only the dtypes below, checks every size against the
header and a hard limit, and refuses anything else.

Frame layout: ``b"PJ1"`` magic, 4-byte big-endian header length, the UTF-8 JSON header, then
the payloads in the order the header lists them (``header["tensors"]``: dtype, shape, nbytes).
In the header, a tensor value is written ``{"$tensor": i}`` and a generator ``{"$generator":
seed}`` (``{"$generator": seed, "$kept": key}`` for one the learner's side keeps by ``key``), and a
function of the judge the learner may call ``{"$host": key}`` (:mod:`judge.learner.hosts`); the
Python side decodes them with :func:`decode_values`.

Whatever the learner's process sends is hostile, so the reader bounds everything before it
allocates: header bytes, nesting depth, node count, integer size (64 bits), valid Unicode, the
number of tensors, payload bytes, and each payload is materialized at most once (a frame can
never make the judge hold more than its own size in tensors). Every failure is a
:class:`WireError`, never another exception.
"""

from __future__ import annotations

import ctypes
import json
import re
import struct
import sys
from collections.abc import Sequence
from typing import Any, Protocol

from judge.learner.hosts import HostFunction, HostSpec

Buffer = bytes | bytearray | memoryview  # a payload as written: any contiguous bytes
Received = bytearray | memoryview  # a payload as read_frame returns it: writable bytes of its own


class Readable(Protocol):
    """What :func:`read_frame` reads from: a binary file, or the judge's pipe with a deadline.

    ``read(n)`` returns at most ``n`` bytes, and nothing only at the end of the stream. Where the
    stream also has ``readinto(buffer)`` (a file) or ``readv(buffers)`` (``os.readv`` over a pipe),
    :func:`read_frame` reads straight into the buffers it returns (fewer calls, no second copy);
    each returns how many bytes it placed, 0 only at the end of the stream.
    """

    def read(self, n: int, /) -> bytes | bytearray: ...


class Writable(Protocol):
    """What :func:`write_frame` writes to: a binary file, or the judge's pipe with a deadline.

    Where the stream also has ``writev(buffers)`` (``os.writev`` over a pipe: writes them all, in
    order), a frame goes out in one call, its tensors straight from their memory.
    """

    def write(self, data: Buffer, /) -> object: ...

    def flush(self) -> object: ...


MAGIC = b"PJ1"
PREFIX_BYTES = len(MAGIC) + 4  # the magic and the header's length
MAX_HEADER_BYTES = 4 << 20  # room for a 512 kB source even if every character needs a \u escape
# What the learner's process may send in one header: tracebacks and signatures need far less, and
# a small cap bounds the Python objects a hostile header can make the judge build (~25x its size).
MAX_REPLY_HEADER_BYTES = 1 << 20
# Large enough for [64, 32000] float64 probabilities plus slack; a child may not send more.
MAX_FRAME_BYTES = 64 << 20
MAX_TENSORS = 1024  # tensors in one frame
MAX_DEPTH = 32  # nesting of lists and objects in a header
MAX_NODES = 200_000  # values in a header, all levels together
MAX_DIMENSION = 1 << 40  # one size of a shape (torch sizes are int64; anything this big is a forgery)
INT64 = (-(1 << 63), (1 << 63) - 1)
DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu", "meta")
_JSON_SPECIAL = re.compile(r'[\[\]{}"\\]')  # what changes the nesting, or starts or ends a string
TENSOR_SPEC_KEYS = frozenset({"dtype", "shape", "nbytes", "device"})
IOV_BATCH = 512  # buffers per readv/writev call: well under every system's IOV_MAX (1024 on Linux)

# dtype name -> item size in bytes (the name is also the torch attribute)
DTYPES: dict[str, int] = {
    "float32": 4,
    "float64": 8,
    "float16": 2,
    "bfloat16": 2,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
}


class WireError(Exception):
    """A frame broke the format: wrong magic, oversized, bad dtype/shape, truncated."""


def _read_exact(stream: Readable, n: int) -> bytes | bytearray:
    """Exactly ``n`` bytes (at most ``n`` allocated): one ``read`` where the stream has them all
    already (a header in the pipe, mostly), the rest filled into one buffer otherwise."""
    first = stream.read(n) if n else b""
    if len(first) == n:
        return first
    if not first:
        raise EOFError(f"stream ended with {n} of {n} bytes missing")
    buffer = bytearray(n)
    buffer[: len(first)] = first
    _fill(stream, [memoryview(buffer)[len(first) :]])
    return buffer


def _fill(stream: Readable, buffers: Sequence[bytearray | memoryview]) -> None:
    """Fill every buffer, in order, from ``stream``; :class:`EOFError` when it ends first.

    One ``readv`` fills as many buffers as the pipe holds bytes for; a stream without one is read
    with ``readinto``, or ``read`` and a copy. However the bytes are split between calls (one at
    a time, say), the buffers end up the same.
    """
    pending = byte_views(buffers)
    wanted = sum(len(view) for view in pending)
    readv = getattr(stream, "readv", None)
    readinto = getattr(stream, "readinto", None)
    while pending:
        if readv is not None:
            got = readv(pending[:IOV_BATCH])
        elif readinto is not None:
            got = readinto(pending[0])
        else:
            chunk = stream.read(len(pending[0]))
            got = len(chunk)
            pending[0][:got] = chunk
        if not got:
            missing = sum(len(view) for view in pending)
            raise EOFError(f"stream ended with {missing} of {wanted} bytes missing")
        consume(pending, got)


def byte_views(buffers: Sequence[Buffer]) -> list[memoryview]:
    """Each non-empty buffer as a flat view of bytes, in order: what ``readv`` and ``writev`` take."""
    return [memoryview(buffer).cast("B") for buffer in buffers if len(buffer)]


def consume(views: list[memoryview], count: int) -> None:
    """Drop the first ``count`` bytes of ``views`` (what one ``readv`` or ``writev`` moved): the
    buffers it filled or emptied whole, then the start of the next one."""
    whole = 0
    while whole < len(views) and count >= len(views[whole]):
        count -= len(views[whole])
        whole += 1
    del views[:whole]
    if count and views:
        views[0] = views[0][count:]


def write_frame(stream: Writable, header: dict[str, Any], payloads: Sequence[Buffer] = ()) -> None:
    """Write one frame. ``header["tensors"]`` must already describe ``payloads`` (any byte buffers:
    ``bytes``, or the views :func:`encode_values` makes of tensors' memory)."""
    write_encoded_frame(stream, encode_header(header), payloads)


def encode_header(header: dict[str, Any]) -> bytes:
    """The bytes :func:`write_frame` writes for ``header``: its JSON (NaN and infinities as
    ``json`` writes them, no spaces, non-ASCII as it is), in UTF-8."""
    return _ENCODER.encode(header).encode("utf-8")


def write_encoded_frame(stream: Writable, body: bytes, payloads: Sequence[Buffer] = ()) -> None:
    """:func:`write_frame` for a header encoded already (``body``, :func:`encode_header`'s bytes):
    for a caller that measures the header before it sends it, so it is encoded once."""
    prefix = MAGIC + struct.pack(">I", len(body))
    writev = getattr(stream, "writev", None)
    if writev is not None:
        writev([prefix, body, *payloads])
    else:
        stream.write(prefix + body)
        for payload in payloads:
            stream.write(payload)
    stream.flush()


# What write_frame writes with: json.dumps with these options would build an encoder per frame.
_ENCODER = json.JSONEncoder(allow_nan=True, separators=(",", ":"), ensure_ascii=False)


def read_frame(
    stream: Readable, max_bytes: int = MAX_FRAME_BYTES, max_header_bytes: int = MAX_HEADER_BYTES
) -> tuple[dict[str, Any], list[Received]]:
    """Read and validate one frame.

    Returns ``(header, payloads)``: the header is a JSON object within every bound in the module
    docstring, ``header["tensors"]`` a list of valid specs. Raises :class:`EOFError` when the
    stream ends before a frame starts or in the middle of one, and :class:`WireError` for
    anything malformed (nothing else, whatever the bytes).
    """
    # The magic and the length in one read where the pipe holds them; a wrong magic is refused
    # from its first bytes (never a wait for more bytes of a frame that is already wrong).
    first = bytes(stream.read(PREFIX_BYTES))
    if not first:
        raise EOFError("no frame")
    if first[: len(MAGIC)] != MAGIC[: len(first)]:
        raise WireError(f"bad magic {first[:8]!r}")
    prefix = first + _read_exact(stream, PREFIX_BYTES - len(first)) if len(first) < PREFIX_BYTES else first
    if prefix[: len(MAGIC)] != MAGIC:
        raise WireError(f"bad magic {prefix[:8]!r}")
    (length,) = struct.unpack(">I", prefix[len(MAGIC) :])
    if length > max_header_bytes:
        raise WireError(f"header of {length} bytes exceeds the limit of {max_header_bytes}")
    header = parse_header(_read_exact(stream, length))
    specs = header.get("tensors", [])
    if not isinstance(specs, list):
        raise WireError("'tensors' is not a list")
    if len(specs) > MAX_TENSORS:
        raise WireError(f"{len(specs)} tensors in one frame; the limit is {MAX_TENSORS}")
    total = sum(validate_tensor_spec(spec) for spec in specs)
    if total > max_bytes:
        raise WireError(f"frame payload of {total} bytes exceeds {max_bytes} bytes")
    payloads = [_payload_buffer(spec["nbytes"]) for spec in specs]  # at most max_bytes, checked just above
    _fill(stream, payloads)
    return header, payloads


UNINITIALIZED_FROM_BYTES = 1 << 16  # where zero-filling a buffer starts to cost more than making one


def _payload_buffer(nbytes: int) -> Received:
    """A new buffer of ``nbytes`` for one payload to be read into, shared with no other.

    Small, a ``bytearray``; from :data:`UNINITIALIZED_FROM_BYTES` up, where torch and numpy are
    imported already (torch imports numpy), a fresh ``torch.empty`` seen through numpy: memory
    left as the allocator gives it, since a ``bytearray`` is zero-filled first (0.6 ms for 10 MB,
    before the read writes every byte again). Nothing of what that memory held is ever read:
    :func:`read_frame` returns only once every byte of every payload was read into it.
    """
    torch, numpy = sys.modules.get("torch"), sys.modules.get("numpy")
    if nbytes < UNINITIALIZED_FROM_BYTES or torch is None or numpy is None:
        return bytearray(nbytes)
    return memoryview(torch.empty(nbytes, dtype=torch.uint8).numpy())


def parse_header(body: bytes | bytearray) -> dict[str, Any]:
    """Decode a header: UTF-8 JSON, an object, within :data:`MAX_DEPTH`, :data:`MAX_NODES` and int64.

    Raises :class:`WireError` for anything else (deep nesting, a 5 000-digit number and a lone
    surrogate included), never ``RecursionError`` or ``ValueError``.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WireError(f"header is not UTF-8: {exc.reason}") from None
    if nesting_exceeds(text, MAX_DEPTH):
        raise WireError(f"header nests deeper than {MAX_DEPTH} levels")
    try:
        header = _DECODER.decode(text)  # every integer within int64 as it is parsed (_int64)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, too many digits, ...
        raise WireError(f"header is not JSON: {str(exc)[:200]}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    # The walk over every value is only needed where the text itself cannot rule out what it
    # looks for. Each value (a key included) starts at a character of its own, so a text of at
    # most MAX_NODES characters holds at most MAX_NODES values; and since the text is valid
    # UTF-8, a lone surrogate can only come from a \u escape. (Integers were checked above.)
    if len(text) > MAX_NODES or "\\u" in text:
        _check_values(header)
    return header


def _int64(digits: str) -> int:
    """``json``'s ``parse_int``: the integer, refused past 64 bits (and past Python's own digit
    limit, as ``json.loads`` refuses it: a ``ValueError``, so "not JSON")."""
    value = int(digits)
    if not INT64[0] <= value <= INT64[1]:
        raise WireError("header holds an integer larger than 64 bits")
    return value


_DECODER = json.JSONDecoder(parse_int=_int64)  # what json.loads uses, but for the integers


def frame_fits(
    body: bytes,
    specs: Sequence[dict[str, Any]],
    *,
    max_bytes: int = MAX_FRAME_BYTES,
    max_header_bytes: int = MAX_HEADER_BYTES,
) -> bool:
    """Whether :func:`read_frame`, with these ``max_bytes`` and ``max_header_bytes``, takes the frame
    :func:`write_encoded_frame` writes of ``body`` and of the payloads ``specs`` describe.

    ``body`` is :func:`encode_header`'s bytes of a header whose ``"tensors"`` are ``specs``, valid
    ones (as :func:`encode_values` makes them). Every bound :func:`read_frame` enforces is checked,
    exactly: the number of tensors (:data:`MAX_TENSORS`) and their bytes, the header's bytes, its
    nesting (:data:`MAX_DEPTH`), its values (:data:`MAX_NODES`) and its integers (64 bits). What
    ``json`` writes needs no parsing for that: its strings are told apart by their quotes, and an
    integer past 64 bits has 19 digits in a row at least (where a header has such a run, a rare
    thing, the answer is :func:`parse_header`'s own).
    """
    if len(specs) > MAX_TENSORS or sum(spec["nbytes"] for spec in specs) > max_bytes:
        return False
    size = len(body)
    if size > max_header_bytes:
        return False
    if _LONG_DIGITS in body.translate(_DIGITS):
        try:
            parse_header(body)
        except WireError:
            return False
        return True
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH and size <= MAX_NODES:
        return True  # too few brackets to nest too deep, too few characters for too many values
    if b"\\" in body:
        # Escapes are only found in strings: without the escaped backslashes, then the escaped
        # quotes, what is left of each string holds no quote but its two ends.
        body = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"s".join(body.split(b'"')[::2])  # the header, each string (keys too) now one "s"
    nest = outside.translate(_PARENTHESES, _NOT_BRACKETS)  # its arrays and objects alike, "(" to ")"
    for _ in range(MAX_DEPTH):
        if not nest:
            break
        nest = nest.replace(b"()", b"")  # one level of every nest at a time, innermost first
    if nest:
        return False
    if size <= MAX_NODES:
        return True
    # Every value and key but the outermost object follows a "[", "{", "," or ":", but for a "[" or
    # "{" that closes at once: counted outside strings, those give the values exactly.
    values = 1 + sum(outside.count(mark) for mark in (b"[", b"{", b",", b":"))
    return values - outside.count(b"[]") - outside.count(b"{}") <= MAX_NODES


_DIGITS = bytes(ord("0") if ord("0") <= byte <= ord("9") else ord(" ") for byte in range(256))  # digits to "0"
_LONG_DIGITS = b"0" * len(str(INT64[1]))  # 19: an integer of fewer digits fits in 64 bits
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_PARENTHESES = bytes.maketrans(b"[{]}", b"(())")


def nesting_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` opens more than ``limit`` arrays or objects at once.

    Check it before ``json.loads``: the parser recurses once per level. One pass over the
    characters that matter (brackets, quotes, backslashes), so linear in the text whatever it
    holds (a regular expression that skips strings can backtrack quadratically on ``"\\"\\"...``).
    """
    # A cheap bound first: a header cannot nest deeper than it has opening brackets.
    if text.count("[") + text.count("{") <= limit:
        return False
    depth, in_string, escaped_until = 0, False, -1
    for found in _JSON_SPECIAL.finditer(text):
        at = found.start()
        if at < escaped_until:
            continue  # the character after a backslash, inside a string
        char = found.group()
        if in_string:
            if char == "\\":
                escaped_until = at + 2
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        else:  # "]", "}" (a backslash outside a string is a syntax error json.loads reports)
            depth -= 1 if char in "]}" else 0
    return False


def _check_values(header: dict[str, Any]) -> None:
    """Every integer fits int64, every string is valid Unicode, at most MAX_NODES values.

    ``header`` is what ``json.loads`` made, so every value is exactly a dict, list, str, int,
    float, bool or None (never a subclass): the walk dispatches on ``type()``, and an ASCII
    string (what headers almost only hold) is valid Unicode without encoding it.
    """
    pending: list[Any] = [header]
    seen = 0
    while pending:
        value = pending.pop()
        seen += 1
        if seen > MAX_NODES:
            raise WireError(f"header holds more than {MAX_NODES} values")
        kind = type(value)
        if kind is dict:
            pending.extend(value.keys())
            pending.extend(value.values())
        elif kind is list:
            pending.extend(value)
        elif kind is str:
            if not value.isascii() and not _valid_unicode(value):
                raise WireError("header holds a string that is not valid Unicode (a lone surrogate)")
        elif kind is int:
            if not INT64[0] <= value <= INT64[1]:
                raise WireError("header holds an integer larger than 64 bits")
        elif kind not in (float, bool, type(None)):
            raise WireError(f"header holds a value of type {kind.__name__}")  # json.loads makes none


def _valid_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate_tensor_spec(spec: Any) -> int:
    """Check one ``{"dtype", "shape", "nbytes"}`` entry; return its byte size."""
    if not isinstance(spec, dict):
        raise WireError("tensor spec is not an object")
    if not spec.keys() <= TENSOR_SPEC_KEYS:
        raise WireError(f"tensor spec has a field other than {', '.join(sorted(TENSOR_SPEC_KEYS))}")
    dtype, shape, nbytes = spec.get("dtype"), spec.get("shape"), spec.get("nbytes")
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise WireError(f"dtype {str(dtype)[:40]!r} is not allowed")
    if not isinstance(shape, list) or len(shape) > 8:
        raise WireError("shape must be a list of at most 8 sizes")
    count = 1
    for size in shape:
        # An exact int first (what JSON makes), without the two isinstance calls; bool is refused.
        if (type(size) is not int and (not isinstance(size, int) or isinstance(size, bool))) or not (
            0 <= size <= MAX_DIMENSION
        ):
            raise WireError(f"bad size {size!r} in shape")
        count *= size
    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes != count * DTYPES[dtype]:
        raise WireError(f"declared {str(nbytes)[:40]!r} bytes, shape {shape} of {dtype} needs {count * DTYPES[dtype]}")
    device = spec.get("device", "cpu")
    if device != "cpu" and (not isinstance(device, str) or not _is_device_name(device)):
        raise WireError(f"device {str(device)[:40]!r} is not a device name")
    return nbytes


def _is_device_name(name: str) -> bool:
    """``cpu``, ``cuda``, ``cuda:3``...: what :func:`tensor_to_payload` writes, and what ``torch.device`` parses."""
    kind, colon, index = name.partition(":")
    if kind not in DEVICE_TYPES:
        return False
    return not colon or (index.isascii() and index.isdigit() and len(index) <= 4)


_DTYPE_NAMES: dict[Any, str] = {}  # torch dtype -> its name in DTYPES, for the dtypes met so far


def _dtype_name(dtype: Any) -> str:
    """``torch.float32`` -> ``"float32"`` (a dict lookup once seen: ``str(dtype)`` costs more)."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = str(dtype).removeprefix("torch.")
        if name in DTYPES:
            _DTYPE_NAMES[dtype] = name
    return name


def tensor_to_payload(tensor: Any) -> tuple[dict[str, Any], bytes]:
    """Serialize a torch tensor (any device) to ``(spec, raw bytes)``; the spec also names its device."""
    spec, view = tensor_to_buffer(tensor)
    return spec, bytes(view)


def tensor_to_buffer(tensor: Any) -> tuple[dict[str, Any], memoryview]:
    """``(spec, bytes)`` as :func:`tensor_to_payload`, the bytes a read-only view of the tensor's memory.

    No copy for a contiguous CPU tensor (what a frame mostly carries); the view keeps that memory
    alive, and shows what it holds when it is written, so write it before anything changes the
    tensor (:func:`encode_values` and :func:`write_frame` follow each other). Raises
    :class:`WireError` for a dtype the format does not carry.
    """
    dtype = _dtype_name(tensor.dtype)
    if dtype not in DTYPES:
        raise WireError(f"cannot send a tensor of dtype {dtype}")
    # is_cpu, not device.type: the attribute is one lookup, the device an object made per call.
    if tensor.is_cpu and not tensor.requires_grad and tensor.is_contiguous() and not tensor.is_neg():
        # What a frame mostly carries: its memory as it is (detach() and to() would only make
        # views of it, at several microseconds each).
        cpu, device = tensor, "cpu"
    else:
        # resolve_neg: a negative-bit view (torch._neg_view) holds its values negated lazily; its
        # memory holds them unnegated, and contiguous() alone keeps the bit (the view is contiguous).
        cpu, device = tensor.detach().to("cpu").resolve_neg().contiguous(), str(tensor.device)
    nbytes = cpu.nbytes  # numel() * element_size(): cpu is contiguous
    spec = {"dtype": dtype, "shape": list(cpu.shape), "nbytes": nbytes, "device": device}
    if not nbytes:
        return spec, memoryview(b"")
    # ctypes instead of .numpy(): numpy is not a dependency of torch, so it may be absent.
    memory = (ctypes.c_char * nbytes).from_address(cpu.data_ptr())
    memory.owner = cpu  # the view holds the array, the array holds the tensor and so its memory
    return spec, memoryview(memory).cast("B").toreadonly()


def payload_to_tensor(spec: dict[str, Any], raw: Buffer, device: str = "cpu") -> Any:
    """Rebuild a tensor from a validated spec and its bytes.

    A ``bytearray`` or a writable, contiguous memoryview of bytes (what :func:`read_frame`
    returns) becomes the tensor's storage without a copy, so it must not be used again; anything
    else (``bytes``, a read-only view) is copied.
    """
    import torch

    validate_tensor_spec(spec)
    dtype = getattr(torch, spec["dtype"])
    if not raw:
        tensor = torch.empty(spec["shape"], dtype=dtype)
    else:
        shared = isinstance(raw, bytearray) or (
            isinstance(raw, memoryview) and not raw.readonly and raw.format == "B" and raw.c_contiguous
        )
        buffer = raw if shared else bytearray(raw)
        tensor = torch.frombuffer(buffer, dtype=dtype)  # one dimension, of the spec's size
        if len(spec["shape"]) != 1:
            tensor = tensor.reshape(spec["shape"])  # several microseconds: not where it is a no-op
    return tensor.to(device) if device != "cpu" else tensor


def encode_values(value: Any, specs: list[dict[str, Any]], payloads: list[Buffer]) -> Any:
    """Turn a nest of tensors / numbers / strings / lists / dicts into JSON plus payloads.

    Each payload is a view of its tensor's memory (:func:`tensor_to_buffer`): hand them to
    :func:`write_frame` before changing those tensors. Raises :class:`WireError` for a value that
    has no safe encoding.
    """
    import torch

    kind = type(value)
    if kind is float or kind is int or kind is bool or value is None:
        return value  # the common leaves first, by exact type (subclasses take the checks below)
    if isinstance(value, torch.Tensor):
        spec, raw = tensor_to_buffer(value)
        specs.append(spec)
        payloads.append(raw)
        return {"$tensor": len(specs) - 1}
    if isinstance(value, GeneratorSpec):
        return {"$generator": value.seed} if value.kept is None else {"$generator": value.seed, "$kept": value.kept}
    if isinstance(value, HostFunction):
        return {"$host": value.key}
    if isinstance(value, str) and not _valid_unicode(value):
        raise WireError("cannot send a string that is not valid Unicode (it holds a lone surrogate)")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [encode_values(v, specs, payloads) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: encode_values(v, specs, payloads) for k, v in value.items()}
    raise WireError(f"cannot send a value of type {type(value).__name__}")


def decode_values(
    value: Any,
    specs: list[dict[str, Any]],
    payloads: Sequence[Buffer],
    device: str = "cpu",
    used: set[int] | None = None,
) -> Any:
    """Inverse of :func:`encode_values`; generators come back as :class:`GeneratorSpec`, host
    functions as :class:`~judge.learner.hosts.HostSpec`.

    Each tensor of the frame may be referenced once (the encoder never does otherwise), so a
    frame cannot make the judge materialize one payload many times; ``used`` carries that rule
    across several calls on one frame. Raises :class:`WireError` for a bad or repeated reference,
    a bad generator seed, or a payload torch refuses.
    """
    used = set() if used is None else used
    if isinstance(value, dict):
        if set(value) == {"$tensor"}:
            return _take_tensor(value["$tensor"], specs, payloads, device, used)
        if set(value) in _GENERATOR_FORMS:
            seed, kept = value["$generator"], value.get("$kept")
            if not _uint64(seed):
                raise WireError(f"generator seed {str(seed)[:40]!r} is not an integer in [0, 2**64)")
            if kept is not None and not _uint64(kept):
                raise WireError(f"generator key {str(kept)[:40]!r} is not an integer in [0, 2**64)")
            return GeneratorSpec(seed, kept)
        if set(value) == {"$host"}:
            if not _uint64(value["$host"]):
                raise WireError(f"host function key {str(value['$host'])[:40]!r} is not an integer in [0, 2**64)")
            return HostSpec(value["$host"])
        return {k: decode_values(v, specs, payloads, device, used) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_values(v, specs, payloads, device, used) for v in value]
    return value


_GENERATOR_FORMS = ({"$generator"}, {"$generator", "$kept"})


def _uint64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 64


def decode_answer(value: Any, specs: list[dict[str, Any]], payloads: Sequence[Buffer]) -> Any:
    """:func:`decode_values` for a whole answer: every tensor of the frame is used exactly once.

    The learner's side never sends a tensor it does not refer to; one that does is forging
    (padding a frame to slow the judge down, say). Raises :class:`WireError`.
    """
    used: set[int] = set()
    decoded = decode_values(value, specs, payloads, used=used)
    if len(used) != len(specs):
        raise WireError(f"{len(specs) - len(used)} of the frame's tensors are not part of the answer")
    return decoded


def _take_tensor(
    index: Any, specs: list[dict[str, Any]], payloads: Sequence[Buffer], device: str, used: set[int]
) -> Any:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < min(len(specs), len(payloads)):
        raise WireError(f"tensor reference {str(index)[:40]!r} out of range")
    if index in used:
        raise WireError(f"tensor {index} is referenced more than once")
    used.add(index)
    try:
        tensor = payload_to_tensor(specs[index], payloads[index], device)
    except (ValueError, TypeError, RuntimeError) as exc:  # torch's own refusals of a forged spec
        raise WireError(f"tensor {index} cannot be rebuilt: {str(exc)[:200]}") from None
    # Where the sender's tensor lived, so the judge can check "outputs stay on the device".
    tensor.origin_device = specs[index].get("device", "cpu")
    return tensor


class GeneratorSpec:
    """A ``torch.Generator`` to create on the learner's side, seeded with ``seed``.

    ``kept``: None for a new generator at every call it is passed to; a key (an int in
    ``[0, 2**64)``) for one generator the learner's side makes at the first call it is passed to
    and keeps, by that key, for the calls after it (:class:`judge.learner.code.LearnerGenerators`),
    so two calls draw from one stream.
    """

    __slots__ = ("seed", "kept")

    def __init__(self, seed: int, kept: int | None = None) -> None:
        self.seed = int(seed)
        self.kept = None if kept is None else int(kept)

    def __repr__(self) -> str:
        made = f"torch.Generator().manual_seed({self.seed})"
        return made if self.kept is None else f"{made} (kept as {self.kept})"
