"""Exact distribution tails: the chi-square, binomial and normal numbers the hypothesis tests need.

The regularized incomplete gamma functions (hence the chi-square tails), the binomial tails and
log-pmf, computed in log space with Loader's saddle-point pieces (as R's ``dbinom``) so that they
stay accurate far into the tails (1e-250 and below, where scipy's own binomial tail drifts), and
the normal tail, coverage and quantile. :mod:`judge.checks.stats` builds its tests on them.

Pure Python on the standard library only: the same file runs in the browser under Pyodide; scipy
and mpmath are used only in the tests, to cross-check these numbers.
"""

from __future__ import annotations

import math
import operator

__all__ = [
    "regularized_gamma_p",
    "regularized_gamma_q",
    "chi2_sf",
    "chi2_cdf",
    "binom_sf",
    "binom_cdf",
    "binom_log_pmf",
    "normal_sf",
    "normal_coverage",
    "normal_quantile",
]

_LN_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_EPS = 1e-15  # relative size of the last series / continued-fraction term we keep
_TINY = 1e-300  # Lentz's guard against division by zero
_BINOM_TAIL_EPS = 1e-18  # stop summing binomial terms this small relative to the sum


# ---------------------------------------------------------------------------------------
# Input validation (the tests of judge.checks.stats share these)
# ---------------------------------------------------------------------------------------


def _require_finite(value: float, name: str) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return value


def _require_count(value: int, name: str) -> int:
    try:
        count = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    if count < 0:
        raise ValueError(f"{name} must be >= 0, got {count}")
    return count


def _require_probability(value: float, name: str) -> float:
    value = float(value)
    if not 0.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return value


# ---------------------------------------------------------------------------------------
# Accurate building blocks (Loader's saddle-point pieces, as in R's dbinom)
# ---------------------------------------------------------------------------------------


def _stirling_error(x: float) -> float:
    """``lgamma(x + 1) - (x + 0.5) * log(x) + x - log(sqrt(2 pi))`` for x > 0, without cancellation."""
    if x <= 15.0:
        # The terms are small here, so the direct formula loses only a few ulps.
        return math.lgamma(x + 1.0) - (x + 0.5) * math.log(x) + x - _LN_SQRT_2PI
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    xx = x * x
    if x > 500.0:
        return (s0 - s1 / xx) / x
    if x > 80.0:
        return (s0 - (s1 - s2 / xx) / xx) / x
    if x > 35.0:
        return (s0 - (s1 - (s2 - s3 / xx) / xx) / xx) / x
    return (s0 - (s1 - (s2 - (s3 - s4 / xx) / xx) / xx) / xx) / x


def _deviance_term(x: float, m: float) -> float:
    """``x * log(x / m) + m - x`` (>= 0) for x >= 0, m > 0, accurate when x is close to m."""
    if x == 0.0:
        return m
    if abs(x - m) < 0.1 * (x + m):
        # Series in v = (x - m) / (x + m); the closed form would cancel catastrophically.
        v = (x - m) / (x + m)
        total = (x - m) * v
        term = 2.0 * x * v
        v2 = v * v
        j = 1
        while True:
            term *= v2
            next_total = total + term / (2 * j + 1)
            if next_total == total:
                return next_total
            total = next_total
            j += 1
    return x * math.log(x / m) + m - x


def _log_gamma_prefactor(a: float, x: float) -> float:
    """``a * log(x) - x - lgamma(a)`` for a > 0, x > 0.

    For large a the three terms are each ~1e6 while their sum is small, so it is rebuilt
    from Stirling's error and the deviance term, which keep full relative accuracy.
    """
    if a < 10.0:
        return a * math.log(x) - x - math.lgamma(a)
    return -_deviance_term(a, x) + 0.5 * math.log(a) - _LN_SQRT_2PI - _stirling_error(a)


def _max_iterations(a: float) -> int:
    # Near x ~ a both expansions need O(sqrt(a)) terms; elsewhere far fewer.
    return 500 + int(50.0 * math.sqrt(a))


def _gamma_series(a: float, x: float) -> float:
    """log of P(a, x) by its power series; meant for x < a + 1."""
    term = total = 1.0 / a
    ap = a
    for _ in range(_max_iterations(a)):
        ap += 1.0
        term *= x / ap
        total += term
        if term < total * _EPS:
            return _log_gamma_prefactor(a, x) + math.log(total)
    raise ArithmeticError(f"incomplete gamma series did not converge for a={a!r}, x={x!r}")


def _gamma_continued_fraction(a: float, x: float) -> float:
    """log of Q(a, x) by Legendre's continued fraction (modified Lentz); meant for x >= a + 1."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _max_iterations(a) + 1):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < _TINY:
            d = _TINY
        c = b + an / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return _log_gamma_prefactor(a, x) + math.log(h)
    raise ArithmeticError(f"incomplete gamma continued fraction did not converge for a={a!r}, x={x!r}")


def _validate_gamma_arguments(a: float, x: float) -> tuple[float, float]:
    a = float(a)
    x = float(x)
    if not (a > 0.0 and math.isfinite(a)):
        raise ValueError(f"shape a must be a finite number > 0, got {a!r}")
    if not x >= 0.0:  # also rejects NaN
        raise ValueError(f"x must be >= 0, got {x!r}")
    return a, x


# ---------------------------------------------------------------------------------------
# Distribution tails
# ---------------------------------------------------------------------------------------


def regularized_gamma_p(a: float, x: float) -> float:
    """Lower regularized incomplete gamma ``P(a, x) = gamma(a, x) / Gamma(a)``.

    Requires a finite ``a > 0`` and ``x >= 0`` (``x = inf`` gives 1.0); otherwise raises
    ValueError.  Small results keep ~1e-10 relative accuracy down to ~1e-300 (below the
    float range they underflow to 0.0).  Raises ArithmeticError if the expansion fails to
    converge, which should not happen for a up to ~1e6 and any x.
    """
    a, x = _validate_gamma_arguments(a, x)
    if x == 0.0:
        return 0.0
    if math.isinf(x):
        return 1.0
    if x < a + 1.0:
        return min(1.0, math.exp(_gamma_series(a, x)))
    return max(0.0, 1.0 - math.exp(_gamma_continued_fraction(a, x)))


def regularized_gamma_q(a: float, x: float) -> float:
    """Upper regularized incomplete gamma ``Q(a, x) = 1 - P(a, x)``, computed directly.

    Same contract as :func:`regularized_gamma_p`; the upper tail comes straight from the
    continued fraction, so it does not lose precision when it is tiny.
    """
    a, x = _validate_gamma_arguments(a, x)
    if x == 0.0:
        return 1.0
    if math.isinf(x):
        return 0.0
    if x < a + 1.0:
        return max(0.0, 1.0 - math.exp(_gamma_series(a, x)))
    return min(1.0, math.exp(_gamma_continued_fraction(a, x)))


def _validate_chi2_arguments(x: float, df: float) -> tuple[float, float]:
    x = float(x)
    df = float(df)
    if math.isnan(x):
        raise ValueError("chi-square statistic must not be NaN")
    if not (df > 0.0 and math.isfinite(df)):
        raise ValueError(f"degrees of freedom must be a finite number > 0, got {df!r}")
    return x, df


def chi2_sf(x: float, df: float) -> float:
    """Upper tail ``P(X >= x)`` of a chi-square with ``df`` degrees of freedom.

    Equals ``Q(df / 2, x / 2)``; ``x <= 0`` gives 1.0.  Raises ValueError for NaN ``x`` or
    ``df`` not a finite number > 0.
    """
    x, df = _validate_chi2_arguments(x, df)
    if x <= 0.0:
        return 1.0
    return regularized_gamma_q(0.5 * df, 0.5 * x)


def chi2_cdf(x: float, df: float) -> float:
    """Lower tail ``P(X <= x)`` of a chi-square with ``df`` degrees of freedom.

    Equals ``P(df / 2, x / 2)``; ``x <= 0`` gives 0.0.  Same errors as :func:`chi2_sf`.
    """
    x, df = _validate_chi2_arguments(x, df)
    if x <= 0.0:
        return 0.0
    return regularized_gamma_p(0.5 * df, 0.5 * x)


def _binom_log_pmf(k: int, n: int, p: float) -> float:
    """log P(X = k) for X ~ Binomial(n, p), 0 < p < 1, by Loader's saddle-point form."""
    q = 1.0 - p
    if k == 0:
        return n * math.log1p(-p)
    if k == n:
        return n * math.log(p)
    log_core = (
        _stirling_error(n)
        - _stirling_error(k)
        - _stirling_error(n - k)
        - _deviance_term(k, n * p)
        - _deviance_term(n - k, n * q)
    )
    return log_core - 0.5 * (2.0 * _LN_SQRT_2PI + math.log(k) + math.log1p(-k / n))


def _binom_tail_log(start: int, n: int, p: float, upward: bool) -> float:
    """log of the pmf summed from ``start`` away from the mode (terms fall monotonically)."""
    odds = p / (1.0 - p) if upward else (1.0 - p) / p
    total = term = 1.0  # terms relative to pmf(start), so nothing underflows on the way
    j = start
    while True:
        if upward:
            if j >= n:
                break
            term *= (n - j) / (j + 1) * odds
            j += 1
        else:
            if j <= 0:
                break
            term *= j / (n - j + 1) * odds
            j -= 1
        total += term
        if term < total * _BINOM_TAIL_EPS:
            break
    return _binom_log_pmf(start, n, p) + math.log(total)


def binom_sf(k: int, n: int, p: float) -> float:
    """Exact upper tail ``P(X >= k)`` for X ~ Binomial(n, p).

    ``k <= 0`` gives 1.0 and ``k > n`` gives 0.0; p = 0 and p = 1 are exact.  Raises
    ValueError unless ``k`` is an integer, ``n`` an integer >= 0 and ``0 <= p <= 1``.
    Tails far beyond the mean are summed term by term from ``k`` (log-space start, so
    tails down to ~1e-300 keep their relative accuracy); tails that include the bulk are
    one minus the complementary sum, which is then at least 1/2.
    """
    try:
        k = operator.index(k)
    except TypeError:
        raise ValueError(f"k must be an integer, got {k!r}") from None
    n = _require_count(n, "n")
    p = _require_probability(p, "p")
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    if k > n * p:
        return min(1.0, math.exp(_binom_tail_log(k, n, p, upward=True)))
    # k - 1 < n p: the lower tail up to k - 1 is at most about 1/2, so 1 - it is accurate.
    return max(0.0, 1.0 - math.exp(_binom_tail_log(k - 1, n, p, upward=False)))


def binom_cdf(k: int, n: int, p: float) -> float:
    """Exact lower tail ``P(X <= k)`` for X ~ Binomial(n, p), as accurate as :func:`binom_sf`.

    Computed as ``P(Y >= n - k)`` for Y ~ Binomial(n, 1 - p), so a tiny lower tail keeps its
    relative accuracy. ``k < 0`` gives 0.0 and ``k >= n`` gives 1.0. Raises ValueError as
    :func:`binom_sf` does.
    """
    try:
        k = operator.index(k)
    except TypeError:
        raise ValueError(f"k must be an integer, got {k!r}") from None
    n = _require_count(n, "n")
    p = _require_probability(p, "p")
    return binom_sf(n - k, n, 1.0 - p)


def binom_log_pmf(k: int, n: int, p: float) -> float:
    """``log P(X = k)`` for X ~ Binomial(n, p); ``-inf`` where that probability is 0.

    Raises ValueError unless ``0 <= k <= n`` are integers and ``0 <= p <= 1``.
    """
    k = _require_count(k, "k")
    n = _require_count(n, "n")
    p = _require_probability(p, "p")
    if k > n:
        raise ValueError(f"k ({k}) cannot exceed n ({n})")
    if p == 0.0:
        return 0.0 if k == 0 else -math.inf
    if p == 1.0:
        return 0.0 if k == n else -math.inf
    value = _binom_log_pmf(k, n, p)
    if math.isfinite(value):
        return value
    # Saddle-point terms over- or underflow for subnormal p: the plain form is exact enough there.
    log_choose = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return log_choose + k * math.log(p) + (n - k) * math.log1p(-p)


def normal_sf(z: float) -> float:
    """``P(Z >= z)`` for a standard normal Z (``erfc``: accurate far into the tail)."""
    return 0.5 * math.erfc(_require_finite(z, "z") / math.sqrt(2.0))


def normal_coverage(z: float) -> float:
    """``P(|Z| <= z)`` for a standard normal Z: the coverage of an interval of +- z standard
    errors when the errors are right and the estimate is normal (0.6827 at 1, 0.9545 at 2)."""
    z = _require_finite(z, "z")
    if z < 0:
        raise ValueError(f"z must be >= 0, got {z!r}")
    return math.erf(z / math.sqrt(2.0))


def normal_quantile(q: float) -> float:
    """The ``q``-quantile of the standard normal (bisection on :func:`normal_sf`; ~1e-12).

    Raises ValueError unless ``0 < q < 1``.
    """
    q = _require_finite(q, "q")
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be in (0, 1), got {q!r}")
    # Solve sf(x) = the smaller tail for x >= 0 (1 - q is exact for q >= 1/2), then mirror: a
    # quantile near 1 keeps its precision, which 1 - sf(x) would lose.
    tail = min(q, 1.0 - q)
    low, high = 0.0, 40.0
    for _ in range(100):
        middle = 0.5 * (low + high)
        if normal_sf(middle) > tail:
            low = middle
        else:
            high = middle
    x = 0.5 * (low + high)
    return x if q > 0.5 else -x
