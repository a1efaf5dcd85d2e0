"""Values the tiny suite needs, frozen from the hidden suite's exact oracle (sums over every way the draws
can fall). tests/exercises/test_050_variance_reduction.py recomputes each one and compares.
"""

from __future__ import annotations

# The law of the count of token 1 among the 4 draws of one row of checks50.contract_rows (p = (0.3, 0.7)).
CONTRACT_LAWS = {
    "plain": (0.008100000000000012, 0.07559999999999993, 0.26460000000000017, 0.4115999999999998, 0.2401000000000001),
    "antithetic": (0.0, 0.0, 0.36, 0.4799999999999999, 0.16),
    "stratified": (0.0, 0.0, 0.36, 0.48, 0.16000000000000003),
    "control_variate": (
        0.008100000000000012,
        0.07559999999999993,
        0.26460000000000017,
        0.4115999999999998,
        0.2401000000000001,
    ),
}

# control_variate_estimate's fitted beta: one row of three tokens, two of which share g (beta = 0 when only they
# are drawn), decimal values; (estimate, se, the estimate with beta times n / (n - 1)) of every way n draws fall.
BETA_P = (0.25, 0.3333333333333333, 0.4166666666666667)
BETA_F = (2.3, -1.7, 6.1)
BETA_G = (0.1, 0.1, 3.1)
BETA_DRAWS = 5
BETA_OUTCOMES = (
    (6.1, 0.0, 6.1),
    (1.5499999999999998, 5.73316704659901e-17, 0.8024999999999997),
    (1.5500000000000003, 3.1401849173675503e-16, 1.1925),
    (1.55, 3.1401849173675503e-16, 1.5824999999999996),
    (1.5499999999999998, 2.563950248511419e-16, 1.9724999999999995),
    (-1.7, 0.0, -1.7),
    (3.883333333333333, 0.0, 3.519166666666666),
    (2.716666666666667, 0.7302967433402214, 2.450833333333333),
    (2.3277777777777775, 0.8432740427115678, 2.3547222222222226),
    (2.133333333333333, 0.8944271909999159, 2.501666666666666),
    (-0.9, 0.9237604307034012, -0.9),
    (3.883333333333333, 0.0, 3.709166666666666),
    (3.105555555555555, 0.8432740427115677, 3.1269444444444447),
    (2.716666666666667, 1.0327955589886444, 3.030833333333333),
    (-0.10000000000000009, 1.131370849898476, -0.10000000000000009),
    (3.883333333333333, 0.0, 3.899166666666667),
    (3.3, 0.8944271909999159, 3.5599999999999996),
    (0.6999999999999998, 1.1313708498984762, 0.6999999999999998),
    (3.883333333333333, 0.0, 4.089166666666666),
    (1.4999999999999998, 0.9237604307034012, 1.4999999999999998),
    (2.3, 0.0, 2.3),
)

# control_variate_estimate's statistics: one instance (rows not summing to 1: probs is 2 p), its exact mean and
# standard deviation, the exact coverage of estimate +- z se, and the listed mistakes' (keys of MISTAKES).
STATS_P = (0.125, 0.125, 0.375, 0.375)
STATS_F = (10.0, 0.0, 3.0, 9.0)
STATS_G = (10.0, 0.0, 3.0, 10.0)
STATS_DRAWS = 6
STATS_MU = 5.75
STATS_MEAN = 5.809894730597232
STATS_STD = 0.47959744233336554
STATS_COVERAGE = {1.0: 0.4102706909179697, 2.0: 0.6025314331054699}
STATS_COVERAGE_MISTAKES = {
    "cv_sample_mean": {1.0: 0.07415771484375022, 2.0: 0.07415771484375022},
    "cv_beta_sign": {1.0: 0.7674598693847672, 2.0: 0.8969726562500018},
    "unnormalized_cdf": {1.0: 0.0, 2.0: 0.0},
}
STATS_MEAN_MISTAKES = {
    "cv_sample_mean": 5.75,
    "cv_beta_sign": 5.69010526940279,
    "unnormalized_cdf": 11.26244489278117,
}
