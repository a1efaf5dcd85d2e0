"""Checks of exercise 50 shared by the hidden suite and the browser's tiny suite (each at its own sizes).

Everything that needs an exact law takes it as an argument: the hidden suite computes it with its oracle,
the tiny suite reads it from ``frozen50`` (values frozen from that oracle, and compared with it by
tests/exercises/test_050_variance_reduction.py). Nothing here knows an answer the statement does not give.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping

import torch

from judge.checks.base import fail, rule
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.estimators import expect_calibrated, expect_unbiased
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract
from judge.checks.independence import ROWS_SHARE_DIAGNOSIS, expect_independent_rows
from judge.i18n import Bilingual

from .diagnoses import MISTAKES
from .readable50 import FUNCTION, ReadableRows, check_readable, readable_rows

CONTRACT_P = (0.3, 0.7)
CONTRACT_DRAWS = 4
CONSTANT_CALLS = 32  # a random outcome repeats itself 32 times with probability below 0.5^32
# Calls of six readable rows per method and dtype: a wrong pairing (or strata) may give all six rows of one set
# draws a right one could give, by chance; across four sets it shows.
READABLE_SETS = {"plain": 1, "antithetic": 4, "stratified": 4, "control_variate": 1}


def readable_sets(sub, ctx, method: str, dtype: torch.dtype) -> None:
    """``READABLE_SETS[method]`` calls of six readable rows each, every one checked by ``check_readable``."""
    # n = 7 for the control variate: the mean of seven 0.1 is not 0.1, so the spread of equal g_i is not 0
    n = 7 if method == "control_variate" else 8
    for k in range(READABLE_SETS[method]):
        label = f"readable {method} {dtype}" + (f" {k}" if k else "")  # the first set as it always was
        rows = readable_rows(random.Random(ctx.fresh_seed(label)), method, dtype, num_samples=n)
        value = getattr(sub, FUNCTION[method])(**rows.kwargs(), generator=ctx.generator())
        check_readable(
            ctx, rows, value, what=f"{FUNCTION[method]}({rows.public})", public=f"{FUNCTION[method]}, readable rows"
        )


def check_extremes(sub, ctx, method: str, dtype: torch.dtype) -> None:
    """Readable rows with every uniform source of the call pushed to 0 and to the largest float below 1: the
    draws stay legal (a token of probability 0 drawn at a pushed site is named after the inverse CDF)."""
    rows = readable_rows(random.Random(ctx.fresh_seed(f"extremes {method}")), method, dtype)
    name = FUNCTION[method]
    label = f"{name}({rows.public})"

    def call(source, generator):
        return getattr(source, name)(**rows.kwargs(), generator=generator)

    def check(value, what):
        pushed = what != label  # named only where a site was pushed: the ordinary call passed
        check_readable(
            ctx,
            rows,
            value,
            what=what,
            public=f"{name}, readable rows at extreme uniforms",
            zero_diagnosis=MISTAKES["zero_probability_drawn"] if pushed else None,
        )

    expect_every_draw_site(sub, ctx, call, check, label=label)


def contract_rows(method: str, rows: int) -> ReadableRows:
    """``rows`` copies of p = (0.3, 0.7) with values 1 and n + 1: the estimate is 1 + (the draws of token 1)."""
    n = CONTRACT_DRAWS
    probs = torch.tensor([CONTRACT_P] * rows, dtype=torch.float64)
    values = torch.tensor([[1.0, float(n + 1)]] * rows, dtype=torch.float64)
    control = torch.full_like(values, 0.5) if method == "control_variate" else None
    return ReadableRows(method, probs, values, control, n, (CONTRACT_P,) * rows, f"{rows} rows of p = (0.3, 0.7)")


def check_generator(sub, ctx, method: str, law: torch.Tensor, *, contract: int, twins: int) -> None:
    """The generator contract on ``contract`` rows of :func:`contract_rows`, after two halves of ``twins``
    identical rows that must not agree more than chance (``ROWS_SHARE_DIAGNOSIS``). ``law``: the exact law of
    the count of token 1 among one row's ``CONTRACT_DRAWS`` draws (float64 ``[n + 1]``)."""
    name = FUNCTION[method]

    def outcomes(source, generator, rows_count):
        rows = contract_rows(method, rows_count)
        value = getattr(source, name)(**rows.kwargs(), generator=generator)
        check_readable(ctx, rows, value, what=f"{name}({rows.public})", public=f"{name}, the generator contract")
        # n * estimate = (n - c) + c (n + 1): the estimate is 1 + c, c the draws of token 1
        return (value[0].double().cpu() - 1).round().long()

    def draw(source, generator):
        return outcomes(source, generator, contract).unsqueeze(1)

    pair = outcomes(sub, ctx.generator(), twins)
    # One outcome in every row, and the same again under another generator: no randomness at all (the
    # contract's seeds clause names that); only then is the twin test skipped.
    constant = len(set(pair.tolist())) == 1 and all(
        bool((outcomes(sub, ctx.generator(), 1) == pair[0]).all()) for _ in range(CONSTANT_CALLS)
    )
    if not constant:
        half = twins // 2
        expect_independent_rows(
            ctx,
            pair[:half],
            pair[half:],
            law,
            label=f"{name}, two halves of {twins} identical rows",
            outcome="count",
            diagnosis=ROWS_SHARE_DIAGNOSIS,
        )
    # after the twins: rows sharing their uniforms repeat each other, which the contract would read as re-seeding
    expect_generator_contract(sub, ctx, draw, law.expand(contract, -1), label=name)


def check_strata_independent(sub, ctx, rows_count: int) -> None:
    """Four tokens of 1/4 and K = 2 strata: stratum 0 draws tokens 0 and 1, stratum 1 tokens 2 and 3, each with
    v < 1/2 or not. The count of token 0 and that of token 2 are two independent Binomial(2, 1/2) draws."""
    rows = ReadableRows(
        "stratified",
        torch.full((rows_count, 4), 0.25, dtype=torch.float64),
        torch.tensor([[1.0, 5.0, 25.0, 125.0]] * rows_count, dtype=torch.float64),
        None,
        4,
        ((0.25,) * 4,) * rows_count,
        f"{rows_count} rows of four tokens of 1/4, n = 4",
    )
    value = sub.stratified_estimate(**rows.kwargs(), generator=ctx.generator())
    check_readable(ctx, rows, value, what=f"stratified_estimate({rows.public})", public="stratified_estimate, 2 strata")
    total = (value[0].double().cpu() * 4).round().long()
    first, third = total % 5, (total // 25) % 5
    expect_independent_rows(
        ctx,
        first,
        third,
        torch.tensor([0.25, 0.5, 0.25, 0.0, 0.0], dtype=torch.float64),
        label=f"stratified_estimate({rows.public}): draws of token 0 and of token 2, row by row",
        outcome="count",
        diagnosis=MISTAKES["stratified_shared_offsets"],
    )


def expect_some_draws(ctx, value, outcomes, dtype, *, rows: int, label: str, constant: bool = False) -> None:
    """Each row's (estimate, se) is that of some n draws, to the dtype's tolerance. ``outcomes``: (estimate,
    se, the estimate with beta times n / (n - 1)) of every way n draws can fall. With a ``constant`` control
    beta is 0 in every row, so a row that fits no draws is evidence that the beta = 0 rule is broken."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(f"{label} must return a pair (estimate, se)", kind=Evidence.STRUCTURAL)
    estimates = expect_tensor(value[0], name=f"{label} estimate", shape=(rows,), dtype=dtype, device=ctx.device)
    errors = expect_tensor(value[1], name=f"{label} se", shape=(rows,), dtype=dtype, device=ctx.device)
    tolerance = 1e-9 if dtype == torch.float64 else 1e-4
    scale = 1.0 + max(abs(e) for e, _, _ in outcomes)
    failing, named = [], None
    as_mismatched = []  # per row of a wrong estimate: whether the mismatched beta gives it for some draws
    for b, (est, err) in enumerate(zip(estimates.tolist(), errors.tolist(), strict=True)):
        if any(abs(est - e) <= tolerance * scale and abs(err - s) <= tolerance * scale for e, s, _ in outcomes):
            continue
        failing.append((b, est, err))
        # Only an estimate speaks of beta: an estimate some draws give, with a wrong se, is another mistake.
        wrong_estimate = not any(abs(est - e) <= tolerance * scale for e, _, _ in outcomes)
        if wrong_estimate and constant:
            named = MISTAKES["cv_constant_control"]
        if wrong_estimate:
            as_mismatched.append(any(abs(est - d) <= tolerance * scale for _, _, d in outcomes))
    # The mismatched normalization only where every row with a wrong estimate (two at least) reads as it: one
    # estimate may equal some draws' mismatched value by chance (a beta of the wrong sign did, in one judging
    # of ten). A row whose estimate is right and se wrong says nothing of beta.
    if named is None and not constant and len(as_mismatched) >= 2 and all(as_mismatched):
        named = MISTAKES["cv_beta_ddof"]
    if failing:
        b, est, err = failing[0]
        fail(
            f"{label}: row {b} returned estimate {est!r} and se {err!r}, which no {len(outcomes)} ways the draws can "
            f"fall give (beta fitted on the draws, 0 when the drawn g are all equal); {len(failing)} of {rows} rows so",
            diagnosis=named,
            rule=rule(label, "an estimate no draws can give", "某个估计值不可能由任何抽样给出"),
            kind=Evidence.VALUE,
        )


def check_large_values(sub, ctx, rows: int, n: int) -> None:
    """plain, antithetic and control variate on float32 values 0 and 0.25, then 1000 and 1000.25, p = (1/2, 1/2)."""
    probs = torch.tensor([[0.5, 0.5]] * rows, dtype=torch.float32)
    for method in ("plain", "antithetic", "control_variate"):
        name = FUNCTION[method]
        # 0 and 0.25 first: an se right there and wrong at 1000 is the lost digits' evidence, and only then
        # is that mistake named (a wrong pairing or formula is wrong at both)
        for low in (0.0, 1000.0):
            values = torch.tensor([[low, low + 0.25]] * rows, dtype=torch.float32)
            extra = {"control": torch.full_like(values, 0.5)} if method == "control_variate" else {}
            value = getattr(sub, name)(probs=probs, values=values, num_samples=n, generator=ctx.generator(), **extra)
            expect_large_values(ctx, value, method, rows=rows, n=n, label=name, low=low, small_values_ok=low > 0)


def expect_large_values(
    ctx, value, method: str, *, rows: int, n: int, label: str, low: float = 1000.0, small_values_ok: bool = False
) -> None:
    """Values ``low`` and ``low + 0.25`` with probability 1/2 each: the se must be the one the draws give
    (float32).

    ``small_values_ok``: the same function already gave the right se for ``low = 0``. Only then is an se
    far off here named after the lost digits of the one-pass formula: a far-off se that is far off for
    small values too (pairs that are not mirrored, a missing square root) is another mistake, and names
    nothing here.
    """
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(f"{label} must return a pair (estimate, se)", kind=Evidence.STRUCTURAL)
    estimates = expect_tensor(value[0], name=f"{label} estimate", shape=(rows,), dtype=torch.float32, device=ctx.device)
    errors = expect_tensor(value[1], name=f"{label} se", shape=(rows,), dtype=torch.float32, device=ctx.device)
    high_value = f"{low + 0.25:g}"
    if method == "antithetic":  # every row's estimate first: one row may hold n / 2 of each token by chance
        for b, est in enumerate(estimates.tolist()):
            if math.isfinite(est) and round((est - low) / 0.25 * n) != n // 2:
                fail(
                    f"{label}: row {b}'s estimate is {est!r}; with p = (1/2, 1/2) every pair (u, 1 - u) holds one "
                    f"token of each, so the estimate is {low + 0.125:g} in every row",
                    diagnosis=MISTAKES["antithetic_not_mirrored"],
                    rule=rule(label, "a pair does not hold one token of each", "某一对没有各含一个 token"),
                    kind=Evidence.VALUE,
                )
    for b, (est, err) in enumerate(zip(estimates.tolist(), errors.tolist(), strict=True)):
        if not (math.isfinite(est) and math.isfinite(err)):
            fail(
                f"{label}: row {b} returned estimate {est!r} and se {err!r}; both must be finite",
                rule=rule(label, "an estimate or a standard error is not finite", "估计值或标准误不是有限数"),
                kind=Evidence.VALUE,
            )
        high = round((est - low) / 0.25 * n)  # draws of low + 0.25
        if method == "antithetic":
            expected = 0.0  # every pair is one of each token: the pair means never vary
        elif method == "control_variate":
            expected = 0.25 * math.sqrt(high * (n - high) / n / (n - 2) / n)
        else:
            expected = 0.25 * math.sqrt(high * (n - high) / n / (n - 1) / n)
        if not (0 <= high <= n) or abs(err - expected) > 1e-4 * max(expected, 0.25 / n):
            # lost digits are far off (the one-pass formula loses them all at 1000); a divisor off by one is
            # a few per cent at n = 40 and is another mistake
            far = abs(err - expected) > 0.05 * max(expected, 0.25 / n)
            if small_values_ok:
                what = rule(label, "a standard error loses its digits for large values", "值较大时标准误丢失了精度")
            else:
                what = rule(
                    label, "a standard error differs from the one its draws give", "标准误与抽样结果给出的不一致"
                )
            fail(
                f"{label}: row {b}'s standard error is {err!r}, but {high} draws of {high_value} among {n} give "
                f"{expected:.6g}"
                + (f" (values {low:g} and {high_value}; for 0 and 0.25 it was right)" if small_values_ok else ""),
                diagnosis=MISTAKES["one_pass_variance"] if far and small_values_ok else None,
                rule=what,
                kind=Evidence.VALUE,
            )


def expect_estimates(
    ctx,
    value,
    *,
    name: str,
    rows: int,
    dtype: torch.dtype,
    label: str,
    mu: float,
    mean: float,
    std: float,
    coverage: Mapping[float, float],
    coverage_mistakes: Callable[[], Mapping[Bilingual, Mapping[float, float]]] | None = None,
    mean_mistakes: Callable[[], Mapping[Bilingual, float]] | None = None,
) -> torch.Tensor:
    """``rows`` estimates of one instance (E_p[f] = ``mu``), judged against its exact law: the error bars cover
    ``mu`` at the rates ``coverage`` ({z: rate}), then the estimates average to the law's ``mean`` (``std`` its
    standard deviation). Each mistakes function gives the listed mistakes' exact rates and means, by name.
    Returns the estimates (float64)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(f"{name} must return a pair (estimate, se)", kind=Evidence.STRUCTURAL)
    estimates = expect_tensor(value[0], name=f"{name} estimate", shape=(rows,), dtype=dtype, device=ctx.device)
    errors = expect_tensor(value[1], name=f"{name} se", shape=(rows,), dtype=dtype, device=ctx.device)
    # calibration first: its listed mistakes (the standard errors) are the commoner ones
    expect_calibrated(
        ctx,
        estimates.double(),
        errors.double(),
        mu,
        label=f"{label}: error bars",
        coverage=dict(coverage),
        mistakes=coverage_mistakes,
    )
    expect_unbiased(
        ctx, estimates.double(), mean, std=std, label=f"{label}: the mean of the estimates", mistakes=mean_mistakes
    )
    return estimates.double()
