"""The exact processed distribution of exercise 48 (exercise 39's) in float64, and the known mistakes' ones.

Runs only in the judge's process. ``target`` follows the statement step by step on float64
copies of the (float32 or float64) logits, records why each excluded token is excluded, and
verifies that every threshold decision has a relative margin of at least ``MARGIN`` (the frozen
cases) or ``STATED_MARGIN`` (the statement's "near a threshold" rule: generated cases), so that
float32 rounding in a correct submission cannot flip a token in or out; ``smallest_margin`` says
how far the closest decision of a row sits. ``mistaken`` applies one named mistake instead, for
diagnoses.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from ..public.diagnoses import MISTAKES

MARGIN = 2e-3  # the frozen cases' own margin: twice the statement's
STATED_MARGIN = 1e-3  # "a decision within a relative 1e-3 of its threshold may go either way"

# The mistakes ``mistaken`` models: each a distribution a wrong sampler draws from (and takes its
# log-probability from). The other keys of MISTAKES name mistakes of the randomness, shown by other rules.
DISTRIBUTION_MISTAKES = (
    "raw_logprob",
    "logprob_before_filters",
    "row0_parameters",
    "min_p_before_top_p",
    "greedy_tiny_temperature",
)
# Those that also draw from another distribution (the log-probability mistakes draw from the right one).
DRAW_MISTAKES = ("row0_parameters", "min_p_before_top_p", "greedy_tiny_temperature")


class AmbiguousCase(ValueError):
    """A frozen case sits too close to a threshold: a correct float32 solution could flip a token."""


@dataclass(frozen=True)
class RowParams:
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    min_p: float = 0.0

    def describe(self) -> str:
        parts = [f"temperature={self.temperature:g}"]
        if self.top_k:
            parts.append(f"top_k={self.top_k}")
        if self.top_p < 1:
            parts.append(f"top_p={self.top_p:g}")
        if self.min_p:
            parts.append(f"min_p={self.min_p:g}")
        return ", ".join(parts)


# One row's exclusions, in the order they happened: (tokens excluded by this rule, why).
Exclusions = list[tuple[torch.Tensor, str]]


@dataclass
class Target:
    """``probs``: float64 [B, V]; ``exclusions[b]``: the rules that removed tokens from row b."""

    probs: torch.Tensor
    exclusions: list[Exclusions]

    def why_excluded(self, row: int, token: int) -> str:
        """Why ``token`` has probability 0 in ``row``, in the learner's terms."""
        for mask, why in self.exclusions[row]:
            if bool(mask[token]):
                return why
        return "it has probability 0"


def target(
    logits: torch.Tensor, params: list[RowParams], *, check_margins: bool = True, margin: float = MARGIN
) -> Target:
    """The exact distribution of every row. Raises :class:`AmbiguousCase` for a case whose decisions
    do not all keep the relative ``margin`` from their thresholds (``check_margins``)."""
    limit = margin if check_margins else None
    rows = [_row(logits[b].to(torch.float64), params[b], None, limit) for b in range(logits.shape[0])]
    return Target(torch.stack([r[0] for r in rows]), [r[1] for r in rows])


def smallest_margin(logits: torch.Tensor, params: RowParams) -> float:
    """The smallest relative distance of one row's threshold decisions from their thresholds (inf when
    no filter decides anything): how close to the statement's "near a threshold" rule the row sits."""
    found: list[float] = []
    _row(logits.to(torch.float64), params, None, 0.0, found)
    return min(found, default=float("inf"))


def mistaken(
    logits: torch.Tensor, params: list[RowParams], mistake: str, *, margin: float | None = None
) -> torch.Tensor:
    """What a sampler with ``mistake`` would draw from: float64 [B, V] (the target for a name that is
    not one of ``DISTRIBUTION_MISTAKES``). With ``margin``, raises :class:`AmbiguousCase` where the
    mistake's own cuts sit closer than that to their thresholds."""
    if mistake not in DISTRIBUTION_MISTAKES:
        mistake = None
    if mistake == "row0_parameters":
        params = [params[0]] * len(params)
        mistake = None
    rows = [_row(logits[b].to(torch.float64), params[b], mistake, margin)[0] for b in range(logits.shape[0])]
    return torch.stack(rows)


def mistakes_that_differ(
    logits: torch.Tensor, params: list[RowParams], exact: torch.Tensor, rows: list[int] | None = None
) -> dict[str, torch.Tensor]:
    """Diagnosis -> mistaken distribution, for the mistakes that change at least one of ``rows``."""
    selected = rows if rows is not None else list(range(exact.shape[0]))
    out = {}
    for name in DISTRIBUTION_MISTAKES:
        diagnosis = MISTAKES[name]
        wrong = mistaken(logits, params, name)
        if not torch.allclose(wrong[selected], exact[selected], rtol=1e-6, atol=1e-9):
            out[diagnosis] = wrong
    return out


def _row(
    z: torch.Tensor, p: RowParams, mistake: str | None, check: float | None, margins: list[float] | None = None
) -> tuple[torch.Tensor, Exclusions]:
    """One row: its distribution and why each excluded token is excluded. ``check``: the relative
    margin every threshold decision must keep (None: no check); ``margins`` collects each decision's."""
    vocab = z.shape[0]
    reasons: Exclusions = [(z == float("-inf"), "its logit is -inf")]
    # The log-probability mistakes take it from a softmax of their own, greedy rows included (at T = 1 there).
    if p.temperature == 0 and mistake not in ("greedy_tiny_temperature", "raw_logprob", "logprob_before_filters"):
        best = int(torch.argmax(z))  # torch.argmax returns the first maximum
        probs = torch.zeros(vocab, dtype=torch.float64)
        probs[best] = 1.0
        reasons.append((probs == 0, f"at temperature 0 only token {best} (the first maximum) may be drawn"))
        return probs, reasons
    temperature = p.temperature if p.temperature > 0 else (1e-6 if mistake == "greedy_tiny_temperature" else 1.0)
    if mistake == "raw_logprob":
        temperature = 1.0
    probs = torch.softmax((z - z.max()) / temperature, dim=0)  # shifted: a tiny temperature must not overflow
    if mistake in ("raw_logprob", "logprob_before_filters"):
        return probs, reasons
    steps = ("top_k", "min_p", "top_p") if mistake == "min_p_before_top_p" else ("top_k", "top_p", "min_p")
    for step in steps:
        before = probs
        if step == "top_k":
            probs = _top_k(probs, p.top_k, check, margins)
            why = f"it is not among the top_k={p.top_k} most likely tokens"
        elif step == "top_p":
            probs = _top_p(probs, p.top_p, check, margins)
            why = f"it is outside the nucleus of top_p={p.top_p:g}"
        else:
            probs = _min_p(probs, p.min_p, check, margins)
            why = f"its probability is below min_p={p.min_p:g} times the largest probability"
        reasons.append(((before > 0) & (probs == 0), why))
    return probs, reasons


def _note(margins: list[float] | None, check: float | None, gap: float, what: str) -> None:
    """Record one decision's relative margin; raise :class:`AmbiguousCase` below ``check``."""
    if margins is not None:
        margins.append(gap)
    if check is not None and gap < check:
        raise AmbiguousCase(f"{what}: a relative margin of {gap:.3g}, below {check:g}")


def _renormalize(probs: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return kept / kept.sum()


def _top_k(probs: torch.Tensor, k: int, check: float | None, margins: list[float] | None = None) -> torch.Tensor:
    positive = int((probs > 0).sum())
    if k == 0 or k >= probs.shape[0]:
        return probs
    ordered = torch.sort(probs, descending=True).values
    kth = ordered[k - 1]
    if k < positive:
        below = ordered[ordered < kth]
        nxt = below[0] if below.numel() else torch.tensor(0.0, dtype=torch.float64)
        # Exact ties with the k-th are defined (all kept); the first value below it needs a margin.
        if nxt > 0:
            _note(margins, check, float((kth - nxt) / kth), f"top_k={k}: the k-th and next probabilities")
    return _renormalize(probs, probs >= kth)


def _top_p(probs: torch.Tensor, top_p: float, check: float | None, margins: list[float] | None = None) -> torch.Tensor:
    if top_p >= 1:
        return probs
    ordered, order = torch.sort(probs, descending=True, stable=True)
    cumulative = torch.cumsum(ordered, 0)
    before = cumulative - ordered
    keep_sorted = before < top_p
    count = int(keep_sorted.sum())
    crossing = count - 1
    where = f"top_p={top_p}: the running totals around the cut"
    _note(margins, check, float((top_p - before[crossing]) / top_p), where)
    if count < ordered.shape[0] and ordered[count] > 0:
        _note(margins, check, float((cumulative[crossing] - top_p) / top_p), where)
        # Near-equal tokens on both sides of the cut: float32 could order them either way.
        gap = float((ordered[crossing] - ordered[count]) / ordered[crossing])
        _note(margins, check, gap, f"top_p={top_p}: the last kept and first dropped tokens")
    keep_sorted = torch.arange(ordered.shape[0]) < count
    keep = torch.zeros_like(keep_sorted).scatter(0, order, keep_sorted)
    return _renormalize(probs, keep & (probs > 0))


def _min_p(probs: torch.Tensor, min_p: float, check: float | None, margins: list[float] | None = None) -> torch.Tensor:
    if min_p == 0:
        return probs
    threshold = min_p * float(probs.max())
    gaps = (probs[probs > 0] - threshold).abs() / threshold
    _note(margins, check, float(gaps.min()), f"min_p={min_p}: the probabilities around the threshold")
    return _renormalize(probs, probs >= threshold)


def with_params(params: list[RowParams], **changes: object) -> list[RowParams]:
    return [replace(p, **changes) for p in params]
