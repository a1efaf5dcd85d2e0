#!/usr/bin/env python3
"""Power of exercise 39's suite: the smallest sample size that kills each known-wrong solution.

    .venv/bin/python benchmarks/power.py [--reps 4000] [--screen-reps 200] [--candidates 2]
        [--too-regular-scan 4096] [--fresh-rows 2048] [--quick] [--only NAME ...] [--seed N] [--json PATH]

Every file in ``solutions/039-sampling/wrong/`` is classified by the check that kills it (a file
that is neither in ``SPECIAL`` nor a key of ``oracle.MISTAKES`` is reported as unclassified, and
the script exits 1):

* **distribution mistakes** (the file name is a key of ``oracle.MISTAKES``, or an alias): the
  sampler draws from ``oracle.mistaken(logits, params, key)`` instead of the target. For each
  row the suite draws from (public ``sample(top_p=0.8)``, the mixed kinds at ``MIXED_DRAWS x
  MIXED_COPIES`` draws per kind, 32 000-token Zipf, the real model's logits, float64, scalar,
  top-k edges, the single-draw kinds at ``SINGLE_DRAW_COPIES`` draws per kind, and the ordinary
  draws of the extreme-uniform case on the edge and the 64 random rows) the suite's decision is
  simulated: any draw of a token whose target probability is 0 kills (exact: ``1 - (1 - q)^n``
  for the mistaken mass ``q`` outside the target's support); otherwise, on rows that get a
  goodness-of-fit check, the pooled Williams G-test at the suite's per-fit alpha. P(kill) =
  1 - (1 - q)^n * P(G passes | no draw outside the support); the second factor is estimated
  from ``--reps`` repetitions of n draws (each run's counts one multinomial draw, numpy). A quick
  screen (``--screen-reps``, doubling n) ranks the rows by n as a share of the suite's n for
  that row; the best ones get a fine search on a geometric grid (ratio 1.08). Reported, for the
  row with the most room (the largest margin = suite's n / smallest n): the smallest n whose
  point estimate of P(kill) reaches 0.999, and the smallest n whose one-sided 95 %
  Clopper-Pearson lower bound does (needs ``--reps`` >= 2996 when the G-test alone must do it).
  Also reported: whether the deterministic ``sampling_probs`` cases catch the mistake anyway.
* **shared_uniform**: the duplicated-rows independence test (rows 2 and 5 of the mixed batch,
  exact binomial tail at alpha 1e-8), simulated with the wrong file itself.
* **antithetic_pairs**, **sorted_draws**, **repeated_draws**: the within-row pair tests
  (``judge.checks.independence.expect_independent_within_row`` on mixed kinds ``hidden.PAIR_ROWS`` at the
  suite's pairs alpha), run on the wrong file's own draws in the suite's shape (copies of each
  kind, pooled by kind): at the suite's size, and with the copies doubling from 1 until every run
  is killed.
* **too_regular**: the judge's "too regular" checks, one per case that ran fit checks (the
  lower chi-square tail of the sum of that case's fit statistics, alpha 1e-12 each; a case the
  judge declines as too discrete, ``judge.checks.distributions.too_regular``, cannot catch); the fake is
  caught when any case's tail is below alpha. The wrong file's draws are deterministic, so one
  run per n: every n from 8 to ``--too-regular-scan``, the same n for every fit row (drawn as one
  row per kind); at the suite's sizes the draws are taken in the suite's shape.
* **ignores_generator**: the same-seed check; it survives only if two independent calls happen
  to print identical draws (exact probability). **single_draw_ignores_generator**: the same at
  num_samples=1 (``test_single_draws``, all single-draw rows). **private_generator**: two calls
  after the same ``torch.manual_seed`` (``test_default_generator``, 400 draws of the scalar rows).
* **single_draw_skips_filters**: its num_samples=1 distribution is read off the file (the
  ``torch.multinomial`` input); the support check over all single-draw kinds (exact) and the
  kinds' fits at ``SINGLE_DRAW_COPIES`` draws.
* **column_parameters_accepted**, **first_row_validated** (``hidden._bad_parameters``, every
  input must raise ValueError), **top_k_above_vocabulary_crashes** (the top-k edge rows),
  **modifies_logits** (the judge checks every call's inputs are unchanged): deterministic hard
  checks, probed on the file; P(kill) is 1 or 0.
* **inverse_cdf_off_end**, **inverse_cdf_past_end**: the extreme-uniform phase (edge, mixed and
  64 random rows, a share of uniforms set to exactly 0.0 or 1 - 2^-24). Which extreme breaks
  which row is read off the file itself (``torch.rand`` patched to return just those two
  values); how often real uniforms break it is counted exactly on each row's CDF (float32
  uniforms are multiples of 2^-24). Also: the share of fresh random rows drawn like the 64
  (``cases.many_rows(--fresh-rows)``) that the file breaks, i.e. how lucky a batch of 64 is.
* **no_greedy**: the greedy rows (temperature 0, tied maxima) of ``sample_greedy``: exact
  survival probability (``probs_greedy_ties`` also catches it deterministically).
* **antithetic_half_apart**: as the other within-row pairs mistakes (draw j against draw j + n/2).
* **reseeded_generator**: the generator contract's second call with one generator object: the file
  itself, twice on the contract rows; it survives only if the two calls differ (exact).
* **generated rows** (``greedy_onehot_float32``, ``top_p_one_cuts``, ``smoothed_probs``, and the
  distribution mistakes only generated rows separate): ``hidden._expect_probs`` on the generated calls
  of ``--generated-seeds`` case seeds (the file's own ``sampling_probs``): the share of seeds that
  kill it, and its one-sided 95 % lower bound.
* **refusals** (``plus_inf_accepted``, ``nan_parameters_accepted``,
  ``greedy_rows_unchecked``): the hand tables (``test_bad_parameters``, ``test_bad_logits``) and the
  generated refusals of ``--generated-seeds`` seeds, each call made on the file itself.
* **gumbel_log_zero**: the file with every uniform 0 on the one-token rows of ``every_draw_site``
  (the check it fails), and the exact chance that pushing one value per line to 0 never hits the
  allowed token of any one-token row.

A last section, **0.01 shift**: on every small-vocabulary row with a fit check (mixed kinds,
float64, scalar, top-k edges, single-draw kinds) 0.01 of probability is moved from the most
likely token to the second, and back the other way; the harder direction's P(kill) at the
suite's n (``--reps`` runs, one-sided 95 % Clopper-Pearson lower bound) is reported. The goal:
>= 0.999 on the mixed kinds.

**Stages.** The public 4 000 draws, the mixed rows and the real logits are drawn in stages
(``judge.checks.sequential``: 1/16, 1/4 and all of the sample, alpha spent 1/20, 1/20, 9/10). Their
rows are judged above at the last stage's share of the fit alpha (the earlier stages only add kills,
so the figure is conservative), and a table gives, for each mistake decided on such a row, its margin
and P(kill) at each stage: how often the sequence stops early.

The G-test replicas used for speed are cross-checked against ``judge.checks.stats.g_test``.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import functools
import inspect
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from rich.table import Table  # noqa: E402
from scipy import stats as sps  # noqa: E402

from benchmarks._common import EXERCISE_ID, load_exercise_tests, machine, write_json  # noqa: E402
from benchmarks._common import console as make_console  # noqa: E402
from judge.authoring.catalogue import parse_wrong_solution  # noqa: E402
from judge.checks import stats as jstats  # noqa: E402
from judge.checks import tails
from judge.checks.base import CheckFailed  # noqa: E402
from judge.checks.budget import INDEPENDENCE_ALPHA, TOO_REGULAR_ALPHA, BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.checks.distributions import too_regular  # noqa: E402
from judge.checks.generator_contract import identical_draws_probability as identical_rows_probability  # noqa: E402
from judge.checks.independence import expect_independent_within_row  # noqa: E402
from judge.checks.sequential import stage_plan  # noqa: E402
from judge.checks.testing import Context  # noqa: E402
from judge.exercises.exercise import resolve  # noqa: E402
from judge.exercises.suites import import_solution, load_suite  # noqa: E402
from judge.learner.code import ExtremeUniforms  # noqa: E402

TARGET = 0.999  # the power every known mistake must be killed with
CONFIDENCE = 0.95  # one-sided, for the lower confidence bound on P(kill)
SCREEN_LEVEL = 0.95  # the screen doubles n until this point estimate
GRID_RATIO = 1.08
CAP_FACTOR = 8  # search up to this many times the suite's n
CHUNK_DRAWS = 4_000_000  # multinomial counts (runs x vocabulary) per chunk
ENUMERATED_ROWS = 2  # inverse CDF: rows per batch, with and without bad uniforms, checked against all 2^24

# Sizes and batches that are literals inside test functions (the rest are read from hidden.py).
PUBLIC_DRAWS = 4_000  # public.test_sample_distribution
EXTREME_CASE_DRAWS = 2_000  # hidden.test_extreme_uniforms, per call (one ordinary, one extreme)
EXTREME_BATCHES = ("edge", "mixed", "many")  # hidden.test_extreme_uniforms
GREEDY_DRAWS = 50  # hidden.test_sample_greedy
GREEDY_PARAMS = ({"temperature": 0.0}, {"temperature": 0.0, "top_k": 2, "top_p": 0.3, "min_p": 0.5})
SEEDS_DRAWS = 400  # hidden.test_generator_seeds (and the first half of hidden.test_default_generator)
# Fit rows per batch, as hidden.py's _check_draws / _check_kinds calls list them (kinds for the repeated batches).
FIT_ROWS = {"mixed": [0, 1, 2, 3, 4, 5, 7], "zipf": [0, 1, 2], "real": [0, 1, 2, 3, 4, 5, 6, 7], "float64": [0, 1],
            "scalar": [0, 1], "public": [0], "top_k_edges": [0, 2, 3], "single": [0, 1, 3, 4],
            "contract": [0, 1, 2, 3]}  # "generated 1" and "generated 2": their first order row (set in load)
GENERATED_SEED = 39_039  # the case seed whose generated calls stand for every seed in the row tables
SHIFT = 0.01  # the "0.01 shift" section: probability moved between a row's two most likely tokens
SHIFT_CALLS = ("mixed", "float64", "scalar", "top_k_edges", "single")  # small vocabularies with fit checks

ALIASES = {"row0_parameters": "row0_params", "temperature_after_softmax": "temperature_ignored"}


# ---------------------------------------------------------------------------------------------
# The rows the suite draws from
# ---------------------------------------------------------------------------------------------


@dataclass
class Call:
    """One batched ``sample`` call of the suite with ordinary uniforms."""

    name: str
    batch: Any  # cases.Batch
    case: str
    n: int  # draws per row (per kind of row for a repeated batch: draws * copies)
    per_row: bool  # parameters passed as per-row tensors (else scalars)
    copies: int = 1  # the suite draws from cases.repeated(batch, copies) and pools the copies of each kind
    # Drawn in stages (judge.checks.sequential.staged) over ``units``: the copies of a repeated batch,
    # else the draws per row. None: one stage at the whole alpha.
    staged: bool = False

    @property
    def units(self) -> int:
        """What the suite's stages count: copies of each kind, or draws per row."""
        return self.copies if self.copies > 1 else self.n

    def stages(self, alpha: float) -> list[tuple[int, float]]:
        """(draws per row or kind, alpha) of each stage the suite runs on this call, the last the whole n."""
        if not self.staged:
            return [(self.n, alpha)]
        per_unit = self.n // self.units
        return [(stage.size * per_unit, alpha * stage.share) for stage in stage_plan(self.units)]

    def last_alpha(self, alpha: float) -> float:
        """The fit alpha of the whole sample: the last stage's share of it."""
        return self.stages(alpha)[-1][1]

    @property
    def draws(self) -> int:
        """num_samples of the suite's call."""
        return self.n // self.copies

    def suite_draws(self, module, generator: torch.Generator, cases) -> torch.Tensor:
        """The file's draws as the suite takes them, grouped by kind: int64 [kinds, n]."""
        batch = self.batch if self.copies == 1 else cases.repeated(self.batch, self.copies)
        params = batch.arguments() if self.per_row else Call.kwargs(self)
        draws = module.sample(batch.logits, num_samples=self.draws, generator=generator, **params)
        return draws if self.copies == 1 else cases.by_kind(draws, self.batch.logits.shape[0])

    def kwargs(self) -> dict:
        """The parameters as the suite passes them."""
        if self.per_row:
            return self.batch.arguments()
        first = self.batch.params[0]
        return {"temperature": first.temperature, "top_k": first.top_k, "top_p": first.top_p, "min_p": first.min_p}


@dataclass
class RowCheck:
    """One row of one call and what the suite does with its draws."""

    call: Call
    row: int
    fit: bool  # a goodness-of-fit check besides the support check

    @property
    def name(self) -> str:
        return f"{self.call.name} row {self.row}"

    @property
    def n(self) -> int:
        return self.call.n

    @property
    def target(self) -> torch.Tensor:  # exact float64 [V] of this row
        return self.call.batch.exact.probs[self.row]


@dataclass
class Suite:
    cases: Any
    oracle: Any
    hidden: Any
    fit_alpha: float
    pairs_alpha: float
    declared: BudgetDeclaration
    calls: dict[str, Call]
    checks: list[RowCheck]


def load(exercise) -> Suite:
    package = load_exercise_tests(exercise)
    cases, oracle, hidden, public = (sys.modules[f"{package}.{name}"] for name in ("hidden.cases", "hidden.oracle",
                                                                                  "hidden.hidden", "public.public"))
    declared = load_suite(exercise, "public").budget + load_suite(exercise, "hidden").budget
    budget = FalseFailureBudget(exercise.false_failure_budget, declared)
    fit_alpha, pairs_alpha = budget.alpha("fit"), budget.alpha("pairs")
    public_logits = torch.tensor([public.LOGITS], dtype=torch.float32)
    public_params = [oracle.RowParams(top_p=0.8)]
    public_batch = cases.Batch(public_logits, public_params, oracle.target(public_logits, public_params),
                               ["public top_p=0.8"])
    calls = [
        Call("public", public_batch, "public/sample_distribution", PUBLIC_DRAWS, False, staged=True),
        Call("mixed", cases.mixed_rows(), "sample_mixed_rows", hidden.MIXED_DRAWS * cases.MIXED_COPIES, True,
             cases.MIXED_COPIES, staged=True),
        Call("zipf", cases.zipf_rows(), "sample_large_vocabulary", hidden.ZIPF_DRAWS, True),
        Call("real", cases.real_rows(), "sample_real_logits", hidden.REAL_DRAWS, True, staged=True),
        Call("float64", cases.float64_rows(), "sample_float64", hidden.SMALL_DRAWS, True),
        Call("scalar", cases.scalar_rows(), "sample_scalar_parameters", hidden.SMALL_DRAWS, False),
        Call("top_k_edges", cases.top_k_edge_rows(), "sample_top_k_edges", hidden.SMALL_DRAWS, True),
        Call("single", cases.single_draw_kinds(), "single_draws", cases.SINGLE_DRAW_COPIES, True,
             cases.SINGLE_DRAW_COPIES),
        Call("edge", cases.edge_rows(), "extreme_uniforms (ordinary call)", EXTREME_CASE_DRAWS, True),
        Call("many", cases.many_rows(), "extreme_uniforms (ordinary call)", EXTREME_CASE_DRAWS, True),
        Call("contract", cases.contract_rows(), "generator_contract (rows in another order)", hidden.POSITION_DRAWS,
             True),
    ]
    generated = sys.modules[f"{package}.hidden.generated"].calls(GENERATED_SEED)
    fit_rows = dict(FIT_ROWS)
    for number in (0, 1):  # hidden.test_sample_generated: one fit per call of per-row parameters
        call = generated[number]
        name = f"generated {number + 1}"
        calls.append(Call(name, call, "sample_generated", hidden.GENERATED_DRAWS, True))
        fit_rows[name] = [next(r for r, f in enumerate(call.families) if f.startswith("order:"))]
    checks = [RowCheck(call, row, row in fit_rows.get(call.name, [])) for call in calls
              for row in range(call.batch.logits.shape[0])]
    fits = sum(c.fit for c in checks)
    if fits != declared.fit:
        raise SystemExit(f"power.py knows {fits} fit rows but the suites declare {declared.fit}: update FIT_ROWS")
    return Suite(cases, oracle, hidden, fit_alpha, pairs_alpha, declared, {call.name: call for call in calls}, checks)


# ---------------------------------------------------------------------------------------------
# Simulating the suite's decision on one row
# ---------------------------------------------------------------------------------------------


def critical_value(alpha: float, df: int) -> float:
    """The statistic at which judge.checks.tails.chi2_sf crosses alpha (the judge passes iff stat <= it)."""
    low, high = 0.0, max(10.0, 2.0 * df)
    while tails.chi2_sf(high, df) >= alpha:
        high *= 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if tails.chi2_sf(middle, df) >= alpha:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return low


@dataclass
class Plan:
    """The pooling of one row at one n, exactly as judge.checks.stats.g_test pools it."""

    k: int
    group_of: torch.Tensor  # token -> pooled bin (or -1)
    expected: torch.Tensor  # float64 [k]
    williams: float
    critical: float


@dataclass
class CrossCheck:
    samples: int = 0
    max_relative_difference: float = 0.0
    decision_mismatches: int = 0


class RowSimulator:
    """P(the suite kills this row) at n draws, for draws from ``p1`` judged against target ``p0``."""

    def __init__(self, p0: torch.Tensor, p1: torch.Tensor, fit: bool, alpha: float, seed: int,
                 crosscheck: CrossCheck) -> None:
        self.p0 = p0.to(torch.float64)
        self.p1 = p1
        self.targets = self.p0.tolist()
        zero = self.p0 == 0
        self.q = min(1.0, max(0.0, float(p1[zero].sum())))
        inside = torch.where(zero, torch.zeros_like(p1), p1.to(torch.float64))
        total = float(inside.sum())
        self.conditional = inside / total if total > 0 else None
        self.fit = fit
        self.alpha = alpha
        self.numpy = np.random.default_rng(seed)
        if self.conditional is not None:
            pvals = self.conditional.numpy().astype(np.float64)
            self.pvals = pvals / pvals.sum()
        self.plans: dict[int, Plan] = {}
        self.crosscheck = crosscheck
        self.checked: set[int] = set()

    def support_survival(self, n: int) -> float:
        if self.q >= 1.0:
            return 0.0
        return math.exp(n * math.log1p(-self.q)) if self.q > 0 else 1.0

    def support_n(self) -> float:
        """Smallest n at which the support check alone kills with probability TARGET (exact)."""
        if self.q >= 1.0:
            return 1
        if self.q <= 0.0:
            return math.inf
        return math.ceil(math.log1p(-TARGET) / math.log1p(-self.q))

    def _plan(self, n: int) -> Plan:
        if n not in self.plans:
            scale = n / math.fsum(self.targets)
            expected = [scale * p for p in self.targets]
            groups = jstats.pool_bins(expected)
            group_of = torch.full((len(expected),), -1, dtype=torch.int64)
            for index, group in enumerate(groups):
                group_of[group] = index
            k = len(groups)
            sums = torch.tensor([math.fsum(expected[i] for i in g) for g in groups], dtype=torch.float64)
            self.plans[n] = Plan(k, group_of, sums, 1.0 + (k + 1) / (6.0 * n),
                                 critical_value(self.alpha, k - 1) if k >= 2 else math.inf)
        return self.plans[n]

    def g_passes(self, n: int, reps: int) -> int:
        """How many of ``reps`` runs of n draws (all inside the support) pass the G-test.

        Each run's token counts are one multinomial draw (numpy, O(V) per run whatever n is):
        the same law as n categorical draws, so 160 000-draw rows cost no more than 4 000-draw ones.
        """
        if not self.fit or self.conditional is None:
            return reps
        plan = self._plan(n)
        if plan.k < 2:
            return reps
        passes = done = 0
        vocab = len(self.targets)
        chunk = max(1, min(reps, CHUNK_DRAWS // vocab))
        group_of = plan.group_of.clamp(min=0)  # tokens outside every bin have probability 0 here
        while done < reps:
            m = min(chunk, reps - done)
            tokens = torch.from_numpy(self.numpy.multinomial(n, self.pvals, size=m)).to(torch.float64)
            counts = torch.zeros(m, plan.k, dtype=torch.float64).index_add_(1, group_of, tokens)
            expected = plan.expected.expand_as(counts)
            safe = torch.where(counts > 0, counts, torch.ones_like(counts))
            deviance = torch.where(counts > 0, counts * torch.log(safe / expected) + expected - counts, expected)
            statistic = 2.0 * deviance.sum(dim=1) / plan.williams
            passes += int((statistic <= plan.critical).sum())
            if n not in self.checked and (vocab <= 1000 or not self.checked):
                self._cross_check(tokens[0].to(torch.int64), float(statistic[0]), plan)
                self.checked.add(n)
            done += m
        return passes

    def _cross_check(self, counts: torch.Tensor, statistic: float, plan: Plan) -> None:
        observed = counts.tolist()
        result = jstats.g_test(observed, self.targets)
        self.crosscheck.samples += 1
        difference = abs(result.statistic - statistic) / max(1e-300, abs(result.statistic))
        self.crosscheck.max_relative_difference = max(self.crosscheck.max_relative_difference, difference)
        if (result.pvalue >= self.alpha) != (statistic <= plan.critical):
            self.crosscheck.decision_mismatches += 1

    def evaluate(self, n: int, reps: int) -> dict:
        """Point estimate and one-sided lower confidence bound of P(kill) at n draws."""
        survival = self.support_survival(n)
        log10_support = n * math.log10(1 - self.q) if 0 < self.q < 1 else (0.0 if self.q == 0 else -math.inf)
        if survival == 0.0:
            result = {"n": n, "reps": 0, "passes": 0, "point": 1.0, "lower": 1.0, "survival_upper": 0.0}
        elif not self.fit:
            result = {"n": n, "reps": 0, "passes": 0, "point": 1 - survival, "lower": 1 - survival,
                      "survival_upper": survival}
        else:
            passes = self.g_passes(n, reps)
            upper = 1.0 if passes >= reps else float(sps.beta.ppf(CONFIDENCE, passes + 1, reps - passes))
            result = {"n": n, "reps": reps, "passes": passes, "point": 1 - survival * passes / reps,
                      "lower": 1 - survival * upper, "survival_upper": survival * upper}
        result["log10_support_survival"] = log10_support
        return result


@dataclass
class RowSearch:
    check: RowCheck
    q: float
    n_support: float
    n_screen: float | None = None
    n_point: float | None = None
    n_conf: float | None = None
    at_suite: dict | None = None
    evaluations: list[dict] = field(default_factory=list)

    def best(self, use_conf: bool) -> float:
        value = self.n_conf if use_conf else self.n_point
        return math.inf if value is None else value


def screen(sim: RowSimulator, check: RowCheck, reps: int) -> RowSearch:
    search = RowSearch(check, sim.q, sim.support_n())
    cap = min(search.n_support, CAP_FACTOR * check.n)
    if not check.fit:
        search.n_screen = search.n_point = search.n_conf = search.n_support
        return search
    n = 4
    while n < cap:
        if sim.evaluate(n, reps)["point"] >= SCREEN_LEVEL:
            break
        n *= 2
    search.n_screen = min(n, cap)
    return search


def refine(sim: RowSimulator, search: RowSearch, reps: int, use_conf: bool) -> None:
    """Find the smallest n meeting each criterion, starting from the screen's n.

    From the screen's n, walk a geometric grid down while the criterion holds, or up until it
    does (at most to CAP_FACTOR times the suite's n), then bisect the integers between the last
    miss and the first hit. Point criterion: estimated P(kill) >= TARGET; confidence criterion:
    its one-sided lower bound >= TARGET. Evaluations are shared by both searches.
    """
    check = search.check
    if not check.fit:
        return
    cap = min(search.n_support, CAP_FACTOR * check.n)
    visited: dict[int, dict] = {}

    def at(j: int) -> dict:
        return evaluate(max(1, math.ceil(search.n_screen * GRID_RATIO ** j)))

    def evaluate(n: int) -> dict:
        if n not in visited:
            visited[n] = sim.evaluate(n, reps)
        return visited[n]

    def walk(ok: Callable[[dict], bool]) -> int | None:
        """Bracket the smallest n meeting ``ok`` on the grid, then bisect the integers in between."""
        j = 0
        if ok(at(0)):
            while at(j)["n"] > 1 and ok(at(j - 1)):
                j -= 1
            high = at(j)["n"]
            low = at(j - 1)["n"] if high > 1 else 0
        else:
            while True:
                j += 1
                if ok(at(j)):
                    break
                if at(j)["n"] > cap:
                    return None
            low, high = at(j - 1)["n"], at(j)["n"]
        while high - low > 1:
            middle = (low + high) // 2
            if ok(evaluate(middle)):
                high = middle
            else:
                low = middle
        return high

    search.n_point = walk(lambda r: r["point"] >= TARGET)
    search.n_conf = walk(lambda r: r["lower"] >= TARGET) if use_conf else None
    if search.n_support < math.inf:  # the support check alone is exact
        search.n_point = min(search.n_point or math.inf, search.n_support)
        if use_conf:
            search.n_conf = min(search.n_conf or math.inf, search.n_support)
    search.evaluations = [visited[n] for n in sorted(visited)]


# ---------------------------------------------------------------------------------------------
# sampling_probs: do the deterministic cases catch it anyway?
# ---------------------------------------------------------------------------------------------


class _NotProbs(Exception):
    """Raised when a case goes past its sampling_probs checks."""


class _ProbsOnly:
    """A stand-in submission with only ``sampling_probs`` (from a function), for the exact cases."""

    def __init__(self, function: Callable) -> None:
        self._function = function

    def sampling_probs(self, logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
        # Copies: the cases' batches are cached, and a file that writes into its inputs
        # (modifies_logits) must not change them for the analyses that follow.
        copy = [v.clone() if isinstance(v, torch.Tensor) else v for v in (logits, temperature, top_k, top_p, min_p)]
        return self._function(copy[0], temperature=copy[1], top_k=copy[2], top_p=copy[3], min_p=copy[4])

    def sample(self, *args, **kwargs):
        raise _NotProbs


class _Ctx:
    """Enough of judge.checks.testing.Context for the exact cases; anything about draws ends the case.
    ``fresh_seed`` gives every label this stand-in's one seed (the generated rows of that seed)."""

    device = "cpu"

    def __init__(self, seed: int = GENERATED_SEED) -> None:
        self.seed = seed

    def fresh_seed(self, label: str) -> int:
        return self.seed

    def __getattr__(self, name):
        raise _NotProbs


def probs_cases(exercise) -> list:
    """The cases that compare sampling_probs with exact values: hidden probs_*, public _expect_probs ones."""
    cases = [c for c in load_suite(exercise, "hidden").cases if c.name.startswith("probs_")]
    cases += [c for c in load_suite(exercise, "public").cases if "_expect_probs(" in inspect.getsource(c.function)]
    return cases


def probs_failures(cases: list, function: Callable, seed: int = GENERATED_SEED) -> list[str]:
    sub = _ProbsOnly(function)
    failed = []
    for case in cases:
        try:
            case.function(sub, _Ctx(seed))
        except CheckFailed:
            failed.append(f"{case.suite}/{case.name}")
        except _NotProbs:
            pass
        except Exception:  # noqa: BLE001 - the file itself raised (top_k_above_vocabulary_crashes): a failure too
            failed.append(f"{case.suite}/{case.name} (raised)")
    return failed


def oracle_probs(oracle, key: str | None) -> Callable:
    """sampling_probs as ``oracle.mistaken(..., key)`` would return it (the exact target when key is None)."""

    def function(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
        batch = logits.shape[0]

        def column(value, cast):
            if isinstance(value, torch.Tensor):
                return [cast(v) for v in value.tolist()]
            return [cast(value)] * batch

        rows = zip(column(temperature, float), column(top_k, int), column(top_p, float), column(min_p, float),
                   strict=True)
        params = [oracle.RowParams(temperature=t, top_k=k, top_p=p, min_p=m) for t, k, p, m in rows]
        probs = oracle.target(logits, params, check_margins=False).probs if key is None else oracle.mistaken(
            logits, params, key)
        return probs.to(logits.dtype)

    return function


def import_file(path: Path):
    return import_solution(path, f"_bench_wrong_{path.stem}")



# ---------------------------------------------------------------------------------------------
# The analyses: each returns a dict with killing_check, row, n_point, n_conf, suite_n (and more)
# ---------------------------------------------------------------------------------------------


def analyse_distribution(suite: Suite, key: str, module, args, crosscheck: CrossCheck, seed: int) -> dict:
    searches: list[tuple[RowSearch, RowSimulator]] = []
    mistaken: dict[str, torch.Tensor] = {}
    file_mismatch = []
    for index, check in enumerate(suite.checks):
        call = check.call
        if call.name not in mistaken:
            mistaken[call.name] = suite.oracle.mistaken(call.batch.logits, call.batch.params, key)
            own = module.sampling_probs(call.batch.logits, **call.kwargs()).to(torch.float64)
            for row in range(own.shape[0]):
                wanted = mistaken[call.name][row]
                nan = bool(torch.isnan(own[row]).any())
                support = int(((own[row] > 0) != (wanted > 0)).sum())
                gap = float((own[row] - wanted).abs().max())
                if nan or support or gap > 1e-3:
                    file_mismatch.append(f"{call.name} row {row}: " + (
                        "NaN" if nan else f"{support} tokens in or out of the support, max |difference| {gap:.2g}"))
        p1 = mistaken[call.name][check.row]
        if torch.allclose(p1, check.target, rtol=1e-6, atol=1e-9):
            continue
        # A staged call decides the whole sample at its last stage's share of alpha (the earlier stages
        # only add kills): the power at the full sample, counted conservatively.
        alpha = call.last_alpha(suite.fit_alpha)
        sim = RowSimulator(check.target, p1, check.fit, alpha, seed + 7919 * index, crosscheck)
        searches.append((screen(sim, check, args.screen_reps), sim))
    if not searches:
        return {"killing_check": "none: no row the suite draws from changes", "rows": []}
    # The deciding row is the one with the most room: the smallest n as a share of the suite's n on that row.
    def share(search: RowSearch, n: float) -> float:
        return n / search.check.n

    ranked = sorted(searches, key=lambda pair: share(pair[0], pair[0].n_screen))
    best_screen = share(ranked[0][0], ranked[0][0].n_screen)
    candidates = [(s, m) for s, m in ranked if s.check.fit and share(s, s.n_screen) <= 2 * best_screen]
    use_conf = args.reps >= 2996
    for search, sim in candidates[:args.candidates]:
        refine(sim, search, args.reps, use_conf)
    finished = [(s, m) for s, m in searches if not s.check.fit or s.evaluations]
    best, sim = min(finished, key=lambda pair: (share(pair[0], pair[0].best(use_conf)),
                                                share(pair[0], pair[0].best(False))))
    best.at_suite = sim.evaluate(best.check.n, args.reps)
    stages = stage_margins(best, sim, suite, args, crosscheck, seed) if best.check.call.staged else []
    if best.q > 0 and best.n_support <= best.best(use_conf):
        killer = "support"
    elif best.q > 0:
        killer = "support + fit"
    else:
        killer = "fit (G-test)"
    return {
        "killing_check": killer, "row": best.check.name, "case": best.check.call.case, "q": best.q,
        "n_point": best.n_point, "n_conf": best.n_conf, "n_support": best.n_support, "suite_n": best.check.n,
        "at_suite": best.at_suite, "file_matches_oracle": not file_mismatch, "file_mismatch_rows": file_mismatch,
        "stages": stages,
        "rows": [{"row": s.check.name, "fit": s.check.fit, "q": s.q, "n_support": s.n_support,
                  "n_screen": s.n_screen, "n_point": s.n_point, "n_conf": s.n_conf, "suite_n": s.check.n,
                  "evaluations": s.evaluations} for s, _ in searches],
    }


def stage_margins(best: RowSearch, sim: RowSimulator, suite: Suite, args, crosscheck: CrossCheck,
                  seed: int) -> list[dict]:
    """The deciding row's margin at each stage of its staged call: the stage's draws over the smallest n
    whose P(kill) reaches the screen's level at the stage's alpha (the screen's doubling search), and
    P(kill) at the stage itself (the chance the sequence stops there or before is at least that)."""
    rows = []
    for number, (n, alpha) in enumerate(best.check.call.stages(suite.fit_alpha), start=1):
        stage_sim = RowSimulator(sim.p0, sim.p1, best.check.fit, alpha, seed + 104_729 * number, crosscheck)
        needed = screen(stage_sim, best.check, args.screen_reps).n_screen
        at = stage_sim.evaluate(n, args.screen_reps)
        rows.append({"stage": number, "n": n, "alpha": alpha, "n_needed": needed,
                     "margin": n / needed if needed else None, "p_kill": at["point"]})
    return rows


def analyse_shared_uniform(suite: Suite, module, args, seed: int) -> dict:
    call = suite.calls["mixed"]
    p_agree = float((call.batch.exact.probs[2] ** 2).sum())
    reps = max(50, args.screen_reps)
    curve = []
    always_equal = True
    for n in [2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 64, 256, 1024]:
        kills = 0
        for rep in range(reps):
            generator = torch.Generator().manual_seed(seed + 1_000 * n + rep)
            draws = module.sample(call.batch.logits, num_samples=n, generator=generator, **call.kwargs())
            agreements = int((draws[2] == draws[5]).sum())
            always_equal &= agreements == n
            kills += jstats.duplicate_agreement_test(agreements, n, p_agree).pvalue < INDEPENDENCE_ALPHA
        curve.append({"n": n, "reps": reps, "kill_rate": kills / reps})
    # With one shared uniform and identical rows every position agrees: p = p_agree ** n exactly.
    n_exact = 1
    while tails.binom_sf(n_exact, n_exact, p_agree) >= INDEPENDENCE_ALPHA:
        n_exact += 1
    observed = [c["n"] for c in curve if c["kill_rate"] >= TARGET]
    return {"killing_check": "independence", "row": "mixed rows 2 and 5", "case": "sample_mixed_rows",
            "p_agree": p_agree, "rows_always_agree": always_equal,
            "n_point": n_exact if always_equal else (min(observed) if observed else None),
            "n_conf": n_exact if always_equal else None, "suite_n": call.n, "curve": curve,
            "note": f"every draw agreed ({'yes' if always_equal else 'NO'}), so P(kill) is 0 below n = {n_exact} "
                    f"and 1 from there (p = {p_agree:.3f}^n)"}


class FastG:
    """The Williams-corrected pooled G statistic of judge.checks.stats.g_test for one target, fast for many n.

    Pooling sorts the tokens by expected count once (the order does not depend on n) and finds each
    bin's end by bisection on the cumulative target; the statistic is then a few vector operations.
    Sums are taken in a different order than judge.checks.stats does, so results agree to rounding (the
    scan cross-checks them against judge.checks.stats.g_test).
    """

    def __init__(self, target: torch.Tensor) -> None:
        values = target.to(torch.float64).tolist()
        self.total = math.fsum(values)
        positive = sorted((i for i, v in enumerate(values) if v > 0), key=values.__getitem__)
        self.order = torch.tensor(positive, dtype=torch.int64)
        self.cumulative = torch.cumsum(torch.tensor([values[i] for i in positive], dtype=torch.float64), 0)
        self.cumulative_list = self.cumulative.tolist()

    def statistic(self, counts: torch.Tensor, n: int) -> tuple[float, int, float]:
        """(Williams-corrected G, df, log_atom) of ``counts`` (int [V]) with n = counts.sum()."""
        step = 10.0 * self.total / n  # a bin closes once its target mass reaches 10 expected draws
        ends, start, size = [], 0.0, len(self.cumulative_list)
        while True:
            end = bisect.bisect_left(self.cumulative_list, start + step)
            if end >= size:
                break
            ends.append(end)
            start = self.cumulative_list[end]
        if not ends:
            ends = [size - 1]
        ends[-1] = size - 1  # a short trailing bin joins the previous one
        k = len(ends)
        if k < 2:
            return 0.0, 0, 0.0
        index = torch.tensor(ends, dtype=torch.int64)
        zero = torch.zeros(1, dtype=torch.float64)
        observed = torch.diff(torch.cumsum(counts[self.order].to(torch.float64), 0)[index], prepend=zero)
        expected = torch.diff(self.cumulative[index] * (n / self.total), prepend=zero)
        safe = torch.where(observed > 0, observed, torch.ones_like(observed))
        deviance = torch.where(observed > 0, observed * torch.log(safe / expected) + expected - observed, expected)
        return (float(2.0 * deviance.sum()) / (1.0 + (k + 1) / (6.0 * n)), k - 1,
                jstats.log_largest_outcome_probability(expected.tolist()))


def analyse_too_regular(suite: Suite, module, args, seed: int) -> dict:
    scan_max = args.too_regular_scan
    fit_rows: dict[str, list[RowCheck]] = {}  # the judge's rule: one too-regular test per case with fit checks
    for check in suite.checks:
        if check.fit:
            fit_rows.setdefault(check.call.name, []).append(check)
    fast = {id(c): FastG(c.target) for rows in fit_rows.values() for c in rows}

    def lower_tails(sizes: dict[str, int] | None, exact: bool = False) -> dict[str, dict]:
        """Call name -> the too-regular test of that case's fit rows, each call drawn at sizes[name]
        draws per row (None: the suite's own calls, repeated batches pooled by kind). A case the
        judge declines (judge.checks.distributions.too_regular: too discrete) gets p-value 1: it cannot catch."""
        tails = {}
        for name, rows in fit_rows.items():
            call = suite.calls[name]
            generator = torch.Generator().manual_seed(seed)
            if sizes is None:
                draws, n = call.suite_draws(module, generator, suite.cases), call.n
            else:
                n = sizes[name]
                draws = module.sample(call.batch.logits, num_samples=n, generator=generator, **call.kwargs())
            fits, fit_failed = [], []
            for check in rows:
                counts = torch.bincount(draws[check.row], minlength=check.target.shape[0])
                if exact:
                    result = jstats.g_test(counts.tolist(), check.target.tolist())
                    if result.pvalue < suite.fit_alpha:  # killed before the too-regular test
                        fit_failed.append(f"{check.name} (fit p = {result.pvalue:.2g})")
                    fits.append((result.statistic, result.df, result.log_atom))
                else:
                    fits.append(fast[id(check)].statistic(counts, n))
            test, declined = too_regular(fits, TOO_REGULAR_ALPHA)
            tails[name] = {"statistic": test.statistic, "df": test.df,
                           "pvalue": 1.0 if declined else test.pvalue, "declined": declined is not None,
                           "fit_failed": fit_failed}
        return tails

    def smallest(tails: dict[str, dict]) -> float:
        return min(t["pvalue"] for t in tails.values())

    # Every n from 8 to scan_max, the same n for every fit row (deterministic draws: one run each).
    scan = {n: lower_tails(dict.fromkeys(fit_rows, n)) for n in range(8, scan_max + 1)}
    caught = [n for n, tails in scan.items() if smallest(tails) < TOO_REGULAR_ALPHA]
    first = caught[0] if caught else None
    escapes = [n for n, tails in scan.items() if first and n > first and smallest(tails) >= TOO_REGULAR_ALPHA]
    from_here = escapes[-1] + 1 if escapes else first
    # Each case alone: the n from which it rejects every size up to scan_max (None: it misses scan_max).
    alone = {}
    for name in fit_rows:
        misses = [n for n, tails in scan.items() if tails[name]["pvalue"] >= TOO_REGULAR_ALPHA]
        alone[name] = 8 if not misses else (None if misses[-1] == scan_max else misses[-1] + 1)
    # Cross-check the fast statistic against judge.checks.stats.g_test where it matters and on a sample.
    cross = {"samples": 0, "max_relative_difference": 0.0, "decision_mismatches": 0}
    for n in sorted({first, from_here, *escapes[-5:], *range(8, scan_max + 1, max(1, scan_max // 16))} - {None}):
        exact = lower_tails(dict.fromkeys(fit_rows, n), exact=True)
        for name, tail in exact.items():
            cross["samples"] += 1
            difference = abs(scan[n][name]["statistic"] - tail["statistic"]) / max(1e-300, tail["statistic"])
            cross["max_relative_difference"] = max(cross["max_relative_difference"], difference)
            if (scan[n][name]["pvalue"] < TOO_REGULAR_ALPHA) != (tail["pvalue"] < TOO_REGULAR_ALPHA):
                cross["decision_mismatches"] += 1
    suite_sizes = {name: suite.calls[name].n for name in fit_rows}
    at_suite = lower_tails(None, exact=True)
    # The suite's own sizes all scaled by 0.9 to 1.1: is the smallest p at the suite's sizes typical?
    sweep = [smallest(lower_tails({name: round(n * s / 100) for name, n in suite_sizes.items()}))
             for s in range(90, 111)]

    per_case = ", ".join(f"{name} {'declined' if t['declined'] else format(t['pvalue'], '.1g')}"
                         + (f" (and its fit fails: {'; '.join(t['fit_failed'])})" if t["fit_failed"] else "")
                         for name, t in at_suite.items())
    never = [name for name, n in alone.items() if not n]
    alone_text = ", ".join(f"{name} from n = {n:,}" for name, n in alone.items() if n) or "none"
    alone_text += f"; {', '.join(never)} never" if never else ""
    summary = (f"per case (the judge's rule: caught when any case's lower tail < {TOO_REGULAR_ALPHA:g}). "
               f"Same n for every fit row, one run per n: first caught at n = {first}")
    if escapes:
        worst = max(smallest(scan[n]) for n in escapes)
        summary += (f", but not at {len(escapes)} larger n, the last {escapes[-1]} (worst smallest p = {worst:.2g}); "
                    f"every n from {from_here} to {scan_max:,} is caught")
    elif first:
        summary += f"; every n from {first} to {scan_max:,} is caught"
    note = (f"{summary}. A case alone catches every n up to {scan_max:,}: {alone_text}. At the suite's sizes "
            f"p = {per_case} (smallest {min(sweep):.1g} to {max(sweep):.1g} with all sizes x0.9 to x1.1). "
            f"Fast G cross-checked on {cross['samples']} case tests: max relative difference "
            f"{cross['max_relative_difference']:.1e}, {cross['decision_mismatches']} decision mismatches")
    if from_here is not None and from_here > scan_max - scan_max // 8:
        note += f". [red]The last escape is close to --too-regular-scan {scan_max}: scan further[/red]"
    return {"killing_check": "too regular", "row": f"{len(fit_rows)} cases, same n per fit row",
            "case": "not_too_regular", "n_point": from_here, "n_conf": from_here,
            "suite_n": min(c.n for rows in fit_rows.values() for c in rows),
            "first_rejection_n": first, "escapes": escapes, "scan_max": scan_max,
            "escapes_smallest_pvalues": {n: smallest(scan[n]) for n in escapes},
            "each_case_alone_from_n": alone, "at_suite_sizes": at_suite,
            "scaled_suite_sizes_smallest_pvalue_range": [min(sweep), max(sweep)], "crosscheck": cross, "note": note}


def analyse_ignores_generator(suite: Suite, module, args, seed: int) -> dict:
    call = suite.calls["scalar"]
    rows = call.batch.exact.probs.tolist()
    n = 1
    while jstats.identical_draws_probability(rows, n) > 1 - TARGET:
        n += 1
    first, second = (module.sample(call.batch.logits, num_samples=SEEDS_DRAWS,
                                   generator=torch.Generator().manual_seed(5), **call.kwargs()) for _ in range(2))
    survive = jstats.identical_draws_probability(rows, SEEDS_DRAWS)
    return {"killing_check": "seeds", "row": "scalar rows 0 and 1", "case": "generator_seeds",
            "n_point": n, "n_conf": n, "suite_n": SEEDS_DRAWS, "survival_at_suite_n": survive,
            "same_seed_calls_differ": not torch.equal(first, second),
            "note": f"survives only if two independent calls print identical draws: probability "
                    f"{jstats.identical_draws_probability(rows, n):.2g} at n = {n}, {survive:.2g} at n = "
                    f"{SEEDS_DRAWS}"}


def analyse_no_greedy(suite: Suite, module, args, seed: int) -> dict:
    batch = suite.cases.greedy_rows()  # hidden.test_sample_greedy draws these under GREEDY_PARAMS
    first_maximum = batch.exact.probs.argmax(dim=1).tolist()  # the target is its one-hot
    log_survival_per_draw = 0.0
    per_set = []
    for params in GREEDY_PARAMS:
        probs = module.sampling_probs(batch.logits, **params).to(torch.float64)
        right = [float(probs[row, token]) for row, token in enumerate(first_maximum)]
        per_set.append({"params": params, "p_first_maximum": right})
        log_survival_per_draw += sum(math.log(p) if p > 0 else -math.inf for p in right)
    if log_survival_per_draw == 0.0:
        n = math.inf  # always right: the greedy rows cannot catch it
    elif log_survival_per_draw == -math.inf:
        n = 1
    else:
        n = math.ceil(math.log(1 - TARGET) / log_survival_per_draw)
    survival = math.exp(GREEDY_DRAWS * log_survival_per_draw)
    return {"killing_check": "greedy ties", "row": "sample_greedy rows 0-2", "case": "sample_greedy",
            "n_point": n, "n_conf": n, "suite_n": GREEDY_DRAWS, "per_parameter_set": per_set,
            "survival_at_suite_n": survival,
            "note": f"per draw on all three rows (both parameter sets) the file picks the first maximum with "
                    f"probability {math.exp(log_survival_per_draw):.3g}; survival at n = {GREEDY_DRAWS}: "
                    f"{survival:.2g}"}


def bad_uniform_count(cdf: torch.Tensor, allowed: torch.Tensor, bits: int, right: bool) -> int:
    """How many of the 2^bits uniforms k * 2^-bits make ``searchsorted(cdf, u, right=right)`` pick a
    token outside ``allowed`` (index V, past the end, included).

    Left: token i for u in (cdf[i-1], cdf[i]]; right: for u in [cdf[i-1], cdf[i]) (cdf[-1] = 0).
    On the grid the last k of token i is floor(cdf[i] * 2^bits), or ceil(...) - 1 for right.
    Exact: multiplying by a power of two is exact in float64.
    """
    scale = 2.0 ** bits
    last = (1 << bits) - 1  # the largest uniform is last / scale = 1 - 2^-bits
    below = -1  # the last k of the tokens before
    count = 0
    for token, edge in enumerate([float(v) for v in cdf.to(torch.float64).tolist()] + [math.inf]):
        if edge == math.inf:
            top = last
        else:
            top = min(last, math.ceil(edge * scale) - 1 if right else math.floor(edge * scale))
        if top > below and (token >= allowed.shape[0] or not bool(allowed[token])):
            count += top - below
        below = max(below, top)
    return count


@contextlib.contextmanager
def uniforms_at_both_ends():
    """Patch torch.rand so that every row of uniforms is [0.0, the largest value below 1 of the dtype]."""
    saved = torch.rand

    def rand(*size, generator=None, dtype=None, **kwargs):
        shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
        dtype = dtype or torch.get_default_dtype()
        top = torch.tensor(1.0, dtype=dtype).nextafter(torch.tensor(0.0, dtype=dtype))
        if shape[-1] != 2:
            raise AssertionError(f"expected num_samples = 2, got shape {shape}")
        return torch.stack([torch.zeros((), dtype=dtype), top]).expand(shape).clone()

    torch.rand = rand
    try:
        yield
    finally:
        torch.rand = saved


def broken_by_extremes(module, logits: torch.Tensor, kwargs: dict, allowed: torch.Tensor) -> list[tuple[bool, bool]]:
    """Per row: does the file itself draw a token outside ``allowed`` at u = 0.0, and at u = 1 - ulp?"""
    with uniforms_at_both_ends():
        picks = module.sample(logits, num_samples=2, **kwargs)
    vocab = allowed.shape[1]
    return [tuple(int(i) >= vocab or not bool(allowed[row, int(i)]) for i in picks[row])
            for row in range(picks.shape[0])]


def analyse_inverse_cdf(suite: Suite, module, args, seed: int, *, right: bool) -> dict:
    """An inverse CDF ``searchsorted(cumsum(probs), u, right=right)`` that breaks at the ends of [0, 1)."""
    # torch.rand returns multiples of 2^-24 in float32 (2^-53 in float64): 0.0 and 1 - 2^-24 are its ends.
    generator = torch.Generator().manual_seed(3)
    on_grid = {}
    for dtype, bits in ((torch.float32, 24), (torch.float64, 53)):
        scaled = torch.rand(1 << 20, generator=generator, dtype=dtype).to(torch.float64) * 2.0 ** bits
        on_grid[str(dtype).removeprefix("torch.")] = bool((scaled == scaled.floor()).all())
    grid = torch.arange(1 << 24, dtype=torch.float64).mul_(2.0 ** -24).to(torch.float32)  # every float32 uniform
    fraction = ExtremeUniforms.FRACTION  # half of these become 0.0, half 1 - 2^-24
    rows = []
    model_agrees = enumeration_agrees = True
    enumerated = 0
    for call in suite.calls.values():
        probs = module.sampling_probs(call.batch.logits, **call.kwargs())
        cdf = torch.cumsum(probs, dim=1)  # as the file does, in the logits' dtype
        allowed = call.batch.exact.probs > 0
        bits = 24 if cdf.dtype == torch.float32 else 53
        top = torch.tensor(1.0, dtype=cdf.dtype).nextafter(torch.tensor(0.0, dtype=cdf.dtype))
        ends = torch.stack([torch.zeros((), dtype=cdf.dtype), top]).expand(cdf.shape[0], 2).contiguous()
        model = torch.searchsorted(cdf, ends, right=right)
        file_says = broken_by_extremes(module, call.batch.logits, call.kwargs(), allowed)
        n = call.n + (EXTREME_CASE_DRAWS if call.name == "mixed" else 0)  # ordinary draws per suite run
        to_enumerate = dict.fromkeys((True, False), ENUMERATED_ROWS if bits == 24 else 0)  # by "has bad uniforms"
        for row, (zero_bad, top_bad) in enumerate(file_says):
            model_agrees &= [int(i) >= cdf.shape[1] or not bool(allowed[row, int(i)]) for i in model[row]] == [
                zero_bad, top_bad]
            bad = bad_uniform_count(cdf[row], allowed[row], bits, right)
            if to_enumerate[bad > 0]:  # check the count against all 2^24 float32 uniforms
                to_enumerate[bad > 0] -= 1
                count = 0
                for start in range(0, 1 << 24, 1 << 22):
                    index = torch.searchsorted(cdf[row], grid[start:start + (1 << 22)], right=right)
                    inside = index < cdf.shape[1]
                    count += int((~inside).sum()) + int((~allowed[row][index[inside]]).sum())
                enumeration_agrees &= count == bad
                enumerated += 1
            natural = bad / 2.0 ** bits
            rows.append({"row": f"{call.name} row {row}", "batch": call.name, "n": n, "cdf_end": float(cdf[row, -1]),
                         "zero_is_bad": zero_bad, "top_is_bad": top_bad, "bad_uniforms": bad,
                         "natural_rate": natural,
                         "extreme_rate": (1 - fraction) * natural + fraction / 2 * (zero_bad + top_bad)})
    extreme_rows = [r for r in rows if r["batch"] in EXTREME_BATCHES]
    worst = max(extreme_rows, key=lambda r: r["extreme_rate"])
    n_extreme = _n_for(worst["extreme_rate"])
    # log10 P(the extreme phase misses it), ignoring the one forced 0.0 and 1 - 2^-24 per tensor
    log10_extreme_miss = sum(EXTREME_CASE_DRAWS * math.log1p(-r["extreme_rate"]) for r in extreme_rows) / math.log(10)
    exposed = max(rows, key=lambda r: r["natural_rate"])
    n_natural = _n_for(exposed["natural_rate"])
    natural_catch = -math.expm1(sum(r["n"] * math.log1p(-r["natural_rate"]) for r in rows))

    # How lucky is a batch of 64? Fresh rows drawn like cases.many_rows (its first 64 are the suite's own).
    fresh = suite.cases.many_rows(args.fresh_rows)
    fresh_broken = [z or t for z, t in broken_by_extremes(module, fresh.logits, fresh.param_tensors(),
                                                          fresh.exact.probs > 0)]
    fresh_cdf_end = torch.cumsum(module.sampling_probs(fresh.logits, **fresh.param_tensors()), dim=1)[:, -1]
    top32 = torch.tensor(1.0).nextafter(torch.tensor(0.0))
    share = sum(fresh_broken) / len(fresh_broken)
    many = [r for r in rows if r["batch"] == "many"]
    broken_many = sum(r["zero_is_bad"] or r["top_is_bad"] for r in many)
    fresh_figures = {"rows": len(fresh_broken), "broken_share": share,
                     "cdf_end_at_or_below_top_share": float((fresh_cdf_end <= top32).double().mean()),
                     "p_batch_of_64_breaks_none": (1 - share) ** len(many)}
    by_end = {"zero": sum(r["zero_is_bad"] for r in extreme_rows), "top": sum(r["top_is_bad"] for r in extreme_rows)}
    checks = (f"model of the file's searchsorted(right={right}) agrees with the file at both ends: "
              f"{'yes' if model_agrees else '[red]NO[/red]'}; exact counts match all 2^24 float32 uniforms on "
              f"{enumerated} rows: {'yes' if enumeration_agrees else '[red]NO[/red]'}")
    note = (f"in the extreme phase's {len(extreme_rows)} rows u = 0.0 breaks {by_end['zero']} and u = 1 - 2^-24 "
            f"breaks {by_end['top']} (of the 64 random rows: {broken_many}); it misses the file with probability "
            f"10^{log10_extreme_miss:,.0f}. Of {len(fresh_broken):,} fresh rows drawn like the 64, {share:.1%} break "
            f"(float32 cumsum ending at or below 1 - 2^-24: {fresh_figures['cdf_end_at_or_below_top_share']:.1%}), "
            f"so a batch of 64 breaks none with probability {fresh_figures['p_batch_of_64_breaks_none']:.1g}. "
            f"With real uniforms the most exposed row ({exposed['row']}) goes wrong once per "
            f"{1 / exposed['natural_rate']:.3g} draws: P(kill) >= {TARGET} needs n = {n_natural:.3g}, and all "
            f"ordinary draws of one suite run catch it with probability {natural_catch:.2g}. {checks}")
    return {"killing_check": "extreme uniforms", "row": worst["row"], "case": "extreme_uniforms",
            "n_point": n_extreme, "n_conf": n_extreme, "suite_n": EXTREME_CASE_DRAWS, "right": right,
            "rand_on_grid": on_grid, "model_matches_file": model_agrees,
            "count_matches_enumeration": enumeration_agrees, "enumerated_rows": enumerated,
            "broken_rows_in_extreme_phase": by_end, "broken_random_rows_of_64": broken_many,
            "log10_extreme_phase_miss_probability": log10_extreme_miss, "fresh_rows": fresh_figures,
            "natural": {"row": exposed["row"], "rate_per_draw": exposed["natural_rate"], "n_for_target": n_natural,
                        "p_catch_in_one_suite_run": natural_catch},
            "rows": rows, "note": note}


class _PairsBudget:
    """Enough of judge.checks.budget.FalseFailureBudget for judge.checks.independence.expect_independent_within_row."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    def spend(self, kind: str) -> float:
        assert kind == "pairs", kind
        return self.alpha


def _pairs_context(alpha: float) -> Context:
    """A real Context (the checks refuse look-alikes) whose budget gives ``alpha`` to every pairs check."""
    return Context(seed=0, device="cpu", budget=_PairsBudget(alpha))


def analyse_pairs(suite: Suite, module, args, seed: int) -> dict:
    """Dependent draws within a row: the file itself, drawn as the suite draws the mixed rows
    (MIXED_COPIES copies of each kind, MIXED_DRAWS each, pooled by kind), judged by
    judge.checks.independence.expect_independent_within_row on hidden.PAIR_ROWS at the suite's pairs alpha."""
    call = suite.calls["mixed"]
    probs = call.batch.exact.probs
    rows = list(suite.hidden.PAIR_ROWS)

    def run(copies: int, generator: torch.Generator) -> tuple[bool, float]:
        part = Call(call.name, call.batch, call.case, call.draws * copies, call.per_row, copies)
        draws = part.suite_draws(module, generator, suite.cases)
        ctx, killed = _pairs_context(suite.pairs_alpha), False
        for row in rows:
            try:  # each copy's draws one row of the call, as the suite pairs them
                expect_independent_within_row(ctx, draws[row].reshape(copies, call.draws), probs[row],
                                              label=f"mixed kind {row}")
            except CheckFailed:
                killed = True
        ratio = min(r.statistic / critical_value(suite.pairs_alpha, r.df) for r in ctx.records)
        return killed, max(r.p_value for r in ctx.records), ratio

    reps = max(10, args.screen_reps // 10)  # every run is a full suite-sized call of the file
    grid, curve = [], []
    copies = 1
    while copies < call.copies:
        grid.append(copies)
        copies *= 2
    grid.append(call.copies)
    for copies in grid:  # the smallest number of copies at which every run is killed
        generator = torch.Generator().manual_seed(seed + copies)
        outcomes = [run(copies, generator) for _ in range(reps if copies < call.copies else 0)]
        if copies == call.copies:
            break
        kills = sum(k for k, _, _ in outcomes)
        curve.append({"copies": copies, "n": copies * call.draws, "reps": reps, "kills": kills})
        if kills == reps:
            break
    generator = torch.Generator().manual_seed(seed)
    at_suite = [run(call.copies, generator) for _ in range(reps)]
    kills = sum(k for k, _, _ in at_suite)
    largest_p = max(p for _, p, _ in at_suite)
    ratio = min(r for _, _, r in at_suite)  # smallest G / the G at which p = alpha
    upper = 1.0 if kills == 0 else float(sps.beta.ppf(CONFIDENCE, reps - kills + 1, kills))
    first = next((c["n"] for c in curve if c["kills"] == c["reps"]), None)
    return {"killing_check": "pairs", "row": f"mixed kinds {', '.join(map(str, rows))}",
            "case": "sample_mixed_rows", "n_point": first, "n_conf": None, "suite_n": call.n,
            "at_suite_kills": kills, "at_suite_reps": reps, "largest_p_at_suite": largest_p,
            "survival_upper": upper, "smallest_g_over_critical": ratio, "curve": curve,
            "note": f"the file itself through judge.checks.independence.expect_independent_within_row (pairs alpha "
                    f"{suite.pairs_alpha:.2g}): at the suite's {call.copies:,} copies x {call.draws} draws "
                    f"(n = {call.n:,} per kind) {kills} of {reps} runs killed, largest p = {largest_p:.2g}, the "
                    f"smallest G {ratio:,.0f} times the critical G (P(miss) <= {upper:.2g} from the run count "
                    f"alone, {CONFIDENCE:.0%} CP); every one of {reps} runs is killed from "
                    f"n = {first if first else '?'} (copies doubling: "
                    + ", ".join(f"{c['n']:,}: {c['kills']}/{c['reps']}" for c in curve) + "). The fit, "
                    "duplicated-rows and too-regular checks are not simulated here"}


def analyse_single_draw_ignores_generator(suite: Suite, module, args, seed: int) -> dict:
    """num_samples=1 ignores ``generator``: test_single_draws draws the seed rows (each single-draw
    kind 200 times) twice with generators seeded alike; the file survives only if two independent
    draws of every row agree."""
    call = suite.calls["single"]
    batch = suite.cases.single_draw_seed_rows()
    seed_copies = batch.logits.shape[0] // call.batch.logits.shape[0]
    twice = [module.sample(batch.logits, num_samples=1, generator=torch.Generator().manual_seed(seed),
                           **batch.param_tensors()) for _ in range(2)]
    at_400 = [module.sample(suite.calls["scalar"].batch.logits, num_samples=SEEDS_DRAWS,
                            generator=torch.Generator().manual_seed(seed), **suite.calls["scalar"].kwargs())
              for _ in range(2)]
    log_per_copy = math.log(identical_rows_probability(call.batch.exact.probs, 1))  # one copy of each kind
    copies = math.ceil(math.log(1 - TARGET) / log_per_copy)
    survival = identical_rows_probability(batch.exact.probs, 1)
    return {"killing_check": "seeds", "row": f"single-draw seed rows ({seed_copies:,} copies x 5 kinds)",
            "case": "single_draws", "n_point": copies, "n_conf": copies, "suite_n": seed_copies,
            "survival_at_suite_n": survival, "same_seed_calls_differ": not torch.equal(*twice),
            "same_seed_calls_at_400_agree": torch.equal(*at_400),
            "note": f"same seed twice at num_samples=1 gave different draws: "
                    f"{'yes' if not torch.equal(*twice) else 'NO'} (at 400 draws the file obeys the generator: "
                    f"{'yes' if torch.equal(*at_400) else 'NO'}, so only test_single_draws catches it). Survives only "
                    f"if all {batch.logits.shape[0]:,} rows draw alike twice: exact probability 10^"
                    f"{math.log10(survival) if survival > 0 else -math.inf:,.0f} at {seed_copies:,} copies per kind; "
                    f"<= {1 - TARGET:g} from {copies} copies"}


def analyse_private_generator(suite: Suite, module, args, seed: int) -> dict:
    """generator=None uses a private generator: test_default_generator runs torch.manual_seed(s)
    before each of two calls; the private generator moves on, so they agree only by chance."""
    call = suite.calls["scalar"]
    draws = []
    for _ in range(2):
        torch.manual_seed(seed)
        draws.append(module.sample(call.batch.logits, num_samples=SEEDS_DRAWS, **call.kwargs()))
    rows = call.batch.exact.probs
    n = 1
    while identical_rows_probability(rows, n) > 1 - TARGET:
        n += 1
    survival = identical_rows_probability(rows, SEEDS_DRAWS)
    return {"killing_check": "seeds (default generator)", "row": "scalar rows 0 and 1", "case": "default_generator",
            "n_point": n, "n_conf": n, "suite_n": SEEDS_DRAWS, "survival_at_suite_n": survival,
            "same_global_seed_calls_differ": not torch.equal(*draws),
            "note": f"two calls after the same torch.manual_seed differ: {'yes' if not torch.equal(*draws) else 'NO'}; "
                    f"the first check of test_default_generator (400 draws of the scalar rows) misses it only if two "
                    f"independent calls agree: exact probability {survival:.2g} (<= {1 - TARGET:g} from n = {n}); "
                    "the single-draw half and the different-seeds check come on top"}


def _raises(function: Callable, exception: type[BaseException]) -> bool:
    """Whether ``function()`` raises ``exception`` (another exception counts as not raising it)."""
    try:
        function()
    except exception:
        return True
    except Exception:  # noqa: BLE001 - the judge wants this very type
        return False
    return False


def _accepted_bad_parameters(suite: Suite, module, logits: torch.Tensor, seed: int) -> list[str]:
    """hidden.test_bad_parameters' (kwargs, description) pairs that either function accepts."""
    accepted = []
    for kwargs, description, _, _ in suite.hidden._bad_parameters():
        for function in ("sampling_probs", "sample"):
            extra = {"generator": torch.Generator().manual_seed(seed)} if function == "sample" else {}
            call = functools.partial(getattr(module, function), logits, **kwargs, **extra)
            if not _raises(call, ValueError):
                accepted.append(f"{function}() with {description}")
    return accepted


def analyse_hard(suite: Suite, module, args, seed: int, *, what: str) -> dict:
    """Deterministic mistakes caught by a hard check: whether the file trips it does not depend on
    the random numbers, so P(kill) is 1 once the probe shows it does."""
    cases = suite.cases
    if what == "bad_parameters":  # hidden.test_bad_parameters, every (kwargs, description) pair
        logits = cases.many_rows().logits[:5].clone()  # a copy: the cases' batches are cached
        accepted = _accepted_bad_parameters(suite, module, logits, seed)
        caught, case, check = bool(accepted), "bad_parameters", "hard: ValueError expected"
        detail = f"{len(accepted)} bad inputs do not raise ValueError: {'; '.join(accepted)}"
    elif what == "top_k_edges":  # probs_top_k_edges / sample_top_k_edges: top_k >= V
        batch = cases.top_k_edge_rows()
        crash_probs = _raises(lambda: module.sampling_probs(batch.logits, **batch.param_tensors()), BaseException)
        crash_sample = _raises(lambda: module.sample(batch.logits, num_samples=2, generator=torch.Generator(),
                                                     **batch.param_tensors()), BaseException)
        caught, case, check = crash_probs or crash_sample, "probs_top_k_edges", "hard: raises on top_k > V"
        detail = f"sampling_probs raises on the top-k edge rows: {crash_probs}; sample raises: {crash_sample}"
    elif what == "inputs":  # judge.checks.testing: every call checks the input tensors are unchanged
        batch = cases.mixed_rows()
        # Copies only: the cases' batches are cached, and the file must not spoil them for the others.
        logits, params = batch.logits.clone(), {k: v.clone() for k, v in batch.param_tensors().items()}
        module.sampling_probs(logits, **params)
        changed = not torch.equal(logits, batch.logits) or any(not torch.equal(batch.param_tensors()[k], v)
                                                                for k, v in params.items())
        caught, case, check = changed, "probs_per_row_parameters", "hard: inputs modified"
        detail = f"sampling_probs on the mixed rows (temperatures != 1) changes the caller's logits: {changed}"
    else:
        raise ValueError(what)
    return {"killing_check": check if caught else f"[red]not caught by {what}[/red]", "row": what, "case": case,
            "n_point": 1 if caught else None, "n_conf": 1 if caught else None, "suite_n": 1,
            "note": f"{detail}; deterministic, so P(kill) = {1 if caught else 0} (first failing case: {case})"}


def analyse_single_draw_skips_filters(suite: Suite, module, args, seed: int) -> dict:
    """num_samples=1 draws from another distribution: read it off the file (its torch.multinomial
    input on the single-draw kinds), then the suite's support check over all kinds and the fits."""
    call = suite.calls["single"]
    captured = []
    saved = torch.multinomial

    def multinomial(probs, num_samples, *rest, **kwargs):
        captured.append(probs.detach().clone())
        return saved(probs, num_samples, *rest, **kwargs)

    torch.multinomial = multinomial
    try:
        module.sample(call.batch.logits, num_samples=1, generator=torch.Generator().manual_seed(seed),
                      **call.kwargs())
    finally:
        torch.multinomial = saved
    p1 = captured[-1].to(torch.float64)
    p1 = p1 / p1.sum(dim=1, keepdim=True)
    kinds = []
    log_survival_per_copy = 0.0
    for check in (c for c in suite.checks if c.call is call):
        sim = RowSimulator(check.target, p1[check.row], check.fit, suite.fit_alpha, seed + check.row, CrossCheck())
        at = sim.evaluate(call.n, args.reps)
        kinds.append({"kind": check.row, "q": sim.q, "fit": check.fit, "n_support": sim.support_n(),
                      "p_kill_at_suite": at["point"], "lower_at_suite": at["lower"]})
        if sim.q >= 1:
            log_survival_per_copy = -math.inf
        elif sim.q > 0:
            log_survival_per_copy += math.log1p(-sim.q)
    copies = (1 if log_survival_per_copy == -math.inf else
              math.ceil(math.log(1 - TARGET) / log_survival_per_copy) if log_survival_per_copy < 0 else None)
    log10_survival = call.copies * log_survival_per_copy / math.log(10)
    return {"killing_check": "support" if copies else "fit", "row": "single-draw kinds (all)",
            "case": "single_draws", "n_point": copies, "n_conf": copies, "suite_n": call.copies,
            "kinds": kinds, "log10_support_survival": log10_survival,
            "note": "the file's num_samples=1 distribution (its torch.multinomial input) puts mass outside the "
                    "target's support on kinds "
                    + ", ".join(f"{k['kind']} (q = {k['q']:.3g})" for k in kinds if k["q"] > 0)
                    + f"; the support check over all kinds misses it with exact probability 10^{log10_survival:,.0f} "
                    f"at {call.copies:,} copies per kind (<= {1 - TARGET:g} from {copies} copies). Fit alone at the "
                    "suite's n: " + ", ".join(f"kind {k['kind']} P(kill) >= {k['lower_at_suite']:.4f}"
                                               for k in kinds if k["fit"])}


def shift_table(suite: Suite, args, crosscheck: CrossCheck, seed: int) -> list[dict]:
    """Move SHIFT of probability between each fit row's two most likely tokens, both ways; P(kill)
    at the suite's n by the G-test alone (the support does not change), the harder direction kept."""
    rows = []
    for index, check in enumerate(c for c in suite.checks if c.fit and c.call.name in SHIFT_CALLS):
        p0 = check.target.to(torch.float64)
        first, second = (int(i) for i in torch.argsort(p0, descending=True, stable=True)[:2])
        results = []
        for source, sink in ((first, second), (second, first)):
            if float(p0[source]) < SHIFT:
                continue
            p1 = p0.clone()
            p1[source] -= SHIFT
            p1[sink] += SHIFT
            alpha = check.call.last_alpha(suite.fit_alpha)
            sim = RowSimulator(p0, p1, True, alpha, seed + 7919 * index + source, crosscheck)
            result = sim.evaluate(check.n, args.reps)
            results.append((result["lower"], result["point"], source == first, result))
        lower, point, from_top, result = min(results, key=lambda r: (r[0], r[1]))
        rows.append({"row": check.name, "n": check.n, "p_first": float(p0[first]), "p_second": float(p0[second]),
                     "direction": "top -> second" if from_top else "second -> top",
                     "reps": result["reps"], "passes": result["passes"], "point": point, "lower": lower,
                     "both": [{"from_top": r[2], "point": r[1], "lower": r[0]} for r in results]})
    return rows


# The wrong solutions that are not distribution mistakes, and their analyses.
def _lower_bound(kills: int, runs: int) -> float:
    """One-sided CONFIDENCE Clopper-Pearson lower bound on a kill rate seen as kills of runs."""
    return 0.0 if kills == 0 else float(sps.beta.ppf(1 - CONFIDENCE, kills, runs - kills + 1))


def _by_seed(kills: list[bool], check: str, case: str, note: str) -> dict:
    runs, killed = len(kills), sum(kills)
    lower = _lower_bound(killed, runs)
    return {"killing_check": check, "row": f"{runs} case seeds", "case": case, "n_point": 1 if killed == runs else None,
            "n_conf": 1 if lower >= TARGET else None, "suite_n": 1, "kills": killed, "runs": runs,
            "lower_bound": lower,
            "note": f"{note}: killed at {killed} of {runs} seeds ({CONFIDENCE:.0%} lower bound on P(kill) "
                    f"{lower:.4f}); the check is deterministic at each seed"}


def analyse_generated(suite: Suite, module, args, seed: int) -> dict:
    """The file's own sampling_probs on the frozen probs cases and, per case seed, the generated rows
    (hidden.test_probs_generated: values, exact zeros and positive tails, the dtype of all-greedy rows)."""
    frozen = probs_failures([c for c in probs_cases(resolve(EXERCISE_ID)) if c.name != "probs_generated"],
                            module.sampling_probs)
    generated_case = [c for c in probs_cases(resolve(EXERCISE_ID)) if c.name == "probs_generated"]
    kills = [bool(probs_failures(generated_case, module.sampling_probs, seed=seed + s)) for s in
             range(args.generated_seeds)]
    if frozen:
        entry = _by_seed([True] * len(kills), "probs (frozen rows)", frozen[0], "deterministic on frozen rows")
        entry["note"] += f"; the generated rows kill it at {sum(kills)} of {len(kills)} seeds"
        return entry
    return _by_seed(kills, "probs (generated rows)", "probs_generated", "the generated rows of each case seed")


def analyse_refusals(suite: Suite, module, args, seed: int) -> dict:
    """Refusals: the hand tables (deterministic), then the generated refusals of each case seed."""
    cases, specs = suite.cases, sys.modules[suite.cases.__name__.rsplit(".", 1)[0] + ".specs"]
    logits = cases.many_rows().logits[:5].clone()
    hand = _accepted_bad_parameters(suite, module, logits, seed)
    plus_inf = torch.tensor([[0.5, float("inf"), 1.0]])
    hand += [] if _raises(lambda: module.sampling_probs(plus_inf), ValueError) else ["sampling_probs() with +inf"]
    kills = []
    for s in range(args.generated_seeds):
        rng = random.Random(seed + s)
        good = specs.good_call(rng, draws=False, greedy=False)
        calls = specs.refusal_calls(module.sampling_probs, "sampling_probs", good, specs.PROBS_ARGUMENTS, rng)
        kills.append(any(not _raises(lambda c=c: c.function(*c.args, **c.kwargs), ValueError) for c in calls))
    if hand:
        entry = _by_seed([True] * len(kills), "hard: ValueError expected", "bad_parameters / bad_logits",
                         f"deterministic ({hand[0]} returns)")
        entry["note"] += f"; the generated refusals kill it at {sum(kills)} of {len(kills)} seeds"
        return entry
    return _by_seed(kills, "hard: ValueError expected", "generated_refusals", "the generated refusals")


def analyse_reseeded(suite: Suite, module, args, seed: int) -> dict:
    """Two calls in a row with one generator object must differ; the file repeats its first call."""
    batch = suite.cases.contract_rows()
    generator = torch.Generator().manual_seed(seed)
    first, second = (module.sample(batch.logits, num_samples=suite.hidden.CONTRACT_DRAWS, generator=generator,
                                   **batch.param_tensors()) for _ in range(2))
    repeats = torch.equal(first, second)
    chance = identical_rows_probability(batch.exact.probs, suite.hidden.CONTRACT_DRAWS)
    return {"killing_check": "seeds (the generator advances)", "row": "contract rows", "case": "generator_contract",
            "n_point": 1 if repeats else None, "n_conf": 1 if repeats else None, "suite_n": 1,
            "note": f"the second call with one generator repeats the first: {'yes' if repeats else 'NO'}, every "
                    f"time (the file re-seeds); a correct sampler repeats with probability {chance:.1g}"}


def analyse_log_zero(suite: Suite, module, args, seed: int) -> dict:
    """log(0) in the noise: the file with every uniform 0 on the one-token rows, and how likely the
    judge's push (one value per [V] line at a private random position) misses every allowed token."""
    batch = suite.cases.draw_site_rows()
    single = [r for r in range(batch.logits.shape[0]) if int((batch.exact.probs[r] > 0).sum()) == 1]
    saved = torch.rand

    def zeros(*size, generator=None, dtype=None, device=None, **kwargs):
        return torch.zeros(*size, dtype=dtype or torch.get_default_dtype())

    torch.rand = zeros
    try:
        draws = module.sample(batch.logits, num_samples=suite.hidden.DRAW_SITE_DRAWS, **batch.param_tensors())
    finally:
        torch.rand = saved
    fails = bool((~torch.gather(batch.exact.probs > 0, 1, draws)).any())
    vocab, lines = batch.logits.shape[1], len(single) * suite.hidden.DRAW_SITE_DRAWS
    log10_miss = lines * math.log10((vocab - 1) / vocab)
    return {"killing_check": "every draw site (pushed to 0)", "row": f"{len(single)} one-token rows",
            "case": "every_draw_site", "n_point": 1 if fails else None, "n_conf": 1 if fails else None, "suite_n": 1,
            "note": f"all-zero uniforms make the file draw an excluded token: {'yes' if fails else 'NO'}; a push of "
                    f"one value per line hits no allowed token on {len(single)} rows x {suite.hidden.DRAW_SITE_DRAWS} "
                    f"draws with probability 10^{log10_miss:.0f} (float32 batch alone; the float64 batch and the "
                    "mixed phase come on top)"}


SPECIAL: dict[str, Callable[..., dict]] = {
    "shared_uniform": analyse_shared_uniform,
    "too_regular": analyse_too_regular,
    "ignores_generator": analyse_ignores_generator,
    "no_greedy": analyse_no_greedy,
    "inverse_cdf_off_end": functools.partial(analyse_inverse_cdf, right=False),  # searchsorted(cdf, u)
    "inverse_cdf_past_end": functools.partial(analyse_inverse_cdf, right=True),  # searchsorted(cdf, u, right=True)
    "antithetic_pairs": analyse_pairs,
    "sorted_draws": analyse_pairs,
    "repeated_draws": analyse_pairs,
    "single_draw_ignores_generator": analyse_single_draw_ignores_generator,
    "private_generator": analyse_private_generator,
    "single_draw_skips_filters": analyse_single_draw_skips_filters,
    "column_parameters_accepted": functools.partial(analyse_hard, what="bad_parameters"),
    "first_row_validated": functools.partial(analyse_hard, what="bad_parameters"),
    "top_k_above_vocabulary_crashes": functools.partial(analyse_hard, what="top_k_edges"),
    "modifies_logits": functools.partial(analyse_hard, what="inputs"),
    "antithetic_half_apart": analyse_pairs,
    "reseeded_generator": analyse_reseeded,
    "greedy_onehot_float32": analyse_generated,
    "top_p_one_cuts": analyse_generated,
    "smoothed_probs": analyse_generated,
    "min_p_softmax_max": analyse_generated,
    "temperature_after_filters": analyse_generated,
    "plus_inf_accepted": analyse_refusals,
    "nan_parameters_accepted": analyse_refusals,
    "greedy_rows_unchecked": analyse_refusals,
    "gumbel_log_zero": analyse_log_zero,
}


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000,
                        help="repetitions per n in the fine search (default 4000; >= 2996 for the lower bound)")
    parser.add_argument("--screen-reps", type=int, default=200, help="repetitions per n in the screen (default 200)")
    parser.add_argument("--candidates", type=int, default=2, help="rows per mistake given a fine search (default 2)")
    parser.add_argument("--too-regular-scan", type=int, default=4096,
                        help="too_regular: judge every n from 8 to this (default 4096)")
    parser.add_argument("--fresh-rows", type=int, default=2048,
                        help="inverse CDF files: random rows drawn like cases.many_rows to estimate how many break "
                             "(default 2048)")
    parser.add_argument("--generated-seeds", type=int, default=400,
                        help="case seeds whose generated rows and refusals judge the deterministic mistakes "
                             "(default 400)")
    parser.add_argument("--quick", action="store_true",
                        help="--reps 1000 --screen-reps 100 --candidates 1 --too-regular-scan 1024 --fresh-rows 256 "
                             "--generated-seeds 100")
    parser.add_argument("--only", nargs="*",
                        help="wrong solutions to analyse (file stems; 'shift' for the 0.01-shift section); default all")
    parser.add_argument("--seed", type=int, default=20_261_129, help="seed of the simulations")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.reps, args.screen_reps, args.candidates = min(args.reps, 1000), min(args.screen_reps, 100), 1
        args.too_regular_scan, args.fresh_rows = min(args.too_regular_scan, 1024), min(args.fresh_rows, 256)
        args.generated_seeds = min(args.generated_seeds, 100)
    console = make_console()
    exercise = resolve(EXERCISE_ID)
    suite = load(exercise)
    info = machine()
    use_conf = args.reps >= 2996
    how = f"point estimate and {CONFIDENCE:.0%} lower bound" if use_conf else "point estimate only: --reps < 2996"
    console.print(f"[bold]power[/bold]: known-wrong solutions of {exercise.folder}; P(kill) >= {TARGET}; fit alpha "
                  f"{suite.fit_alpha:.3g} ({suite.declared.fit} fit checks); {args.reps} reps per n ({how}); "
                  f"torch {info['torch']}")
    started = time.monotonic()
    cases = probs_cases(exercise)
    exact_failures = probs_failures(cases, oracle_probs(suite.oracle, None))
    if exact_failures:
        raise SystemExit(f"the exact target itself fails {exact_failures}: the stand-in submission is wrong")
    crosscheck = CrossCheck()
    results = []
    for index, path in enumerate(exercise.wrong_solutions()):
        stem = path.stem
        if args.only and stem not in args.only:
            continue
        module = import_file(path)
        key = ALIASES.get(stem, stem)
        seed = args.seed + 104_729 * index
        clock = time.monotonic()
        if stem in SPECIAL:
            entry = SPECIAL[stem](suite, module, args, seed)
        elif key in suite.oracle.MISTAKES:
            entry = analyse_distribution(suite, key, module, args, crosscheck, seed)
            entry.update(mistake=key, oracle_probs_failures=probs_failures(cases, oracle_probs(suite.oracle, key)))
        else:
            entry = {"killing_check": "unclassified: add it to SPECIAL in benchmarks/power.py", "n_point": None,
                     "n_conf": None, "suite_n": None}
        entry.update(solution=stem, diagnosis=parse_wrong_solution(path).diagnosis,
                     file_probs_failures=probs_failures(cases, module.sampling_probs),
                     seconds=time.monotonic() - clock)
        results.append(entry)
        console.print(f"  {stem}: {entry['killing_check']} ({entry['seconds']:.1f} s)")

    table = Table(title=f"smallest sample size that kills each known-wrong solution with probability >= {TARGET}")
    for column in ("wrong solution", "killing check", "deciding row", "n (point)",
                   f"n ({CONFIDENCE:.0%} LB)" if use_conf else "", "suite's n", "margin", "probs cases failed"):
        if column:
            numeric = column.startswith(("n ", "suite", "margin"))
            table.add_column(column, justify="right" if numeric else "left",
                             no_wrap=numeric or column == "wrong solution")
    for entry in results:
        n_used = entry.get("n_conf") if use_conf else entry.get("n_point")
        margin = entry["suite_n"] / n_used if n_used and entry.get("suite_n") and n_used < math.inf else None
        entry["margin"] = margin
        failures = entry["file_probs_failures"]
        probs = f"{len(failures)} of {len(cases)}" if failures else "none"
        if "oracle_probs_failures" in entry and bool(entry["oracle_probs_failures"]) != bool(failures):
            probs += " [red](oracle disagrees)[/red]"
        row = [entry["solution"], entry["killing_check"], entry.get("row", ""), _n(entry.get("n_point"))]
        if use_conf:
            row.append(_n(entry.get("n_conf")))
        row += [_n(entry.get("suite_n")), _margin(margin), probs]
        table.add_row(*row, style="red" if margin is not None and margin < 1 else None)
    table.caption = (f"n: the smallest sample size of that row with P(kill) >= {TARGET} (point estimate; "
                     f"{CONFIDENCE:.0%} one-sided Clopper-Pearson lower bound). margin = suite's n / smallest n "
                     f"({'lower-bound' if use_conf else 'point'} column). Killing checks: support = a draw of a token "
                     "whose target probability is 0; fit = the row's G-test; independence = rows 2 and 5 agree too "
                     "often; too regular = a case's lower chi-square tail; seeds = same seed, same draws; extreme "
                     "uniforms = support under 0.0 / 1-2^-24 uniforms; greedy ties = temperature 0 rows. 'probs "
                     "cases failed': exact sampling_probs cases (public _expect_probs ones, hidden probs_*) the "
                     "file's own sampling_probs fails; where any, the draws are a second line of defence")
    console.print(table)

    notes = Table(title="notes on the special cases and cross-checks")
    notes.add_column("wrong solution")
    notes.add_column("detail")
    for entry in results:
        if entry.get("note"):
            notes.add_row(entry["solution"], entry["note"])
        if entry.get("file_matches_oracle") is False:
            notes.add_row(entry["solution"], f"[yellow]the file's own sampling_probs differs from "
                                             f"oracle.mistaken on {'; '.join(entry['file_mismatch_rows'])}[/yellow]")
        if entry.get("at_suite"):
            notes.add_row(entry["solution"], _at_suite(entry))
    if crosscheck.samples:
        notes.add_row("G-test replica", f"cross-checked on {crosscheck.samples} samples against judge.checks.stats.g_test: "
                                        f"max relative difference {crosscheck.max_relative_difference:.1e}, "
                                        f"{crosscheck.decision_mismatches} decision mismatches")
    console.print(notes)

    staged = [entry for entry in results if entry.get("stages")]
    if staged:
        per_stage = Table(title="margins per stage (judge.checks.sequential: stages of 1/16, 1/4 and all of the draws; "
                                "alpha spent 1/20, 1/20, 9/10)")
        for column in ("wrong solution", "deciding row", *(f"stage {k}: n, margin, P(kill)" for k in (1, 2, 3))):
            per_stage.add_column(column, justify="left" if column in ("wrong solution", "deciding row") else "right")
        for entry in staged:
            cells = [f"{_n(st['n'])}, {_margin(st['margin'])}, {st['p_kill']:.3f}" for st in entry["stages"]]
            per_stage.add_row(entry["solution"], entry["row"], *cells)
        per_stage.caption = ("n: the stage's draws of the deciding row (all drawn so far); margin: n over the smallest n "
                             "whose P(kill) reaches 0.95 at the stage's alpha (doubling screen, --screen-reps runs); "
                             "P(kill): at the stage alone, so the sequence has stopped by then at least that often. "
                             "The main table's margin is the last stage's, at 9/10 of the fit alpha")
        console.print(per_stage)

    shifts = [] if args.only and "shift" not in args.only else shift_table(suite, args, crosscheck, args.seed + 1)
    if shifts:
        shift = Table(title=f"0.01 shift: {SHIFT} of probability moved between a row's two most likely tokens "
                            f"(the harder direction), P(kill) at the suite's n")
        for column in ("row", "n", "p1", "p2", "harder direction", "survived", "P(kill)",
                       f"{CONFIDENCE:.0%} lower bound"):
            shift.add_column(column, justify="left" if column in ("row", "harder direction") else "right",
                             no_wrap=True)
        for r in shifts:
            shift.add_row(r["row"], f"{r['n']:,}", f"{r['p_first']:.3f}", f"{r['p_second']:.3f}", r["direction"],
                          f"{r['passes']} of {r['reps']}", f"{r['point']:.4f}", f"{r['lower']:.4f}",
                          style="red" if r["row"].startswith("mixed") and r["point"] < TARGET else None)
        shift.caption = (f"fit (Williams G-test at alpha {suite.fit_alpha:.3g}) of one row, {args.reps} simulated runs "
                         f"per direction; lower bound: one-sided {CONFIDENCE:.0%} Clopper-Pearson (reaches {TARGET} "
                         "only with >= 2996 runs). Mixed and single-draw rows: n per kind, all copies pooled")
        console.print(shift)
        weak = [r["row"] for r in shifts if r["row"].startswith("mixed") and r["point"] < TARGET]
        if weak:
            console.print(f"[red]0.01 shift: P(kill) below {TARGET} on {', '.join(weak)}[/red]")
    console.print(f"{len(results)} wrong solutions in {time.monotonic() - started:.0f} s")
    short = [e["solution"] for e in results if not e.get("margin") or e["margin"] < 1]
    if short:
        console.print(f"[red]not killed with probability {TARGET} at the suite's sizes: {', '.join(short)}[/red]")
    if args.json:
        write_json(args.json, {"machine": info, "target": TARGET, "confidence": CONFIDENCE, "reps": args.reps,
                               "screen_reps": args.screen_reps, "fit_alpha": suite.fit_alpha,
                               "crosscheck": crosscheck.__dict__, "solutions": results, "shift": shifts})
        console.print(f"wrote {args.json}")
    return 1 if short else 0


def _margin(margin: float | None) -> str:
    if not margin:
        return "—"
    return f"{margin:.1f}x" if margin < 10 else f"{margin:,.0f}x"


def _n_for(rate: float) -> float:
    """Smallest n with 1 - (1 - rate)^n >= TARGET."""
    return math.ceil(math.log1p(-TARGET) / math.log1p(-rate)) if rate > 0 else math.inf


def _at_suite(entry: dict) -> str:
    at = entry["at_suite"]
    where = f"at the suite's n = {entry['suite_n']:,} on {entry['row']}: P(miss) "
    if at["reps"] == 0:  # the support check alone, exact
        return where + f"= 10^{at['log10_support_survival']:,.0f} (exact: no draw outside the support)"
    return where + f"<= {at['survival_upper']:.2g} ({at['passes']} of {at['reps']} simulated runs survived)"


def _n(value) -> str:
    if value is None:
        return "—"
    if value == math.inf:
        return "∞"
    return f"{value:,.0f}" if value < 1e6 else f"{value:.2e}"


if __name__ == "__main__":
    sys.exit(main())
