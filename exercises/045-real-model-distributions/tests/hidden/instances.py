"""Exercise 45's generated cases: rows that are not "nice", drawn under the case's seed.

Judge side only. Each builder takes a ``random.Random`` (seeded with ``ctx.fresh_seed``) and returns
the tensors the learner gets, the answers of ``oracle.py`` on exactly those tensors, and row labels
whose public part quotes no value. What each instance promises is verified when it is built:

* ``tokens_for_mass``: every row keeps ``oracle.MASS_MARGIN`` from its cut, except the statement's
  exact ties (finite logits all 0, n = 1, 2, 4 or 16 of them, ``mass`` a multiple of 1/n), which
  land on it exactly; rows are random non-dyadic weights, ties (some at the cut), exact zeros (-inf)
  beside probabilities of 1e-25, single tokens, large logits; temperatures are an int, a float or a
  per-row tensor of either dtype with logits of either dtype.
* ``entropy``, ``acceptance_rate`` and ``total_variation``: the same kinds of rows, low temperatures
  (logits / T in the hundreds), target and draft rows with equal, nested and disjoint supports.
* ``fake_quantize_int4``: groups of every scale from 2^-100 to 2^30 (the scale of a tiny group is far
  below any epsilon a learner clamps to), exact halves in groups of exact scale (max|w| = 7 x 2^k), all-
  zero groups, single entries, a negative largest entry, group sizes that are not powers of two.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import torch

from judge.checks.base import Label
from judge.i18n import Bilingual

from . import oracle

INF = float("inf")
# The statement's exact ties: every usual computation gives exactly 1/n, in float32 and float64 (8 is
# not among them: log_softmax(...).exp() gives 0.12500000000000003 in float64).
TIE_SIZES = (1, 2, 4, 16)
SIXTEENTHS = 16
_TRIES = 200  # draws of a row before giving up on its margin (none comes close: a margin of 1e-4 is rare)


def _label(text: str, en: str, zh: str) -> Label:
    return Label(text, Bilingual(en, zh))


# --- rows of logits --------------------------------------------------------------------------------


def _weights_row(rng: random.Random, vocab: int) -> list[float]:
    """Logits of random non-dyadic weights (log w, w = u^3), about a fifth of them -inf, a tie or two."""
    row = [math.log(rng.random() ** 3 + 1e-6) for _ in range(vocab)]
    for _ in range(rng.randint(1, 2)):  # ties: a value copied onto other tokens
        value = rng.choice(row)
        for v in rng.sample(range(vocab), rng.randint(1, 3)):
            row[v] = value
    largest = max(range(vocab), key=row.__getitem__)
    for v in rng.sample(range(vocab), vocab // 5):
        if v != largest:
            row[v] = -INF
    return row


def _tiny_row(rng: random.Random, vocab: int, temperature: float) -> list[float]:
    """A few tokens of ordinary weight, one of probability about 1e-25 at ``temperature`` beside exact
    zeros (-inf)."""
    row = [-INF] * vocab
    live = rng.sample(range(vocab), min(vocab, rng.randint(2, 5)))
    for v in live[:-1]:
        row[v] = rng.uniform(-1.0, 1.0)
    row[live[-1]] = temperature * math.log(1e-25)  # about 1e-25 of the mass once tempered
    return row


def _single_row(rng: random.Random, vocab: int) -> list[float]:
    row = [-INF] * vocab
    row[rng.randrange(vocab)] = rng.uniform(-5.0, 5.0)
    return row


def _tie_row(rng: random.Random, vocab: int, n: int) -> list[float]:
    """The statement's exact ties: n logits 0, the others -inf."""
    row = [-INF] * vocab
    for v in rng.sample(range(vocab), n):
        row[v] = 0.0
    return row


def _cut_tie_row(rng: random.Random, vocab: int) -> list[float]:
    """A leader and a block of tied tokens behind it, so that a cut may fall inside the block."""
    row = [rng.uniform(-6.0, -2.0) for _ in range(vocab)]
    block = rng.sample(range(vocab), min(vocab - 1, rng.randint(3, 6)))
    tied = rng.uniform(-1.0, 0.0)
    for v in block:
        row[v] = tied
    leader = rng.choice([v for v in range(vocab) if v not in block])
    row[leader] = tied + rng.uniform(0.3, 2.0)
    return row


def _large_row(rng: random.Random, vocab: int, dtype: torch.dtype) -> list[float]:
    """Large logits: a float64 row near 1000, a float32 one near 30 (float32 keeps ~1e-6 there)."""
    base = 1000.0 if dtype == torch.float64 else 30.0
    return [base + rng.uniform(-3.0, 3.0) for _ in range(vocab)]


# Each call's (logits dtype, temperature form): every form with each dtype of logits somewhere. The
# mass of a tokens_for_mass call is j/16 (the exact ties land on it), but for the last call's, which is
# any number in (0.05, 0.95) (the ties then keep the margin too).
# The first call's j is a multiple of 4 (4 and 16 ties land on it, 2 as well at j = 8).
SIXTEENTHS_OF_CALL = ((4, 8, 12), tuple(range(1, 16)), tuple(range(1, 16)), ())
MASS_CALLS = (
    (torch.float32, "tensor64"),
    (torch.float64, "float"),
    (torch.float64, "int"),
    (torch.float32, "tensor32"),
)
ENTROPY_CALLS = (
    (torch.float64, "float"),
    (torch.float32, "tensor64"),
    (torch.float64, "tensor32"),
    (torch.float32, "low64"),
)
PAIR_CALLS = ((torch.float32, "int"), (torch.float64, "tensor32"), (torch.float32, "float"), (torch.float64, "low32"))


def _temperature(rng: random.Random, rows: int, form: str):
    """(what the learner gets, float64 [B] as it holds it): ``form`` "float" (a non-dyadic number),
    "int", "tensor32"/"tensor64" (a per-row tensor of that dtype), "low32"/"low64" (per-row
    temperatures of 0.01 to 0.05: logits / T in the hundreds)."""
    if form == "float":
        t = round(rng.uniform(0.5, 2.5), 3) + 0.0001  # never a power of two: float32 would round it
        return t, torch.full((rows,), t, dtype=torch.float64)
    if form == "int":
        t = rng.randint(1, 3)
        return t, torch.full((rows,), float(t), dtype=torch.float64)
    low, high = (0.01, 0.05) if form.startswith("low") else (0.5, 2.5)
    dtype = torch.float32 if form.endswith("32") else torch.float64
    given = torch.tensor([round(rng.uniform(low, high), 4) for _ in range(rows)], dtype=dtype)
    return given, given.to(torch.float64)


def _row_labels(kinds: list[tuple[str, str, str]], temps: torch.Tensor) -> list[Label]:
    return [_label(f"{en}, T = {t:.6g}", en, zh) for (_, en, zh), t in zip(kinds, temps.tolist(), strict=True)]


# --- tokens_for_mass -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MassInstance:
    logits: torch.Tensor  # [B, V], float32 or float64
    temperature: float | int | torch.Tensor  # as the learner gets it
    temperatures: torch.Tensor  # float64 [B], as the learner's tensor holds it
    mass: float
    labels: list[Label]
    expected: list[int]
    exact_rows: list[int]  # the statement's exact ties that land on the mass


_MASS_KINDS = {
    "weights": ("random weights with ties and exact zeros", "含并列与精确零的随机权重"),
    "tiny": ("a probability of 1e-25 beside exact zeros", "与精确零相邻的 1e-25 概率"),
    "single": ("a single finite logit", "只有一个有限 logit"),
    "cut_tie": ("tied tokens at the cut", "截断处的并列 token"),
    "large": ("large logits", "很大的 logits"),
}


def mass_instance(rng: random.Random, dtype: torch.dtype, form: str, *, sixteenths: tuple[int, ...]) -> MassInstance:
    """One call of ``tokens_for_mass``: twelve rows, every kind, and the statement's exact ties; the mass
    j/16 for j drawn from ``sixteenths``, or (none given) any number with six decimals."""
    vocab = rng.randint(16, 40)
    mass = rng.choice(sixteenths) / SIXTEENTHS if sixteenths else round(rng.uniform(0.05, 0.95), 6)
    kinds: list[tuple[str, str, str]] = []
    rows: list[list[float]] = []
    exact: list[int] = []
    for n in TIE_SIZES:
        rows.append(_tie_row(rng, vocab, n))
        kinds.append(("tie", f"{n} tied logits 0", f"{n} 个并列的 0 logit"))
    for kind in list(_MASS_KINDS) + rng.sample(list(_MASS_KINDS), 2):  # every kind, two of them twice
        en, zh = _MASS_KINDS[kind]
        kinds.append((kind, en, zh))
        rows.append([])  # drawn below, once the temperatures are known
    temperature, temps = _temperature(rng, len(rows), form)
    for i, (kind, _, _) in enumerate(kinds):
        if kind == "tie":
            continue
        for _ in range(_TRIES):
            row = _draw(rng, kind, vocab, dtype, float(temps[i]))
            logits = torch.tensor([row], dtype=dtype)
            if float(oracle.mass_margin(logits, temps[i : i + 1], mass)[0]) >= 2 * oracle.MASS_MARGIN:
                rows[i] = row
                break
        else:
            raise oracle.AmbiguousCase(f"no {kind} row keeps the margin at mass {mass}")
    logits = torch.tensor(rows, dtype=dtype)
    margins = oracle.mass_margin(logits, temps, mass)
    for i, (kind, _, _) in enumerate(kinds):
        if kind == "tie":
            n = TIE_SIZES[i]
            if float(margins[i]) == 0.0 and (mass * n) == int(mass * n):
                exact.append(i)
            elif float(margins[i]) < oracle.MASS_MARGIN:  # a non-dyadic mass next to a multiple of 1/n
                raise oracle.AmbiguousCase(f"{n} ties come within {float(margins[i]):.2e} of mass {mass}")
    expected = oracle.tokens_for_mass(logits, temps, mass).tolist()
    return MassInstance(logits, temperature, temps, mass, _row_labels(kinds, temps), expected, exact)


def _draw(rng: random.Random, kind: str, vocab: int, dtype: torch.dtype, temperature: float) -> list[float]:
    if kind == "weights":
        return _weights_row(rng, vocab)
    if kind == "tiny":
        return _tiny_row(rng, vocab, temperature)
    if kind == "single":
        return _single_row(rng, vocab)
    if kind == "cut_tie":
        return _cut_tie_row(rng, vocab)
    return _large_row(rng, vocab, dtype)


def mass_instances(rng: random.Random) -> list[MassInstance]:
    """One instance per entry of ``MASS_CALLS``; a draw whose non-dyadic mass falls next to a tie's
    multiple of 1/n is drawn again."""
    out: list[MassInstance] = []
    for i, (dtype, form) in enumerate(MASS_CALLS):
        for _ in range(_TRIES):
            try:
                out.append(mass_instance(rng, dtype, form, sixteenths=SIXTEENTHS_OF_CALL[i]))
                break
            except oracle.AmbiguousCase:
                continue
        else:
            raise oracle.AmbiguousCase("no tokens_for_mass instance keeps its margins")
    return out


# --- entropy ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowsInstance:
    """Rows of logits (one tensor, or a target and a draft) and their temperatures."""

    logits: torch.Tensor
    temperature: float | int | torch.Tensor
    temperatures: torch.Tensor
    labels: list[Label]
    draft: torch.Tensor | None = None


def _large_shift(row: list[float], low: bool, dtype: torch.dtype) -> float:
    """What a "large" row of an entropy call comes down by: its maximum at low temperatures, 900 in float64."""
    if low:
        return max(row)
    return 900.0 if dtype == torch.float64 else 0.0


def entropy_instances(rng: random.Random) -> list[RowsInstance]:
    """One call per entry of ``ENTROPY_CALLS``: every kind of row, the last at low temperatures."""
    out = []
    for dtype, form in ENTROPY_CALLS:
        low = form.startswith("low")
        vocab = rng.randint(6, 30)
        kinds = [(k, *_MASS_KINDS[k]) for k in list(_MASS_KINDS) + rng.sample(list(_MASS_KINDS), 3)]
        kinds += [("tie", "4 tied logits 0", "4 个并列的 0 logit")]
        temperature, temps = _temperature(rng, len(kinds), form)
        rows = [
            _tie_row(rng, vocab, 4) if kind == "tie" else _draw(rng, kind, vocab, dtype, t)
            for (kind, _, _), t in zip(kinds, temps.tolist(), strict=True)
        ]
        # An entropy computed as logsumexp(y) - sum p y (legal) loses |y| x 1e-16 per token: float64 rows
        # near 1000 over T = 0.5 would take it past the 1e-10 tolerance, so they come down to about 100
        # (about 0 at low temperatures: logits / T in the hundreds, not the tens of thousands).
        rows = [
            [x - _large_shift(row, low, dtype) for x in row] if kind == "large" else row
            for row, (kind, _, _) in zip(rows, kinds, strict=True)
        ]
        out.append(RowsInstance(torch.tensor(rows, dtype=dtype), temperature, temps, _row_labels(kinds, temps)))
    return out


# --- acceptance_rate and total_variation -----------------------------------------------------------


_PAIR_KINDS = {
    "equal": ("equal rows", "相同的行"),
    "disjoint": ("disjoint supports", "支撑集不相交"),
    "nested": ("the draft's support inside the target's", "草稿的支撑集包含于目标的支撑集"),
    "different": ("random weights, -inf in one row only", "随机权重，-inf 只出现在一行中"),
    "tiny": ("a probability of 1e-25 beside exact zeros", "与精确零相邻的 1e-25 概率"),
}


def _pair_rows(rng: random.Random, kind: str, vocab: int, temperature: float) -> tuple[list[float], list[float]]:
    if kind == "equal":
        row = _weights_row(rng, vocab)
        return row, list(row)
    if kind == "disjoint":
        split = rng.sample(range(vocab), vocab)
        cut = rng.randint(1, vocab - 1)
        target, draft = [-INF] * vocab, [-INF] * vocab
        for v in split[:cut]:
            target[v] = rng.uniform(-2.0, 2.0)
        for v in split[cut:]:
            draft[v] = rng.uniform(-2.0, 2.0)
        return target, draft
    if kind == "nested":
        target = [rng.uniform(-2.0, 2.0) for _ in range(vocab)]
        draft = list(target)
        keep = rng.randrange(vocab)
        for v in rng.sample(range(vocab), vocab // 2):
            if v != keep:
                draft[v] = -INF
        draft[keep] += rng.uniform(-0.5, 0.5)
        return target, draft
    if kind == "tiny":
        return _tiny_row(rng, vocab, temperature), _tiny_row(rng, vocab, temperature)
    return _weights_row(rng, vocab), [rng.uniform(-3.0, 1.0) for _ in range(vocab)]


def pair_instances(rng: random.Random) -> list[RowsInstance]:
    """One call per entry of ``PAIR_CALLS``: every kind of target and draft row, the last at low temperatures."""
    out = []
    for dtype, form in PAIR_CALLS:
        vocab = rng.randint(4, 30)
        kinds = [(k, *_PAIR_KINDS[k]) for k in list(_PAIR_KINDS) + rng.sample(list(_PAIR_KINDS), 3)]
        temperature, temps = _temperature(rng, len(kinds), form)
        pairs = [_pair_rows(rng, kind, vocab, t) for (kind, _, _), t in zip(kinds, temps.tolist(), strict=True)]
        out.append(
            RowsInstance(
                torch.tensor([t for t, _ in pairs], dtype=dtype),
                temperature,
                temps,
                _row_labels(kinds, temps),
                draft=torch.tensor([d for _, d in pairs], dtype=dtype),
            )
        )
    return out


# --- fake_quantize_int4 ----------------------------------------------------------------------------


@dataclass(frozen=True)
class WeightInstance:
    weight: torch.Tensor  # [out, in], float32 or float64
    group_size: int
    zero_groups: torch.Tensor  # bool [out, in]: the elements of all-zero groups
    description: str


GROUP_SIZES = (1, 3, 5, 7, 12, 16, 24, 32)
SCALES = (0, 0, 0, -30, -100, 30)  # powers of two a group is scaled by: 2^-100 is far below any epsilon


def _group(rng: random.Random, kind: str, size: int) -> list[float]:
    if kind == "zero":
        return [0.0] * size
    if kind == "small":  # a scale between 2^-28 and 2^-27 (4e-9 to 7e-9): just below a clamp at 1e-8
        values = [rng.uniform(-1.0, 1.0) for _ in range(size)]
        top = max(range(size), key=lambda i: abs(values[i]))
        values[top] = 1.0 if values[top] >= 0 else -1.0
        return [v * 7.0 * 2.0**-28 * rng.uniform(1.0, 1.9) for v in values]
    if kind == "halves":  # max|w| = 7 x 2^k, the others (m + 1/2) 2^k or m 2^k: the exact halves
        k = rng.randint(-60, 20)
        values = [(rng.randint(-7, 6) + rng.choice((0.5, 0.5, 0.0))) * 2.0**k for _ in range(size)]
        values[rng.randrange(size)] = rng.choice((7.0, -7.0)) * 2.0**k
        return values
    if kind == "single":
        values = [0.0] * size
        values[rng.randrange(size)] = rng.gauss(0.0, 1.0)
        return values
    scale = 10.0 ** rng.uniform(-2.0, 0.5) * 2.0 ** rng.choice(SCALES)
    values = [rng.gauss(0.0, 1.0) * scale for _ in range(size)]
    if kind == "negative_max":  # the largest magnitude is negative: max(w) / 7 is not the scale
        at = max(range(size), key=lambda i: abs(values[i]))
        values[at] = -abs(values[at]) * 1.5 - scale
    return values


def weight_instances(rng: random.Random) -> list[WeightInstance]:
    """Four weights: every kind of group, in float32 and float64, group sizes that are not powers of two."""
    out = []
    for size in rng.sample(GROUP_SIZES, 4):
        dtype = rng.choice((torch.float32, torch.float64))
        rows, groups = rng.randint(2, 6), rng.randint(3, 5)
        kinds = ("random", "halves", "zero", "single", "negative_max", "small")
        # Every kind once in each weight (at random places: 6 groups at least), the others drawn at random.
        cells = [(r, g) for r in range(rows) for g in range(groups)]
        forced = dict(zip(rng.sample(cells, len(kinds)), kinds, strict=True))
        values, zero = [], []
        for r in range(rows):
            row, mask = [], []
            for g in range(groups):
                kind = forced.get((r, g)) or rng.choice(kinds)
                row += _group(rng, kind, size)
                mask += [kind == "zero"] * size
            values.append(row)
            zero.append(mask)
        weight = torch.tensor(values, dtype=dtype)
        out.append(
            WeightInstance(weight, size, torch.tensor(zero), f"a generated {rows} x {len(values[0])} {dtype} weight")
        )
    return out
