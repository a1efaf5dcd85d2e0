"""The exact target of exercise 47 in float64, and the distributions of its known mistakes.

Runs only in the judge's process. ``target`` follows the statement on float64 copies of the (float32
or float64) logits and verifies that every decision of a row keeps a margin from its threshold:
a relative ``margin`` for the typical mass, epsilon and eta (``MARGIN`` for frozen cases,
``STATED_MARGIN``, the statement's "near a threshold" rule, for generated ones), the same margin in
nats between the scores of a kept and a cut token of different probabilities, and no token within it
of the largest probability unless tied with it exactly. A row that breaks one raises
:class:`AmbiguousCase`. ``mistaken`` computes what a known mistake returns, with the same operations
in the logits' own dtype as the mistaken code runs them (a float32 running total that reaches 1 early
is part of a mistake), for diagnoses only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from ..public.diagnoses import DISTRIBUTION_MISTAKES, MISTAKES

MARGIN = 2e-3  # the frozen cases' own margin: twice the statement's
STATED_MARGIN = 1e-3  # "a decision within a relative 1e-3 of its threshold may go either way"
METHODS = ("typical", "epsilon", "eta")


class AmbiguousCase(ValueError):
    """A case sits too close to a threshold: a correct float32 solution could flip a token."""


@dataclass(frozen=True)
class Call:
    """One call's inputs as numbers: ``logits`` (float32 or float64 [B, V]), the method, and each
    row's parameter and temperature (floats, as the call's numbers or tensors hold them)."""

    logits: torch.Tensor
    method: str
    params: tuple[float, ...]
    temperatures: tuple[float, ...]


def _column(values, dtype) -> torch.Tensor:
    return torch.tensor([float(v) for v in values], dtype=dtype).unsqueeze(1)


def truncate(call: Call, mistake: str | None = None, *, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The distribution of every row [B, V] in ``dtype``, with ``mistake`` made (None: the statement's rules),
    by the operations a vectorized solution runs. Greedy rows (temperature 0) are one-hot."""
    logits = call.logits.to(dtype)
    batch = logits.shape[0]
    q, t = _column(call.params, dtype), _column(call.temperatures, dtype)
    if mistake == "row0_params":
        q, t = q[:1].expand(batch, 1), t[:1].expand(batch, 1)
    greedy = t == 0
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    divisor = t if mistake == "no_greedy" else torch.where(greedy, torch.ones_like(t), t)
    tempered = torch.log_softmax(shifted / divisor, dim=-1)
    plain = torch.log_softmax(shifted, dim=-1)
    # What the cut sees: the tempered distribution, or (a mistake) the one before temperature.
    cut_log = plain if mistake == "temperature_after_cut" else tempered
    cut_p = cut_log.exp()
    ent_log = plain if mistake == "entropy_before_temperature" else cut_log
    ent_p = ent_log.exp()
    if mistake == "entropy_nan":
        entropy = -(ent_p * ent_log).sum(dim=-1, keepdim=True)
    else:
        entropy = -torch.where(ent_p > 0, ent_p * ent_log, torch.zeros_like(ent_p)).sum(dim=-1, keepdim=True)
    if mistake == "entropy_bits":
        entropy = entropy / math.log(2)
    if call.method == "typical":
        keep = _typical_keep(cut_p, cut_log, entropy, q, mistake)
    else:
        if call.method == "epsilon":
            threshold = q
        elif mistake == "eta_max":
            threshold = torch.maximum(q, q.sqrt() * torch.exp(-entropy))
        elif mistake == "eta_no_min":
            threshold = q.sqrt() * torch.exp(-entropy)
        elif mistake == "eta_no_sqrt":
            threshold = torch.minimum(q, q * torch.exp(-entropy))
        else:
            threshold = torch.minimum(q, q.sqrt() * torch.exp(-entropy))
        compared = (shifted / divisor).exp() if mistake == "epsilon_unnormalized" else cut_p
        keep = compared >= threshold
        if mistake == "top_ties_by_index":
            keep = keep | torch.zeros_like(keep).scatter(1, cut_p.argmax(dim=-1, keepdim=True), True)
        elif mistake != "no_top_kept":
            keep = keep | (cut_p == cut_p.max(dim=-1, keepdim=True).values)
    kept = torch.where(keep, tempered.exp(), torch.zeros_like(cut_p))
    if mistake != "not_renormalized":
        kept = kept / kept.sum(dim=-1, keepdim=True)
    if mistake == "no_greedy":
        return kept.to(torch.float64)
    one_hot = torch.zeros_like(kept).scatter(1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, one_hot, kept).to(torch.float64)


def _typical_keep(probs, log_probs, entropy, mass, mistake):
    if mistake == "typical_by_probability":
        score = torch.where(probs > 0, -probs, torch.full_like(probs, math.inf))
    else:
        score = torch.where(probs > 0, (-log_probs - entropy).abs(), torch.full_like(probs, math.inf))
    stable = mistake == "typical_ties_by_index"
    sorted_score, order = torch.sort(score, dim=-1, stable=True) if stable else torch.sort(score, dim=-1)
    sorted_probs = probs.gather(1, order)
    mass_before = torch.cumsum(sorted_probs, dim=-1)
    if mistake != "typical_drops_crossing":
        mass_before = mass_before - sorted_probs
    if stable:
        group_before = mass_before
    else:
        group_before = mass_before.gather(1, torch.searchsorted(sorted_score, sorted_score, right=False))
    keep_sorted = group_before < mass
    if mistake != "typical_one_cuts":
        keep_sorted = keep_sorted | (mass >= 1)
    keep = torch.zeros_like(keep_sorted).scatter(1, order, keep_sorted)
    return keep & (probs > 0)


def target(call: Call, *, margin: float = MARGIN) -> torch.Tensor:
    """The exact distribution of every row (float64 [B, V]); raises :class:`AmbiguousCase` where a decision
    sits within ``margin`` of its threshold."""
    exact = truncate(call)
    if margin > 0:
        for b in range(call.logits.shape[0]):
            _check_row(call, b, margin)
    return exact


def _check_row(call: Call, b: int, margin: float) -> None:
    t, q = call.temperatures[b], call.params[b]
    if t == 0:
        return
    z = call.logits[b].to(torch.float64)
    log_p = torch.log_softmax((z - z.max()) / t, dim=-1)
    p = log_p.exp()
    alive = p > 0
    entropy = float(-(p[alive] * log_p[alive]).sum())
    top = float(p.max())
    near_top = alive & (p != top) & (p >= top * (1 - margin))
    if call.method == "typical":
        if q >= 1:
            return
        score = torch.where(alive, (-log_p - entropy).abs(), torch.full_like(p, math.inf))
        for j in alive.nonzero().flatten().tolist():
            before = float(p[score < score[j]].sum())
            if abs(before - q) < margin * q:
                raise AmbiguousCase(f"row {b}: the mass before token {j} is {before} for tau = {q}")
        keep = truncate(Call(call.logits[b : b + 1], "typical", (q,), (t,)))[0] > 0
        kept, cut = score[keep], score[alive & ~keep]
        if kept.numel() and cut.numel():
            gap = float(cut.min() - kept.max())
            if gap < margin:
                raise AmbiguousCase(f"row {b}: a kept and a cut token score within {gap} nats")
        return
    threshold = q if call.method == "epsilon" else min(q, math.sqrt(q) * math.exp(-entropy))
    if threshold <= 0:
        return
    if top < threshold * (1 + margin) and bool(near_top.any()):
        raise AmbiguousCase(f"row {b}: a token within {margin} of the largest probability, below the threshold")
    others = p[alive & (p != top)]
    if bool(((others - threshold).abs() < margin * threshold).any()):
        raise AmbiguousCase(f"row {b}: a probability within {margin} of the threshold {threshold}")


def mistaken(call: Call, mistake: str) -> torch.Tensor:
    """What ``truncated_probs`` with ``mistake`` returns (float64 [B, V]), computed in the logits' dtype; NaN
    where the mistaken code raises (a NaN entropy sorted and searched: no output to name it by)."""
    try:
        return truncate(call, mistake, dtype=call.logits.dtype)
    except RuntimeError:
        return torch.full(call.logits.shape, math.nan, dtype=torch.float64)


def mistakes_that_differ(call: Call, exact: torch.Tensor) -> dict:
    """Diagnosis -> mistaken distribution, for the mistakes with a finite output that differs from ``exact``
    in its values or in where its zeros are (a token of probability 5e-14 cut)."""
    out = {}
    for name in DISTRIBUTION_MISTAKES:
        wrong = mistaken(call, name)
        if not bool(torch.isfinite(wrong).all()):
            continue
        if not torch.allclose(wrong, exact, rtol=1e-6, atol=1e-9) or bool(((wrong == 0) != (exact == 0)).any()):
            out[MISTAKES[name]] = wrong
    return out


def call_of(logits: torch.Tensor, method: str, param, temperature) -> Call:
    """A :class:`Call` from a call's arguments (numbers or per-row tensors)."""
    rows = logits.shape[0]

    def values(held) -> tuple[float, ...]:
        if isinstance(held, torch.Tensor):
            return tuple(float(v) for v in held.tolist())
        return (float(held),) * rows

    return Call(logits, method, values(param), values(temperature))
