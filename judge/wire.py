"""The byte format between the trusted judge and the untrusted learner process.

Frames carry a JSON header and raw tensor payloads with a declared dtype and shape. Nothing
is ever unpickled: the parser accepts only the dtypes below, checks every size against the
header and a hard limit, and refuses anything else.

Frame layout: ``b"PJ1"`` magic, 4-byte big-endian header length, the UTF-8 JSON header, then
the payloads in the order the header lists them (``header["tensors"]``: dtype, shape, nbytes).
In the header, a tensor value is written ``{"$tensor": i}`` and a generator ``{"$generator":
seed}``; the Python side decodes them with :func:`decode_values`.
"""

from __future__ import annotations

import ctypes
import json
import struct
from typing import Any, BinaryIO

MAGIC = b"PJ1"
MAX_HEADER_BYTES = 4 << 20  # room for a 512 kB source even if every character needs a \u escape
# Large enough for [64, 32000] float64 probabilities plus slack; a child may not send more.
MAX_FRAME_BYTES = 64 << 20

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


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks = []
    remaining = n
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            raise EOFError(f"stream ended with {remaining} of {n} bytes missing")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def write_frame(stream: BinaryIO, header: dict[str, Any], payloads: list[bytes] = ()) -> None:
    """Write one frame. ``header["tensors"]`` must already describe ``payloads``."""
    body = json.dumps(header, allow_nan=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    stream.write(MAGIC + struct.pack(">I", len(body)) + body)
    for payload in payloads:
        stream.write(payload)
    stream.flush()


def read_frame(stream: BinaryIO, max_bytes: int = MAX_FRAME_BYTES) -> tuple[dict[str, Any], list[bytes]]:
    """Read and validate one frame.

    Returns ``(header, payloads)``. Raises :class:`EOFError` when the stream ends before a
    frame starts or in the middle of one, and :class:`WireError` for anything malformed.
    """
    magic = stream.read(len(MAGIC))
    if not magic:
        raise EOFError("no frame")
    if len(magic) < len(MAGIC):
        magic += _read_exact(stream, len(MAGIC) - len(magic))
    if magic != MAGIC:
        raise WireError(f"bad magic {magic!r}")
    (length,) = struct.unpack(">I", _read_exact(stream, 4))
    if length > MAX_HEADER_BYTES:
        raise WireError(f"header of {length} bytes exceeds the limit")
    try:
        header = json.loads(_read_exact(stream, length).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WireError(f"header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    specs = header.get("tensors", [])
    if not isinstance(specs, list):
        raise WireError("'tensors' is not a list")
    total = 0
    payloads = []
    for spec in specs:
        nbytes = validate_tensor_spec(spec)
        total += nbytes
        if total > max_bytes:
            raise WireError(f"frame payload exceeds {max_bytes} bytes")
        payloads.append(_read_exact(stream, nbytes))
    return header, payloads


def validate_tensor_spec(spec: Any) -> int:
    """Check one ``{"dtype", "shape", "nbytes"}`` entry; return its byte size."""
    if not isinstance(spec, dict):
        raise WireError("tensor spec is not an object")
    dtype, shape, nbytes = spec.get("dtype"), spec.get("shape"), spec.get("nbytes")
    if dtype not in DTYPES:
        raise WireError(f"dtype {dtype!r} is not allowed")
    if not isinstance(shape, list) or len(shape) > 8:
        raise WireError("shape must be a list of at most 8 sizes")
    count = 1
    for size in shape:
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise WireError(f"bad size {size!r} in shape")
        count *= size
    if nbytes != count * DTYPES[dtype]:
        raise WireError(f"declared {nbytes!r} bytes, shape {shape} of {dtype} needs {count * DTYPES[dtype]}")
    return nbytes


def tensor_to_payload(tensor: Any) -> tuple[dict[str, Any], bytes]:
    """Serialize a torch tensor (any device) to ``(spec, raw bytes)``; the spec also names its device."""
    dtype = str(tensor.dtype).removeprefix("torch.")
    if dtype not in DTYPES:
        raise WireError(f"cannot send a tensor of dtype {dtype}")
    cpu = tensor.detach().to("cpu").contiguous()
    # ctypes instead of .numpy(): numpy is not a dependency of torch, so it may be absent.
    raw = ctypes.string_at(cpu.data_ptr(), cpu.numel() * cpu.element_size()) if cpu.numel() else b""
    spec = {"dtype": dtype, "shape": list(cpu.shape), "nbytes": len(raw), "device": str(tensor.device)}
    return spec, raw


def payload_to_tensor(spec: dict[str, Any], raw: bytes, device: str = "cpu") -> Any:
    """Rebuild a tensor from a validated spec and its bytes (a copy: the buffer is not shared)."""
    import torch

    validate_tensor_spec(spec)
    dtype = getattr(torch, spec["dtype"])
    if not raw:
        tensor = torch.empty(spec["shape"], dtype=dtype)
    else:
        tensor = torch.frombuffer(bytearray(raw), dtype=dtype).reshape(spec["shape"])
    return tensor.to(device) if device != "cpu" else tensor


def encode_values(value: Any, specs: list[dict[str, Any]], payloads: list[bytes]) -> Any:
    """Turn a nest of tensors / numbers / strings / lists / dicts into JSON plus payloads.

    Raises :class:`WireError` for a value that has no safe encoding.
    """
    import torch

    if isinstance(value, torch.Tensor):
        spec, raw = tensor_to_payload(value)
        specs.append(spec)
        payloads.append(raw)
        return {"$tensor": len(specs) - 1}
    if isinstance(value, GeneratorSpec):
        return {"$generator": value.seed}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [encode_values(v, specs, payloads) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: encode_values(v, specs, payloads) for k, v in value.items()}
    raise WireError(f"cannot send a value of type {type(value).__name__}")


def decode_values(value: Any, specs: list[dict[str, Any]], payloads: list[bytes], device: str = "cpu") -> Any:
    """Inverse of :func:`encode_values`; generators come back as :class:`GeneratorSpec`."""
    if isinstance(value, dict):
        if set(value) == {"$tensor"}:
            index = value["$tensor"]
            if not isinstance(index, int) or not 0 <= index < len(payloads):
                raise WireError(f"tensor reference {index!r} out of range")
            tensor = payload_to_tensor(specs[index], payloads[index], device)
            if isinstance(specs[index].get("device"), str):
                # Where the sender's tensor lived, so the judge can check "outputs stay on the device".
                tensor.origin_device = specs[index]["device"]
            return tensor
        if set(value) == {"$generator"}:
            seed = value["$generator"]
            if not isinstance(seed, int) or isinstance(seed, bool):
                raise WireError(f"generator seed {seed!r} is not an integer")
            return GeneratorSpec(seed)
        return {k: decode_values(v, specs, payloads, device) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_values(v, specs, payloads, device) for v in value]
    return value


class GeneratorSpec:
    """A ``torch.Generator`` to create on the learner's side, seeded with ``seed``."""

    __slots__ = ("seed",)

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)

    def __repr__(self) -> str:
        return f"torch.Generator().manual_seed({self.seed})"
