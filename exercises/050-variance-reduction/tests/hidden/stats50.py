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
from judge.checks.evidence import Evidence
from judge.checks.numbers import format_pair
from judge.reports.report import CheckRecord

from ..public import checks50
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

    @classmethod
    def of(cls, method: str, p, f, g, n: int) -> Instance:
        """The instance of these inputs (no screening: :func:`instance` draws screened ones)."""
        mu = sum(a * b for a, b in zip(p, f, strict=True))
        return cls(method, tuple(p), tuple(f), None if g is None else tuple(g), n, mu, law_of(method, p, f, g, n))

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


def contract_law(method: str) -> torch.Tensor:
    """The law of the count of token 1 among one row's draws of ``checks50.contract_rows`` (the generator
    contract's rows; frozen for the tiny suite in ``frozen50.CONTRACT_LAWS``)."""
    n = checks50.CONTRACT_DRAWS
    law = law_of(method, checks50.CONTRACT_P, (0.0, 1.0), (0.5, 0.5), n)
    out = torch.zeros(n + 1, dtype=torch.float64)
    for w, e, _ in law:
        out[round(e * n)] += w
    return out / out.sum()


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


def mistaken_coverage(inst: Instance) -> dict:
    """{the listed mistake's key in MISTAKES: {z: its exact coverage of E_p[f]}} for the instance's method."""

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


def mistaken_means(inst: Instance) -> dict:
    """{key in MISTAKES: exact mean} of the control variate's listed mistakes (the other methods' are unbiased
    or undetected)."""
    if inst.method != "control_variate":
        return {}
    out = {"cv_sample_mean": inst.mu}  # the correction cancels: plain Monte Carlo's mean
    for rule_name, key in (("sign_flipped", "cv_beta_sign"), ("known_mean_doubled", "unnormalized_cdf")):
        out[key] = oracle.mean(law_of(inst.method, inst.p, inst.f, inst.g, inst.n, rule=rule_name))
    return out


def check_statistics(sub, ctx, method: str) -> None:
    inst = instance(random.Random(ctx.fresh_seed(f"statistics {method}")), method)
    dtype = DTYPES[method]
    name = f"{method}_estimate"
    value = getattr(sub, name)(**inst.kwargs(dtype), generator=ctx.generator())
    label = f"{name}, {ROWS} rows of {inst.n} draws"
    estimates = checks50.expect_estimates(
        ctx,
        value,
        name=name,
        rows=ROWS,
        dtype=dtype,
        label=label,
        mu=inst.mu,
        mean=oracle.mean(inst.law),
        std=math.sqrt(oracle.variance(inst.law)),
        coverage={z: oracle.coverage(inst.law, inst.mu, z) for z in ZS},
        coverage_mistakes=lambda: {MISTAKES[k]: v for k, v in mistaken_coverage(inst).items()},
        mean_mistakes=lambda: {MISTAKES[k]: v for k, v in mistaken_means(inst).items()},
    )
    if method != "plain":
        expect_less_variance(ctx, inst, estimates, label=f"{label}: the variance promise")


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
