"""What one answer of ``estimate_probability`` must be, row by row, whatever the draws were.

The statement fixes each output as a function of the row's count k of hits: the estimate is the
frequency k / n rounded to the dtype of ``probs``, and the standard error is sqrt(p (1 - p) / n) of
that estimate (n - 1 for n >= 2 accepted; exactly 0 where p is 0 or 1). So both are checked exactly,
on every call, and a wrong standard error is named only by the formula of a known mistake that
reproduces every row of the call (the mistake's own evidence), never because the error bars
happened to cover too often. Public on purpose: the tiny variant runs it too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from judge.checks.base import fail
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_tensor
from judge.checks.numbers import format_pair
from judge.i18n import Bilingual

from .diagnoses import MISTAKES

HALF = (torch.float16, torch.bfloat16)


def error_tolerance(dtype: torch.dtype) -> float:
    """The relative tolerance of a standard error in ``dtype``: the statement's 1e-9 for float64, ten
    machine epsilons for half precision, and 2e-5 for float32 (a handful of float32 roundings of
    p (1 - p) / n and its square root, with room for a float64 computation cast back)."""
    if dtype == torch.float64:
        return 1e-9
    if dtype in HALF:
        return 10 * torch.finfo(dtype).eps
    return 2e-5


def pair(value, name: str) -> tuple:
    """The learner's return value as a pair (a tuple or a list of two items), else a failure."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(
            f"{name} must return a pair (estimate, standard error), got {type(value).__name__}"
            + (f" of length {len(value)}" if isinstance(value, (tuple, list)) else ""),
            rule=Bilingual(
                f"{name}: did not return a pair (estimate, standard error)",
                f"{name}：返回值不是（估计值，标准误）二元组",
            ),
            kind=Evidence.STRUCTURAL,
        )
    return value[0], value[1]


def whole_counts(estimate: torch.Tensor, n: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """The count k of each estimate (float64 [B], rounded) and where the estimate is no frequency: not
    within 2 epsilons of the dtype of k / n for a whole k in [0, n] (0 and 1 exactly)."""
    values = estimate.to(torch.float64)
    counts = (values * n).round()
    exact = counts / n
    slack = 2 * torch.finfo(dtype).eps * exact
    bad = (~torch.isfinite(values)) | ((values - exact).abs() > slack) | (counts < 0) | (counts > n)
    return counts, bad


def check_outputs(value, dtype: torch.dtype, rows: int, ctx, *, what: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The pair's two tensors, each ``[rows]`` of ``dtype`` on the run's device; another floating dtype
    than that of probs is named (the mistake of casting with ``.float()``)."""
    estimate, se = pair(value, "estimate_probability")
    for part, name in ((estimate, "estimate"), (se, "standard error")):
        other = isinstance(part, torch.Tensor) and part.is_floating_point() and part.dtype != dtype
        expect(
            not other,
            f"{what}: probs are {dtype} but the {name} is {getattr(part, 'dtype', None)}; return both outputs in "
            "the dtype of probs",
            diagnosis=MISTAKES["dtype_of_probs"],
            rule=Bilingual(
                "estimate_probability: the outputs do not have the dtype of probs",
                "estimate_probability：输出的 dtype 与 probs 不同",
            ),
        )
    estimate = expect_tensor(
        estimate, name="estimate_probability (the estimate)", shape=(rows,), dtype=dtype, device=ctx.device
    )
    se = expect_tensor(
        se, name="estimate_probability (the standard error)", shape=(rows,), dtype=dtype, device=ctx.device
    )
    return estimate, se


def check_frequencies(
    estimate: torch.Tensor, n: int, dtype: torch.dtype, *, what: str, truth: Sequence[float] | None = None
) -> torch.Tensor:
    """Each estimate is k / n for a whole k in [0, n] (rounded to the dtype); returns k (int64 [B]).
    A mistake is named where every estimate fits its own formula and no other listed one does:
    (k + 1) / (n + 2), k / (n - 1), or (with ``truth``, each row's P(event)) the true probability itself,
    no draws at all."""
    counts, bad = whole_counts(estimate, n, dtype)
    if bool(bad.any()):
        row = int(bad.nonzero()[0, 0])
        values = estimate.to(torch.float64)
        smoothed = not bool(whole_counts(((values * (n + 2) - 1) / n).to(dtype), n, dtype)[1].any())
        minus_one = n > 1 and not bool(whole_counts((values * (n - 1) / n).to(dtype), n, dtype)[1].any())
        rtol = 16 * torch.finfo(dtype).eps
        exact = truth is not None and all(abs(v - t) <= rtol * t for v, t in zip(values.tolist(), truth, strict=True))
        fitting = [
            name
            for name, fits in (
                ("smoothed_estimate", smoothed),
                ("estimate_divides_by_n_minus_1", minus_one),
                ("not_a_frequency", exact),
            )
            if fits
        ]
        name = fitting[0] if len(fitting) == 1 else None  # two formulas that fit alike name neither
        fail(
            f"{what}: row {row} returned the estimate {float(estimate[row]):.9g}, which is not k / {n} for a whole "
            f"number k in [0, {n}]: the estimate is the frequency of the event among the {n} draws",
            diagnosis=MISTAKES[name] if name else None,
            rule=Bilingual(
                "estimate_probability: an estimate is not a frequency k / num_samples",
                "estimate_probability：估计值不是频率 k / num_samples",
            ),
            kind=Evidence.VALUE,
        )
    return counts.to(torch.int64)


# What a known mistake returns as the standard error of a row: f(p_hat, n, true P(event)) in float64.
ErrorFormula = Callable[[float, int, float], float]


def _wald(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


MISTAKEN_ERRORS: dict[str, ErrorFormula] = {
    "se_divides_by_n": lambda p, n, truth: math.sqrt(p * (1 - p)) / n,
    "se_is_variance": lambda p, n, truth: p * (1 - p) / n,
    "se_not_divided": lambda p, n, truth: math.sqrt(p * (1 - p)),
    "wide_error_bars": lambda p, n, truth: math.sqrt(0.25 / n),
    "se_times_z": lambda p, n, truth: 1.96 * _wald(p, n),
    "se_true_p": lambda p, n, truth: _wald(truth, n),
}


def _divisors(n: int) -> tuple[int, ...]:
    return (n, n - 1) if n >= 2 else (n,)


def _fits(returned: float, candidates: Sequence[float], rtol: float) -> bool:
    return any(abs(returned - c) <= rtol * c + 1e-300 for c in candidates)


def check_standard_errors(
    estimate: torch.Tensor,
    se: torch.Tensor,
    counts: torch.Tensor,
    n: int,
    dtype: torch.dtype,
    *,
    what: str,
    truth: Sequence[float] | None = None,
) -> None:
    """Each standard error is sqrt(p (1 - p) / n) of its own estimate p (or with n - 1 for n >= 2),
    to :func:`error_tolerance`, and exactly 0 where p is 0 or 1.

    ``p`` is taken both as k / n exactly and as the estimate the learner returned (either is the
    formula applied to the estimate, rounded one way or the other). On failure, the diagnosis is the
    one known mistake (``MISTAKEN_ERRORS``, with ``truth``: each row's true P(event)) that reproduces
    every row of the call, the correct formula failing somewhere and no other mistake fitting alike;
    NaN only where p is 0 or 1 is the 0/0 of an n - 1 divisor or of torch.std at one draw.
    """
    rtol = error_tolerance(dtype)
    exact = [int(k) / n for k in counts.tolist()]
    returned_p = [float(v) for v in estimate.to(torch.float64).tolist()]
    errors = [float(v) for v in se.to(torch.float64).tolist()]
    truths = list(truth) if truth is not None else [math.nan] * len(exact)

    def correct(row: int) -> list[float]:
        return [_wald(p, d) for p in (exact[row], returned_p[row]) for d in _divisors(n)]

    wrong = [row for row, e in enumerate(errors) if not (math.isfinite(e) and _fits(e, correct(row), rtol))]
    if not wrong:
        return
    certain = [p in (0.0, 1.0) for p in exact]
    nan_rows = [row for row in wrong if math.isnan(errors[row])]
    diagnosis = None
    if nan_rows and all(certain[row] for row in nan_rows) and set(wrong) == set(nan_rows):
        diagnosis = MISTAKES["se_nan_when_certain"]
    elif not nan_rows:

        def explains(formula: ErrorFormula) -> bool:
            for row, returned in enumerate(errors):
                values = [formula(p, d, truths[row]) for p in (exact[row], returned_p[row]) for d in _divisors(n)]
                if not all(math.isfinite(v) for v in values) or not _fits(returned, values, rtol):
                    return False
            return True

        explaining = [name for name, formula in MISTAKEN_ERRORS.items() if explains(formula)]
        diagnosis = MISTAKES[explaining[0]] if len(explaining) == 1 else None
    row = wrong[0]
    returned_text, expected_text = format_pair(errors[row], _wald(exact[row], n))
    fail(
        f"{what}: row {row} estimated {exact[row]:.9g} (k = {int(counts[row])} of {n} draws) and returned the "
        f"standard error {returned_text}; sqrt(p_hat (1 - p_hat) / n) of that estimate is {expected_text}"
        + (f" (or {_wald(exact[row], n - 1):.9g} with n - 1)" if n >= 2 else "")
        + (f" ({len(wrong)} of {len(errors)} rows wrong)" if len(wrong) > 1 else ""),
        diagnosis=diagnosis,
        rule=Bilingual(
            "estimate_probability: a standard error is not sqrt(p_hat (1 - p_hat) / n) of its own estimate",
            "estimate_probability：标准误不等于由其估计值算出的 sqrt(p_hat (1 - p_hat) / n)",
        ),
        kind=Evidence.VALUE,
    )


def check_probability_answer(
    value,
    ctx,
    *,
    rows: int,
    n: int,
    dtype: torch.dtype,
    what: str,
    truth: Sequence[float] | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One answer of ``estimate_probability`` on ``rows`` rows of ``n`` draws with probs of ``dtype``:
    the pair's shapes and dtypes, the estimates frequencies, the errors the formula of their
    estimates. Returns (estimate, se, counts k as int64 [rows])."""
    estimate, se = check_outputs(value, dtype, rows, ctx, what=what)
    counts = check_frequencies(estimate, n, dtype, what=what, truth=truth)
    check_standard_errors(estimate, se, counts, n, dtype, what=what, truth=truth)
    return estimate, se, counts


def event_probabilities(probs: torch.Tensor, event: torch.Tensor) -> list[float]:
    """Each row's P(event), in float64 from the values the tensor holds."""
    weights = probs.to(torch.float64)
    return [float(v) for v in ((weights * event).sum(dim=1) / weights.sum(dim=1)).tolist()]
