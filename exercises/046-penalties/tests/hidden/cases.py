"""Exercise 46's hidden inputs: frozen batches built from fixed seeds (each with what it must exercise
checked when it is built) and calls generated under a case's seed.

Every batch holds, somewhere: tokens seen once and several times, unseen tokens, positive and negative
and exactly-0 logits on seen tokens, -inf on seen and unseen tokens, logits whose sign the penalties
flip, padding at any position (with -1, with V and with a larger id), a row of padding only, per-row
parameter tensors of both dtypes and a square batch (B = V) for a tensor broadcast along the vocabulary.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import torch

from . import oracle

NEG_INF = float("-inf")


def _logit(rng: random.Random) -> float:
    kind = rng.random()
    if kind < 0.08:
        return 0.0
    if kind < 0.14:
        return NEG_INF
    return round(rng.uniform(-4.0, 4.0), 3)


def _prev_row(rng: random.Random, vocab: int, length: int, pad_id: int) -> list[int]:
    """``length`` ids: a few favourite tokens repeated, others once, padding anywhere (sometimes all)."""
    if rng.random() < 0.1:
        return [pad_id] * length
    favourites = rng.sample(range(vocab), min(vocab, rng.randint(1, 3)))
    row = []
    for _ in range(length):
        r = rng.random()
        if r < 0.25:
            row.append(pad_id)
        elif r < 0.65:
            row.append(rng.choice(favourites))
        else:
            row.append(rng.randrange(vocab))
    return row


def _parameter(rng: random.Random, rows: int, choices: tuple[float, ...], square: bool) -> Any:
    """A number, or a per-row tensor of float32 or float64 (always a tensor in a square batch)."""
    values = [rng.choice(choices) for _ in range(rows)]
    if square or rng.random() < 0.6:
        if len(set(values)) == 1 and len(choices) > 1:
            values[0] = next(c for c in choices if c != values[0])
        return torch.tensor(values, dtype=rng.choice((torch.float32, torch.float64)))
    return rng.choice(choices)


REPETITION = (1.0, 1.15, 1.3, 1.5, 2.0, 0.8, 0.5, 3.0)
FREQUENCY = (0.0, 0.1, 0.25, 0.5, 1.0, -0.3, 1.7)
PRESENCE = (0.0, 0.2, 0.5, 1.0, -0.5, 1.25)


def generated_call(rng: random.Random, dtype: torch.dtype, *, square: bool = False) -> dict[str, Any]:
    """One legal call of ``apply_penalties``: 1 to 5 rows (B = V when ``square``), 2 to 9 tokens, L from 0 to
    12, pad_id -1, V or further away, every row with a finite logit."""
    rows = rng.randint(2, 5) if square else rng.randint(1, 5)
    vocab = rows if square else rng.randint(2, 9)
    length = 0 if rng.random() < 0.1 else rng.randint(1, 12)
    pad_id = rng.choice((-1, vocab, -rng.randint(2, 50), vocab + rng.randint(1, 50)))
    logits = []
    for _ in range(rows):
        row = [_logit(rng) for _ in range(vocab)]
        if all(x == NEG_INF for x in row):
            row[rng.randrange(vocab)] = round(rng.uniform(-2.0, 2.0), 3)
        logits.append(row)
    return {
        "logits": torch.tensor(logits, dtype=dtype),
        "prev_tokens": torch.tensor(
            [_prev_row(rng, vocab, length, pad_id) for _ in range(rows)], dtype=torch.int64
        ).reshape(rows, length),
        "repetition_penalty": _parameter(rng, rows, REPETITION, square),
        "frequency_penalty": _parameter(rng, rows, FREQUENCY, square),
        "presence_penalty": _parameter(rng, rows, PRESENCE, square),
        "pad_id": pad_id,
    }


@functools.cache
def frozen_batch(dtype: torch.dtype) -> dict[str, Any]:
    """12 rows of 12 tokens, L = 16 (a square batch), from a fixed seed: the first whose rows hold every
    feature the module's docstring lists."""
    rng = random.Random(46_001 if dtype == torch.float32 else 46_002)
    for _ in range(1000):
        call = _frozen_candidate(rng, dtype)
        if _has_every_feature(call):
            return call
    raise RuntimeError("no frozen batch with every feature in 1000 tries")


def _frozen_candidate(rng: random.Random, dtype: torch.dtype) -> dict[str, Any]:
    rows = vocab = 12
    pad_id = -1 if dtype == torch.float32 else vocab
    logits = [[_logit(rng) for _ in range(vocab)] for _ in range(rows)]
    for row in logits:
        row[rng.randrange(vocab)] = round(rng.uniform(0.5, 3.0), 3)
    prev = [_prev_row(rng, vocab, 16, pad_id) for _ in range(rows)]
    return {
        "logits": torch.tensor(logits, dtype=dtype),
        "prev_tokens": torch.tensor(prev, dtype=torch.int64),
        "repetition_penalty": _parameter(rng, rows, (1.3, 1.5, 2.0, 0.8), True),
        "frequency_penalty": _parameter(rng, rows, (0.25, 0.5, 1.0, -0.3), True),
        "presence_penalty": _parameter(rng, rows, (0.2, 0.5, 1.0, -0.5), True),
        "pad_id": pad_id,
    }


def _has_every_feature(call: dict[str, Any]) -> bool:
    logits = call["logits"].to(torch.float64).tolist()
    prev = call["prev_tokens"].tolist()
    pad_id, vocab = call["pad_id"], len(logits[0])
    answer = oracle.penalized(call).tolist()
    seen_sign, flipped, seen_inf, seen_zero, padded_only = set(), False, False, False, False
    for z, p, out in zip(logits, prev, answer, strict=True):
        counts = oracle.row_counts(p, vocab, pad_id)
        padded_only |= all(t == pad_id for t in p)
        for x, c, y in zip(z, counts, out, strict=True):
            if c:
                seen_sign.add((x > 0, min(c, 2)))
                seen_inf |= x == NEG_INF
                seen_zero |= x == 0.0
                flipped |= x > 0 > y
    return len(seen_sign) == 4 and flipped and seen_inf and seen_zero and padded_only


# --- the sampler's rows -----------------------------------------------------------------------------


@functools.cache
def sampler_batch() -> dict[str, Any]:
    """Five rows of 8 tokens (float32): plain, temperature 0.6 and 1.7 (where penalties after the temperature
    differ most), top-k 3 with top-p 0.9, min-p 0.1; repeated tokens the model favours. Margins checked by the
    oracle."""
    logits = [
        [2.0, 1.2, 0.4, -0.3, 0.9, -1.1, 0.0, 1.6],
        [1.8, -0.6, 2.4, 0.7, -1.5, 0.3, 1.1, -0.2],
        [0.5, 2.2, -0.8, 1.4, 0.1, NEG_INF, -2.0, 0.9],
        [3.0, 2.1, 1.9, 0.2, -0.5, 1.2, -1.0, 0.6],
        [1.0, 0.3, 2.6, -1.2, 1.9, 0.8, -0.4, 0.0],
    ]
    prev = [
        [0, 0, 0, 7, 1, -1, -1, -1],
        [2, 2, 6, 3, 3, 3, 0, -1],
        [1, 1, 3, 5, 6, -1, -1, -1],
        [0, 1, 1, 2, 5, 5, 5, 7],
        [2, 4, 4, 2, 6, 7, 7, -1],
    ]
    call = {
        "logits": torch.tensor(logits),
        "prev_tokens": torch.tensor(prev),
        "repetition_penalty": torch.tensor([1.3, 1.5, 1.2, 2.0, 1.4]),
        "frequency_penalty": torch.tensor([0.4, 0.3, 0.5, 0.2, 0.6], dtype=torch.float64),
        "presence_penalty": 0.5,
        "pad_id": -1,
        "temperature": torch.tensor([1.0, 0.6, 1.7, 0.8, 1.2]),
        "top_k": torch.tensor([0, 0, 0, 3, 0]),
        "top_p": torch.tensor([1.0, 1.0, 1.0, 0.9, 1.0]),
        "min_p": torch.tensor([0.0, 0.0, 0.0, 0.0, 0.1]),
    }
    oracle.sampler_probs(call)  # raises AmbiguousCase if a cut sits near its threshold
    return call


@functools.cache
def greedy_batch() -> dict[str, Any]:
    """Four rows, two greedy (temperature 0) where the penalties move the maximum, two sampling."""
    call = dict(sampler_batch())
    call["logits"] = call["logits"][:4]
    call["prev_tokens"] = call["prev_tokens"][:4]
    for name in ("repetition_penalty", "frequency_penalty", "temperature", "top_k", "top_p", "min_p"):
        call[name] = call[name][:4]
    call["temperature"] = torch.tensor([0.0, 1.0, 0.0, 0.8])
    return call


@functools.cache
def filter_order_rows() -> dict[str, Any]:
    """Two float32 rows of four tokens, nothing seen (L = 0): exercise 39's "the order matters" row
    (top_k 3 renormalized, then top_p 0.8 keeps two tokens, three without the renormalization), and a
    min_p 0.3 row whose own maximum keeps token 0 (the first row's token 0, far likelier, must not count)."""
    call = {
        "logits": torch.tensor([[2.0, 1.0, 0.5, 0.0], [0.0, 1.0, 0.9, -3.0]]),
        "prev_tokens": torch.zeros((2, 0), dtype=torch.int64),
        "top_k": torch.tensor([3, 0]),
        "top_p": torch.tensor([0.8, 1.0]),
        "min_p": torch.tensor([0.0, 0.3]),
    }
    oracle.sampler_probs(call)
    return call


def default_rows(rows: int) -> dict[str, Any]:
    """``rows`` copies of one row and its history (padding -1, tokens of both signs repeated): only the two
    required arguments, every other one at its default (no penalty, temperature 1, no filter, one draw)."""
    return {
        "logits": torch.tensor([[1.2, -0.4, 0.3, 2.0, -1.0]]).expand(rows, 5).clone(),
        "prev_tokens": torch.tensor([[3, 3, 1, -1, 4, -1]]).expand(rows, 6).clone(),
    }


@functools.cache
def tie_and_min_p_rows() -> dict[str, Any]:
    """Two float32 rows of five tokens. Row 0: the repetition penalty ties token 1 (3.0 / 1.5) with token 0 at
    the top, exactly, and top_k 1 keeps both (ties with the k-th stay). Row 1: the worked example with top_k 2,
    then min_p 0.62 against the renormalized maximum 0.6225 drops token 1 (0.3775); against the maximum before
    top-k (0.4784) it would stay."""
    call = {
        "logits": torch.tensor([[2.0, 3.0, 1.0, 0.5, -1.0], [2.0, 0.5, -1.0, 0.0, 1.0]]),
        "prev_tokens": torch.tensor([[1, -1, -1, -1, -1, -1], [0, 2, 0, 3, -1, -1]]),
        "repetition_penalty": torch.tensor([1.5, 2.0]),
        "frequency_penalty": torch.tensor([0.0, 0.5]),
        "presence_penalty": torch.tensor([0.0, 0.25]),
        "top_k": torch.tensor([1, 2]),
        "min_p": torch.tensor([0.0, 0.62]),
    }
    oracle.sampler_probs(call)
    return call
