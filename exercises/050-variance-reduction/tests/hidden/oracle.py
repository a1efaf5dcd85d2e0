"""Exact laws of exercise 50's four estimators, by summing over every way the draws can fall.

An instance is one row: ``p`` (a normalized list of floats), ``f`` (and ``g``), ``n``. Each
``*_outcomes`` function returns the estimator's law as a list of ``(probability, estimate, se)``
in float64, the procedure exactly as the statement fixes it (and, for the listed mistakes, as
each mistake computes it). From a law: the mean, the variance, the coverage of ``estimate +- z se``
and the Chernoff threshold of the variance-promise test. No randomness.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence

import torch

Law = list[tuple[float, float, float]]


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _multinomial(counts: Sequence[int], probs: Sequence[float]) -> float:
    log = math.lgamma(sum(counts) + 1)
    for c, q in zip(counts, probs, strict=True):
        if c:
            log += c * math.log(q) - math.lgamma(c + 1)
    return math.exp(log)


def _mean_se(values: Sequence[float], divisor_offset: int = 1) -> tuple[float, float]:
    m = len(values)
    mean = sum(values) / m
    square = sum((v - mean) ** 2 for v in values)
    return mean, math.sqrt(square / (m - divisor_offset) / m)


def _repeat(counts: Sequence[int], items: Sequence[float]) -> list[float]:
    return [item for c, item in zip(counts, items, strict=True) for _ in range(c)]


def cdf(p: Sequence[float]) -> list[float]:
    out, running = [], 0.0
    for q in p:
        running += q
        out.append(running)
    return out


def token_intervals(p: Sequence[float]) -> list[tuple[float, float, int]]:
    """``(low, high, token)`` for each token of positive probability: F^-1 maps [low, high) to it."""
    c, low, out = cdf(p), 0.0, []
    for v, q in enumerate(p):
        if q > 0:
            out.append((low, c[v], v))
        low = c[v]
    return out


def inverse_cdf(p: Sequence[float], u: float) -> int:
    for _, high, v in token_intervals(p):
        if u < high:
            return v
    return token_intervals(p)[-1][2]


def pair_types(p: Sequence[float]) -> list[tuple[float, int, int]]:
    """``(probability, F^-1(u), F^-1(1 - u))`` for the pieces of [0, 1) where both are constant."""
    cuts = sorted({0.0, 1.0, *(h for _, h, _ in token_intervals(p)), *(1.0 - h for _, h, _ in token_intervals(p))})
    merged: dict[tuple[int, int], float] = defaultdict(float)
    for low, high in itertools.pairwise(cuts):
        if high - low > 1e-12:
            mid = (low + high) / 2
            merged[(inverse_cdf(p, mid), inverse_cdf(p, 1.0 - mid))] += high - low
    return [(w, a, b) for (a, b), w in merged.items()]


def plain_outcomes(p: Sequence[float], f: Sequence[float], n: int, *, divisor_offset: int = 1) -> Law:
    support = [v for v, q in enumerate(p) if q > 0]
    law = []
    for counts in _compositions(n, len(support)):
        y = _repeat(counts, [f[v] for v in support])
        law.append((_multinomial(counts, [p[v] for v in support]), *_mean_se(y, divisor_offset)))
    return law


def antithetic_outcomes(
    p: Sequence[float], f: Sequence[float], n: int, *, se_of: Callable[[list[tuple[int, int]]], float] | None = None
) -> Law:
    """The antithetic law; ``se_of(pairs)`` replaces the standard error (a listed mistake's)."""
    types = pair_types(p)
    m = n // 2
    law = []
    for counts in _compositions(m, len(types)):
        pairs = [(a, b) for c, (_, a, b) in zip(counts, types, strict=True) for _ in range(c)]
        z = [(f[a] + f[b]) / 2 for a, b in pairs]
        estimate, se = _mean_se(z)
        if se_of is not None:
            se = se_of(pairs)
        law.append((_multinomial(counts, [w for w, _, _ in types]), estimate, se))
    return law


def stratum_law(p: Sequence[float], k: int, strata: int) -> list[tuple[float, int]]:
    """``(probability, token)`` of one draw of stratum ``k`` of ``strata``."""
    low, high = k / strata, (k + 1) / strata
    out = []
    for a, b, v in token_intervals(p):
        overlap = min(b, high) - max(a, low)
        if overlap > 1e-12:
            out.append((overlap * strata, v))
    return out


def stratified_outcomes(p: Sequence[float], f: Sequence[float], n: int, *, plain_se: bool = False) -> Law:
    """The stratified law (``plain_se``: with the plain formula's standard error, a listed mistake)."""
    strata = n // 2
    # state: (sorted tuple of values drawn so far, sum of squared gaps) -> probability
    states: dict[tuple[tuple[float, ...], float], float] = {((), 0.0): 1.0}
    for k in range(strata):
        draws = stratum_law(p, k, strata)
        nxt: dict[tuple[tuple[float, ...], float], float] = defaultdict(float)
        for (values, gaps), weight in states.items():
            for q1, a in draws:
                for q2, b in draws:
                    key = (tuple(sorted((*values, f[a], f[b]))), gaps + (f[a] - f[b]) ** 2)
                    nxt[key] += weight * q1 * q2
        states = nxt
    law = []
    for (values, gaps), weight in states.items():
        estimate = sum(values) / n
        se = _mean_se(list(values))[1] if plain_se else math.sqrt(gaps) / (2 * strata)
        law.append((weight, estimate, se))
    return law


def control_variate(
    f: Sequence[float], g: Sequence[float], known: float, *, rule: str = "reference"
) -> tuple[float, float]:
    """The estimate and se of one sample (``rule`` names a listed mistake's variant)."""
    n = len(f)
    fm, gm = sum(f) / n, sum(g) / n
    sxy = sum((a - fm) * (b - gm) for a, b in zip(f, g, strict=True))
    sxx = sum((b - gm) ** 2 for b in g)
    beta = 0.0 if all(b == g[0] for b in g) else sxy / sxx
    if rule == "beta_ddof":  # a covariance over n - 1 and a variance over n
        beta *= n / (n - 1)
    centre = gm if rule == "sample_mean" else known
    sign = -1.0 if rule == "sign_flipped" else 1.0
    h = [a - sign * beta * (b - centre) for a, b in zip(f, g, strict=True)]
    return _mean_se(h, 2)


def cv_outcomes(p: Sequence[float], f: Sequence[float], g: Sequence[float], n: int, *, rule: str = "reference") -> Law:
    support = [v for v, q in enumerate(p) if q > 0]
    known = sum(q * b for q, b in zip(p, g, strict=True)) * (2.0 if rule == "known_mean_doubled" else 1.0)
    law = []
    for counts in _compositions(n, len(support)):
        fs = _repeat(counts, [f[v] for v in support])
        gs = _repeat(counts, [g[v] for v in support])
        law.append((_multinomial(counts, [p[v] for v in support]), *control_variate(fs, gs, known, rule=rule)))
    return law


def mean(law: Law) -> float:
    return sum(w * e for w, e, _ in law)


def variance(law: Law, centre: float | None = None) -> float:
    c = mean(law) if centre is None else centre
    return sum(w * (e - c) ** 2 for w, e, _ in law)


def coverage(law: Law, truth: float, z: float) -> float:
    return sum(w for w, e, s in law if abs(e - truth) <= z * s)


def coverage_margin(law: Law, truth: float, zs: Sequence[float]) -> float:
    """The smallest distance between |estimate - truth| and an interval's half-width, over outcomes of
    probability above 1e-12, relative to the scale 1 + |truth|: where it is tiny, rounding decides coverage."""
    return min(abs(abs(e - truth) - z * s) for w, e, s in law if w > 1e-12 for z in zs) / (1.0 + abs(truth))


def _log_mgf_curve(law: Law, centre: float, sign: float) -> tuple[torch.Tensor, torch.Tensor]:
    """lambda on a grid, and log E[exp(sign lambda (estimate - centre)^2)] there."""
    kept = [(w, e) for w, e, _ in law if w > 0]
    log_w = torch.tensor([w for w, _ in kept], dtype=torch.float64).log()
    squares = torch.tensor([(e - centre) ** 2 for _, e in kept], dtype=torch.float64)
    scale = float(squares.max()) or 1.0
    lams = torch.linspace(0.0, 400.0 / scale, 2001, dtype=torch.float64)  # the exponent is concave in lambda
    return lams, torch.logsumexp(log_w + sign * lams.unsqueeze(1) * squares, dim=1)


def _rate(curve: tuple[torch.Tensor, torch.Tensor], t: float, sign: float) -> float:
    """sup over lambda of the Chernoff exponent for the mean of squared errors beyond t (``sign`` -1: below)."""
    lams, log_mgf = curve
    return max(0.0, float((sign * lams * t - log_mgf).max()))


def chernoff_threshold(law: Law, centre: float, rows: int, alpha: float) -> float:
    """The smallest t with P(mean of ``rows`` squared errors >= t) <= alpha under ``law`` (Chernoff)."""
    curve = _log_mgf_curve(law, centre, 1.0)
    low, high = variance(law, centre), max((e - centre) ** 2 for _, e, _ in law)
    for _ in range(50):
        mid = (low + high) / 2
        if math.exp(-rows * _rate(curve, mid, 1.0)) <= alpha:
            high = mid
        else:
            low = mid
    return high


def chernoff_miss(law: Law, centre: float, rows: int, threshold: float) -> float:
    """An upper bound on P(mean of ``rows`` squared errors < threshold) under ``law``: one minus the power."""
    if variance(law, centre) <= threshold:
        return 1.0
    return math.exp(-rows * _rate(_log_mgf_curve(law, centre, -1.0), threshold, -1.0))
