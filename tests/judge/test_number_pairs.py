"""Two numbers a message sets side by side read differently whenever they differ (judge.checks.numbers)."""

from __future__ import annotations

import math
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.checks import base, exact
from judge.checks.base import CheckFailed
from judge.checks.numbers import format_pair


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (0.7, 0.7000001, ("0.7", "0.7000001")),
        (7.01138, 7.011381, ("7.01138", "7.011381")),
        (0.25, 0.5, ("0.25", "0.5")),  # already different: the usual six digits
        (1.0, 1.0, ("1", "1")),  # equal: written alike
        (math.inf, math.inf, ("inf", "inf")),
        (math.nan, 0.5, ("nan", "0.5")),
        (0.1, 0.1 + 2**-56, ("0.1", "0.10000000000000002")),  # one ulp apart: repr
        (-0.0, 0.0, ("-0", "0")),
        (3, 3.0000004, ("3", "3.0000004")),
    ],
)
def test_a_pair_is_written_with_the_fewest_digits_that_tell_it_apart(first, second, expected):
    assert format_pair(first, second) == expected


def test_more_digits_are_asked_for_not_fewer():
    assert format_pair(1 / 3, 2 / 3, digits=8) == ("0.33333333", "0.66666667")
    assert format_pair(1 / 3, 1 / 3 + 1e-10, digits=8) == ("0.3333333333", "0.3333333334")


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_different_numbers_never_read_alike(first, second):
    a, b = format_pair(first, second)
    if first != second:
        assert a != b
    elif math.copysign(1, first) == math.copysign(1, second):
        assert a == b == f"{first:.6g}"
    assert (float(a), float(b)) == pytest.approx((first, second), rel=1e-5) or math.isinf(first) or math.isinf(second)


def test_expect_close_shows_the_digits_that_differ():
    """The message that once read "you returned 0.7, expected 0.7"."""
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(
            torch.tensor([0.7000001], dtype=torch.float64),
            torch.tensor([0.7], dtype=torch.float64),
            rtol=0.0,
            atol=1e-9,
            what="p",
            per_row=True,
        )
    assert "you returned 0.7000001, expected 0.7 " in failed.value.message


# --- per-row scalars and infinities in expect_close ----------------------------------------------


def test_per_row_scalars_are_named_by_their_row_alone():
    expected = torch.tensor([0.5, 1.25, 2.0], dtype=torch.float64)
    actual = torch.tensor([0.5, 1.25, 2.5], dtype=torch.float64)
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(
            actual,
            expected,
            rtol=0.0,
            atol=1e-9,
            what="entropy",
            row_labels=["a", "b", "c"],
            per_row=True,
            mistakes={"halved": torch.tensor([0.25, 0.625, 1.0]), "plus half": torch.tensor([1.0, 1.75, 2.5])},
        )
    message = failed.value.message
    assert message.startswith("entropy: row 2 (c): you returned 2.5, expected 2 (tolerance")
    assert "token" not in message and failed.value.diagnosis == "plus half"
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(
            torch.tensor([0.5, float("nan")]), expected[:2], rtol=0.0, atol=1e-9, what="entropy", per_row=True
        )
    assert failed.value.message == "entropy: row 1 holds NaN"
    # Without per_row, a [B] target is one row of B columns: what the message said of a per-row value.
    with pytest.raises(CheckFailed, match=r"row 0, token 2: you returned 2\.5"):
        exact.expect_close(actual, expected, rtol=0.0, atol=1e-9, what="entropy")


def test_per_row_needs_one_value_per_row():
    one_per_row = "argument `expected` must be a floating tensor of shape [B]"
    with pytest.raises(base.CheckMisuse, match=re.escape(one_per_row)):
        exact.expect_close(torch.zeros(2, 2), torch.zeros(2, 2), rtol=0.0, atol=0.0, what="x", per_row=True)


def test_an_infinity_is_close_to_the_same_infinity_only():
    inf = math.inf
    expected = torch.tensor([[inf, 0.5, -inf]], dtype=torch.float64)
    exact.expect_close(expected.clone(), expected, rtol=1e-6, atol=1e-9, what="log p")
    for wrong in ([[1e308, 0.5, -inf]], [[-inf, 0.5, -inf]], [[inf, 0.5, 0.0]]):
        with pytest.raises(CheckFailed, match="log p: row 0"):
            exact.expect_close(torch.tensor(wrong, dtype=torch.float64), expected, rtol=1e-6, atol=1e-9, what="log p")
    with pytest.raises(CheckFailed, match="token 0: you returned 1e\\+308, expected inf"):
        exact.expect_close(
            torch.tensor([[1e308, 0.5, -inf]], dtype=torch.float64), expected, rtol=1e-6, atol=1e-9, what="log p"
        )


# --- one absolute tolerance per row (rows of very different scales) -------------------------------


def test_per_row_tolerances_judge_each_row_at_its_own_scale():
    """One atol for the batch lets a small row hide any error under a large row's tolerance."""
    expected = torch.tensor([1e30, 2.0, 3.0], dtype=torch.float64)
    actual = torch.tensor([1e30 + 1e15, 2.0, 0.0], dtype=torch.float64)  # row 2 is wrong
    exact.expect_close(actual, expected, rtol=0.0, atol=1e16, what="estimate", per_row=True)  # one atol: passes
    atol = torch.tensor([1e16, 1e-9, 1e-9], dtype=torch.float64)
    mistakes = {"zero": torch.tensor([1e30, 2.0, 0.0]), "half": torch.tensor([5e29, 1.0, 1.5])}
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(actual, expected, rtol=0.0, atol=atol, what="estimate", per_row=True, mistakes=mistakes)
    assert failed.value.message.startswith("estimate: row 2: you returned 0, expected 3 (tolerance 1e-09 + 0 x expected)")
    assert failed.value.diagnosis == "zero"  # the whole output, each row at its own tolerance
    # Row 0's error (1e15) is within its own tolerance, row 1 is exact: both pass.
    exact.expect_close(actual[:2], expected[:2], rtol=0.0, atol=atol[:2], what="estimate", per_row=True)


def test_per_row_tolerances_are_validated():
    expected = torch.zeros(2, dtype=torch.float64)
    shape = "argument `atol` must be a number, or with per_row a floating tensor of expected's shape [B]"
    finite = "argument `atol` must be finite tolerances >= 0"
    for bad, message in (
        (torch.tensor([1e-9]), shape),  # not one per row
        (torch.tensor([1e-9, -1.0]), finite),  # negative
        (torch.tensor([1e-9, math.inf]), finite),  # not finite
        (torch.tensor([1, 2]), shape),  # not floating
    ):
        with pytest.raises(base.CheckMisuse, match=re.escape(message)):
            exact.expect_close(expected, expected, rtol=0.0, atol=bad, what="x", per_row=True)
    with pytest.raises(base.CheckMisuse, match=re.escape(shape)):  # only with per_row
        exact.expect_close(expected, expected, rtol=0.0, atol=torch.tensor([1e-9, 1e-9]), what="x")
