"""The untrusted side of the runner: loads the learner's source and answers calls.

Run as ``python judge/sandbox/child.py --device D --in FD --out FD [--lifeline FD] [--memory-mb M]
[--import-dir DIR]`` by :class:`judge.sandbox.launchers.LocalLauncher` (the ``strict`` level's fork
server, :mod:`judge.sandbox.zygote`, calls :func:`serve` directly once the job is confined). This
process holds nothing secret: it receives the learner's source and only the inputs of the current
call (hidden expected values and reference solutions never reach it) and sends back values in the
:mod:`judge.learner.wire` format, which cannot carry code; :mod:`judge.learner.protocol` is what the judge accepts
of it. Anything it prints goes to the output pipe the parent gave it as stdout/stderr, never to
the protocol pipe. With ``--lifeline`` it first splits into a keeper and the worker that runs the
learner's code (:mod:`judge.sandbox.keeper`). ``--import-dir`` (``local`` only) is the folder of
the learner's file, appended to ``sys.path`` for the helper modules beside it.

Protocol (one frame each way per request):
  parent -> ``{"op": "load", "source", "filename"}`` first, at every level
  child  -> ``{"ready": ...}`` or ``{"load_error": {...}}``
  parent -> ``{"op": "call", "function", "args", "kwargs", "extreme_uniforms", "global_seed"[,
            "draw_sites": {"site", "high", "seed"}]}``, plus ``"watch_global_rng": true`` to ask
            whether the call changes torch's default generators
  child  -> ``{"ok": true, "value", "elapsed_ms", "modified"[, "draw_sites"]}`` (with
            ``"global_rng_changed"`` when asked) or ``{"raised": {...}, "elapsed_ms"}``
            (``draw_sites``: the count of :class:`judge.learner.uniform_sources.DrawSites`, when the
            request asked for it)
  parent -> ``{"op": "refusals", "calls": [{"function", "args", "kwargs"}...], "accept": [class names],
            "extreme_uniforms", "global_seed"}``: calls expected to raise, run in order until one is
            not refused (see :func:`_refusals`)
  child  -> ``{"refused": [{...}...], "refused_ms": [...]}``, plus one reply's fields for the call
            that stopped the batch, if one did
  parent -> ``{"op": "exit"}`` (or end-of-file) ends it; the judge itself never asks, it ends a
            job by killing its tree (:meth:`judge.engine.process.LearnerProcess.close`).
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from pathlib import Path
from typing import Any

# Run as a script: import the judge this script belongs to (the parent's own copy, whatever
# copy an installed package points at), but keep judge/sandbox/ itself off the path so a learner's
# ``import confine`` (or ``import child``) cannot pick up the judge's modules by accident.
_ROOT = str(Path(__file__).resolve().parents[2])
if sys.path and sys.path[0] == str(Path(__file__).resolve().parent):
    sys.path[0] = _ROOT
elif _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from judge.learner import protocol, wire  # noqa: E402
from judge.learner.code import (  # noqa: E402
    OUTPUT_FILE_LIMIT,
    LearnerRandomness,
    describe_exception,
    describe_functions,
    exception_classes,
    exception_lines,
    load_learner_module,
    same_tensor,
    summarize_exception,
    tensor_inputs,
)
from judge.learner.hosts import HostProxy, HostSpec  # noqa: E402
from judge.learner.uniform_sources import DrawSites, ExtremeUniforms  # noqa: E402
from judge.sandbox import keeper  # noqa: E402

PROCESS_ALLOWANCE = 256  # processes a learner's code may start at the local level
DEFAULT_FILENAME = "solution.py"


def address_space_in_use() -> int:
    """Bytes of address space this process maps now (``VmSize``; 0 where /proc does not say).

    The memory limit is on top of it: a CUDA build of torch maps several GB it never touches,
    a CPU build about 0.6 GB, and neither is the learner's to count.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _apply_limits(memory_mb: int | None, device: str) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Output goes to a pipe the judge drains and caps; files the code writes stop here.
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_FILE_LIMIT, OUTPUT_FILE_LIMIT))
    # Address-space limits break CUDA (it reserves huge virtual ranges), so only on CPU.
    if memory_mb and device == "cpu":
        limit = (memory_mb << 20) + address_space_in_use()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # A fork bomb stops here (for a user other than root, whom the kernel exempts): RLIMIT_NPROC
    # counts all of the user's processes, so the allowance is on top of what it runs already.
    processes = _processes_of_this_user()
    if processes:
        allowance = processes + PROCESS_ALLOWANCE
        resource.setrlimit(resource.RLIMIT_NPROC, (allowance, allowance))


def _processes_of_this_user() -> int:
    """How many processes the calling user runs (0 where /proc cannot tell)."""
    uid = os.getuid()
    try:
        return sum(1 for entry in os.scandir("/proc") if entry.name.isdigit() and _owner(entry.path) == uid)
    except OSError:
        return 0


def _owner(path: str) -> int | None:
    try:
        return os.stat(path).st_uid
    except OSError:
        return None


def prepare_torch():
    """Import torch single-threaded and warm it up (before any sandbox layer: it reads /proc)."""
    import torch

    # One thread: the judge runs beside other work (and other jobs), where torch's thread pool
    # oversubscribes the cores (measured: 355 ms instead of 15 ms on the 32 000-token batch).
    # In a fork server it is also required: a child forked after a parallel region deadlocks.
    torch.set_num_threads(1)
    torch.ones(2, 2).sum()  # the first op reads the CPU's features; learner calls are not charged for it
    return torch


def serve(device: str, fd_in: int, fd_out: int, import_dir: str | None = None) -> int:
    """Read the learner's source from ``fd_in``, load it, and answer calls until told to exit.

    ``import_dir`` (``local`` only) is where the learner's file sits: its modules import from
    there, and the code is compiled under its path there (tracebacks show only its short name).
    """
    inbox = _PipeReader(fd_in)
    outbox = _PipeWriter(fd_out)
    global _CALLBACKS
    _CALLBACKS = _Callbacks(inbox, outbox)
    try:
        load, _ = wire.read_frame(inbox)
    except (EOFError, wire.WireError):
        return 0  # the judge gave up on this job before sending the source
    filename = str(load.get("filename") or DEFAULT_FILENAME)
    name = os.path.join(import_dir, filename) if import_dir else filename
    import torch

    randomness = LearnerRandomness.on(torch, device)  # before the learner's code can rebind anything
    module = _load(str(load.get("source", "")), name, outbox, torch)
    if module is None:
        return 0
    while True:
        try:
            request, payloads_in = wire.read_frame(inbox)
        except EOFError:
            return 0
        if request.get("op") == "exit":
            return 0
        if request.get("op") == "refusals":
            _reply(outbox, *_refusals(request, payloads_in, module, name, device, torch, randomness))
        else:
            _reply(outbox, *_one_call(request, payloads_in, module, name, device, torch, randomness=randomness))


class _Callbacks:
    """The learner's side of host functions (:mod:`judge.learner.hosts`): a call of a :class:`HostProxy`
    sends a callback frame on the reply pipe and blocks on the request pipe for the judge's answer,
    which is trusted (it comes from the judge)."""

    def __init__(self, inbox, outbox) -> None:
        self.inbox, self.outbox = inbox, outbox

    def exchange(self, key: int, args: list, kwargs: dict):
        specs: list[dict] = []
        payloads: list[wire.Buffer] = []
        try:
            call = {
                "host": key,
                "args": wire.encode_values(args, specs, payloads),
                "kwargs": wire.encode_values(kwargs, specs, payloads),
            }
        except Exception as exc:  # noqa: BLE001 - torch refusing a sparse or meta tensor too
            raise TypeError(
                f"this argument cannot be sent to the judge ({type(exc).__name__}: {str(exc)[:200]})"
            ) from None
        wire.write_frame(self.outbox, {"callback": call, "tensors": specs}, payloads)
        answer, payloads_in = wire.read_frame(self.inbox)
        raised = answer.get("host_raised")
        if isinstance(raised, dict):
            kind = ValueError if raised.get("type") == "ValueError" else RuntimeError
            raise kind(str(raised.get("message", "")))
        return wire.decode_values(answer.get("host_value"), answer.get("tensors", []), payloads_in)


_CALLBACKS: _Callbacks | None = None  # set by serve(), before the learner's code is loaded


class _PipeReader:
    """The request pipe, for :func:`judge.learner.wire.read_frame`: a request's tensors are read straight
    into their buffers, as many per ``readv`` as the pipe holds."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self, n: int) -> bytes:
        return os.read(self.fd, n)

    def readv(self, buffers) -> int:
        return os.readv(self.fd, buffers)


class _PipeWriter:
    """The reply pipe, for :func:`judge.learner.wire.write_frame`: a reply goes out in one ``writev``
    (header and the tensors straight from their memory) where the pipe has room for it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data) -> None:
        self.writev([data])

    def writev(self, buffers) -> None:
        pending = wire.byte_views(buffers)
        while pending:
            wire.consume(pending, os.writev(self.fd, pending[: wire.IOV_BATCH]))

    def flush(self) -> None:
        pass  # nothing is buffered


def _load(source: str, name: str, outbox, torch):
    """Import the learner's source as ``submission`` and say ``ready``; None after a ``load_error``."""
    try:
        module = load_learner_module(source, name)
    except BaseException as exc:  # noqa: BLE001 - every failure of learner code is reported
        _reply(outbox, {"load_error": describe_exception(exc, name)})
        return None
    _reply(outbox, {"ready": {"functions": describe_functions(module), "torch": torch.__version__}})
    return module


def _reply(outbox, header: dict, value=None) -> None:
    """Send one frame; a value the wire cannot carry becomes the learner's TypeError."""
    specs: list[dict] = []
    payloads: list[wire.Buffer] = []
    if header.get("ok"):
        try:
            header["value"] = wire.encode_values(value, specs, payloads)
        except Exception as exc:  # noqa: BLE001 - torch refusing a sparse, nested or meta tensor too
            if not isinstance(exc, wire.WireError):
                exc = wire.WireError(f"a value the judge cannot receive ({type(exc).__name__}: {str(exc)[:200]})")
            header = {
                "raised": {
                    "type": "TypeError",
                    "message": f"your function returned {exc}",
                    "line": None,
                    "traceback": f"TypeError: your function returned {exc}\n",
                    "memory": False,
                    "mro": exception_classes(TypeError),
                },
                "elapsed_ms": header.get("elapsed_ms", 0.0),
                **{key: header[key] for key in ("refused", "refused_ms") if key in header},
            }
            specs, payloads = [], []
    header["tensors"] = specs
    wire.write_frame(outbox, header, payloads)


def _refusals(
    request: dict, payloads_in: list, module, name: str, device: str, torch, randomness=None
) -> tuple[dict, object]:
    """Run a ``refusals`` request: its calls in order, each as :func:`_one_call` runs one, until one
    is not refused (it returns, or raises a type the request does not accept, or without a
    message: what the judge's ``expect_raises`` would fail); the reply's header and value.

    The judge checks every answer again, so stopping where it would stop is what keeps a batch
    the same as the calls one after the other: no call runs after the one that decides.
    """
    accept = request.get("accept")
    accepted = {str(n) for n in accept} if isinstance(accept, list) else set()
    calls = request.get("calls")
    used: set[int] = set()  # the calls share the frame's tensors, each used once
    refused: list[dict] = []
    refused_ms: list[float] = []
    describe = _BatchDescription(name, accepted)
    for call in calls if isinstance(calls, list) else []:
        one = dict(call) if isinstance(call, dict) else {}
        one.update({key: request.get(key) for key in ("tensors", "extreme_uniforms", "global_seed")})
        describe.refusal = None
        header, value = _one_call(one, payloads_in, module, name, device, torch, used, describe, randomness)
        refusal = describe.refusal
        if refusal is not None:
            refused.append(refusal)
            refused_ms.append(header["elapsed_ms"])
            continue
        header.update(refused=refused, refused_ms=refused_ms)
        return header, value
    return {"refused": refused, "refused_ms": refused_ms}, None


class _BatchDescription:
    """How a ``refusals`` batch describes what a call raised (``describe`` of :func:`_one_call`).

    A refusal sends only its type and the start of its message (:func:`_refusal`), so it is
    worked out from a description without a traceback: the same fields, computed the same way,
    so the same bytes go back, without formatting a traceback only to drop it (its exception
    line is still formatted, for what that runs of the learner's code). A call that
    stops the batch gets the full description, from the same summary (its message is not
    worked out again). ``refusal`` is the last call's refusal, None when it was not one.
    """

    def __init__(self, name: str, accepted: set[str]) -> None:
        self.name, self.accepted = name, accepted
        self.refusal: dict | None = None

    def __call__(self, exc: BaseException) -> dict:
        summary = summarize_exception(exc, self.name)
        brief = describe_exception(exc, self.name, summary, with_traceback=False)
        self.refusal = _refusal(brief, self.accepted)
        if self.refusal is None:
            return describe_exception(exc, self.name, summary)
        # What formatting the traceback would run of the learner's code (its __str__ and
        # __notes__ again), run as the same call made alone runs it: a __str__ that counts its
        # calls sees the same counts either way, and the learner's own subclass of an accepted
        # type (judged by isinstance) may be one.
        try:
            exception_lines(exc)
        except BaseException:  # noqa: BLE001 - as describe_exception's own formatting, whatever it raises
            pass
        return self.refusal


def _refusal(raised: dict, accepted: set[str]) -> dict | None:
    """What the judge needs of ``raised`` (a ``describe_exception``) when it will take it as a
    refusal: one of its classes is accepted (by name: ``builtins.ValueError`` takes a learner's
    subclass of ValueError) and its message, as the judge reads it
    (:func:`judge.learner.protocol.exception_info`), says something. None when it will not.

    Only its type, the start of its message and its accepted classes go back (see
    ``protocol.REFUSAL_MESSAGE``): the judge checks no more of a refusal, and a reply of many full
    descriptions (up to 12 000 characters each) would outgrow what the judge reads of one reply,
    where the same calls one at a time would not."""
    try:
        info = protocol.exception_info(raised)
    except wire.WireError:
        return None
    message = info.message.strip()
    classes = [name for name in info.mro if name in accepted]
    if not classes or not message:
        return None
    return {
        "type": info.type_name,
        "message": message[: protocol.REFUSAL_MESSAGE],
        "line": info.line,
        "traceback": "",
        "memory": info.memory,
        "mro": classes,
    }


def _one_call(
    request: dict,
    payloads_in: list,
    module,
    name: str,
    device: str,
    torch,
    used: set[int] | None = None,
    describe=None,
    randomness: LearnerRandomness | None = None,
) -> tuple[dict, object]:
    """Run one ``call`` request; the reply's header and value (which tensor inputs it changed, too,
    and whether it changed torch's default generators, when the request asks).

    ``used``: the frame's tensors taken so far (by earlier calls of a ``refusals`` batch);
    ``describe``: what makes a raised exception's description (``describe_exception`` by default),
    called where that exception is being handled; ``randomness``: the process's generators and
    watch (:func:`serve` makes them before loading the learner's code; new ones by default)."""
    function: Any = getattr(module, str(request.get("function")), None)  # the learner's object, whatever it is
    used = set() if used is None else used  # args and kwargs share the frame's tensors, each used once
    args = wire.decode_values(request.get("args", []), request.get("tensors", []), payloads_in, device, used)
    kwargs = wire.decode_values(request.get("kwargs", {}), request.get("tensors", []), payloads_in, device, used)
    if randomness is None:
        randomness = LearnerRandomness.on(torch, device)
    proxies: list[HostProxy] = []  # the host functions of this call, closed when it returns
    args = [_materialize(a, randomness, proxies) for a in args]
    kwargs = {k: _materialize(v, randomness, proxies, str(k)) for k, v in kwargs.items()}
    if request.get("global_seed") is not None:
        _seed_default_generators(torch, device, int(request["global_seed"]))
    inputs = tensor_inputs(function, args, kwargs, torch)
    before = {key: _Snapshot(tensor, torch) for key, tensor in inputs.items()}
    sites = _draw_sites(request.get("draw_sites"), torch)
    watched = request.get("watch_global_rng") is True
    states = randomness.watch.snapshot() if watched else None  # after the seeding: only the call counts
    started = time.perf_counter()
    try:
        if sites is not None:
            with sites:
                value = function(*args, **kwargs)
        elif request.get("extreme_uniforms") is not None:
            with ExtremeUniforms(torch, int(request["extreme_uniforms"])):
                value = function(*args, **kwargs)
        else:
            value = function(*args, **kwargs)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    except BaseException as exc:  # noqa: BLE001 - SystemExit from learner code is also an error
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        _close(proxies)
        raised = describe_exception(exc, name) if describe is None else describe(exc)
        return {"raised": raised, "elapsed_ms": elapsed_ms}, None
    _close(proxies)
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    modified = [key for key, tensor in inputs.items() if not before[key].holds(tensor, torch)]
    header: dict[str, Any] = {"ok": True, "elapsed_ms": elapsed_ms, "modified": modified[:64]}
    if sites is not None:
        header["draw_sites"] = sites.count
    if states is not None:
        header["global_rng_changed"] = randomness.watch.changed(states)
    return header, value


def _draw_sites(asked: Any, torch) -> DrawSites | None:
    """The draw-site phase a request asks for (``{"site", "high", "seed"}``), or None."""
    if not isinstance(asked, dict):
        return None
    site = asked.get("site")
    return DrawSites(torch, None if site is None else int(site), bool(asked.get("high")), int(asked.get("seed") or 0))


class _Snapshot:
    """What a tensor argument held before the call, to tell exactly whether the call changed it.

    The verdict is :func:`judge.learner.code.same_tensor`'s (values, NaN equal to NaN, shape,
    dtype, device). The common case is cheaper: a contiguous CPU tensor (what the wire gives) is
    copied as raw bytes, and when it still has the same shape, dtype and layout and the very same
    bytes afterwards, it holds the same values (equal bits are equal values, NaN included). Any
    other outcome, a changed byte included, is decided by ``same_tensor`` on the copy.
    """

    __slots__ = ("shape", "dtype", "device", "raw", "copy")

    def __init__(self, tensor, torch) -> None:
        self.shape, self.dtype, self.device = tensor.shape, tensor.dtype, tensor.device
        self.raw: bytes | None = None
        self.copy = None
        if _plain(tensor, torch):
            self.raw = _memory_of(tensor)
        else:
            self.copy = tensor.clone()

    def holds(self, tensor, torch) -> bool:
        """Whether ``tensor`` holds what it held when this snapshot was taken."""
        if self.raw is not None:
            if (
                tensor.shape == self.shape
                and tensor.dtype == self.dtype
                and _plain(tensor, torch)
                and _holds_bytes(tensor, self.raw)
            ):
                return True
            self.copy = _tensor_of(self.raw, self.shape, self.dtype, torch)
        return same_tensor(self.copy, tensor)


def _plain(tensor, torch) -> bool:
    """A dense, contiguous CPU tensor: its values are the bytes at ``data_ptr()``, in order."""
    return tensor.device.type == "cpu" and tensor.layout == torch.strided and tensor.is_contiguous()


def _memory_of(tensor) -> bytes:
    """A copy of the bytes of a plain tensor (:func:`_plain`)."""
    nbytes = tensor.numel() * tensor.element_size()
    return ctypes.string_at(tensor.data_ptr(), nbytes) if nbytes else b""


def _libc_memcmp():
    """libc's ``memcmp`` (address, bytes, size), or None where ctypes cannot find it."""
    try:
        memcmp = ctypes.CDLL(None).memcmp
    except (OSError, AttributeError):
        return None
    memcmp.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    memcmp.restype = ctypes.c_int
    return memcmp


_MEMCMP = _libc_memcmp()  # found before the sandbox: a confined process opens no library


def _holds_bytes(tensor, raw: bytes) -> bool:
    """Whether the bytes of a plain tensor (:func:`_plain`) are exactly ``raw``: compared where they
    lie, without the copy :func:`_memory_of` makes (a second copy of every input, per call)."""
    nbytes = tensor.numel() * tensor.element_size()
    if nbytes != len(raw):
        return False
    if not nbytes or _MEMCMP is None:
        return _memory_of(tensor) == raw
    return _MEMCMP(tensor.data_ptr(), raw, nbytes) == 0


def _tensor_of(raw: bytes, shape, dtype, torch):
    """The CPU tensor of ``shape`` and ``dtype`` whose bytes are ``raw``."""
    if not raw:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(raw), dtype=dtype).reshape(shape)


def _seed_default_generators(torch, device: str, seed: int) -> None:
    """Seed the default generator(s) the learner's code draws from on ``device``.

    On the CPU that is ``torch.default_generator`` alone: ``torch.manual_seed`` also queues the
    seeding of CUDA's generators with a formatted stack (for its error messages), which costs
    about 1 ms in the confined child, for generators a CPU job never has.
    """
    if device == "cpu":
        torch.default_generator.manual_seed(seed)
    else:
        torch.manual_seed(seed)


def _materialize(
    value, randomness: LearnerRandomness, proxies: list[HostProxy] | None = None, name: str = "the host function"
):
    if isinstance(value, wire.GeneratorSpec):
        return randomness.generators.make(value)
    if isinstance(value, HostSpec) and proxies is not None and _CALLBACKS is not None:
        proxy = HostProxy(value.key, _CALLBACKS.exchange, name)
        proxies.append(proxy)
        return proxy
    return value


def _close(proxies: list[HostProxy]) -> None:
    """The call returned: its host functions stop working (a later call of one raises RuntimeError)."""
    for proxy in proxies:
        proxy.open = False


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--in", dest="fd_in", type=int, required=True)
    parser.add_argument("--out", dest="fd_out", type=int, required=True)
    parser.add_argument("--lifeline", type=int, default=None)
    parser.add_argument("--memory-mb", type=int, default=None)
    parser.add_argument("--import-dir", default=None)
    options = parser.parse_args(argv)
    if options.lifeline is not None:
        keeper.split(options.lifeline)  # returns in the worker; this process stays the keeper
    import_dir = str(Path(options.import_dir).resolve()) if options.import_dir else None
    if import_dir:
        sys.path.append(import_dir)  # local level: the learner's helper modules beside the file
    prepare_torch()
    _apply_limits(options.memory_mb, options.device)
    return serve(options.device, options.fd_in, options.fd_out, import_dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
