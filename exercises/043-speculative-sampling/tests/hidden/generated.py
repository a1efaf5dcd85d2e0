"""Instances of exercise 43's hidden cases drawn under each case's own seed, with their float64 answers.

Nothing here is "nice": weights whose rows sum to 1 only up to rounding, probabilities of 1e-25 next to
exact zeros, ties at the k-th logit made in several ways (equal logits, logits one ulp apart whose
quotients by T round to the same float), -inf logits, rows whose ``sum()`` differs from the last entry
of their cumulative sum, residuals that vanish after a rejection. Every answer is computed from the
values as the learner receives them (rounded to the case's dtype first), in float64 or exactly.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import torch

from ..public import theory

NEG_INF = float("-inf")
TOPK_MARGIN = 1e-3  # random rows keep this gap at the k-th logit unless a tie is made on purpose


def rounded(rows: list[list[float]], dtype: torch.dtype) -> list[list[float]]:
    """``rows`` as the learner receives them in ``dtype``, read back as Python floats."""
    return torch.tensor(rows, dtype=dtype).to(torch.float64).tolist()


def _weights(rng: random.Random, vocab: int, zeros: int = 0) -> list[float]:
    """Random non-dyadic weights normalised in float64, ``zeros`` of them exactly 0."""
    weights = [rng.random() ** 2 + 1e-3 for _ in range(vocab)]
    for index in rng.sample(range(vocab), zeros):
        weights[index] = 0.0
    total = math.fsum(weights)
    return [w / total for w in weights]


def _off(row: list[float], rng: random.Random) -> list[float]:
    """``row`` times 1 + d, |d| in [5e-6, 3e-5]: a distribution only up to rounding."""
    scale = 1.0 + rng.choice((-1, 1)) * rng.uniform(5e-6, 3e-5)
    return [w * scale for w in row]


# --- acceptance rate and total variation -------------------------------------------------------------


@dataclass(frozen=True)
class RateRows:
    p: list[list[float]]  # as the learner receives them (rounded to dtype)
    q: list[list[float]]
    kinds: list[str]  # what each row is, for messages (no values)
    dtype: torch.dtype

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.tensor(self.p, dtype=self.dtype), torch.tensor(self.q, dtype=self.dtype)

    def expected(self) -> dict[str, list[float]]:
        return {
            "acceptance_rate": [math.fsum(map(min, p, q)) for p, q in zip(self.p, self.q, strict=True)],
            "total_variation": [
                0.5 * math.fsum(abs(a - b) for a, b in zip(p, q, strict=True))
                for p, q in zip(self.p, self.q, strict=True)
            ],
        }

    def mistakes(self) -> dict[str, dict[str, list[float]]]:
        expected = self.expected()
        rate = expected["acceptance_rate"]
        return {
            "acceptance_rate": {
                "rate_sum_max": [math.fsum(map(max, p, q)) for p, q in zip(self.p, self.q, strict=True)],
                "rate_from_tv": [1.0 - tv for tv in expected["total_variation"]],
            },
            "total_variation": {
                "tv_no_half": [
                    math.fsum(abs(a - b) for a, b in zip(p, q, strict=True))
                    for p, q in zip(self.p, self.q, strict=True)
                ],
                "tv_from_rate": [1.0 - a for a in rate],
            },
        }


RATE_KINDS = (
    "random weights summing to 1 up to rounding",
    "p = q",
    "disjoint supports",
    "probabilities of 1e-25 next to exact zeros",
    "q within 1e-6 of p, both summing to 1 up to rounding",
    "random rows with exact zeros",
)


def rate_rows(rng: random.Random, dtype: torch.dtype, vocab: int) -> RateRows:
    """One row of each of ``RATE_KINDS`` (twice the random ones), ``vocab`` tokens each."""
    ps, qs, kinds = [], [], []

    def add(kind: str, p: list[float], q: list[float]) -> None:
        ps.append(p)
        qs.append(q)
        kinds.append(kind)

    for _ in range(2):
        add(RATE_KINDS[0], _off(_weights(rng, vocab), rng), _off(_weights(rng, vocab), rng))
    same = _off(_weights(rng, vocab, vocab // 4), rng)
    add(RATE_KINDS[1], same, list(same))
    half = rng.sample(range(vocab), vocab // 2)
    add(
        RATE_KINDS[2],
        _weights_on(rng, vocab, half),
        _weights_on(rng, vocab, [t for t in range(vocab) if t not in half]),
    )
    p, q = _weights(rng, vocab, vocab // 3), _weights(rng, vocab, vocab // 3)
    for row, other in ((p, q), (q, p)):
        zero = next(t for t in range(vocab) if row[t] == 0.0)
        row[zero] = 1e-25
        other[zero] = 0.0
    add(RATE_KINDS[3], p, q)
    base = _weights(rng, vocab)
    shrink = 1.0 - rng.uniform(1e-5, 3e-5)  # both rows short of 1 by about 2e-5: 1 - rate is far from TV
    add(
        RATE_KINDS[4],
        [w * shrink for w in base],
        [w * (1.0 + rng.uniform(-1e-6, 1e-6)) * shrink for w in base],
    )
    add(RATE_KINDS[5], _weights(rng, vocab, vocab // 2), _weights(rng, vocab, vocab // 5))
    return RateRows(rounded(ps, dtype), rounded(qs, dtype), kinds, dtype)


def _weights_on(rng: random.Random, vocab: int, support: list[int]) -> list[float]:
    row = [rng.random() + 0.1 if t in support else 0.0 for t in range(vocab)]
    total = math.fsum(row)
    return [w / total for w in row]


# --- the filter -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterRows:
    logits: list[list[float]]  # as the learner receives them (rounded to dtype)
    kinds: list[str]
    temperature: float
    top_k: int
    dtype: torch.dtype

    def tensor(self) -> torch.Tensor:
        return torch.tensor(self.logits, dtype=self.dtype)

    def expected(self) -> list[list[float]]:
        return [filtered64(z, self.temperature, self.top_k) for z in self.logits]

    def mistaken(self, mistake: str) -> list[list[float]]:
        if mistake == "ties_after_division":
            return [self._divided_first(z) for z in self.logits]
        return [theory.filtered(z, self.temperature, self.top_k, mistake) for z in self.logits]

    def _divided_first(self, z: list[float]) -> list[float]:
        """The filter of a row whose ties are judged on z / T computed in the case's dtype."""
        scaled = (torch.tensor(z, dtype=self.dtype) / self.temperature).to(torch.float64).tolist()
        return filtered64(z, self.temperature, self.top_k, judged_on=scaled)

    def rtol(self, base: float) -> float:
        """The relative tolerance in float32 grows with the size of z / T (its rounding)."""
        if self.dtype != torch.float32:
            return base
        finite = [abs(v) for z in self.logits for v in z if v != NEG_INF]
        return base + 2.0**-22 * max(finite) / self.temperature


def filtered64(z: list[float], temperature: float, top_k: int, judged_on: list[float] | None = None) -> list[float]:
    """softmax(z / T) over the tokens whose logit (or ``judged_on``) is >= the k-th largest, in float64
    from the values given; -inf logits get 0."""
    keys = judged_on if judged_on is not None else z
    keep = [v != NEG_INF for v in z]
    if 0 < top_k < len(z):
        kth = sorted(keys, reverse=True)[top_k - 1]
        keep = [k and key >= kth for k, key in zip(keep, keys, strict=True)]
    top = max(v for v, k in zip(z, keep, strict=True) if k)
    weights = [math.exp((v - top) / temperature) if k else 0.0 for v, k in zip(z, keep, strict=True)]
    total = math.fsum(weights)
    return [w / total for w in weights]


FILTER_KINDS = (
    "random logits",
    "an exact tie at the k-th logit",
    "logits one ulp apart at the k-th whose quotients by T round to the same float",
    "-inf logits",
    "-inf logits, fewer finite ones than top_k",
)


def _adjacent_pair(rng: random.Random, dtype: torch.dtype, temperature: float) -> tuple[float, float]:
    """Two logits one ulp apart in ``dtype`` (low, high) whose quotients by T are equal in ``dtype`` (T must not
    be a power of two: dividing by one is exact)."""
    for _ in range(100_000):
        high = torch.tensor(rng.uniform(0.5, 3.0), dtype=dtype)
        low = torch.nextafter(high, torch.tensor(0.0, dtype=dtype))
        if torch.equal(low / temperature, high / temperature):
            return float(low), float(high)
    raise RuntimeError(f"no two logits one ulp apart collide when divided by {temperature}")


def filter_rows(rng: random.Random, dtype: torch.dtype, temperature: float, top_k: int, vocab: int) -> FilterRows:
    """Rows of ``vocab`` logits, one of each of ``FILTER_KINDS`` plus two random ones (``top_k`` >= 2)."""
    rows, kinds = [], []
    while len(rows) < 3:
        z = rounded([[rng.gauss(0.0, 1.5) for _ in range(vocab)]], dtype)[0]
        ordered = sorted(z, reverse=True)
        if ordered[top_k - 1] - ordered[top_k] >= TOPK_MARGIN:
            rows.append(z)
            kinds.append(FILTER_KINDS[0])
    z = list(rows[0])
    ordered = sorted(range(vocab), key=lambda t: -z[t])
    for t in ordered[top_k : top_k + rng.randint(1, 2)]:  # the next one or two equal the k-th
        z[t] = z[ordered[top_k - 1]]
    rows.append(z)
    kinds.append(FILTER_KINDS[1])
    low, high = _adjacent_pair(rng, dtype, temperature)
    z = [rng.uniform(-2.0, 0.0) for _ in range(vocab)]  # below both
    places = rng.sample(range(vocab), top_k + 1)
    for t in places[: top_k - 1]:
        z[t] = rng.uniform(3.5, 5.0)  # above both: the k-th largest is `high`, the (k+1)-th `low`
    z[places[top_k - 1]], z[places[top_k]] = high, low
    rows.append(rounded([z], dtype)[0])
    kinds.append(FILTER_KINDS[2])
    z = list(rows[1])
    top = max(range(vocab), key=lambda t: z[t])
    for t in rng.sample([t for t in range(vocab) if t != top], vocab // 3):
        z[t] = NEG_INF
    rows.append(z)
    kinds.append(FILTER_KINDS[3])
    z = [NEG_INF] * vocab
    for t in rng.sample(range(vocab), max(1, top_k - 1)):
        z[t] = rounded([[rng.gauss(0.0, 1.5)]], dtype)[0][0]
    rows.append(z)
    kinds.append(FILTER_KINDS[4])
    return FilterRows(rows, kinds, temperature, top_k, dtype)


# --- every draw site on inputs that are not nice ---------------------------------------------------------


def _float(value: float, dtype: torch.dtype) -> float:
    return float(torch.tensor(value, dtype=dtype))


def _cdf_ends_early(row: list[float], dtype: torch.dtype) -> bool:
    """Whether a sampler that normalises ``row`` by ``sum()`` (or scales u by it) can run past the end of
    its cumulative sum at the largest uniform below 1 in ``dtype``: the normalised cumulative sum ends
    below that uniform, and ``sum()`` exceeds the cumulative sum's last entry."""
    p = torch.tensor(row, dtype=dtype)
    top = torch.nextafter(torch.tensor(1.0, dtype=dtype), torch.tensor(0.0, dtype=dtype))
    normalised_end = (p / p.sum()).cumsum(0)[-1]
    return bool(normalised_end < top) and bool(p.sum() > p.cumsum(0)[-1])


def _early_ending_row(rng: random.Random, dtype: torch.dtype, vocab: int, zeros: int) -> list[float]:
    """Non-dyadic weights summing to 1 up to rounding, with the last ``zeros`` tokens (and a few others)
    exactly 0, one entry of 1e-25 next to a zero, and a cumulative sum that ends early (``_cdf_ends_early``)."""
    while True:
        row = _weights(rng, vocab - zeros, (vocab - zeros) // 5) + [0.0] * zeros
        tiny = next(t for t in range(vocab - zeros) if row[t] == 0.0) if (vocab - zeros) // 5 else None
        if tiny is not None and tiny + 1 < vocab - zeros:
            row[tiny + 1] = 1e-25
        row = rounded([_off(row, rng)], dtype)[0]
        if _cdf_ends_early(row, dtype):
            return row


@dataclass(frozen=True)
class SiteRows:
    """``verify`` inputs for the draw-site checks: ``p`` [B][K+1][V], ``q`` [B][K][V], ``drafts`` [B][K]."""

    p: list
    q: list
    drafts: list[list[int]]
    dtype: torch.dtype

    def tensors(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return (
            torch.tensor(self.p, dtype=self.dtype),
            torch.tensor(self.q, dtype=self.dtype),
            torch.tensor(self.drafts, dtype=torch.int64),
        )


def past_end_rows(rng: random.Random, dtype: torch.dtype, rows: int = 4, k: int = 2, vocab: int = 40) -> SiteRows:
    """Rows whose emitted token comes from a distribution with trailing zeros and a cumulative sum that
    ends early: even rows are certainly rejected at position 0 (p_0(x_0) = 0, q_0 lives where p_0 is 0,
    so the residual is p_0 itself), odd rows are accepted at every position (p_i = q_i) and draw the bonus
    from such a p_K."""
    ps, qs, drafts = [], [], []
    for row in range(rows):
        if row % 2 == 0:
            target = _early_ending_row(rng, dtype, vocab, zeros=rng.randint(1, 3))
            holes = [t for t in range(vocab) if target[t] == 0.0]
            draft = [0.0] * vocab
            for t in holes:
                draft[t] = 1.0 / len(holes)
            x = rng.choice(holes)
            same = rounded([_weights(rng, vocab)], dtype)[0]
            ps.append([target] + [same] * (k - 1) + [rounded([_weights(rng, vocab)], dtype)[0]])
            qs.append(rounded([draft], dtype) + [same] * (k - 1))
            drafts.append([x] + [rng.randrange(vocab) for _ in range(k - 1)])
        else:
            sames = [rounded([_weights(rng, vocab)], dtype)[0] for _ in range(k)]
            ps.append(sames + [_early_ending_row(rng, dtype, vocab, zeros=rng.randint(1, 3))])
            qs.append([list(s) for s in sames])
            drafts.append([rng.randrange(vocab) for _ in range(k)])
    return SiteRows(ps, qs, drafts, dtype)


def vanishing_residual_rows(rng: random.Random, dtype: torch.dtype, rows: int = 3, vocab: int = 6) -> SiteRows:
    """K = 1 rows where q_0(x_0) = v and p_0(x_0) is the float just below v, p_0 = q_0 elsewhere (some exact
    zeros): rejected only at the largest uniforms, and then every entry of max(0, p_0 - q_0) is 0, so the
    replacement must come from p_0. p_1 has full support (no bonus can come out wrong)."""
    ps, qs, drafts = [], [], []
    for _ in range(rows):
        q = rounded([_weights(rng, vocab, vocab // 3)], dtype)[0]
        x = max(range(vocab), key=lambda t: q[t])
        p = list(q)
        v = torch.tensor(q[x], dtype=dtype)
        p[x] = float(torch.nextafter(v, torch.tensor(0.0, dtype=dtype)))
        ps.append([p, rounded([_weights(rng, vocab)], dtype)[0]])
        qs.append([q])
        drafts.append([x])
    return SiteRows(ps, qs, drafts, dtype)


# --- speculative_step: draw sites whose drafts top-k restricts at both ends ---------------------------------


def step_site_logits(rng: random.Random, dtype: torch.dtype, vocab: int = 7, k: int = 2) -> tuple[list, list, int]:
    """``(target [B][K+1][V], draft [B][K][V], top_k)``: top_k = 3, each draft row keeping three middle
    tokens (token 0 and token V - 1 filtered out), each target row three tokens partly elsewhere, so the
    drafts, the residuals and the bonus all have exact zeros at both ends of the vocabulary."""
    top_k = 3

    def row(kept: list[int]) -> list[float]:
        z = [rng.uniform(-3.0, -1.0) for _ in range(vocab)]
        for t in kept:
            z[t] = rng.uniform(0.5, 2.5)
        return z

    middle = list(range(1, vocab - 1))
    target, draft = [], []
    for _ in range(3):
        draft.append([row(rng.sample(middle, top_k)) for _ in range(k)])
        target.append([row(rng.sample(range(vocab), top_k)) for _ in range(k)] + [row(rng.sample(middle, top_k))])
    return rounded_nested(target, dtype), rounded_nested(draft, dtype), top_k


def rounded_nested(rows: list, dtype: torch.dtype) -> list:
    return torch.tensor(rows, dtype=dtype).to(torch.float64).tolist()
