"""The byte format between judge and learner: round trips, and refusal of anything malformed."""

from __future__ import annotations

import io
import json
import pickle
import struct

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge import wire


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


def test_unsendable_values_are_refused():
    with pytest.raises(wire.WireError, match="cannot send"):
        wire.encode_values(object(), [], [])
    with pytest.raises(wire.WireError, match="dtype"):
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
    with pytest.raises(EOFError):
        wire.read_frame(stream)
    huge = {"tensors": [{"dtype": "float64", "shape": [1 << 24], "nbytes": 8 << 24}]}
    with pytest.raises(wire.WireError, match="exceeds"):
        wire.read_frame(_raw_frame(huge), max_bytes=1 << 20)
    body = b"x" * 10
    with pytest.raises(wire.WireError, match="header"):
        wire.read_frame(io.BytesIO(wire.MAGIC + struct.pack(">I", wire.MAX_HEADER_BYTES + 1) + body))
    with pytest.raises(wire.WireError, match="not JSON"):
        wire.read_frame(io.BytesIO(wire.MAGIC + struct.pack(">I", len(body)) + body))


def test_tensor_reference_out_of_range_is_refused():
    with pytest.raises(wire.WireError, match="out of range"):
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
    from judge import protocol

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
    (b'{"v":"\xc3"}', "UTF-8"),
    (b"[1]", "not an object"),
    (b'{"v":[' + b"0," * 300_000 + b"0]}", "values"),
])
def test_headers_are_refused_past_every_bound(body, message):
    with pytest.raises(wire.WireError, match=message):
        wire.parse_header(body)


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
    with pytest.raises(wire.WireError, match="dtype"):
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
