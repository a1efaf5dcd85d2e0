"""Batches generated afresh for every submission (under the case's seed): one method per batch, 3 to 6 rows
of 4 to 24 logits in float32 or float64, with ties, -inf entries, logits of one to five decimals, a
parameter and a temperature per row (awkward values: 0.3871, tau = 1, epsilon and eta 0, greedy rows),
each row kept only when every decision sits further than the oracle's margin from its threshold.
"""

from __future__ import annotations

import random

import torch

from .cases import Batch, _label
from .oracle import MARGIN, AmbiguousCase, Call, target

NEG_INF = float("-inf")


def _logits(rng: random.Random, vocab: int) -> list[float]:
    spread = rng.choice((1.5, 3.0, 6.0))
    values = [round(rng.uniform(-spread, spread), rng.randint(1, 5)) for _ in range(vocab)]
    for _ in range(rng.randint(0, 2)):  # ties: equal logits, equal probabilities
        values[rng.randrange(vocab)] = values[rng.randrange(vocab)]
    top = max(values)
    for i in range(vocab):
        if values[i] != top and rng.random() < 0.15:
            values[i] = NEG_INF
    return values


def _param(rng: random.Random, method: str) -> float:
    if method == "typical":
        return 1.0 if rng.random() < 0.1 else round(rng.uniform(0.05, 0.98), rng.randint(1, 4))
    if rng.random() < 0.1:
        return 0.0
    high = 0.35 if method == "epsilon" else 0.9
    return round(rng.uniform(0.001, high), rng.randint(1, 4))


def _temperature(rng: random.Random) -> float:
    return rng.choice((0.0, 1.0, round(rng.uniform(0.3, 2.5), rng.randint(1, 3)), round(rng.uniform(0.6, 1.6), 2)))


def generated_batch(rng: random.Random, method: str, dtype: torch.dtype) -> Batch:
    """A batch of ``method`` rows, each with its own parameter and temperature, margins verified row by row."""
    rows, vocab = rng.randint(3, 6), rng.randint(4, 24)
    kept: list[tuple[list[float], float, float]] = []
    while len(kept) < rows:
        logits, param, temperature = _logits(rng, vocab), _param(rng, method), _temperature(rng)
        # The values as the call holds them: logits in the dtype, parameters as float64 tensors.
        row = torch.tensor([logits], dtype=dtype)
        try:
            target(Call(row, method, (param,), (temperature,)), margin=MARGIN)
        except AmbiguousCase:
            continue
        kept.append((logits, param, temperature))
    call = Call(
        torch.tensor([r[0] for r in kept], dtype=dtype),
        method,
        tuple(r[1] for r in kept),
        tuple(r[2] for r in kept),
    )
    labels = tuple(_label(method, p, t, "generated", "随机生成") for _, p, t in kept)
    return Batch(call, labels, target(call, margin=0.0))
