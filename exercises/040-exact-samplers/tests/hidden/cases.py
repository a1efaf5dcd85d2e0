"""Frozen inputs of exercise 40's hidden tests, with their exact answers.

Inputs come from :class:`random.Random` with fixed seeds (stable across Python, torch and
machines), turned into float32 (or float64 where a case says so). Every decision is verified
against the oracle's margins when a case is built (``oracle.AmbiguousCase`` otherwise), except the
designed boundaries: dyadic rows whose CDF steps are exact, u = 0, the largest float below 1, and
draws whose uniforms are all 0 (a tie broken by the first index).
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field

import torch

from ..public.diagnoses import MISTAKES
from . import oracle

TOP32 = 1.0 - 2.0**-24  # the largest float32 below 1
TOP64 = 1.0 - 2.0**-53  # the largest float64 below 1
NEG_INF = float("-inf")


@dataclass
class Case:
    """One noise-form call: its keyword arguments, the exact tokens, and each mistake's tokens."""

    kwargs: dict
    expected: torch.Tensor
    mistaken: dict = field(default_factory=dict)  # diagnosis -> int64 tokens, only those that differ

    def arguments(self) -> dict:
        return {
            name: value.clone() if isinstance(value, torch.Tensor) else value for name, value in self.kwargs.items()
        }


def _mistaken(function, args: tuple, expected: torch.Tensor, names: list[str]) -> dict:
    out = {}
    for name in names:
        tokens = function(*args, mistake=name)
        if not torch.equal(tokens, expected):
            out[MISTAKES[name]] = tokens
    return out


# The frozen noise-form cases, by name (benchmarks/power_040.py runs every wrong file on them).
FROZEN_CASE_NAMES = (
    "cdf_dyadic",
    "cdf_short",
    "cdf_weights",
    "cdf_random",
    "gumbel_float32",
    "gumbel_float64",
    "race_float32",
    "race_float64",
    "gumbel_ties",
    "race_ties",
    "gumbel_mixed",
    "race_mixed",
    "alias_draw_case",
)


# --- inverse CDF ----------------------------------------------------------------------------------

CDF_MISTAKES = [
    "cdf_off_by_one",
    "sorted_not_mapped_back",
    "float32_cumsum_short",
    "float32_cumsum_clamped",
    "normalised_cumsum",
    "normalised_cumsum_clamped",
]


def _cdf_case(probs: torch.Tensor, u: torch.Tensor, exact_rows: set[int]) -> Case:
    oracle.check_cdf_margins(probs, u, exact_rows)
    expected = oracle.inverse_cdf(probs, u)
    return Case({"probs": probs, "u": u}, expected, _mistaken(oracle.inverse_cdf, (probs, u), expected, CDF_MISTAKES))


def _margin_uniforms(rng: random.Random, steps: list[float], count: int) -> list[float]:
    out: list[float] = []
    while len(out) < count:
        value = float(torch.tensor(rng.random(), dtype=torch.float32))
        if value < 1.0 and all(abs(value - s) >= oracle.CDF_MARGIN for s in steps):
            out.append(value)
    return out


@functools.cache
def cdf_dyadic() -> Case:
    """Dyadic rows summing to 1 (exact steps): zeros first, inside and last; u = 0, u on every
    step, u = 1 - 2^-24 and a few others."""
    rows = [
        [0.0, 0.25, 0.125, 0.0, 0.5, 0.125],
        [0.5, 0.0, 0.25, 0.25, 0.0, 0.0],
        [0.0625, 0.0625, 0.125, 0.25, 0.5, 0.0],
        [0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
    ]
    rng = random.Random(40_001)
    probs = torch.tensor(rows, dtype=torch.float32)
    us = []
    for row in rows:
        steps = sorted({s for s in torch.tensor(row, dtype=torch.float64).cumsum(0).tolist() if s < 1.0})
        values = [0.0, *steps, TOP32]
        values += _margin_uniforms(rng, steps, 10 - len(values))
        rng.shuffle(values)
        us.append(values)
    return _cdf_case(probs, torch.tensor(us, dtype=torch.float32), exact_rows={0, 1, 2, 3})


@functools.cache
def cdf_short() -> Case:
    """float32 rows whose entries add up to less than 1 - 2^-24, ending with zero-probability
    tokens; u = 1 - 2^-24 lies above a cumulative sum that is not normalised."""
    rng = random.Random(40_002)
    rows = [[0.5, 0.25, 0.25 - 2.0**-23, 0.0]]
    while len(rows) < 4:
        raw = [rng.uniform(0.05, 1.0) for _ in range(3)]
        row = (torch.tensor(raw, dtype=torch.float32) / torch.tensor(sum(raw), dtype=torch.float32)).tolist()
        if float(torch.tensor(row, dtype=torch.float32).cumsum(0)[-1]) < TOP32 and math.fsum(row) < TOP32:
            rows.append(row + [0.0])
    probs = torch.tensor(rows, dtype=torch.float32)
    steps = oracle.cdf(probs)
    us = [[TOP32, *_margin_uniforms(rng, steps[r].tolist(), 5)] for r in range(4)]
    case = _cdf_case(probs, torch.tensor(us, dtype=torch.float32), exact_rows=set())
    assert MISTAKES["float32_cumsum_short"] in case.mistaken, "the short rows must catch an unnormalised cumsum"
    return case


@functools.cache
def cdf_weights() -> Case:
    """float64 weights that do not sum to 1 (sums 8, 7 and 19) and float64 u up to 1 - 2^-53. The last
    row, divided by its sum and then accumulated, ends at 1 - 2^-52: u = 1 - 2^-53 runs past it."""
    probs = torch.tensor(
        [[3.0, 0.0, 1.0, 4.0, 0.0], [1.0, 2.0, 0.0, 3.0, 1.0], [5.0, 8.0, 5.0, 1.0, 0.0]], dtype=torch.float64
    )
    rng = random.Random(40_003)
    steps = oracle.cdf(probs)
    us = []
    for r in range(3):
        values = [0.0, TOP64] + [
            v
            for v in (rng.random() for _ in range(40))
            if min(abs(v - s) for s in steps[r].tolist()) >= oracle.CDF_MARGIN
        ][:6]
        us.append(values)
    u = torch.tensor(us, dtype=torch.float64)
    oracle.check_cdf_margins(probs, u[:, 2:])
    expected = oracle.inverse_cdf(probs, u)
    case = Case({"probs": probs, "u": u}, expected, _mistaken(oracle.inverse_cdf, (probs, u), expected, CDF_MISTAKES))
    assert MISTAKES["normalised_cumsum_clamped"] in case.mistaken, "the last row must catch probs / sum, then cumsum"
    return case


@functools.cache
def cdf_random() -> Case:
    """Eight random float32 rows of 40 tokens (a fifth of them 0), 32 uniforms each."""
    rng = random.Random(40_004)
    rows = [[0.0 if rng.random() < 0.2 else rng.expovariate(1.0) for _ in range(40)] for _ in range(8)]
    probs = torch.tensor(rows, dtype=torch.float32)
    steps = oracle.cdf(probs)
    u = torch.tensor([_margin_uniforms(rng, steps[r].tolist(), 32) for r in range(8)], dtype=torch.float32)
    return _cdf_case(probs, u, exact_rows=set())


# --- Gumbel-max and the exponential race -----------------------------------------------------------

GUMBEL_MISTAKES = ["gumbel_wrong_sign", "gumbel_on_probs", "log_zero_at_u0", "ties_not_first"]
RACE_MISTAKES = ["race_multiplies", "race_argmin", "log_zero_at_u0", "race_one_minus_u", "ties_not_first"]
# Designed draws: a zero uniform on the best token, whose score beats (or loses to) the runner-up's
# by this much in log space: any clamp of u = 0 other than the tiny of u's dtype flips one of them.
CLAMP_GAP = 2e-3


def _clamp_mistaken(function, args: tuple, u: torch.Tensor, expected: torch.Tensor) -> dict:
    """``clamp_not_tiny``: the tokens under each wrong floor that differ from the expected ones."""
    variants = []
    for floor in oracle.wrong_floors(u.dtype):
        tokens = function(*args, floor=floor)
        if not torch.equal(tokens, expected):
            variants.append(tokens)
    return {MISTAKES["clamp_not_tiny"]: tuple(variants)} if variants else {}


def _designed_clamp_draws(u: torch.Tensor, base: torch.Tensor, log_base: torch.Tensor, score) -> int:
    """Overwrite draws 1 and 2 of each row: every uniform 0 but the runner-up's, set so that its
    score is CLAMP_GAP above (draw 1) or below (draw 2) the best token's score at u = 0. Draws that
    miss the margins (tied logits) keep their random uniforms. Returns how many were designed."""
    zero_noise = -math.log(-math.log(torch.finfo(u.dtype).tiny))
    designed = 0
    for row in range(u.shape[0]):
        finite = [(v, t) for t, v in enumerate(log_base[row].tolist()) if math.isfinite(v)]
        if len(finite) < 2:
            continue
        (best, _), (second, runner) = sorted(finite, key=lambda pair: (-pair[0], pair[1]))[:2]
        for draw, gap in ((1, CLAMP_GAP), (2, -CLAMP_GAP)):
            noise = best + zero_noise + gap - second  # the Gumbel noise the runner-up needs
            candidate = torch.zeros(1, 1, u.shape[2], dtype=u.dtype)
            candidate[0, 0, runner] = math.exp(-math.exp(-noise))
            if not 0.0 < float(candidate[0, 0, runner]) < 1.0:
                continue
            try:
                oracle.check_score_margins(score(base[row : row + 1], candidate))
            except oracle.AmbiguousCase:
                continue
            u[row, draw] = candidate[0, 0]
            designed += 1
    return designed


def _noise(rng: random.Random, base: torch.Tensor, draws: int, dtype: torch.dtype, score) -> tuple:
    """Uniforms [B, n, V] with margins: draw 0 of each row all 0 (a designed tie), and in the
    others about one value in ten set to 0 or to the largest float below 1."""
    batch, vocab = base.shape
    top = TOP32 if dtype == torch.float32 else TOP64
    u = torch.zeros(batch, draws, vocab, dtype=dtype)
    for row in range(batch):
        for draw in range(1, draws):
            while True:
                values = [rng.random() for _ in range(vocab)]
                for token in range(vocab):
                    pick = rng.random()
                    if pick < 0.05:
                        values[token] = 0.0
                    elif pick < 0.1:
                        values[token] = top
                candidate = torch.tensor([[values]], dtype=dtype)
                try:
                    oracle.check_score_margins(score(base[row : row + 1], candidate))
                except oracle.AmbiguousCase:
                    continue
                u[row, draw] = candidate[0, 0]
                break
    exact = {(row, 0) for row in range(batch)}
    return u, exact


def _gumbel_log_scores(logits, u):
    return oracle.gumbel_scores(logits, u)


def _race_log_scores(probs, u):
    return torch.log(oracle.race_scores(probs, u))


def _gumbel_case(logits: torch.Tensor, draws: int, dtype: torch.dtype, seed: int) -> Case:
    u, exact = _noise(random.Random(seed), logits, draws, dtype, _gumbel_log_scores)
    designed = _designed_clamp_draws(u, logits, logits.to(torch.float64), _gumbel_log_scores)
    assert designed >= logits.shape[0], "too few draws designed against a wrong clamp"
    oracle.check_score_margins(_gumbel_log_scores(logits, u), exact)
    expected = oracle.gumbel_max(logits, u)
    mistaken = _mistaken(oracle.gumbel_max, (logits, u), expected, GUMBEL_MISTAKES)
    mistaken.update(_clamp_mistaken(oracle.gumbel_max, (logits, u), u, expected))
    return Case({"logits": logits, "u": u}, expected, mistaken)


def _race_case(probs: torch.Tensor, draws: int, dtype: torch.dtype, seed: int) -> Case:
    u, exact = _noise(random.Random(seed), probs, draws, dtype, _race_log_scores)
    designed = _designed_clamp_draws(u, probs, probs.to(torch.float64).log(), _race_log_scores)
    assert designed >= probs.shape[0], "too few draws designed against a wrong clamp"
    oracle.check_score_margins(_race_log_scores(probs, u), exact)
    expected = oracle.exponential_race(probs, u)
    mistaken = _mistaken(oracle.exponential_race, (probs, u), expected, RACE_MISTAKES)
    mistaken.update(_clamp_mistaken(oracle.exponential_race, (probs, u), u, expected))
    return Case({"probs": probs, "u": u}, expected, mistaken)


def _logit_rows(rng: random.Random, batch: int, vocab: int) -> list[list[float]]:
    rows = []
    for row in range(batch):
        values = [round(rng.gauss(0.0, 1.5), 2) for _ in range(vocab)]
        if row % 2 == 0:
            values[0] = NEG_INF  # token 0 excluded: a draw of all-zero uniforms must not return it
            values[rng.randrange(1, vocab)] = NEG_INF
        rows.append(values)
    return rows


@functools.cache
def gumbel_float32() -> Case:
    """Six rows of 10 logits (-inf in three), 24 draws; draw 0 of every row has all-zero uniforms."""
    rng = random.Random(40_005)
    return _gumbel_case(torch.tensor(_logit_rows(rng, 6, 10), dtype=torch.float32), 24, torch.float32, 40_006)


@functools.cache
def gumbel_float64() -> Case:
    """Two float64 rows of 6 logits with float64 uniforms (1 - 2^-53 among them)."""
    rng = random.Random(40_007)
    return _gumbel_case(torch.tensor(_logit_rows(rng, 2, 6), dtype=torch.float64), 10, torch.float64, 40_008)


def _prob_rows(rng: random.Random, batch: int, vocab: int) -> list[list[float]]:
    rows = []
    for row in range(batch):
        values = [rng.expovariate(1.0) for _ in range(vocab)]
        if row % 2 == 0:
            values[0] = 0.0
            values[rng.randrange(1, vocab)] = 0.0
        total = sum(values)
        rows.append([v / total for v in values])
    return rows


@functools.cache
def race_float32() -> Case:
    """Six rows of 10 probabilities (zeros in three, token 0 among them), 24 draws; draw 0 all zero."""
    rng = random.Random(40_009)
    return _race_case(torch.tensor(_prob_rows(rng, 6, 10), dtype=torch.float32), 24, torch.float32, 40_010)


@functools.cache
def race_float64() -> Case:
    """Two float64 rows of 6 probabilities, float64 uniforms."""
    rng = random.Random(40_011)
    return _race_case(torch.tensor(_prob_rows(rng, 2, 6), dtype=torch.float64), 10, torch.float64, 40_012)


@functools.cache
def gumbel_mixed() -> Case:
    """gumbel_float32's uniforms (float32) on the same logits in float64: tiny is that of u's dtype,
    not of the logits' (the designed draws catch the float64 tiny)."""
    base = gumbel_float32()
    logits, u = base.kwargs["logits"].to(torch.float64), base.kwargs["u"]
    oracle.check_score_margins(_gumbel_log_scores(logits, u), {(row, 0) for row in range(logits.shape[0])})
    expected = oracle.gumbel_max(logits, u)
    mistaken = _mistaken(oracle.gumbel_max, (logits, u), expected, GUMBEL_MISTAKES)
    mistaken.update(_clamp_mistaken(oracle.gumbel_max, (logits, u), u, expected))
    return Case({"logits": logits, "u": u}, expected, mistaken)


@functools.cache
def race_mixed() -> Case:
    """race_float32's uniforms (float32) on the same probabilities in float64."""
    base = race_float32()
    probs, u = base.kwargs["probs"].to(torch.float64), base.kwargs["u"]
    oracle.check_score_margins(_race_log_scores(probs, u), {(row, 0) for row in range(probs.shape[0])})
    expected = oracle.exponential_race(probs, u)
    mistaken = _mistaken(oracle.exponential_race, (probs, u), expected, RACE_MISTAKES)
    mistaken.update(_clamp_mistaken(oracle.exponential_race, (probs, u), u, expected))
    return Case({"probs": probs, "u": u}, expected, mistaken)


def _ties_u(dtype: torch.dtype, batch: int, vocab: int) -> torch.Tensor:
    """Draws whose tokens all get the same noise (all 0, all 0.5, all the largest float below 1), so
    that the result is the first token of largest logit (or probability): a designed tie."""
    top = TOP32 if dtype == torch.float32 else TOP64
    values = [0.0, 0.5, top, 0.25]
    return torch.tensor([[[v] * vocab for v in values] for _ in range(batch)], dtype=dtype)


TIED_LOGITS = [
    [0.5, 1.25, NEG_INF, 1.25, 1.25, -0.5],
    [NEG_INF, 2.0, 2.0, 0.0, NEG_INF, 2.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
]
TIED_PROBS = [[0.1, 0.25, 0.0, 0.25, 0.25, 0.15], [0.0, 0.3, 0.3, 0.1, 0.0, 0.3], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]


@functools.cache
def gumbel_ties() -> Case:
    """Rows whose largest logit is shared by several tokens, with draws that give every token the same
    noise: ties go to the first of them."""
    logits = torch.tensor(TIED_LOGITS, dtype=torch.float32)
    u = _ties_u(torch.float32, *logits.shape)
    expected = oracle.gumbel_max(logits, u)
    case = Case(
        {"logits": logits, "u": u}, expected, _mistaken(oracle.gumbel_max, (logits, u), expected, GUMBEL_MISTAKES)
    )
    assert MISTAKES["ties_not_first"] in case.mistaken
    return case


@functools.cache
def race_ties() -> Case:
    """The same for the race: several tokens share the largest probability."""
    probs = torch.tensor(TIED_PROBS, dtype=torch.float64)
    u = _ties_u(torch.float64, *probs.shape)
    expected = oracle.exponential_race(probs, u)
    case = Case(
        {"probs": probs, "u": u}, expected, _mistaken(oracle.exponential_race, (probs, u), expected, RACE_MISTAKES)
    )
    assert MISTAKES["ties_not_first"] in case.mistaken
    return case


# --- the alias method ------------------------------------------------------------------------------


@functools.cache
def alias_rows() -> torch.Tensor:
    """Twelve-token rows of every kind: random with zeros, uniform, one-hot, dyadic, integer
    weights, a huge and tiny mix, one token of zero at each end."""
    rng = random.Random(40_013)
    random_rows = _prob_rows(rng, 2, 12)
    rows = [
        random_rows[0],
        random_rows[1],
        [1.0] * 12,
        [0.0] * 5 + [1.0] + [0.0] * 6,
        [
            0.5,
            0.25,
            0.125,
            0.0625,
            0.03125,
            0.015625,
            0.0078125,
            0.00390625,
            0.001953125,
            0.0009765625,
            0.00048828125,
            0.00048828125,
        ],
        [3.0, 0.0, 1.0, 7.0, 2.0, 0.0, 5.0, 1.0, 1.0, 4.0, 0.0, 8.0],
        [1e6, 1e-3, 2.0, 1e-6, 5e5, 3.0, 1e-3, 0.5, 7.0, 1e-4, 2e5, 1.0],
        [0.0, *[rng.uniform(0.1, 1.0) for _ in range(10)], 0.0],
    ]
    return torch.tensor(rows, dtype=torch.float32)


@functools.cache
def alias_long_rows() -> torch.Tensor:
    """Two float64 rows of 300 tokens (a Zipf-like tail and a fifth of zeros)."""
    rng = random.Random(40_014)
    zipf = [1.0 / (rank**1.1) for rank in range(1, 301)]
    rng.shuffle(zipf)
    sparse = [0.0 if rng.random() < 0.2 else rng.expovariate(1.0) for _ in range(300)]
    return torch.tensor([zipf, sparse], dtype=torch.float64)


def alias_mistaken(probs: torch.Tensor) -> dict:
    """Diagnosis -> the implied distribution of the table each known build mistake makes."""
    return {
        MISTAKES[name]: oracle.implied(*oracle.build_alias(probs, name))
        for name in ("alias_off_by_one_cell", "alias_unnormalised")
    }


DRAW_MISTAKES = ["alias_coin_le", "alias_swapped", "alias_one_uniform"]


@functools.cache
def alias_draw_case() -> Case:
    """Tables of four random 10-token rows with zeros (accept 0 cells), 40 draws each: coins of
    exactly 0 on the empty cells, column uniforms of 0 and 1 - 2^-24, the rest with margins."""
    rng = random.Random(40_015)
    probs = torch.tensor(_prob_rows(rng, 4, 10), dtype=torch.float32)
    probs[1, 9] = 0.0
    probs[3, 4] = 0.0
    accept, alias = oracle.build_alias(probs)
    batch, vocab = probs.shape
    draws = 40
    column_u = torch.zeros(batch, draws, dtype=torch.float32)
    coin_u = torch.zeros(batch, draws, dtype=torch.float32)
    exact = torch.zeros(batch, draws, dtype=torch.bool)
    for row in range(batch):
        empty = (accept[row] == 0).nonzero().flatten().tolist()
        for draw in range(draws):
            if draw < len(empty):  # a coin of 0 on a cell that holds only its alias
                column_u[row, draw] = (empty[draw] + 0.5) / vocab
                coin_u[row, draw] = 0.0
                exact[row, draw] = True
                continue
            if draw in (len(empty), len(empty) + 1):  # the first and the last column
                column_u[row, draw] = 0.0 if draw == len(empty) else TOP32
                exact[row, draw] = True
                coin_u[row, draw] = (
                    0.5 if abs(0.5 - float(accept[row, 0 if draw == len(empty) else -1])) > 1e-3 else 0.25
                )
                continue
            while True:
                cu = float(torch.tensor(rng.random(), dtype=torch.float32))
                co = float(torch.tensor(rng.random(), dtype=torch.float32))
                scaled = cu * vocab
                column = min(int(scaled), vocab - 1)
                if (
                    abs(scaled - round(scaled)) >= oracle.COIN_MARGIN * vocab
                    and abs(co - float(accept[row, column])) >= oracle.COIN_MARGIN
                ):
                    column_u[row, draw], coin_u[row, draw] = cu, co
                    break
    oracle.check_alias_margins(accept, column_u, coin_u, exact)
    expected = oracle.alias_draw(accept, alias, column_u, coin_u)
    args = (accept, alias, column_u, coin_u)
    return Case(
        {"accept": accept, "alias": alias, "column_u": column_u, "coin_u": coin_u},
        expected,
        _mistaken(oracle.alias_draw, args, expected, DRAW_MISTAKES),
    )


# --- sample: rows for the statistical checks ----------------------------------------------------------


@functools.cache
def sample_rows() -> torch.Tensor:
    """Four rows of 8 tokens for ``sample``: zeros at the ends and inside, an uneven row, a flat-ish
    row, and row 3 a copy of row 0 (the twins of the independence check)."""
    first = [0.0, 0.05, 0.3, 0.0, 0.15, 0.25, 0.25, 0.0]
    return torch.tensor(
        [first, [0.02, 0.08, 0.1, 0.2, 0.3, 0.15, 0.1, 0.05], [0.1, 0.12, 0.14, 0.16, 0.1, 0.12, 0.14, 0.12], first],
        dtype=torch.float32,
    )


@functools.cache
def extreme_rows() -> torch.Tensor:
    """Rows where the boundary uniforms bite: zeros first and last, a float32 row summing below 1, and
    weights (sum 19) whose cumulative sum, divided by the sum first, ends at 1 - 2^-52."""
    return torch.tensor(
        [
            [0.0, 0.4, 0.0, 0.6, 0.0, 0.0],
            [0.0, 0.25, 0.25, 0.25, 0.25 - 2.0**-23, 0.0],
            [0.0, 0.0, 0.5, 0.5, 0.0, 0.0],
            [5.0, 8.0, 5.0, 1.0, 0.0, 0.0],
        ],
        dtype=torch.float32,
    )
