"""The exact answers of exercise 40 in float64, and what each known mistake returns instead.

Runs only in the judge's process. The noise-form functions follow the statement step by step
(float64 cumulative sums and scores; E = -log(max(u, tiny)) with tiny the smallest normal number
of u's dtype); ``check_*_margins`` verify that every decision of a generated case is far enough
from a tie that a correct solution (float32 scores, another order of float64 summation) cannot
flip it. ``mistake=`` applies one named mistake instead, for diagnoses; ``variants`` gives every
form a mistake takes (several for some); ``alternatives`` gives the distribution each mistake draws
from in ``sample``.
"""

from __future__ import annotations

import math

import torch

from ..public.checks40 import race_underflows  # noqa: F401 - the evidence rule, shared with tiny
from ..public.diagnoses import MISTAKES

# A decision is accepted when a correct solution's rounding cannot flip it: scores of the winner and
# the runner-up differ by at least SCORE_MARGIN (in log space), u stays CDF_MARGIN away from every step
# of F, and coins and columns stay COIN_MARGIN away from their thresholds.
SCORE_MARGIN = 1e-4
CDF_MARGIN = 1e-6
COIN_MARGIN = 1e-6


class AmbiguousCase(ValueError):
    """A generated case sits too close to a tie: a correct solution could decide it either way."""


def _exponential(u: torch.Tensor, *, clamp: bool = True, floor: float | None = None) -> torch.Tensor:
    """E = -log(max(u, tiny)); ``floor`` replaces tiny (the ``clamp_not_tiny`` mistake)."""
    if floor is not None:
        return -torch.log(u.to(torch.float64).clamp(min=floor))
    if clamp:
        u = u.clamp(min=torch.finfo(u.dtype).tiny)
    return -torch.log(u.to(torch.float64))


def _zeros_only(u: torch.Tensor) -> torch.Tensor:
    """``clamp_not_tiny``'s other form: only u == 0 is replaced by tiny, so a subnormal u escapes."""
    tiny = torch.finfo(u.dtype).tiny
    return -torch.log(torch.where(u == 0, torch.full_like(u, tiny), u).to(torch.float64))


# ``clamp_not_tiny``: the floors a learner may clamp u = 0 to instead of the tiny of u's dtype.
WRONG_FLOORS = (1e-6, 1e-10, 1e-12, 1e-20, 1e-30, torch.finfo(torch.float32).tiny, torch.finfo(torch.float64).tiny)
ZEROS_ONLY = "zeros only"  # a floor that stands for ``_zeros_only``


def wrong_floors(dtype: torch.dtype) -> tuple[float | str, ...]:
    return (*(f for f in WRONG_FLOORS if f != torch.finfo(dtype).tiny), ZEROS_ONLY)


def _floored(u: torch.Tensor, floor: float | str) -> torch.Tensor:
    return _zeros_only(u) if floor == ZEROS_ONLY else _exponential(u, floor=float(floor))


def first_argmax(scores: torch.Tensor, mistake: str | None = None) -> torch.Tensor:
    """argmax over the last dimension, ties to the first index (to the last with ``ties_not_first``)."""
    if mistake == "ties_not_first":
        return scores.shape[-1] - 1 - scores.flip(-1).argmax(dim=-1)
    return scores.argmax(dim=-1)


def distribution(probs: torch.Tensor) -> torch.Tensor:
    """The target of every method: the weights normalised, float64 [B, V]."""
    weights = probs.to(torch.float64)
    return weights / weights.sum(dim=1, keepdim=True)


# --- inverse CDF ------------------------------------------------------------------------------


def cdf(probs: torch.Tensor) -> torch.Tensor:
    cumulative = probs.to(torch.float64).cumsum(dim=1)
    return cumulative / cumulative[:, -1:]


def _search(cdf_: torch.Tensor, u: torch.Tensor, *, clamp: bool = False) -> torch.Tensor:
    found = torch.searchsorted(cdf_.contiguous(), u.contiguous(), right=True)
    return found.clamp(max=cdf_.shape[1] - 1) if clamp else found


def inverse_cdf(probs: torch.Tensor, u: torch.Tensor, mistake: str | None = None) -> torch.Tensor:
    """int64 [B, n]; under some mistakes it may hold V (a search that runs past the end)."""
    return inverse_cdf_variants(probs, u, mistake)[0]


def inverse_cdf_variants(probs: torch.Tensor, u: torch.Tensor, mistake: str | None = None) -> list[torch.Tensor]:
    """Every form ``mistake`` takes (one for most; the sums a learner may divide by, for the others)."""
    u64 = u.to(torch.float64)
    weights = probs.to(torch.float64)
    if mistake == "cdf_off_by_one":
        return [torch.searchsorted(cdf(probs), u64.contiguous(), right=False)]
    if mistake == "sorted_not_mapped_back":
        ordered = torch.sort(weights, dim=1, descending=True, stable=True).values
        return [_search(cdf(ordered), u64)]
    if mistake in ("normalised_cumsum", "normalised_cumsum_clamped"):
        # F normalised by a sum other than its own last entry: the cumsum of p / sum, or the cumsum / sum,
        # the sum in float64 or in probs' dtype (torch's reduction order, as the learner's call has it),
        # or correctly rounded (math.fsum: how the browser's torch subset sums).
        clamp = mistake == "normalised_cumsum_clamped"
        sums = [weights.sum(dim=1, keepdim=True), probs.sum(dim=1, keepdim=True).to(torch.float64)]
        if probs.dtype == torch.float64:
            sums.append(torch.tensor([[math.fsum(row)] for row in weights.tolist()], dtype=torch.float64))
        out = []
        for total in sums:
            out.append(_search((weights / total).cumsum(dim=1), u64, clamp=clamp))
            out.append(_search(weights.cumsum(dim=1) / total, u64, clamp=clamp))
        return out
    if mistake == "cdf_scaled_compare":
        # C(x) compared with u * C(V-1), not divided first: on a row of subnormal weights the product keeps
        # almost no precision and rounds up to C(V-1) itself (past the end, or clamped to the last token).
        cumulative = weights.cumsum(dim=1)
        scaled = u64 * cumulative[:, -1:]
        return [_search(cumulative, scaled), _search(cumulative, scaled, clamp=True)]
    if mistake in ("float32_cumsum_short", "float32_cumsum_clamped"):
        clamp = mistake == "float32_cumsum_clamped"
        return [_search(probs.to(torch.float32).cumsum(dim=1), u.to(torch.float32), clamp=clamp)]
    if mistake == "float32_cumsum_normalised":
        # Accumulated in float32 and divided by its own last entry; compared in float32 or in float64.
        cumulative = probs.to(torch.float32).cumsum(dim=1)
        f32 = cumulative / cumulative[:, -1:]
        return [_search(f32, u.to(torch.float32), clamp=clamp) for clamp in (False, True)] + [
            _search(f32.to(torch.float64), u64, clamp=clamp) for clamp in (False, True)
        ]
    return [_search(cdf(probs), u64)]


def check_cdf_margins(probs: torch.Tensor, u: torch.Tensor, exact_rows: set[int] = frozenset()) -> None:
    """Every u is CDF_MARGIN away from every step of F below 1, except in ``exact_rows`` (rows whose
    steps are exact in float64 in every order of summation)."""
    steps = cdf(probs)
    for row in range(probs.shape[0]):
        if row in exact_rows:
            continue
        inner = steps[row][(steps[row] > 0.0) & (steps[row] < 1.0)]  # F = 0 and F = 1 are exact everywhere
        if inner.numel() == 0:
            continue
        gap = (u[row].to(torch.float64).unsqueeze(1) - inner.unsqueeze(0)).abs().min()
        if float(gap) < CDF_MARGIN:
            raise AmbiguousCase(f"row {row}: a uniform lies within {float(gap):.3g} of a step of F")


def exact_steps(probs: torch.Tensor) -> bool:
    """Every partial sum of every row is exact in float64 whatever the order, and every row sums to a
    power of two: weights that are multiples of 2^-40 whose row sums stay below 2^12."""
    x = probs.to(torch.float64)
    scaled = x * 2.0**40
    if not bool((scaled == scaled.round()).all()) or not bool((x.sum(dim=1) < 2.0**12).all()):
        return False
    totals = x.sum(dim=1)
    return bool((totals == torch.exp2(torch.log2(totals).round())).all())


# --- Gumbel-max and the exponential race --------------------------------------------------------


def gumbel_scores(
    logits: torch.Tensor, u: torch.Tensor, mistake: str | None = None, floor: float | str | None = None
) -> torch.Tensor:
    clamped = mistake != "log_zero_at_u0"
    exponential = _floored(u, floor) if floor is not None else _exponential(u, clamp=clamped)
    noise = torch.log(exponential) if mistake == "gumbel_wrong_sign" else -torch.log(exponential)
    base = logits.to(torch.float64)
    if mistake == "gumbel_on_probs":
        base = torch.softmax(base, dim=1)
    return base.unsqueeze(1) + noise


def gumbel_max(
    logits: torch.Tensor, u: torch.Tensor, mistake: str | None = None, floor: float | str | None = None
) -> torch.Tensor:
    return first_argmax(gumbel_scores(logits, u, mistake, floor), mistake)


def race_scores(
    probs: torch.Tensor, u: torch.Tensor, mistake: str | None = None, floor: float | str | None = None
) -> torch.Tensor:
    """p / E in float64 (for a case whose positive scores do not underflow; see ``race_log_scores``)."""
    if mistake == "race_one_minus_u":
        exponential = -torch.log(1.0 - u.to(torch.float64))
    elif floor is not None:
        exponential = _floored(u, floor)
    else:
        exponential = _exponential(u, clamp=mistake != "log_zero_at_u0")
    p = probs.to(torch.float64).unsqueeze(1)
    return p * exponential if mistake == "race_multiplies" else p / exponential


def race_log_scores(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """log p - log E in float64: the race's scores, -inf for p = 0, exact enough for any weight."""
    return torch.log(probs.to(torch.float64)).unsqueeze(1) - torch.log(_exponential(u))


def exponential_race(
    probs: torch.Tensor, u: torch.Tensor, mistake: str | None = None, floor: float | str | None = None
) -> torch.Tensor:
    if mistake is None and floor is None:
        return first_argmax(race_log_scores(probs, u))
    scores = race_scores(probs, u, mistake, floor)
    return scores.argmin(dim=2) if mistake == "race_argmin" else first_argmax(scores, mistake)


def check_score_margins(log_scores: torch.Tensor, exact_draws: set[tuple[int, int]] = frozenset()) -> None:
    """The winner beats the runner-up by SCORE_MARGIN in log space, except at ``exact_draws``
    ((row, draw) pairs whose tied tokens get bitwise equal noise, so that ties are decided by the
    input alone; see ``check_tie_margins`` for them)."""
    if log_scores.shape[2] < 2:
        return
    top = torch.topk(log_scores, 2, dim=2).values
    gap = top[..., 0] - top[..., 1]
    for row, draw in (gap < SCORE_MARGIN).nonzero().tolist():
        if (row, draw) not in exact_draws:
            raise AmbiguousCase(f"row {row}, draw {draw}: the two best scores differ by {float(gap[row, draw]):.3g}")


def check_tie_margins(log_scores: torch.Tensor, tied: torch.Tensor) -> None:
    """A designed tie: the tied tokens (bool [B, V]) share the best score exactly in every draw, and
    every other token stays SCORE_MARGIN below it."""
    best = log_scores.amax(dim=2)
    mask = tied.unsqueeze(1).expand_as(log_scores)
    if not bool((log_scores.masked_fill(~mask, float("inf")).amin(dim=2) == best).all()):
        raise AmbiguousCase("a designed tie does not give the tied tokens the best score")
    others = log_scores.masked_fill(mask, float("-inf")).amax(dim=2)
    if bool((others > best - SCORE_MARGIN).any()):
        raise AmbiguousCase("a token outside a designed tie comes within the margin of it")


# --- the alias method ---------------------------------------------------------------------------


def build_alias(probs: torch.Tensor, mistake: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The reference's table (pair the open item of least mass with the one of most), float64 / int64."""
    batch, vocab = probs.shape
    weights = probs.to(torch.float64)
    residual = (
        weights * vocab if mistake == "alias_unnormalised" else weights * vocab / weights.sum(dim=1, keepdim=True)
    )
    accept = torch.ones(batch, vocab, dtype=torch.float64)
    alias = torch.arange(vocab).repeat(batch, 1)
    if mistake == "alias_off_by_one_cell":
        accept.zero_()
        alias.zero_()
    done = torch.zeros(batch, vocab, dtype=torch.bool)
    rows = torch.arange(batch)
    for _ in range(vocab - 1 if mistake == "alias_off_by_one_cell" else vocab):
        small = residual.masked_fill(done, float("inf")).argmin(dim=1)
        done[rows, small] = True
        large = residual.masked_fill(done, float("-inf")).argmax(dim=1)
        last = done.all(dim=1)
        mass = residual[rows, small]
        accept[rows, small] = torch.where(last, torch.ones_like(mass), mass.clamp(0.0, 1.0))
        alias[rows, small] = torch.where(last, small, large)
        residual[rows, large] -= torch.where(last, torch.zeros_like(mass), 1.0 - mass)
    return accept, alias


def implied(accept: torch.Tensor, alias: torch.Tensor, *, swapped: bool = False) -> torch.Tensor:
    """The distribution a table draws: cell i gives i with accept[i] / V and alias[i] with the rest."""
    vocab = accept.shape[1]
    own, lent = (1.0 - accept, accept) if swapped else (accept, 1.0 - accept)
    return (own + torch.zeros_like(own).scatter_add(1, alias, lent)) / vocab


def implied_one_uniform(accept: torch.Tensor, alias: torch.Tensor) -> torch.Tensor:
    """``alias_one_uniform``: the coin is the column's own uniform, uniform on [c / V, (c + 1) / V)."""
    vocab = accept.shape[1]
    cells = torch.arange(vocab, dtype=torch.float64)
    keep = (accept * vocab - cells).clamp(0.0, 1.0)
    return (keep + torch.zeros_like(keep).scatter_add(1, alias, 1.0 - keep)) / vocab


def columns(column_u: torch.Tensor, vocab: int, mistake: str | None = None) -> torch.Tensor:
    """c = floor(u V), the product in float64 (in float32 under ``alias_column_float32``, clamped)."""
    if mistake == "alias_column_float32":
        return (column_u.to(torch.float32) * vocab).floor().to(torch.int64).clamp(max=vocab - 1)
    return (column_u.to(torch.float64) * vocab).floor().to(torch.int64)


def alias_draw(
    accept: torch.Tensor, alias: torch.Tensor, column_u: torch.Tensor, coin_u: torch.Tensor, mistake: str | None = None
) -> torch.Tensor:
    vocab = accept.shape[1]
    column = columns(column_u, vocab, mistake)
    coin = (column_u if mistake == "alias_one_uniform" else coin_u).to(torch.float64)
    threshold = accept.gather(1, column)
    keep = coin <= threshold if mistake == "alias_coin_le" else coin < threshold
    if mistake == "alias_swapped":
        keep = ~keep
    return torch.where(keep, column, alias.gather(1, column))


def check_alias_margins(
    accept: torch.Tensor, column_u: torch.Tensor, coin_u: torch.Tensor, exact: torch.Tensor
) -> None:
    """Columns and coins COIN_MARGIN away from their thresholds, except where ``exact`` (bool [B, n])
    marks a designed boundary (u = 0, the largest float below 1, a cell edge, a coin of 0 or equal to
    accept)."""
    vocab = accept.shape[1]
    scaled = column_u.to(torch.float64) * vocab
    column = scaled.floor().to(torch.int64)
    near_column = (scaled - scaled.round()).abs() < COIN_MARGIN * vocab
    near_coin = (coin_u.to(torch.float64) - accept.gather(1, column)).abs() < COIN_MARGIN
    bad = (near_column | near_coin) & ~exact
    if bad.any():
        row, draw = bad.nonzero()[0].tolist()
        raise AmbiguousCase(f"row {row}, draw {draw}: a column or coin uniform sits on its threshold")


# --- what ``sample`` draws from under each mistake ----------------------------------------------


def _negated_gumbel_argmax(logits: torch.Tensor, step: float = 2e-3) -> torch.Tensor:
    """P(argmax_i (l_i - G_i)) for standard Gumbel G (i.e. with the noise's sign flipped), by quadrature."""
    finite = logits[torch.isfinite(logits)]
    grid = torch.arange(float(finite.min()) - 12.0, float(finite.max()) + 40.0, step, dtype=torch.float64)
    shifted = grid.unsqueeze(0) - logits.unsqueeze(1)  # [V, T]: x = t - l_i, X = -G has CDF 1 - exp(-e^x)
    log_cdf = torch.log(-torch.expm1(-torch.exp(shifted)))
    log_density = shifted - torch.exp(shifted)
    total = log_cdf.sum(dim=0, keepdim=True)
    integrand = torch.exp(log_density + total - log_cdf)
    probs = torch.nan_to_num(integrand).sum(dim=1) * step
    probs[~torch.isfinite(logits)] = 0.0
    return probs / probs.sum()


def alternatives(probs: torch.Tensor, method: str) -> dict:
    """Diagnosis -> float64 [B, V]: what ``sample(probs, n, method)`` draws from under each mistake
    that changes the distribution."""
    target = distribution(probs)
    out: dict = {}
    if method == "inverse_cdf":
        ordered = torch.sort(target, dim=1, descending=True, stable=True).values
        out["sorted_not_mapped_back"] = ordered
    elif method in ("gumbel", "race"):
        flipped = torch.stack([_negated_gumbel_argmax(row.log()) for row in target])
        if method == "gumbel":
            out["gumbel_wrong_sign"] = flipped
            out["gumbel_on_probs"] = torch.softmax(target, dim=1)
        else:
            out["race_multiplies"] = flipped
            argmin = []
            for row in target:
                if bool((row == 0).any()):
                    # Every draw the first zero-probability token; where that is token 0 it is also what any
                    # sampler stuck on token 0 returns: no evidence of this mistake, so the truth stands in.
                    at = int((row == 0).nonzero()[0])
                    first_zero = torch.zeros_like(row)
                    first_zero[at] = 1.0
                    argmin.append(first_zero if at > 0 else row)
                else:
                    argmin.append(_negated_gumbel_argmax(-row.log()))
            out["race_argmin"] = torch.stack(argmin)
    else:
        accept, alias = build_alias(probs)
        out["alias_off_by_one_cell"] = implied(*build_alias(probs, "alias_off_by_one_cell"))
        out["alias_unnormalised"] = implied(*build_alias(probs, "alias_unnormalised"))
        out["alias_swapped"] = implied(accept, alias, swapped=True)
        out["alias_one_uniform"] = implied_one_uniform(accept, alias)
    return {MISTAKES[name]: value for name, value in out.items() if not torch.allclose(value, target, atol=1e-9)}
