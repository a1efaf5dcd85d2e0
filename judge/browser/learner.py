"""The learner's code in the same interpreter as the tiny tests: what the browser runs.

In the browser there is one Python (Pyodide, in a Web Worker) and nothing secret in it: the
tiny variant holds only public cases, and the learner is judging their own code on their own
machine. :class:`InProcessLearner` is a :class:`judge.learner.interface.Learner`, as
:class:`judge.engine.process.LearnerProcess` is, so the browser reuses :func:`judge.engine.runner.grade`
unchanged. Arguments and results are copied as the wire format would copy them, so in-place
writes by the learner never reach the test's tensors; which tensor arguments a call changed is
returned with its value (:class:`judge.learner.interface.CallResult`), as the server's child reports it.

It runs next to the learner's code like :mod:`judge.sandbox.child`, but stays here, under
``judge/browser/``: the browser bundle (:mod:`judge.browser.bundle`) ships ``judge/browser/**``
and the engine's pure-Python modules, never the server's sandbox. What it shares with the child
is in :mod:`judge.learner.code`. Time limits are enforced from outside: the page (or the Node.js
runner) terminates the worker, which is reported as TLE.

The extreme-uniform phases run here as on the server: the subset's
:class:`judge.browser.torchlike.extremes.ExtremeUniforms` and ``DrawSites`` (the server's, of
:mod:`judge.learner.uniform_sources`, when this interpreter has real torch).
When the learner's code reaches an operation the torch subset lacks, the call is not the
learner's error: it raises :class:`NotInBrowser` (the case is SK, "not available in the
browser: Submit to grade on the server"), and :attr:`InProcessLearner.unavailable` keeps the
bilingual text for :mod:`judge.browser.run`.
"""

from __future__ import annotations

import io
import re
import sys
import time
from contextlib import nullcontext, redirect_stderr, redirect_stdout
from typing import Any

from judge.i18n import Bilingual
from judge.learner.code import (
    LearnerRandomness,
    describe_exception,
    describe_functions,
    load_learner_module,
    same_tensor,
    tensor_inputs,
)
from judge.learner.hosts import HostFunction
from judge.learner.interface import (
    CallOptions,
    CallResult,
    CallTiming,
    LearnerRaised,
    LoadFailed,
    ProcessFailed,
    load_failure,
)
from judge.learner.protocol import exception_info, functions_info
from judge.learner.wire import GeneratorSpec
from judge.verdicts import Verdict

LEARNER_FILENAME = "solution.py"
OUTPUT_LIMIT = 4000
# "from torch import fft" and "import torch.fft" end in these when the subset lacks the name.
_MISSING_NAME = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
# Modules the server's sandbox provides (torch's own dependencies) that the browser does not load:
# code importing them is judged on the server, so the browser says "submit", not "import error".
SERVER_ONLY_MODULES = frozenset({"numpy"})


def unavailable_text(operation: str) -> Bilingual:
    """What a learner reads when their code needs ``operation``, which the browser's torch lacks."""
    return Bilingual(
        f"{operation} is not available in the browser: Submit to grade on the server, where real "
        "torch runs (the browser runs a small pure-Python part of torch)",
        f"{operation} 在浏览器中不可用：请点 Submit（提交）到服务器上评测，那里运行真正的 torch"
        "（浏览器里只有 torch 的一小部分，用纯 Python 实现）",
    )


def missing_operation(error: BaseException) -> str | None:
    """The torch operation ``error`` says the subset lacks, or None when it is about something else."""
    subset = sys.modules.get("torch")
    if subset is None or not getattr(subset, "SUBSET", False):
        return None  # real torch (CPython tests): whatever it lacks is the learner's error
    if isinstance(error, subset.UnsupportedOperation):
        return error.operation
    if isinstance(error, ModuleNotFoundError) and (error.name or "").startswith("torch."):
        return error.name
    if isinstance(error, ModuleNotFoundError) and (error.name or "").split(".")[0] in SERVER_ONLY_MODULES:
        return error.name
    found = _MISSING_NAME.search(str(error)) if isinstance(error, ImportError) else None
    if found is None:
        return None
    module = found.group(2)
    if module.startswith(subset.__name__):  # the subset's modules, installed as torch and torch.*
        module = "torch" + module[len(subset.__name__) :]
    return f"{module}.{found.group(1)}" if module == "torch" or module.startswith("torch.") else None


def _phase(torch, options: CallOptions):
    """The extreme-uniform phase ``options`` ask for (none: a null context): the subset's own
    classes, or the server's for real torch."""
    if getattr(torch, "SUBSET", False):
        from judge.browser.torchlike.extremes import DrawSites, ExtremeUniforms
    else:
        from judge.learner.uniform_sources import DrawSites, ExtremeUniforms
    push = options.draw_sites
    if push is not None:
        return DrawSites(torch, push.site, push.high, push.seed)
    if options.extreme_uniforms is not None:
        return ExtremeUniforms(torch, options.extreme_uniforms)
    return nullcontext()


class NotInBrowser(ProcessFailed):
    """A call of the learner's needs an operation the browser's torch lacks: SK, not the learner's error."""

    def __init__(self, text: Bilingual) -> None:
        super().__init__(Verdict.SK, text)
        self.text = text


class NotInBrowserAtLoad(LoadFailed):
    """Loading the learner's file needs an operation the browser's torch lacks (``import torch.fft``)."""

    def __init__(self, text: Bilingual) -> None:
        super().__init__(Verdict.SK, text)
        self.text = text


class InProcessLearner:
    """Loads ``source`` as the module ``submission``; raises LoadFailed as LearnerProcess does."""

    sandbox = "browser"
    alive = True

    def __init__(self, source: str, filename: str = LEARNER_FILENAME) -> None:
        import torch

        self._torch = torch
        self._filename = filename
        self._output = io.StringIO()
        self._timing = CallTiming()
        self.unavailable: dict[str, Bilingual] = {}  # English message -> the text in both languages
        self._randomness = LearnerRandomness.on(torch, "cpu")  # before the learner's code, as the child does
        try:
            with redirect_stdout(self._output), redirect_stderr(self._output):
                self._module = load_learner_module(source, filename)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 - whatever the learner's import does (SystemExit too)
            operation = missing_operation(error)
            if operation is not None:
                raise NotInBrowserAtLoad(unavailable_text(operation)) from None
            raise load_failure(exception_info(describe_exception(error, filename))) from None
        self.functions = functions_info(describe_functions(self._module))
        self.torch_version = str(getattr(torch, "__version__", ""))

    def call(
        self,
        function: str,
        args: list[Any],
        kwargs: dict[str, Any],
        *,
        timeout_s: float,
        options: CallOptions = CallOptions(),
        cpu_deadline_s: float = float("inf"),
        cpu_limit_s: float | None = None,
    ) -> CallResult:
        """Call the learner's ``function`` on copies of the arguments: a copy of its value, the
        milliseconds the function ran, and the tensor arguments it changed in place."""
        del timeout_s, cpu_deadline_s, cpu_limit_s  # enforced by whoever runs this interpreter (module docstring)
        started = time.perf_counter()
        torch = self._torch
        if options.global_seed is not None:
            torch.manual_seed(options.global_seed)
        target = getattr(self._module, function)
        args, kwargs = self._copy(args), self._copy(kwargs)
        # As the server's child reports it: which tensor arguments the call changed in place.
        inputs = tensor_inputs(target, args, kwargs, torch)
        before = {name: tensor.clone() for name, tensor in inputs.items()}
        watch = self._randomness.watch
        states = watch.snapshot() if options.watch_global_rng else None
        extremes = _phase(torch, options)
        inside = 0.0  # seconds in the learner's function
        try:
            with redirect_stdout(self._output), redirect_stderr(self._output), extremes:
                entered = time.perf_counter()
                try:
                    value = target(*args, **kwargs)
                finally:
                    inside = time.perf_counter() - entered
        except Exception as error:  # noqa: BLE001 - the learner's exception is a verdict, not a crash
            operation = missing_operation(error)
            if operation is not None:
                text = unavailable_text(operation)
                self.unavailable[str(text)] = text
                raise NotInBrowser(text) from None
            raised = LearnerRaised(exception_info(describe_exception(error, self._filename)))
            self._timing = self._timing.add(time.perf_counter() - started, inside * 1000, 0, 0)
            raise raised from None
        modified = tuple(name for name, tensor in inputs.items() if not same_tensor(before[name], tensor))
        sites = getattr(extremes, "count", None) if options.draw_sites is not None else None
        changed = None if states is None else watch.changed(states)
        result = CallResult(self._copy(value), inside * 1000, modified, sites, global_rng_changed=changed)
        self._timing = self._timing.add(time.perf_counter() - started, inside * 1000, 0, 0)
        return result

    @property
    def call_timing(self) -> CallTiming:
        """As :attr:`judge.engine.process.LearnerProcess.call_timing`, with nothing sent: ``learner_s`` is
        the time inside the learner's functions, the rest (``transfer_s``) the copies of arguments
        and values and the checks around them."""
        return self._timing

    def _copy(self, value: Any) -> Any:
        torch = self._torch
        if isinstance(value, GeneratorSpec):
            return self._randomness.generators.make(value)
        if isinstance(value, HostFunction):
            return _in_process_proxy(value)
        if isinstance(value, torch.Tensor):
            return value.clone()
        if isinstance(value, list):
            return [self._copy(v) for v in value]
        if isinstance(value, tuple):
            copied = [self._copy(v) for v in value]
            return type(value)(*copied) if hasattr(value, "_fields") else tuple(copied)
        if isinstance(value, dict):
            return {k: self._copy(v) for k, v in value.items()}
        return value

    def output_tail(self) -> str:
        return self._output.getvalue()[-OUTPUT_LIMIT:]

    def close(self) -> None:
        sys.modules.pop("submission", None)


def _in_process_proxy(host: HostFunction) -> Any:
    """``host`` as the learner's code calls it in this interpreter: through :meth:`HostFunction.answer`,
    so its budget and refusals hold as over the wire (a refusal raises the ``ValueError`` or
    ``RuntimeError`` the learner's side of the wire raises). The judge's tools that run a suite in
    one interpreter (tests/exercises/test_learner_values.py) need it; the browser offers no exercise
    with host functions."""

    def proxy(*args: Any, **kwargs: Any) -> Any:
        reply, value = host.answer(list(args), dict(kwargs))
        raised = reply.get("host_raised")
        if raised is not None:
            raise (ValueError if raised["type"] == "ValueError" else RuntimeError)(raised["message"])
        return value

    proxy.__name__ = host.name
    return proxy
