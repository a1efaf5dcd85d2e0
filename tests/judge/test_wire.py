"""The byte format between judge and learner: round trips, and refusal of anything malformed."""

from __future__ import annotations

import io
import json
import pickle
import re
import struct

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from judge.learner import wire


def _frame(value):
    specs, payloads = [], []
    header = {"value": wire.encode_values(value, specs, payloads), "tensors": specs}
    stream = io.BytesIO()
    wire.write_frame(stream, header, payloads)
    stream.seek(0)
    return stream


def _roundtrip(value):
    header, payloads = wire.read_frame(_frame(value))
    return wire.decode_values(header["value"], header["tensors"], payloads)


DTYPES = [torch.float32, torch.float64, torch.int64, torch.int32, torch.bool, torch.float16, torch.bfloat16,
          torch.uint8]


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(DTYPES), shape=st.lists(st.integers(0, 5), min_size=0, max_size=4),
       seed=st.integers(0, 2**31))
def test_tensor_round_trip_keeps_values_dtype_and_shape(dtype, shape, seed):
    generator = torch.Generator().manual_seed(seed)
    tensor = (torch.rand(shape, generator=generator) * 100).to(dtype)
    back = _roundtrip(tensor)
    assert back.dtype == dtype and back.shape == tensor.shape
    assert torch.equal(back, tensor)
    assert back.origin_device == "cpu"


def test_nested_values_and_generators_round_trip():
    value = {"a": [torch.arange(3), 1.5, None, "x", True], "g": wire.GeneratorSpec(7)}
    back = _roundtrip(value)
    assert torch.equal(back["a"][0], torch.arange(3))
    assert back["a"][1:] == [1.5, None, "x", True]
    assert isinstance(back["g"], wire.GeneratorSpec) and back["g"].seed == 7


def test_non_contiguous_tensor_is_sent_as_its_values():
    tensor = torch.arange(12).reshape(3, 4).t()
    assert torch.equal(_roundtrip(tensor), tensor)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(20, dtype=torch.float32)[5:11],  # contiguous, at an offset in its storage
        lambda: torch.rand(3, 4, requires_grad=True),  # the slow path: detached first
        lambda: torch.rand(3, 4, requires_grad=True)[1:],
        lambda: torch.ones(2, 3, dtype=torch.bool),
        lambda: torch.zeros(0, 5, dtype=torch.int64),
        lambda: torch.rand(4, 6, dtype=torch.float64).t()[1:],
    ],
)
def test_every_kind_of_cpu_tensor_is_sent_as_its_values(make):
    tensor = make()
    spec, view = wire.tensor_to_buffer(tensor)
    assert spec == {
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "shape": list(tensor.shape),
        "nbytes": tensor.numel() * tensor.element_size(),
        "device": "cpu",
    }
    expected = bytes(tensor.detach().contiguous().reshape(-1).view(torch.uint8).tolist())
    assert view.readonly and bytes(view) == expected
    assert torch.equal(_roundtrip(tensor).to(tensor.dtype), tensor.detach())


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch._neg_view(torch.arange(1.0, 7.0).reshape(2, 3)),
        # A public way to the same bit: the imaginary part of a conjugate is a negative view.
        lambda: torch.complex(torch.arange(4.0), torch.arange(1.0, 5.0)).conj().imag,
    ],
)
def test_a_negative_view_crosses_the_wire_as_the_values_it_shows(make):
    # Its memory holds the values unnegated, and contiguous() keeps the bit: sending that memory
    # would flip every sign.
    tensor = make()
    assert tensor.is_neg()
    spec, view = wire.tensor_to_buffer(tensor)
    assert bytes(view) == bytes(tensor.resolve_neg().reshape(-1).view(torch.uint8).tolist())
    back = _roundtrip(tensor)
    assert back.tolist() == tensor.tolist() and all(value < 0 for value in back.reshape(-1).tolist())


def test_a_tensor_is_rebuilt_on_the_device_asked_for():
    spec, view = wire.tensor_to_buffer(torch.arange(6.0).reshape(2, 3))
    on_cpu = wire.payload_to_tensor(spec, bytes(view))
    assert on_cpu.device.type == "cpu" and on_cpu.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    # "meta" is a device every torch build has: the one path a CPU machine can take off the CPU.
    elsewhere = wire.payload_to_tensor(spec, bytes(view), device="meta")
    assert elsewhere.device.type == "meta" and elsewhere.shape == (2, 3) and elsewhere.dtype == torch.float32


@pytest.mark.parametrize("device, refused", [
    ("cuda", False), ("cuda:0", False), ("cuda:9999", False), ("meta", False),
    ("cuda:10000", True), ("cuda:99999", True), ("cuda:", True), ("cuda:-1", True), ("cuda:١", True),
    ("tpu:0", True), ("", True),
])
def test_a_device_name_has_a_known_kind_and_at_most_four_digits(device, refused):
    spec = {"dtype": "float32", "shape": [1], "nbytes": 4, "device": device}
    if refused:
        with pytest.raises(wire.WireError, match=re.escape(f"device {device!r} is not a device name")):
            wire.validate_tensor_spec(spec)
    else:
        assert wire.validate_tensor_spec(spec) == 4


def test_torchs_refusal_of_a_tensor_is_cut_at_200_characters(monkeypatch):
    def refuse(spec, raw, device="cpu"):
        raise RuntimeError("x" * 199 + "yz" + "!" * 300)

    monkeypatch.setattr(wire, "payload_to_tensor", refuse)
    spec = {"dtype": "float32", "shape": [1], "nbytes": 4}
    with pytest.raises(wire.WireError) as refusal:
        wire.decode_values({"$tensor": 0}, [spec], [bytearray(4)])
    assert str(refusal.value) == "tensor 0 cannot be rebuilt: " + "x" * 199 + "y"


def test_a_declared_size_is_quoted_in_its_refusal_cut_at_40_characters():
    """A hostile child may declare any JSON number of bytes: the refusal quotes its first 40 digits."""
    declared = int("1234567890" * 6)
    spec = {"dtype": "float32", "shape": [2], "nbytes": declared}
    with pytest.raises(wire.WireError) as refusal:
        wire.validate_tensor_spec(spec)
    assert str(refusal.value) == f"declared {str(declared)[:40]!r} bytes, shape [2] of float32 needs 8"


def test_unsendable_values_are_refused():
    with pytest.raises(wire.WireError, match="cannot send"):
        wire.encode_values(object(), [], [])
    with pytest.raises(wire.WireError, match="cannot send a tensor of dtype complex64"):
        wire.encode_values(torch.zeros(2, dtype=torch.complex64), [], [])


def _raw_frame(header: dict, payload: bytes = b"") -> io.BytesIO:
    body = json.dumps(header).encode()
    return io.BytesIO(wire.MAGIC + struct.pack(">I", len(body)) + body + payload)


@pytest.mark.parametrize("header, payload, message", [
    ({"tensors": [{"dtype": "object", "shape": [1], "nbytes": 8}]}, b"\0" * 8, "not allowed"),
    ({"tensors": [{"dtype": "float32", "shape": [2], "nbytes": 4}]}, b"\0" * 4, "needs 8"),
    ({"tensors": [{"dtype": "float32", "shape": [-1], "nbytes": 0}]}, b"", "bad size"),
    ({"tensors": [{"dtype": "float32", "shape": [1.5], "nbytes": 4}]}, b"\0" * 4, "bad size"),
    ({"tensors": "x"}, b"", "not a list"),
])
def test_malformed_specs_are_refused(header, payload, message):
    with pytest.raises(wire.WireError, match=message):
        wire.read_frame(_raw_frame(header, payload))


def test_a_pickle_is_never_unpickled():
    forged = pickle.dumps({"verdict": "AC"})
    with pytest.raises(wire.WireError, match="bad magic"):
        wire.read_frame(io.BytesIO(forged))


def test_truncated_frames_and_oversized_payloads_are_refused():
    stream = _raw_frame({"tensors": [{"dtype": "float64", "shape": [4], "nbytes": 32}]}, b"\0" * 10)
    with pytest.raises(EOFError, match="stream ended with 22 of 32 bytes missing"):
        wire.read_frame(stream)
    huge = {"tensors": [{"dtype": "float64", "shape": [1 << 24], "nbytes": 8 << 24}]}
    with pytest.raises(wire.WireError, match=f"frame payload of {8 << 24} bytes exceeds {1 << 20} bytes"):
        wire.read_frame(_raw_frame(huge), max_bytes=1 << 20)
    body = b"x" * 10
    with pytest.raises(wire.WireError, match=f"header of {wire.MAX_HEADER_BYTES + 1} bytes exceeds the limit"):
        wire.read_frame(io.BytesIO(wire.MAGIC + struct.pack(">I", wire.MAX_HEADER_BYTES + 1) + body))
    with pytest.raises(wire.WireError, match="not JSON"):
        wire.read_frame(io.BytesIO(wire.MAGIC + struct.pack(">I", len(body)) + body))


def test_tensor_reference_out_of_range_is_refused():
    with pytest.raises(wire.WireError, match="tensor reference '3' out of range"):
        wire.decode_values({"$tensor": 3}, [], [])


# --- hostile frames: whatever arrives, the reader returns a value or raises WireError/EOFError ---

def _valid_frames() -> list[bytes]:
    """Frames the learner's side really sends (first messages and answers), to mutate."""
    frames = []
    for value in (torch.arange(6).reshape(2, 3), [torch.zeros(2), 1.5, None, "x"], {"a": torch.ones(1)}, 7):
        specs, payloads = [], []
        header = {"ok": True, "value": wire.encode_values(value, specs, payloads), "elapsed_ms": 1.0, "tensors": specs}
        stream = io.BytesIO()
        wire.write_frame(stream, header, payloads)
        frames.append(stream.getvalue())
    for header in ({"ready": {"functions": {"f": {"params": [{"name": "x", "kind": "POSITIONAL_OR_KEYWORD",
                                                               "has_default": False}], "signature": "f(x)"}},
                              "torch": "2.13.0"}, "tensors": []},
                   {"raised": {"type": "ValueError", "message": "bad", "line": 3, "traceback": "tb", "memory": False},
                    "tensors": []}):
        stream = io.BytesIO()
        wire.write_frame(stream, header)
        frames.append(stream.getvalue())
    return frames


VALID_FRAMES = _valid_frames()


def _judge_side_read(data: bytes) -> None:
    """Everything the judge does with bytes from the learner's pipe, in order."""
    from judge.learner import protocol

    header, payloads = wire.read_frame(io.BytesIO(data), max_header_bytes=wire.MAX_REPLY_HEADER_BYTES)
    if "ready" in header or "load_error" in header:
        protocol.first_message(header)
        return
    answer = protocol.reply(header)
    if isinstance(answer, protocol.Returned):
        wire.decode_values(answer.value, header.get("tensors", []), payloads)


def _only_wire_errors(data: bytes) -> None:
    import time
    import tracemalloc

    tracemalloc.start()
    started = time.perf_counter()
    try:
        _judge_side_read(data)
    except (wire.WireError, EOFError):
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    # Bounded by what arrived: no payload materialized twice, no structure blown up from a few bytes.
    assert peak <= 64 * len(data) + (1 << 20), (peak, len(data))
    assert time.perf_counter() - started < 2.0


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=2048))
def test_random_bytes_only_ever_give_a_wire_error(data):
    _only_wire_errors(data)
    _only_wire_errors(wire.MAGIC + data)
    _only_wire_errors(wire.MAGIC + struct.pack(">I", len(data)) + data)


@settings(max_examples=400, deadline=None)
@given(frame=st.sampled_from(VALID_FRAMES), edits=st.lists(
    st.tuples(st.integers(0, 10_000), st.sampled_from(["flip", "insert", "delete", "truncate"]),
              st.binary(min_size=1, max_size=8)), min_size=1, max_size=6))
def test_mutated_frames_only_ever_give_a_value_or_a_wire_error(frame, edits):
    data = bytearray(frame)
    for position, kind, chunk in edits:
        at = position % (len(data) + 1)
        if kind == "flip" and data:
            data[at % len(data)] ^= chunk[0] or 1
        elif kind == "insert":
            data[at:at] = chunk
        elif kind == "delete":
            del data[at:at + len(chunk)]
        else:
            del data[at:]
    _only_wire_errors(bytes(data))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(header=st.dictionaries(st.sampled_from(["ok", "raised", "ready", "load_error", "value", "elapsed_ms",
                                               "tensors", "sandbox_error", "x"]), JSON_VALUES, max_size=5))
def test_well_formed_json_of_any_shape_only_ever_gives_a_value_or_a_wire_error(header):
    body = json.dumps(header).encode()
    _only_wire_errors(wire.MAGIC + struct.pack(">I", len(body)) + body)


def test_one_payload_is_never_materialized_twice():
    specs = [{"dtype": "uint8", "shape": [1 << 20], "nbytes": 1 << 20}]
    with pytest.raises(wire.WireError, match="more than once"):
        wire.decode_values([{"$tensor": 0}] * 40, specs, [bytearray(1 << 20)])
    used: set[int] = set()
    wire.decode_values([{"$tensor": 0}], specs, [bytearray(1 << 20)], used=used)
    with pytest.raises(wire.WireError, match="more than once"):  # the rule holds across calls on one frame
        wire.decode_values({"k": {"$tensor": 0}}, specs, [bytearray(1 << 20)], used=used)


@pytest.mark.parametrize("body, message", [
    (b'{"v":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "deeper"),
    (b'{"v":' + b"9" * 5000 + b"}", "not JSON"),
    (b'{"v":' + str(2**64).encode() + b"}", "64 bits"),
    (b'{"v":"\\udfff"}', "Unicode"),
    (b'{"\\ud800":1}', "Unicode"),  # in a key
    (b'{"v":{"w":["caf\xc3\xa9", "\\ud83d"]}}', "Unicode"),  # beside valid non-ASCII, nested
    (b'{"v":[' + str(-(2**63) - 1).encode() + b"]}", "64 bits"),
    (b'{"v":"\xc3"}', "UTF-8"),
    (b"[1]", "not an object"),
    (b'{"v":[' + b"0," * 300_000 + b"0]}", "values"),
])
def test_headers_are_refused_past_every_bound(body, message):
    with pytest.raises(wire.WireError, match=message):
        wire.parse_header(body)


def test_valid_headers_pass_whatever_their_strings_and_numbers():
    body = r'{"a":"caf\u00e9 \ud83d\ude00","b":[9223372036854775807,-9223372036854775808,1.5,true,null],"c":{}}'
    assert wire.parse_header(body.encode())["b"][0] == 2**63 - 1
    assert wire.parse_header('{"v":"中文"}'.encode())["v"] == "中文"


def _walked_header(body: bytes):
    """What parse_header decided before it skipped the walk where the text rules it out: the
    plain ``json.loads`` and the walk over every value; the header, or WireError's message."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    try:
        header = json.loads(text)
    except ValueError:
        return "not JSON"
    try:
        wire._check_values(header)
    except wire.WireError as exc:
        return str(exc)
    return header


def _faults(header) -> set[str]:
    """Every WireError message some part of ``header`` earns on its own: a header with two faults
    (an integer past 64 bits and a lone surrogate) is refused for either, whichever is met first."""
    found = set()
    pending = [header]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        else:
            try:
                wire._check_values({"leaf": value})
            except wire.WireError as exc:
                found.add(str(exc))
    return found


# Strings with escapes of every kind, lone surrogates included (json.dumps writes them as \u escapes).
ESCAPED_TEXT = st.text(alphabet=st.characters(blacklist_categories=()), max_size=12)


@settings(max_examples=400, deadline=None)
@given(value=st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | ESCAPED_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(ESCAPED_TEXT, children, max_size=4),
    max_leaves=30), ascii=st.booleans())
@example(value=[2**63, {"\ud800": None}], ascii=True)  # two faults: either may be named
def test_the_header_checks_decide_as_the_walk_over_every_value(value, ascii):
    body = json.dumps({"v": value}, ensure_ascii=ascii, allow_nan=True).encode("utf-8", "surrogatepass")
    expected = _walked_header(body)
    try:
        got = wire.parse_header(body)
    except wire.WireError as exc:
        assert isinstance(expected, str), (expected, exc)
        reasons = {expected} if expected in ("not UTF-8", "not JSON") else {expected} | _faults(json.loads(body))
        assert any(reason in str(exc) for reason in reasons), (reasons, exc)
    else:
        assert not isinstance(expected, str), expected
        assert json.dumps(got, allow_nan=True) == json.dumps(expected, allow_nan=True)


def test_a_bracket_inside_a_string_does_not_count_as_nesting():
    header = wire.parse_header(b'{"message": "' + b"[" * 1000 + b'\\"[[[", "v": [[1]]}')
    assert header["v"] == [[1]]


SPEC_VALUES = JSON_VALUES | st.sampled_from(list(wire.DTYPES)) | st.lists(st.integers(-2, 2**63), max_size=9)


@settings(max_examples=300, deadline=None)
@given(specs=st.lists(st.dictionaries(st.sampled_from(["dtype", "shape", "nbytes", "device", "pad"]), SPEC_VALUES,
                                      max_size=5), max_size=4),
       value=JSON_VALUES | st.builds(lambda i: {"$tensor": i}, st.integers(-1, 4)),
       payload=st.binary(max_size=64))
def test_tensor_specs_of_any_shape_only_ever_give_a_value_or_a_wire_error(specs, value, payload):
    body = json.dumps({"ok": True, "value": value, "tensors": specs}).encode()
    _only_wire_errors(wire.MAGIC + struct.pack(">I", len(body)) + body + payload)


def test_an_unhashable_dtype_is_a_wire_error():
    body = json.dumps({"ok": True, "value": None, "tensors": [{"dtype": [], "shape": [1], "nbytes": 4}]}).encode()
    with pytest.raises(wire.WireError, match=re.escape("dtype '[]' is not allowed")):
        wire.read_frame(io.BytesIO(wire.MAGIC + struct.pack(">I", len(body)) + body + b"1234"))


@pytest.mark.parametrize("text", [
    '{"a":"' + "[" * 40 + '\\"' * 400_000 + '"}',   # quadratic for a regular expression that skips strings
    '"' + '[\\"' * 300_000,
    "[" * 33 + '"' + '\\"' * 400_000,
])
def test_the_nesting_check_is_linear_in_the_text(text):
    import time

    started = time.perf_counter()
    wire.nesting_exceeds(text, 32)
    # A hang detector, not a speed test: linear takes well under a second; quadratic, hours.
    assert time.perf_counter() - started < 20


# --- how frames cross a stream: however the bytes are split, the same frame; one write per frame ---

def _frame_bytes(value) -> bytes:
    return _frame(value).getvalue()


class _Trickle:
    """A stream that hands out at most ``step`` bytes per call, through ``read`` only, or also
    ``readinto`` or ``readv`` (as the judge's pipe does), and counts the calls."""

    def __init__(self, data: bytes, step: int, kind: str) -> None:
        self.data, self.at, self.step, self.calls = data, 0, step, 0
        if kind == "readinto":
            self.readinto = self._readinto
        elif kind == "readv":
            self.readv = self._readv

    def read(self, n: int) -> bytes:
        self.calls += 1
        chunk = self.data[self.at:self.at + min(n, self.step)]
        self.at += len(chunk)
        return chunk

    def _readinto(self, buffer) -> int:
        return self._readv([buffer])

    def _readv(self, buffers) -> int:
        self.calls += 1
        budget, placed = self.step, 0
        for buffer in buffers:
            view = memoryview(buffer).cast("B")
            take = min(len(view), budget, len(self.data) - self.at)
            view[:take] = self.data[self.at:self.at + take]
            self.at += take
            budget -= take
            placed += take
            if take < len(view):
                break
        return placed


TRICKLED = [torch.arange(7, dtype=torch.int64), {"a": torch.rand(3, 5), "b": [torch.ones(0), torch.tensor([True])]},
            "no tensor at all", [torch.rand(2, 2).double() for _ in range(5)]]


@pytest.mark.parametrize("kind", ["read", "readinto", "readv"])
@pytest.mark.parametrize("step", [1, 2, 3, 5, 64, 1 << 20])
def test_a_frame_split_across_many_tiny_reads_still_parses(kind, step):
    for value in TRICKLED:
        data = _frame_bytes(value)
        stream = _Trickle(data, step, kind)
        header, payloads = wire.read_frame(stream)
        assert stream.at == len(data)  # all of it, and not a byte of whatever follows
        back = wire.decode_values(header["value"], header["tensors"], payloads)
        expected = wire.decode_values(*_decoded_parts(data))
        assert repr(back) == repr(expected)


def _decoded_parts(data: bytes):
    header, payloads = wire.read_frame(io.BytesIO(data))
    return header["value"], header["tensors"], payloads


@pytest.mark.parametrize("kind", ["read", "readinto", "readv"])
def test_a_frame_cut_anywhere_is_an_end_of_file_not_a_hang_or_another_error(kind):
    data = _frame_bytes({"a": torch.rand(3, 5), "b": torch.arange(4)})
    for cut in range(1, len(data)):
        with pytest.raises(EOFError, match=r"^stream ended with \d+ of \d+ bytes missing$"):
            wire.read_frame(_Trickle(data[:cut], 3, kind))
    with pytest.raises(EOFError, match="no frame"):
        wire.read_frame(_Trickle(b"", 3, kind))


def test_readv_fills_several_payloads_in_one_call():
    data = _frame_bytes([torch.arange(3), torch.arange(4), torch.arange(5)])
    stream = _Trickle(data, 1 << 20, "readv")
    wire.read_frame(stream)
    assert stream.calls == 3  # the magic and length, the header, then every payload at once


def test_a_wrong_magic_is_refused_from_its_first_bytes():
    class OneByteThenNothing:
        def __init__(self):
            self.reads = 0

        def read(self, n):
            self.reads += 1
            if self.reads > 1:
                raise AssertionError("read again after a wrong first byte: a hostile child could stall the judge")
            return b"X"

    with pytest.raises(wire.WireError, match="bad magic"):
        wire.read_frame(OneByteThenNothing())
    with pytest.raises(wire.WireError, match="bad magic"):
        wire.read_frame(_Trickle(b"PJ2" + b"\0" * 20, 2, "read"))


class _Gathering(io.BytesIO):
    """A stream with ``writev``: records each call's buffers."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def writev(self, buffers):
        self.calls.append([bytes(b) for b in buffers])
        for buffer in buffers:
            self.write(buffer)


def test_a_frame_goes_out_in_one_writev_with_the_same_bytes_as_plain_writes():
    value = {"x": torch.arange(6).reshape(2, 3), "y": [torch.rand(4), 1.5]}
    specs, payloads = [], []
    header = {"value": wire.encode_values(value, specs, payloads), "tensors": specs}
    gathering, plain = _Gathering(), io.BytesIO()
    wire.write_frame(gathering, header, payloads)
    wire.write_frame(plain, header, payloads)
    assert len(gathering.calls) == 1 and len(gathering.calls[0]) == 2 + len(payloads)
    assert gathering.getvalue() == plain.getvalue()


def test_a_header_encoded_first_goes_out_as_write_frame_writes_it():
    value = {"x": torch.arange(6), "text": "中文 \"quoted\" \u0001", "n": [float("nan"), float("inf"), -0.0, 2**62]}
    specs, payloads = [], []
    header = {"value": wire.encode_values(value, specs, payloads), "tensors": specs}
    whole, encoded_first = io.BytesIO(), io.BytesIO()
    wire.write_frame(whole, header, payloads)
    wire.write_encoded_frame(encoded_first, wire.encode_header(header), payloads)
    assert encoded_first.getvalue() == whole.getvalue()


def test_a_payload_is_a_view_of_the_tensor_that_keeps_its_memory_alive():
    import gc

    tensor = torch.arange(1000, dtype=torch.int64)
    expected = wire.tensor_to_payload(tensor)[1]
    specs, payloads = [], []
    wire.encode_values(tensor, specs, payloads)
    assert specs[0]["nbytes"] == len(expected) == 8000
    del tensor
    gc.collect()
    torch.zeros(1000, dtype=torch.int64)  # would reuse the memory if the view had let it go
    assert bytes(payloads[0]) == expected
    with pytest.raises(TypeError, match="cannot modify read-only memory"):
        payloads[0][0] = 1  # read-only: nothing on the way can write into a tensor through it


@pytest.mark.parametrize("moved", [0, 1, 3, 4, 5, 9, 10, 12])
def test_consume_drops_exactly_what_one_call_moved(moved):
    views = wire.byte_views([b"abc", b"", bytearray(b"defg"), memoryview(b"hijkl")])
    assert [bytes(v) for v in views] == [b"abc", b"defg", b"hijkl"]  # empty buffers are left out
    wire.consume(views, moved)
    assert b"".join(bytes(v) for v in views) == b"abcdefghijkl"[moved:]
    assert all(len(v) for v in views)  # an empty view left at the front would read as end of file


@pytest.mark.parametrize("size", [wire.UNINITIALIZED_FROM_BYTES - 1, wire.UNINITIALIZED_FROM_BYTES, 3 << 20])
def test_a_payload_is_read_into_a_buffer_of_its_own_that_the_tensor_is_built_on(size):
    """Large payloads are read into memory that is not zero-filled first: every byte is the frame's,
    each frame's buffers are new (a tensor handed on is never overwritten by a later frame), and
    the tensor is built on the buffer without a copy."""
    first, second = torch.arange(size, dtype=torch.uint8), torch.full((size,), 7, dtype=torch.uint8)
    header, payloads = wire.read_frame(_frame([first, torch.arange(3.0)]))
    value = wire.decode_values(header["value"], header["tensors"], payloads)
    assert torch.equal(value[0], first) and torch.equal(value[1], torch.arange(3.0))
    again, payloads_again = wire.read_frame(_frame([second, torch.zeros(3)]))
    later = wire.decode_values(again["value"], again["tensors"], payloads_again)
    assert torch.equal(later[0], second) and torch.equal(value[0], first)  # the first frame's tensor is as it was
    payloads[0][0] = 200  # the buffer is the tensor's storage: no copy on the way
    assert value[0][0].item() == 200


def test_a_frame_cut_inside_a_large_payload_is_an_end_of_stream():
    data = _frame([torch.ones(1 << 20)]).getvalue()
    with pytest.raises(EOFError, match="stream ended with 1 of "):
        wire.read_frame(io.BytesIO(data[: len(data) - 1]))


# --- frame_fits: what the judge checks before it sends a frame, exactly what read_frame takes ---

def _read_frame_takes(body: bytes, specs, max_bytes=wire.MAX_FRAME_BYTES, max_header_bytes=wire.MAX_HEADER_BYTES):
    """Whether read_frame, on the child's side, takes the frame written of ``body`` and ``specs``."""
    stream = io.BytesIO()
    wire.write_encoded_frame(stream, body, [bytes(spec["nbytes"]) for spec in specs])
    stream.seek(0)
    try:
        wire.read_frame(stream, max_bytes=max_bytes, max_header_bytes=max_header_bytes)
    except wire.WireError:
        return False
    return True


def _spec(nbytes: int) -> dict:
    return {"dtype": "uint8", "shape": [nbytes], "nbytes": nbytes, "device": "cpu"}


def _nested(depth: int):
    """A value that opens ``depth`` arrays and objects at once, in turn."""
    value: object = 0
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def _bound_cases():
    """``(name, header, specs, max_bytes, max_header_bytes)`` just within each bound, and the same
    just past it; the header holds its specs as ``"tensors"``."""
    # The header's bytes: '{"tensors":[],"s":"' + text + '"}' with 2-byte characters, one more at the end.
    base = len(wire.encode_header({"tensors": [], "s": ""}))
    for extra in (0, 1):
        yield "header bytes", {"tensors": [], "s": "é" * 100 + "x" * extra}, [], wire.MAX_FRAME_BYTES, base + 200
    for extra in (0, 1):  # depth: the header's object, then the nest under "v"
        yield "nesting", {"v": _nested(wire.MAX_DEPTH - 1 + extra), "tensors": []}, [], wire.MAX_FRAME_BYTES, None
    # values: the header, its keys "v" and "tensors", the list "v" and its items, the list "tensors"
    for extra in (0, 1):
        yield "values", {"v": [0] * (wire.MAX_NODES - 5 + extra), "tensors": []}, [], wire.MAX_FRAME_BYTES, None
    for extra in (0, 1):  # the same count with empty lists and objects, strings and escapes beside
        group = [[], {}, ["x"], "[{,:", '\\"[']  # 6 values: an array that holds a string is not empty
        items = group * ((wire.MAX_NODES - 5) // 6) + [0] * ((wire.MAX_NODES - 5) % 6 + extra)
        yield "values with empties", {"v": items, "tensors": []}, [], wire.MAX_FRAME_BYTES, None
    for extra in (0, 1):
        specs = [_spec(1)] * (wire.MAX_TENSORS + extra)
        yield "tensors", {"tensors": specs}, specs, wire.MAX_FRAME_BYTES, None
    for extra in (0, 1):
        specs = [_spec(1000), _spec(24 + extra)]
        yield "payload bytes", {"tensors": specs}, specs, 1024, None
    for value in (2**63 - 1, -(2**63), 2**63, -(2**63) - 1):
        yield "integers", {"v": [1, {"w": value}], "tensors": []}, [], wire.MAX_FRAME_BYTES, None
    yield "19 digits in a string", {"v": "9" * 40, "tensors": []}, [], wire.MAX_FRAME_BYTES, None
    yield "19 digits of a float", {"v": [0.00012345678901234567] * 40, "tensors": []}, [], wire.MAX_FRAME_BYTES, None


BOUND_CASES = list(_bound_cases())


@pytest.mark.parametrize(("name", "header", "specs", "max_bytes", "max_header_bytes"), BOUND_CASES,
                         ids=[f"{case[0]}-{i}" for i, case in enumerate(BOUND_CASES)])
def test_frame_fits_says_what_read_frame_takes_at_each_bound(name, header, specs, max_bytes, max_header_bytes):
    body = wire.encode_header(header)
    limits = {"max_bytes": max_bytes, "max_header_bytes": max_header_bytes or wire.MAX_HEADER_BYTES}
    assert wire.frame_fits(body, specs, **limits) == _read_frame_takes(body, specs, **limits)


def test_each_bound_is_met_just_within_and_passed_just_beyond():
    pairs = [case[0] for case in BOUND_CASES[:12]]
    assert pairs == [name for name in dict.fromkeys(pairs) for _ in (0, 1)]  # within, then beyond
    for index in range(0, 12, 2):
        (name, header, specs, max_bytes, max_header_bytes), beyond = BOUND_CASES[index], BOUND_CASES[index + 1]
        limits = {"max_bytes": max_bytes, "max_header_bytes": max_header_bytes or wire.MAX_HEADER_BYTES}
        assert wire.frame_fits(wire.encode_header(header), specs, **limits), name
        assert not wire.frame_fits(wire.encode_header(beyond[1]), beyond[2], **limits), name
    integers = [wire.frame_fits(wire.encode_header(case[1]), []) for case in BOUND_CASES if case[0] == "integers"]
    assert integers == [True, True, False, False]


def test_brackets_quotes_and_backslashes_in_strings_do_not_count_as_nesting():
    text = "[" * 1000 + '\\"[{' + '\\\\' + '"' + "{" * 50
    header = {"message": text, text: [[1]], "v": _nested(wire.MAX_DEPTH - 1), "tensors": []}
    body = wire.encode_header(header)
    assert wire.frame_fits(body, []) and _read_frame_takes(body, [])


# Small bounds, so that generated headers reach them; frame_fits and read_frame read them alike.
SMALL_BOUNDS = {"MAX_DEPTH": 4, "MAX_NODES": 40, "MAX_TENSORS": 3}
FRAME_TEXT = st.text(alphabet=st.sampled_from('ab[]{}",:\\\n\x01é中0123456789'), max_size=24)


@settings(max_examples=500, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | FRAME_TEXT,
        lambda children: st.lists(children, max_size=5) | st.dictionaries(FRAME_TEXT, children, max_size=5),
        max_leaves=40),
    sizes=st.lists(st.integers(0, 40), max_size=5),
    max_bytes=st.integers(0, 100),
    max_header_bytes=st.integers(0, 600),
)
def test_frame_fits_agrees_with_what_read_frame_takes(value, sizes, max_bytes, max_header_bytes):
    from unittest import mock

    specs = [_spec(size) for size in sizes]
    body = wire.encode_header({"v": value, "tensors": specs})
    limits = {"max_bytes": max_bytes, "max_header_bytes": max_header_bytes}
    with mock.patch.multiple(wire, **SMALL_BOUNDS):
        assert wire.frame_fits(body, specs, **limits) == _read_frame_takes(body, specs, **limits)
