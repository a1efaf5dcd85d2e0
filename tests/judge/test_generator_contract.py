"""The generator contract, whole (judge/checks/generator_contract.py): a toy exercise judged end to end,
correct samplers of every style accepted and each wrong one rejected with its own diagnosis, on
the server's learner process, the browser's in-process learner and the browser's torch subset.
What it rests on is pinned in test_generator_transport.py."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap

import pytest
import torch

from judge.browser.learner import InProcessLearner
from judge.checks import generator_contract, independence
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.generator_contract import (
    DEFAULT_RESEEDED_DIAGNOSIS,
    GLOBAL_RNG_DIAGNOSIS,
    POSITION_DIAGNOSIS,
    RESEEDED_DIAGNOSIS,
    expect_generator_contract,
    generator_contract_budget,
)
from judge.checks.base import CheckMisuse
from judge.checks.testing import Context
from judge.engine.process import LearnerProcess

# Row 1 repeats row 0 (the twins); the rows are in ascending order of their first probability, so a
# sampler that sorts the rows by it and never maps them back is right on this batch as it stands.
PROBS = [[0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.4, 0.3, 0.2, 0.1]]

TESTS = '''
import torch
from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget

PROBS = torch.tensor({probs}, dtype=torch.float64)
OPTIONS = dict({options})
BUDGET = generator_contract_budget(PROBS, **OPTIONS)


def test_generator_contract(sub, ctx):
    """sample: the generator contract

    zh: sample：生成器的约定
    """
    def draw(source, generator, rows=None):
        probs = PROBS if rows is None else PROBS[rows]
        n = 48 if rows is None else 1500
        value = source.sample(probs.to(torch.float32), n, generator=generator)
        return expect_tensor(value, name="sample", shape=(4, n), dtype=torch.int64, device=ctx.device)

    expect_generator_contract(sub, ctx, draw, PROBS, label="sample", **OPTIONS)
'''
ALL_CLAUSES = {"positions": True, "twins": (0, 1)}

HEAD = "import torch\n\n_PRIVATE = torch.Generator().manual_seed(1234)\n\n\n"


def _sampler(body: str) -> str:
    return HEAD + "def sample(probs, n, generator=None):\n" + textwrap.indent(textwrap.dedent(body).strip(), "    ")


CORRECT = {
    "multinomial": "return torch.multinomial(probs, n, replacement=True, generator=generator)",
    "rand": """
        u = torch.rand(probs.shape[0], n, generator=generator, dtype=torch.float64)
        cdf = probs.double().cumsum(1)
        return torch.searchsorted(cdf / cdf[:, -1:], u, right=True).clamp_max(probs.shape[1] - 1)
    """,
    "uniform_": """
        u = torch.empty(probs.shape[0], n, dtype=torch.float64).uniform_(generator=generator)
        cdf = probs.double().cumsum(1)
        return torch.searchsorted(cdf / cdf[:, -1:], u, right=True).clamp_max(probs.shape[1] - 1)
    """,
    "exponential_": """
        clocks = torch.empty(probs.shape[0], n, probs.shape[1], dtype=torch.float64).exponential_(generator=generator)
        return (probs.double().unsqueeze(1) / clocks).argmax(dim=2)
    """,
    "randint": """
        u = torch.randint(0, 2**24, (probs.shape[0], n), generator=generator).double() / 2**24
        cdf = probs.double().cumsum(1)
        return torch.searchsorted(cdf / cdf[:, -1:], u, right=True).clamp_max(probs.shape[1] - 1)
    """,
    "per_row_loop": """
        rows = [torch.multinomial(probs[r], n, replacement=True, generator=generator) for r in range(probs.shape[0])]
        return torch.stack(rows)
    """,
}

WRONG = {
    "reseeds_from_generator_seed": (
        """
        private = None if generator is None else torch.Generator().manual_seed(generator.initial_seed())
        return torch.multinomial(probs, n, replacement=True, generator=private)
        """,
        RESEEDED_DIAGNOSIS,
    ),
    "reseeds_from_torch_initial_seed": (
        """
        if generator is None:
            generator = torch.Generator().manual_seed(torch.initial_seed())
        return torch.multinomial(probs, n, replacement=True, generator=generator)
        """,
        DEFAULT_RESEEDED_DIAGNOSIS,
    ),
    "private_generator_at_import": (
        """
        mine = _PRIVATE if generator is not None else None
        return torch.multinomial(probs, n, replacement=True, generator=mine)
        """,
        generator_contract.SEEDS_DIAGNOSIS,
    ),
    "one_draw_site_without_generator": (
        """
        u = torch.rand(probs.shape[0], n, generator=generator, dtype=torch.float64)
        u[:, -1] = torch.rand(probs.shape[0], dtype=torch.float64)  # the last draw: the global generator
        cdf = probs.double().cumsum(1)
        return torch.searchsorted(cdf / cdf[:, -1:], u, right=True).clamp_max(probs.shape[1] - 1)
        """,
        GLOBAL_RNG_DIAGNOSIS,
    ),
    "manual_seed_inside": (
        """
        if generator is not None:
            torch.manual_seed(generator.initial_seed())  # "for reproducibility"
        return torch.multinomial(probs, n, replacement=True, generator=generator)
        """,
        GLOBAL_RNG_DIAGNOSIS,
    ),
    "position_dependent_batch": (
        """
        order = probs[:, 0].argsort(stable=True)  # rows grouped for speed, never mapped back
        return torch.multinomial(probs[order], n, replacement=True, generator=generator)
        """,
        POSITION_DIAGNOSIS,
    ),
    "tied_duplicate_rows": (
        """
        u = torch.rand(1, n, generator=generator, dtype=torch.float64).expand(probs.shape[0], n)
        cdf = probs.double().cumsum(1)
        return torch.searchsorted(cdf / cdf[:, -1:], u.contiguous(), right=True).clamp_max(probs.shape[1] - 1)
        """,
        independence.ROWS_SHARE_DIAGNOSIS,
    ),
}


def _exercise(tmp_path, options=ALL_CLAUSES, number=952):
    from judge.exercises.exercise import load_exercise

    folder = tmp_path / "exercises" / f"{number}-draws"
    for part in ("public", "hidden"):
        (folder / "tests" / part).mkdir(parents=True, exist_ok=True)
    (folder / "exercise.toml").write_text(
        textwrap.dedent(f"""
        number = {number}
        slug = "draws"
        difficulty = "easy"
        [title]
        en = "Draws"
        zh = "抽样"
        [functions.sample]
        params = ["probs", "n", "generator"]
        [browser]
        suites = ["public"]
        """)
    )
    tests = TESTS.format(probs=PROBS, options=repr(options))
    (folder / "tests" / "public" / "public.py").write_text(tests)
    (folder / "tests" / "hidden" / "hidden.py").write_text(tests)
    for name in [m for m in sys.modules if m.startswith(f"_probjudge_tests_{number}")]:
        del sys.modules[name]
    return load_exercise(folder)


def _judge(tmp_path, exercise, name: str, source: str, *, browser: bool = False):
    from judge.engine.runner import grade, judge_file

    if browser:
        learner = InProcessLearner(source)
        try:
            return grade(exercise, source, seed=3, suites=("hidden",), process=learner)
        finally:
            learner.close()
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return judge_file(exercise, path, seed=3, suites=("hidden",))


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    return _exercise(tmp_path_factory.mktemp("contract"))


@pytest.mark.parametrize("browser", [False, True], ids=["process", "in-process"])
@pytest.mark.parametrize("name", list(CORRECT))
def test_correct_samplers_of_every_style_keep_the_contract(tmp_path, exercise, name, browser):
    report = _judge(tmp_path, exercise, name, _sampler(CORRECT[name]), browser=browser)
    assert report.verdict.value == "AC", report.message
    used = report.false_failure_budget["checks"]
    assert (used["seeds"]["used"], used["fit"]["used"], used["independence"]["used"]) == (4, 4, 1)


@pytest.mark.parametrize("browser", [False, True], ids=["process", "in-process"])
@pytest.mark.parametrize("name", list(WRONG))
def test_each_broken_clause_is_rejected_with_its_own_diagnosis(tmp_path, exercise, name, browser):
    body, diagnosis = WRONG[name]
    report = _judge(tmp_path, exercise, name, _sampler(body), browser=browser)
    assert report.verdict.value == "WA", report.message
    assert report.diagnosis == diagnosis, (report.diagnosis, report.message)
    assert report.diagnosis.zh == diagnosis.zh


def test_the_diagnoses_are_new_and_distinct():
    texts = [RESEEDED_DIAGNOSIS, DEFAULT_RESEEDED_DIAGNOSIS, GLOBAL_RNG_DIAGNOSIS, POSITION_DIAGNOSIS,
             generator_contract.SEEDS_DIAGNOSIS, generator_contract.DEFAULT_GENERATOR_DIAGNOSIS, independence.ROWS_SHARE_DIAGNOSIS]
    assert len({str(t) for t in texts}) == len({t.zh for t in texts}) == len(texts)
    assert all(t.zh and t.zh != str(t) for t in texts)


def test_clauses_the_statement_does_not_promise_are_not_checked(tmp_path):
    """Without global_untouched, re-seeding torch inside the function (while drawing from the
    generator) passes; a draw site without generator= is still caught, by the seeds: torch's global
    generator is seeded differently before the two calls whose generators are seeded alike."""
    exercise = _exercise(tmp_path, {"global_untouched": False}, number=953)
    clobbers = _sampler("""
        if generator is not None:
            torch.manual_seed(0)
        return torch.multinomial(probs, n, replacement=True, generator=generator)
    """)
    assert _judge(tmp_path, exercise, "clobbers", clobbers).verdict.value == "AC"
    report = _judge(tmp_path, exercise, "one_site", _sampler(WRONG["one_draw_site_without_generator"][0]))
    assert report.verdict.value == "WA" and report.diagnosis == generator_contract.SEEDS_DIAGNOSIS
    report = _judge(tmp_path, exercise, "reference", _sampler(CORRECT["rand"]))
    assert report.verdict.value == "AC" and report.false_failure_budget["checks"]["seeds"]["used"] == 4


def test_the_contract_spends_what_its_budget_says():
    probs = torch.tensor(PROBS, dtype=torch.float64)
    assert generator_contract_budget(probs) == BudgetDeclaration(seeds=4)
    assert generator_contract_budget(probs, default_generator=False) == BudgetDeclaration(seeds=2)
    assert generator_contract_budget(probs, positions=True, twins=(0, 1)) == BudgetDeclaration(
        seeds=4, fit=4, independence=1)
    assert generator_contract_budget(probs[0]) == BudgetDeclaration(seeds=4)


class _Sub:
    """Enough of a Submission for the argument checks, which run before any call."""

    def with_global_seed(self, seed, *, once=False):
        raise AssertionError("no call may be made before the arguments are checked")

    watching_global_rng = with_global_seed


@pytest.mark.parametrize("arguments, argument", [
    ({"draw": "not callable"}, "draw"),
    ({"sub": object()}, "sub"),
    ({"probs": [[0.5, 0.5]]}, "probs"),
    ({"label": None}, "label"),
    ({"positions": True, "probs": torch.tensor([0.5, 0.5], dtype=torch.float64)}, "probs"),
    ({"positions": True, "draw": lambda source, generator: None}, "draw"),
    ({"twins": (0, 2)}, "twins"),  # rows of different targets
    ({"twins": (1, 1)}, "twins"),
    ({"twins": (0, 9)}, "twins"),
])
def test_a_misused_contract_says_which_argument_before_any_call(arguments, argument):
    ctx = Context(seed=1, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration(seeds=4)))
    given = {"sub": _Sub(), "ctx": ctx, "draw": lambda source, generator, rows=None: None,
             "probs": torch.tensor(PROBS, dtype=torch.float64), "label": "sample", **arguments}
    with pytest.raises(CheckMisuse) as misuse:
        expect_generator_contract(**given)
    assert misuse.value.argument == argument and misuse.value.check == "expect_generator_contract"
    assert ctx.budget.used["seeds"] == 0


def test_a_case_where_a_correct_sampler_may_repeat_itself_is_refused_before_spending():
    from judge.checks.testing import Submission

    learner = InProcessLearner(_sampler(CORRECT["multinomial"]))
    ctx = Context(seed=1, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration(seeds=4)))
    sub = Submission(learner, ("sample",), lambda: ctx)
    probs = torch.tensor(PROBS, dtype=torch.float64)

    def draw(source, generator):
        return source.sample(probs.float(), 3, generator=generator)  # 0.3**12: far likelier than 1e-12

    try:
        with pytest.raises(RuntimeError, match="repeats itself with probability"):
            expect_generator_contract(sub, ctx, draw, probs, label="sample")
    finally:
        learner.close()
    assert ctx.budget.used["seeds"] == 0


# --------------------------------------------------------------------------- a learner kept across gradings


SAVER = _sampler("""
    global _SEEN
    for old in _SEEN:  # hostile: every generator it was ever given, advanced and re-seeded at each call
        torch.rand(3, generator=old)
        old.manual_seed(7)
    if generator is not None and all(generator is not old for old in _SEEN):
        _SEEN = _SEEN + [generator]
    return torch.multinomial(probs, n, replacement=True, generator=generator)
""").replace("def sample", "_SEEN = []\n\n\ndef sample")


def test_what_a_learner_did_with_another_cases_generators_never_reaches_this_one(tmp_path, exercise, monkeypatch):
    """One learner process judges the same cases twice (the same seeds) and meddles with every generator
    it was ever given: a kept generator is never handed out again, so both gradings pass. Were the
    keys reused (the mutant below), the second grading's first call with the kept generator would
    find the first grading's, advanced and re-seeded, and a correct sampler would fail."""
    import judge.checks.testing
    from judge.engine.runner import grade

    path = tmp_path / "saver.py"
    path.write_text(SAVER)
    with LearnerProcess(path) as process:
        for _ in range(2):
            report = grade(exercise, SAVER, seed=3, suites=("hidden",), process=process)
            assert report.verdict.value == "AC", report.message
        monkeypatch.setattr(judge.checks.testing, "_KEPT_KEYS", itertools.count(10**6))
        first = grade(exercise, SAVER, seed=3, suites=("hidden",), process=process)
        monkeypatch.setattr(judge.checks.testing, "_KEPT_KEYS", itertools.count(10**6))
        again = grade(exercise, SAVER, seed=3, suites=("hidden",), process=process)
    assert first.verdict.value == "AC" and again.verdict.value == "WA"


# --------------------------------------------------------------------------- the browser's torch subset

BROWSER_RUN = """
import json, sys
import judge.browser.torchlike as subset
subset.install()
from judge.browser.run import run_browser_variant
folder, sources = sys.argv[1], json.loads(sys.stdin.read())
print(json.dumps({name: json.loads(run_browser_variant(folder, source, 5)) for name, source in sources.items()}))
"""


def test_the_browser_judges_the_contract_with_its_torch_subset(tmp_path):
    exercise = _exercise(tmp_path, ALL_CLAUSES, number=954)
    sources = {name: _sampler(body) for name, body in CORRECT.items()}
    sources.update({name: _sampler(body) for name, (body, _) in WRONG.items()})
    done = subprocess.run([sys.executable, "-c", BROWSER_RUN, str(exercise.root)], input=json.dumps(sources),
                          capture_output=True, text=True, timeout=600, check=True)
    reports = json.loads(done.stdout)
    for name in CORRECT:
        assert reports[name]["verdict"] == "AC", (name, reports[name]["message"])
        assert reports[name]["sandbox"] == "browser"
    for name in WRONG:
        assert reports[name]["verdict"] == "WA", (name, reports[name]["message"])
        diagnosis = WRONG[name][1]
        assert (reports[name]["diagnosis"], reports[name]["diagnosis_zh"]) == (str(diagnosis), diagnosis.zh), name


# --------------------------------------------------------------------------- CUDA


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_the_contract_holds_on_cuda(tmp_path, exercise):
    from judge.engine.runner import judge_file

    path = tmp_path / "cuda.py"
    on_device = "dtype=torch.float64, device=probs.device)"
    path.write_text(_sampler(CORRECT["rand"]).replace("dtype=torch.float64)", on_device))
    assert judge_file(exercise, path, seed=3, suites=("hidden",), device="cuda").verdict.value == "AC"
    path.write_text(_sampler(WRONG["manual_seed_inside"][0]))
    report = judge_file(exercise, path, seed=3, suites=("hidden",), device="cuda")
    assert report.verdict.value == "WA" and report.diagnosis == GLOBAL_RNG_DIAGNOSIS
