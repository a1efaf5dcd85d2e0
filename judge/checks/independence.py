"""Checks that draws are independent: within a row, between rows, across two calls.

:func:`expect_independent_within_row` tests disjoint pairs of a row's draws (the pairings of
:mod:`judge.checks.pairings`) against the product of the target with itself;
:func:`expect_independent_rows` that two identical rows do not agree more than chance allows;
:func:`expect_independent_across_rows` that two rows' draws are not tied. Each spends its level
from the run's budget and names the dependence it sees (sorted rows, repeated neighbours,
shared random numbers: the ``*_DIAGNOSIS`` texts here and in :mod:`judge.checks.pairings`).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import torch

from judge.checks import stats
from judge.checks.base import CheckFailed, Outcome, _text, fail, rule
from judge.checks.distributions import _expect_token_ids, _g_test, _indexed_in_range, _one_row
from judge.checks.evidence import Evidence
from judge.checks.pairings import HALF_APART_DIAGNOSIS, MIRRORED_DIAGNOSIS, row_pairings
from judge.checks.testing import Context, _context
from judge.i18n import Bilingual
from judge.reports.report import CheckRecord

__all__ = [
    "ROWS_SHARE_DIAGNOSIS",
    "SORTED_DIAGNOSIS",
    "REPEATED_DIAGNOSIS",
    "DEPENDENT_DIAGNOSIS",
    "HALF_APART_DIAGNOSIS",
    "MIRRORED_DIAGNOSIS",
    "ordered_share",
    "token_groups",
    "expect_independent_within_row",
    "expect_independent_rows",
    "expect_independent_across_rows",
]

ROWS_SHARE_DIAGNOSIS = Bilingual("the rows share the same random numbers", "各行共用了同一组随机数")
SORTED_DIAGNOSIS = Bilingual(
    "the draws of a row come out sorted: each draw must be independent of its neighbours, in the order drawn",
    "同一行的抽样结果被排了序：每次抽样都必须与相邻的抽样相互独立，并保持抽出的顺序",
)
REPEATED_DIAGNOSIS = Bilingual(
    "consecutive draws of a row repeat each other (one random number serves several draws)",
    "同一行中相邻的抽样结果互相重复（一个随机数被用于多次抽样）",
)
DEPENDENT_DIAGNOSIS = Bilingual(
    "consecutive draws of a row depend on each other (for example antithetic pairs u and 1 - u): "
    "every draw needs its own independent random number",
    "同一行中相邻的抽样结果相互依赖（例如成对使用 u 与 1 - u）：每次抽样都需要自己独立的随机数",
)
PAIR_GROUPS = 16  # tokens are grouped into at most this many classes before pairs are counted
ORDERED_SHARE = 0.99  # a row whose neighbours are in order this often was sorted, not drawn


def ordered_share(draws: torch.Tensor, probs: torch.Tensor) -> float:
    """How often neighbours of a row of draws are in order (by token id or by probability, either
    way): about 0.5-0.8 for independent draws, 1.0 for a sorted row. ``draws``: int64 ``[n]``."""
    if draws.numel() < 2:
        return 0.0
    order = torch.argsort(probs.to(torch.float64), descending=True, stable=True)
    rank_of = torch.empty(probs.shape[0], dtype=torch.int64)
    rank_of[order] = torch.arange(probs.shape[0])
    rank = rank_of[draws]
    shares = []
    for values in (draws, rank):
        step = values[1:] - values[:-1]
        shares += [float((step >= 0).double().mean()), float((step <= 0).double().mean())]
    return max(shares)


def _dependence_diagnosis(draws: torch.Tensor, probs: torch.Tensor) -> Bilingual:
    """Which dependence of consecutive draws explains ``draws`` (int64 ``[m, n]``, each row in the
    order drawn; target ``probs`` ``[V]``): sorted rows, neighbours that repeat, or another."""
    if ordered_share(draws.reshape(-1), probs) >= ORDERED_SHARE:
        return SORTED_DIAGNOSIS
    half = draws.shape[1] // 2
    first, second = draws[:, 0 : 2 * half : 2], draws[:, 1 : 2 * half : 2]
    agree = float((first == second).double().mean()) if first.numel() else 0.0
    if agree > 2 * float((probs.to(torch.float64) ** 2).sum()) + 0.05:
        return REPEATED_DIAGNOSIS
    return DEPENDENT_DIAGNOSIS


def token_groups(probs: torch.Tensor, groups: int = PAIR_GROUPS) -> torch.Tensor:
    """Map each token to a class: the ``groups - 1`` most probable tokens alone, the rest together
    (tokens of probability 0 join the rest). Returns int64 ``[V]`` of class indices."""
    order = torch.argsort(probs.to(torch.float64), descending=True, stable=True)
    group_of = torch.full((probs.shape[0],), groups - 1, dtype=torch.int64)
    alone = order[: groups - 1]
    alone = alone[probs[alone] > 0]
    group_of[alone] = torch.arange(alone.numel())
    return group_of


def expect_independent_within_row(
    ctx: Context,
    draws: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    public: str | None = None,
    outcome: Any = "token",
) -> stats.GTestResult:
    """The draws of one row must be independent of each other, at every distance: three sets of
    disjoint pairs (:mod:`judge.checks.pairings`) are each tested against the product distribution p x p
    (pooled G-test over classes of outcomes): consecutive draws (1, 2), (3, 4), ...; draws half a
    row apart (j, j + n/2); mirrored draws (j, n - 1 - j).

    Catches antithetic pairs, repeated draws, sorted rows, a second half that reuses the first
    half's random numbers and draws read from both ends of one set of random numbers. ``draws``:
    the learner's int64 ``[n]`` (n >= 2), already checked against the support, or ``[m, n]``: m
    rows of this one target from one call, each paired within itself and the pairs pooled (so a
    dependence at the rows' own distances is found); ``probs``: floating ``[V]`` summing to 1
    (``[1, V]`` is that row). Spends one ``pairs`` check, its level split evenly over the pairings
    (Bonferroni: a row of n >= 4 draws has three, n = 3 two, n = 2 one). Returns the result of the
    pairing with the smallest p-value, that p-value multiplied by the number of pairings (capped
    at 1), so it compares with the check's level. Its diagnosis: ``SORTED_DIAGNOSIS`` (the row
    comes out sorted) whatever pairing failed; for consecutive draws ``REPEATED_DIAGNOSIS``
    (neighbours repeat each other) or ``DEPENDENT_DIAGNOSIS``; ``HALF_APART_DIAGNOSIS`` and
    ``MIRRORED_DIAGNOSIS`` for the others, each only when its own pairing is the one that failed
    (the one with the smallest p-value, the first in the order above on a tie).

    Raises :class:`CheckFailed` (WA) when draws depend on each other or are not a 1-D or 2-D
    int64 tensor of ids in range; :class:`CheckMisuse` for a malformed ``ctx``, ``probs``,
    ``label``, ``public`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the suite's
    ``BUDGET``.
    """
    check = "expect_independent_within_row"
    _context(check, ctx)
    probs = _one_row(check, probs)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    noun = Outcome.of(check, outcome)
    rows = draws if isinstance(draws, torch.Tensor) and draws.dim() == 2 else None
    flat = draws.reshape(-1) if rows is not None else draws
    _expect_token_ids(flat, probs.shape[-1], what=label, outcome=noun, check_range=False)
    if rows is None:
        rows = flat.unsqueeze(0)
    group_of = token_groups(probs)
    groups = int(group_of.max()) + 1
    group_probs = torch.zeros(groups, dtype=torch.float64).index_add_(0, group_of, probs.to(torch.float64))
    # group_of[draws], without advanced indexing's overhead
    classes = _indexed_in_range(
        lambda: group_of.index_select(0, flat), flat, probs.shape[-1], what=label, outcome=noun
    ).reshape(rows.shape)
    joint = torch.outer(group_probs, group_probs).reshape(-1)
    joint = joint / joint.sum()
    pairings = row_pairings(classes)
    tested = [(pairing, _g_test(pairing.joint_counts(groups), joint)) for pairing in pairings]
    # The most significant pairing; where p-values underflow alike, the first of them in order.
    pairing, result = min(tested, key=lambda tried: tried[1].pvalue)
    alpha = ctx.budget.spend("pairs")
    adjusted = replace(result, pvalue=min(1.0, result.pvalue * len(pairings)))
    passed = adjusted.pvalue >= alpha
    ctx.records.append(CheckRecord("pairs", label, adjusted.statistic, adjusted.pvalue, alpha, passed, adjusted.df))
    if passed:
        return adjusted
    if ordered_share(flat, probs) >= ORDERED_SHARE:
        diagnosis = SORTED_DIAGNOSIS
    else:
        diagnosis = pairing.diagnosis or _dependence_diagnosis(rows, probs)
    where = f" of each of the {rows.shape[0]} rows" if draws.dim() == 2 else ""
    raise CheckFailed(
        f"{label}: {pairing.noun} are not independent: the {result.n} pairs {pairing.pairs}{where} "
        f"do not follow the product of the target with itself "
        f"(G = {result.statistic:.1f} on {result.df} degrees of freedom, p = {result.pvalue:.3g}, "
        f"threshold {alpha / len(pairings):.3g})",
        statistic=result.statistic,
        p_value=result.pvalue,
        diagnosis=diagnosis,
        rule=rule(public or label, str(pairing.rule), pairing.rule.zh),
        kind=Evidence.VALUE,
    )


def expect_independent_rows(
    ctx: Context,
    first: torch.Tensor,
    second: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    public: str | None = None,
    outcome: Any = "token",
    diagnosis: str | None = None,
) -> stats.BinomialTailResult:
    """Two rows with the same target, drawn in one call, must not agree more than chance allows
    (exact binomial tail on the number of positions where they agree).

    ``diagnosis`` (a str or Bilingual) replaces the default diagnosis below, for outcomes that
    are not draws (counts per row, say, where "sorted" means nothing).

    Catches one uniform shared across rows. ``first``/``second``: the learner's int64 ``[n]``
    (the same n); ``probs``: floating ``[V]`` summing to 1, the target of both rows. Rows that
    agree because each is sorted are diagnosed as sorted (``SORTED_DIAGNOSIS``), else
    ``ROWS_SHARE_DIAGNOSIS``. Spends one ``independence`` check (fixed level 1e-8).

    Raises :class:`CheckFailed` (WA) when the rows agree too often, or the draws are not 1-D
    int64 tensors of ids in range of one length; :class:`CheckMisuse` for a malformed ``ctx``,
    ``probs``, ``label``, ``public`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the
    suite's ``BUDGET``.
    """
    check = "expect_independent_rows"
    _context(check, ctx)
    probs = _one_row(check, probs)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    _text(check, "diagnosis", diagnosis, optional=True)
    noun = Outcome.of(check, outcome)
    for draws in (first, second):
        _expect_token_ids(draws, probs.shape[-1], what=label, outcome=noun)
    if first.shape != second.shape:
        fail(
            f"{label}: the two rows hold {first.shape[0]} and {second.shape[0]} draws; they must hold as many",
            rule=rule(public or label, "the rows hold different numbers of draws", "各行的抽样次数不一致"),
            kind=Evidence.STRUCTURAL,
        )
    agreements = int((first == second).sum())
    p_agree = float((probs.to(torch.float64) ** 2).sum())
    result = stats.duplicate_agreement_test(agreements, first.shape[0], p_agree)
    alpha = ctx.budget.spend("independence")
    passed = result.pvalue >= alpha
    ctx.records.append(CheckRecord("independence", label, float(agreements), result.pvalue, alpha, passed))
    if not passed:
        sorted_rows = diagnosis is None and all(ordered_share(d, probs) >= ORDERED_SHARE for d in (first, second))
        raise CheckFailed(
            f"{label}: two rows with the same distribution agreed at {agreements} of {first.shape[0]} positions; "
            f"independent draws agree about {result.expected:.0f} times (p = {result.pvalue:.3g}). "
            + (
                f"This matches: {diagnosis}"
                if diagnosis
                else "Each row is sorted, so equal rows line up"
                if sorted_rows
                else "Each row needs its own random numbers"
            ),
            statistic=float(agreements),
            p_value=result.pvalue,
            diagnosis=diagnosis or (SORTED_DIAGNOSIS if sorted_rows else ROWS_SHARE_DIAGNOSIS),
            rule=rule(
                public or label,
                "two rows with the same distribution agree far too often",
                "两个分布相同的行一致的次数远超偶然",
            ),
            kind=Evidence.VALUE,
        )
    return result


def expect_independent_across_rows(
    ctx: Context,
    first: torch.Tensor,
    second: torch.Tensor,
    first_probs: torch.Tensor,
    second_probs: torch.Tensor,
    *,
    label: str,
    public: str | None = None,
    outcome: Any = "token",
) -> stats.GTestResult:
    """Two rows drawn in one call, with targets of their own, must be independent of each other:
    the pairs (draw j of the first row, draw j of the second) are tested against the product of
    their targets ``p_r x p_s`` (pooled G-test over classes of outcomes, as
    :func:`expect_independent_within_row`).

    Catches rows that share random numbers although their targets differ (one uniform per draw
    for the whole batch, fed to each row's inverse CDF), which :func:`expect_independent_rows`
    (duplicated rows only) cannot see. ``first``/``second``: the learner's int64 ``[n]`` of one
    length, or ``[m, n]`` of one shape (m pairs of rows, paired position by position), already
    checked against the support; ``first_probs``/``second_probs``: each row's floating ``[V]``
    target summing to 1 (``[1, V]`` is that row; the two may differ in ``V``). Spends one
    ``pairs`` check. Diagnosis: ``SORTED_DIAGNOSIS`` when both rows come out sorted, else
    ``ROWS_SHARE_DIAGNOSIS``. Returns the test's result.

    Raises :class:`CheckFailed` (WA) when the rows depend on each other, or the draws are not
    int64 tensors of ids in range of one shape; :class:`CheckMisuse` for a malformed ``ctx``,
    target, ``label``, ``public`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the
    suite's ``BUDGET``.
    """
    check = "expect_independent_across_rows"
    _context(check, ctx)
    targets = (_one_row(check, first_probs, "first_probs"), _one_row(check, second_probs, "second_probs"))
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    noun = Outcome.of(check, outcome)
    flats = []
    for draws, probs in zip((first, second), targets, strict=True):
        flat = draws.reshape(-1) if isinstance(draws, torch.Tensor) and draws.dim() == 2 else draws
        _expect_token_ids(flat, probs.shape[0], what=label, outcome=noun, check_range=False)
        flats.append(flat)
    if first.shape != second.shape:
        fail(
            f"{label}: the two rows hold {list(first.shape)} and {list(second.shape)} draws; they must hold as many",
            rule=rule(public or label, "the rows hold different numbers of draws", "各行的抽样次数不一致"),
        )
    classes, marginals = [], []
    for flat, probs in zip(flats, targets, strict=True):
        group_of = token_groups(probs)
        groups = int(group_of.max()) + 1
        marginals.append(torch.zeros(groups, dtype=torch.float64).index_add_(0, group_of, probs.to(torch.float64)))
        classes.append(
            _indexed_in_range(
                functools.partial(torch.index_select, group_of, 0, flat),
                flat,
                probs.shape[0],
                what=label,
                outcome=noun,
            )
        )
    columns = marginals[1].shape[0]
    observed = torch.bincount(classes[0] * columns + classes[1], minlength=marginals[0].shape[0] * columns)
    joint = torch.outer(marginals[0], marginals[1]).reshape(-1)
    result = _g_test(observed, joint / joint.sum())
    alpha = ctx.budget.spend("pairs")
    passed = result.pvalue >= alpha
    ctx.records.append(CheckRecord("pairs", label, result.statistic, result.pvalue, alpha, passed, result.df))
    if passed:
        return result
    sorted_rows = all(ordered_share(flat, probs) >= ORDERED_SHARE for flat, probs in zip(flats, targets, strict=True))
    raise CheckFailed(
        f"{label}: the two rows are not independent of each other: the {result.n} pairs (draw j of the "
        f"first row, draw j of the second) do not follow the product of their targets "
        f"(G = {result.statistic:.1f} on {result.df} degrees of freedom, p = {result.pvalue:.3g}, "
        f"threshold {alpha:.3g}). "
        + ("Each row is sorted, so the rows rise together" if sorted_rows else "Each row needs its own random numbers"),
        statistic=result.statistic,
        p_value=result.pvalue,
        diagnosis=SORTED_DIAGNOSIS if sorted_rows else ROWS_SHARE_DIAGNOSIS,
        rule=rule(public or label, "two rows are not independent of each other", "两行的抽样结果彼此不独立"),
    )
