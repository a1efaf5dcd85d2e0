"""Checks that test functions call: hard checks first, then hypothesis tests from :mod:`judge.stats`.

A failing check raises :class:`CheckFailed` with a message in the learner's terms (which row,
which token, how often, what was expected) and, where the statistics are involved, the
statistic and p-value. Every randomized check spends its significance level from the run's
:class:`~judge.budget.FalseFailureBudget` and appends a :class:`~judge.report.CheckRecord`.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Mapping, Sequence

import torch

from judge import stats
from judge.i18n import Bilingual
from judge.process import LearnerRaised
from judge.report import CheckRecord
from judge.testing import Context

# An alternative distribution must fit the draws at least this well to be named as the mistake.
DIAGNOSIS_MIN_PVALUE = 1e-3

SEEDS_DIAGNOSIS = Bilingual("the generator argument is ignored or overridden", "忽略或覆盖了 generator 参数")

# Known mistakes: diagnosis -> what that mistake returns. A callable is evaluated only when a check
# fails, so computing the mistakes costs nothing for a correct submission.
Mistakes = Mapping[str, torch.Tensor] | Callable[[], Mapping[str, torch.Tensor]] | None


def _mistakes(mistakes: Mistakes) -> Mapping[str, torch.Tensor]:
    if mistakes is None:
        return {}
    return mistakes() if callable(mistakes) else mistakes


class CheckFailed(AssertionError):
    """A check failed: the submission gets WA with this message."""

    def __init__(self, message: str, *, statistic: float | None = None, p_value: float | None = None,
                 diagnosis: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.statistic = statistic
        self.p_value = p_value
        self.diagnosis = diagnosis


def fail(message: str, **details: Any) -> None:
    raise CheckFailed(message, **details)


def expect(condition: bool, message: str, diagnosis: str | None = None) -> None:
    """A hard check: fail with ``message`` unless ``condition``."""
    if not condition:
        raise CheckFailed(message, diagnosis=diagnosis)


def expect_tensor(value: Any, *, name: str, shape: Sequence[int], dtype: torch.dtype,
                  device: str | None = None) -> torch.Tensor:
    """Check type, shape and dtype (and the device the learner's tensor was on); return it."""
    if not isinstance(value, torch.Tensor):
        fail(f"{name} must return a torch.Tensor, got {type(value).__name__}")
    if tuple(value.shape) != tuple(shape):
        fail(f"{name} returned shape {list(value.shape)}, expected {list(shape)}")
    if value.dtype != dtype:
        fail(f"{name} returned dtype {value.dtype}, expected {dtype}")
    origin = getattr(value, "origin_device", None)
    if device is not None and origin is not None and torch.device(origin).type != torch.device(device).type:
        fail(f"{name} returned a tensor on {origin}; outputs must stay on the input's device ({device})")
    return value


def expect_close(actual: torch.Tensor, expected: torch.Tensor, *, rtol: float, atol: float, what: str,
                 row_labels: Sequence[str] | None = None,
                 mistakes: Mistakes = None) -> None:
    """Elementwise ``|actual - expected| <= atol + rtol * |expected|``, NaN never close.

    On failure the message names the worst row and token; when ``mistakes`` is given (name ->
    what that mistake would return), the first one that matches the worst row is the diagnosis.
    """
    if not isinstance(actual, torch.Tensor) or tuple(actual.shape) != tuple(expected.shape):
        got = f"shape {list(actual.shape)}" if isinstance(actual, torch.Tensor) else type(actual).__name__
        fail(f"{what}: expected a tensor of shape {list(expected.shape)}, got {got}")
    actual64 = actual.to(torch.float64)
    expected64 = expected.to(torch.float64)
    if torch.isnan(actual64).any():
        row, token = (torch.isnan(actual64).nonzero()[0]).tolist()
        fail(f"{what}: {_row_name(row_labels, row)} holds NaN at token {token}")
    excess = (actual64 - expected64).abs() - (atol + rtol * expected64.abs())
    if (excess <= 0).all():
        return
    flat = int(torch.argmax(excess))
    row, token = divmod(flat, expected.shape[-1])
    diagnosis = _matching_mistake(actual64, row, _mistakes(mistakes), rtol=rtol, atol=atol)
    message = (f"{what}: {_row_name(row_labels, row)}, token {token}: you returned "
               f"{actual64[row, token].item():.6g}, expected {expected64[row, token].item():.6g} "
               f"(tolerance {atol:g} + {rtol:g} x expected)")
    if diagnosis:
        message += f". This matches a known mistake: {diagnosis}"
    fail(message, diagnosis=diagnosis)


def _matching_mistake(actual: torch.Tensor, row: int, mistakes: Mapping[str, torch.Tensor], *, rtol: float,
                      atol: float) -> str | None:
    """The mistake that reproduces the whole output, else the first one that reproduces ``row``."""
    candidates = {name: c.to(torch.float64) for name, c in mistakes.items() if c.shape == actual.shape}
    for name, candidate in candidates.items():
        if torch.allclose(actual, candidate, rtol=rtol, atol=atol):
            return name
    for name, candidate in candidates.items():
        if torch.allclose(actual[row], candidate[row], rtol=rtol, atol=atol):
            return name
    return None


def _expect_token_ids(draws: Any, vocab_size: int, *, what: str) -> None:
    """``draws`` is a 1-D int64 tensor of ids in ``[0, vocab_size)`` (checks take learner values as
    they come: an unchecked one would make the check itself raise, an IE the learner chose)."""
    if not isinstance(draws, torch.Tensor) or draws.dtype != torch.int64 or draws.dim() != 1:
        kind = f"a {draws.dtype} tensor of shape {list(draws.shape)}" if isinstance(draws, torch.Tensor) \
            else type(draws).__name__
        fail(f"{what}: the draws must be a 1-D int64 tensor of token ids, got {kind}")
    expect_tokens_in_range(draws.unsqueeze(0), vocab_size, what=what)


def expect_tokens_in_range(draws: torch.Tensor, vocab_size: int, *, what: str) -> None:
    """Every draw is a valid token id in ``[0, vocab_size)``."""
    bad = (draws < 0) | (draws >= vocab_size)
    if bad.any():
        row, col = bad.nonzero()[0].tolist()
        fail(f"{what}: row {row} drew token id {draws[row, col].item()}, outside the vocabulary [0, {vocab_size})")


def expect_support(draws: torch.Tensor, probs: torch.Tensor, *, what: str,
                   why_excluded: Callable[[int, int], str], row_labels: Sequence[str] | None = None,
                   diagnosis: str | None = None, alternatives: Mistakes = None) -> None:
    """No draw may be a token whose target probability is exactly 0.

    ``draws``: int64 ``[B, n]``; ``probs``: float64 ``[B, V]``; ``why_excluded(row, token)``
    says which rule excludes the token. ``alternatives`` (mistake -> float64 ``[B, V]``) name the
    mistake whose distribution explains the offending row. This check cannot fail a correct sampler.
    """
    if not isinstance(draws, torch.Tensor) or draws.dtype != torch.int64 or draws.dim() != 2 \
            or draws.shape[0] != probs.shape[0]:
        got = f"a {draws.dtype} tensor of shape {list(draws.shape)}" if isinstance(draws, torch.Tensor) \
            else type(draws).__name__
        fail(f"{what}: the draws must be an int64 tensor of {probs.shape[0]} rows, got {got}")
    expect_tokens_in_range(draws, probs.shape[-1], what=what)
    allowed = probs > 0
    drawn_ok = torch.gather(allowed, 1, draws)
    if drawn_ok.all():
        return
    row = int((~drawn_ok).any(dim=1).nonzero()[0])
    tokens, counts = torch.unique(draws[row][~drawn_ok[row]], return_counts=True)
    worst = int(torch.argmax(counts))
    token, count = int(tokens[worst]), int(counts[worst])
    others = len(tokens) - 1
    more = f" (and {others} other excluded token{'s' if others != 1 else ''})" if others else ""
    if alternatives is not None and diagnosis is None:
        observed = torch.bincount(draws[row], minlength=probs.shape[-1]).tolist()
        diagnosis = _best_alternative(observed, {name: alt[row] for name, alt in _mistakes(alternatives).items()})
    hint = f". This matches a known mistake: {diagnosis}" if diagnosis else ""
    fail(f"{what}: {_row_name(row_labels, row)}: token {token} was drawn {count} of {draws.shape[1]} times{more}; "
         f"{why_excluded(row, token)}, so it must never be drawn{hint}", diagnosis=diagnosis)


def expect_distribution(ctx: Context, draws: torch.Tensor, probs: torch.Tensor, *, label: str,
                        alternatives: Mistakes = None) -> stats.GTestResult:
    """Goodness of fit of one row's draws to its target distribution (pooled G-test, Williams).

    ``draws``: int64 ``[n]`` already checked against the support; ``probs``: float64 ``[V]``.
    ``alternatives`` maps a known mistake to the distribution it would draw from; when the target
    is rejected, the best-fitting alternative (if it fits) is named as the diagnosis.
    """
    _expect_token_ids(draws, probs.shape[0], what=label)
    observed = torch.bincount(draws, minlength=probs.shape[0]).tolist()
    target = probs.tolist()
    result = stats.g_test(observed, target)
    alpha = ctx.budget.spend("fit")
    passed = result.pvalue >= alpha
    ctx.records.append(CheckRecord("fit", label, result.statistic, result.pvalue, alpha, passed, result.df))
    ctx.fit_statistics.append((result.statistic, result.df))
    if passed:
        return result
    diagnosis = _best_alternative(observed, _mistakes(alternatives))
    where = _largest_gap(observed, target)
    message = (f"{label}: your draws do not follow the target distribution "
               f"(G = {result.statistic:.1f} on {result.df} degrees of freedom, p = {result.pvalue:.3g}, "
               f"threshold {alpha:.3g}){where}")
    if diagnosis:
        message += f". They fit a known mistake instead: {diagnosis}"
    raise CheckFailed(message, statistic=result.statistic, p_value=result.pvalue, diagnosis=diagnosis)


def _largest_gap(observed: list[int], probs: list[float]) -> str:
    """The token whose count is furthest from its expectation, in draws (not z: rare tokens mislead)."""
    n = sum(observed)
    token = max(range(len(probs)), key=lambda i: abs(observed[i] - n * probs[i]))
    return f"; the largest gap is token {token}: drawn {observed[token]} times, expected {n * probs[token]:.1f}"


def _best_alternative(observed: list[int], alternatives: Mapping[str, torch.Tensor]) -> str | None:
    best, best_p = None, DIAGNOSIS_MIN_PVALUE
    for name, probs in alternatives.items():
        target = probs.tolist()
        if any(o and not p for o, p in zip(observed, target)):
            continue  # the mistake could not have drawn these tokens
        p = stats.g_test(observed, target).pvalue
        if p >= best_p:
            best, best_p = name, p
    return best


def expect_independent_rows(ctx: Context, first: torch.Tensor, second: torch.Tensor, probs: torch.Tensor, *,
                            label: str) -> stats.BinomialTailResult:
    """Two rows with the same target, drawn in one call, must not agree more than chance allows.

    Catches one uniform shared across rows. ``first``/``second``: int64 ``[n]``; ``probs``: ``[V]``.
    """
    for draws in (first, second):
        _expect_token_ids(draws, probs.shape[-1], what=label)
    agreements = int((first == second).sum())
    p_agree = float((probs.to(torch.float64) ** 2).sum())
    result = stats.duplicate_agreement_test(agreements, first.shape[0], p_agree)
    alpha = ctx.budget.spend("independence")
    passed = result.pvalue >= alpha
    ctx.records.append(CheckRecord("independence", label, float(agreements), result.pvalue, alpha, passed))
    if not passed:
        raise CheckFailed(
            f"{label}: two rows with the same distribution agreed at {agreements} of {first.shape[0]} positions; "
            f"independent draws agree about {result.expected:.0f} times (p = {result.pvalue:.3g}). "
            "Each row needs its own random numbers",
            statistic=float(agreements), p_value=result.pvalue,
            diagnosis=Bilingual("the rows share the same random numbers", "各行共用了同一组随机数"))
    return result


def expect_different_under_seeds(ctx: Context, first: torch.Tensor, second: torch.Tensor, probs: torch.Tensor, *,
                                 label: str) -> float:
    """Outputs for two different generator seeds must differ.

    The chance that a correct sampler gives identical output is computed exactly and must be below
    the check's alpha (else the case is too small: an exercise bug). Returns that chance.
    """
    for draws in (first, second):
        if not isinstance(draws, torch.Tensor) or draws.dim() != 2:
            fail(f"{label}: the draws must be a [rows, num_samples] tensor, got "
                 f"{list(draws.shape) if isinstance(draws, torch.Tensor) else type(draws).__name__}")
    chance = stats.identical_draws_probability(probs.tolist(), first.shape[1])
    alpha = ctx.budget.spend("seeds")
    if chance > alpha:
        raise RuntimeError(f"{label}: a correct sampler repeats itself with probability {chance:.3g}; enlarge the case")
    same = bool(torch.equal(first, second))
    ctx.records.append(CheckRecord("seeds", label, float(same), chance if same else 1.0, alpha, not same))
    if same:
        raise CheckFailed(
            f"{label}: two different generator seeds gave exactly the same {first.numel()} draws "
            f"(a correct sampler does that with probability {chance:.3g}). Your code seems to ignore "
            "`generator`, or to re-seed torch itself", p_value=chance,
            diagnosis=SEEDS_DIAGNOSIS)
    return chance


@contextlib.contextmanager
def expect_raises(exception: type[BaseException], call: str) -> Iterator[None]:
    """The learner's function must raise ``exception`` inside the block (by type name)."""
    try:
        yield
    except LearnerRaised as raised:
        if raised.type_name != exception.__name__ and not _is_subclass_name(raised.type_name, exception):
            fail(f"{call} must raise {exception.__name__}; it raised {raised.type_name}: {raised.message}")
        if not raised.message.strip():
            fail(f"{call} raised {exception.__name__} without a message; say what is wrong with the input")
        return
    fail(f"{call} must raise {exception.__name__}; it returned normally")


def _is_subclass_name(name: str, exception: type[BaseException]) -> bool:
    known = {cls.__name__: cls for cls in _all_subclasses(exception)}
    return name in known


def _all_subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


def too_regular(fit_statistics: Sequence[tuple[float, int]]) -> stats.LowerTailResult:
    """Lower-tail test over the fit statistics of one case (see :func:`judge.stats.too_regular_test`)."""
    return stats.too_regular_test([s for s, _ in fit_statistics], [d for _, d in fit_statistics])


def _row_name(labels: Sequence[str] | None, row: int) -> str:
    if labels and row < len(labels):
        return f"row {row} ({labels[row]})"
    return f"row {row}"
