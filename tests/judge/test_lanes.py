"""Lanes: one grading's cases split over several learner processes at once (``grade(lanes=N)``).

Each lane runs its share of the cases (``lane_shares``, by their declared weights; with equal
weights lane ``k`` runs cases ``k``, ``k + N``, ...) in order, so which process sees which call
never depends on the machine's load, and the report is the one a single process would give for
every learner whose answers do not depend on its earlier calls.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from judge.checks.base import CheckMisuse
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.testing import lane_weight
from judge.engine.runner import grade, judge_file, lane_shares
from judge.exercises.exercise import load_all, resolve
from judge.exercises.suites import load_suite
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict
from tests.judge.test_runner import _fake_exercise

# Five cases; each writes "<case> <pid of the learner that answered>" to a file the test reads.
RECORDING_TESTS = """
    from judge.checks.exact import expect

    def _seen(name, answer):
        with open({log!r}, "a") as log:
            log.write(f"{{name}} {{answer}}\\n")

    def test_c0(sub, ctx):
        _seen("c0", sub.double(0))

    def test_c1(sub, ctx):
        _seen("c1", sub.double(1))

    def test_c2(sub, ctx):
        _seen("c2", sub.double(0))

    def test_c3(sub, ctx):
        _seen("c3", sub.double(0))

    def test_c4(sub, ctx):
        _seen("c4", sub.double(0))
"""

PID_LEARNER = "import os\n\ndef double(x):\n    print('answering', x)\n    return os.getpid()\n"


@pytest.fixture
def recording(tmp_path):
    log = tmp_path / "seen.txt"
    exercise = _fake_exercise(tmp_path, 931, RECORDING_TESTS.format(log=str(log)))

    def seen() -> dict[str, int]:
        pairs = [line.split() for line in log.read_text().splitlines()]
        log.unlink()
        return {name: int(pid) for name, pid in pairs}

    return exercise, seen


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


def test_each_lane_runs_every_nth_case_in_its_own_process(recording, learner_file, warm):
    exercise, seen = recording
    path = learner_file(PID_LEARNER)
    report = judge_file(exercise, path, seed=1, lanes=2, launcher=warm)
    assert report.verdict is Verdict.AC, report.message
    pids = seen()
    assert pids["c0"] == pids["c2"] == pids["c4"] and pids["c1"] == pids["c3"] and pids["c0"] != pids["c1"]
    assert report.timing["lanes"] == 2 and report.timing["calls"] == 5
    # Both processes' output reaches the report, the first lane's first.
    assert report.output.count("answering") == 5
    assert report.output.index("answering 0") < report.output.index("answering 1")

    single = judge_file(exercise, path, seed=1, lanes=1, launcher=warm)
    assert len(set(seen().values())) == 1 and "lanes" not in single.timing
    assert [c.verdict for c in single.cases] == [c.verdict for c in report.cases]


def test_three_lanes_and_more_lanes_than_cases(recording, learner_file, warm):
    exercise, seen = recording
    path = learner_file(PID_LEARNER)
    judge_file(exercise, path, seed=1, lanes=3, launcher=warm)
    pids = seen()
    assert pids["c0"] == pids["c3"] and pids["c1"] == pids["c4"] and len({pids["c0"], pids["c1"], pids["c2"]}) == 3
    report = judge_file(exercise, path, seed=1, lanes=50, launcher=warm)
    assert report.verdict is Verdict.AC and report.timing["lanes"] == 5 and len(set(seen().values())) == 5


def test_a_death_is_replaced_in_its_own_lane_and_the_report_matches_one_lane(recording, learner_file, warm):
    exercise, seen = recording
    path = learner_file("import os\n\ndef double(x):\n    if x == 1:\n        os._exit(3)\n    return os.getpid()\n")
    reports = {lanes: judge_file(exercise, path, seed=1, lanes=lanes, launcher=warm) for lanes in (1, 2)}
    for report in reports.values():
        assert report.verdict is Verdict.RE
        assert [c.verdict for c in report.cases] == [Verdict.AC, Verdict.RE, Verdict.AC, Verdict.AC, Verdict.AC]
    assert reports[1].message == reports[2].message
    seen()


def test_a_lane_whose_process_keeps_dying_skips_only_its_own_cases(recording, learner_file, warm):
    exercise, seen = recording
    # Dies on every call: each lane has its own MAX_RESTARTS (2) replacements.
    path = learner_file("import os\n\ndef double(x):\n    os._exit(3)\n")
    report = judge_file(exercise, path, seed=1, lanes=2, launcher=warm)
    assert report.verdict is Verdict.RE
    # Lane 0: c0, c2, c4 (start + 2 restarts); lane 1: c1, c3. Every case ran, none skipped.
    assert all(c.verdict is Verdict.RE for c in report.cases), [(c.name, c.verdict, c.message) for c in report.cases]


def test_lanes_must_be_a_whole_number_of_at_least_one(exercise39):
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(ValueError, match="lanes must be a whole number"):
            grade(exercise39, "def f():\n    pass\n", lanes=bad)


def test_a_file_that_cannot_be_read_uses_one_lane(exercise39, tmp_path):
    report = judge_file(exercise39, tmp_path / "missing.py", lanes=2)
    assert report.verdict is Verdict.CE and "lanes" not in report.timing


def test_exercise_39_gives_the_same_verdicts_on_two_lanes(warm):
    """The reference, every wrong solution that may keep state, and every third of the others (by
    name): the same verdict, case verdicts and diagnosis on one lane and on two, for the same seed;
    the budget spent the same way. (All 48 took near three minutes of make test; a stateless
    solution answers each case from that case's calls alone, so the third stands for the rest.)"""
    exercise = resolve("39")
    wrong = exercise.wrong_solutions()
    chosen = [p for i, p in enumerate(wrong) if _keeps_state(p) or i % 3 == 0]
    assert any(_keeps_state(p) for p in chosen) and len(chosen) >= len(wrong) // 3
    for path in [exercise.reference_path, *chosen]:
        one = judge_file(exercise, path, seed=39, lanes=1, launcher=warm)
        two = judge_file(exercise, path, seed=39, lanes=2, launcher=warm)
        assert two.timing["lanes"] == 2
        assert (one.verdict, one.diagnosis) == (two.verdict, two.diagnosis), path.name
        assert [(c.name, c.verdict) for c in one.cases] == [(c.name, c.verdict) for c in two.cases], path.name
        assert one.false_failure_budget == two.false_failure_budget, path.name


OTHER_EXERCISES = [e for e in load_all() if e.number != 39]  # 39: the test above, every solution compared


# Constructors whose object changes as it is used: a generator, an iterator, a counter.
_STATEFUL_CALLS = frozenset(
    {"Generator", "Random", "RandomState", "default_rng", "SystemRandom", "count", "cycle", "iter", "deque"}
)
# Methods that change a list, dict, set or deque in place.
_MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "popleft", "remove", "discard", "add", "update", "setdefault", "clear"}
    | {"popitem", "appendleft", "sort", "reverse"}
)


def _callee(node: ast.expr) -> str:
    """The last name of what a call calls (``torch.Generator().manual_seed(1)`` -> ``Generator``)."""
    while isinstance(node, ast.Call | ast.Attribute):
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node.value, ast.Call):
            node = node.value  # a method of a constructed object: the constructor decides
        else:
            return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _keeps_state(path: Path) -> bool:
    """Whether the learner file at ``path`` may carry state from one call to the next: a ``global``
    or ``nonlocal`` statement; a module-level generator, iterator or counter; or a module-level name
    that a function changes in place (``NAME[k] = ...``, ``NAME += ...``, ``NAME.append(...)``).
    Constants (a dict of quantiles read only, a ``NormalDist()``, a list of probabilities) are no
    state: a solution whose module holds only those answers each call from that call alone."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if any(isinstance(node, ast.Global | ast.Nonlocal) for node in ast.walk(tree)):
        return True
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node.value, ast.Call) and _callee(node.value) in _STATEFUL_CALLS:
                return True
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)  # an attribute set on a function or class is state too
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        for node in ast.walk(function):
            changed = None
            if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
                changed = node.value
            elif isinstance(node, ast.AugAssign):
                changed = node.target
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MUTATING_METHODS
            ):
                changed = node.func.value
            if isinstance(changed, ast.Name) and changed.id in names:
                return True
    return False


@pytest.mark.parametrize("exercise", OTHER_EXERCISES, ids=lambda e: e.folder)
def test_every_other_exercise_gives_the_same_reports_on_two_lanes(exercise, warm):
    """The reference (it runs every check of the suites to the end, in two threads here: what a
    race of the judge's side would change) and every other solution that may keep state between
    calls (the only ones whose answers may depend on which of its cases one process saw before)
    give the same report on two lanes as on one (none outside 39 today). A solution without state
    answers each case from that case's calls alone, and tests/exercises/test_catalogue.py judges it
    on one lane."""
    others = [*exercise.correct_solutions(), *exercise.wrong_solutions()]
    paths = [exercise.reference_path, *(p for p in others if _keeps_state(p))]
    for path in paths:
        one = judge_file(exercise, path, seed=20261129, lanes=1, launcher=warm)
        two = judge_file(exercise, path, seed=20261129, lanes=2, launcher=warm)
        assert two.timing["lanes"] == 2 and two.verdict is not Verdict.IE, path.name
        assert path != exercise.reference_path or two.verdict is Verdict.AC, two.message
        assert (one.verdict, one.message, one.diagnosis) == (two.verdict, two.message, two.diagnosis), path.name
        assert [(c.name, c.verdict, c.message) for c in one.cases] == [
            (c.name, c.verdict, c.message) for c in two.cases
        ], path.name
        assert one.false_failure_budget == two.false_failure_budget, path.name


def test_the_state_finder_sees_a_private_generator():
    wrong = {path.stem: path for path in resolve("39").wrong_solutions()}  # private_generator is a patch
    assert _keeps_state(wrong["private_generator"]) and not _keeps_state(wrong["top_k_plus_one"])


@pytest.mark.parametrize(
    ("source", "keeps"),
    [
        ("import torch\n_G = torch.Generator().manual_seed(1)\ndef f():\n    return torch.rand(1, generator=_G)", True),
        ("import random\n_R = random.Random(3)\ndef f():\n    return _R.random()", True),
        ("import itertools\n_N = itertools.count()\ndef f():\n    return next(_N)", True),
        ("SEEN = []\ndef f(x):\n    SEEN.append(x)\n    return len(SEEN)", True),
        ("CACHE = {}\ndef f(x):\n    CACHE[x] = x\n    return len(CACHE)", True),
        ("TOTAL = [0]\ndef f(x):\n    TOTAL[0] += x\n    return TOTAL[0]", True),
        ("def f():\n    f.calls = getattr(f, 'calls', 0) + 1\n    return f.calls", True),
        ("calls = 0\ndef f():\n    global calls\n    calls += 1\n    return calls", True),
        ("from statistics import NormalDist\n_N = NormalDist()\ndef f(p):\n    return _N.inv_cdf(p)", False),
        ("Q = {'median': 0.5}\nP = [0.4, 0.6]\ndef f(k):\n    return Q[k] * sum(P)", False),
        ("P = [0.4, 0.6]\ndef f():\n    local = list(P)\n    local.append(1)\n    return local", False),
    ],
)
def test_the_state_finder_tells_state_from_constants(tmp_path, source, keeps):
    """What lets a solution's answer depend on its earlier calls, and what does not: 52's and 54's
    solutions hold only constants (quantile tables, a NormalDist, probability lists), and judging
    every one of them on two lanes cost minutes for nothing."""
    path = tmp_path / "solution.py"
    path.write_text(source + "\n", encoding="utf-8")
    assert _keeps_state(path) is keeps


def test_the_budget_counts_checks_spent_from_many_threads():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=8000))
    barrier = threading.Barrier(8)

    def spend() -> None:
        barrier.wait()
        for _ in range(1000):
            budget.spend("fit")

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert budget.used["fit"] == 8000
    assert budget.spent["fit"] == pytest.approx(8000 * budget.alpha("fit") * 10.0)


def test_lane_shares_balance_declared_weights_and_keep_the_suites_order():
    assert lane_shares([1.0] * 5, 2) == [[0, 2, 4], [1, 3]]
    assert lane_shares([1.0] * 5, 1) == [[0, 1, 2, 3, 4]]
    assert lane_shares([1.0] * 2, 3) == [[0], [1], []]
    # Heaviest first, each to the lightest lane (ties: the lowest); each lane's cases ascending.
    assert lane_shares([3.0, 1.0, 1.0, 1.0, 1.0], 2) == [[0, 4], [1, 2, 3]]
    assert lane_shares([1.0, 8.0, 1.0, 4.0, 4.0], 2) == [[0, 1], [2, 3, 4]]  # 8 + 1 against 4 + 4 + 1
    weights = [float(w) for w in (5, 1, 9, 2, 2, 7, 1, 3)]
    assert lane_shares(weights, 3) == lane_shares(list(weights), 3)  # a function of the weights alone
    assert sorted(i for share in lane_shares(weights, 3) for i in share) == list(range(8))


def test_lane_weight_must_be_a_finite_number_above_zero():
    @lane_weight(2.5)
    def test_heavy(sub, ctx):
        pass

    assert test_heavy.lane_weight == 2.5
    for bad in (0, -1, float("inf"), float("nan"), True, "2", None):
        with pytest.raises(CheckMisuse, match="lane_weight"):
            lane_weight(bad)


def test_a_suite_s_weights_choose_the_lanes(tmp_path, learner_file, warm):
    log = tmp_path / "seen.txt"
    tests = RECORDING_TESTS.format(log=str(log)).replace(
        "    def test_c0", "    from judge.checks.testing import lane_weight\n\n    @lane_weight(3)\n    def test_c0"
    )
    exercise = _fake_exercise(tmp_path, 932, tests)
    assert [c.weight for c in load_suite(exercise, "public").cases] == [3.0, 1.0, 1.0, 1.0, 1.0]
    judge_file(exercise, learner_file(PID_LEARNER), seed=1, lanes=2, launcher=warm)
    pids = {name: int(pid) for name, pid in (line.split() for line in log.read_text().splitlines())}
    assert pids["c0"] == pids["c4"] and pids["c1"] == pids["c2"] == pids["c3"] and pids["c0"] != pids["c1"]


def test_a_weight_set_by_hand_that_is_not_a_positive_number_is_refused(tmp_path):
    tests = "\n    def test_c0(sub, ctx):\n        pass\n\n    test_c0.lane_weight = -2\n"
    with pytest.raises(TypeError, match="lane weight must be a finite number above 0"):
        load_suite(_fake_exercise(tmp_path, 933, tests), "public")


def test_exercise_39_s_weights_split_its_work_evenly_on_two_lanes():
    exercise = resolve("39")
    weights = [case.weight for suite in ("public", "hidden") for case in load_suite(exercise, suite).cases]
    loads = [sum(weights[i] for i in share) for share in lane_shares(weights, 2)]
    assert max(loads) <= 0.55 * sum(weights), loads
