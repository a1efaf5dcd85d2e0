"""No value a submission returns can make an exercise's tests end in IE.

IE means "our fault", and it outranks every other verdict, so a test that uses a learner's value
before checking it (``torch.equal(first, second)`` with ``second`` None) hands the learner the
verdict of its choice. Here every exercise's suites judge "liars": the reference solution, except
that its answers are replaced by ill-typed or ill-shaped values, at every call, and at each call
alone (in turn, so that values a test uses late, like a second draw, are reached too: at the first
and the last call of each call site, a site being the test code's stack of lines that made the call,
so that a loop of 32 calls from one line costs two judgings, not 32). Every liar must get a verdict
of the learner's kind, never IE.

The liars run in this interpreter (the browser's in-process learner, plus the extreme-uniform
phase the server's suites use), so the sweep takes seconds instead of a process per run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from judge.browser.learner import InProcessLearner
from judge.engine import runner
from judge.engine.process import CallOptions
from judge.engine.runner import judge_file
from judge.exercises.exercise import load_all
from judge.learner.code import ExtremeUniforms
from judge.verdicts import Verdict

# What a liar returns instead of the real answer ``v`` (a fallback of None where ``v`` lacks the method).
LIES = {
    "None": "None",
    "a string": "'garbage'",
    "a list": "v.tolist()",
    "float64 values": "v.to(torch.float64)",
    "int64 values": "v.long()",
    "bool values": "v.bool()",
    "one row fewer": "v[:-1]",
    "a 0-d tensor": "torch.tensor(7)",
    "NaN everywhere": "torch.full(tuple(v.shape), float('nan'))",
    "huge values": "torch.full(tuple(v.shape), 2**62, dtype=torch.int64)",
    "negative values": "torch.full(tuple(v.shape), -3, dtype=v.dtype)",
    "transposed": "v.t()",
    "no columns": "v[..., :0]",
    "a tuple": "(v, v)",
}

LIAR = """
import types as _types
import torch

_reference = _types.ModuleType("reference")
exec(compile(REFERENCE_SOURCE, "reference.py", "exec"), _reference.__dict__)
_calls = [0]


def _lie(v):
    try:
        return LIE
    except Exception:
        return None


def _new_case():
    _calls[0] = 0


def _liar(name):
    def call(*args, **kwargs):
        _calls[0] += 1
        value = getattr(_reference, name)(*args, **kwargs)
        return _lie(value) if LIE_AT in (0, _calls[0]) else value
    return call

"""


class _Learner(InProcessLearner):
    """The in-process learner, with the extreme-uniform phase the server's suites use; it counts
    the calls of each case apart (``per_case``: case title -> calls made)."""

    def __init__(self, source: str, tests_dir: Path | None = None) -> None:
        super().__init__(source)
        self.per_case: dict[str, int] = {}
        self._case: str | None = None
        # With the exercise's tests/ folder: each call's site, per case (the lines of that folder on
        # the stack that made it, innermost first), in call order.
        self._tests_dir = str(tests_dir.resolve()) if tests_dir is not None else None
        self.sites: dict[str, list[tuple[tuple[str, int], ...]]] = {}

    def new_case(self, title: str, index: int, total: int) -> None:
        """The runner's progress callback: a case starts, so the liar counts from 0 again."""
        self._close_case()
        self._case = title
        self._module._new_case()

    def _close_case(self) -> None:
        if self._case is not None:
            self.per_case[self._case] = self._module._calls[0]

    def finish(self) -> dict[str, int]:
        """Calls made by each case of the finished judging."""
        self._close_case()
        self._case = None
        return self.per_case

    def call(self, function, args, kwargs, *, timeout_s, options=CallOptions()):
        if self._tests_dir is not None and self._case is not None:
            frame, site = sys._getframe(1), []
            while frame is not None:
                if frame.f_code.co_filename.startswith(self._tests_dir):
                    site.append((frame.f_code.co_filename, frame.f_lineno))
                frame = frame.f_back
            self.sites.setdefault(self._case, []).append(tuple(site))
        if options.extreme_uniforms is None:
            return super().call(function, args, kwargs, timeout_s=timeout_s, options=options)
        with ExtremeUniforms(torch, options.extreme_uniforms):
            return super().call(
                function, args, kwargs, timeout_s=timeout_s, options=CallOptions(global_seed=options.global_seed)
            )


def _liar_source(exercise, lie: str, at: int) -> str:
    """The reference with its answers replaced by ``lie`` at call ``at`` (0: every call)."""
    source = LIAR.replace("REFERENCE_SOURCE", repr(exercise.reference_path.read_text()))
    source = source.replace("LIE_AT", str(at)).replace("LIE", LIES[lie])
    return source + "".join(f"{spec.name} = _liar({spec.name!r})\n" for spec in exercise.functions)


def _suites(exercise) -> list[tuple[str, ...]]:
    suites = [("public", "hidden")]
    if exercise.browser is not None:
        suites.append(tuple(exercise.browser.suites))
    return suites


def _judge(exercise, suites, lie: str, at: int, monkeypatch=None, titles=None, learner=None):
    """Judge a liar that lies at call ``at`` of every case (0: at every call; -1: never); with
    ``titles``, only the cases of those titles run (each case's seeds derive from its own name,
    so a case judged alone is judged as in the whole suite). ``learner``: the liar to judge with
    (built here unless given)."""
    if titles is not None:
        load_suites = runner._Run._load_suites

        def only_these(run, names):
            specs, budget, prepares = load_suites(run, names)
            return [case for case in specs if case.title in titles], budget, prepares

        monkeypatch.setattr(runner._Run, "_load_suites", only_these)
    learner = learner or _Learner(_liar_source(exercise, lie, at))
    try:
        report = judge_file(
            exercise, exercise.reference_path, seed=1, suites=suites, process=learner, progress=learner.new_case
        )
    finally:
        if titles is not None:
            monkeypatch.undo()
    return report, learner.finish()


EXERCISES = load_all()
# Lies that return the answer unchanged for an exercise: flip already returns int64 values.
TRUTHS = {"weighted-coin": {"int64 values"}}


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.slug)
@pytest.mark.parametrize("lie", list(LIES))
def test_a_lie_at_every_call_is_never_an_internal_error(exercise, lie):
    for suites in _suites(exercise):
        report, _ = _judge(exercise, suites, lie, at=0)
        internal = [(c.name, c.message) for c in report.cases if c.verdict is Verdict.IE]
        assert not internal, f"{lie} made {suites} end in IE: {internal}"
        assert report.verdict is not Verdict.AC or lie in TRUTHS.get(exercise.slug, ())


def lie_positions(sites: list[tuple]) -> set[int]:
    """The calls (1-based) a case is lied to at: the first and the last of each of its call sites."""
    first: dict[tuple, int] = {}
    last: dict[tuple, int] = {}
    for number, site in enumerate(sites, start=1):
        first.setdefault(site, number)
        last[site] = number
    return set(first.values()) | set(last.values())


def test_lie_positions_take_each_site_first_and_last():
    a, b, c = (("hidden.py", 10),), (("hidden.py", 12),), (("cases.py", 3), ("hidden.py", 12))
    assert lie_positions([a, a, a, a, b, c, c, a]) == {1, 8, 5, 6, 7}
    assert lie_positions([a]) == {1} and lie_positions([]) == set()


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.slug)
def test_a_lie_at_any_one_call_is_never_an_internal_error(exercise, monkeypatch):
    kinds = list(LIES)
    for suites in _suites(exercise):
        counting = _Learner(_liar_source(exercise, "None", -1), exercise.tests_dir)
        honest, calls = _judge(exercise, suites, "None", at=-1, learner=counting)  # never lies: counts and places
        assert honest.verdict is Verdict.AC, honest.message
        titles = [case.title for case in honest.cases]
        assert len(calls) > 1 and len(set(titles)) == len(titles), "cases counted apart, by distinct titles"
        assert sum(calls.values()) > 10, "the sweep should reach many calls"
        assert {title: len(sites) for title, sites in counting.sites.items()} == {t: n for t, n in calls.items() if n}
        positions = {title: lie_positions(sites) for title, sites in counting.sites.items()}
        internal = []
        for at in sorted(set().union(*positions.values())):
            lie = kinds[at % len(kinds)]
            reached = {title for title, chosen in positions.items() if at in chosen}
            report, _ = _judge(exercise, suites, lie, at, monkeypatch, titles=reached)
            assert {case.title for case in report.cases} >= reached
            internal += [(at, lie, c.name) for c in report.cases if c.verdict is Verdict.IE]
        assert not internal, f"a lie at one call of a case made these cases IE (call, lie, case): {internal}"
