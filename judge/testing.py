"""What an exercise's test functions receive: a handle to the submission and a context.

A test is a plain function ``def test_something(sub, ctx): ...`` in ``tests/public.py`` or
``tests/hidden.py``. ``sub.sample(logits, num_samples=..., generator=ctx.generator())``
runs the learner's ``sample`` in the learner's process and returns its value with tensors on
the CPU; the test then decides with :mod:`judge.checks`. The first line of a test's docstring
is its title in reports.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from judge.budget import FalseFailureBudget
from judge.process import CallOptions, LearnerProcess
from judge.report import CheckRecord
from judge.wire import GeneratorSpec


SEED_BITS = 53  # seeds stay exact as JSON numbers in JavaScript (2**53 - 1 is the largest safe integer)


def derive_seed(*parts: object) -> int:
    """A 53-bit seed from a master seed and names: stable across runs, machines and Python versions."""
    digest = hashlib.blake2b("\x1f".join(str(p) for p in parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


@dataclass
class Context:
    """Per-case state: seeds, device, the run's false-failure budget and the checks recorded.

    ``seed`` is this case's seed (derived from the run's master seed and the case name), so a
    report's seed reproduces every draw of the run.
    """

    seed: int
    device: str
    budget: FalseFailureBudget
    deadline: float  # time.monotonic() value at which the case runs out of time
    records: list[CheckRecord] = field(default_factory=list)
    fit_statistics: list[tuple[float, int]] = field(default_factory=list)
    diagnosis: str | None = None
    _generators: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)  # for the test's own choices, never for the learner

    def generator(self, seed: int | None = None) -> GeneratorSpec:
        """A ``torch.Generator`` to pass to the learner; a fresh seed each call unless ``seed`` is given."""
        if seed is None:
            self._generators += 1
            seed = derive_seed(self.seed, "generator", self._generators)
        return GeneratorSpec(seed)

    def fresh_seed(self, label: str) -> int:
        return derive_seed(self.seed, label)

    def remaining_s(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def diagnose(self, diagnosis: str) -> None:
        """Name the mistake the failing check points at (shown to the learner)."""
        self.diagnosis = diagnosis


class Submission:
    """Calls into the learner's process. Attribute access gives the exercise's functions."""

    def __init__(self, process: LearnerProcess, function_names: tuple[str, ...], ctx_getter: Callable[[], Context],
                 options: CallOptions = CallOptions()) -> None:
        self._process = process
        self._names = function_names
        self._ctx = ctx_getter
        self._options = options

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(f"the exercise declares no function {name!r}")

        def call(*args: Any, **kwargs: Any) -> Any:
            value, _ = self._process.call(name, list(args), kwargs, timeout_s=self._ctx().remaining_s(),
                                          options=self._options)
            return value

        call.__name__ = name
        return call

    def with_extreme_uniforms(self, seed: int) -> "Submission":
        """The same submission, but ``torch.rand``/``rand_like``/``uniform_`` return 0.0 and 1-ulp often."""
        return self._with(CallOptions(extreme_uniforms=seed, global_seed=self._options.global_seed))

    def with_global_seed(self, seed: int) -> "Submission":
        """The same submission, with ``torch.manual_seed(seed)`` run in its process before each call."""
        return self._with(CallOptions(extreme_uniforms=self._options.extreme_uniforms, global_seed=seed))

    def _with(self, options: CallOptions) -> "Submission":
        return Submission(self._process, self._names, self._ctx, options)
