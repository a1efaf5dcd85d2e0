"""Another correct solution of exercise 42, written from the statement alone (the red team, 2026-12).

float64 via logits.to(float64) and torch.logsumexp; the beam's k candidates picked one at a time:
the largest remaining log-probability, and among exactly tied maxima the lexicographically smallest
sequence (compared as tuples); greedy as a loop over steps vectorised over rows with argmax;
validation written as a table of checks.
"""

from __future__ import annotations

import math
import numbers

import torch


def _fail(msg):
    raise ValueError(msg)


def sequence_log_prob(logits, tokens, mask):
    checks = [
        (
            isinstance(logits, torch.Tensor) and logits.is_floating_point() and logits.ndim == 3,
            "logits must be floating 3-D",
        ),
    ]
    for ok, msg in checks:
        if not ok:
            _fail(msg)
    B, T, V = logits.shape
    if not (isinstance(tokens, torch.Tensor) and tokens.dtype is torch.int64 and list(tokens.shape) == [B, T]):
        _fail("tokens must be int64 [B, T]")
    if not (isinstance(mask, torch.Tensor) and mask.dtype is torch.bool and list(mask.shape) == [B, T]):
        _fail("mask must be bool [B, T]")
    if bool(((tokens < 0) | (tokens >= V)).logical_and(mask).any()):
        _fail("real token outside [0, V)")
    x = torch.where(mask[:, :, None], logits.to(torch.float64), 0.0)
    tok = torch.where(mask, tokens, torch.zeros_like(tokens))
    per = x.gather(2, tok[:, :, None])[:, :, 0] - torch.logsumexp(x, dim=2)
    per = torch.where(mask, per, 0.0)
    return per.sum(1).to(logits.dtype)


def _validate(start_logits, transition_logits, eos_id, max_len):
    if not (isinstance(start_logits, torch.Tensor) and start_logits.ndim == 2 and start_logits.is_floating_point()):
        _fail("start_logits must be a floating [B, V] tensor")
    B, V = start_logits.shape
    table = [
        (isinstance(transition_logits, torch.Tensor), "transition_logits must be a tensor"),
        (
            isinstance(transition_logits, torch.Tensor) and tuple(transition_logits.shape) == (B, V, V),
            "transition_logits must be [B, V, V]",
        ),
        (
            isinstance(transition_logits, torch.Tensor) and transition_logits.dtype == start_logits.dtype,
            "dtypes differ",
        ),
        (V >= 2, "V must be >= 2"),
        (
            isinstance(eos_id, numbers.Integral) and not isinstance(eos_id, bool) and 0 <= eos_id < V,
            "eos_id must be an integer in [0, V)",
        ),
        (
            isinstance(max_len, numbers.Integral) and not isinstance(max_len, bool) and max_len >= 1,
            "max_len must be an integer >= 1",
        ),
    ]
    for ok, msg in table:
        if not ok:
            _fail(msg)
    if not (torch.isfinite(start_logits).all() and torch.isfinite(transition_logits).all()):
        _fail("logits must be finite")
    return B, V


def greedy_decode(start_logits, transition_logits, eos_id, max_len, pad_id):
    B, V = _validate(start_logits, transition_logits, eos_id, max_len)
    dev = start_logits.device
    ls = start_logits.to(torch.float64)
    ls = ls - torch.logsumexp(ls, -1, keepdim=True)
    lt = transition_logits.to(torch.float64)
    lt = lt - torch.logsumexp(lt, -1, keepdim=True)
    out = torch.full((B, max_len), pad_id, dtype=torch.long, device=dev)
    total = torch.zeros(B, dtype=torch.float64, device=dev)
    done = torch.zeros(B, dtype=torch.bool, device=dev)
    prev = None
    for t in range(max_len):
        dist = ls if prev is None else lt[torch.arange(B, device=dev), prev]
        nxt = dist.argmax(-1)
        gain = dist.gather(1, nxt[:, None])[:, 0]
        total = total + torch.where(done, 0.0, gain)
        out[:, t] = torch.where(done, out[:, t], nxt)
        done = done | (nxt == eos_id)
        prev = nxt
    return out, total.to(start_logits.dtype)


def _select(cands, k):
    """cands: list of (logp, seq). Pick k: highest logp, ties -> smallest seq."""
    remaining = list(cands)
    chosen = []
    for _ in range(k):
        top = max(lp for lp, _ in remaining)
        tied = [c for c in remaining if c[0] == top]
        pick = min(tied, key=lambda c: c[1])
        chosen.append(pick)
        remaining.remove(pick)
    return chosen


def beam_search(start_logits, transition_logits, eos_id, max_len, pad_id, beam_width=4, length_penalty=1.0):
    B, V = _validate(start_logits, transition_logits, eos_id, max_len)
    if not (isinstance(beam_width, numbers.Integral) and not isinstance(beam_width, bool) and 1 <= beam_width <= V):
        _fail("beam_width must be an integer in [1, V]")
    if not (isinstance(length_penalty, numbers.Real) and not isinstance(length_penalty, bool)):
        _fail("length_penalty must be a number")
    if not math.isfinite(length_penalty) or length_penalty < 0:
        _fail("length_penalty must be finite and >= 0")
    ls = start_logits.to(torch.float64).log_softmax(-1).cpu()
    lt = transition_logits.to(torch.float64).log_softmax(-1).cpu()
    rows_out, scores_out = [], []
    for b in range(B):
        beam, finished = [(0.0, ())], []
        t = 0
        while beam:
            t += 1
            k = beam_width - len(finished)
            cands = []
            for lp, seq in beam:
                dist = (ls[b] if t == 1 else lt[b, seq[-1]]).tolist()
                cands += [(lp + d, seq + (v,)) for v, d in enumerate(dist)]
            beam = []
            for lp, seq in _select(cands, k):
                if seq[-1] == eos_id or t == max_len:
                    finished.append((lp, seq))
                else:
                    beam.append((lp, seq))
        scored = [(lp / len(seq) ** length_penalty, seq) for lp, seq in finished]
        score, seq = _select(scored, 1)[0]
        rows_out.append(list(seq) + [pad_id] * (max_len - len(seq)))
        scores_out.append(score)
    dev = start_logits.device
    return (
        torch.tensor(rows_out, dtype=torch.long, device=dev).reshape(B, max_len),
        torch.tensor(scores_out, dtype=start_logits.dtype, device=dev),
    )
