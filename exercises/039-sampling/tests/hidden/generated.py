"""Exercise 39's generated calls: rows drawn afresh under each case's seed, in the classes a fixed list
of "nice" rows misses.

Each family below is a class of rows a statement sentence speaks of, not one example of it:

* ``nondyadic``: float64 logits of full precision (no rounding), so the probabilities are non-dyadic
  and a row's ``sum()`` and its cumulative sum's last entry differ in the last bits; often a last
  token at -inf.
* ``tiny``: a token of probability 1e-23 to 1e-26 beside exact zeros (-inf logits): it stays in play,
  so ``sampling_probs`` must keep it positive, and the -inf ones must stay 0.
* ``tie``: ties made five ways: a block of equal logits around the top-k cut (K inside the block),
  tied maxima with top_k = 1 (``top1``: always that way), tied maxima under min-p, a tie at the top-k
  cut beside -inf logits, and tied maxima at temperature 0.
* ``ratio``: float64 logits that are logarithms of whole numbers: probabilities in whole-number ratios
  (3/17, 5/17, ...), none of them dyadic, with top-p and min-p cuts between them.
* ``near``: one decision (top-k, top-p or min-p) at a relative distance between 1.05e-3 and 1.5e-3 from
  its threshold: just outside the statement's 1e-3 "near a threshold" rule, so it is decided.
* ``cold``: a positive temperature between 1e-30 and 1e-6 on tied maxima: they share the mass (only
  temperature 0 is greedy); at times (``cold_big``: always) logits near 2.5e8 at T ~ 1e-30, where a
  shift by the row's maximum the wrong way overflows.
* ``tail``: one logit 44 to 48 above the others, every filter off: the rest have probabilities near
  1e-20, so a running total reaches 1 before them (in float32 and float64), and top_p = 1 must still cut none.
* ``greedy``: temperature 0 with tied maxima and other (valid) parameters.
* ``order:MISTAKE``: two or three filters together, drawn until the named mistake of the order of the
  steps (min-p first, top-p before top-k, the temperature after the filters, min-p against the
  maximum before renormalizing) keeps or drops another token than the statement's order.

Every row is checked with the oracle at the statement's margin (:data:`oracle.STATED_MARGIN`) and
drawn again when a decision falls inside it; ``near`` rows must also sit within 1.6e-3 of it. The calls
mix the dtypes of their arguments (float32 logits with float64 parameter tensors and the reverse, Python
ints where a number is allowed), as the statement allows.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from judge.checks.base import Label
from judge.i18n import Bilingual

from .cases import Batch
from .oracle import (
    DISTRIBUTION_MISTAKES,
    STATED_MARGIN,
    AmbiguousCase,
    RowParams,
    mistaken,
    smallest_margin,
    target,
)

NEG_INF = float("-inf")
JUST_OUTSIDE = (1.05e-3, 1.5e-3)  # where the ``near`` rows put their closest decision
NEAR_LIMIT = 1.6e-3  # ... verified: inside STATED_MARGIN is refused, beyond this the row is drawn again
# Draws of a row before giving up, an internal error. The rarest row (one that temperature after
# the filters changes, V = 6) takes 35 draws on average: 200 gave up once in 300 such calls, a
# correct submission's IE; 10 000 never does (e^-285), and only the rare long tail pays for it.
ATTEMPTS = 10_000

# A probability at least this large is representable in the dtype, far from underflow: a token of it
# still in play must come back positive (the statement: only a value below finfo.tiny may round to 0).
FLOOR = {torch.float32: 1e6 * torch.finfo(torch.float32).tiny, torch.float64: 1e6 * torch.finfo(torch.float64).tiny}

Row = tuple[list[float], RowParams, str]  # logits, the exact parameters, the family


@dataclass
class Call(Batch):
    """A generated call: a :class:`~.cases.Batch` whose parameters are passed as ``passed`` says
    (tensors of some dtype, or Python numbers), with ``families`` naming each row's class."""

    passed: dict[str, Any] = field(default_factory=dict)
    families: list[str] = field(default_factory=list)

    def arguments(self) -> dict[str, Any]:
        return {
            name: value.clone() if isinstance(value, torch.Tensor) else value for name, value in self.passed.items()
        }


FAMILY_NAMES = {
    "nondyadic": ("non-dyadic float64 logits", "非二进制有理数的 float64 logits"),
    "tiny": ("a tiny probability beside exact zeros", "精确的 0 旁边有一个极小的概率"),
    "tie": ("tied logits", "logits 并列"),
    "ratio": ("probabilities in whole-number ratios", "概率之比为整数比"),
    "near": ("a decision just outside the margin", "刚好在判定余量之外的判断"),
    "cold": ("a tiny positive temperature on tied maxima", "并列最大值上的极小正温度"),
    "tail": ("top_p = 1 over a tail of tiny probabilities", "极小概率组成的长尾上 top_p = 1"),
    "greedy": ("temperature 0 with tied maxima", "温度为 0 且最大值并列"),
    "order": ("top-k, top-p and min-p together", "top-k、top-p 与 min-p 同时使用"),
}
# The mistakes of the steps' order an ``order`` row separates from the statement's order.
ORDER_MISTAKES = ("min_p_softmax_max", "min_p_first", "filters_reordered", "temperature_after_filters")
NAMED_BY_ORDER_ROWS = ("min_p_softmax_max", "temperature_after_filters")  # ... alone: no other listed mistake fits


def _label(family: str, params: RowParams) -> Label:
    en, zh = FAMILY_NAMES[family.partition(":")[0]]
    return Label(f"{en}: {params.describe()}", Bilingual(en, zh))


def _distinct(rng: random.Random, count: int, low: float = -2.5, high: float = 2.5, gap: float = 0.06) -> list[float]:
    """``count`` logits at least ``gap`` apart (no accidental near-ties)."""
    while True:
        values = sorted(rng.uniform(low, high) for _ in range(count))
        if all(b - a >= gap for a, b in zip(values, values[1:], strict=False)):
            rng.shuffle(values)
            return values


def _filters(rng: random.Random, vocab: int) -> dict[str, Any]:
    """A random mix of filters (each on or off)."""
    out: dict[str, Any] = {}
    if rng.random() < 0.5:
        out["top_k"] = rng.randint(1, vocab - 1)
    if rng.random() < 0.5:
        out["top_p"] = rng.uniform(0.45, 0.95)
    if rng.random() < 0.4:
        out["min_p"] = rng.uniform(0.02, 0.35)
    return out


def nondyadic(rng: random.Random, vocab: int) -> Row:
    z = [rng.uniform(-3.0, 3.0) for _ in range(vocab)]
    if rng.random() < 0.6:
        z[-1] = NEG_INF
    params = RowParams(temperature=rng.choice([1.0, rng.uniform(0.5, 1.8)]), **_filters(rng, vocab))
    return z, params, "nondyadic"


def tiny(rng: random.Random, vocab: int) -> Row:
    z = _distinct(rng, vocab)
    top = max(z)
    order = list(range(vocab))
    rng.shuffle(order)
    small = next(i for i in order if z[i] != top)
    z[small] = top - rng.uniform(52.0, 60.0)  # probability ~1e-23 .. 1e-26
    others = [i for i in order if i != small and z[i] != top]
    for i in others[: rng.randint(1, max(1, len(others) // 2))]:  # at least one exact zero
        z[i] = NEG_INF
    return z, RowParams(temperature=1.0), "tiny"


def tie(rng: random.Random, vocab: int, way: str | None = None) -> Row:
    way = way or rng.choice(["block", "top1", "min_p", "neginf", "greedy"])
    z = _distinct(rng, vocab, gap=0.12)
    order = sorted(range(vocab), key=lambda i: -z[i])
    temperature = rng.choice([1.0, rng.uniform(0.6, 1.6)])
    if way in ("block", "neginf"):
        rank = rng.randint(1, vocab - 3)
        size = rng.randint(2, min(3, vocab - rank - 1))
        for i in order[rank + 1 : rank + size]:
            z[i] = z[order[rank]]
        if way == "neginf":
            for i in order[rank + size :]:
                if rng.random() < 0.5:
                    z[i] = NEG_INF
        k = rank + 1 + rng.randint(0, size - 1)  # the k-th largest sits inside the tied block
        return z, RowParams(temperature=temperature, top_k=k), "tie"
    for i in order[1 : rng.randint(2, 3)]:
        z[i] = z[order[0]]
    if way == "top1":
        return z, RowParams(temperature=temperature, top_k=1), "tie"
    if way == "min_p":
        return z, RowParams(temperature=temperature, min_p=rng.uniform(0.5, 0.9)), "tie"
    return z, RowParams(temperature=0.0, **_filters(rng, vocab)), "tie"


def ratio(rng: random.Random, vocab: int) -> Row:
    weights = [rng.randint(1, 12) for _ in range(vocab)]
    z = [math.log(w) for w in weights]
    params = RowParams(top_p=rng.uniform(0.3, 0.9), min_p=rng.choice([0.0, rng.uniform(0.1, 0.5)]))
    return z, params, "ratio"


def cold(rng: random.Random, vocab: int, big: bool | None = None) -> Row:
    z = _distinct(rng, vocab)
    order = sorted(range(vocab), key=lambda i: -z[i])
    for i in order[1 : rng.randint(2, 3)]:
        z[i] = z[order[0]]
    temperature = 10.0 ** rng.uniform(-30.0, -6.0)
    if big if big is not None else rng.random() < 0.5:
        # Logits near 2.5e8 at T ~ 1e-30: z / T ~ 2.5e38 still fits float32, but a shift the wrong way
        # (z + max) overflows; subtracting the row's maximum first never does.
        z = [v * 1e3 + 2.5e8 for v in z]
        temperature = rng.uniform(1.0, 1.3) * 1e-30
    return z, RowParams(temperature=temperature, top_k=rng.choice([0, 1, 2])), "cold"


def tail(rng: random.Random, vocab: int) -> Row:
    z = [rng.gauss(0.0, 1.0) for _ in range(vocab)]
    z[rng.randrange(vocab)] = 44.0 + rng.uniform(0.0, 4.0)
    return z, RowParams(temperature=1.0), "tail"


def greedy(rng: random.Random, vocab: int) -> Row:
    z = _distinct(rng, vocab)
    order = sorted(range(vocab), key=lambda i: -z[i])
    for i in order[1 : rng.randint(1, 3)]:
        z[i] = z[order[0]]
    return z, RowParams(temperature=0.0, **_filters(rng, vocab)), "greedy"


def near(rng: random.Random, vocab: int) -> Row:
    """A row whose closest decision sits just outside the statement's margin (``JUST_OUTSIDE``)."""
    delta = rng.uniform(*JUST_OUTSIDE)
    temperature = rng.choice([1.0, rng.uniform(0.6, 1.5)])
    z = _distinct(rng, vocab, gap=0.15)
    kind = rng.choice(["top_k", "top_p", "min_p"])
    if kind == "top_k":
        order = sorted(range(vocab), key=lambda i: -z[i])
        k = rng.randint(1, vocab - 2)
        z[order[k]] = z[order[k - 1]] + temperature * math.log(1.0 - delta)  # p_(k+1) = p_(k) (1 - delta)
        return z, RowParams(temperature=temperature, top_k=k), "near"
    probs = torch.softmax(torch.tensor(z, dtype=torch.float64) / temperature, dim=0)
    ordered = torch.sort(probs, descending=True).values
    if kind == "top_p":
        crossing = rng.randint(1, vocab - 2)
        before = float(ordered[:crossing].sum())
        after = before + float(ordered[crossing])
        top_p = before / (1.0 - delta) if rng.random() < 0.5 else after / (1.0 + delta)
        return z, RowParams(temperature=temperature, top_p=top_p), "near"
    token = rng.randint(1, vocab - 1)
    sign = rng.choice([1.0, -1.0])
    min_p = float(ordered[token] / (ordered[0] * (1.0 + sign * delta)))
    return z, RowParams(temperature=temperature, min_p=min_p), "near"


def order(rng: random.Random, vocab: int, mistake: str) -> Row:
    """Two or three filters whose result ``mistake`` (one of ``ORDER_MISTAKES``) changes: some token
    is kept by one and dropped by the other (see ``NAMED_BY_ORDER_ROWS``)."""
    for _ in range(ATTEMPTS):
        z = _distinct(rng, vocab)
        top_k = rng.choice([0, rng.randint(2, vocab - 1)])
        params = RowParams(rng.uniform(0.6, 1.8), top_k, rng.uniform(0.5, 0.95), rng.uniform(0.1, 0.5))
        logits = torch.tensor([z], dtype=torch.float64)
        if mistake == "min_p_softmax_max":
            params = _min_p_between(rng, logits, params)
            if params is None:
                continue
        right = target(logits, [params], check_margins=False).probs[0]
        wrong = mistaken(logits, [params], mistake)[0]
        # Another support than the target's; for the mistakes no frozen row names, another output than
        # every other listed mistake's too, so that the row names it alone (a lower min-p cut that drops
        # nothing would equal "min-p ignored"). The other two coincide with some listed mistake on
        # almost every single row: the frozen combined row names them.
        others = (mistaken(logits, [params], name)[0] for name in DISTRIBUTION_MISTAKES if name != mistake)
        if not torch.equal(wrong > 0, right > 0) and (
            mistake not in NAMED_BY_ORDER_ROWS or all((wrong - other).abs().max() > 1e-3 for other in others)
        ):
            return z, params, f"order:{mistake}"
    raise RuntimeError(f"no row separating {mistake} in {ATTEMPTS} attempts")


def _min_p_between(rng: random.Random, logits: torch.Tensor, params: RowParams) -> RowParams | None:
    """``params`` with a min_p that separates the statement's min-p from one against the softmax's
    maximum (before top-k and top-p renormalized): after those two, with S the softmax mass they keep and
    r the kept probabilities over their maximum, some r_b < M <= r_b / S (dropped by the statement, kept
    by the mistake) and some r_a < M S (dropped by both: the mistake is not "min-p has no effect")."""
    kept = target(logits, [replace(params, min_p=0.0)], check_margins=False).probs[0]
    softmax = torch.softmax(logits[0] / params.temperature, dim=0)
    mass = float(softmax[kept > 0].sum())
    ratios = sorted(float(v) for v in (kept[kept > 0] / kept.max()) if v < 1.0)
    if len(ratios) < 2 or mass > 0.95:
        return None
    r_a, r_b = ratios[0], rng.choice(ratios[1:])
    low, high = max(r_b, r_a / mass), min(r_b / mass, 0.99)
    if not low * 1.01 < high:
        return None
    return replace(params, min_p=math.sqrt(low * high))


FAMILIES: dict[str, Callable[[random.Random, int], Row]] = {
    "nondyadic": nondyadic,
    "tiny": tiny,
    "tie": tie,
    "top1": functools.partial(tie, way="top1"),
    "ratio": ratio,
    "near": near,
    "cold": cold,
    "cold_big": functools.partial(cold, big=True),
    "tail": tail,
    "greedy": greedy,
    **{f"order:{name}": functools.partial(order, mistake=name) for name in ORDER_MISTAKES},
}


def _rounded(params: RowParams, dtype: torch.dtype | None) -> RowParams:
    """The parameters as a tensor of ``dtype`` holds them (the statement: a parameter's value is the
    value it holds); ``None``: as Python numbers, unchanged."""
    if dtype is None:
        return params

    def held(value: float) -> float:
        return float(torch.tensor(value, dtype=dtype))

    return RowParams(held(params.temperature), params.top_k, held(params.top_p), held(params.min_p))


def draw_row(rng: random.Random, family: str, vocab: int, dtype: torch.dtype, params_dtype: torch.dtype | None) -> Row:
    """One row of ``family`` whose decisions all keep the statement's margin in ``dtype`` (``near``:
    its closest one within ``NEAR_LIMIT``), as the arguments will hold it."""
    for _ in range(ATTEMPTS):
        z, params, name = FAMILIES[family](rng, vocab)
        logits = torch.tensor([z], dtype=dtype)
        held = _rounded(params, params_dtype)
        if not bool(torch.isfinite(logits).any()) or not (0 < held.top_p <= 1 and 0 <= held.min_p < 1):
            continue
        try:
            target(logits, [held], margin=STATED_MARGIN)
        except AmbiguousCase:
            continue
        if family == "near" and not smallest_margin(logits[0], held) < NEAR_LIMIT:
            continue
        return logits[0].tolist(), held, name
    raise RuntimeError(f"no {family} row with margins after {ATTEMPTS} attempts (V = {vocab})")


def _per_row_tensors(params: list[RowParams], dtype: torch.dtype, top_k_dtype: torch.dtype) -> dict[str, torch.Tensor]:
    return {
        "temperature": torch.tensor([p.temperature for p in params], dtype=dtype),
        "top_k": torch.tensor([p.top_k for p in params], dtype=top_k_dtype),
        "top_p": torch.tensor([p.top_p for p in params], dtype=dtype),
        "min_p": torch.tensor([p.min_p for p in params], dtype=dtype),
    }


def build(
    rng: random.Random,
    families: list[str],
    dtype: torch.dtype,
    params_dtype: torch.dtype | None,
    top_k_dtype: torch.dtype = torch.int64,
) -> Call:
    """A call of one row per entry of ``families`` (a vocabulary of 6 to 12 tokens), logits in
    ``dtype``, the parameters as per-row tensors of ``params_dtype`` (``top_k`` of ``top_k_dtype``)."""
    vocab = rng.randint(6, 12)
    rows = [draw_row(rng, family, vocab, dtype, params_dtype) for family in families]
    logits = torch.tensor([z for z, _, _ in rows], dtype=dtype)
    params = [p for _, p, _ in rows]
    passed: dict[str, Any] = _per_row_tensors(params, params_dtype or torch.float64, top_k_dtype)
    return Call(
        logits,
        params,
        target(logits, params, margin=STATED_MARGIN),
        [_label(name, p) for _, p, name in rows],
        passed,
        [name for _, _, name in rows],
    )


def build_scalar(rng: random.Random, families: list[str], dtype: torch.dtype, params: RowParams, passed: dict) -> Call:
    """A call whose parameters are Python numbers (``passed``: as the call writes them, ints where the
    statement allows), every row of ``families`` drawn again until the shared ``params`` keep margins."""
    vocab = rng.randint(6, 12)
    rows = []
    for family in families:
        for _ in range(ATTEMPTS):
            z = draw_row(rng, family, vocab, dtype, None)[0]
            try:
                target(torch.tensor([z], dtype=torch.float64), [params], margin=STATED_MARGIN)
            except AmbiguousCase:
                continue
            rows.append((z, family))
            break
        else:
            raise RuntimeError(f"no {family} row with margins under {params.describe()}")
    logits = torch.tensor([z for z, _ in rows], dtype=dtype)
    shared = [params] * len(rows)
    return Call(
        logits,
        shared,
        target(logits, shared, margin=STATED_MARGIN),
        [_label(name, params) for _, name in rows],
        dict(passed),
        [name for _, name in rows],
    )


@functools.lru_cache(maxsize=8)
def calls(seed: int) -> tuple[Call, ...]:
    """The generated calls of one case seed: float32 logits with float64 parameter tensors, float64
    logits with float32 parameter tensors (an int32 top_k), two calls with Python numbers (ints for
    temperature, top_k, top_p and min_p where they are whole), and float64 rows all greedy (an int 0
    temperature: the one-hot must still be float64)."""
    rng = random.Random(seed)
    orders = [f"order:{name}" for name in ORDER_MISTAKES]
    rng.shuffle(orders)
    first = build(
        rng,
        ["tiny", "top1", "near", "cold", "tail", "greedy", orders[0], orders[1], "tie", "cold_big"],
        torch.float32,
        torch.float64,
    )
    second = build(
        rng,
        ["nondyadic", "ratio", "near", "tie", "tail", "tiny", orders[2], orders[3]],
        torch.float64,
        torch.float32,
        top_k_dtype=torch.int32,
    )
    whole = RowParams(temperature=1.0)
    third = build_scalar(
        rng,
        ["tail", "tiny", "tie", "tail"],
        torch.float32,
        whole,
        {"temperature": 1, "top_k": 0, "top_p": 1, "min_p": 0},
    )
    shared = RowParams(temperature=0.8, top_k=rng.randint(3, 5), top_p=0.9, min_p=0.05)
    fourth = build_scalar(
        rng,
        ["nondyadic", "nondyadic", "ratio", "tail"],
        torch.float64,
        shared,
        {"temperature": 0.8, "top_k": shared.top_k, "top_p": 0.9, "min_p": 0.05},
    )
    every_greedy = build_scalar(
        rng, ["greedy", "greedy", "tie"], torch.float64, RowParams(temperature=0.0), {"temperature": 0}
    )
    return first, second, third, fourth, every_greedy
