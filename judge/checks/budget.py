"""The false-failure budget: how often a correct submission may fail, and who spends it.

Every randomized check is a hypothesis test with a significance level ``alpha``: the
probability that a *correct* submission fails that check. By the union bound the probability
that it fails any check of a run is at most the sum of the alphas. Each test suite declares
how many checks of each kind it runs (:class:`BudgetDeclaration`); :class:`FalseFailureBudget`
gives each check its alpha so that the declared checks add up to the exercise's total, and
refuses (as an internal error) a check that was not declared, so the documented bound can
never be exceeded silently.

Goodness-of-fit checks and within-row pair checks (both G-tests), the estimators' calibration
checks (exact binomial tails) and their unbiasedness checks (a normal approximation) share what
the fixed-level checks leave, ``share / (count * ASYMPTOTIC_SAFETY)`` each: the G-tests' p-values
come from the asymptotic chi-square tail, measured to run up to ~1.3x hot, and the factor 10
covers it; the unbiasedness test leans on the central limit theorem, and the same factor covers
its error. A calibration test's tail is exact, so it is charged its alpha only (its share is
conservative by the factor 10).

A write-the-test exercise (:mod:`judge.exercises.write_the_test`) judges the learner's own test by
exact binomial tails of its rates (false failures against correct samplers, misses against each
catalogued mistake): kind ``rates``, one per case. Their tails are exact, so each is charged one
unit where a pooled check is charged ``ASYMPTOTIC_SAFETY`` units, and the levels of a suite that
declares no ``rates`` are what they were.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

ASYMPTOTIC_SAFETY = 10.0
# Fixed levels for the checks whose tails are exact or whose fakes land far away.
INDEPENDENCE_ALPHA = 1e-8  # duplicated rows: exact binomial tail
SEEDS_ALPHA = 1e-12  # two seeds giving identical output: exact probability
TOO_REGULAR_ALPHA = 1e-12  # lower chi-square tail, one per case with fits (measured: quantile fakes reach 1e-54)
KINDS = ("fit", "pairs", "calibration", "unbiased", "independence", "seeds", "too_regular", "rates")
# Checks that share what the fixed levels leave, each at share / (count x ASYMPTOTIC_SAFETY).
POOLED_KINDS = ("fit", "pairs", "calibration", "unbiased")
# Of those, the ones whose tails are approximations, charged ASYMPTOTIC_SAFETY x alpha: the
# G-tests (chi-square upper tail) and the unbiasedness z-test (normal tail).
ASYMPTOTIC_KINDS = ("fit", "pairs", "unbiased")


class Spending(Protocol):
    """What a check sees of the budget (``ctx.budget``): the run's :class:`FalseFailureBudget`, a case's
    :class:`CaseBudget`, or a stage's share of either (judge.checks.sequential)."""

    def spend(self, kind: str) -> float: ...

    def alpha(self, kind: str) -> float: ...


class BudgetExceeded(RuntimeError):
    """A suite ran more checks of a kind than it declared: a bug in the exercise's tests."""


@dataclass(frozen=True)
class BudgetDeclaration:
    """What one test suite declares, at module level, as ``BUDGET = BudgetDeclaration(...)``."""

    fit: int = 0
    independence: int = 0
    seeds: int = 0
    pairs: int = 0  # independence within a row (its pairings share one) or across two rows: pairs against the product
    calibration: int = 0  # estimators: intervals cover the truth at their stated rate (exact binomial)
    unbiased: int = 0  # estimators: the mean of many estimates is the true value (z-test)
    rates: int = 0  # write-the-test: a learner's test's false-failure rate or miss rate (exact binomial)

    def __add__(self, other: BudgetDeclaration) -> BudgetDeclaration:
        return BudgetDeclaration(
            fit=self.fit + other.fit,
            independence=self.independence + other.independence,
            seeds=self.seeds + other.seeds,
            pairs=self.pairs + other.pairs,
            calibration=self.calibration + other.calibration,
            unbiased=self.unbiased + other.unbiased,
            rates=self.rates + other.rates,
        )

    def __str__(self) -> str:
        """As a suite would write it: only the kinds it declares (``BudgetDeclaration()`` for none)."""
        kinds = ("fit", "pairs", "calibration", "unbiased", "independence", "seeds", "rates")
        return f"BudgetDeclaration({', '.join(f'{k}={getattr(self, k)}' for k in kinds if getattr(self, k))})"

    def count(self, kind: str) -> int:
        """How many checks of ``kind`` this declares (``too_regular``: one per fit at most)."""
        return {
            "fit": self.fit,
            "pairs": self.pairs,
            "calibration": self.calibration,
            "unbiased": self.unbiased,
            "independence": self.independence,
            "seeds": self.seeds,
            "too_regular": self.fit,
            "rates": self.rates,
        }[kind]


@dataclass
class FalseFailureBudget:
    """Alphas for one judged run of several suites together.

    Raises ``ValueError`` when the fixed-level checks alone would exceed ``total``.
    """

    total: float
    declared: BudgetDeclaration
    used: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        fixed = self.fixed_share()
        if fixed >= self.total:
            raise ValueError(f"fixed-level checks need {fixed:.3g}, more than the total budget {self.total:.3g}")

    def fixed_share(self) -> float:
        d = self.declared
        # One "too regular" test per case that ran fit checks: at most one per fit check.
        return d.independence * INDEPENDENCE_ALPHA + d.seeds * SEEDS_ALPHA + d.fit * TOO_REGULAR_ALPHA

    def alpha(self, kind: str) -> float:
        """The significance level of one check of ``kind`` (does not spend it)."""
        if kind in POOLED_KINDS or kind == "rates":
            if not self.declared.count(kind):
                raise BudgetExceeded(f"this suite declared no {kind} checks")
            shared = sum(self.declared.count(pooled) for pooled in POOLED_KINDS)
            # A rates check's tail is exact: one unit, where a pooled check takes ASYMPTOTIC_SAFETY.
            return (self.total - self.fixed_share()) / (shared * ASYMPTOTIC_SAFETY + self.declared.rates)
        return {"independence": INDEPENDENCE_ALPHA, "seeds": SEEDS_ALPHA, "too_regular": TOO_REGULAR_ALPHA}[kind]

    def spend(self, kind: str) -> float:
        """Charge one check of ``kind`` and return its alpha; raise :class:`BudgetExceeded` past the declaration.

        Safe to call from the threads of one run's lanes: an alpha depends on the kind only, never
        on the order of the checks, and the counts are updated under a lock."""
        limit = self.limit(kind)
        alpha = self.alpha(kind)
        with self._lock:
            if self.used[kind] >= limit:
                raise BudgetExceeded(f"more {kind} checks than the {limit} the suites declared")
            self.used[kind] += 1
        return alpha

    @property
    def spent(self) -> dict[str, float]:
        """What the checks charged so far, per kind: each check of a kind has the kind's alpha, so the
        count times its charge (exactly: no sum of floats whose order the lanes' timing would decide)."""
        return {kind: self.used[kind] * charge(kind, self._alpha_or_zero(kind)) for kind in KINDS}

    def _alpha_or_zero(self, kind: str) -> float:
        return self.alpha(kind) if self.used[kind] else 0.0

    def take_back(self, case: CaseBudget) -> None:
        """Forget what ``case`` spent: a case the run dropped from its report (judge.engine.settling),
        so that the report's budget counts the reported cases only, whatever ran meanwhile."""
        with self._lock:
            for kind in KINDS:
                self.used[kind] -= case.used[kind]

    def summary(self) -> dict:
        """The report's ``false_failure_budget`` object."""
        spent = self.spent
        return {
            "total": self.total,
            "spent": sum(spent.values()),
            "fit_alpha": self.alpha("fit") if self.declared.fit else None,
            "asymptotic_safety": ASYMPTOTIC_SAFETY,
            "checks": {k: {"declared": self.limit(k), "used": self.used[k], "spent": spent[k]} for k in KINDS},
        }

    def limit(self, kind: str) -> int:
        return self.declared.count(kind)


def charge(kind: str, alpha: float) -> float:
    """What a check of ``kind`` at ``alpha`` may really cost: a G-test or z-test allowing its asymptotic
    tail to be ``ASYMPTOTIC_SAFETY`` times off, any other its alpha."""
    return alpha * (ASYMPTOTIC_SAFETY if kind in ASYMPTOTIC_KINDS else 1.0)


class CaseBudget:
    """One case's view of its run's budget (the ``ctx.budget`` its checks see): each spend is the run's,
    and is also tallied here, so that the run can take back what a case it drops had spent
    (:meth:`FalseFailureBudget.take_back`). Everything else is the run's budget's."""

    def __init__(self, run: FalseFailureBudget) -> None:
        self.run = run
        self.used: dict[str, int] = dict.fromkeys(KINDS, 0)

    def spend(self, kind: str) -> float:
        """:meth:`FalseFailureBudget.spend` on the run's budget, counted for this case."""
        alpha = self.run.spend(kind)
        self.used[kind] += 1
        return alpha

    def alpha(self, kind: str) -> float:
        return self.run.alpha(kind)

    def __getattr__(self, name: str) -> object:
        return getattr(self.run, name)
