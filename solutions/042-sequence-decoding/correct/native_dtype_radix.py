"""Another correct solution of exercise 42, written from the statement alone (the red team, 2026-12).

Works in the logits' own dtype (float32 stays float32: the statement leaves the precision inside
open and keeps decisions 1e-3 apart); beam hypotheses stored as a LongTensor [n, t], put into
lexicographic order each step by a radix of stable sorts over the columns, then candidates ranked by
one stable descending sort; greedy with a stable sort's first index.
"""

from __future__ import annotations

import math
import numbers

import torch


def _integer(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def sequence_log_prob(logits, tokens, mask):
    if not (torch.is_tensor(logits) and logits.is_floating_point() and logits.dim() == 3):
        raise ValueError("logits must be a 3-D floating tensor")
    B, T, V = logits.shape
    if not (torch.is_tensor(tokens) and tokens.dtype == torch.int64 and tokens.shape == (B, T)):
        raise ValueError("tokens must be int64 [B, T]")
    if not (torch.is_tensor(mask) and mask.dtype == torch.bool and mask.shape == (B, T)):
        raise ValueError("mask must be bool [B, T]")
    real = torch.masked_select(tokens, mask)
    if real.numel() and (real.min() < 0 or real.max() >= V):
        raise ValueError("real token out of range")
    lp = torch.log_softmax(torch.where(mask[..., None], logits, logits.new_zeros(())), dim=-1)
    idx = torch.where(mask, tokens, 0)
    vals = torch.take_along_dim(lp, idx[..., None], dim=-1)[..., 0]
    return torch.where(mask, vals, vals.new_zeros(())).sum(-1)


def _check(start_logits, transition_logits, eos_id, max_len):
    if not (torch.is_tensor(start_logits) and start_logits.is_floating_point() and start_logits.dim() == 2):
        raise ValueError("start_logits must be floating [B, V]")
    B, V = start_logits.shape
    if not (
        torch.is_tensor(transition_logits)
        and transition_logits.shape == (B, V, V)
        and transition_logits.dtype == start_logits.dtype
    ):
        raise ValueError("transition_logits must be [B, V, V] of the same dtype")
    if V < 2:
        raise ValueError("need V >= 2")
    if not (torch.isfinite(start_logits).all() and torch.isfinite(transition_logits).all()):
        raise ValueError("logits must be finite")
    if not (_integer(eos_id) and 0 <= eos_id < V):
        raise ValueError("bad eos_id")
    if not (_integer(max_len) and max_len >= 1):
        raise ValueError("bad max_len")
    return B, V


def greedy_decode(start_logits, transition_logits, eos_id, max_len, pad_id):
    B, V = _check(start_logits, transition_logits, eos_id, max_len)
    ls = torch.log_softmax(start_logits, -1)
    lt = torch.log_softmax(transition_logits, -1)
    toks = torch.full((B, max_len), pad_id, dtype=torch.int64, device=start_logits.device)
    score = torch.zeros(B, dtype=start_logits.dtype, device=start_logits.device)
    running = torch.ones(B, dtype=torch.bool, device=start_logits.device)
    b_idx = torch.arange(B, device=start_logits.device)
    dist = ls
    for t in range(max_len):
        top = torch.sort(dist, dim=-1, descending=True, stable=True).indices[:, 0]
        score = score + torch.where(running, dist[b_idx, top], torch.zeros_like(score))
        toks[:, t] = torch.where(running, top, toks[:, t])
        running = running & (top != eos_id)
        dist = lt[b_idx, top]
    return toks, score


def _lex_order(seqs):
    order = torch.arange(seqs.shape[0])
    for col in range(seqs.shape[1] - 1, -1, -1):
        order = order[torch.sort(seqs[order, col], stable=True).indices]
    return order


def beam_search(start_logits, transition_logits, eos_id, max_len, pad_id, beam_width=4, length_penalty=1.0):
    B, V = _check(start_logits, transition_logits, eos_id, max_len)
    if not (_integer(beam_width) and 1 <= beam_width <= V):
        raise ValueError("bad beam_width")
    if (
        not isinstance(length_penalty, numbers.Real)
        or isinstance(length_penalty, bool)
        or not math.isfinite(length_penalty)
        or length_penalty < 0
    ):
        raise ValueError("bad length_penalty")
    dt = start_logits.dtype
    ls_all = torch.log_softmax(start_logits, -1).cpu()
    lt_all = torch.log_softmax(transition_logits, -1).cpu()
    out = torch.full((B, max_len), pad_id, dtype=torch.int64)
    out_scores = torch.zeros(B, dtype=dt)
    for b in range(B):
        seqs = torch.zeros(1, 0, dtype=torch.int64)
        lps = torch.zeros(1, dtype=dt)
        fin = []  # (tuple, logp tensor)
        for t in range(1, max_len + 1):
            k = beam_width - len(fin)
            rows = ls_all[b].unsqueeze(0) if t == 1 else lt_all[b][seqs[:, -1]]
            cand = (lps.unsqueeze(1) + rows).reshape(-1)
            pick = torch.sort(cand, descending=True, stable=True).indices[:k]
            h, v = pick // V, pick % V
            new_seqs = torch.cat([seqs[h], v.unsqueeze(1)], dim=1)
            new_lps = cand[pick]
            ends = (v == eos_id) | (t == max_len)
            for i in ends.nonzero().flatten().tolist():
                fin.append((tuple(new_seqs[i].tolist()), new_lps[i]))
            keep = (~ends).nonzero().flatten()
            if keep.numel() == 0:
                break
            seqs, lps = new_seqs[keep], new_lps[keep]
            order = _lex_order(seqs)
            seqs, lps = seqs[order], lps[order]
        scored = [(seq, lp / (len(seq) ** length_penalty)) for seq, lp in fin]
        best_seq, best_score = scored[0]
        for seq, sc in scored[1:]:
            if sc > best_score or (sc == best_score and seq < best_seq):
                best_seq, best_score = seq, sc
        out[b, : len(best_seq)] = torch.tensor(best_seq)
        out_scores[b] = best_score
    return out.to(start_logits.device), out_scores.to(start_logits.device)
