"""Tests of the tests, for every exercise: references pass (under many seeds), wrong ones fail, diagnosed."""

from __future__ import annotations

import pytest

from judge.budget import BudgetDeclaration
from judge.catalogue import check_exercise, diagnosis_found, judge_under_seeds, parse_wrong_solution
from judge.exercise import SUITES, load_all
from judge.runner import judge_file
from judge.sandbox.launchers import WarmLocalLauncher
from judge.suites import load_suite
from judge.verdicts import Verdict

EXERCISES = load_all()
SEEDS = range(50)  # longer sweeps: `check NNN --seeds 200` (kept out of make test for its time)


@pytest.fixture(scope="module")
def warm_launcher():
    """One fork server for this module's checks: each solution's process is forked from it, not
    started afresh (torch's import, 1.5-2 s, once instead of per solution)."""
    with WarmLocalLauncher() as launcher:
        yield launcher


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_check_passes(exercise, warm_launcher):
    outcomes = check_exercise(exercise, seed=20261129, launcher=warm_launcher)
    failures = [f"{o.solution}: {o.problem}" for o in outcomes if not o.ok]
    assert not failures, "\n".join(failures)
    assert outcomes[0].solution == "reference" and len(outcomes) >= 2


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_reference_passes_under_50_seeds(exercise):
    """The documented false-failure bound makes a failure here a one-in-20 000 event at most.

    Two worker processes share the seeds (the judge's statistics are pure Python: one process
    would leave a core idle), each with one learner process for all its seeds. An exercise whose
    suites declare no statistical check (42, 45: every answer exact) gets 3 seeds: a seed can
    change no verdict there, and each worker of 45 would load its model for nothing."""
    declared = BudgetDeclaration()
    for suite in SUITES:
        declared = declared + load_suite(exercise, suite).budget
    seeds = SEEDS[:3] if declared == BudgetDeclaration() else SEEDS
    reports = judge_under_seeds(exercise, exercise.reference_path, seeds, jobs=2)
    assert [r.seed for r in reports] == list(seeds)
    failed = [f"seed {r.seed}: {r.message}" for r in reports if r.verdict is not Verdict.AC]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_every_wrong_solution_states_its_mistake_and_diagnosis(exercise):
    for path in exercise.wrong_solutions():
        wrong = parse_wrong_solution(path)
        assert len(wrong.mistake) > 20 and len(wrong.diagnosis) > 5, path


def test_a_wrong_solution_without_its_docstring_is_refused(tmp_path):
    from judge.exercise import ExerciseError

    path = tmp_path / "bad.py"
    path.write_text('"""Only a mistake.\n\nMistake: something"""\n')
    with pytest.raises(ExerciseError, match="Diagnosis"):
        parse_wrong_solution(path)


def test_diagnosis_must_appear_in_a_failing_case(exercise39):
    report = judge_file(exercise39, exercise39.solutions_root / "wrong" / "top_k_plus_one.py", seed=3)
    assert report.verdict is Verdict.WA
    assert diagnosis_found(report, "top-k keeps one token too many (k+1)")
    assert not diagnosis_found(report, "top-k keeps one token too many")  # the whole diagnosis, not a part
    assert not diagnosis_found(report, "the rows share the same random numbers")


# --------------------------------------------------------------------------- a small exercise of its own

COIN_TESTS = '''
import torch
from judge.budget import BudgetDeclaration
from judge.checks import diagnosed, expect_distribution, expect_tensor

BUDGET = BudgetDeclaration(fit={fit})


def test_coin(sub, ctx):
    """flip: 4 000 tosses at p = 0.3

    zh: flip：p = 0.3 时抛 4 000 次
    """
    draws = expect_tensor(sub.flip(0.3, 4_000, ctx.generator()), name="flip", shape=(4_000,), dtype=torch.int64)
    with diagnosed("the coin lands heads with the wrong probability"):
        expect_distribution(ctx, draws, torch.tensor([0.7, 0.3], dtype=torch.float64), label="4 000 tosses")
'''


def _coin(tmp_path, monkeypatch, *, public_fit: int = 1, hidden_fit: int = 1):
    """A Bernoulli coin written from the authoring guide: one fit on two outcomes with a whole-number
    expectation (1 200 heads), where a correct coin lands exactly on it 1.4 % of the time."""
    import textwrap

    from judge.exercise import load_exercise

    folder = tmp_path / "exercises" / "950-coin"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "exercise.toml").write_text(textwrap.dedent("""
        number = 950
        slug = "coin"
        difficulty = "easy"
        [title]
        en = "A coin"
        zh = "硬币"
        [functions.flip]
        params = ["p", "n", "generator"]
    """))
    (folder / "tests" / "public" / "public.py").write_text(COIN_TESTS.format(fit=public_fit))
    (folder / "tests" / "hidden" / "hidden.py").write_text(COIN_TESTS.format(fit=hidden_fit))
    solutions = tmp_path / "solutions" / "950-coin"  # the solutions/ folder beside the pack
    (solutions / "wrong").mkdir(parents=True)
    (solutions / "reference.py").write_text(
        "import torch\n\ndef flip(p, n, generator=None):\n"
        "    return (torch.rand(n, generator=generator) < p).to(torch.int64)\n")
    (solutions / "wrong" / "biased.py").write_text(
        '"""Mistake: the coin lands heads with probability 0.4 instead of p.\n\n'
        'Diagnosis: the coin lands heads with the wrong probability\n"""\n'
        "import torch\n\ndef flip(p, n, generator=None):\n"
        "    return (torch.rand(n, generator=generator) < 0.4).to(torch.int64)\n")
    return load_exercise(folder)


def test_check_judges_every_solution_under_many_seeds_and_a_coin_passes_them_all(tmp_path, monkeypatch, warm_launcher):
    exercise = _coin(tmp_path, monkeypatch)
    outcomes = {o.solution: o for o in check_exercise(exercise, seed=7, seeds=60, launcher=warm_launcher)}
    reference, biased, budget = outcomes["reference"], outcomes["biased"], outcomes["budget"]
    assert (reference.runs, reference.as_expected) == (60, 60), reference.problem
    assert (biased.runs, biased.as_expected) == (60, 60), biased.problem
    assert budget.ok, budget.problem
    # Its lattice makes the too-regular test decline, and the report says why.
    checks = [c for c in reference.report.cases if c.name == "not_too_regular"][0].checks
    assert all(c.passed and "not tested" in c.label for c in checks)


def test_a_suite_that_declares_more_checks_than_it_runs_is_named(tmp_path, monkeypatch, warm_launcher):
    from judge.catalogue import budget_problems

    exercise = _coin(tmp_path, monkeypatch, hidden_fit=3)
    problems = budget_problems(exercise, seed=1, launcher=warm_launcher)
    assert problems == ["hidden.py: BUDGET declares fit=3 but its tests use 1 (BudgetDeclaration(fit=3))"]
    outcome = [o for o in check_exercise(exercise, seed=1, launcher=warm_launcher) if o.solution == "budget"][0]
    assert not outcome.ok and "hidden.py" in outcome.problem


class _Counted(WarmLocalLauncher):
    """A warm launcher that remembers itself, its fork server and how many processes it started."""

    made: list[_Counted] = []

    def __init__(self) -> None:
        super().__init__()
        self.launches = 0
        self.servers: set[int] = set()
        _Counted.made.append(self)

    def launch(self, **options):
        launched = super().launch(**options)
        self.launches += 1
        self.servers.add(self.server_pid)
        return launched


def test_check_makes_its_own_fork_server_and_closes_it(tmp_path, monkeypatch):
    monkeypatch.setattr("judge.sandbox.launchers.WarmLocalLauncher", _Counted)
    monkeypatch.setattr(_Counted, "made", [])
    outcomes = check_exercise(_coin(tmp_path, monkeypatch), seed=1)
    assert all(o.ok for o in outcomes)
    (launcher,) = _Counted.made
    assert launcher.launches == 4  # reference, biased, and the reference once per suite for the budget
    assert launcher.server_pid is None and all(_gone(pid) for pid in launcher.servers)


def test_an_interrupted_check_drops_the_solutions_not_started_and_closes_its_fork_server(tmp_path, monkeypatch):
    monkeypatch.setattr("judge.sandbox.launchers.WarmLocalLauncher", _Counted)
    monkeypatch.setattr(_Counted, "made", [])

    def interrupt(outcome):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        check_exercise(_coin(tmp_path, monkeypatch), seed=1, jobs=1, progress=interrupt)
    (launcher,) = _Counted.made
    assert launcher.launches <= 2  # the reference, perhaps the one solution started meanwhile; no budget runs
    assert launcher.server_pid is None and all(_gone(pid) for pid in launcher.servers)


def _gone(pid: int, within_s: float = 30.0) -> bool:
    """Whether ``pid`` ends within ``within_s`` (a liveness bound, not a timing)."""
    import time

    from judge.sandbox.keeper import running as _running

    deadline = time.monotonic() + within_s
    while _running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
