"""Exercise 49's exact targets, in float64: the mask, the constrained distribution (mask, temperature, top-k,
top-p, each followed by renormalizing), what each known mistake returns instead, and the exact law of the
sequences ``generate_constrained`` draws from a toy model.

Every threshold decision of a case must sit a relative ``MARGIN`` away from its threshold (the statement
leaves a relative 1e-3 open): :class:`AmbiguousCase` otherwise, and the generators draw another instance.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch

from ..public.diagnoses import MISTAKES

MARGIN = 2e-3
NEG_INF = float("-inf")


class AmbiguousCase(ValueError):
    """A top-k or top-p decision of the case lies within MARGIN of its threshold."""


def per_row(value, batch: int) -> list[float]:
    """A parameter (a number, or a [B] tensor) as B Python floats: exactly the values the learner is given."""
    if isinstance(value, torch.Tensor):
        return [float(v) for v in value.to(torch.float64).tolist()]
    return [float(value)] * batch


def allowed(transitions: torch.Tensor, states: torch.Tensor) -> torch.Tensor:
    """bool [B, V]: the target of ``allowed_mask``."""
    return transitions[states] >= 0


def filtered(z: Sequence[float], t: float, k: float, p: float, *, strict: bool = True) -> list[float]:
    """One row's distribution from its (already masked) logits ``z``: temperature, softmax, top-k, top-p, each
    filter renormalizing; temperature 0 is the one-hot of the first largest logit. With ``strict``, a decision
    within MARGIN of its threshold raises :class:`AmbiguousCase`. All -inf: NaN (what 0 / 0 gives)."""
    vocab = len(z)
    top = max(z)
    if top == NEG_INF:
        return [float("nan")] * vocab
    if t == 0:
        first = z.index(top)
        return [1.0 if v == first else 0.0 for v in range(vocab)]
    weights = [0.0 if x == NEG_INF else float(torch.tensor((x - top) / t, dtype=torch.float64).exp()) for x in z]
    probs = _normalized(weights)
    if 0 < k < vocab:
        ranked = sorted(probs, reverse=True)
        kth = ranked[int(k) - 1]
        if strict and kth > 0:
            for q in probs:
                if q != kth and abs(q - kth) < MARGIN * kth:
                    raise AmbiguousCase(f"top-k: {q} is within {MARGIN} of the cut {kth}")
        probs = _normalized([q if q >= kth else 0.0 for q in probs])
    if p < 1:
        order = sorted(range(vocab), key=lambda v: -probs[v])
        before, keep = 0.0, [False] * vocab
        for rank, v in enumerate(order):
            if probs[v] == 0:
                break
            if strict and abs(before - p) < MARGIN * p:
                raise AmbiguousCase(f"top-p: the mass {before} before rank {rank} is within {MARGIN} of {p}")
            if before < p:
                keep[v] = True
                if strict and rank + 1 < vocab and before + probs[v] >= p:
                    nxt = probs[order[rank + 1]]
                    if nxt > 0 and abs(nxt - probs[v]) < MARGIN * probs[v]:
                        raise AmbiguousCase("top-p: two tokens of near-equal probability straddle the cut")
            before += probs[v]
        probs = _normalized([q if keep[v] else 0.0 for v, q in enumerate(probs)])
    return probs


def _normalized(weights: list[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights]


def _rows(logits: torch.Tensor) -> list[list[float]]:
    return logits.to(torch.float64).tolist()


def target_probs(logits, transitions, states, temperature=1.0, top_k=0, top_p=1.0, *, strict=True) -> torch.Tensor:
    """float64 [B, V]: what ``constrained_probs`` returns. Raises :class:`AmbiguousCase` (strict) and
    ValueError for a row with nothing to draw (what the learner must raise too)."""
    batch = logits.shape[0]
    mask = allowed(transitions, states).tolist()
    ts, ks, ps = per_row(temperature, batch), per_row(top_k, batch), per_row(top_p, batch)
    out = []
    for b, row in enumerate(_rows(logits)):
        z = [x if mask[b][v] else NEG_INF for v, x in enumerate(row)]
        if max(z) == NEG_INF:
            raise ValueError(f"row {b} has nothing to draw from")
        out.append(filtered(z, ts[b], ks[b], ps[b], strict=strict))
    return torch.tensor(out, dtype=torch.float64)


def probs_mistakes(logits, transitions, states, temperature=1.0, top_k=0, top_p=1.0) -> dict:
    """diagnosis -> float64 [B, V]: what each known mistake of ``constrained_probs`` returns on this call
    (NaN rows where the mistake divides 0 by 0)."""
    batch = logits.shape[0]
    mask = allowed(transitions, states).tolist()
    ts, ks, ps = per_row(temperature, batch), per_row(top_k, batch), per_row(top_p, batch)
    after_softmax, before, zeros, greedy_raw, nan_bias, greedy_zeros = [], [], [], [], [], []
    target = target_probs(logits, transitions, states, temperature, top_k, top_p, strict=False).tolist()
    for b, row in enumerate(_rows(logits)):
        raw = filtered(row, ts[b], ks[b], ps[b], strict=False)
        masked = [q if mask[b][v] else 0.0 for v, q in enumerate(raw)]
        after_softmax.append(masked)
        total = sum(masked)
        before.append([q / total if total > 0 else float("nan") for q in masked])
        zeros.append(filtered([x if mask[b][v] else 0.0 for v, x in enumerate(row)], ts[b], ks[b], ps[b], strict=False))
        greedy_raw.append(filtered(row, 0.0, 0, 1.0) if ts[b] == 0 else target[b])
        greedy_zeros.append(zeros[-1] if ts[b] == 0 else target[b])
        # NaN on every allowed token: sampled rows are NaN; a greedy row's argmax takes the first NaN, the
        # first allowed token (its fingerprint, where that is not the right answer).
        first = mask[b].index(True)
        nan_bias.append([float(v == first) for v in range(len(row))] if ts[b] == 0 else [float("nan")] * len(row))
    as_tensor = lambda rows: torch.tensor(rows, dtype=torch.float64)  # noqa: E731
    return {
        MISTAKES["mask_after_softmax"]: as_tensor(after_softmax),
        MISTAKES["filters_before_mask"]: as_tensor(before),
        MISTAKES["mask_fills_zero"]: as_tensor(zeros),
        MISTAKES["greedy_ignores_mask"]: as_tensor(greedy_raw),
        MISTAKES["mask_bias_nan"]: as_tensor(nan_bias),
        MISTAKES["greedy_mask_multiplied"]: as_tensor(greedy_zeros),
    }


def mask_mistakes(transitions, states) -> dict:
    """diagnosis -> bool [B, V]: what each known mistake of ``allowed_mask`` returns."""
    return {MISTAKES["mask_gt_zero"]: transitions[states] > 0}


# --- sequences -----------------------------------------------------------------------------------------


def step_distributions(state_logits, transitions, logits_state=None) -> list[list[float] | None]:
    """For each state s, the distribution of the next token in s (None where nothing can be drawn): the
    masked softmax of ``state_logits[s]``, or of ``state_logits[logits_state]`` (a mistake's logits)."""
    rows = _rows(state_logits)
    out: list[list[float] | None] = []
    for s in range(transitions.shape[0]):
        mask = (transitions[s] >= 0).tolist()
        source = rows[s if logits_state is None else logits_state]
        z = [x if mask[v] else NEG_INF for v, x in enumerate(source)]
        out.append(None if max(z) == NEG_INF else filtered(z, 1.0, 0, 1.0, strict=False))
    return out


def sequence_law(state_logits, transitions, start: int, steps: int, logits_state=None):
    """(sequences, probabilities): every sequence of ``steps`` tokens a row started in ``start`` can draw with
    positive probability, in lexicographic order, and its exact probability (float64 [K]). Raises ValueError
    when a sequence of positive probability reaches a state with nothing to draw."""
    step = step_distributions(state_logits, transitions, logits_state)
    table = transitions.tolist()
    law: dict[tuple[int, ...], float] = {}

    def walk(state: int, prefix: tuple[int, ...], prob: float) -> None:
        if len(prefix) == steps:
            law[prefix] = law.get(prefix, 0.0) + prob
            return
        q = step[state]
        if q is None:
            raise ValueError(f"state {state} is reached with nothing to draw")
        for v, qv in enumerate(q):
            if qv > 0:
                walk(table[state][v], (*prefix, v), prob * qv)

    walk(start, (), 1.0)
    sequences = sorted(law)
    return sequences, torch.tensor([law[s] for s in sequences], dtype=torch.float64)


def reachable_states(transitions, start: int, steps: int) -> set[int]:
    """The states some row started in ``start`` draws from within ``steps`` steps (any token allowed)."""
    table, seen, frontier = transitions.tolist(), {start}, {start}
    for _ in range(steps - 1):
        frontier = {n for s in frontier for n in table[s] if n >= 0} - seen
        seen |= frontier
    return seen


def all_sequences(vocab: int, steps: int) -> list[tuple[int, ...]]:
    return list(itertools.product(range(vocab), repeat=steps))
