"""judge/authoring/balance.py, its pure part: suggested weights, lane loads, imbalance, on made-up cost tables.

No test here times anything: the costs are given, so every figure is exact.
"""

from __future__ import annotations

import math

import pytest

from judge.authoring.balance import (
    CaseCost,
    LaneBalance,
    Measurement,
    balance,
    imbalance,
    keeps_declared,
    lane_loads,
    suggest_unit,
    suggest_weights,
    to_json,
)
from judge.engine.runner import lane_shares
from judge.exercises.exercise import resolve


def test_suggested_weights_are_costs_over_the_median_case_rounded_at_least_one():
    assert suggest_weights([3.0, 3.0, 3.0, 30.0, 9.0, 0.0]) == [1, 1, 1, 10, 3, 1]
    assert suggest_weights([2.0, 4.0, 100.0], unit=2.0) == [1, 2, 50]
    assert suggest_weights([5.0]) == [1]


def test_suggested_weights_do_not_depend_on_the_unit_of_time():
    costs = [1.5, 2.0, 2.5, 41.0, 13.0]
    assert suggest_weights(costs) == suggest_weights([cost * 1000 for cost in costs]) == [1, 1, 1, 16, 5]


@pytest.mark.parametrize(
    ("costs", "unit", "message"),
    [
        ([], None, "no costs to weigh"),
        # a unit given, so that the bad cost cannot spoil the median and trip the unit's check instead
        ([1.0, -1.0], 1.0, "costs must be finite and at least 0"),
        ([1.0, math.nan], 1.0, "costs must be finite and at least 0"),
        ([1.0, math.inf], 1.0, "costs must be finite and at least 0"),
        ([1.0], 0.0, "the unit must be a finite number above 0, got 0.0"),
        ([0.0], None, "the unit must be a finite number above 0, got 0.0"),
    ],
)
def test_suggested_weights_refuse_what_is_not_a_cost_table(costs, unit, message):
    with pytest.raises(ValueError, match=message):
        suggest_weights(costs, unit)


def test_the_unit_is_the_median_case_when_its_weights_share_as_well_as_the_costs_do():
    assert suggest_unit([2.0, 1.0, 12.0, 1.0, 1.0], 2) == 1.0
    assert suggest_unit([1.0, 1.4] * 3, 1) == 1.2  # one lane: always even


def test_the_unit_gets_finer_when_rounding_to_the_median_case_would_leave_the_lanes_apart():
    # At the median case (1.2) every case weighs 1: the lanes alternate, 3.0 to 4.2 ms (1.40);
    # at half of it every case weighs 2, the same; at a third, 2 and 4: 3.8 to 3.4 (1.12), as
    # sharing by the costs themselves gives.
    costs = [1.0, 1.4] * 3
    unit = suggest_unit(costs, 2)
    assert unit == pytest.approx(0.4) and suggest_weights(costs, unit) == [2, 4] * 3


def test_the_unit_refuses_no_lanes():
    with pytest.raises(ValueError, match="lanes must be a whole number of at least 1, got 0"):
        suggest_unit([1.0], 0)


def test_declared_weights_stay_when_they_share_as_well_as_a_measurement_can_tell():
    # 7 to 5 ms, as sharing by the times themselves gives (the best split, 6 to 6, is not one the
    # runner's heaviest-first sharing finds from any weights).
    assert keeps_declared([3.0, 3.0, 2.0, 2.0, 2.0], [3.0, 3.0, 1.0, 1.0, 1.0], 2)
    assert keeps_declared([3.0, 3.0, 2.0, 2.0, 2.0], [1.0] * 5, 2)  # every other case: 7 to 5 as well
    assert not keeps_declared([2.0, 1.0, 12.0, 1.0, 1.0], [1.0] * 5, 2)  # 15 to 2; weighed, 12 to 5
    with pytest.raises(ValueError, match="one declared weight per cost"):
        keeps_declared([1.0, 2.0], [1.0], 2)


def test_lane_loads_add_each_lanes_share():
    assert lane_loads([1.0, 2.0, 4.0, 8.0], [[0, 3], [1, 2]]) == [9.0, 6.0]
    assert lane_loads([1.0], [[0], []]) == [1.0, 0.0]


@pytest.mark.parametrize(
    ("loads", "expected"),
    [
        ([9.0, 6.0], 1.5),
        ([6.0, 9.0], 1.5),
        ([5.0, 5.0, 5.0], 1.0),
        ([4.0, 2.0, 1.0], 4.0),
        ([7.0], 1.0),
        ([], 1.0),
        ([0.0, 0.0], 1.0),
        ([3.0, 0.0], math.inf),
    ],
)
def test_imbalance_is_the_heavier_lane_over_the_lighter(loads, expected):
    assert imbalance(loads) == expected


def test_balance_shares_as_the_runner_does_and_adds_up_each_cases_median():
    weights = [1.0, 10.0, 1.0, 1.0]
    runs = [[1.0, 10.0, 1.0, 1.0], [1.0, 4.0, 1.0, 1.0], [1.0, 2.0, 1.0, 1.0]]
    found = balance(weights, runs, 2)
    assert found.shares == lane_shares(weights, 2) == [[1], [0, 2, 3]]
    assert found.weights == [10.0, 3.0]
    assert found.costs == [4.0, 3.0]  # each case's median cost
    assert found.imbalance == 4 / 3  # the medians', not the runs' own (10/3, 4/3, 3/2: median 3/2)
    assert found.lanes == 2


def test_balance_never_uses_more_lanes_than_cases():
    found = balance([1.0, 1.0], [[2.0, 3.0]], 8)
    assert found.lanes == 2 and found.shares == [[0], [1]] and found.imbalance == 1.5
    assert balance([1.0], [[2.0]], 2).imbalance == 1.0


@pytest.mark.parametrize(
    ("weights", "runs", "lanes", "message"),
    [
        ([], [[]], 2, "no cases or no runs to weigh"),
        ([1.0], [], 2, "no cases or no runs to weigh"),
        ([1.0, 1.0], [[1.0]], 2, "every run needs one cost per case"),
        ([1.0], [[1.0]], 0, "lanes must be a whole number of at least 1, got 0"),
    ],
)
def test_balance_refuses_tables_that_do_not_fit(weights, runs, lanes, message):
    with pytest.raises(ValueError, match=message):
        balance(weights, runs, lanes)


def _measured(times: list[tuple[float, ...]], declared: list[float]) -> Measurement:
    cases = [
        CaseCost("hidden", f"case{index}", weight, case_times, ())
        for index, (weight, case_times) in enumerate(zip(declared, times, strict=True))
    ]
    return Measurement(resolve("1"), "local", len(times[0]), 0, cases)


def test_a_measurement_compares_declared_and_suggested_weights():
    # One heavy case declared like the others: the lanes take every other case, 15 to 2 apart;
    # weighed by cost, the heavy case has a lane to itself, 12 to 5.
    measured = _measured([(2.0, 2.0), (1.0, 1.0), (12.0, 12.0), (1.0, 1.0), (1.0, 1.0)], [1.0] * 5)
    assert measured.unit_ms(2) == 1.0 and measured.suggested_weights(2) == [2, 1, 12, 1, 1]
    assert not measured.keeps_declared(2)
    assert _measured([(2.0,), (1.0,), (12.0,)], [1.0, 1.0, 6.0]).suggested_weights(2) == [1.0, 1.0, 6.0]
    declared, suggested = measured.declared(2), measured.suggested(2)
    assert declared.shares == [[0, 2, 4], [1, 3]] and declared.costs == [15.0, 2.0] and declared.imbalance == 7.5
    assert suggested.shares == [[2], [0, 1, 3, 4]] and suggested.imbalance == pytest.approx(12 / 5)
    assert measured.declared(3).lanes == 3


def test_the_json_form_holds_every_case_both_weightings_and_the_tolerance():
    measured = _measured([(2.0,), (1.0,), (12.0,)], [1.0, 1.0, 1.0])
    data = to_json(measured, 2, tolerance=1.2)
    assert [case["name"] for case in data["cases"]] == ["case0", "case1", "case2"]
    assert data["cases"][2] == {
        "suite": "hidden",
        "name": "case2",
        "declared": 1.0,
        "median_ms": 12.0,
        "learner_cpu_ms": None,
        "suggested": 6,
    }
    assert data["declared"]["imbalance"] == 14.0 and data["within_tolerance"] is False
    assert data["keeps_declared"] is False and data["unit_step"] == 1
    assert data["suggested"]["shares"] == [[2], [0, 1]]
    assert to_json(measured, 2)["within_tolerance"] is None
    assert LaneBalance(2, [[0], []], [1.0, 0.0], [1.0, 0.0], math.inf).to_json()["imbalance"] is None
