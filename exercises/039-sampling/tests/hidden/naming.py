"""When exercise 39's hidden suite names a mistake: only on evidence of the whole failing call.

The checks name a listed mistake that explains one row (``expect_close``: the worst row;
``best_alternative``: the failing row's counts). A row can coincide with a mistake that is not the
learner's (a top-k cut one token short equals a top-p cut that drops its crossing token on some row),
so the suite keeps a name only when the mistake explains every row of the call:

* values (:func:`whole_output_mistakes`): the mistakes that reproduce every finite row of the output
  within the tolerance (a row the learner made NaN says nothing either way);
* counts (:func:`explains_every_row`): the mistake fits each row's counts on its own (no draw of a
  token it excludes, the pooled G-test at ``p >= DIAGNOSIS_MIN_PVALUE``), where it leaves a row as
  the target, the target fits it.

:func:`differs` (two samples of one row from different paths of the learner's code) and
:func:`collision` (how often two draws of the learner's own distribution agree) are the evidence of the
single-draw and shared-uniform diagnoses. None of this changes a verdict: it only decides a name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from judge.checks.evidence import DIAGNOSIS_MIN_PVALUE
from judge.checks.stats_torch import g_test_counts
from judge.checks.tails import chi2_sf


def fits(counts: torch.Tensor, probs: torch.Tensor) -> bool:
    """``counts`` (int ``[V]``) are plausible under ``probs`` (floating ``[V]``, summing to 1): no count
    where ``probs`` is 0, and the pooled G-test's p-value at least ``DIAGNOSIS_MIN_PVALUE``."""
    probs = probs.to(torch.float64)
    if bool(((counts > 0) & (probs <= 0)).any()):
        return False
    if int(counts.sum()) == 0:
        return True
    return g_test_counts(counts, probs / probs.sum()).pvalue >= DIAGNOSIS_MIN_PVALUE


def explains_every_row(counts: Sequence[torch.Tensor], rows: Sequence[torch.Tensor]) -> bool:
    """Each row's counts fit that row's distribution under the mistake (:func:`fits`)."""
    return all(fits(c, p) for c, p in zip(counts, rows, strict=True))


def whole_output_mistakes(
    output: torch.Tensor, alternatives: Mapping[str, torch.Tensor], rtol: float, atol: float
) -> dict[str, torch.Tensor]:
    """The listed mistakes (diagnosis -> float64 ``[B, V]``) that reproduce every row of ``output`` the
    learner returned finite, within ``|a - m| <= atol + rtol |m|``; none when no row is finite."""
    out = output.to(torch.float64)
    finite = torch.isfinite(out).all(dim=1)
    if not bool(finite.any()):
        return {}
    found = {}
    for diagnosis, mistake in alternatives.items():
        close = (out[finite] - mistake[finite]).abs() <= atol + rtol * mistake[finite].abs()
        if bool(close.all()):
            found[diagnosis] = mistake
    return found


def differs(first: torch.Tensor, second: torch.Tensor) -> float:
    """The p-value of the G-test of homogeneity of two samples' counts (int ``[V]`` each): small when
    the two come from different distributions. Categories neither sample drew are left out."""
    table = torch.stack([first, second]).to(torch.float64)
    table = table[:, table.sum(dim=0) > 0]
    if table.shape[1] < 2 or float(table.sum(dim=1).min()) == 0:
        return 1.0
    expected = table.sum(dim=1, keepdim=True) * table.sum(dim=0, keepdim=True) / table.sum()
    drawn = table > 0
    statistic = 2.0 * float((table[drawn] * (table[drawn] / expected[drawn]).log()).sum())
    return chi2_sf(max(statistic, 0.0), table.shape[1] - 1)


def collision(draws: torch.Tensor, vocab: int) -> float:
    """The chance that two independent draws of the distribution the ``draws`` (int, any shape) show
    agree: the sum of their squared frequencies."""
    counts = torch.bincount(draws.flatten().clamp(0, vocab - 1), minlength=vocab).to(torch.float64)
    frequencies = counts / counts.sum()
    return float((frequencies**2).sum())
