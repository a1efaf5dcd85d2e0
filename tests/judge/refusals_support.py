"""What the tests of batched refusals share: an exercise of two functions whose public suite is
given, and one submission judged with batches and with its calls one at a time."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from judge.engine.process import LearnerProcess
from judge.engine.runner import judge_file
from judge.exercises.exercise import Exercise, load_exercise


def refusals_exercise(
    folder: Path,
    tests: str,
    params: tuple[str, ...],
    *,
    time_limit_s: float,
    wall_limit_s: float,
    memory_limit_mb: int = 512,
) -> Exercise:
    """An exercise in ``folder`` (named ``NNN-slug``) declaring ``refuse`` and ``other`` with
    ``params``, whose public suite is ``tests`` (dedented) and hidden suite empty. A small memory
    limit, so that a learner that fills memory stops soon, long before its CPU time."""
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    declared = repr(list(params)).replace("'", '"')
    (folder / "exercise.toml").write_text(
        textwrap.dedent(f"""
        number = {int(folder.name[:3])}
        slug = "{folder.name[4:]}"
        difficulty = "easy"
        [title]
        en = "Refusals"
        zh = "拒绝"
        [functions.refuse]
        params = {declared}
        [functions.other]
        params = {declared}
        [judging]
        time_limit_s = {time_limit_s}
        wall_limit_s = {wall_limit_s}
        memory_limit_mb = {memory_limit_mb}
    """)
    )
    (folder / "tests" / "public" / "public.py").write_text(textwrap.dedent(tests))
    (folder / "tests" / "hidden" / "hidden.py").write_text("")
    return load_exercise(folder)


def batched_and_one_by_one(exercise: Exercise, path: Path, monkeypatch: Any, seed: int = 908, **kwargs: Any):
    """The reports of the file at ``path`` judged with batches (at least one ``refusals``
    request was made) and with ``LearnerProcess.refusals`` gone (none was): ``(batched, one_by_one)``.
    ``kwargs`` go to ``judge_file`` (a launcher, lanes)."""
    ops: list[str] = []
    original = LearnerProcess._exchange

    def counting(self, request, *args, **more):
        ops.append(request["op"])
        return original(self, request, *args, **more)

    monkeypatch.setattr(LearnerProcess, "_exchange", counting)
    batched = judge_file(exercise, path, seed=seed, **kwargs)
    assert "refusals" in ops, ops
    monkeypatch.delattr(LearnerProcess, "refusals")
    ops.clear()
    one_by_one = judge_file(exercise, path, seed=seed, **kwargs)
    assert "refusals" not in ops
    monkeypatch.undo()
    return batched, one_by_one
