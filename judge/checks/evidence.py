"""What a failure is evidence of: the rules that decide whether a "Likely mistake" may be named.

A diagnosis is printed only on its own evidence (``docs/statistics.md``, "Naming a mistake"):

- Every failure says what *kind* of evidence it is (:class:`Evidence`): the learner's value is
  malformed (``structural``), a well-formed value or distribution differs from the target
  (``value``), the learner's code raised (``raised``), or raised ``NotImplementedError``
  (``not_implemented``: the function is not written yet, which is evidence of no mistake at all).
  :func:`judge.checks.base.diagnosed` names only the kinds it is told are its evidence.
- A listed mistake (an alternative distribution, a mistaken output, coverage or mean) is named only
  when it explains the failing evidence *markedly* better than the truth and than every other listed
  mistake: :func:`decisive_mistake`, by a likelihood ratio of at least
  :data:`DIAGNOSIS_LIKELIHOOD_RATIO`.

Pure Python (the browser ships it).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping

__all__ = [
    "Evidence",
    "DIAGNOSIS_LIKELIHOOD_RATIO",
    "DIAGNOSIS_MIN_PVALUE",
    "decisive_mistake",
    "multinomial_log_likelihood",
]


class Evidence(str, enum.Enum):
    """The kind of evidence a failure is (``CheckFailed.kind``): what :func:`judge.checks.base.diagnosed`
    may name. The value is what reports and docs call it."""

    STRUCTURAL = "structural"  # the value is malformed: type, shape, dtype, device, an id out of range, NaN
    VALUE = "value"  # a well-formed value or distribution differs from the target
    RAISED = "raised"  # the learner's code raised (or raised another type than a check expected)
    NOT_IMPLEMENTED = "not_implemented"  # it raised NotImplementedError: not written yet; never evidence


# A mistake is named only when it explains the evidence at least this many times better (likelihood
# ratio) than the truth and than every other listed mistake. Why 1000: whatever the learner's code
# really does (the truth, or another listed mistake B), the chance that its output makes mistake A
# look this much likelier than B is at most 1 / 1000 (Markov's inequality: the likelihood ratio
# L_A / L_B has mean at most 1 under B). Two mistakes that coincide on a case tie at ratio 1: neither
# is named. See docs/statistics.md, "Naming a mistake".
DIAGNOSIS_LIKELIHOOD_RATIO = 1000.0

# A listed alternative (a distribution, a coverage) must fit the draws at least this well to be named
# as the mistake: a mistake the evidence rules out is never named, however it compares with the truth.
DIAGNOSIS_MIN_PVALUE = 1e-3

_LOG_RATIO = math.log(DIAGNOSIS_LIKELIHOOD_RATIO)


def decisive_mistake(
    log_likelihoods: Mapping[str, float], truth: float, *, candidates: Iterable[str] | None = None
) -> str | None:
    """The listed mistake the evidence names, or None.

    ``log_likelihoods``: each listed mistake's log-likelihood of the failing evidence (``-inf``
    where that mistake cannot produce it); ``truth``: the target's. ``candidates``: the mistakes
    that may be named (those plausible on their own, say); every listed mistake still competes.
    The best candidate is named when its log-likelihood exceeds the truth's and every *other*
    listed mistake's by at least ``log(DIAGNOSIS_LIKELIHOOD_RATIO)``; a tie (two mistakes that
    coincide on this evidence), or a lead smaller than that, names none.
    """
    allowed = set(log_likelihoods if candidates is None else candidates)
    ranked = sorted(
        (name for name in log_likelihoods if name in allowed), key=lambda name: log_likelihoods[name], reverse=True
    )
    if not ranked:
        return None
    best = ranked[0]
    score = log_likelihoods[best]
    if math.isnan(score) or score == -math.inf:
        return None
    rivals = [truth] + [value for name, value in log_likelihoods.items() if name != best]
    return best if all(score - rival >= _LOG_RATIO for rival in rivals if not math.isnan(rival)) else None


def multinomial_log_likelihood(counts: Iterable[int], probs: Iterable[float]) -> float:
    """``sum_i c_i log p_i`` (the multinomial coefficient, the same for every hypothesis, left out):
    ``-inf`` when an outcome drawn has probability 0 under ``probs``. ``counts`` and ``probs``: one
    row's counts per outcome and a distribution over the same outcomes."""
    total = 0.0
    for count, p in zip(counts, probs, strict=True):
        if count:
            if p <= 0:
                return -math.inf
            total += count * math.log(p)
    return total
