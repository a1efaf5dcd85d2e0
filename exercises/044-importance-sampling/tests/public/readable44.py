"""Rows whose sample_estimate answers can be read: which outcomes the draws fell on, from the estimate alone.

For n draws per row, each outcome v that q can draw and whose weight is not 0 gets its own digit d_v,
and f is chosen so that y_v = w(v) f(v) = (n + 1)^(d_v) (w = p/q, or min(p/q, cap)). A mean of n such
values, times n, is then a number written in base n + 1 whose digits are the counts of the draws:
every estimate tells its draws' split among the outcomes, and the standard error those draws give.
Outcomes where q > 0 but p = 0 have y = 0: they take the draws the digits leave over. An outcome with
q = 0 has y = 0 too, so in a row without such weight-0 outcomes a draw there shows as a missing draw.

The rows may be anything the statement allows (exact zeros in p and q, probabilities of 1e-25, rows
whose entries add up to a little more or less than 1, float32 or float64, caps that tie with a weight),
since f is computed from the inputs as the learner receives them. Public: the browser's tiny suite
reads its rows the same way.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import torch

from judge.checks.base import fail
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_tensor
from judge.i18n import Bilingual

from .weights44 import pair

ESTIMATE = "sample_estimate"


@dataclass(frozen=True)
class ReadableRows:
    """The inputs of one ``sample_estimate`` call, and what each outcome's weighted value is.

    ``y``: float64 ``[B, V]``, w(v) f(v) computed exactly from the inputs as the dtype holds them (0 where
    q or p is 0); ``digit``: int64 ``[B, V]``, the power of n + 1 that y approximates (-1 where y = 0).
    """

    p: torch.Tensor
    q: torch.Tensor
    f: torch.Tensor
    n: int
    cap: int | float | None
    y: torch.Tensor
    digit: torch.Tensor
    public: Bilingual

    @property
    def base(self) -> int:
        return self.n + 1

    @cached_property
    def rows_y(self) -> list[list[float]]:
        """``y`` as Python floats, read once (the checks walk it row by row)."""
        return self.y.tolist()

    @cached_property
    def rows_digit(self) -> list[list[int]]:
        return self.digit.tolist()

    @cached_property
    def rows_q(self) -> list[list[float]]:
        """``q`` as float64 Python floats."""
        return self.q.double().tolist()

    @cached_property
    def tolerance(self) -> float:
        """:func:`total_tolerance`, at least 1e-6: how far n x an estimate may lie from its draws' sum."""
        return max(total_tolerance(self), 1e-6)

    def kwargs(self) -> dict:
        """The call's keyword arguments (without the generator)."""
        out = {"p": self.p, "q": self.q, "f": self.f, "num_samples": self.n}
        if self.cap is not None:
            out["cap"] = self.cap
        return out

    def take(self, rows: Sequence[int]) -> ReadableRows:
        """These rows, in this order (a row may come several times)."""
        index = torch.tensor(list(rows), dtype=torch.int64)
        return ReadableRows(
            self.p[index],
            self.q[index],
            self.f[index],
            self.n,
            self.cap,
            self.y[index],
            self.digit[index],
            self.public,
        )


def _float(cap: int | float) -> float:
    """The cap as a float: an int beyond the float range is larger than any weight."""
    try:
        return float(cap)
    except OverflowError:
        return math.inf


def weight_of(p: float, q: float, cap: int | float | None) -> float:
    """w = p / q (0 where q = 0 or p = 0), min(p / q, cap) with a cap, in float64."""
    if q <= 0 or p <= 0:
        return 0.0
    w = p / q
    return min(w, _float(cap)) if cap is not None else w


def readable_rows(
    q_rows: Sequence[Sequence[float]],
    p_rows: Sequence[Sequence[float]],
    *,
    n: int,
    dtype: torch.dtype,
    cap: int | float | None = None,
    rng: random.Random,
    public: Bilingual,
) -> ReadableRows:
    """Rows of ``q`` and ``p`` (Python floats, rounded to ``dtype`` here) with ``f`` chosen to make every
    estimate readable: each outcome of weight > 0 gets a digit (their order drawn from ``rng``), f its
    y / w, rounded to ``dtype``; an outcome of weight 0 gets a value of f drawn from ``rng`` (it never
    matters). Raises ``ValueError`` for rows that cannot be read in ``dtype`` (too many draws or outcomes
    for its precision): the case is too large, a mistake of the suite."""
    q = torch.tensor([list(r) for r in q_rows], dtype=torch.float64).to(dtype)
    p = torch.tensor([list(r) for r in p_rows], dtype=torch.float64).to(dtype)
    base = n + 1
    f_rows, y_rows, digit_rows = [], [], []
    for qs, ps in zip(q.to(torch.float64).tolist(), p.to(torch.float64).tolist(), strict=True):
        weights = [weight_of(a, b, cap) for a, b in zip(ps, qs, strict=True)]
        live = [v for v, w in enumerate(weights) if w > 0]
        order = list(range(len(live)))
        rng.shuffle(order)
        digits = [-1] * len(weights)
        for v, d in zip(live, order, strict=True):
            digits[v] = d
        fs = [
            float(base**d) / w if w > 0 else round(rng.uniform(-5.0, 5.0), 3)
            for w, d in zip(weights, digits, strict=True)
        ]
        f_rows.append(fs)
        digit_rows.append(digits)
    f = torch.tensor(f_rows, dtype=torch.float64).to(dtype)
    for ws, fs in zip(
        [
            [weight_of(a, b, cap) for a, b in zip(ps, qs, strict=True)]
            for qs, ps in zip(q.double().tolist(), p.double().tolist(), strict=True)
        ],
        f.to(torch.float64).tolist(),
        strict=True,
    ):
        y_rows.append([w * v for w, v in zip(ws, fs, strict=True)])
    rows = ReadableRows(
        p, q, f, n, cap, torch.tensor(y_rows, dtype=torch.float64), torch.tensor(digit_rows, dtype=torch.int64), public
    )
    if not bool(torch.isfinite(rows.f).all()) or total_tolerance(rows) > 0.2:
        raise ValueError(f"{public}: rows not readable in {dtype} with {n} draws")
    return rows


def total_tolerance(rows: ReadableRows) -> float:
    """How far n x the estimate may lie from the exact sum of its draws' y: the learner's p / q, its
    product with f and the mean of n values each round, a few units of the dtype's rounding each."""
    eps = torch.finfo(rows.p.dtype).eps
    largest = float(rows.y.max()) if rows.y.numel() else 0.0
    return 1e-9 + (4 * rows.n + 16) * eps * rows.n * largest


def decode(rows: ReadableRows, b: int, estimate: float) -> tuple[int, ...] | None:
    """The counts of row ``b``'s draws per outcome that its estimate says, or None when no n draws of
    outcomes with q > 0 give it. Draws on weight-0 outcomes (p = 0 < q) are put on the first of them."""
    n, base = rows.n, rows.base
    total = estimate * n
    if not math.isfinite(total):
        return None
    whole = round(total)
    if abs(total - whole) > rows.tolerance or whole < 0:
        return None
    digits = rows.rows_digit[b]
    live = sorted((d, v) for v, d in enumerate(digits) if d >= 0)
    counts = _digits(whole, live, base, len(digits))
    if counts is None:
        return None
    drawn = sum(counts)
    if drawn > n:
        return None
    q = rows.rows_q[b]
    zero_weight = [v for v, d in enumerate(digits) if d < 0 and q[v] > 0]
    if drawn < n:
        if not zero_weight:
            return None
        counts[zero_weight[0]] += n - drawn
    exact = math.fsum(k * y for k, y in zip(counts, rows.rows_y[b], strict=True))
    if abs(exact - total) > rows.tolerance:
        return None
    return tuple(counts)


def _digits(whole: int, live: list[tuple[int, int]], base: int, size: int) -> list[int] | None:
    """``whole`` written in ``base``, digit d going to outcome v for each (d, v) of ``live``; None when it
    needs a digit no outcome has."""
    counts = [0] * size
    rest = whole
    for _, v in live:  # digits 0, 1, ..., K - 1 in order
        rest, counts[v] = divmod(rest, base)
    return counts if rest == 0 else None


def missing_draws(rows: ReadableRows, b: int, estimate: float) -> int:
    """How many of row ``b``'s n draws its estimate leaves without a y > 0, in a row where every outcome
    q can draw has a weight > 0 (so a draw with y = 0 is a draw where q = 0); 0 when none, or when the
    estimate is no mean of draws at all. The signature of an outcome with q = 0 drawn."""
    digits, q = rows.rows_digit[b], rows.rows_q[b]
    if any(d < 0 and q[v] > 0 for v, d in enumerate(digits)):
        return 0
    total = estimate * rows.n
    if not math.isfinite(total):
        return 0
    whole = round(total)
    if abs(total - whole) > rows.tolerance or whole < 0:
        return 0
    live = sorted((d, v) for v, d in enumerate(digits) if d >= 0)
    counts = _digits(whole, live, rows.base, len(digits))
    if counts is None or sum(counts) >= rows.n:
        return 0
    return rows.n - sum(counts)


def standard_error(rows: ReadableRows, b: int, counts: Sequence[int]) -> float:
    """The standard error the draws ``counts`` of row ``b`` give: s / sqrt(n), s the sample standard
    deviation (n - 1) of their y."""
    n = rows.n
    y = rows.rows_y[b]
    mean = math.fsum(k * v for k, v in zip(counts, y, strict=True)) / n
    return math.sqrt(math.fsum(k * (v - mean) ** 2 for k, v in zip(counts, y, strict=True)) / (n - 1) / n)


def se_tolerance(rows: ReadableRows, b: int, counts: Sequence[int], right: float) -> float:
    """The statement's tolerance of a standard error: relative 1e-9 (float64) or 1e-4 (float32), and
    4 sqrt(eps) max|y| / sqrt(n) absolute (a one-pass or running variance is fine)."""
    eps = torch.finfo(rows.p.dtype).eps
    rel = 1e-9 if rows.p.dtype == torch.float64 else 1e-4
    drawn = [abs(y) for k, y in zip(counts, rows.rows_y[b], strict=True) if k]
    return rel * right + 4 * math.sqrt(eps) * max(drawn, default=0.0) / math.sqrt(rows.n)


def outputs(ctx, rows: ReadableRows, value, *, what: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The learner's (estimate, se): a pair of ``[B]`` tensors of the inputs' dtype and device."""
    estimate, se = pair(value, ESTIMATE)
    b = rows.p.shape[0]
    estimate = expect_tensor(estimate, name=f"{what} (the estimate)", shape=(b,), dtype=rows.p.dtype, device=ctx.device)
    se = expect_tensor(se, name=f"{what} (the standard error)", shape=(b,), dtype=rows.p.dtype, device=ctx.device)
    return estimate, se


def check_readable(
    ctx,
    rows: ReadableRows,
    value,
    *,
    what: str,
    public: str | None = None,
    zero_q_diagnosis: str | None = None,
) -> list[tuple[int, ...]]:
    """Every row's estimate is the mean of y over n draws of outcomes with q > 0, and its standard error the
    one those draws give (no statistics: whatever the draws, they must fit). Returns each row's counts.

    ``zero_q_diagnosis``: named when an estimate reads exactly as n draws of which some gave y = 0 in a row
    where only an outcome with q = 0 gives it (give it only where that is the one explanation left: the
    same call passed with ordinary random numbers)."""
    named = public or what
    estimate, se = outputs(ctx, rows, value, what=what)
    found = []
    for b, (mean, error) in enumerate(zip(estimate.tolist(), se.tolist(), strict=True)):
        if not (math.isfinite(mean) and math.isfinite(error)):  # messages are built only for a failing row
            expect(
                False,
                f"{what}: row {b} returned the estimate {mean} and the standard error {error}; both must be finite",
                rule=Bilingual(f"{named}: NaN or inf returned", f"{in_zh(named)}：返回了 NaN 或 inf"),
                kind=Evidence.STRUCTURAL,
            )
        counts = decode(rows, b, mean)
        if counts is None:
            missing = missing_draws(rows, b, mean)
            fail(
                f"{what}: row {b} returned the estimate {mean:.12g}, which is not the mean of w(x) f(x) over "
                f"{rows.n} draws x of outcomes with q > 0 (f makes every such mean a whole number over {rows.n} "
                f"in base {rows.base})"
                + (
                    f"; it reads as {rows.n - missing} such draws and {missing} with w f = 0, which only an "
                    "outcome with q = 0 gives here"
                    if missing
                    else ""
                ),
                diagnosis=zero_q_diagnosis if missing else None,
                rule=Bilingual(
                    f"{named}: an estimate is not the mean of w f over draws of outcomes with q > 0",
                    f"{in_zh(named)}：估计值不是若干次抽样（只抽 q > 0 的结果）的 w f 的均值",
                ),
                kind=Evidence.VALUE,
            )
        right = standard_error(rows, b, counts)
        if abs(error - right) <= se_tolerance(rows, b, counts, right):
            found.append(counts)
            continue
        expect(
            False,
            f"{what}: row {b} drew the outcomes {counts} times (read off its estimate {mean:.12g}) and returned the "
            f"standard error {error:.12g}; those draws give {right:.12g} (the sample standard deviation of w f, "
            "dividing by n - 1, over sqrt(n))",
            rule=Bilingual(
                f"{named}: the standard error does not match the draws", f"{in_zh(named)}：标准误与抽样结果不符"
            ),
            kind=Evidence.VALUE,
        )
    return found


def in_zh(text: str) -> str:
    return getattr(text, "zh", text)


# --- the law of a row's split: which counts n independent draws give, and what dependent draws give ------


def splits(size: int, n: int) -> list[tuple[int, ...]]:
    """Every way to split n draws among ``size`` outcomes, in a fixed order."""
    return [
        tuple(b - a - 1 for a, b in zip((-1, *bars), (*bars, n + size - 1), strict=True))
        for bars in itertools.combinations(range(n + size - 1), size - 1)
    ]


def multinomial_law(probs: Sequence[float], n: int) -> dict[tuple[int, ...], float]:
    """P(split) for n independent draws from ``probs`` (normalized here), exact in float64."""
    total = math.fsum(probs)
    logs = [math.log(p / total) if p > 0 else -math.inf for p in probs]
    out = {}
    for k in splits(len(probs), n):
        if any(c and lg == -math.inf for c, lg in zip(k, logs, strict=True)):
            out[k] = 0.0
            continue
        out[k] = math.exp(
            math.lgamma(n + 1) + math.fsum(c * lg - math.lgamma(c + 1) for c, lg in zip(k, logs, strict=True) if c)
        )
    return out


def without_replacement_law(probs: Sequence[float], n: int) -> dict[tuple[int, ...], float]:
    """P(split) for n draws without replacement (each draw from what is left, renormalized): the law of
    ``torch.multinomial(q, n)`` with its default ``replacement=False``."""
    total = math.fsum(probs)
    out = {k: 0.0 for k in splits(len(probs), n)}
    positive = [v for v, p in enumerate(probs) if p > 0]
    for order in itertools.permutations(positive, n):
        chance, left = 1.0, total
        for v in order:
            chance *= probs[v] / left
            left -= probs[v]
        k = [0] * len(probs)
        for v in order:
            k[v] += 1
        out[tuple(k)] += chance
    return out


def antithetic_law(probs: Sequence[float], n: int) -> dict[tuple[int, ...], float]:
    """P(split) when the draws come in pairs (u, 1 - u) through the inverse CDF in outcome order (and one
    independent draw when n is odd): the law of "antithetic" draws, wherever the pairs sit in the row."""
    total = math.fsum(probs)
    edges = [0.0]
    for p in probs:
        edges.append(edges[-1] + p / total)
    size = len(probs)
    pair_law: dict[tuple[int, ...], float] = {}
    for a in range(size):
        for b in range(size):
            # u in [edges[a], edges[a+1]) and 1 - u in [edges[b], edges[b+1])
            low, high = max(edges[a], 1 - edges[b + 1]), min(edges[a + 1], 1 - edges[b])
            if high > low:
                k = [0] * size
                k[a] += 1
                k[b] += 1
                pair_law[tuple(k)] = pair_law.get(tuple(k), 0.0) + (high - low)
    law: dict[tuple[int, ...], float] = {tuple([0] * size): 1.0}
    parts = [pair_law] * (n // 2) + (
        [{tuple(int(v == w) for w in range(size)): p / total for v, p in enumerate(probs)}] if n % 2 else []
    )
    for part in parts:
        law = _convolve(law, part)
    out = {k: 0.0 for k in splits(size, n)}
    for k, chance in law.items():
        out[k] += chance
    return out


def _convolve(a: Mapping[tuple[int, ...], float], b: Mapping[tuple[int, ...], float]) -> dict[tuple[int, ...], float]:
    out: dict[tuple[int, ...], float] = {}
    for ka, pa in a.items():
        for kb, pb in b.items():
            k = tuple(x + y for x, y in zip(ka, kb, strict=True))
            out[k] = out.get(k, 0.0) + pa * pb
    return out


def law_tensor(law: Mapping[tuple[int, ...], float], order: Sequence[tuple[int, ...]]) -> torch.Tensor:
    """A law as a float64 ``[S]`` tensor in ``order`` (the order of :func:`splits`)."""
    return torch.tensor([law.get(k, 0.0) for k in order], dtype=torch.float64)


# --- rows for the extremes of the uniform sources -----------------------------------------------------

TINY = 1e-25  # a probability next to exact zeros: never drawn, never a reason to refuse


def _weights(rng: random.Random, size: int) -> list[float]:
    """``size`` positive, non-dyadic weights summing to 1 (in float64)."""
    raw = [rng.uniform(0.2, 1.0) + rng.random() * 1e-3 for _ in range(size)]
    total = math.fsum(raw)
    return [v / total for v in raw]


def random_row(
    rng: random.Random, size: int, *, zero_q: Sequence[int] = (), zero_p: Sequence[int] = (), tiny: Sequence[int] = ()
):
    """(q, p) of one row: positive non-dyadic probabilities, exact zeros of both at ``zero_q``, p = 0 at
    ``zero_p`` (where q > 0), 1e-25 in both at ``tiny``."""
    live = [v for v in range(size) if v not in zero_q and v not in tiny]
    q_live, p_live = _weights(rng, len(live)), _weights(rng, len(live))
    q, p = [0.0] * size, [0.0] * size
    for v, a, b in zip(live, q_live, p_live, strict=True):
        q[v], p[v] = a, b
    for v in zero_p:
        p[v] = 0.0
    for v in tiny:
        q[v] = p[v] = TINY
    return q, p


def off_by_ulps(row: list[float], dtype: torch.dtype, ulps: int) -> list[float]:
    """``row`` rounded to ``dtype`` with its largest entry moved by ``ulps`` units of rounding of 1: a row
    whose entries add up to a little more (ulps > 0) or less than 1, whatever the order."""
    values = torch.tensor(row, dtype=torch.float64).to(dtype)
    top = int(values.argmax())
    values[top] = values[top] + ulps * torch.finfo(dtype).eps
    return values.to(torch.float64).tolist()


# Rows the red team found (statement-only solutions): float32, sum() exactly 1, the cumulative sum ending at
# the largest float32 below 1, a last outcome of probability 0; and its float64 counterpart.
RED_TEAM_ROWS = {
    torch.float32: [
        "0x1.48a3740000000p-4",
        "0x1.3860a80000000p-3",
        "0x1.6eaf4a0000000p-3",
        "0x1.ac8b200000000p-3",
        "0x1.6896d80000000p-5",
        "0x1.b252600000000p-5",
        "0x1.20ac700000000p-2",
        "0x0.0p+0",
    ],
    torch.float64: [
        "0x1.3b9b8b908ad9ep-3",
        "0x1.2d17eed9902d0p-3",
        "0x1.1bea97316b16ep-3",
        "0x1.81940b3b1e095p-3",
        "0x1.1aeb08f943ac2p-3",
        "0x1.69d8983f90f4dp-5",
        "0x1.846cb42033ef9p-3",
        "0x0.0p+0",
    ],
}


def extreme_rows(rng: random.Random, dtype: torch.dtype) -> ReadableRows:
    """Rows of 8 outcomes where an extreme uniform lands on an outcome with q = 0 in a careless inverse CDF:
    a zero first, last, at both ends; entries adding up to a little less (and more) than 1 before a last
    zero; the red team's row. p > 0 wherever q > 0, so a draw where q = 0 shows (its w f is 0)."""
    size = 8
    made = [
        random_row(rng, size, zero_q=(0,)),
        random_row(rng, size, zero_q=(size - 1,)),
        random_row(rng, size, zero_q=(0, size - 1)),
    ]
    for ulps in (-rng.randint(2, 4), rng.randint(2, 4)):
        q, p = random_row(rng, size, zero_q=(size - 1,))
        made.append((off_by_ulps(q, dtype, ulps), p))
    red = [float.fromhex(h) for h in RED_TEAM_ROWS[dtype]]
    made.append((red, [v for v in random_row(rng, size, zero_q=(size - 1,))[1]]))
    name = str(dtype).removeprefix("torch.")
    return readable_rows(
        [m[0] for m in made],
        [m[1] for m in made],
        n=3,
        dtype=dtype,
        rng=rng,
        public=Bilingual(
            f"{len(made)} {name} rows with zeros at the ends of q and sums off 1",
            f"{len(made)} 行 {name}，q 的两端有 0，且各项之和不恰为 1",
        ),
    )
