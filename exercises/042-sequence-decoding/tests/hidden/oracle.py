"""The judge's exact answers for exercise 42, in float64, and what each known mistake returns.

``log_prob`` is vectorized torch in float64; the decoders are plain Python over lists, written
apart from the reference solution (a second, independent reading of the statement), with one
switch per known mistake. Every decision they take (a greedy argmax, the top-k cut of a beam
step, the final choice) records its gap, so a frozen case can prove that float32 rounding in a
learner's code cannot flip it: see ``Decoded.margin``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..public.diagnoses import DECODING, LOG_PROB

NEG_INF = float("-inf")


# --- sequence_log_prob -------------------------------------------------------------------------


def log_prob(
    logits: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor, mistake: str | None = None
) -> torch.Tensor | None:
    """float64 [B]: the exact answer, or what ``mistake`` (a key of LOG_PROB) returns (None: it raises)."""
    x = logits.to(torch.float64)
    batch, length, vocab = x.shape
    ids = tokens.clone()
    keep = mask.clone()
    if mistake == "padding_counted":
        keep = torch.ones_like(mask)
    if mistake == "logits_shifted":  # logits[:, t] scores tokens[:, t + 1]; the first token is never scored
        x, ids, keep = x[:, :-1], ids[:, 1:], keep[:, 1:]
    if mistake == "log_softmax_wrong_axis":
        table = torch.log_softmax(x, dim=1)
    elif mistake == "no_log_softmax":
        table = x
    elif mistake == "softmax_overflow":
        table = torch.log(torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True))
    elif mistake in ("log_of_softmax", "linear_space_product"):
        table = torch.log(torch.softmax(x, dim=-1))
    else:
        table = torch.log_softmax(x, dim=-1)
    if mistake in ("padding_ids_gathered", "padding_counted") and bool(((tokens < 0) | (tokens >= vocab)).any()):
        return None  # gather refuses the padded ids: the mistake raises instead of returning
    safe = torch.where(keep, ids, torch.zeros_like(ids)).clamp(0, vocab - 1)
    picked = table.gather(2, safe.unsqueeze(-1)).squeeze(-1)
    if mistake == "padding_multiplied":
        return (picked * keep.to(torch.float64)).sum(dim=1)
    if mistake == "linear_space_product":
        probs = torch.where(keep, torch.softmax(x, dim=-1).gather(2, safe.unsqueeze(-1)).squeeze(-1), 1.0)
        return torch.log(probs.prod(dim=1))
    return torch.where(keep, picked, torch.zeros_like(picked)).sum(dim=1)


def log_prob_mistakes(logits, tokens, mask) -> dict:
    """Diagnosis -> what that mistake returns (float64 [B]), in catalogue order."""
    found = {text: log_prob(logits, tokens, mask, name) for name, text in LOG_PROB.items()}
    return {text: value for text, value in found.items() if value is not None}


# --- decoding -----------------------------------------------------------------------------------


def _log_softmax(row: list[float]) -> list[float]:
    top = max(row)
    total = top + math.log(sum(math.exp(v - top) for v in row))
    return [v - total for v in row]


def tables(start: list[float], trans: list[list[float]], mistake: str | None = None):
    """The per-step log-probability tables of one row: start [V] and transition [V][V] (prev, next)."""
    if mistake == "no_log_softmax":
        return list(start), [list(r) for r in trans]
    if mistake == "transition_wrong_axis":
        columns = [_log_softmax([trans[p][n] for p in range(len(trans))]) for n in range(len(trans))]
        return _log_softmax(start), [[columns[n][p] for n in range(len(trans))] for p in range(len(trans))]
    return _log_softmax(start), [_log_softmax(r) for r in trans]


@dataclass
class Decoded:
    """One row's answer: tokens padded to max_len, the score, and the smallest gap of any decision."""

    tokens: list[int]
    score: float
    gaps: list[float] = field(default_factory=list)  # every decision's gap (0.0: an exact tie)

    @property
    def margin(self) -> float:
        nonzero = [g for g in self.gaps if g > 0]
        return min(nonzero, default=math.inf)

    @property
    def ties(self) -> int:
        return sum(1 for g in self.gaps if g == 0)


def _gap(a: float, b: float) -> float:
    """A decision's relative gap: 0 for an exact tie."""
    if a == b:
        return 0.0
    return abs(a - b) / (1.0 + max(abs(a), abs(b)))


def _no_eos_first(start_lp: list[float], eos: int) -> list[float]:
    """The mistake eos_not_first: EOS masked out of the first step's log-probabilities (not renormalized)."""
    return [NEG_INF if v == eos else lp for v, lp in enumerate(start_lp)]


def greedy_row(start, trans, eos: int, max_len: int, pad: int, mistake: str | None = None) -> Decoded:
    start_lp, trans_lp = tables(start, trans, mistake)
    if mistake == "eos_not_first":
        start_lp = _no_eos_first(start_lp, eos)
    out, total, gaps, row = [], 0.0, [], start_lp
    for _ in range(max_len):
        best = max(range(len(row)), key=lambda v: (row[v], -v))
        runner_up = max((row[v] for v in range(len(row)) if v != best), default=NEG_INF)
        gaps.append(_gap(row[best], runner_up))
        out.append(best)
        total += row[best]
        if best == eos and mistake != "greedy_ignores_eos":
            break
        row = trans_lp[best]
    return Decoded(out + [pad] * (max_len - len(out)), total, gaps)


def beam_row(
    start, trans, eos: int, max_len: int, pad: int, width: int, alpha: float, mistake: str | None = None
) -> Decoded:
    """The statement's shrinking beam search on one row (or a known mistake of it)."""
    start_lp, trans_lp = tables(start, trans, mistake)
    if mistake == "eos_not_first":
        start_lp = _no_eos_first(start_lp, eos)
    vocab = len(start_lp)
    alive: list[tuple[tuple[int, ...], float]] = [((), 0.0)] * (width if mistake == "beams_not_deduplicated" else 1)
    pool: list[tuple[tuple[int, ...], float]] = []
    gaps: list[float] = []
    finished = 0
    for t in range(max_len):
        candidates = []
        if mistake == "finished_compete":  # finished hypotheses stay in the beam and compete for its slots
            candidates = [(lp, -1, seq) for seq, lp in pool]
            pool, finished = [], 0
        for slot, (seq, lp) in enumerate(alive):
            row = start_lp if t == 0 else trans_lp[seq[-1]]
            choices = range(vocab)
            if mistake == "per_beam_best_only" and t > 0:
                choices = [max(range(vocab), key=lambda v: (row[v], -v))]
            if mistake == "ties_token_major":  # equal log-probabilities ordered by token, then by hypothesis
                candidates += [(lp + row[v], v * len(alive) + slot, seq + (v,)) for v in choices]
                continue
            candidates += [(lp + row[v], slot * vocab + v, seq + (v,)) for v in choices]
        candidates.sort(key=lambda c: (-c[0], c[2]) if mistake == "finished_compete" else (-c[0], c[1]))
        k = width if mistake == "beam_not_shrunk" else width - finished
        if 0 < k < len(candidates):
            gaps.append(_gap(candidates[k - 1][0], candidates[k][0]))
        chosen = sorted(candidates[:k], key=lambda c: c[1])
        last = t == max_len - 1
        joined = [(seq, lp) for lp, _, seq in chosen if seq[-1] == eos or last or len(seq) <= t]
        alive = [(seq, lp) for lp, _, seq in chosen if seq[-1] != eos and not last and len(seq) > t]
        finished += len(joined)
        if mistake == "finished_beams_dropped":
            pool = joined  # only the last step's hypotheses survive
        else:
            pool += joined
        if not alive or (mistake == "stops_at_first_eos" and joined):
            break
        if mistake == "beam_not_shrunk" and len(pool) >= width:
            break
    if not pool:
        return Decoded([pad] * max_len, NEG_INF, gaps)

    def score(seq, lp):
        length = len(seq)
        if mistake == "length_excludes_eos" and seq[-1] == eos:
            length -= 1
        if mistake == "length_counts_non_pad":  # the length read back from the padded output
            length = sum(1 for v in seq if v != pad)
        power = {"length_penalty_ignored": 0.0, "length_penalty_twice": 2 * alpha}.get(mistake, alpha)
        scale = float(length) ** power
        return lp / scale if scale else NEG_INF

    if mistake == "length_penalty_only_reported":  # chosen by log-probability, reported with the penalty
        best, lp = sorted(pool, key=lambda c: (-c[1], c[0]))[0]
        return Decoded(list(best) + [pad] * (max_len - len(best)), score(best, lp), gaps)
    ranked = sorted(((score(seq, lp), seq) for seq, lp in pool), key=lambda c: (-c[0], c[1]))
    if len(ranked) > 1:
        gaps.append(_gap(ranked[0][0], ranked[1][0]))
    best_score, best = ranked[0]
    return Decoded(list(best) + [pad] * (max_len - len(best)), best_score, gaps)


def _rows(start: torch.Tensor, trans: torch.Tensor):
    s = start.to(torch.float64).tolist()
    tr = trans.to(torch.float64).tolist()
    return list(zip(s, tr, strict=True))


def greedy(start, trans, eos, max_len, pad, mistake=None) -> list[Decoded]:
    return [greedy_row(s, t, eos, max_len, pad, mistake) for s, t in _rows(start, trans)]


def beam(start, trans, eos, max_len, pad, width, alpha, mistake=None) -> list[Decoded]:
    return [beam_row(s, t, eos, max_len, pad, width, alpha, mistake) for s, t in _rows(start, trans)]


GREEDY_MISTAKES = ("transition_wrong_axis", "no_log_softmax", "greedy_ignores_eos", "eos_not_first")


def greedy_mistakes(start, trans, eos, max_len, pad) -> dict:
    """Diagnosis -> [Decoded] for the mistakes that change greedy decoding."""
    return {DECODING[name]: greedy(start, trans, eos, max_len, pad, name) for name in GREEDY_MISTAKES}


def beam_mistakes(start, trans, eos, max_len, pad, width, alpha) -> dict:
    """Diagnosis -> [Decoded] for every decoding mistake that changes beam search."""
    return {
        text: beam(start, trans, eos, max_len, pad, width, alpha, name)
        for name, text in DECODING.items()
        if name != "greedy_ignores_eos"
    }
