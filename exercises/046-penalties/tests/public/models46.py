"""What each known mistake of ``apply_penalties`` returns, in float64, so that a check can name the mistake
whose output a learner's matches (``mistaken_outputs``). The formulas are the statement's, each with one
twist; the judge's own target comes from the hidden oracle, written apart from these models. Only
operations of the browser's torch subset are used: the tiny variant names mistakes with them too.
"""

from __future__ import annotations

from typing import Any

import torch

from .diagnoses import MISTAKES

NEG_INF = float("-inf")


def counts_of(prev_tokens: torch.Tensor, vocab: int, pad_id: int, *, pad_as: int | None = None) -> torch.Tensor:
    """float64 [B, V]: how often each token occurs in each row, entries equal to ``pad_id`` left out (or,
    with ``pad_as``, counted as that token)."""
    rows = prev_tokens.shape[0]
    counts = torch.zeros(rows, vocab + 1, dtype=torch.float64)
    if prev_tokens.shape[1] == 0:
        return counts[:, :vocab]
    ids = prev_tokens.to(torch.int64)
    padding = ids == pad_id
    ids = torch.where(padding, torch.full_like(ids, vocab if pad_as is None else pad_as), ids)
    counts.scatter_add_(1, ids, torch.ones(ids.shape, dtype=torch.float64))
    return counts[:, :vocab]


def column(value: Any, rows: int) -> torch.Tensor:
    """A parameter (a number or a [B] tensor) as the float64 [B, 1] column of the values it holds."""
    if isinstance(value, torch.Tensor):
        return value.to(torch.float64).reshape(rows, 1)
    return torch.full((rows, 1), float(value), dtype=torch.float64)


def penalize(
    logits: torch.Tensor,
    counts: torch.Tensor,
    rep: torch.Tensor,
    freq: torch.Tensor,
    pres: torch.Tensor,
    *,
    twist: str = "",
) -> torch.Tensor:
    """The statement's two steps in float64 on ``counts`` [B, V] and parameters broadcastable to [B, V],
    with ``twist`` naming one mistake (``""``: none)."""
    z = logits.to(torch.float64)
    seen = counts > 0
    once = seen.to(torch.float64)
    if twist == "swapped_order":
        z = z - counts * freq - once * pres
    if twist == "negative_divided":
        repeated = z / rep
    elif twist == "repetition_per_occurrence":
        power = torch.pow(rep.expand(z.shape), counts)
        repeated = torch.where(z > 0, z / power, z * power)
    else:
        repeated = torch.where(z > 0, z / rep, z * rep)
    z = torch.where(seen, repeated, z)
    if twist == "swapped_order":
        return z
    frequency = once * freq if twist == "frequency_once" else counts * freq
    presence = counts * pres if twist == "presence_per_occurrence" else once * pres
    if twist == "sign_flipped":
        return z + frequency + presence
    return z - frequency - presence


def mistaken_outputs(call: dict[str, Any]) -> dict:
    """Diagnosis -> what that mistake's ``apply_penalties`` returns for ``call`` (the keyword arguments of
    one call, tensors on the CPU), float64 [B, V]."""
    logits, prev = call["logits"], call["prev_tokens"]
    rows, vocab = logits.shape
    pad_id = call.get("pad_id", -1)
    counts = counts_of(prev, vocab, pad_id)
    params = [
        call.get(name, default)
        for name, default in (("repetition_penalty", 1.0), ("frequency_penalty", 0.0), ("presence_penalty", 0.0))
    ]
    rep, freq, pres = (column(value, rows) for value in params)
    out = {}
    for twist in (
        "negative_divided",
        "repetition_per_occurrence",
        "swapped_order",
        "presence_per_occurrence",
        "frequency_once",
        "sign_flipped",
    ):
        out[MISTAKES[twist]] = penalize(logits, counts, rep, freq, pres, twist=twist)
    if prev.shape[1] > 0 and pad_id != 0:
        out[MISTAKES["pad_counted"]] = penalize(logits, counts_of(prev, vocab, pad_id, pad_as=0), rep, freq, pres)
    if rows > 1:
        mixed = counts.sum(dim=0, keepdim=True).expand(rows, vocab)
        out[MISTAKES["batch_mixing"]] = penalize(logits, mixed, rep, freq, pres)
    if rows > 1 and any(isinstance(value, torch.Tensor) for value in params):
        first = [column(float(value[0]) if isinstance(value, torch.Tensor) else value, rows) for value in params]
        out[MISTAKES["first_row_parameters"]] = penalize(logits, counts, *first)
    if rows == vocab and any(isinstance(value, torch.Tensor) for value in params):
        along = [
            value.to(torch.float64).reshape(1, vocab) if isinstance(value, torch.Tensor) else column(value, rows)
            for value in params
        ]
        out[MISTAKES["vocab_broadcast"]] = penalize(logits, counts, *along)
    return out
