"""The judge's exact answers for exercise 42, in float64, and what each known mistake returns.

``log_prob`` is vectorized torch in float64; the decoders are plain Python over lists, written
apart from the reference solution (a second, independent reading of the statement), with one
switch per known mistake. Every decision they take (a greedy argmax, the top-k cut of a beam
step, the final choice) records its gap, so a case can prove that float32 rounding in a
learner's code cannot flip it: see ``Decoded.margin``. Every exact tie is recorded too
(``Decoded.tied``, the two sequences and what was compared), so a case about ties can prove that
the tie is exact in every float32 or float64 computation of its sums (:func:`tie_is_exact`).
"""

from __future__ import annotations

import functools
import math
import operator
import struct
from collections.abc import Callable, Sequence
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
    elif mistake == "logsumexp_unshifted":  # x - log(sum(exp(x))): exp overflows before the log
        table = x - torch.log(torch.exp(x).sum(dim=-1, keepdim=True))
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


# --- the arithmetic of the decoders --------------------------------------------------------------


def _f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (a float32 operation's result, from its exact float64 one)."""
    if math.isinf(x) or math.isnan(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


@dataclass(frozen=True)
class Arithmetic:
    """One way a correct solution may compute: its log-softmax tables and how it adds and divides."""

    name: str
    tables: str  # "math64": plain Python in float64; "torch64" / "torch32": torch.log_softmax in that dtype
    single: bool  # sums and scores rounded to float32 after every operation

    def add(self, a: float, b: float) -> float:
        return _f32(a + b) if self.single else a + b

    def score(self, lp: float, length: int, alpha: float) -> float:
        if self.single:
            scale = _f32(_f32(float(length)) ** _f32(alpha))
            return _f32(lp / scale) if scale else NEG_INF
        scale = float(length) ** alpha
        return lp / scale if scale else NEG_INF


PRIMARY = Arithmetic("float64", "math64", single=False)
# What a correct solution may do instead: torch's log_softmax in float64, float32 tables summed in
# float64, float32 throughout (the statement leaves the precision inside open).
ARITHMETICS = (
    PRIMARY,
    Arithmetic("torch float64", "torch64", single=False),
    Arithmetic("float32 tables, float64 sums", "torch32", single=False),
    Arithmetic("float32", "torch32", single=True),
)


def _log_softmax(row: list[float], how: str = "math64") -> list[float]:
    if how == "torch64":
        return torch.log_softmax(torch.tensor(row, dtype=torch.float64), dim=-1).tolist()
    if how == "torch32":
        return torch.log_softmax(torch.tensor(row, dtype=torch.float32), dim=-1).tolist()
    top = max(row)
    total = top + math.log(sum(math.exp(v - top) for v in row))
    return [v - total for v in row]


def tables(start: list[float], trans: list[list[float]], mistake: str | None = None, arithmetic: Arithmetic = PRIMARY):
    """The per-step log-probability tables of one row: start [V] and transition [V][V] (prev, next), never
    to be changed by the caller (they are cached: a case asks for the same row's many times)."""
    return _tables(tuple(start), tuple(map(tuple, trans)), mistake, arithmetic)


@functools.lru_cache(maxsize=4096)
def _tables(
    start: tuple[float, ...], trans: tuple[tuple[float, ...], ...], mistake: str | None, arithmetic: Arithmetic
):
    how = arithmetic.tables
    if mistake == "no_log_softmax":
        return list(start), [list(r) for r in trans]
    if mistake == "transition_wrong_axis":
        columns = [_log_softmax([trans[p][n] for p in range(len(trans))], how) for n in range(len(trans))]
        return _log_softmax(start, how), [[columns[n][p] for n in range(len(trans))] for p in range(len(trans))]
    return _log_softmax(start, how), [_log_softmax(r, how) for r in trans]


@dataclass
class Decoded:
    """One row's answer: tokens padded to max_len, the score, the gap of every decision and the exact ties."""

    tokens: list[int]
    score: float
    gaps: list[float] = field(default_factory=list)  # every decision's gap (0.0: an exact tie)
    # each exact tie: the two sequences and the length penalty they were compared under (0: log p alone)
    tied: list[tuple[tuple[int, ...], tuple[int, ...], float]] = field(default_factory=list)

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


GREEDY_TIE_ORDERS = ("greedy_ties_highest_id",)


def _greedy_row(
    start, trans, eos: int, max_len: int, pad: int, mistake: str | None = None, arithmetic: Arithmetic = PRIMARY
) -> Decoded:
    start_lp, trans_lp = tables(start, trans, mistake, arithmetic)
    if mistake == "eos_not_first":
        start_lp = _no_eos_first(start_lp, eos)
    out: list[int] = []
    total, gaps, tied, row = 0.0, [], [], start_lp
    for t in range(max_len):
        if mistake == "greedy_ties_highest_id":
            best = max(range(len(row)), key=lambda v: (row[v], v))
        else:
            best = max(range(len(row)), key=lambda v: (row[v], -v))
        runner_up = max((v for v in range(len(row)) if v != best), key=lambda v: (row[v], -v), default=None)
        if runner_up is not None:
            gaps.append(_gap(row[best], row[runner_up]))
            if row[best] == row[runner_up]:
                tied.append((tuple(out) + (best,), tuple(out) + (runner_up,), 0.0))
        out.append(best)
        total = arithmetic.add(total, row[best])
        ends = best == eos and mistake != "greedy_ignores_eos"
        if mistake == "greedy_eos_first_ignored" and t == 0:
            ends = False  # only tokens drawn from the transitions are tested for EOS
        if ends:
            break
        row = trans_lp[best]
    return Decoded(out + [pad] * (max_len - len(out)), total, gaps, tied)


# Tie orders a beam search may wrongly use (each one's diagnosis is ``TIES``).
BEAM_TIE_ORDERS = (
    "ties_token_major",  # candidates listed token by token, then by hypothesis
    "ties_parents_by_score",  # the beam kept in score order: ties go to the likelier parent
    "ties_larger_first",  # ascending sort read from the end: ties go to the larger sequence
    "final_tie_first_finished",  # equal final scores: the one that finished first
    "final_tie_last_finished",  # equal final scores: the one that finished last
)


_LOG_PROB, _INDEX, _SEQUENCE = operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)


def _beam_row(
    start,
    trans,
    eos: int,
    max_len: int,
    pad: int,
    width: int,
    alpha: float,
    mistake: str | None = None,
    arithmetic: Arithmetic = PRIMARY,
) -> Decoded:
    """The statement's shrinking beam search on one row (or a known mistake of it)."""
    start_lp, trans_lp = tables(start, trans, mistake, arithmetic)
    add = arithmetic.add
    if mistake == "eos_not_first":
        start_lp = _no_eos_first(start_lp, eos)
    vocab = len(start_lp)
    alive: list[tuple[tuple[int, ...], float]] = [((), 0.0)] * (width if mistake == "beams_not_deduplicated" else 1)
    pool: list[tuple[tuple[int, ...], float]] = []
    gaps: list[float] = []
    tied: list[tuple[tuple[int, ...], tuple[int, ...], float]] = []
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
                candidates += [(add(lp, row[v]), v * len(alive) + slot, seq + (v,)) for v in choices]
            elif arithmetic.single:
                candidates += [(add(lp, row[v]), slot * vocab + v, seq + (v,)) for v in choices]
            else:  # the common case, written out: the judge draws hundreds of rows per grading
                candidates += [(lp + row[v], slot * vocab + v, seq + (v,)) for v in choices]
        # By log-probability, descending; equal ones by the second key: Python's sort is stable, also
        # with reverse=True, so sorting by that key first and by log-probability second does both.
        if mistake == "finished_compete":
            candidates.sort(key=_SEQUENCE)
        elif mistake == "ties_larger_first":
            candidates.sort(key=_INDEX, reverse=True)
        elif mistake == "ties_token_major" or candidates[0][1] < 0:
            candidates.sort(key=_INDEX)
        candidates.sort(key=_LOG_PROB, reverse=True)
        k = width if mistake == "beam_not_shrunk" else width - finished
        if 0 < k < len(candidates):
            gaps.append(_gap(candidates[k - 1][0], candidates[k][0]))
            if candidates[k - 1][0] == candidates[k][0]:
                tied.append((candidates[k - 1][2], candidates[k][2], 0.0))
        chosen = candidates[:k]
        if mistake != "ties_parents_by_score":  # the beam kept in lexicographic order (the flat index)
            chosen = sorted(chosen, key=lambda c: c[1])
        last = t == max_len - 1
        ends_here = [c for c in chosen if c[2][-1] == eos or len(c[2]) <= t]
        if mistake == "unfinished_dropped_at_max_len":
            joined = [(seq, lp) for lp, _, seq in ends_here]
        else:
            joined = [(seq, lp) for lp, _, seq in chosen if seq[-1] == eos or last or len(seq) <= t]
        alive = [(seq, lp) for lp, _, seq in chosen if seq[-1] != eos and not last and len(seq) > t]
        finished += len(joined)
        if mistake == "finished_beams_dropped":
            pool = joined  # only the last step's hypotheses survive
        else:
            pool += joined
        if last and mistake == "unfinished_dropped_at_max_len" and not pool:
            pool = [(seq, lp) for lp, _, seq in chosen]  # the unfinished beam, only when nothing finished
        if not alive or (mistake == "stops_at_first_eos" and joined):
            break
        if mistake == "beam_not_shrunk" and len(pool) >= width:
            break
    if not pool:
        return Decoded([pad] * max_len, NEG_INF, gaps, tied)

    def score(seq, lp):
        length = len(seq)
        if mistake == "length_excludes_eos" and seq[-1] == eos:
            length -= 1
        if mistake == "length_counts_non_pad":  # the length read back from the padded output (at least 1)
            length = max(1, sum(1 for v in seq if v != pad))
        power = {"length_penalty_ignored": 0.0, "length_penalty_twice": 2 * alpha}.get(mistake, alpha)
        return arithmetic.score(lp, length, power)

    if mistake == "length_penalty_only_reported":  # chosen by log-probability, reported with the penalty
        best, lp = sorted(pool, key=lambda c: (-c[1], c[0]))[0]
        return Decoded(list(best) + [pad] * (max_len - len(best)), score(best, lp), gaps, tied)
    order = {
        "final_tie_first_finished": lambda i, seq: i,
        "final_tie_last_finished": lambda i, seq: -i,
        "ties_larger_first": lambda i, seq: tuple(-v for v in seq),
    }.get(mistake, lambda i, seq: seq)
    ranked = sorted(
        ((score(seq, lp), seq, i) for i, (seq, lp) in enumerate(pool)), key=lambda c: (-c[0], order(c[2], c[1]))
    )
    if len(ranked) > 1:
        gaps.append(_gap(ranked[0][0], ranked[1][0]))
        if ranked[0][0] == ranked[1][0]:
            tied.append((ranked[0][1], ranked[1][1], alpha))
    best_score, best, _ = ranked[0]
    return Decoded(list(best) + [pad] * (max_len - len(best)), best_score, gaps, tied)


def _frozen(start, trans) -> tuple[tuple[float, ...], tuple[tuple[float, ...], ...]]:
    return tuple(start), tuple(map(tuple, trans))


@functools.lru_cache(maxsize=8192)
def _greedy_cached(start, trans, eos, max_len, pad, mistake, arithmetic) -> Decoded:
    return _greedy_row(start, trans, eos, max_len, pad, mistake, arithmetic)


@functools.lru_cache(maxsize=8192)
def _beam_cached(start, trans, eos, max_len, pad, width, alpha, mistake, arithmetic) -> Decoded:
    return _beam_row(start, trans, eos, max_len, pad, width, alpha, mistake, arithmetic)


def greedy_row(
    start, trans, eos: int, max_len: int, pad: int, mistake: str | None = None, arithmetic: Arithmetic = PRIMARY
) -> Decoded:
    """Greedy decoding of one row (start [V], transition [V][V] logits as float64 lists), or a known mistake
    of it. Cached: a case asks for the same row's answer when it draws it and when it judges it (the
    answer is shared: never change it)."""
    return _greedy_cached(*_frozen(start, trans), eos, max_len, pad, mistake, arithmetic)


def beam_row(
    start,
    trans,
    eos: int,
    max_len: int,
    pad: int,
    width: int,
    alpha: float,
    mistake: str | None = None,
    arithmetic: Arithmetic = PRIMARY,
) -> Decoded:
    """The statement's shrinking beam search on one row, or a known mistake of it; cached as greedy_row."""
    return _beam_cached(*_frozen(start, trans), eos, max_len, pad, width, float(alpha), mistake, arithmetic)


def _rows(start: torch.Tensor, trans: torch.Tensor):
    s = start.to(torch.float64).tolist()
    tr = trans.to(torch.float64).tolist()
    return list(zip(s, tr, strict=True))


def greedy(start, trans, eos, max_len, pad, mistake=None) -> list[Decoded]:
    return [greedy_row(s, t, eos, max_len, pad, mistake) for s, t in _rows(start, trans)]


def beam(start, trans, eos, max_len, pad, width, alpha, mistake=None) -> list[Decoded]:
    return [beam_row(s, t, eos, max_len, pad, width, alpha, mistake) for s, t in _rows(start, trans)]


GREEDY_MISTAKES = (
    "transition_wrong_axis",
    "no_log_softmax",
    "greedy_ignores_eos",
    "eos_not_first",
    "greedy_eos_first_ignored",
)
GREEDY_ONLY = ("greedy_ignores_eos", "greedy_eos_first_ignored")


def greedy_mistakes(start, trans, eos, max_len, pad) -> dict:
    """Diagnosis -> [Decoded] for the mistakes that change greedy decoding."""
    return {DECODING[name]: greedy(start, trans, eos, max_len, pad, name) for name in GREEDY_MISTAKES}


def beam_mistakes(start, trans, eos, max_len, pad, width, alpha) -> dict:
    """Diagnosis -> [Decoded] for every decoding mistake that changes beam search."""
    return {
        text: beam(start, trans, eos, max_len, pad, width, alpha, name)
        for name, text in DECODING.items()
        if name not in GREEDY_ONLY
    }


# --- whether a tie is exact everywhere -----------------------------------------------------------


_ORDERS: tuple[Callable[[list[float]], list[float]], ...] = (
    lambda terms: terms,
    lambda terms: terms[::-1],
    lambda terms: sorted(terms),
    lambda terms: sorted(terms, reverse=True),
)


def _sums(terms: list[float], single: bool) -> set[float]:
    """The sum of ``terms`` in several orders (and pairwise), in float64 or float32 arithmetic."""
    out = set()
    add = (lambda a, b: _f32(a + b)) if single else (lambda a, b: a + b)
    for order in _ORDERS:
        total = 0.0
        for term in order(terms):
            total = add(total, term)
        out.add(total)
    level = list(terms) or [0.0]
    while len(level) > 1:
        level = [add(level[i], level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    out.add(level[0])
    return out


def tie_is_exact(start, trans, first: Sequence[int], second: Sequence[int], alpha: float) -> bool:
    """Whether two sequences of one row have equal scores in every arithmetic of :data:`ARITHMETICS`
    and every order of summing their per-step log-probabilities (each sum the same number whatever
    the order, and the two equal)."""
    for arithmetic in ARITHMETICS:
        start_lp, trans_lp = tables(start, trans, None, arithmetic)
        values = []
        for seq in (first, second):
            terms = [start_lp[seq[0]]] + [trans_lp[a][b] for a, b in zip(seq, seq[1:], strict=False)]
            sums = _sums(terms, arithmetic.single)
            if len(sums) != 1:
                return False
            values.append(arithmetic.score(sums.pop(), len(seq), alpha) if len(seq) else 0.0)
        if values[0] != values[1]:
            return False
    return True


def robust_greedy(start, trans, eos, max_len, pad) -> bool:
    """Whether every arithmetic decodes this row to the same tokens, with every tie exact."""
    rows = [greedy_row(start, trans, eos, max_len, pad, None, a) for a in ARITHMETICS]
    return all(r.tokens == rows[0].tokens for r in rows) and all(
        tie_is_exact(start, trans, a, b, penalty) for a, b, penalty in rows[0].tied
    )


def robust_beam(start, trans, eos, max_len, pad, width, alpha) -> bool:
    """Whether every arithmetic finds the same answer, with every tie exact (the final choice's
    under the length penalty, the steps' without)."""
    rows = [beam_row(start, trans, eos, max_len, pad, width, alpha, None, a) for a in ARITHMETICS]
    return all(r.tokens == rows[0].tokens for r in rows) and all(
        tie_is_exact(start, trans, a, b, penalty) for a, b, penalty in rows[0].tied
    )
