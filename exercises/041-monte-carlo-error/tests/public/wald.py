"""Exact coverage of the Wald interval of a proportion, in pure Python (float64), for the calibration checks.

A correct ``estimate_probability`` counts k ~ Binomial(n, p) hits in n draws and returns
p_hat = k / n with the standard error sqrt(p_hat (1 - p_hat) / n). Its interval p_hat +- z * se
covers the true p exactly when |k / n - p| <= z * se(k), so its coverage is a finite sum over k of
the binomial pmf: computed here exactly, for the correct procedure and for each known mistake.
Public on purpose: the tiny variant needs it in the browser, and nothing here is secret.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from judge.checks.tails import binom_log_pmf

from .diagnoses import MISTAKES

Z_LEVELS = (1.0, 2.0)  # the interval multipliers whose coverage is tested
MARGIN = 2e-3  # no outcome k of weight may lie within this relative distance of an interval's edge
NEGLIGIBLE = 1e-18  # outcomes lighter than this do not count for the margin


@functools.cache
def binomial_pmf(n: int, p: float) -> tuple[float, ...]:
    """P(k) for k = 0..n under Binomial(n, p), in float64 (the engine's saddle-point log pmf); cached."""
    return tuple(math.exp(binom_log_pmf(k, n, p)) for k in range(n + 1))


# What a procedure returns for k hits in n draws: (estimate, standard error).
Procedure = Callable[[int, int], tuple[float, float]]


def _wald(k: int, n: int) -> tuple[float, float]:
    p_hat = k / n
    return p_hat, math.sqrt(p_hat * (1 - p_hat) / n)


def _scaled(factor: Callable[[int], float]) -> Procedure:
    def procedure(k: int, n: int) -> tuple[float, float]:
        p_hat, se = _wald(k, n)
        return p_hat, se * factor(n)

    return procedure


# The known mistakes of estimate_probability that change the interval, keyed like MISTAKES.
MISTAKEN_PROCEDURES: dict[str, Procedure] = {
    "se_divides_by_n": _scaled(lambda n: 1 / math.sqrt(n)),
    "se_is_variance": lambda k, n: (k / n, (k / n) * (1 - k / n) / n),
    "se_not_divided": _scaled(math.sqrt),
    "wide_error_bars": lambda k, n: (k / n, math.sqrt(0.25 / n)),
    "se_times_z": _scaled(lambda n: 1.96),
}


def coverage(n: int, p: float, z: float, procedure: Procedure = _wald) -> float:
    """P(|estimate - p| <= z * error) when k ~ Binomial(n, p) and ``procedure`` maps k to (estimate, error)."""
    total = 0.0
    for k, weight in enumerate(binomial_pmf(n, p)):
        estimate, error = procedure(k, n)
        if abs(estimate - p) <= z * error:
            total += weight
    return min(1.0, total)  # the pmf's float64 terms may add up to a hair above 1


def margin(n: int, p: float, z: float) -> float:
    """The smallest relative distance | |k/n - p| - z se(k) | / (z se(k)) over the outcomes k of weight.

    Outcomes with se(k) = 0 (k = 0 or n) are skipped: their interval is the point k / n, which
    never holds p (0 < p < 1), whatever the rounding. A case is usable when this is comfortably
    above float32 rounding (see :func:`calibration_targets`): then the learner's arithmetic cannot
    move any outcome across an interval's edge.
    """
    smallest = math.inf
    for k, weight in enumerate(binomial_pmf(n, p)):
        p_hat, se = _wald(k, n)
        if weight < NEGLIGIBLE or se == 0:
            continue
        smallest = min(smallest, abs(abs(p_hat - p) - z * se) / (z * se))
    return smallest


@functools.cache
def calibration_targets(n: int, p: float) -> tuple[dict[float, float], Callable[[], dict[str, dict[float, float]]]]:
    """The exact coverage of the correct procedure at each z of ``Z_LEVELS``, and a function giving each
    known mistake's (the checks call it only when they fail). Cached: a judge process computes it once.

    Raises ``ValueError`` when the case is too close to an interval's edge (see :func:`margin`): the
    margin must exceed ``MARGIN`` plus the widening sqrt(n / (n - 1)) - 1 of a variance divided by n - 1,
    which the statement accepts, so that both ways give exactly the same intervals' verdicts.
    """
    needed = MARGIN + math.sqrt(n / (n - 1)) - 1
    for z in Z_LEVELS:
        if margin(n, p, z) < needed:
            raise ValueError(f"n = {n}, p = {p}: an outcome lies within {needed:.4f} of the z = {z} interval's edge")
    correct = {z: coverage(n, p, z) for z in Z_LEVELS}

    def mistaken() -> dict[str, dict[float, float]]:
        return {
            MISTAKES[name]: {z: coverage(n, p, z, procedure) for z in Z_LEVELS}
            for name, procedure in MISTAKEN_PROCEDURES.items()
        }

    return correct, mistaken
