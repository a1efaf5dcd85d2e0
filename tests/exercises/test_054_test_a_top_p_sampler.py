"""Exercise 54's own parts: the thresholds its statement quotes, its host, its samplers, its cases.

Exercise 54 is the first of the write-the-test kind (judge/exercises/write_the_test.py): the learner's
test is run against samplers in the judge's process. What the statement promises about those
samplers and the judging is checked here: the numbers it quotes are the engine's, the host refuses
what the statement says and charges B x num_samples, every sampler draws in range on valid input,
and every catalogued mistake of [write_the_test] has its hidden case.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
import torch
from scipy import stats

from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.exercises.exercise import WRITE_THE_TEST, resolve
from judge.exercises.suites import load_suite, suites_module
from judge.exercises.write_the_test import WriteTheTest, binomial_tail, load_sampler, parse, threshold


@pytest.fixture(scope="module")
def exercise54():
    return resolve("54")


@pytest.fixture(scope="module")
def kit(exercise54) -> WriteTheTest:
    return WriteTheTest.load(exercise54.root)


@pytest.fixture(scope="module")
def host(exercise54):
    load_suite(exercise54, "hidden")
    return suites_module(exercise54, "hidden.host")


@pytest.fixture(scope="module")
def delta(exercise54, kit) -> float:
    """One case's level, as a judging of the public and hidden suites gives it."""
    budget = FalseFailureBudget(exercise54.false_failure_budget, kit.budget() + BudgetDeclaration())
    return budget.alpha("rates")


def test_the_exercise_is_of_the_write_the_test_kind_and_declares_its_rates(exercise54, kit):
    assert exercise54.kind == WRITE_THE_TEST and "browser" not in exercise54.runs_in
    assert (kit.alpha, kit.power, kit.correct_runs, kit.mistake_runs) == (0.05, 0.9, 200, 80)
    assert (kit.calls_per_run, kit.units_per_run) == (20, 100_000)
    assert kit.budget() == BudgetDeclaration(rates=10)


def test_the_thresholds_and_operating_characteristic_are_the_statement_s(exercise54, kit, delta):
    """The statement quotes F >= 30 of 200, K >= 26 of 80, both below 1e-7, and what each catches."""
    assert delta == pytest.approx(1e-7)
    assert threshold(kit.correct_runs, kit.alpha, delta) == 30
    assert threshold(kit.mistake_runs, 1 - kit.power, delta) == 26
    statement = exercise54.statement("en")
    for quoted, value in (
        ("20 % of the time is caught with probability\n  0.97", binomial_tail(200, 0.20, 30)),
        ("25 % of the time with probability 0.9998", binomial_tail(200, 0.25, 30)),
        ("power 0.6\n  against a mistake is caught with probability 0.93", binomial_tail(80, 0.4, 26)),
        ("one with power 0.5 with probability 0.9995", binomial_tail(80, 0.5, 26)),
    ):
        shown = quoted.rsplit(" ", 1)[1]
        assert quoted in statement and f"{value:.{len(shown) - 2}f}" == shown, (quoted, value)


def test_the_binomial_tail_is_exact():
    for n, p, k in ((200, 0.05, 30), (40, 0.1, 17), (40, 0.5, 17), (10, 0.3, 0), (10, 0.3, 11)):
        assert binomial_tail(n, p, k) == pytest.approx(stats.binom.sf(k - 1, n, p), rel=1e-9, abs=1e-300)


def test_the_worked_example_is_computed():
    probs = torch.tensor([2.0, 1.0, 0.5, 0.0], dtype=torch.float64).softmax(0)
    kept = probs.clone()
    kept[3] = 0
    kept /= kept.sum()
    assert [round(float(x) * 10_000) for x in kept[:3]] == [6285, 2312, 1402]
    assert round(float(kept[2]) * 10_000, 1) == 1402.4  # (0 - e)^2 / e = e for the missing token 2
    assert round(stats.chi2.ppf(0.95, 2), 3) == 5.991


def test_every_mistake_has_its_hidden_case_and_every_case_a_mistake(exercise54, kit):
    cases = {case.name for case in load_suite(exercise54, "hidden").cases}
    assert cases == {"false_failures"} | {f"catches_{m.name}" for m in kit.mistakes}
    for mistake in kit.mistakes:
        assert mistake.sampler.is_file(), mistake.sampler
        assert mistake.headline and mistake.headline.zh


def _valid_inputs(rng: random.Random):
    rows, vocab = rng.choice([1, 2, 5]), rng.choice([2, 3, 6, 40])
    dtype = rng.choice([torch.float32, torch.float64])
    logits = torch.tensor(
        [[rng.choice([rng.gauss(0, 3), -math.inf, 4.0, 0.0]) for _ in range(vocab)] for _ in range(rows)], dtype=dtype
    )
    logits[:, rng.randrange(vocab)] = 0.0  # a finite logit in every row
    if rng.random() < 0.5:
        top_p = rng.choice([1.0, 1, 0.5, 0.9, 1e-9])
    else:
        top_p = torch.tensor([rng.choice([1.0, 0.3, 0.7, 1e-6]) for _ in range(rows)], dtype=dtype)
    return logits, rng.choice([1, 2, 9]), top_p


def test_every_sampler_draws_in_range_and_never_raises_on_valid_input(kit, host):
    """'The samplers you are judged against never raise on valid input': correct ones and mistakes."""
    rng = random.Random(54)
    samplers = [load_sampler(path, kit.patch_base) for path in kit.correct + tuple(m.sampler for m in kit.mistakes)]
    for trial in range(25):
        logits, num_samples, top_p = _valid_inputs(rng)
        for sampler in samplers:
            fn, cost = host.host(sampler, torch.Generator().manual_seed(trial))
            draws = fn(logits, num_samples, top_p=top_p)
            assert draws.dtype == torch.int64 and tuple(draws.shape) == (logits.shape[0], num_samples)
            assert bool(((draws >= 0) & (draws < logits.shape[1])).all())
            assert cost([logits, num_samples], {"top_p": top_p}) == logits.shape[0] * num_samples


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((torch.zeros(2, 3),), {"num_samples": 1, "top_p": 0.0}),
        ((torch.zeros(2, 3),), {"num_samples": 1, "top_p": 1.5}),
        ((torch.zeros(2, 3), 1, torch.tensor([0.5])), {}),
        ((torch.zeros(2, 3), 1, torch.tensor([[0.5], [0.5]])), {}),
        ((torch.tensor([[0.0, float("nan")]]), 1, 0.5), {}),
        ((torch.tensor([[0.0, float("inf")]]), 1, 0.5), {}),
        ((torch.tensor([[-float("inf"), -float("inf")]]), 1, 0.5), {}),
        ((torch.zeros(3), 1, 0.5), {}),
        ((torch.zeros(2, 3, dtype=torch.int64), 1, 0.5), {}),
        ((torch.zeros(1, 1), 1, 0.5), {}),
        ((torch.zeros(65, 2), 1, 0.5), {}),
        ((torch.zeros(1, 1025), 1, 0.5), {}),
        ((torch.zeros(1, 3), 0, 0.5), {}),
        ((torch.zeros(1, 3), 2.0, 0.5), {}),
        ((torch.zeros(1, 3), True, 0.5), {}),
        ((torch.zeros(1, 3), 1, "0.5"), {}),
        ((torch.zeros(1, 3), 1, None), {}),
        ((torch.zeros(1, 3), 1, 0.5, 7), {}),
        ((), {"logits": torch.zeros(1, 3), "temperature": 0.5}),
        (("logits",), {}),
    ],
)
def test_the_host_refuses_what_the_statement_calls_invalid(kit, host, args, kwargs):
    """'Invalid input makes sample_fn raise ValueError': never another exception (that would be IE)."""
    fn, cost = host.host(load_sampler(kit.correct[0], None), torch.Generator().manual_seed(0))
    with pytest.raises(ValueError) as refused:
        cost(list(args), dict(kwargs))
    assert str(refused.value)  # says what is wrong
    with pytest.raises(ValueError) as refused_again:
        fn(*args, **kwargs)
    assert str(refused_again.value) == str(refused.value)


def test_the_tie_breaking_sampler_keeps_the_higher_index_at_a_cut(kit):
    """One row of three tied tokens at top_p 0.5: two stay, the lower index goes (the others keep it)."""
    sampler = load_sampler(next(p for p in kit.correct if p.stem == "ties_to_higher_index"), None)
    draws = sampler.sample(
        torch.tensor([[1.0, 1.0, 1.0, 0.0]]), 20_000, top_p=0.5, generator=torch.Generator().manual_seed(3)
    )
    counts = torch.bincount(draws[0], minlength=4).tolist()
    assert counts[0] == counts[3] == 0 and abs(counts[1] - 10_000) < 400


def test_a_broken_table_is_refused_with_its_file(tmp_path):
    table = {"function": "t", "argument": "f", "alpha": 1.5, "power": 0.9, "correct_runs": 1, "mistake_runs": 1}
    table |= {
        "calls_per_run": 1,
        "draws_per_run": 1,
        "correct": ["x.py"],
        "mistakes": [{"name": "m", "sampler": "y.py", "en": "e", "zh": "z"}],
    }
    with pytest.raises(ValueError, match="alpha and power"):
        parse(table, tmp_path / "exercise.toml", tmp_path)
    with pytest.raises(ValueError, match="misses or mistypes"):
        parse({k: v for k, v in table.items() if k != "mistakes"}, tmp_path / "exercise.toml", tmp_path)
    with pytest.raises(ValueError, match="needs a \\[write_the_test\\] table"):
        parse(None, tmp_path / "exercise.toml", Path(tmp_path))
