"""The exact answers of exercise 46, in float64, written row by row in plain Python (apart from the
mistake models of ``public/models46.py``, so that a slip in one is caught by the other's tests).

``penalized(call)``: what ``apply_penalties`` returns for one call's keyword arguments. ``sampling_probs``:
exercise 39's distribution of one row (temperature, top-k, top-p, min-p, each renormalized), which raises
:class:`AmbiguousCase` when a decision lies within ``MARGIN`` of its threshold (the statement leaves a
relative 1e-3 open; the cases keep twice that).
"""

from __future__ import annotations

import math
from typing import Any

import torch

MARGIN = 2e-3
NEG_INF = float("-inf")


class AmbiguousCase(ValueError):
    """A generated case whose filter decision sits too close to its threshold: build another."""


def value_of(value: Any, row: int) -> float:
    """A parameter's value for ``row`` as the call holds it (a number, or a tensor's entry)."""
    return float(value[row]) if isinstance(value, torch.Tensor) else float(value)


def row_counts(prev_row: list[int], vocab: int, pad_id: int) -> list[int]:
    counts = [0] * vocab
    for token in prev_row:
        if token != pad_id:
            counts[token] += 1
    return counts


def penalized_row(z: list[float], counts: list[int], rep: float, freq: float, pres: float) -> list[float]:
    out = []
    for logit, count in zip(z, counts, strict=True):
        if count > 0:
            logit = logit / rep if logit > 0 else logit * rep
            logit = logit - count * freq - pres
        out.append(logit)
    return out


def penalized(call: dict[str, Any]) -> torch.Tensor:
    """float64 [B, V]: the statement's penalties on ``call`` (its tensors' values as they are held)."""
    logits = call["logits"].to(torch.float64).tolist()
    prev = call["prev_tokens"].tolist()
    pad_id = call.get("pad_id", -1)
    rows = []
    for b, z in enumerate(logits):
        counts = row_counts(prev[b], len(z), pad_id)
        rows.append(
            penalized_row(
                z,
                counts,
                value_of(call.get("repetition_penalty", 1.0), b),
                value_of(call.get("frequency_penalty", 0.0), b),
                value_of(call.get("presence_penalty", 0.0), b),
            )
        )
    return torch.tensor(rows, dtype=torch.float64)


def scale(call: dict[str, Any]) -> float:
    """The largest 1 + |z_i| + |z'_i| + c_i |f| + |p| of the call's finite logits: the tolerance's unit."""
    logits = call["logits"].to(torch.float64).tolist()
    prev = call["prev_tokens"].tolist()
    pad_id = call.get("pad_id", -1)
    largest = 1.0
    for b, z in enumerate(logits):
        counts = row_counts(prev[b], len(z), pad_id)
        freq = abs(value_of(call.get("frequency_penalty", 0.0), b))
        pres = abs(value_of(call.get("presence_penalty", 0.0), b))
        rep = value_of(call.get("repetition_penalty", 1.0), b)
        for logit, count in zip(z, counts, strict=True):
            if math.isfinite(logit):
                repeated = (logit / rep if logit > 0 else logit * rep) if count else logit
                largest = max(largest, 1.0 + abs(logit) + abs(repeated) + count * freq + (pres if count else 0.0))
    return largest


def tolerance(dtype: torch.dtype) -> float:
    """The statement's: 1e-5 in float32, 1e-12 in float64, relative to :func:`scale`."""
    return 1e-5 if dtype == torch.float32 else 1e-12


def _renormalized(p: list[float]) -> list[float]:
    total = math.fsum(p)
    return [x / total for x in p]


def _near(value: float, threshold: float) -> bool:
    return threshold != 0 and abs(value - threshold) <= MARGIN * abs(threshold)


def sampling_probs(z: list[float], temperature: float, top_k: int, top_p: float, min_p: float) -> list[float]:
    """Exercise 39's distribution of one row of (penalized) logits ``z``."""
    vocab = len(z)
    top = max(z)
    if temperature == 0:
        return [1.0 if i == z.index(top) else 0.0 for i in range(vocab)]
    weights = [math.exp((x - top) / temperature) if x != NEG_INF else 0.0 for x in z]
    p = _renormalized(weights)
    if 0 < top_k < vocab:
        kth = sorted(p, reverse=True)[top_k - 1]
        if any(_near(x, kth) and x != kth for x in p):
            raise AmbiguousCase("top-k")
        p = _renormalized([x if x >= kth else 0.0 for x in p])
    if top_p < 1:
        order = sorted(range(vocab), key=lambda i: -p[i])
        before, keep = 0.0, [False] * vocab
        for i in order:
            if _near(before, top_p):
                raise AmbiguousCase("top-p")
            keep[i] = before < top_p and p[i] > 0
            before += p[i]
        p = _renormalized([x if k else 0.0 for x, k in zip(p, keep, strict=True)])
    if min_p > 0:
        threshold = min_p * max(p)
        if any(_near(x, threshold) for x in p if x > 0):
            raise AmbiguousCase("min-p")
        p = _renormalized([x if x >= threshold else 0.0 for x in p])
    return p


def sampler_probs(call: dict[str, Any], *, penalize: bool = True, after_temperature: bool = False) -> torch.Tensor:
    """float64 [B, V]: the distribution ``sample_with_penalties`` draws each row from. ``penalize=False``:
    39's sampler on the raw logits; ``after_temperature``: the penalties applied to logits / T (a mistake)."""
    logits = call["logits"].to(torch.float64).tolist()
    prev = call["prev_tokens"].tolist()
    pad_id = call.get("pad_id", -1)
    rows = []
    for b, z in enumerate(logits):
        t = value_of(call.get("temperature", 1.0), b)
        counts = row_counts(prev[b], len(z), pad_id)
        penalties = [
            value_of(call.get(name, default), b)
            for name, default in (("repetition_penalty", 1.0), ("frequency_penalty", 0.0), ("presence_penalty", 0.0))
        ]
        if after_temperature and t > 0:
            z = penalized_row([x / t for x in z], counts, *penalties)
            t = 1.0
        elif penalize:
            z = penalized_row(z, counts, *penalties)
        rows.append(
            sampling_probs(
                z,
                t,
                int(value_of(call.get("top_k", 0), b)),
                value_of(call.get("top_p", 1.0), b),
                value_of(call.get("min_p", 0.0), b),
            )
        )
    return torch.tensor(rows, dtype=torch.float64)
