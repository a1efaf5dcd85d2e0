"""Write-the-test exercises: the learner writes a statistical test, and the judge measures it.

An exercise of ``kind = "write-the-test"`` asks for a function such as ``test_sampler(sample_fn)
-> bool`` that decides whether a sampler keeps a contract. Its ``[write_the_test]`` table names the
samplers (solutions of another exercise: a reference, its ``correct/*``, catalogued mistakes and
patches of its reference) and the rates the learner's test must have (docs/authoring.md,
"Write-the-test exercises"). The hidden suite's cases call :meth:`WriteTheTest.false_failures` and
:meth:`WriteTheTest.power_against`, which run the learner's test many times, each time on a sampler of its
own seed, and decide by exact binomial tails:

- false failures: ``correct_runs`` runs against correct samplers; with F answers ``False``, the
  case fails when P(Bin(runs, alpha) >= F) <= delta;
- power: ``mistake_runs`` runs against one mistake; with K answers ``True`` (missed), the case fails
  when P(Bin(runs, 1 - power) >= K) <= delta.

``delta`` is one ``rates`` check of the run's false-failure budget (:mod:`judge.checks.budget`), so a
test that meets ``alpha`` and ``power`` fails the whole judging with probability at most the
exercise's ``false_failure_budget``. A case stops as soon as its count reaches the threshold (the
verdict cannot change any more).

The samplers never enter the learner's process: the learner's test receives a
:class:`~judge.learner.hosts.HostFunction`, a proxy whose every call the judge's process answers by
running the sampler (:mod:`judge.learner.hosts`). The exercise's hidden suite supplies the *host*:
``host(sampler_module, generator)`` returns ``(fn, cost)``, ``fn`` the callable the learner's calls
reach (it validates the learner's arguments, raising ``ValueError``, and calls the sampler with
``generator``) and ``cost(args, kwargs)`` the units one call spends of ``units_per_run``.
"""

from __future__ import annotations

import functools
import math
import tomllib
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.checks.base import CheckMisuse, fail
from judge.checks.budget import BudgetDeclaration
from judge.checks.evidence import Evidence
from judge.checks.testing import Context, Submission
from judge.exercises.patches import PATCH_SUFFIX, expand
from judge.i18n import Bilingual
from judge.learner.hosts import HostFunction
from judge.learner.interface import LearnerRaised
from judge.reports.report import CheckRecord

KIND = "write-the-test"

Host = Callable[[types.ModuleType, Any], tuple[Callable[..., Any], Callable[[list[Any], dict[str, Any]], int]]]


@dataclass(frozen=True)
class Mistake:
    """A sampler that breaks the contract, and its headline in both languages."""

    name: str
    sampler: Path
    headline: Bilingual


@dataclass(frozen=True)
class WriteTheTest:
    """The ``[write_the_test]`` table of one exercise, its paths resolved."""

    function: str
    argument: str
    alpha: float
    power: float
    correct_runs: int
    mistake_runs: int
    calls_per_run: int
    units_per_run: int
    correct: tuple[Path, ...]
    mistakes: tuple[Mistake, ...]
    patch_base: Path | None

    @classmethod
    def load(cls, exercise_dir: Path | str) -> WriteTheTest:
        """Read ``exercise_dir/exercise.toml``; raise :class:`ValueError` naming what is wrong."""
        return _load(Path(exercise_dir).resolve())

    def budget(self) -> BudgetDeclaration:
        """What the cases spend: one ``rates`` check for the false failures and one per mistake."""
        return BudgetDeclaration(rates=1 + len(self.mistakes))

    def mistake(self, name: str) -> Mistake:
        for mistake in self.mistakes:
            if mistake.name == name:
                return mistake
        raise CheckMisuse("WriteTheTest.power_against", "mistake", f"one of {[m.name for m in self.mistakes]}", name)

    def false_failures(self, sub: Submission, ctx: Context, host: Host) -> None:
        """Run the learner's test ``correct_runs`` times against the correct samplers, in turn; fail
        when it answers ``False`` more often than a test at ``alpha`` plausibly would."""
        samplers = [load_sampler(path, self.patch_base) for path in self.correct]
        delta = ctx.budget.spend("rates")
        limit = threshold(self.correct_runs, self.alpha, delta)
        failures = runs = 0
        for runs in range(1, self.correct_runs + 1):
            if self._run(sub, ctx, samplers[(runs - 1) % len(samplers)], host, f"correct {runs}") is False:
                failures += 1
                if failures >= limit:
                    break
        tail = binomial_tail(self.correct_runs, self.alpha, failures)
        passed = failures < limit
        text = Bilingual(
            f"your test failed a correct sampler {failures} times in {runs} runs (about {failures / runs:.3f}; "
            f"allowed alpha = {self.alpha:g}, and the case fails at {limit} of {self.correct_runs})",
            f"你的检验在 {runs} 次运行中冤枉了正确的采样器 {failures} 次（约 {failures / runs:.3f}；"
            f"允许的 alpha = {self.alpha:g}，{self.correct_runs} 次中达到 {limit} 次即不通过）",
        )
        ctx.records.append(CheckRecord("rates", str(text), float(failures), tail, delta, passed))
        if not passed:
            fail(
                str(text),
                diagnosis=Bilingual(
                    "your test fails correct samplers too often "
                    f"(its false-failure rate is above alpha = {self.alpha:g})",
                    f"你的检验冤枉正确采样器的次数太多（误报率高于 alpha = {self.alpha:g}）",
                ),
                rule=text,
                kind=Evidence.VALUE,
                p_value=tail,
            )

    def power_against(self, sub: Submission, ctx: Context, name: str, host: Host) -> None:
        """Run the learner's test ``mistake_runs`` times against the mistake ``name``; fail when it
        answers ``True`` (misses it) more often than a test of the stated power plausibly would."""
        mistake = self.mistake(name)
        sampler = load_sampler(mistake.sampler, self.patch_base)
        delta = ctx.budget.spend("rates")
        limit = threshold(self.mistake_runs, 1.0 - self.power, delta)
        misses = runs = 0
        for runs in range(1, self.mistake_runs + 1):
            if self._run(sub, ctx, sampler, host, f"{name} {runs}") is True:
                misses += 1
                if misses >= limit:
                    break
        tail = binomial_tail(self.mistake_runs, 1.0 - self.power, misses)
        passed = misses < limit
        text = Bilingual(
            f"your test passed the sampler that {str(mistake.headline)} {misses} times in {runs} runs "
            f"(power about {1 - misses / runs:.2f}; required {self.power:g}, and the case fails at {limit} "
            f"misses of {self.mistake_runs})",
            f"你的检验在 {runs} 次运行中有 {misses} 次放过了{mistake.headline.zh}的采样器"
            f"（功效约 {1 - misses / runs:.2f}；要求 {self.power:g}，{self.mistake_runs} 次中漏掉 {limit} 次即不通过）",
        )
        ctx.records.append(CheckRecord("rates", str(text), float(misses), tail, delta, passed))
        if not passed:
            fail(
                str(text),
                diagnosis=Bilingual(
                    f"your test misses the sampler that {str(mistake.headline)}",
                    f"你的检验放过了{mistake.headline.zh}的采样器",
                ),
                rule=text,
                kind=Evidence.VALUE,
                p_value=tail,
            )

    def _run(self, sub: Submission, ctx: Context, sampler: types.ModuleType, host: Host, label: str) -> bool:
        """One run of the learner's test on ``sampler``, behind a host function of its own seed."""
        import torch

        generator = torch.Generator().manual_seed(ctx.fresh_seed(f"write-the-test {label}"))
        fn, cost = host(sampler, generator)
        proxy = HostFunction(fn, calls=self.calls_per_run, units=self.units_per_run, cost=cost, name=self.argument)
        try:
            value = getattr(sub, self.function)(**{self.argument: proxy})
        except LearnerRaised:
            if proxy.violation is None:
                raise
            value = None  # the refusal of a call over the budget ended the run: the budget decides
        if proxy.violation is not None:
            fail(
                f"{self.function} went over its budget: {proxy.violation}",
                diagnosis=Bilingual(
                    f"your test goes over the budget of {self.argument} ({self.calls_per_run} calls, "
                    f"{self.units_per_run} draws per run)",
                    f"你的检验超出了 {self.argument} 的预算"
                    f"（每次运行 {self.calls_per_run} 次调用、{self.units_per_run} 次抽样）",
                ),
                rule=Bilingual(
                    f"{self.function}: a run went over the budget of {self.argument}",
                    f"{self.function}：有一次运行超出了 {self.argument} 的预算",
                ),
                kind=Evidence.STRUCTURAL,
            )
        if type(value) is not bool:
            fail(
                f"{self.function} must return True or False (a Python bool), not {type(value).__name__}",
                rule=Bilingual(
                    f"{self.function} must return a Python bool, True or False",
                    f"{self.function} 必须返回 Python 的 bool（True 或 False）",
                ),
                kind=Evidence.STRUCTURAL,
            )
        return value


def binomial_tail(n: int, p: float, k: int) -> float:
    """P(Bin(n, p) >= k), exactly summed (n is a few hundred at most)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    return min(1.0, sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1)))


def threshold(n: int, p: float, delta: float) -> int:
    """The smallest count k with P(Bin(n, p) >= k) <= delta (n + 1 when none: the case never fails)."""
    for k in range(n + 1):
        if binomial_tail(n, p, k) <= delta:
            return k
    return n + 1


@functools.cache
def load_sampler(path: Path, patch_base: Path | None) -> types.ModuleType:
    """A sampler's module, imported in the judge's process (never the learner's): a ``.py`` as it is,
    a ``.patch`` applied to ``patch_base`` (:func:`judge.exercises.patches.expand`)."""
    if path.suffix == PATCH_SUFFIX:
        if patch_base is None:
            raise ValueError(f"{path}: a patch needs [write_the_test] patch_base")
        source = expand(path, patch_base)
    else:
        source = path.read_text(encoding="utf-8")
    module = types.ModuleType(f"write_the_test_sampler_{abs(hash(str(path)))}")
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - a solution of this repository
    return module


def _load(folder: Path) -> WriteTheTest:
    path = folder / "exercise.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if data.get("kind") != KIND:
        raise ValueError(f"{path}: kind is not {KIND!r}")
    return parse(data.get("write_the_test"), path, folder.parent.parent / "solutions")


def parse(table: Any, path: Path, solutions: Path) -> WriteTheTest:
    """``[write_the_test]`` of ``path``, its samplers under ``solutions`` (the pack's solutions folder)."""
    if not isinstance(table, dict):
        raise ValueError(f"{path}: kind = {KIND!r} needs a [write_the_test] table")
    try:
        alpha, power = float(table["alpha"]), float(table["power"])
        spec = WriteTheTest(
            function=str(table["function"]),
            argument=str(table["argument"]),
            alpha=alpha,
            power=power,
            correct_runs=int(table["correct_runs"]),
            mistake_runs=int(table["mistake_runs"]),
            calls_per_run=int(table["calls_per_run"]),
            units_per_run=int(table["draws_per_run"]),
            correct=tuple(solutions / name for name in table["correct"]),
            mistakes=tuple(
                Mistake(str(m["name"]), solutions / str(m["sampler"]), Bilingual(str(m["en"]), str(m["zh"])))
                for m in table["mistakes"]
            ),
            patch_base=solutions / table["patch_base"] if "patch_base" in table else None,
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{path}: [write_the_test] misses or mistypes {exc}") from None
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError(f"{path}: [write_the_test] alpha and power must lie in (0, 1)")
    if min(spec.correct_runs, spec.mistake_runs, spec.calls_per_run, spec.units_per_run) < 1 or not spec.correct:
        raise ValueError(f"{path}: [write_the_test] needs runs, calls, draws and correct samplers")
    names = [m.name for m in spec.mistakes]
    if len(set(names)) != len(names) or not names:
        raise ValueError(f"{path}: [write_the_test] mistakes need distinct names (at least one)")
    return spec
