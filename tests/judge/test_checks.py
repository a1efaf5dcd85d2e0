"""Checks in the judge's process: messages in the learner's terms, alphas spent from the budget."""

from __future__ import annotations

import builtins

import pytest
import torch

from judge.checks import base, distributions, exact, generator_contract, independence, refusals
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed
from judge.checks.testing import Context
from judge.engine.process import LearnerRaised
from judge.learner.code import exception_classes
from judge.learner.protocol import ExceptionInfo


@pytest.fixture
def ctx():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=4, independence=1, seeds=1))
    return Context(seed=1, device="cpu", budget=budget)


def _draws(probs, n, seed=0):
    return torch.multinomial(probs.float(), n, replacement=True, generator=torch.Generator().manual_seed(seed))


def test_support_violation_names_row_token_count_and_rule():
    probs = torch.tensor([[0.5, 0.5, 0.0]], dtype=torch.float64)
    draws = torch.tensor([[0, 2, 2, 1]])
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_support(draws, probs, what="sample", row_labels=["top_k=2"],
                              why_excluded=lambda row, token: "it is not among the top_k=2 most likely tokens")
    message = failed.value.message
    assert "row 0 (top_k=2)" in message and "token 2 was drawn 2 of 4 times" in message
    assert "not among the top_k=2" in message and "must never be drawn" in message


def test_support_names_the_mistake_of_a_one_row_target_from_one_row_alternatives():
    # A [V] target with [n] draws is one row; its alternatives may be [V] too (exercise 43).
    target = torch.tensor([0.5, 0.5, 0.0], dtype=torch.float64)
    alternatives = {"uses q instead of p": torch.tensor([0.2, 0.2, 0.6], dtype=torch.float64),
                    "uniform": torch.tensor([0.9, 0.05, 0.05], dtype=torch.float64)}
    with pytest.raises(CheckFailed) as failed:
        draws = _draws(alternatives["uses q instead of p"].unsqueeze(0), 600)[0]
        distributions.expect_support(draws, target, what="sample", alternatives=alternatives,
                              why_excluded=lambda row, token: "its target probability is 0")
    assert failed.value.diagnosis == "uses q instead of p"


def test_out_of_vocabulary_ids_are_refused():
    with pytest.raises(CheckFailed, match="token id 3, outside the vocabulary"):
        distributions.expect_tokens_in_range(torch.tensor([[0, 3]]), 3, what="sample")


def test_distribution_check_passes_correct_draws_and_names_the_fitting_mistake(ctx):
    target = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
    result = distributions.expect_distribution(ctx, _draws(target.unsqueeze(0), 20_000)[0], target, label="row 0")
    assert result.pvalue > ctx.budget.alpha("fit")
    shifted = torch.tensor([0.42, 0.38, 0.2], dtype=torch.float64)
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_distribution(ctx, _draws(shifted.unsqueeze(0), 20_000, seed=1)[0], target, label="row 1",
                                   alternatives=lambda: {"the temperature is wrong": shifted})
    error = failed.value
    assert error.diagnosis == "the temperature is wrong"
    assert error.p_value < ctx.budget.alpha("fit") and "degrees of freedom" in error.message
    assert "largest gap is token" in error.message
    assert [r.passed for r in ctx.records] == [True, False]
    assert len(ctx.fit_statistics) == 2


def test_close_check_prefers_the_mistake_that_explains_every_row():
    expected = torch.tensor([[0.5, 0.5], [0.25, 0.75]], dtype=torch.float64)
    actual = torch.tensor([[1.0, 0.0], [0.25, 0.75]])
    mistakes = {"matches only row 0": torch.tensor([[1.0, 0.0], [0.5, 0.5]]),
                "matches everything": torch.tensor([[1.0, 0.0], [0.25, 0.75]])}
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(actual, expected, rtol=1e-4, atol=1e-6, what="sampling_probs", mistakes=mistakes)
    assert failed.value.diagnosis == "matches everything"
    assert "row 0, token 0: you returned 1, expected 0.5" in failed.value.message
    with pytest.raises(CheckFailed, match="NaN"):
        exact.expect_close(torch.tensor([[float("nan"), 1.0]]), expected[:1], rtol=1e-4, atol=1e-6, what="x")


def test_shared_uniforms_fail_independence(ctx):
    probs = torch.tensor([0.4, 0.3, 0.2, 0.1], dtype=torch.float64)
    same = _draws(probs.unsqueeze(0), 2_000)[0]
    with pytest.raises(CheckFailed) as failed:
        independence.expect_independent_rows(ctx, same, same, probs, label="rows 2 and 5")
    assert "agreed at 2000 of 2000" in failed.value.message
    assert failed.value.diagnosis == "the rows share the same random numbers"


def test_seed_check_fails_identical_output_and_refuses_a_too_small_case(ctx):
    probs = torch.tensor([[0.5, 0.5]], dtype=torch.float64)
    draws = _draws(probs, 100)
    with pytest.raises(CheckFailed, match="exactly the same"):
        generator_contract.expect_different_under_seeds(ctx, draws, draws.clone(), probs, label="seeds")
    tiny = FalseFailureBudget(1e-6, BudgetDeclaration(seeds=1))
    small = Context(seed=1, device="cpu", budget=tiny)
    with pytest.raises(RuntimeError, match="enlarge the case"):
        generator_contract.expect_different_under_seeds(small, draws[:, :3], draws[:, 3:6], probs, label="seeds")


def _raise(type_name, message="bad input"):
    """Raise what the learner's side describes of Python's exception ``type_name``, classes and all."""
    classes = tuple(exception_classes(getattr(builtins, type_name)))
    raise LearnerRaised(
        ExceptionInfo(type_name=type_name, message=message, line=None, traceback="", memory=False, mro=classes)
    )


def test_expect_raises_accepts_the_type_or_a_subclass_with_a_message():
    with refusals.expect_raises(ValueError, "f()"):
        _raise("ValueError")
    with refusals.expect_raises(ArithmeticError, "f()"):
        _raise("ZeroDivisionError")
    with pytest.raises(CheckFailed, match="it raised TypeError"):
        with refusals.expect_raises(ValueError, "f(-1)"):
            _raise("TypeError")
    with pytest.raises(CheckFailed, match="returned normally"):
        with refusals.expect_raises(ValueError, "f(-1)"):
            pass
    with pytest.raises(CheckFailed, match="without a message"):
        with refusals.expect_raises(ValueError, "f(-1)"):
            _raise("ValueError", "")


def test_tensor_check_names_shape_dtype_and_device():
    with pytest.raises(CheckFailed, match="must return a torch.Tensor"):
        exact.expect_tensor([1], name="sample", shape=(1,), dtype=torch.int64)
    with pytest.raises(CheckFailed, match=r"shape \[2\], expected \[3\]"):
        exact.expect_tensor(torch.zeros(2, dtype=torch.int64), name="sample", shape=(3,), dtype=torch.int64)
    with pytest.raises(CheckFailed, match="dtype torch.int32"):
        exact.expect_tensor(torch.zeros(2, dtype=torch.int32), name="sample", shape=(2,), dtype=torch.int64)
    moved = torch.zeros(2, dtype=torch.int64)
    moved.origin_device = "cuda:0"
    with pytest.raises(CheckFailed, match="must stay on the input's device"):
        exact.expect_tensor(moved, name="sample", shape=(2,), dtype=torch.int64, device="cpu")


# --- the shortcuts of the target and range checks say what the plain tests say ---------------

_EDGE_VALUES = [0.0, -0.0, 0.25, 1.0, -1e-300, -5e-324, 5e-324, 1e308, float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_finite_and_nonnegative_agrees_with_isfinite_and_sign(dtype):
    # Every pair of edge values, in rows and alone, plus sums that overflow (1e308 twice; any float16 sum past
    # 65 504) and an empty tensor: the two-sum shortcut must give the plain answer, never a cached or a guessed one.
    values = torch.tensor(_EDGE_VALUES, dtype=torch.float64)
    pairs = torch.cartesian_prod(values, values)
    samples = [pairs.to(dtype), values.to(dtype), torch.empty(0, 3, dtype=dtype)]
    samples += [torch.full((3, 40_000), 2.0, dtype=dtype), *pairs.to(dtype)]
    for tensor in samples:
        plain = bool(torch.isfinite(tensor).all()) and not bool((tensor < 0).any())
        assert distributions._finite_and_nonnegative(tensor) is plain, tensor


def test_a_target_with_a_negative_or_nan_entry_is_still_a_misuse():
    for bad in (-1e-300, float("nan"), float("inf")):
        probs = torch.tensor([[0.5, 0.5, 0.0], [0.5, 0.5, bad]], dtype=torch.float64)
        with pytest.raises(base.CheckMisuse, match="finite probabilities >= 0"):
            distributions.expect_support(torch.zeros(2, 3, dtype=torch.int64), probs, what="sample",
                                  why_excluded=lambda row, token: "excluded")


def test_a_one_row_target_off_by_more_than_the_tolerance_is_named_as_before():
    probs = torch.tensor([0.5, 0.5 + 3e-6], dtype=torch.float64)
    with pytest.raises(base.CheckMisuse, match=r"with a row summing to 1 or 0\.999997 \("):
        distributions._target("c", "probs", probs, dims=(1, 2))
    distributions._target("c", "probs", torch.tensor([0.5, 0.5 + 5e-7], dtype=torch.float64), dims=(1, 2))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8])
def test_ids_within_agrees_with_min_and_max_for_every_integer_dtype(dtype):
    # (torch has neither aminmax nor min for uint16 and wider: those raise as they did before.)
    low = 0 if dtype is torch.uint8 else -1
    for values in ([0, 1, 2], [0, 3, 1], [low, 1, 2], [2, 2, 2]):
        draws = torch.tensor([values], dtype=dtype)
        assert distributions._ids_within(draws, 3) is (min(values) >= 0 and max(values) < 3)


def test_support_still_names_an_excluded_draw_among_many_rows():
    # The byte gather must flag the same entries as the boolean one.
    probs = torch.tensor([[0.5, 0.5, 0.0]] * 500 + [[0.0, 0.5, 0.5]] * 500, dtype=torch.float64)
    draws = torch.zeros(1000, 7, dtype=torch.int64)
    draws[700, 3] = 0  # row 700 excludes token 0: the first offending row
    with pytest.raises(CheckFailed, match=r"row 500: token 0 was drawn 7 of 7 times"):
        distributions.expect_support(draws, probs, what="sample", why_excluded=lambda row, token: "excluded")


@pytest.mark.parametrize("bad", [10, 2**40, -1, -(2**62)])
def test_the_lookups_that_stand_in_for_the_range_check_refuse_every_id_out_of_range(bad):
    # expect_support, expect_distribution and expect_independent_within_row skip the range pass on the
    # real torch because these lookups check every index: a torch that stopped doing so must fail here.
    ids = torch.tensor([0, bad, 3])
    with pytest.raises(RuntimeError, match=f"index {bad} is out of bounds for dimension 1 with size 10"):
        torch.gather(torch.ones(1, 10, dtype=torch.uint8), 1, ids.unsqueeze(0))
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.arange(10).index_select(0, ids)
    with pytest.raises(IndexError, match="index out of range in self"):
        distributions._token_counts(ids, 10)


@pytest.mark.parametrize("bad", [10, 2**40, -1])
def test_an_id_out_of_range_is_named_by_every_check_that_counts_or_looks_up(ctx, bad):
    probs = torch.full((10,), 0.1, dtype=torch.float64)
    draws = torch.tensor([0, 1, 2, 3, bad, 5] * 40)
    expected = rf"row 0 drew token id {bad}, outside the vocabulary \[0, 10\)"
    with pytest.raises(CheckFailed, match=r"sample: " + expected):
        distributions.expect_support(draws, probs, what="sample", why_excluded=lambda row, token: "excluded")
    with pytest.raises(CheckFailed, match=r"fit: " + expected):
        distributions.expect_distribution(ctx, draws, probs, label="fit")
    with pytest.raises(CheckFailed, match=r"pairs: " + expected):
        independence.expect_independent_within_row(ctx, draws, probs, label="pairs")


def test_counts_by_index_add_equal_bincount():
    draws = torch.randint(0, 300, (5_000,), generator=torch.Generator().manual_seed(3))
    assert torch.equal(distributions._token_counts(draws, 300), torch.bincount(draws, minlength=300))
    assert torch.equal(distributions._token_counts(draws[:0], 7), torch.zeros(7, dtype=torch.int64))
