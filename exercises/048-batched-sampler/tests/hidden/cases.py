"""Exercise 48's hidden inputs: frozen batches (built once per process from fixed seeds) and the
request pairs that collide under careless ways of combining a seed and an offset.

Every batch keeps its threshold decisions a relative ``MARGIN`` from their thresholds (the oracle raises
``AmbiguousCase`` otherwise), so a correct float32 solution cannot flip a token in or out.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import Any

import torch

from .oracle import AmbiguousCase, RowParams, mistaken, target

NEG_INF = float("-inf")
SEED_LIMIT = 2**63  # seeds and offsets are int64 values in [0, 2**63)


@dataclass(frozen=True)
class Batch:
    """One call's inputs: ``kwargs`` (logits and the four parameters, numbers or per-row tensors),
    ``params`` (each row's values as the tensors hold them) and ``probs`` (float64 [B, V], the target)."""

    kwargs: dict[str, Any]
    params: list[RowParams]
    probs: torch.Tensor

    @property
    def logits(self) -> torch.Tensor:
        return self.kwargs["logits"]

    @property
    def rows(self) -> int:
        return self.logits.shape[0]

    def select(self, rows: list[int]) -> Batch:
        """The requests ``rows`` as a batch of their own (parameter tensors indexed alike)."""
        index = torch.tensor(rows, dtype=torch.int64)
        kwargs = {
            name: value.index_select(0, index) if isinstance(value, torch.Tensor) else value
            for name, value in self.kwargs.items()
        }
        return Batch(kwargs, [self.params[r] for r in rows], self.probs.index_select(0, index))

    def mistaken_logprobs(self, tokens: torch.Tensor, mistake: str) -> torch.Tensor:
        """The log-probability a sampler with ``mistake`` gives each row's token: float64 [B]."""
        wrong = mistaken(self.logits, self.params, mistake)
        return torch.log(wrong.gather(1, tokens.clamp(0, wrong.shape[1] - 1).unsqueeze(1)).squeeze(1))


def batch(rows: list[list[float]], params: list[RowParams], dtype: torch.dtype, *, per_row: bool = True) -> Batch:
    """A batch of these logits and parameters; ``per_row``: each parameter a tensor [B] (float32 for
    temperature, top_p and min_p, int64 for top_k), else the first row's value as a Python number."""
    logits = torch.tensor(rows, dtype=dtype)
    kwargs: dict[str, Any] = {"logits": logits}
    if per_row:
        kwargs["temperature"] = torch.tensor([p.temperature for p in params], dtype=torch.float32)
        kwargs["top_k"] = torch.tensor([p.top_k for p in params], dtype=torch.int64)
        kwargs["top_p"] = torch.tensor([p.top_p for p in params], dtype=torch.float32)
        kwargs["min_p"] = torch.tensor([p.min_p for p in params], dtype=torch.float32)
        # The thresholds are the values the tensors hold (a float32 0.9 is 0.899999976...).
        params = [
            RowParams(
                float(kwargs["temperature"][b]),
                int(kwargs["top_k"][b]),
                float(kwargs["top_p"][b]),
                float(kwargs["min_p"][b]),
            )
            for b in range(len(params))
        ]
    else:
        first = params[0]
        kwargs.update(temperature=first.temperature, top_k=first.top_k, top_p=first.top_p, min_p=first.min_p)
        params = [first] * len(rows)
    return Batch(kwargs, params, target(logits, params).probs)


def _row(rng: random.Random, vocab: int, *, neginf: bool = True) -> list[float]:
    """Logits rounded to 2 decimals, distinct, a -inf now and then (never the largest)."""
    values = [round(rng.uniform(-3.0, 3.0), 2) for _ in range(vocab)]
    top = values.index(max(values))
    return [NEG_INF if neginf and i != top and rng.random() < 0.15 else v for i, v in enumerate(values)]


def _params(rng: random.Random, vocab: int, greedy: float) -> RowParams:
    if rng.random() < greedy:
        return RowParams(0.0, rng.choice((0, 2)), rng.choice((1.0, 0.9)), rng.choice((0.0, 0.1)))
    return RowParams(
        rng.choice((0.5, 0.8, 1.0, 1.3, 2.0)),
        rng.choice((0, 0, 2, 3, vocab - 1, vocab + 5)),
        rng.choice((1.0, 1.0, 0.95, 0.8, 0.6)),
        rng.choice((0.0, 0.0, 0.05, 0.2)),
    )


def _order_matters(logits: list[float], p: RowParams) -> bool:
    """Whether min-p before top-p gives this row another distribution (the catalogued mistake's evidence)."""
    row = torch.tensor([logits], dtype=torch.float64)
    right = mistaken(row, [p], "none")
    wrong = mistaken(row, [p], "min_p_before_top_p")
    return not torch.allclose(right, wrong, atol=1e-6)


@functools.cache
def mixed(seed: int, dtype: torch.dtype, rows: int = 24, vocab: int = 12) -> Batch:
    """Rows of every kind, per-row parameters: greedy rows, each filter, -inf entries, and rows where the
    order of top-p and min-p matters; every decision a relative MARGIN from its threshold."""
    rng = random.Random(seed)
    logits: list[list[float]] = []
    params: list[RowParams] = []
    ordered = 0
    while len(logits) < rows:
        z = _row(rng, vocab)
        p = _params(rng, vocab, greedy=0.2)
        if len(logits) < 4:  # the first rows: both top-p and min-p at work, where their order matters
            p = RowParams(rng.choice((0.8, 1.0, 1.2)), 0, rng.choice((0.7, 0.8, 0.9)), rng.choice((0.3, 0.4, 0.5)))
            if not _order_matters(z, p):
                continue
            ordered += 1
        try:
            target(torch.tensor([z], dtype=dtype), [p])
        except AmbiguousCase:
            continue
        logits.append(z)
        params.append(p)
    return batch(logits, params, dtype)


@functools.cache
def greedy_ties(seed: int, dtype: torch.dtype, rows: int = 48, vocab: int = 9) -> Batch:
    """Greedy rows (T = 0), most with 2 to 4 tokens tied at the largest logit, other parameters valid."""
    rng = random.Random(seed)
    logits, params = [], []
    for r in range(rows):
        z = [round(rng.uniform(-3.0, 2.0), 1) for _ in range(vocab)]
        tied = rng.sample(range(vocab), rng.choice((2, 3, 4)) if r % 6 else 1)
        for i in tied:
            z[i] = 2.5
        for i in range(vocab):
            if i not in tied and rng.random() < 0.2:
                z[i] = NEG_INF
        logits.append(z)
        params.append(RowParams(0.0, rng.choice((0, 1, 3)), rng.choice((1.0, 0.5)), rng.choice((0.0, 0.5))))
    return batch(logits, params, dtype)


def same_row(logits: list[float], params: RowParams, dtype: torch.dtype, rows: int) -> Batch:
    """``rows`` requests with the same logits and parameters (numbers, not tensors)."""
    return _same_row(tuple(logits), params, dtype, rows)


@functools.cache
def _same_row(logits: tuple[float, ...], params: RowParams, dtype: torch.dtype, rows: int) -> Batch:
    one = batch([list(logits)], [params], dtype, per_row=False)  # the oracle once, not once per row
    kwargs = {**one.kwargs, "logits": one.logits.expand(rows, -1).clone()}
    return Batch(kwargs, [params] * rows, one.probs.expand(rows, -1).clone())


# One row with a filter at work: 8 tokens, T = 0.8, top_k = 6, top_p = 0.95 (float32 logits).
FIT_LOGITS = [1.2, 0.4, -0.3, 2.0, 0.9, -1.5, 0.1, 1.6]
FIT_PARAMS = RowParams(0.8, 6, 0.95, 0.0)
# A longer float64 row: 40 tokens, some -inf, min_p at work.
WIDE_LOGITS = [round(random.Random(4801).uniform(-2.0, 2.0), 2) for _ in range(40)]
WIDE_LOGITS[7] = WIDE_LOGITS[23] = NEG_INF
WIDE_PARAMS = RowParams(1.1, 0, 1.0, 0.08)
# Flat enough rows for the collision tests: two equal requests agree with probability sum p^2 ~ 0.2.
PAIR_LOGITS = [0.3, 0.0, 0.5, -0.2, 0.1, 0.4]
PAIR_PARAMS = RowParams(1.0, 0, 1.0, 0.0)


def _mix_collisions() -> dict[str, Any]:
    """family -> (how a careless derivation mixes (s, o), the partner of (s, o) that collides under it)."""
    return {
        "seed_plus_offset": (lambda s, o: s + o, lambda s, o: (s + 1, o - 1)),
        "seed_xor_offset": (lambda s, o: s ^ o, lambda s, o: (s ^ (o & -o), o ^ (o & -o))),
        "seed_times_10": (lambda s, o: 10 * s + o, lambda s, o: (s + 1, o - 10)),
        "seed_times_1000": (lambda s, o: 1000 * s + o, lambda s, o: (s + 1, o - 1000)),
        "seed_shift_32": (lambda s, o: (s << 32) + o, lambda s, o: (s + 1, o - 2**32)),
        # The low 32 bits a CPU torch.Generator keeps of a linear 64-bit mix.
        "seed_high_bits": (lambda s, o: (s * 0x9E3779B97F4A7C15 + o) % 2**32, lambda s, o: (s + 2**32, o)),
        "python_hash": (lambda s, o: hash((s, o)), lambda s, o: (s + 2**61 - 1, o)),
        "decimal_concat": (lambda s, o: int(f"{s}{o}"), lambda s, o: (int(f"{s}{str(o)[0]}"), int(str(o)[1:]))),
    }


COLLISION_FAMILIES = tuple(_mix_collisions())
# Families whose colliding pairs share the offset (a sampler that ignores the seed is caught before them).
SAME_OFFSET = ("seed_high_bits", "python_hash")


@functools.cache
def colliding_pairs(seed: int, family: str, count: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """``count`` pairs of (seed, offset) requests that collide under ``family``'s mixing and under no other
    family's (nor share a seed, nor an offset outside ``SAME_OFFSET``), so each family's test names its own
    mistake."""
    families = _mix_collisions()
    mix, partner = families[family]
    rng = random.Random(f"{seed}:{family}")
    first, second = [], []
    while len(first) < count:
        s = rng.randrange(1, 2**31)
        o = rng.randrange(2**32 + 2**20, 2**33) if family == "seed_shift_32" else rng.randrange(2**12, 2**31)
        if family == "decimal_concat" and str(o)[1] == "0":
            continue  # the partner's offset would lose a leading zero
        t, u = partner(s, o)
        assert mix(s, o) == mix(t, u) and (s, o) != (t, u)
        same_offset = family in SAME_OFFSET  # these pairs differ in their seeds alone
        if (
            s == t
            or (o == u) != same_offset
            or any(m(s, o) == m(t, u) for name, (m, _) in families.items() if name != family)
        ):
            continue
        first.append((s, o))
        second.append((t, u))
    return first, second
