"""The statistical checks of exercise 50: instances generated under the seed, judged against exact laws.

For each method one call of ``ROWS`` identical rows: the estimates must average to the procedure's exact
mean (``expect_unbiased``, its exact standard deviation), their intervals +- 1 and +- 2 se must cover
E_p[f] at the procedure's exact rates (``expect_calibrated``, with the listed mistakes' exact rates),
and, where the statement promises less variance than plain Monte Carlo, the mean of (estimate - mu)^2
must stay below a Chernoff threshold of the procedure's law at the check's alpha. An instance is kept
only where no outcome lies within rounding of an interval's end and where plain Monte Carlo's estimates
would fail the variance test with probability below ``MISS`` (the test's power, stated in the statement).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import torch

from judge.checks.base import fail, rule
from judge.checks.estimators import expect_calibrated, expect_unbiased
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_tensor
from judge.checks.numbers import format_pair
from judge.reports.report import CheckRecord

from ..public.diagnoses import MISTAKES
from . import oracle

ROWS = 4000
DRAWS = {"plain": 20, "antithetic": 16, "stratified": 16, "control_variate": 12}
DTYPES = {
    "plain": torch.float32,
    "antithetic": torch.float64,
    "stratified": torch.float64,
    "control_variate": torch.float64,
}
ZS = (1.0, 2.0)
MISS = 1e-6  # plain Monte Carlo in place of a method passes its variance test with probability below this
ALPHA_FOR_POWER = 1e-9  # at most the calibration alpha the suites get (checked by tests/exercises)
VOCAB = 4


@dataclass(frozen=True)
class Instance:
    method: str
    p: tuple[float, ...]
    f: tuple[float, ...]
    g: tuple[float, ...] | None
    n: int
    mu: float
    law: oracle.Law

    def kwargs(self, dtype: torch.dtype) -> dict:
        row = {
            "probs": torch.tensor([self.p] * ROWS, dtype=dtype) * 2,  # times 2 (exact): rows not summing to 1
            "values": torch.tensor([self.f] * ROWS, dtype=dtype),
        }
        if self.g is not None:
            row["control"] = torch.tensor([self.g] * ROWS, dtype=dtype)
        return row | {"num_samples": self.n}


def law_of(method: str, p, f, g, n: int, **mistake) -> oracle.Law:
    if method == "plain":
        return oracle.plain_outcomes(p, f, n, **mistake)
    if method == "antithetic":
        return oracle.antithetic_outcomes(p, f, n, **mistake)
    if method == "stratified":
        return oracle.stratified_outcomes(p, f, n, **mistake)
    return oracle.cv_outcomes(p, f, g, n, **mistake)


def _candidate(rng: random.Random, method: str):
    weights = [rng.randint(1, 9) for _ in range(VOCAB)]
    p = tuple(w / sum(weights) for w in weights)
    if method == "antithetic":  # the promise needs a monotone f
        f = tuple(float(x) for x in sorted(rng.sample(range(13), VOCAB)))
    else:
        f = tuple(float(rng.randint(0, 12)) for _ in range(VOCAB))
    g = tuple(x + rng.choice((-1.0, 0.0, 1.0)) for x in f) if method == "control_variate" else None
    return p, f, g


def instance(rng: random.Random, method: str) -> Instance:
    """A random instance of ``method`` whose coverage is far from rounding and whose variance test has power."""
    n = DRAWS[method]
    margin = 1e-4 if DTYPES[method] == torch.float32 else 1e-7
    for _ in range(200):
        p, f, g = _candidate(rng, method)
        mu = sum(a * b for a, b in zip(p, f, strict=True))
        if len(set(f)) < 3:
            continue
        law = law_of(method, p, f, g, n)
        if oracle.coverage_margin(law, mu, ZS) < margin:
            continue
        if method != "plain":
            threshold = oracle.chernoff_threshold(law, mu, ROWS, ALPHA_FOR_POWER)
            if oracle.chernoff_miss(oracle.plain_outcomes(p, f, n), mu, ROWS, threshold) > MISS:
                continue
        return Instance(method, p, f, g, n, mu, law)
    raise RuntimeError(f"no instance of {method} in 200 tries")


def _mistaken_coverage(inst: Instance) -> dict:
    def rates(name: str, **mistake) -> dict:
        law = law_of(inst.method, inst.p, inst.f, inst.g, inst.n, **mistake)
        return {name: {z: oracle.coverage(law, inst.mu, z) for z in ZS}}

    if inst.method == "plain":
        return rates("plain_se_population", divisor_offset=0)
    if inst.method == "antithetic":
        f = inst.f
        return rates(
            "antithetic_se_iid",
            se_of=lambda pairs: oracle._mean_se([f[v] for pair in pairs for v in pair])[1],
        )
    if inst.method == "stratified":
        return rates("stratified_plain_se", plain_se=True)
    return (
        rates("cv_sample_mean", rule="sample_mean")
        | rates("cv_beta_sign", rule="sign_flipped")
        | rates("unnormalized_cdf", rule="known_mean_doubled")
    )


def _mistaken_means(inst: Instance) -> dict:
    """The exact means of the control variate's listed mistakes (the other methods' are unbiased or undetected)."""
    if inst.method != "control_variate":
        return {}
    out = {MISTAKES["cv_sample_mean"]: inst.mu}  # the correction cancels: plain Monte Carlo's mean
    for rule_name, key in (("sign_flipped", "cv_beta_sign"), ("known_mean_doubled", "unnormalized_cdf")):
        out[MISTAKES[key]] = oracle.mean(law_of(inst.method, inst.p, inst.f, inst.g, inst.n, rule=rule_name))
    return out


def check_statistics(sub, ctx, method: str) -> None:
    inst = instance(random.Random(ctx.fresh_seed(f"statistics {method}")), method)
    dtype = DTYPES[method]
    name = f"{method}_estimate"
    value = getattr(sub, name)(**inst.kwargs(dtype), generator=ctx.generator())
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(f"{name} must return a pair (estimate, se)", kind=Evidence.STRUCTURAL)
    estimates = expect_tensor(value[0], name=f"{name} estimate", shape=(ROWS,), dtype=dtype, device=ctx.device)
    errors = expect_tensor(value[1], name=f"{name} se", shape=(ROWS,), dtype=dtype, device=ctx.device)
    label = f"{name}, {ROWS} rows of {inst.n} draws"
    mean = oracle.mean(inst.law)
    # calibration first: its listed mistakes (the standard errors) are the commoner ones
    coverage = {z: oracle.coverage(inst.law, inst.mu, z) for z in ZS}
    expect_calibrated(
        ctx,
        estimates.double(),
        errors.double(),
        inst.mu,
        label=f"{label}: error bars",
        coverage=coverage,
        mistakes=lambda: {MISTAKES[k]: v for k, v in _mistaken_coverage(inst).items()},
    )
    expect_unbiased(
        ctx,
        estimates.double(),
        mean,
        std=math.sqrt(oracle.variance(inst.law)),
        label=f"{label}: the mean of the estimates",
        mistakes=lambda: _mistaken_means(inst),
    )
    if method != "plain":
        expect_less_variance(ctx, inst, estimates.double(), label=f"{label}: the variance promise")


def expect_less_variance(ctx, inst: Instance, estimates: torch.Tensor, *, label: str) -> None:
    """The mean of (estimate - mu)^2 over the rows below the Chernoff threshold of the procedure's law."""
    alpha = ctx.budget.spend("calibration")
    threshold = oracle.chernoff_threshold(inst.law, inst.mu, ROWS, alpha)
    observed = float(((estimates - inst.mu) ** 2).mean())
    passed = math.isfinite(observed) and observed < threshold
    ctx.records.append(CheckRecord("calibration", label, observed, 1.0 if passed else 0.0, alpha, passed))
    if passed:
        return
    plain = oracle.variance(oracle.plain_outcomes(inst.p, inst.f, inst.n), inst.mu)
    correct = oracle.variance(inst.law, inst.mu)
    mine, theirs = format_pair(observed, correct)
    fail(
        f"{label}: the mean square of (estimate - E_p[f]) over {ROWS} rows is {mine}; the method's exact variance is "
        f"{theirs} and plain Monte Carlo's {plain:.6g}; a correct solution exceeds {threshold:.6g} with probability "
        f"below {alpha:.2g}",
        diagnosis=MISTAKES["no_variance_reduction"] if observed >= 0.8 * plain else None,
        rule=rule(label, "the estimates vary more than the method allows", "估计值的方差超出了该方法允许的范围"),
        kind=Evidence.VALUE,
    )


def cv_table(p, f, g, n: int) -> list[tuple[float, float, float]]:
    """(estimate, se, the estimate with beta times n / (n - 1)) of every way n draws can fall (p > 0)."""
    known = sum(a * b for a, b in zip(p, g, strict=True))
    out = []
    for counts in oracle._compositions(n, len(p)):
        fs, gs = oracle._repeat(counts, f), oracle._repeat(counts, g)
        estimate, se = oracle.control_variate(fs, gs, known)
        ddof, _ = oracle.control_variate(fs, gs, known, rule="beta_ddof")
        out.append((estimate, se, ddof))
    return out


def expect_some_draws(ctx, value, outcomes, dtype, *, rows: int, label: str, constant: bool = False) -> None:
    """Each row's (estimate, se) is that of some n draws, to the dtype's tolerance. With a ``constant`` control
    beta is 0 in every row, so a row that fits no draws is evidence that the beta = 0 rule is broken."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(f"{label} must return a pair (estimate, se)", kind=Evidence.STRUCTURAL)
    estimates = expect_tensor(value[0], name=f"{label} estimate", shape=(rows,), dtype=dtype, device=ctx.device)
    errors = expect_tensor(value[1], name=f"{label} se", shape=(rows,), dtype=dtype, device=ctx.device)
    tolerance = 1e-9 if dtype == torch.float64 else 1e-4
    scale = 1.0 + max(abs(e) for e, _, _ in outcomes)
    failing, named = [], None
    for b, (est, err) in enumerate(zip(estimates.tolist(), errors.tolist(), strict=True)):
        if any(abs(est - e) <= tolerance * scale and abs(err - s) <= tolerance * scale for e, s, _ in outcomes):
            continue
        failing.append((b, est, err))
        # Only an estimate speaks of beta: an estimate some draws give, with a wrong se, is another mistake.
        if not any(abs(est - e) <= tolerance * scale for e, _, _ in outcomes):
            if constant:
                named = MISTAKES["cv_constant_control"]
            elif named is None and any(abs(est - d) <= tolerance * scale for _, _, d in outcomes):
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
