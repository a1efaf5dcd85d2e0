"""Checks of draws against their target distribution: the ids drawn, the support, the fit.

:func:`expect_tokens_in_range` and :func:`expect_support` are hard checks (an id out of range,
an outcome of probability 0: certain, no budget); :func:`expect_distribution` is the G-test of
one row's counts against its target (one ``fit`` check of the run's budget), naming the listed
alternative that explains the draws (:func:`best_alternative`, :func:`explaining_alternatives`).
:func:`too_regular` is the lower-tail test over a case's fits (draws that fit too well: a
deterministic "sampler"), which the runner makes once per case.

It also validates the target distributions that the other statistical families take
(``_target``, ``_one_row``) and counts draws (``_g_test``, ``_indexed_in_range``):
:mod:`judge.checks.independence` and :mod:`judge.checks.generator_contract` build on it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import torch

from judge.checks import stats
from judge.checks.base import (
    _REAL_TORCH,
    _T,
    TOKEN,
    CheckFailed,
    CheckMisuse,
    Mistakes,
    Outcome,
    _all_true,
    _describe,
    _mistakes,
    _mistakes_argument,
    _misuse,
    _row_name,
    _text,
    fail,
    rule,
)
from judge.checks.evidence import (
    DIAGNOSIS_LIKELIHOOD_RATIO,
    DIAGNOSIS_MIN_PVALUE,
    Evidence,
    decisive_mistake,
    multinomial_log_likelihood,
)
from judge.checks.testing import Context, _context
from judge.reports import figures
from judge.reports.report import CheckRecord

__all__ = [
    "expect_tokens_in_range",
    "expect_support",
    "expect_distribution",
    "best_alternative",
    "explaining_alternatives",
    "too_regular",
]

# The one place that chooses the statistics of counts: the server's torch twin of the G-test
# (judge/checks/stats_torch.py, kept equal to judge.checks.stats by tests/judge/test_stats_torch.py), or, where
# `torch` is the browser's pure-Python subset, the pure core that decides there (the browser bundle
# leaves stats_torch out, and it refuses to load on the subset).
try:
    from judge.checks import stats_torch
except ImportError:
    stats_torch = None  # type: ignore[assignment]


def _target(check: str, argument: str, probs: Any, *, dims: tuple[int, ...], normalized: bool = True) -> torch.Tensor:
    """``probs`` is a floating tensor with ``dims`` dimensions, finite, >= 0 and (when ``normalized``)
    summing to 1 along its last dimension within ``stats.PROBABILITY_SUM_TOLERANCE``; returns it."""
    shapes = " or ".join({1: "[V]", 2: "[B, V]"}[d] for d in dims)
    expected = f"a floating tensor of shape {shapes}"
    if (
        not isinstance(probs, torch.Tensor)
        or not probs.is_floating_point()
        or probs.dim() not in dims
        or probs.shape[-1] == 0
    ):
        raise _misuse(check, argument, expected, probs)
    if not _finite_and_nonnegative(probs):
        raise _misuse(check, argument, f"{expected} of finite probabilities >= 0", probs)
    if normalized:
        totals = probs.to(torch.float64).sum(dim=-1)
        # One row: its sum is a 0-d tensor, and Python's float arithmetic is the same IEEE one.
        worst = abs(float(totals) - 1.0) if totals.dim() == 0 else float((totals - 1.0).abs().max())
        if worst > stats.PROBABILITY_SUM_TOLERANCE:
            raise CheckMisuse(
                check,
                argument,
                f"{expected} whose rows sum to 1",
                f"{_describe(probs)} with a row summing to {1.0 + worst:.6g} or {1.0 - worst:.6g}",
            )
    return probs


def _finite_and_nonnegative(values: torch.Tensor) -> bool:
    """Whether every entry of the floating tensor ``values`` is finite and >= 0 (-0.0 included),
    exactly as ``torch.isfinite(values).all() and not (values < 0).any()`` says, in two cheap passes.

    Targets are validated at every check, and ``isfinite`` takes several passes over tens of
    thousands of entries. A sum is finite only when every term is (NaN and infinities propagate),
    and a sum of terms <= 0 is 0 only when every term is (each partial sum is at least as large
    in magnitude as its largest term). A sum that overflows, in float16 say, is settled the slow way,
    as is every target in the browser (its torch subset has no vectorized sums to gain from).
    """
    if _REAL_TORCH and math.isfinite(float(values.sum())):
        return float(values.clamp(max=0).sum()) == 0.0
    return bool(torch.isfinite(values).all()) and not bool((values < 0).any())


def _expect_token_ids(
    draws: Any, vocab_size: int, *, what: str, outcome: Outcome = TOKEN, check_range: bool = True
) -> None:
    """``draws`` is a 1-D int64 tensor of ids in ``[0, vocab_size)`` (checks take learner values as
    they come: an unchecked one would make the check itself raise, an IE the learner chose).
    ``check_range=False`` leaves the range to the caller's :func:`_indexed_in_range`."""
    if not isinstance(draws, torch.Tensor) or draws.dtype != torch.int64 or draws.dim() != 1:
        kind = (
            f"a {draws.dtype} tensor of shape {list(draws.shape)}"
            if isinstance(draws, torch.Tensor)
            else type(draws).__name__
        )
        fail(
            f"{what}: the draws must be a 1-D int64 tensor of {outcome.en} ids, got {kind}",
            rule=rule(
                what,
                f"the draws are not a 1-D int64 tensor of {outcome.en} ids",
                f"抽样结果不是一维 int64 的{outcome.zh_word}编号张量",
            ),
            kind=Evidence.STRUCTURAL,
        )
    if check_range:
        expect_tokens_in_range(draws.unsqueeze(0), vocab_size, what=what, outcome=outcome)


def _indexed_in_range(
    lookup: Callable[[], _T], draws: torch.Tensor, vocab_size: int, *, what: str, outcome: Outcome
) -> _T:
    """``lookup()``, an indexing by ``draws`` (int64 ids, their type and shape already checked) that
    torch bounds-checks (gather, index_select, index_add_), failing as :func:`expect_tokens_in_range`
    does for an id outside ``[0, vocab_size)``.

    The range check is a pass of its own over the draws (1.28 million of them for exercise 39's
    mixed rows), and such a lookup checks every index anyway, raising for one out of range or
    negative (tests/judge/test_checks.py pins it): on the real torch the range check runs only once
    the lookup refused, to name the id as before. The browser's subset checks first, as it did.
    """
    if not _REAL_TORCH:
        expect_tokens_in_range(draws, vocab_size, what=what, outcome=outcome)
        return lookup()
    try:
        return lookup()
    except (IndexError, RuntimeError):
        expect_tokens_in_range(draws, vocab_size, what=what, outcome=outcome)  # fails, naming the id
        raise  # refused for another reason: what the lookup after a passed range check raised before


def _token_counts(draws: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """``torch.bincount(draws, minlength=vocab_size)`` of 1-D int64 ids: int64 ``[vocab_size]``. On
    the real torch by ``index_add_``, which refuses an id outside ``[0, vocab_size)`` where bincount
    would size its answer by the largest id (see :func:`_indexed_in_range`)."""
    if not _REAL_TORCH:
        return torch.bincount(draws, minlength=vocab_size)
    ones = torch.ones(1, dtype=torch.int64).expand(draws.shape[0])
    return torch.zeros(vocab_size, dtype=torch.int64).index_add_(0, draws, ones)


def _vocab_size(check: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise _misuse(check, "vocab_size", "an int >= 1 (the number of possible outcomes)", value)


def expect_tokens_in_range(draws: torch.Tensor, vocab_size: int, *, what: str, outcome: Any = "token") -> None:
    """Every draw is a valid id in ``[0, vocab_size)``.

    ``draws``: the learner's integer tensor ``[B, n]`` (``[n]`` is one row); ``outcome``: the
    noun for an outcome in the messages (``token``; see :class:`Outcome`). Raises
    :class:`CheckFailed` (WA) for an id out of range or draws that are not an integer tensor
    of one or two dimensions; :class:`CheckMisuse` for a bad ``vocab_size``, ``what`` or ``outcome``.
    """
    check = "expect_tokens_in_range"
    _vocab_size(check, vocab_size)
    _text(check, "what", what)
    noun = Outcome.of(check, outcome)
    if (
        not isinstance(draws, torch.Tensor)
        or draws.is_floating_point()
        or draws.dtype == torch.bool
        or draws.dim() not in (1, 2)
    ):
        fail(
            f"{what}: the draws must be an integer tensor of {noun.en} ids, got {_describe(draws)}",
            rule=rule(what, f"the draws are not a tensor of {noun.en} ids", f"抽样结果不是{noun.zh_word}编号张量"),
            kind=Evidence.STRUCTURAL,
        )
    if draws.dim() == 1:
        draws = draws.unsqueeze(0)
    # One pass (two for the dtypes aminmax lacks), no [B, n] temporaries: the mask is built only
    # to name the culprit.
    if draws.numel() and not _ids_within(draws, vocab_size):
        bad = (draws < 0) | (draws >= vocab_size)
        row, col = bad.nonzero()[0].tolist()
        fail(
            f"{what}: row {row} drew {noun.en} id {draws[row, col].item()}, outside {noun.range_en()} "
            f"[0, {vocab_size})",
            rule=rule(
                what,
                f"drew a {noun.en} id outside {noun.range_en()}",
                f"抽到了{noun.range_zh()}之外的{noun.zh_word}编号",
                row=row,
            ),
            kind=Evidence.STRUCTURAL,
        )


# torch's aminmax lacks the wider unsigned dtypes; the browser's subset lacks aminmax (and int8, int16, uint8).
_AMINMAX_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8) if _REAL_TORCH else ()


def _ids_within(draws: torch.Tensor, vocab_size: int) -> bool:
    """Whether every entry of the non-empty integer tensor ``draws`` lies in ``[0, vocab_size)``."""
    if draws.dtype in _AMINMAX_DTYPES:
        low, high = torch.aminmax(draws)
        return int(low) >= 0 and int(high) < vocab_size
    return int(draws.min()) >= 0 and int(draws.max()) < vocab_size


def expect_support(
    draws: torch.Tensor,
    probs: torch.Tensor,
    *,
    what: str,
    why_excluded: Callable[[int, int], str],
    row_labels: Sequence[str] | None = None,
    diagnosis: str | None = None,
    alternatives: Mistakes = None,
    outcome: Any = "token",
) -> None:
    """No draw may be an outcome whose target probability is exactly 0.

    ``draws``: the learner's int64 ``[B, n]``; ``probs``: floating ``[B, V]`` (only which entries
    are 0 matters; ``[V]`` is the target of every row, and then ``[n]`` draws are one row);
    ``why_excluded(row, outcome)`` says which rule excludes it. ``alternatives`` (diagnosis ->
    floating ``[B, V]``, or ``[V]`` with a ``[V]`` target; or a function returning that) name the
    mistake whose distribution explains the offending row; ``diagnosis`` names it outright. ``outcome``: the noun in the
    messages (see :class:`Outcome`). This check spends no budget: it cannot fail a correct sampler.

    Raises :class:`CheckFailed` (WA) for a draw of an excluded outcome, an id out of range, or
    draws of the wrong type or number of rows; :class:`CheckMisuse` for a malformed ``probs``,
    ``what``, ``why_excluded``, ``diagnosis``, ``alternatives`` or ``outcome``.
    """
    check = "expect_support"
    probs = _target(check, "probs", probs, dims=(1, 2), normalized=False)
    _text(check, "what", what)
    if not callable(why_excluded):
        raise _misuse(check, "why_excluded", "a function (row, outcome) -> str", why_excluded)
    _text(check, "diagnosis", diagnosis, optional=True)
    _mistakes_argument(check, "alternatives", alternatives)
    noun = Outcome.of(check, outcome)
    if probs.dim() == 1:
        if isinstance(draws, torch.Tensor) and draws.dim() == 1:
            draws = draws.unsqueeze(0)
        rows = draws.shape[0] if isinstance(draws, torch.Tensor) and draws.dim() == 2 else 1
        probs = probs.unsqueeze(0).expand(rows, probs.shape[0])
    if (
        not isinstance(draws, torch.Tensor)
        or draws.dtype != torch.int64
        or draws.dim() != 2
        or draws.shape[0] != probs.shape[0]
    ):
        got = (
            f"a {draws.dtype} tensor of shape {list(draws.shape)}"
            if isinstance(draws, torch.Tensor)
            else type(draws).__name__
        )
        fail(
            f"{what}: the draws must be an int64 tensor of {probs.shape[0]} rows, got {got}",
            rule=rule(what, "the draws have the wrong type or shape", "抽样结果的类型或形状不对"),
            kind=Evidence.STRUCTURAL,
        )
    allowed = probs > 0
    if _REAL_TORCH:  # gathered as bytes, not bools: the same values, in half the time for [8 000, 160] draws
        allowed = allowed.view(torch.uint8)
    drawn = _indexed_in_range(lambda: torch.gather(allowed, 1, draws), draws, probs.shape[-1], what=what, outcome=noun)
    drawn_ok = drawn.view(torch.bool) if drawn.dtype != torch.bool else drawn
    if _all_true(drawn_ok):
        return
    row = int((~drawn_ok).any(dim=1).nonzero()[0])
    tokens, counts = torch.unique(draws[row][~drawn_ok[row]], return_counts=True)
    worst = int(torch.argmax(counts))
    token, count = int(tokens[worst]), int(counts[worst])
    others = len(tokens) - 1
    more = f" (and {others} other excluded {noun.en if others == 1 else noun.plural})" if others else ""
    explaining: list[str] = []
    if alternatives is not None and diagnosis is None:
        observed = torch.bincount(draws[row], minlength=probs.shape[-1])
        # An alternative for a one-row target may be [V] like the target: the same row for every row.
        diagnosis, explaining = _alternatives(
            observed,
            {name: alt[row] if alt.dim() == 2 else alt for name, alt in _mistakes(alternatives).items()},
            truth=probs[row],
        )
    hint = f". This matches a known mistake: {diagnosis}" if diagnosis else ""
    fail(
        f"{what}: {_row_name(row_labels, row)}: {noun.en} {token} was drawn {count} of {draws.shape[1]} times"
        f"{more}; {why_excluded(row, token)}, so it must never be drawn{hint}",
        diagnosis=diagnosis,
        rule=rule(
            what,
            f"drew a {noun.en} that must never be drawn",
            f"抽到了不应被抽到的{noun.zh_word}".rstrip(),
            row=row,
            labels=row_labels,
        ),
        kind=Evidence.VALUE,
        explained_by=explaining if diagnosis is None else (),
    )


def _one_row(check: str, probs: Any, argument: str = "probs") -> torch.Tensor:
    """A one-row target: floating ``[V]`` (``[1, V]`` is accepted as that row), >= 0, summing to 1."""
    probs = _target(check, argument, probs, dims=(1, 2))
    if probs.dim() == 2:
        if probs.shape[0] != 1:
            raise _misuse(
                check,
                argument,
                "the target of one row: a floating tensor of shape [V] (or [1, V]); call the check once per row",
                probs,
            )
        probs = probs[0]
    return probs


def expect_distribution(
    ctx: Context,
    draws: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    alternatives: Mistakes = None,
    public: str | None = None,
    outcome: Any = "token",
) -> stats.GTestResult:
    """Goodness of fit of one row's draws to its target distribution (pooled G-test, Williams).

    ``draws``: the learner's int64 ``[n]``, already checked against the support (an excluded
    outcome drawn here raises ``ValueError`` naming the category: check the support first);
    ``probs``: floating ``[V]`` summing to 1 (``[1, V]`` is that row). ``alternatives`` maps a
    known mistake to the ``[V]`` distribution it would draw from (or is a function returning
    that mapping); when the target is rejected, the best-fitting alternative (if it fits at
    p >= ``DIAGNOSIS_MIN_PVALUE``) is the diagnosis. ``public`` names the row without its values
    (a Bilingual) for the failure's rule; ``label`` by default. ``outcome``: the noun in the
    messages (see :class:`Outcome`). Spends one ``fit`` check of the budget.

    Raises :class:`CheckFailed` (WA) when the draws do not fit or are not a 1-D int64 tensor of
    ids in range; :class:`CheckMisuse` for a malformed ``ctx``, ``probs``, ``label``, ``public``,
    ``alternatives`` or ``outcome``; :class:`~judge.checks.budget.BudgetExceeded` past the suite's ``BUDGET``.
    """
    check = "expect_distribution"
    _context(check, ctx)
    probs = _one_row(check, probs)
    _text(check, "label", label)
    _text(check, "public", public, optional=True)
    _mistakes_argument(check, "alternatives", alternatives)
    noun = Outcome.of(check, outcome)
    _expect_token_ids(draws, probs.shape[0], what=label, outcome=noun, check_range=False)
    counts = _indexed_in_range(
        lambda: _token_counts(draws, probs.shape[0]), draws, probs.shape[0], what=label, outcome=noun
    )
    result = _g_test(counts, probs)
    alpha = ctx.budget.spend("fit")
    passed = result.pvalue >= alpha
    record = CheckRecord("fit", label, result.statistic, result.pvalue, alpha, passed, result.df)
    ctx.records.append(record)
    ctx.fit_statistics.append((result.statistic, result.df, result.log_atom))
    if passed:
        return result
    if ctx.visible:  # the counts of a hidden case are never drawn (docs/report.md)
        record.figure = figures.distribution_figure(
            counts.tolist(), probs.tolist(), outcome=noun.en, outcome_zh=noun.zh
        )
    diagnosis, explaining = _alternatives(counts, _mistakes(alternatives), truth=probs)
    where = _largest_gap(counts, probs, noun)
    message = (
        f"{label}: your draws do not follow the target distribution "
        f"(G = {result.statistic:.1f} on {result.df} degrees of freedom, p = {result.pvalue:.3g}, "
        f"threshold {alpha:.3g}){where}"
    )
    if diagnosis:
        message += f". They fit a known mistake instead: {diagnosis}"
    raise CheckFailed(
        message,
        statistic=result.statistic,
        p_value=result.pvalue,
        diagnosis=diagnosis,
        rule=rule(public or label, "the draws do not follow the target distribution", "抽样结果不服从目标分布"),
        kind=Evidence.VALUE,
        explained_by=explaining if diagnosis is None else (),
    )


def _g_test(counts: torch.Tensor, probs: torch.Tensor) -> stats.GTestResult:
    """:func:`judge.checks.stats.g_test` of integer counts ``[V]`` (from ``torch.bincount``) against a
    floating target ``[V]``: :mod:`judge.checks.stats_torch` on the server, the pure core in the browser.
    Raises ValueError as ``g_test`` does (a draw of an excluded outcome names it)."""
    if stats_torch is not None:
        return stats_torch.g_test_counts(counts, probs)
    # Outcomes the target excludes (and the support check kept out of the draws) change neither G
    # nor its degrees of freedom: g_test leaves them out of every bin. Dropping them first spares
    # a pass over tens of thousands of zeros when top-k or top-p leaves a few hundred tokens.
    possible = probs > 0
    if not bool((counts[~possible] == 0).all()):
        return stats.g_test(counts.tolist(), probs.tolist())  # raises: a draw of an excluded outcome
    result = stats.g_test(counts[possible].tolist(), probs[possible].tolist())
    if result.largest_deviation is None:
        return result
    kept = [index for index, keep in enumerate(possible.tolist()) if keep]  # back to the outcome's own id
    category = kept[result.largest_deviation.category]
    return replace(result, largest_deviation=replace(result.largest_deviation, category=category))


def _largest_gap(counts: torch.Tensor, probs: torch.Tensor, outcome: Outcome = TOKEN) -> str:
    """The outcome whose count is furthest from its expectation, in draws (not z: rare ones mislead).
    ``counts``: integer ``[V]``; ``probs``: floating ``[V]``."""
    n = int(counts.sum())
    if stats_torch is not None:
        token = stats_torch.largest_gap(counts, probs)
    else:
        observed, target = counts.tolist(), probs.tolist()
        token = max(range(len(target)), key=lambda i: abs(observed[i] - n * target[i]))
    return (
        f"; the largest gap is {outcome.en} {token}: drawn {int(counts[token])} times, "
        f"expected {n * float(probs[token]):.1f}"
    )


def best_alternative(
    observed: torch.Tensor | Sequence[int],
    alternatives: Mapping[str, torch.Tensor],
    *,
    truth: torch.Tensor | None = None,
) -> str | None:
    """The known mistake whose distribution (floating ``[V]``) the counts ``observed`` (an integer
    ``[V]`` tensor, as ``torch.bincount`` gives, or a list of ``V`` ints) name, or None.

    A mistake is named only on its own evidence (:func:`judge.checks.evidence.decisive_mistake`): it
    fits the counts on its own (pooled G-test, p >= ``DIAGNOSIS_MIN_PVALUE``; a mistake that cannot
    draw an observed outcome is out), and its likelihood of the counts is at least
    ``DIAGNOSIS_LIKELIHOOD_RATIO`` times that of every other listed mistake and of ``truth`` (the
    target, floating ``[V]``, when given). Two mistakes that coincide on this row (their
    distributions equal) name none. Raises :class:`CheckMisuse` when ``alternatives`` is not a
    mapping, or an alternative or ``truth`` is not a ``[V]`` tensor."""
    return _alternatives(observed, alternatives, truth=truth)[0]


def explaining_alternatives(
    observed: torch.Tensor | Sequence[int],
    alternatives: Mapping[str, torch.Tensor],
    *,
    truth: torch.Tensor | None = None,
) -> list[str]:
    """The known mistakes that explain the counts ``observed``, named or not: each fits them on its
    own (as in :func:`best_alternative`) and, when ``truth`` is given, is ``DIAGNOSIS_LIKELIHOOD_RATIO``
    times likelier than it. Several, and :func:`best_alternative` names none: they coincide on this
    row, and no other mistake (a fallback) should be named either. Arguments and misuse as for
    :func:`best_alternative`."""
    return _alternatives(observed, alternatives, truth=truth)[1]


def _alternatives(
    observed: torch.Tensor | Sequence[int], alternatives: Mapping[str, torch.Tensor], *, truth: torch.Tensor | None
) -> tuple[str | None, list[str]]:
    """:func:`best_alternative` and :func:`explaining_alternatives` at once."""
    if not isinstance(alternatives, Mapping):
        raise _misuse("best_alternative", "alternatives", "a mapping diagnosis -> floating [V] tensor", alternatives)
    counts = observed if isinstance(observed, torch.Tensor) else torch.tensor(list(observed), dtype=torch.int64)
    width = counts.shape[0]
    for name, probs in [*alternatives.items(), *([] if truth is None else [("truth", truth)])]:
        if not isinstance(probs, torch.Tensor) or probs.dim() != 1 or probs.shape[0] != width:
            raise _misuse(
                "best_alternative",
                "truth" if name == "truth" and truth is probs else f"alternatives[{name!r}]",
                f"a floating tensor of shape [{width}] (the row's distribution under that mistake)",
                probs,
            )
    drawn = counts > 0
    listed = counts.tolist()
    scores: dict[str, float] = {}
    plausible: list[str] = []
    for name, probs in alternatives.items():
        scores[name] = multinomial_log_likelihood(listed, probs.to(torch.float64).tolist())
        if bool((drawn & (probs == 0)).any()):
            continue  # the mistake could not have drawn these outcomes
        if _g_test(counts, probs).pvalue >= DIAGNOSIS_MIN_PVALUE:
            plausible.append(name)
    target = -math.inf if truth is None else multinomial_log_likelihood(listed, truth.to(torch.float64).tolist())
    explaining = [name for name in plausible if scores[name] - target >= math.log(DIAGNOSIS_LIKELIHOOD_RATIO)]
    return decisive_mistake(scores, target, candidates=plausible), explaining


# The lower tail is trusted only at levels this far below the most likely single outcome.
LATTICE_MARGIN = 1e-3


def too_regular(
    fit_statistics: Sequence[tuple[float, int, float]], alpha: float
) -> tuple[stats.LowerTailResult, str | None]:
    """Lower-tail test over the fit statistics ``(statistic, df, log_atom)`` of one case (see
    :func:`judge.checks.stats.too_regular_test`); returns it and, when the case is declined, why.

    Declined when the most likely joint outcome of the case's counts has a probability above
    ``alpha * LATTICE_MARGIN``: the statistic is then too discrete (few categories, small or
    lattice expected counts) for its continuous lower tail to hold the level ``alpha``, and
    a correct sampler that lands on its rounded expectation would be called too regular.
    """
    result = stats.too_regular_test(
        [f[0] for f in fit_statistics], [f[1] for f in fit_statistics], [f[2] for f in fit_statistics]
    )
    if result.log_atom is not None and result.log_atom > math.log(alpha * LATTICE_MARGIN):
        return result, (
            f"not tested: the counts of its {len(fit_statistics)} distribution check"
            f"{'s' if len(fit_statistics) != 1 else ''} take so few values that one exact outcome has "
            f"probability about {math.exp(result.log_atom):.2g}, above what the {alpha:.2g} level allows"
        )
    return result, None
