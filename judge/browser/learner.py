"""The learner's code in the same interpreter as the tiny tests: what the browser runs.

In the browser there is one Python (Pyodide, in a Web Worker) and nothing secret in it: the
tiny variant holds only public cases, and the learner is judging their own code on their own
machine. :class:`InProcessLearner` offers the interface of :class:`judge.process.LearnerProcess`
that the runner needs, so the browser reuses :func:`judge.runner.judge_file` unchanged.
Arguments and results are copied as the wire format would copy them, so in-place writes by the
learner never reach the test's tensors. Time limits are enforced from outside: the page (or
the Node.js runner) terminates the worker, which is reported as TLE.
"""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from judge.child import describe_exception, describe_functions, load_learner_module
from judge.process import CallOptions, LearnerRaised, load_failure
from judge.protocol import exception_info, functions_info
from judge.wire import GeneratorSpec

LEARNER_FILENAME = "solution.py"
OUTPUT_LIMIT = 4000


class InProcessLearner:
    """Loads ``source`` as the module ``submission``; raises LoadFailed as LearnerProcess does."""

    sandbox = "browser"
    alive = True

    def __init__(self, source: str, filename: str = LEARNER_FILENAME) -> None:
        import torch

        self._torch = torch
        self._filename = filename
        self._output = io.StringIO()
        try:
            with redirect_stdout(self._output), redirect_stderr(self._output):
                self._module = load_learner_module(source, filename)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 - whatever the learner's import does (SystemExit too)
            raise load_failure(exception_info(describe_exception(error, filename))) from None
        self.functions = functions_info(describe_functions(self._module))
        self.torch_version = str(getattr(torch, "__version__", ""))

    def call(self, function: str, args: list[Any], kwargs: dict[str, Any], *, timeout_s: float,
             options: CallOptions = CallOptions()) -> tuple[Any, float]:
        """Call the learner's ``function`` on copies of the arguments; return (copied value, 0.0)."""
        del timeout_s  # enforced by whoever runs this interpreter (see the module docstring)
        if options.extreme_uniforms is not None:
            raise NotImplementedError("the extreme-uniform phase runs on the server only")
        torch = self._torch
        if options.global_seed is not None:
            torch.manual_seed(options.global_seed)
        target = getattr(self._module, function)
        try:
            with redirect_stdout(self._output), redirect_stderr(self._output):
                value = target(*self._copy(args), **self._copy(kwargs))
        except Exception as error:  # noqa: BLE001 - the learner's exception is a verdict, not a crash
            raise LearnerRaised(exception_info(describe_exception(error, self._filename))) from None
        return self._copy(value), 0.0

    def _copy(self, value: Any) -> Any:
        torch = self._torch
        if isinstance(value, GeneratorSpec):
            return torch.Generator(device="cpu").manual_seed(value.seed)
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
