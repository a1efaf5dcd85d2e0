"""Rows whose draws can be read back from the estimate, and the check that they are draws the procedure can make.

With ``values[v] = (n + 1) ** v`` the sum of the n values drawn, ``n * estimate``, is a number whose
digits in base n + 1 are the counts of each token. From the counts the check finds every way the
method's draws could have fallen (the antithetic pairs, the strata) and the standard error each gives;
the learner's standard error must be one of them. Used by the public, tiny and hidden suites.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from judge.checks.base import CheckFailed, diagnosed, fail, rule
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_tensor
from judge.checks.numbers import format_pair

from .diagnoses import MISTAKES

METHODS = ("plain", "antithetic", "stratified", "control_variate")
FUNCTION = {method: f"{method}_estimate" for method in METHODS}
SLACK = 1e-6  # a uniform within this of a cumulative value or a stratum's end may round either way (float32)


def cdf(p: Sequence[float]) -> list[float]:
    return list(itertools.accumulate(p))


def token_intervals(p: Sequence[float]) -> list[tuple[float, float, int]]:
    """``(low, high, token)`` for each token of positive probability: F^-1 maps [low, high) to it."""
    c, out = cdf(p), []
    for v, q in enumerate(p):
        if q > 0:
            out.append((c[v] - q, c[v], v))
    return out


def inverse_cdf(p: Sequence[float], u: float) -> int:
    intervals = token_intervals(p)
    return next((v for _, high, v in intervals if u < high), intervals[-1][2])


def pair_types(p: Sequence[float]) -> list[tuple[float, int, int]]:
    """``(probability, F^-1(u), F^-1(1 - u))`` over the pieces of [0, 1) where both stay the same."""
    ends = [high for _, high, _ in token_intervals(p)]
    cuts = sorted({0.0, 1.0, *ends, *(1.0 - e for e in ends)})
    merged: dict[tuple[int, int], float] = {}
    for low, high in itertools.pairwise(cuts):
        if high - low > 1e-12:
            mid = (low + high) / 2
            key = (inverse_cdf(p, mid), inverse_cdf(p, 1.0 - mid))
            merged[key] = merged.get(key, 0.0) + high - low
    return [(w, a, b) for (a, b), w in merged.items()]


def feasible_pairs(p: Sequence[float]) -> list[tuple[int, int]]:
    """The token pairs an antithetic draw may give, a cumulative value rounded either way (float32 included):
    at each cut, u and 1 - u may each land on either side of it."""
    pairs = {(a, b) for _, a, b in pair_types(p)}
    for cut in {e for _, e, _ in token_intervals(p)} | {1.0 - e for _, e, _ in token_intervals(p)}:
        sides = (cut - SLACK, cut + SLACK)
        pairs |= {(inverse_cdf(p, x), inverse_cdf(p, 1.0 - y)) for x in sides for y in sides}
    return sorted(pairs)


def stratum_tokens(p: Sequence[float], k: int, strata: int) -> list[int]:
    """Tokens a draw of stratum k may give: their CDF interval meets the closed stratum (rounding at its ends)."""
    low, high = k / strata - SLACK, (k + 1) / strata + SLACK
    return [v for a, b, v in token_intervals(p) if a < high and b > low]


def mean_se(values: Sequence[float], offset: int = 1) -> tuple[float, float]:
    m = len(values)
    mean = sum(values) / m
    return mean, math.sqrt(sum((x - mean) ** 2 for x in values) / (m - offset) / m)


@dataclass(frozen=True)
class ReadableRows:
    """One call's inputs: ``p`` the normalized rows (float64 lists), the tensors as sent, the draw count."""

    method: str
    probs: torch.Tensor
    values: torch.Tensor
    control: torch.Tensor | None
    num_samples: int
    p: tuple[tuple[float, ...], ...]
    public: str

    def kwargs(self) -> dict:
        out = {"probs": self.probs, "values": self.values, "num_samples": self.num_samples}
        if self.control is not None:
            out["control"] = self.control
        return out


def readable_rows(
    rng: random.Random, method: str, dtype: torch.dtype, num_samples: int = 8, vocab: int = 4
) -> ReadableRows:
    """Six rows over ``vocab`` tokens: random integer weights, a zero first, inside and last, a row scaled by 3
    (not summing to 1), a row with one token. The control (for the control variate) is the constant 0.1."""
    rows = []
    for b in range(6):
        weights = [float(rng.randint(1, 9)) for _ in range(vocab)]
        if b < 3:
            weights[(0, rng.randrange(1, vocab - 1), vocab - 1)[b]] = 0.0
        if b == 4:
            weights = [0.0] * vocab
            weights[rng.randrange(vocab)] = 1.0
        rows.append(weights)
    scale = [1.0, 1.0, 1.0, 3.0, 1.0, 1.0]
    p = tuple(tuple(w / sum(row) for w in row) for row in rows)
    probs = torch.tensor([[w / sum(row) * s for w in row] for row, s in zip(rows, scale, strict=True)], dtype=dtype)
    # The powers in a shuffled order: f is not monotone along the tokens, so a pairing by value shows.
    powers = list(range(vocab))
    rng.shuffle(powers)
    values = torch.tensor([[float((num_samples + 1) ** k) for k in powers]] * len(rows), dtype=dtype)
    # 0.1: the mean of n copies rounds off 0.1, so a spread of the g_i rounds to a tiny positive number
    control = torch.full_like(values, 0.1) if method == "control_variate" else None
    kind = str(dtype).replace("torch.", "")
    public = f"{len(rows)} rows of {vocab} tokens, values (n + 1)^k shuffled, n = {num_samples}, {kind}"
    return ReadableRows(method, probs, values, control, num_samples, p, public)


def _counts(total: float, n: int, base: int, vocab: int, tolerance: float) -> list[int] | None:
    whole = round(total)
    if abs(total - whole) > tolerance * max(1.0, abs(total)) or whole < 0:
        return None
    counts = []
    for _ in range(vocab):
        whole, digit = divmod(whole, base)
        counts.append(digit)
    return counts if whole == 0 and sum(counts) == n else None


def _candidates(method: str, p: Sequence[float], f: Sequence[float], counts: list[int], n: int) -> tuple[set, set]:
    """(the standard errors the method's draws can give with these counts, those the listed mistake gives)."""
    drawn = [f[v] for v, c in enumerate(counts) for _ in range(c)]
    plain = mean_se(drawn)[1]
    if method == "plain":
        return {plain}, {mean_se(drawn, 0)[1]}
    if method == "control_variate":
        return {mean_se(drawn, 2)[1]}, set()
    if method == "antithetic":
        pairs, m, found = feasible_pairs(p), n // 2, set()
        for combo in itertools.combinations_with_replacement(pairs, m):
            got = [0] * len(p)
            for a, b in combo:
                got[a] += 1
                got[b] += 1
            if got == counts:
                found.add(mean_se([(f[a] + f[b]) / 2 for a, b in combo])[1])
        return found, {plain} if found else set()
    strata, found = n // 2, set()
    options = [list(itertools.combinations_with_replacement(stratum_tokens(p, k, strata), 2)) for k in range(strata)]
    for choice in itertools.product(*options):
        got = [0] * len(p)
        for a, b in choice:
            got[a] += 1
            got[b] += 1
        if got == counts:
            found.add(math.sqrt(sum((f[a] - f[b]) ** 2 for a, b in choice)) / (2 * strata))
    return found, {plain} if found else set()


def check_readable(ctx, rows: ReadableRows, value, *, what: str, public: str, zero_diagnosis=None) -> None:
    """Every row's estimate reads as n draws the method can make, none of a token of probability 0, and its
    standard error is the one such draws give. ``zero_diagnosis`` names a zero-probability draw (pushed runs)."""
    name = FUNCTION[rows.method]
    batch = rows.probs.shape[0]
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(
            f"{what}: {name} must return a pair (estimate, se), got {type(value).__name__}",
            rule=rule(public, "did not return a pair (estimate, se)", "返回的不是 (estimate, se) 二元组"),
            kind=Evidence.STRUCTURAL,
        )
    estimate = expect_tensor(
        value[0], name=f"{name} estimate", shape=(batch,), dtype=rows.probs.dtype, device=ctx.device
    )
    se = expect_tensor(value[1], name=f"{name} se", shape=(batch,), dtype=rows.probs.dtype, device=ctx.device)
    tolerance = 1e-9 if rows.probs.dtype == torch.float64 else 1e-4
    f = [float(x) for x in rows.values[0].tolist()]
    base = round(min((x for x in f if x > 1.5), default=rows.num_samples + 1))
    powers = [round(math.log(x, base)) if len(f) > 1 else 0 for x in f]
    sums = rows.probs.double().sum(dim=1).tolist()
    # Rows that sum to 1 first: a failure only on a row that does not is evidence of a cumulative sum left
    # unnormalized, and is named so.
    order = sorted(range(batch), key=lambda b: abs(sums[b] - 1.0) > 1e-6)
    scaled = {b: abs(sums[b] - 1.0) > 1e-6 for b in order}
    # Draws that the unnormalized cumulative sum makes (where a row does not sum to 1): only there may a
    # failure be named after it; a pairing that is wrong may also fail that row alone, by chance.
    unnormalized = {
        b: scaled[b] and _drawn_unnormalized(rows, b, float(estimate[b]), f, (base, powers), tolerance) for b in order
    }
    # Every row is checked before a failure is reported: every row's draws, then every standard error (a wrong
    # pairing may give one row draws a right pairing could give, by chance; another row's show it).
    failures: list[tuple[int, CheckFailed]] = []
    drawn = {}
    for b in order:
        try:
            drawn[b] = _check_draws(
                rows, b, float(estimate[b]), f, (base, powers), tolerance, what, public, zero_diagnosis, unnormalized[b]
            )
        except CheckFailed as failed:
            failures.append((b, failed))
    for b in (b for b in order if b in drawn):
        try:
            _check_se(rows, b, float(se[b]), f, drawn[b], tolerance, what, public, unnormalized[b])
        except CheckFailed as failed:
            failures.append((b, failed))
    if not failures:
        return
    first_row, first = failures[0]
    # Only rows that do not sum to 1 failed, and the first with draws the unnormalized sum makes: its evidence.
    if all(scaled[b] for b, _ in failures) and unnormalized[first_row]:
        with _unnormalized_block():
            raise first
    raise first


def _unnormalized_block():
    return diagnosed(MISTAKES["unnormalized_cdf"], evidence=(Evidence.VALUE, Evidence.STRUCTURAL))


def _check_draws(
    rows, b, est, f, base, tolerance, what, public, zero_diagnosis, unnormalized
) -> tuple[list[int], set, set]:
    """One row's draws: read from the estimate, none of probability 0, ones the method can make. Returns the
    counts and (:func:`_candidates`) the standard errors such draws give, right and mistaken.

    ``unnormalized``: the row does not sum to 1 and its draws are ones the unnormalized cumulative sum makes;
    the mistakes' own names are then left to the caller's (that row failing alone is evidence of the
    cumulative sum left unnormalized). A row that does not sum to 1 but whose draws no unnormalized sum makes
    names the mistakes its failure shows, as any other row."""
    p = rows.p[b]
    n = rows.num_samples
    counts = _row_counts(est, n, f, base, tolerance)
    if counts is None:
        fail(
            f"{what}: row {b}'s estimate {est!r} is not the mean of {n} values of tokens (values (n + 1)^v make "
            f"every mean of n draws a whole number over n)",
            diagnosis=None
            if unnormalized
            else MISTAKES["cv_constant_control"]
            if rows.method == "control_variate" and _constant_control(rows, b)
            else None,
            rule=rule(public, "an estimate is not the mean of n drawn values", "某个估计值不是 n 个抽样值的均值"),
            kind=Evidence.VALUE,
        )
    zero = [v for v, c in enumerate(counts) if c and p[v] == 0]
    # In an ordinary run a pair or a stratum that cannot be is the first evidence (a token of probability 0 is
    # one way of being impossible); in a pushed run the zero draw is the evidence of the pushed site.
    paired = rows.method in ("antithetic", "stratified")
    if zero and (zero_diagnosis is not None or not paired):
        fail(
            f"{what}: row {b} drew token {zero[0]}, whose probability is 0 (counts {counts})",
            diagnosis=None if unnormalized else zero_diagnosis,
            rule=rule(public, "a token of probability 0 was drawn", "抽到了概率为 0 的 token"),
            kind=Evidence.VALUE,
        )
    right, mistaken = _candidates(rows.method, p, f, counts, n)
    if not right:
        fail(
            f"{what}: row {b}'s draws (counts {counts} over the tokens of probabilities "
            f"{[round(q, 4) for q in p]}) cannot come from {rows.method} draws"
            + (f" (token {zero[0]} has probability 0)" if zero else ""),
            diagnosis=MISTAKES[
                "antithetic_not_mirrored" if rows.method == "antithetic" else "stratified_outside_strata"
            ]
            if rows.method in ("antithetic", "stratified") and not unnormalized
            else None,
            rule=rule(public, "the draws are not ones the method can make", "抽样结果不可能由该方法得到"),
            kind=Evidence.VALUE,
        )
    return counts, right, mistaken


def _check_se(rows, b, err, f, drawn, tolerance, what, public, unnormalized) -> None:
    """One row's standard error: one that its draws (``drawn``, from :func:`_check_draws`) can give."""
    counts, right, mistaken = drawn
    n = rows.num_samples
    scale = max(abs(x) for x in f)
    if not (math.isfinite(err) and any(abs(err - s) <= tolerance * max(s, scale / n) for s in right)):
        named = math.isfinite(err) and any(abs(err - s) <= tolerance * max(s, scale / n) for s in mistaken)
        expected = min(right, key=lambda s: abs(s - err) if math.isfinite(err) else 0.0)
        mine, theirs = format_pair(err, expected)
        fail(
            f"{what}: row {b}'s standard error is {mine}, but its draws (counts {counts}) give {theirs}",
            diagnosis=MISTAKES[_SE_MISTAKE[rows.method]] if named and not unnormalized else None,
            # a standard error is no evidence of an unnormalized cumulative sum: nothing names it here
            explained_by=(MISTAKES["unnormalized_cdf"], MISTAKES[_SE_MISTAKE[rows.method]]) if unnormalized else (),
            rule=rule(public, "a standard error is not the one its draws give", "某个标准误与其抽样结果不符"),
            kind=Evidence.VALUE,
        )


def _row_counts(est: float, n: int, f: list[float], base: tuple[int, list[int]], tolerance: float) -> list[int] | None:
    """How often each token was drawn, read from the estimate; None where it is no mean of n drawn values."""
    base_value, powers = base
    if len(f) == 1:  # one token: its value every time
        return [n] if math.isfinite(est) and abs(est - f[0]) <= tolerance * abs(f[0]) else None
    digits = _counts(est * n, n, base_value, len(f), tolerance) if math.isfinite(est) else None
    return None if digits is None else [digits[k] for k in powers]


def unnormalized_law(raw: Sequence[float]) -> list[float]:
    """Where F^-1 sends u in [0, 1) when the cumulative sum of ``raw`` is not divided by its total: a total
    above 1 cuts off the tokens past 1; a total below 1 leaves [total, 1) to the last token of positive weight
    (the end of the cumulative sum, rounded or clamped)."""
    ends = [min(c, 1.0) for c in cdf(raw)]
    law = [high - low for low, high in zip([0.0, *ends[:-1]], ends, strict=True)]
    if ends[-1] < 1.0:
        last = max(v for v, w in enumerate(raw) if w > 0)
        law[last] += 1.0 - ends[-1]
    return law


def _drawn_unnormalized(rows: ReadableRows, b: int, est: float, f, base, tolerance: float) -> bool:
    """Whether row b's draws are ones the method makes from the unnormalized cumulative sum: every token drawn
    is one it reaches, and the pairs or strata fit (:func:`_candidates` under that law)."""
    counts = _row_counts(est, rows.num_samples, f, base, tolerance)
    if counts is None:
        return False
    law = unnormalized_law([float(w) for w in rows.probs[b].double().tolist()])
    if any(c and law[v] <= SLACK for v, c in enumerate(counts)):
        return False
    return bool(_candidates(rows.method, law, f, counts, rows.num_samples)[0])


def _constant_control(rows: ReadableRows, b: int) -> bool:
    """Every token of the row has the same control value: beta must be 0 and the estimate the plain mean."""
    return rows.control is not None and len(set(rows.control[b].tolist())) == 1


_SE_MISTAKE = {
    "plain": "plain_se_population",
    "antithetic": "antithetic_se_iid",
    "stratified": "stratified_plain_se",
    "control_variate": "plain_se_population",
}
