"""Tests of the tests, for every exercise: references pass (under many seeds), wrong ones fail, diagnosed."""

from __future__ import annotations

import pytest

from judge.authoring.catalogue import check_exercise, diagnosis_found, judge_under_seeds, parse_wrong_solution
from judge.checks.budget import BudgetDeclaration
from judge.engine.runner import judge_file
from judge.exercises.exercise import SUITES, load_all
from judge.exercises.suites import load_suite
from judge.sandbox.launchers import WarmLocalLauncher
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
    """``check`` as an author runs it; and every correct solution (the reference, each of correct/)
    uses at most a third of the CPU limit in its slowest case, so that a machine three times slower
    still passes it (tests/exercises/test_time_limits.py shows the references do beside two busy
    processes: CPU time, not the wall clock, is what a limit counts)."""
    outcomes = check_exercise(exercise, seed=20261129, launcher=warm_launcher)
    failures = [f"{o.solution}: {o.problem}" for o in outcomes if not o.ok]
    assert not failures, "\n".join(failures)
    assert outcomes[0].solution == "reference" and len(outcomes) >= 2
    third_ms = exercise.time_limit_s * 1000 / 3
    for outcome in outcomes:
        if outcome.solution == "reference" or outcome.solution.startswith("correct/"):
            worst = max(outcome.report.cases, key=lambda case: case.cpu_ms or 0.0)
            assert (worst.cpu_ms or 0.0) <= third_ms, (outcome.solution, worst.name, worst.cpu_ms)


# Check kinds whose false failures are measured elsewhere, run by run: a learner's test's rates
# (benchmarks/power_054.py measures the reference test's, so 50 judgings would measure nothing new).
MEASURED_RUN_BY_RUN = ("rates",)


def _seeded_by_judging(declared: BudgetDeclaration) -> bool:
    """Whether the suites declare a statistical check whose false failures 50 judgings measure: any
    kind but those measured run by run (none at all: every answer exact, and a seed changes nothing)."""
    kinds = ("fit", "pairs", "calibration", "unbiased", "independence", "seeds", "rates")
    return any(declared.count(kind) for kind in kinds if kind not in MEASURED_RUN_BY_RUN)


def test_the_seed_count_follows_the_declared_checks():
    assert _seeded_by_judging(BudgetDeclaration(fit=1)) and _seeded_by_judging(BudgetDeclaration(rates=2, seeds=1))
    assert not _seeded_by_judging(BudgetDeclaration()) and not _seeded_by_judging(BudgetDeclaration(rates=10))


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder)
def test_reference_passes_under_50_seeds(exercise):
    """The documented false-failure bound makes a failure here a one-in-20 000 event at most.

    Two worker processes share the seeds (the judge's statistics are pure Python: one process
    would leave a core idle), each with one learner process for all its seeds. An exercise whose
    suites declare no statistical check (42, 45: every answer exact) gets 3 seeds: a seed can
    change no verdict there, and each worker of 45 would load its model for nothing. Suites whose
    only statistical checks are a learner's test's rates (54) get 3 too: one judging runs the
    reference test some 920 times, and its rates are measured run by run instead
    (benchmarks/power_054.py: a false-failure rate of 0.01 against the 0.05 allowed, which the
    200-run case fails at F >= 30 with probability about 1e-25)."""
    declared = BudgetDeclaration()
    for suite in SUITES:
        declared = declared + load_suite(exercise, suite).budget
    seeds = SEEDS if _seeded_by_judging(declared) else SEEDS[:3]
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
    from judge.exercises.folders import ExerciseError

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
from judge.checks.budget import BudgetDeclaration
from judge.checks.base import diagnosed
from judge.checks.distributions import expect_distribution
from judge.checks.exact import expect_tensor

BUDGET = BudgetDeclaration(fit={fit})


def test_coin(sub, ctx):
    """flip: 4 000 tosses at p = 0.3

    zh: flip：p = 0.3 时抛 4 000 次
    """
    draws = expect_tensor(sub.flip(0.3, 4_000, ctx.generator()), name="flip", shape=(4_000,), dtype=torch.int64)
    with diagnosed("the coin lands heads with the wrong probability"):
        expect_distribution(ctx, draws, torch.tensor([0.7, 0.3], dtype=torch.float64), label="4 000 tosses")
'''


STARTER = 'import torch\n\n\ndef flip(p, n, generator=None):\n    raise NotImplementedError("flip: write it here")\n'
REFERENCE = (
    "import torch\n\ndef flip(p, n, generator=None):\n"
    "    return (torch.rand(n, generator=generator) < p).to(torch.int64)\n"
)
BIASED = (
    '"""Mistake: the coin lands heads with probability 0.4 instead of p.\n\n'
    'Diagnosis: the coin lands heads with the wrong probability\n"""\n'
    "import torch\n\ndef flip(p, n, generator=None):\n"
    "    return (torch.rand(n, generator=generator) < 0.4).to(torch.int64)\n"
)


def _coin(
    tmp_path,
    monkeypatch,
    *,
    public_fit: int = 1,
    hidden_fit: int = 1,
    public: str | None = None,
    starter: str = STARTER,
    wrong: dict[str, str] | None = None,
    tiny: str | None = None,
    undetectable: dict[str, str] | None = None,
    params: str = '["p", "n", "generator"]',
    subset_undetectable: dict[str, str] | None = None,
):
    """A Bernoulli coin written from the authoring guide: one fit on two outcomes with a whole-number
    expectation (1 200 heads), where a correct coin lands exactly on it 1.4 % of the time.

    ``public`` replaces the public suite, ``starter`` the starter, ``wrong`` adds wrong solutions
    (name -> file text; a ``.patch`` name keeps its suffix), ``tiny`` gives it a browser variant
    (that suite's text) with ``undetectable`` as its list."""
    import textwrap

    from judge.exercises.exercise import load_exercise

    folder = tmp_path / "exercises" / "950-coin"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    toml = textwrap.dedent(f"""
        number = 950
        slug = "coin"
        difficulty = "easy"
        [title]
        en = "A coin"
        zh = "硬币"
        [functions.flip]
        params = {params}
    """)
    if tiny is not None:
        toml = 'runs_in = ["local", "server", "browser"]\n' + toml
        toml += '[browser]\nsuites = ["public", "tiny"]\n[browser.undetectable]\n'
        toml += "".join(f'{name} = "{why}"\n' for name, why in (undetectable or {}).items())
        if subset_undetectable:
            toml += "[browser.subset_undetectable]\n"
            toml += "".join(f'{name} = "{why}"\n' for name, why in subset_undetectable.items())
        (folder / "tests" / "public" / "tiny.py").write_text(tiny)
    (folder / "exercise.toml").write_text(toml)
    (folder / "starter.py").write_text(starter)
    (folder / "tests" / "public" / "public.py").write_text(public or COIN_TESTS.format(fit=public_fit))
    (folder / "tests" / "hidden" / "hidden.py").write_text(COIN_TESTS.format(fit=hidden_fit))
    solutions = tmp_path / "solutions" / "950-coin"  # the solutions/ folder beside the pack
    (solutions / "wrong").mkdir(parents=True)
    (solutions / "reference.py").write_text(REFERENCE)
    (solutions / "wrong" / "biased.py").write_text(BIASED)
    for name, text in (wrong or {}).items():
        (solutions / "wrong" / (name if "." in name else f"{name}.py")).write_text(text)
    return load_exercise(folder)


def _outcomes(exercise, launcher, **options):
    return {o.solution: o for o in check_exercise(exercise, seed=options.pop("seed", 1), launcher=launcher, **options)}


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
    from judge.authoring.catalogue import budget_problems

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
    assert all(o.ok for o in outcomes if o.solution != "contract")  # the coin has no statement to list
    (launcher,) = _Counted.made
    assert launcher.launches == 5  # reference, starter, biased, and the reference once per suite for the budget
    assert launcher.server_pid is None and all(_gone(pid) for pid in launcher.servers)


def test_an_interrupted_check_drops_the_solutions_not_started_and_closes_its_fork_server(tmp_path, monkeypatch):
    monkeypatch.setattr("judge.sandbox.launchers.WarmLocalLauncher", _Counted)
    monkeypatch.setattr(_Counted, "made", [])

    def interrupt(outcome):
        raise KeyboardInterrupt("the progress callback")

    with pytest.raises(KeyboardInterrupt, match="the progress callback"):
        check_exercise(_coin(tmp_path, monkeypatch), seed=1, jobs=1, progress=interrupt)
    (launcher,) = _Counted.made
    assert launcher.launches <= 2  # the reference, perhaps the starter started meanwhile; no budget runs
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


# --------------------------------------------------------------------------- what check holds the catalogue to

TWO_NAMES = '''
import torch
from judge.checks.budget import BudgetDeclaration
from judge.checks.base import diagnosed
from judge.checks.distributions import expect_distribution
from judge.checks.exact import expect_tensor

BUDGET = BudgetDeclaration(fit=2)


def _heads(sub, ctx, label):
    draws = expect_tensor(sub.flip(0.3, 4_000, ctx.generator()), name="flip", shape=(4_000,), dtype=torch.int64)
    expect_distribution(ctx, draws, torch.tensor([0.7, 0.3], dtype=torch.float64), label=label)


def test_first(sub, ctx):
    """flip: a first case that names a mistake of its own

    zh: flip：第一个测试点
    """
    with diagnosed("a mistake the first case names"):
        _heads(sub, ctx, "first")


def test_second(sub, ctx):
    """flip: a second case that names the promised one

    zh: flip：第二个测试点
    """
    with diagnosed("the coin lands heads with the wrong probability"):
        _heads(sub, ctx, "second")
'''


def test_a_wrong_solution_whose_headline_names_another_mistake_fails_check(tmp_path, monkeypatch, warm_launcher):
    """The learner reads the report's headline first: a promise found only in a later case is not kept."""
    biased = _outcomes(_coin(tmp_path, monkeypatch, public=TWO_NAMES), warm_launcher)["biased"]
    assert biased.report.verdict is Verdict.WA and not biased.ok
    assert str(biased.report.diagnosis) == "a mistake the first case names"
    assert "'a mistake the first case names'" in biased.problem  # the headline the learner reads
    assert "'the coin lands heads with the wrong probability'" in biased.problem  # the promise
    assert "case second names the promised one" in biased.problem


PLACEHOLDER = (
    "import torch\n\n\ndef flip(p, n, generator=None):\n"
    "    return torch.zeros(n, dtype=torch.int64)  # TODO: flip the coin\n"
)


def test_the_untouched_starter_must_be_rejected_naming_no_mistake(tmp_path, monkeypatch, warm_launcher):
    plain = _outcomes(_coin(tmp_path / "plain", monkeypatch), warm_launcher)["starter"]
    assert plain.ok and plain.report.verdict is Verdict.RE, plain.problem
    assert plain.expectation == "rejected, naming no mistake"
    # A starter that returns a placeholder meets the diagnosed fit check: a mistake nobody made is named.
    named = _outcomes(_coin(tmp_path / "named", monkeypatch, starter=PLACEHOLDER), warm_launcher)
    assert not named["starter"].ok and named["starter"].report.verdict is Verdict.WA
    assert "names a mistake the untouched starter cannot have made" in named["starter"].problem
    assert "'the coin lands heads with the wrong probability'" in named["starter"].problem
    assert "case coin" in named["starter"].problem
    assert named["reference"].ok and named["biased"].ok  # only the starter's line says it
    accepted = _outcomes(_coin(tmp_path / "accepted", monkeypatch, starter=REFERENCE), warm_launcher)["starter"]
    assert not accepted.ok and accepted.problem == "was accepted"


SIZED = COIN_TESTS.replace("4_000", "{n}").replace("4 000", "{n}")
LATE_BIAS = (
    '"""Mistake: from 3 000 flips on, heads come up with probability 0.4 whatever p is.\n\n'
    'Diagnosis: the coin lands heads with the wrong probability\n"""\n'
    "import torch\n\ndef flip(p, n, generator=None):\n"
    "    return (torch.rand(n, generator=generator) < (0.4 if n > 3000 else p)).to(torch.int64)\n"
)


def _browser_coin(tmp_path, monkeypatch, *, undetectable, tiny_fit=1, subset_undetectable=None):
    """Public and tiny suites of 2 000 flips (the browser's), a hidden one of 4 000: a coin that goes
    wrong only past 3 000 flips (``late_bias``) passes the browser's suites."""
    return _coin(
        tmp_path,
        monkeypatch,
        public=SIZED.format(fit=1, n=2_000),
        wrong={"late_bias": LATE_BIAS},
        tiny=SIZED.format(fit=tiny_fit, n=2_000).replace("def test_coin", "def test_tiny_coin"),
        undetectable=undetectable,
        subset_undetectable=subset_undetectable,
    )


def test_a_mistake_only_the_subset_misses_is_still_caught_with_real_torch(tmp_path, monkeypatch, warm_launcher):
    """[browser.subset_undetectable]: check holds real torch to catching it (a listed one that real torch
    lets through fails its line), and a listed name that is no wrong solution fails the list's line."""
    exercise = _browser_coin(
        tmp_path,
        monkeypatch,
        undetectable={"late_bias": "only past 3 000 flips"},
        subset_undetectable={"biased": "the subset sums otherwise", "gone": "renamed"},
    )
    assert exercise.browser.passing == {
        "late_bias": "only past 3 000 flips",
        "biased": "the subset sums otherwise",
        "gone": "renamed",
    }
    outcomes = _outcomes(exercise, warm_launcher)
    assert outcomes["biased"].ok and outcomes["biased"].expectation.endswith(", and by public+tiny")
    assert not outcomes["undetectable"].ok and "gone" in outcomes["undetectable"].problem
    assert "biased" not in outcomes["undetectable"].problem


def test_the_browser_catalogue_lets_correct_code_be_skipped_and_listed_mistakes_pass(tmp_path, monkeypatch):
    """judge.browser.catalogue.problems: another correct solution may be SK (it needs what the browser
    lacks), the reference may not; a subset_undetectable mistake must pass there, as an undetectable one."""
    from judge.browser.catalogue import problems

    exercise = _browser_coin(tmp_path, monkeypatch, undetectable={}, subset_undetectable={"biased": "sums"})

    def result(name, verdict, expected=None):
        return {"name": name, "verdict": verdict, "message": "m", "expected_diagnosis": expected, "diagnosed": False}

    assert (
        problems(exercise, [result("reference", "AC"), result("correct/numpy", "SK"), result("biased", "AC", "biased")])
        == []
    )
    found = problems(
        exercise, [result("reference", "SK"), result("correct/numpy", "WA"), result("biased", "WA", "biased")]
    )
    assert found == [
        "the reference gets SK: m",
        "correct/numpy gets WA: m",
        "biased is listed as undetectable but gets WA",
    ]


def test_check_judges_the_browser_suites_with_the_same_promises(tmp_path, monkeypatch, warm_launcher):
    exercise = _browser_coin(tmp_path, monkeypatch, undetectable={"late_bias": "only past 3 000 flips"})
    outcomes = _outcomes(exercise, warm_launcher)
    outcomes.pop("contract")  # the coin has no statement to list
    assert all(o.ok for o in outcomes.values()), {o.solution: o.problem for o in outcomes.values() if not o.ok}
    assert outcomes["reference"].expectation == "accepted, and by public+tiny"
    assert outcomes["biased"].expectation.endswith(", and by public+tiny")
    assert "accepted by public+tiny (listed undetectable)" in outcomes["late_bias"].expectation
    assert outcomes["undetectable"].ok and outcomes["budget"].ok


def test_stale_browser_promises_fail_check(tmp_path, monkeypatch, warm_launcher):
    """A listed mistake the browser's suites catch, one they miss unlisted, a listed name that is no
    wrong solution, and a tiny BUDGET that declares more than it uses: each fails its own line."""
    exercise = _browser_coin(
        tmp_path, monkeypatch, undetectable={"biased": "wrongly listed", "gone": "renamed"}, tiny_fit=2
    )
    outcomes = _outcomes(exercise, warm_launcher)
    assert outcomes["reference"].ok and outcomes["starter"].ok
    assert not outcomes["biased"].ok and "listed in [browser.undetectable] but caught" in outcomes["biased"].problem
    assert not outcomes["late_bias"].ok
    assert outcomes["late_bias"].problem == "on public+tiny (the browser's suites): was accepted"
    assert not outcomes["undetectable"].ok and "gone" in outcomes["undetectable"].problem
    assert "biased" not in outcomes["undetectable"].problem
    assert not outcomes["budget"].ok
    assert "tiny.py: BUDGET declares fit=2 but its tests use 1" in outcomes["budget"].problem


def test_declared_parameters_the_solutions_lack_fail_check(tmp_path, monkeypatch, warm_launcher):
    exercise = _coin(tmp_path, monkeypatch, params='["p", "n", "generator", "seed"]')
    params = _outcomes(exercise, warm_launcher)["params"]
    assert not params.ok
    assert "reference.py: `flip` has no parameter `seed`" in params.problem
    assert "starter.py: `flip` has no parameter `seed`" in params.problem


PATCHED = """Mistake: the coin compares with 0.5, whatever p is.

Diagnosis: the coin lands heads with the wrong probability

--- a/reference.py
+++ b/reference.py
@@ -1,4 +1,4 @@
 import torch
 
 def flip(p, n, generator=None):
-    return (torch.rand(n, generator=generator) < p).to(torch.int64)
+    return (torch.rand(n, generator=generator) < 0.5).to(torch.int64)
"""


def test_a_wrong_solution_may_be_a_patch_and_a_stale_one_fails_its_line(tmp_path, monkeypatch, warm_launcher):
    stale = PATCHED.replace("< p).to", "<= p).to").replace("< 0.5).to", "<= 0.5).to")
    exercise = _coin(tmp_path, monkeypatch, wrong={"halves.patch": PATCHED, "stale.patch": stale})
    assert [p.name for p in exercise.wrong_solution_files()] == ["biased.py", "halves.patch", "stale.patch"]
    outcomes = _outcomes(exercise, warm_launcher)
    assert outcomes["halves"].ok and outcomes["halves"].report.verdict is Verdict.WA, outcomes["halves"].problem
    assert outcomes["halves"].expectation == "rejected, diagnosed as 'the coin lands heads with the wrong probability'"
    assert not outcomes["stale"].ok and outcomes["stale"].report.verdict is Verdict.CE
    assert outcomes["stale"].problem.startswith("wrong/stale.patch no longer applies to reference.py: hunk 1 (")
    assert all(o.ok for name, o in outcomes.items() if name not in ("stale", "contract"))
