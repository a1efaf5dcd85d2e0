"""Another correct solution of exercise 42, written from the statement alone (the red team, 2026-12).

Hand-written log-sum-exp with the maximum subtracted, in float64, on logits whose padded positions
are masked_fill-ed with 0; greedy with torch.max(dim) (first index among ties); beam candidates
chosen with heapq.nsmallest on the key (-log p, sequence); a learner's own InputError(ValueError);
validation in another order.
"""

from __future__ import annotations

import heapq
import math

import torch


class InputError(ValueError):
    pass


def _lse(x):
    m = x.max(dim=-1, keepdim=True).values
    return (m + torch.log(torch.exp(x - m).sum(dim=-1, keepdim=True))).squeeze(-1)


def sequence_log_prob(logits, tokens, mask):
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.dim() != 2:
        raise InputError("mask must be a bool [B, T] tensor")
    if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.int64 or tokens.shape != mask.shape:
        raise InputError("tokens must be an int64 [B, T] tensor")
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3 or not logits.dtype.is_floating_point:
        raise InputError("logits must be a floating [B, T, V] tensor")
    if logits.shape[:2] != tokens.shape:
        raise InputError("tokens and mask must be [B, T] for logits [B, T, V]")
    V = logits.shape[-1]
    if (mask & (tokens.lt(0) | tokens.ge(V))).any():
        raise InputError("real token outside [0, V)")
    x = logits.to(torch.float64).masked_fill(~mask.unsqueeze(-1), 0.0)
    idx = tokens.masked_fill(~mask, 0)
    chosen = x.gather(-1, idx.unsqueeze(-1)).squeeze(-1)
    per_pos = (chosen - _lse(x)).masked_fill(~mask, 0.0)
    return per_pos.sum(-1).to(logits.dtype)


def _is_int(v):
    return (
        isinstance(v, int)
        and not isinstance(v, bool)
        or (hasattr(v, "__index__") and not isinstance(v, (bool, torch.Tensor, float)))
    )


def _check(start_logits, transition_logits, eos_id, max_len):
    if not _is_int(max_len) or int(max_len) < 1:
        raise InputError("max_len must be an integer >= 1")
    if (
        not isinstance(start_logits, torch.Tensor)
        or start_logits.dim() != 2
        or not start_logits.dtype.is_floating_point
    ):
        raise InputError("start_logits must be floating [B, V]")
    B, V = start_logits.shape
    if V < 2:
        raise InputError("V must be at least 2")
    if not _is_int(eos_id) or not 0 <= int(eos_id) < V:
        raise InputError("eos_id must be an integer in [0, V)")
    if not isinstance(transition_logits, torch.Tensor) or transition_logits.dtype != start_logits.dtype:
        raise InputError("transition_logits must have the dtype of start_logits")
    if transition_logits.shape != (B, V, V):
        raise InputError("transition_logits must be [B, V, V]")
    if torch.isnan(start_logits).any() or torch.isinf(start_logits).any():
        raise InputError("start_logits not finite")
    if torch.isnan(transition_logits).any() or torch.isinf(transition_logits).any():
        raise InputError("transition_logits not finite")
    return B, V, int(eos_id), int(max_len)


def greedy_decode(start_logits, transition_logits, eos_id, max_len, pad_id):
    B, V, eos_id, max_len = _check(start_logits, transition_logits, eos_id, max_len)
    ls = torch.log_softmax(start_logits.double(), -1)
    lt = torch.log_softmax(transition_logits.double(), -1)
    tokens = torch.full((B, max_len), int(pad_id), dtype=torch.int64, device=start_logits.device)
    scores = torch.zeros(B, dtype=torch.float64, device=start_logits.device)
    for b in range(B):
        dist = ls[b]
        total = 0.0
        for t in range(max_len):
            val, v = torch.max(dist, dim=0)  # first index of the maximum
            v = int(v)
            tokens[b, t] = v
            total += float(val)
            if v == eos_id:
                break
            dist = lt[b, v]
        scores[b] = total
    return tokens, scores.to(start_logits.dtype)


def beam_search(start_logits, transition_logits, eos_id, max_len, pad_id, beam_width=4, length_penalty=1.0):
    B, V, eos_id, max_len = _check(start_logits, transition_logits, eos_id, max_len)
    if not _is_int(beam_width) or not 1 <= int(beam_width) <= V:
        raise InputError("beam_width must be an integer in [1, V]")
    if isinstance(length_penalty, bool) or not isinstance(length_penalty, (int, float)):
        try:
            length_penalty = float(length_penalty)
        except Exception:  # noqa: BLE001 (any conversion failure is a bad length_penalty)
            raise InputError("length_penalty must be a number") from None
    if math.isnan(length_penalty) or math.isinf(length_penalty) or length_penalty < 0:
        raise InputError("length_penalty must be a finite number >= 0")
    width = int(beam_width)
    ls = torch.log_softmax(start_logits.double(), -1).tolist()
    lt = torch.log_softmax(transition_logits.double(), -1).tolist()
    tokens = torch.full((B, max_len), int(pad_id), dtype=torch.int64)
    scores = torch.zeros(B, dtype=torch.float64)
    for b in range(B):
        beam = [(0.0, ())]
        done = []
        for t in range(1, max_len + 1):
            k = width - len(done)
            pool = []
            for lp, seq in beam:
                dist = ls[b] if t == 1 else lt[b][seq[-1]]
                for v, step in enumerate(dist):
                    pool.append((-(lp + step), seq + (v,)))
            best_k = heapq.nsmallest(k, pool)  # smallest -lp first, then the smaller sequence
            beam = []
            for neg, seq in best_k:
                if seq[-1] == eos_id or t == max_len:
                    done.append((-neg, seq))
                else:
                    beam.append((-neg, seq))
            if not beam:
                break
        ranked = sorted(((-(lp / len(seq) ** length_penalty), seq) for lp, seq in done))
        neg_score, seq = ranked[0]
        tokens[b, : len(seq)] = torch.tensor(seq)
        scores[b] = -neg_score
    return tokens.to(start_logits.device), scores.to(start_logits.dtype).to(start_logits.device)
