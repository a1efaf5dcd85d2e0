"""The untrusted side of the runner: loads one learner file and answers calls.

Run as ``python judge/child.py PATH --device D --in FD --out FD [--lifeline FD] [--memory-mb M]``
by :class:`judge.process.LocalLauncher` (the ``strict`` level's fork server calls :func:`serve`
directly). This process holds nothing secret: it receives only the inputs of the current call
(hidden expected values and reference solutions never reach it) and sends back values in the
:mod:`judge.wire` format, which cannot carry code; :mod:`judge.protocol` is what the judge
accepts of it. Anything it prints goes to the output pipe the parent gave it as stdout/stderr,
never to the protocol pipe. With ``--lifeline`` it first splits into a keeper and the worker
that runs the learner's code (:mod:`judge.keeper`).

Protocol (one frame each way per request):
  parent -> ``{"op": "call", "function", "args", "kwargs", "extreme_uniforms", "global_seed"}``
  child  -> ``{"ok": true, "value", "elapsed_ms"}`` or ``{"raised": {...}}``
The first frame the child sends is ``{"ready": ...}`` or ``{"load_error": {...}}``.
"""

from __future__ import annotations

import errno
import os
import sys
import time
import traceback
from pathlib import Path

# Run as a script: make the project importable, but keep judge/ itself off the path so a
# learner's ``import stats`` cannot pick up the judge's modules by accident.
_ROOT = str(Path(__file__).resolve().parents[1])
if sys.path and sys.path[0] == str(Path(__file__).resolve().parent):
    sys.path[0] = _ROOT
else:
    sys.path.insert(0, _ROOT)

from judge import keeper, wire  # noqa: E402

OUTPUT_FILE_LIMIT = 16 << 20  # any one file the learner's code writes (RLIMIT_FSIZE)
PROCESS_ALLOWANCE = 256  # processes a learner's code may start at the local level
MEMORY_MARKERS = ("can't allocate memory", "DefaultCPUAllocator", "out of memory", "CUDA out of memory")


def learner_traceback(exc: BaseException, learner_path: str) -> str:
    """Format ``exc`` keeping only frames from the learner's file (never the judge's)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == learner_path]
    lines = []
    if frames:
        lines.append("Traceback (your code, most recent call last):\n")
        name = os.path.basename(learner_path)
        for frame in frames:
            lines.append(f'  File "{name}", line {frame.lineno}, in {frame.name}\n')
            if frame.line:
                lines.append(f"    {frame.line.strip()}\n")
    lines.extend(traceback.format_exception_only(type(exc), exc))
    return "".join(lines)


def _sendable(text: str) -> str:
    """``text`` with anything that is not valid Unicode (lone surrogates) escaped, so it can be sent."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def describe_exception(exc: BaseException, learner_path: str) -> dict:
    """The ``{"type", "message", "line", "traceback", "memory"}`` description the judge accepts."""
    syntax_line = exc.lineno if isinstance(exc, SyntaxError) and exc.filename == learner_path else None
    if syntax_line is not None:
        exc.filename = os.path.basename(learner_path)  # where the file lives is nobody's business
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - a learner's __str__ may raise anything
        message = f"<{type(exc).__name__} whose message cannot be shown>"
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        message = f"your code wrote a file larger than {OUTPUT_FILE_LIMIT >> 20} MB ({message})"
    line = None
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == learner_path]
    if frames:
        line = frames[-1].lineno
    if syntax_line is not None:
        line = syntax_line
    try:
        trace = learner_traceback(exc, learner_path)
    except BaseException:  # noqa: BLE001 - formatting calls the learner's __str__ again
        trace = f"{type(exc).__name__}: {message}\n"
    return {
        "type": _sendable(type(exc).__name__)[:256],
        "message": _sendable(message[:4000]),
        "line": line if isinstance(line, int) else None,
        "traceback": _sendable(trace[-8000:]),
        "memory": isinstance(exc, MemoryError) or any(m in message for m in MEMORY_MARKERS),
    }


def load_learner_module(source: str, filename: str):
    """Execute the learner's source as module ``submission``; exceptions propagate.

    ``filename`` names it in tracebacks (only frames with this name are shown to the learner).
    """
    import types

    code = compile(source, filename, "exec")
    module = types.ModuleType("submission")
    module.__file__ = filename
    sys.modules["submission"] = module
    exec(code, module.__dict__)
    return module


def describe_functions(module) -> dict:
    """Name -> parameter list of every public callable, for the parent's signature check."""
    import inspect

    functions = {}
    for name, value in vars(module).items():
        if name.startswith("_") or not callable(value):
            continue
        try:
            signature = inspect.signature(value)
        except (TypeError, ValueError):
            continue
        functions[name] = {
            "params": [
                {"name": p.name, "kind": p.kind.name, "has_default": p.default is not inspect.Parameter.empty}
                for p in signature.parameters.values()
            ],
            "signature": _sendable(f"{name}{signature}")[:2000],
        }
    return functions


class ExtremeUniforms:
    """Patch torch's uniform sources so a share of values are exactly 0.0 or the largest float below 1.

    Both are legal outputs of ``torch.rand``; real draws hit them about once in 1e7-1e8 values,
    which no affordable sample size reaches. The replacement positions come from a private
    generator, so the learner's own generator stream is not disturbed.
    """

    FRACTION = 0.02

    def __init__(self, torch, seed: int) -> None:
        self.torch = torch
        self.private = torch.Generator().manual_seed(seed)
        self.saved = {}

    def _push_to_extremes(self, values):
        torch = self.torch
        if not values.is_floating_point() or values.numel() == 0:
            return values
        shape = values.shape
        flat = values.reshape(-1)
        picks = self.saved["rand"](flat.shape, generator=self.private)
        coin = self.saved["rand"](flat.shape, generator=self.private)
        top = torch.tensor(1.0, dtype=values.dtype).nextafter(torch.tensor(0.0, dtype=values.dtype))
        extreme = torch.where(coin < 0.5, torch.zeros((), dtype=values.dtype), top)
        mask = picks < self.FRACTION
        # Every tensor of two or more values gets at least one of each extreme.
        if flat.numel() >= 2:
            first, second = self.saved["randperm"](flat.numel(), generator=self.private)[:2].tolist()
            mask[first] = mask[second] = True
            extreme[first] = 0.0
            extreme[second] = top
        flat = torch.where(mask.to(flat.device), extreme.to(flat.device), flat)
        return flat.reshape(shape)

    def __enter__(self):
        torch = self.torch
        self.saved = {
            "rand": torch.rand,
            "rand_like": torch.rand_like,
            "uniform_": torch.Tensor.uniform_,
            "randperm": torch.randperm,
        }
        saved, push = self.saved, self._push_to_extremes

        def rand(*args, **kwargs):
            return push(saved["rand"](*args, **kwargs))

        def rand_like(*args, **kwargs):
            return push(saved["rand_like"](*args, **kwargs))

        def uniform_(tensor, a=0.0, b=1.0, *, generator=None):
            saved["uniform_"](tensor, a, b, generator=generator)
            if a == 0.0 and b == 1.0:
                with torch.no_grad():
                    tensor.copy_(push(tensor))
            return tensor

        torch.rand, torch.rand_like, torch.Tensor.uniform_ = rand, rand_like, uniform_
        return self

    def __exit__(self, *exc_info):
        torch = self.torch
        torch.rand, torch.rand_like, torch.Tensor.uniform_ = (
            self.saved["rand"],
            self.saved["rand_like"],
            self.saved["uniform_"],
        )
        return False


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


def serve(source: str | None, filename: str, device: str, fd_in: int, fd_out: int,
          load_error: BaseException | None = None) -> int:
    """Load the learner's source and answer calls on ``fd_in``/``fd_out`` until told to exit."""
    path = filename
    inbox = os.fdopen(fd_in, "rb", buffering=0)
    outbox = os.fdopen(fd_out, "wb")

    def reply(header: dict, value=None) -> None:
        specs, payloads = [], []
        if header.get("ok"):
            try:
                header["value"] = wire.encode_values(value, specs, payloads)
            except wire.WireError as exc:
                header = {"raised": {"type": "TypeError", "message": f"your function returned {exc}", "line": None,
                                     "traceback": f"TypeError: your function returned {exc}\n", "memory": False}}
                specs, payloads = [], []
        header["tensors"] = specs
        wire.write_frame(outbox, header, payloads)

    import torch

    try:
        if load_error is not None:
            raise load_error
        module = load_learner_module(source, filename)
    except BaseException as exc:  # noqa: BLE001 - every failure of learner code is reported
        reply({"load_error": describe_exception(exc, path)})
        return 0
    reply({"ready": {"functions": describe_functions(module), "torch": torch.__version__}})

    while True:
        try:
            request, payloads_in = wire.read_frame(inbox)
        except EOFError:
            return 0
        if request.get("op") == "exit":
            return 0
        function = getattr(module, str(request.get("function")), None)
        used: set[int] = set()  # args and kwargs share the frame's tensors, each used once
        args = wire.decode_values(request.get("args", []), request.get("tensors", []), payloads_in, device, used)
        kwargs = wire.decode_values(request.get("kwargs", {}), request.get("tensors", []), payloads_in, device, used)
        args = [_materialize(a, torch, device) for a in args]
        kwargs = {k: _materialize(v, torch, device) for k, v in kwargs.items()}
        if request.get("global_seed") is not None:
            torch.manual_seed(int(request["global_seed"]))
        inputs = _tensor_inputs(function, args, kwargs, torch)
        before = {name: tensor.clone() for name, tensor in inputs.items()}
        started = time.perf_counter()
        try:
            if request.get("extreme_uniforms") is not None:
                with ExtremeUniforms(torch, int(request["extreme_uniforms"])):
                    value = function(*args, **kwargs)
            else:
                value = function(*args, **kwargs)
            if device.startswith("cuda"):
                torch.cuda.synchronize()
        except BaseException as exc:  # noqa: BLE001 - SystemExit from learner code is also an error
            reply({"raised": describe_exception(exc, path)})
            continue
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        modified = [name for name, tensor in inputs.items() if not _same_tensor(before[name], tensor)]
        reply({"ok": True, "elapsed_ms": elapsed_ms, "modified": modified[:64]}, value)


def _tensor_inputs(function, args: list, kwargs: dict, torch) -> dict:
    """Parameter name -> each tensor argument of the call (positional ones named by the signature)."""
    import inspect

    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        names = []
    found = {}
    for index, value in enumerate(args):
        if isinstance(value, torch.Tensor):
            found[names[index] if index < len(names) else f"argument {index + 1}"] = value
    for name, value in kwargs.items():
        if isinstance(value, torch.Tensor):
            found[str(name)] = value
    return found


def _same_tensor(before, after) -> bool:
    """Whether ``after`` still holds what ``before`` copied (NaN equal to NaN; shape and dtype too)."""
    if before.shape != after.shape or before.dtype != after.dtype or before.device != after.device:
        return False
    if before.is_floating_point():
        nan = before.isnan()
        return bool((nan == after.isnan()).all()) and bool((before[~nan] == after[~nan]).all())
    return bool((before == after).all())


def _materialize(value, torch, device: str):
    if isinstance(value, wire.GeneratorSpec):
        return torch.Generator(device=device).manual_seed(value.seed)
    return value


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--in", dest="fd_in", type=int, required=True)
    parser.add_argument("--out", dest="fd_out", type=int, required=True)
    parser.add_argument("--lifeline", type=int, default=None)
    parser.add_argument("--memory-mb", type=int, default=None)
    options = parser.parse_args(argv)
    if options.lifeline is not None:
        keeper.split(options.lifeline)  # returns in the worker; this process stays the keeper
    path = str(Path(options.path).resolve())
    sys.path.append(str(Path(path).parent))  # local level: the learner's helper modules beside the file
    prepare_torch()
    _apply_limits(options.memory_mb, options.device)
    try:
        source, error = Path(path).read_text(encoding="utf-8"), None
    except (OSError, UnicodeDecodeError) as exc:
        source, error = None, exc
    return serve(source, path, options.device, options.fd_in, options.fd_out, load_error=error)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
