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
