#!/usr/bin/env python3
"""Power of exercise 39's suite: the smallest sample size that kills each known-wrong solution.

    .venv/bin/python benchmarks/power.py [--reps 4000] [--screen-reps 200] [--quick] [--seed N] [--json PATH]

Every file in ``solutions/039-sampling/wrong/`` is classified by the check that kills it:

* **distribution mistakes** (the file name is a key of ``oracle.MISTAKES``, or an alias): the
  sampler draws from ``oracle.mistaken(logits, params, key)`` instead of the target. For each
  row the suite draws from (public ``sample(top_p=0.8)``, mixed, 32 000-token Zipf, float64,
  scalar, and the ordinary draws of the extreme-uniform case) the suite's decision is
  simulated: any draw of a token whose target probability is 0 kills (exact:
  ``1 - (1 - q)^n`` for the mistaken mass ``q`` outside the target's support); otherwise, on
  rows that get a goodness-of-fit check, the pooled Williams G-test at the suite's per-fit
  alpha. P(kill) = 1 - (1 - q)^n * P(G passes | no draw outside the support); the second
  factor is estimated from ``--reps`` repetitions of n draws (``torch.multinomial``). A quick
  screen (``--screen-reps``, doubling n) ranks the rows; the most sensitive ones get a fine
  search on a geometric grid (ratio 1.08). Reported: the smallest n whose point estimate of
  P(kill) reaches 0.999, and the smallest n whose one-sided 95 % Clopper-Pearson lower bound
  does (needs ``--reps`` >= 2996 when the G-test alone must do it).
  Also reported: whether the deterministic ``sampling_probs`` cases catch the mistake anyway.
* **shared_uniform**: the duplicated-rows independence test (rows 2 and 5 of the mixed batch,
  exact binomial tail at alpha 1e-8), simulated with the wrong file itself.
* **too_regular**: the lower-tail test over all 15 fit statistics (alpha 1e-12) on the wrong
  file's deterministic quantile draws, with the same n for every fit row.
* **ignores_generator**: the same-seed check; it survives only if two independent calls happen
  to print identical draws (exact probability).
* **inverse_cdf_off_end**: the extreme-uniform phase; with real uniforms the bad values 0.0 and
  1 - 2^-24 come once in ~1.7e7 draws (counted exactly over all 2^24 float32 uniforms).
* **no_greedy**: the greedy rows (temperature 0, tied maxima): exact survival probability.

The G-test replica used for speed is cross-checked against ``judge.stats.g_test``.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from rich.table import Table  # noqa: E402
from scipy import stats as sps  # noqa: E402

from benchmarks._common import EXERCISE_ID, load_exercise_tests, machine, write_json  # noqa: E402
from benchmarks._common import console as make_console  # noqa: E402
from judge import stats as jstats  # noqa: E402
from judge.budget import INDEPENDENCE_ALPHA, TOO_REGULAR_ALPHA, BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.catalogue import parse_wrong_solution  # noqa: E402
from judge.checks import CheckFailed  # noqa: E402
from judge.child import ExtremeUniforms  # noqa: E402
from judge.exercise import resolve  # noqa: E402
from judge.runner import load_suite  # noqa: E402

TARGET = 0.999  # the power every known mistake must be killed with
CONFIDENCE = 0.95  # one-sided, for the lower confidence bound on P(kill)
SCREEN_LEVEL = 0.95  # the screen doubles n until this point estimate
GRID_RATIO = 1.08
CAP_FACTOR = 8  # search up to this many times the suite's n
CHUNK_DRAWS = 4_000_000  # draws per torch.multinomial call

# Sizes the suites use that are literals inside test functions (the rest are read from hidden.py).
PUBLIC_DRAWS = 4_000  # public.test_sample_distribution
EXTREME_CASE_DRAWS = 2_000  # hidden.test_extreme_uniforms, per call (one ordinary, one extreme)
GREEDY_DRAWS = 50  # hidden.test_sample_greedy
SEEDS_DRAWS = 400  # hidden.test_generator_seeds
# Fit rows per batch, as hidden.py's _check_draws calls list them.
FIT_ROWS = {"mixed": [0, 1, 2, 3, 4, 5, 7], "zipf": [0, 1, 2], "float64": [0, 1], "scalar": [0, 1], "public": [0]}

ALIASES = {"row0_parameters": "row0_params", "temperature_after_softmax": "temperature_ignored"}
SPECIAL = ("shared_uniform", "too_regular", "ignores_generator", "inverse_cdf_off_end", "no_greedy")


# ---------------------------------------------------------------------------------------------
# The rows the suite draws from
# ---------------------------------------------------------------------------------------------


@dataclass
class RowCheck:
    """One row of one batched ``sample`` call and what the suite does with its draws."""

    batch: str
    case: str
    row: int
    n: int
    fit: bool  # a goodness-of-fit check besides the support check
    logits: torch.Tensor  # the whole batch [B, V]
    params: list  # RowParams per row
    per_row: bool  # parameters passed as per-row tensors (else scalars)
    target: torch.Tensor  # exact float64 [V] of this row

    @property
    def name(self) -> str:
        return f"{self.batch} row {self.row}"


@dataclass
class Suite:
    exercise: Any
    cases: Any
    oracle: Any
    hidden: Any
    public: Any
    fit_alpha: float
    declared: BudgetDeclaration
    checks: list[RowCheck]
    batches: dict[str, Any]


def load(exercise) -> Suite:
    package = load_exercise_tests(exercise)
    cases = sys.modules[f"{package}.cases"]
    oracle = sys.modules[f"{package}.oracle"]
    hidden = sys.modules[f"{package}.hidden"]
    public = sys.modules[f"{package}.public"]
    declared = load_suite(exercise, "public").budget + load_suite(exercise, "hidden").budget
    fit_alpha = FalseFailureBudget(exercise.false_failure_budget, declared).alpha("fit")
    public_logits = torch.tensor([public.LOGITS], dtype=torch.float32)
    public_params = [oracle.RowParams(top_p=0.8)]
    public_batch = cases.Batch(public_logits, public_params, oracle.target(public_logits, public_params),
                               ["public top_p=0.8"])
    batches = {
        "public": (public_batch, "public/sample_distribution", PUBLIC_DRAWS, False),
        "mixed": (cases.mixed_rows(), "sample_mixed_rows", hidden.MIXED_DRAWS, True),
        "zipf": (cases.zipf_rows(), "sample_large_vocabulary", hidden.ZIPF_DRAWS, True),
        "float64": (cases.float64_rows(), "sample_float64", hidden.SMALL_DRAWS, True),
        "scalar": (cases.scalar_rows(), "sample_scalar_parameters", hidden.SMALL_DRAWS, False),
        "edge": (cases.edge_rows(), "extreme_uniforms (ordinary call)", EXTREME_CASE_DRAWS, True),
    }
    checks = []
    for name, (batch, case, n, per_row) in batches.items():
        for row in range(batch.logits.shape[0]):
            checks.append(RowCheck(name, case, row, n, row in FIT_ROWS.get(name, []), batch.logits, batch.params,
                                   per_row, batch.exact.probs[row]))
    fits = sum(c.fit for c in checks)
    if fits != declared.fit:
        raise SystemExit(f"power.py knows {fits} fit rows but the suites declare {declared.fit}: update FIT_ROWS")
    return Suite(exercise, cases, oracle, hidden, public, fit_alpha, declared, checks,
                 {name: value[0] for name, value in batches.items()})


# ---------------------------------------------------------------------------------------------
# Simulating the suite's decision on one row
# ---------------------------------------------------------------------------------------------


def critical_value(alpha: float, df: int) -> float:
    """The statistic at which judge.stats.chi2_sf crosses alpha (the judge passes iff stat <= it)."""
    low, high = 0.0, max(10.0, 2.0 * df)
    while jstats.chi2_sf(high, df) >= alpha:
        high *= 2.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if jstats.chi2_sf(middle, df) >= alpha:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return low


@dataclass
class Plan:
    """The pooling of one row at one n, exactly as judge.stats.g_test pools it."""

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
        self.targets = self.p0.tolist()
        zero = self.p0 == 0
        self.q = min(1.0, max(0.0, float(p1[zero].sum())))
        inside = torch.where(zero, torch.zeros_like(p1), p1.to(torch.float64))
        total = float(inside.sum())
        self.conditional = inside / total if total > 0 else None
        self.fit = fit
        self.alpha = alpha
        self.generator = torch.Generator().manual_seed(seed)
        self.plans: dict[int, Plan] = {}
        self.crosscheck = crosscheck
        self.checked: set[int] = set()
        self.evaluations: dict[int, dict] = {}

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
        """How many of ``reps`` runs of n draws (all inside the support) pass the G-test."""
        if not self.fit or self.conditional is None:
            return reps
        plan = self._plan(n)
        if plan.k < 2:
            return reps
        passes = done = 0
        chunk = max(1, min(reps, CHUNK_DRAWS // n))
        offsets = torch.arange(chunk, dtype=torch.int64).unsqueeze(1) * plan.k
        while done < reps:
            m = min(chunk, reps - done)
            tokens = torch.multinomial(self.conditional, m * n, replacement=True, generator=self.generator)
            bins = plan.group_of[tokens].view(m, n) + offsets[:m]
            counts = torch.bincount(bins.reshape(-1), minlength=m * plan.k).view(m, plan.k).to(torch.float64)
            expected = plan.expected.expand_as(counts)
            safe = torch.where(counts > 0, counts, torch.ones_like(counts))
            deviance = torch.where(counts > 0, counts * torch.log(safe / expected) + expected - counts, expected)
            statistic = 2.0 * deviance.sum(dim=1) / plan.williams
            passes += int((statistic <= plan.critical).sum())
            if n not in self.checked and (len(self.targets) <= 1000 or not self.checked):
                self._cross_check(tokens[:n], float(statistic[0]), plan)
                self.checked.add(n)
            done += m
        return passes

    def _cross_check(self, tokens: torch.Tensor, statistic: float, plan: Plan) -> None:
        observed = torch.bincount(tokens, minlength=len(self.targets)).tolist()
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
        self.evaluations[n] = result
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
        return self._function(logits, temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p)

    def sample(self, *args, **kwargs):
        raise _NotProbs


class _Ctx:
    """Enough of judge.testing.Context for the exact cases; anything about draws ends the case."""

    device = "cpu"

    def __getattr__(self, name):
        raise _NotProbs


def probs_cases(exercise) -> list:
    """The cases that compare sampling_probs with exact values: hidden probs_*, public _expect_probs ones."""
    cases = [c for c in load_suite(exercise, "hidden").cases if c.name.startswith("probs_")]
    cases += [c for c in load_suite(exercise, "public").cases if "_expect_probs(" in inspect.getsource(c.function)]
    return cases


def probs_failures(cases: list, function: Callable) -> list[str]:
    sub = _ProbsOnly(function)
    failed = []
    for case in cases:
        try:
            case.function(sub, _Ctx())
        except CheckFailed:
            failed.append(f"{case.suite}/{case.name}")
        except _NotProbs:
            pass
    return failed


def oracle_probs(oracle, key: str | None) -> Callable:
    """sampling_probs as ``oracle.mistaken(..., key)`` would return it (the exact target when key is None)."""

    def function(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
        batch = logits.shape[0]

        def column(value, cast):
            if isinstance(value, torch.Tensor):
                return [cast(v) for v in value.tolist()]
            return [cast(value)] * batch

        rows = zip(column(temperature, float), column(top_k, int), column(top_p, float), column(min_p, float))
        params = [oracle.RowParams(temperature=t, top_k=k, top_p=p, min_p=m) for t, k, p, m in rows]
        probs = oracle.target(logits, params).probs if key is None else oracle.mistaken(logits, params, key)
        return probs.to(logits.dtype)

    return function


def import_file(path: Path):
    spec = importlib.util.spec_from_file_location(f"_bench_wrong_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call_params(check_or_batch, per_row: bool) -> dict:
    batch = check_or_batch
    if per_row:
        return batch.param_tensors()
    first = batch.params[0]
    return {"temperature": first.temperature, "top_k": first.top_k, "top_p": first.top_p, "min_p": first.min_p}


# ---------------------------------------------------------------------------------------------
# The analyses
# ---------------------------------------------------------------------------------------------


def analyse_distribution(suite: Suite, key: str, module, args, crosscheck: CrossCheck, seed: int) -> dict:
    oracle = suite.oracle
    searches: list[tuple[RowSearch, RowSimulator]] = []
    mistaken_cache: dict[str, torch.Tensor] = {}
    file_mismatch = []
    for index, check in enumerate(suite.checks):
        if check.batch not in mistaken_cache:
            mistaken_cache[check.batch] = oracle.mistaken(check.logits, check.params, key)
            batch = suite.batches[check.batch]
            own = module.sampling_probs(batch.logits, **call_params(batch, check.per_row)).to(torch.float64)
            wanted = mistaken_cache[check.batch]
            differs = (torch.isnan(own).any(dim=1) | ((own > 0) != (wanted > 0)).any(dim=1)
                       | ((own - wanted).abs() > 1e-3).any(dim=1))
            file_mismatch += [f"{check.batch} row {r}" for r in differs.nonzero().flatten().tolist()]
        p1 = mistaken_cache[check.batch][check.row]
        if torch.allclose(p1, check.target, rtol=1e-6, atol=1e-9):
            continue
        sim = RowSimulator(check.target, p1, check.fit, suite.fit_alpha, seed + 7919 * index, crosscheck)
        searches.append((screen(sim, check, args.screen_reps), sim))
    if not searches:
        return {"killing_check": "none: no row the suite draws from changes", "rows": []}
    best_screen = min(s.n_screen for s, _ in searches)
    candidates = sorted((pair for pair in searches if pair[0].check.fit and pair[0].n_screen <= 2 * best_screen),
                        key=lambda pair: pair[0].n_screen)[:args.candidates]
    use_conf = args.reps >= 2996
    for search, sim in candidates:
        refine(sim, search, args.reps, use_conf)
    finished = [s for s, _ in searches if not s.check.fit or s.evaluations]
    best = min(finished, key=lambda s: (s.best(use_conf), s.best(False)))
    sim = dict((id(s), m) for s, m in searches)[id(best)]
    best.at_suite = sim.evaluate(best.check.n, args.reps)
    if best.q > 0 and best.n_support <= best.best(use_conf):
        killer = "support (a target-0 token drawn)"
    elif best.q > 0:
        killer = "support + fit (G-test)"
    else:
        killer = "fit (G-test)"
    return {
        "killing_check": killer,
        "row": best.check.name,
        "case": best.check.case,
        "q": best.q,
        "n_point": best.n_point,
        "n_conf": best.n_conf,
        "n_support": best.n_support,
        "suite_n": best.check.n,
        "at_suite": best.at_suite,
        "file_matches_oracle": not file_mismatch,
        "file_mismatch_rows": file_mismatch,
        "rows": [{"row": s.check.name, "fit": s.check.fit, "q": s.q, "n_support": s.n_support,
                  "n_screen": s.n_screen, "n_point": s.n_point, "n_conf": s.n_conf, "suite_n": s.check.n,
                  "evaluations": s.evaluations} for s, _ in searches],
    }


def analyse_shared_uniform(suite: Suite, module, args, seed: int) -> dict:
    batch = suite.cases.mixed_rows()
    p_agree = float((batch.exact.probs[2] ** 2).sum())
    params = batch.param_tensors()
    grid = [2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 64, 256, 1024]
    reps = max(50, args.screen_reps)
    curve = []
    always_equal = True
    for n in grid:
        kills = 0
        for rep in range(reps):
            generator = torch.Generator().manual_seed(seed + 1_000 * n + rep)
            draws = module.sample(batch.logits, num_samples=n, generator=generator, **params)
            agreements = int((draws[2] == draws[5]).sum())
            always_equal &= agreements == n
            kills += jstats.duplicate_agreement_test(agreements, n, p_agree).pvalue < INDEPENDENCE_ALPHA
        curve.append({"n": n, "reps": reps, "kill_rate": kills / reps})
    # With one shared uniform and identical rows every position agrees: p = p_agree ** n exactly.
    n_exact = math.ceil(math.log(INDEPENDENCE_ALPHA) / math.log(p_agree))
    while jstats.binom_sf(n_exact, n_exact, p_agree) >= INDEPENDENCE_ALPHA:
        n_exact += 1
    while n_exact > 1 and jstats.binom_sf(n_exact - 1, n_exact - 1, p_agree) < INDEPENDENCE_ALPHA:
        n_exact -= 1
    observed = [c["n"] for c in curve if c["kill_rate"] >= TARGET]
    return {"killing_check": f"independence (alpha {INDEPENDENCE_ALPHA:g})",
            "row": "mixed rows 2 and 5", "case": "sample_mixed_rows", "p_agree": p_agree,
            "rows_always_agree": always_equal,
            "n_point": n_exact if always_equal else (min(observed) if observed else None),
            "n_conf": n_exact if always_equal else None, "suite_n": suite.hidden.MIXED_DRAWS, "curve": curve,
            "note": f"every draw agreed ({'yes' if always_equal else 'NO'}), so P(kill) is 0 below n = {n_exact} "
                    f"and 1 from there (p = {p_agree:.3f}^n)"}


def analyse_too_regular(suite: Suite, module) -> dict:
    fit_checks = [c for c in suite.checks if c.fit]

    def lower_tail(sizes: Callable[[RowCheck], int]) -> dict:
        statistics, dfs = [], []
        generator = torch.Generator().manual_seed(0)
        drawn: dict[tuple[str, int], torch.Tensor] = {}
        for check in fit_checks:
            n = sizes(check)
            key = (check.batch, n)
            if key not in drawn:
                batch = suite.batches[check.batch]
                drawn[key] = module.sample(batch.logits, num_samples=n, generator=generator,
                                           **call_params(batch, check.per_row))
            counts = torch.bincount(drawn[key][check.row], minlength=check.target.shape[0]).tolist()
            result = jstats.g_test(counts, check.target.tolist())
            if result.pvalue < suite.fit_alpha:
                raise SystemExit(f"too_regular failed a fit check at n={n}: the analysis assumes it passes them")
            statistics.append(result.statistic)
            dfs.append(result.df)
        test = jstats.too_regular_test(statistics, dfs)
        return {"statistic": test.statistic, "df": test.df, "pvalue": test.pvalue}

    cache: dict[int, dict] = {}

    def at(n: int) -> dict:
        if n not in cache:
            cache[n] = lower_tail(lambda check: n)
        return cache[n]

    n = 8
    while at(n)["pvalue"] >= TOO_REGULAR_ALPHA:
        n *= 2
        if n > 1 << 16:
            break
    low, high = n // 2, n
    while high - low > 1:
        middle = (low + high) // 2
        if at(middle)["pvalue"] < TOO_REGULAR_ALPHA:
            high = middle
        else:
            low = middle
    # p(n) need not be monotone: confirm the next sizes up reject as well.
    monotone_above = all(at(high + step)["pvalue"] < TOO_REGULAR_ALPHA for step in (1, 2, 3, 5, 8, 13, 21))
    suite_sizes = lower_tail(lambda check: check.n)
    return {"killing_check": f"too regular (lower tail, alpha {TOO_REGULAR_ALPHA:g})",
            "row": f"all {len(fit_checks)} fit rows (n each)", "case": "not_too_regular",
            "n_point": high, "n_conf": high, "suite_n": min(c.n for c in fit_checks),
            "at_n": at(high), "below_n": at(low), "rejects_above_too": monotone_above, "at_suite_sizes": suite_sizes,
            "note": f"deterministic: lower-tail p = {at(high)['pvalue']:.2g} at n = {high}, "
                    f"{at(low)['pvalue']:.2g} at n = {low}; at the suite's sizes p = {suite_sizes['pvalue']:.2g}"}


def analyse_ignores_generator(suite: Suite, module) -> dict:
    batch = suite.cases.scalar_rows()
    rows = batch.exact.probs.tolist()
    n = 1
    while jstats.identical_draws_probability(rows, n) > 1 - TARGET:
        n += 1
    params = call_params(batch, False)
    first = module.sample(batch.logits, num_samples=SEEDS_DRAWS, generator=torch.Generator().manual_seed(5), **params)
    second = module.sample(batch.logits, num_samples=SEEDS_DRAWS, generator=torch.Generator().manual_seed(5), **params)
    survive = jstats.identical_draws_probability(rows, SEEDS_DRAWS)
    return {"killing_check": "seeds (same seed, same draws)", "row": "scalar rows 0 and 1",
            "case": "generator_seeds", "n_point": n, "n_conf": n, "suite_n": SEEDS_DRAWS,
            "survival_at_suite_n": survive, "same_seed_calls_differ": not torch.equal(first, second),
            "note": f"survives only if two independent calls print identical draws: probability "
                    f"{jstats.identical_draws_probability(rows, n):.2g} at n = {n}, {survive:.2g} at n = "
                    f"{SEEDS_DRAWS}"}


def analyse_no_greedy(suite: Suite, module) -> dict:
    # hidden.test_sample_greedy: its logits, parameter sets and expected first maxima.
    logits = torch.tensor([[0.5, 2.5, -0.3, 2.5, 0.1], [3.0, -1.0, 3.0, 3.0, float("-inf")],
                           [float("-inf"), -2.0, -2.0, -5.0, -2.5]], dtype=torch.float32)
    best = [1, 0, 1]
    log_survival_per_draw = 0.0
    per_set = []
    for params in ({"temperature": 0.0}, {"temperature": 0.0, "top_k": 2, "top_p": 0.3, "min_p": 0.5}):
        probs = module.sampling_probs(logits, **params).to(torch.float64)
        right = [float(probs[row, token]) for row, token in enumerate(best)]
        per_set.append({"params": params, "p_first_maximum": right})
        log_survival_per_draw += sum(math.log(p) if p > 0 else -math.inf for p in right)
    if log_survival_per_draw == 0.0:
        n = math.inf  # always right: the greedy rows cannot catch it
    elif log_survival_per_draw == -math.inf:
        n = 1
    else:
        n = math.ceil(math.log(1 - TARGET) / log_survival_per_draw)
    survival = math.exp(GREEDY_DRAWS * log_survival_per_draw)
    return {"killing_check": "greedy rows with tied maxima", "row": "sample_greedy rows 0-2", "case": "sample_greedy",
            "n_point": n, "n_conf": n,
            "suite_n": GREEDY_DRAWS, "per_parameter_set": per_set, "survival_at_suite_n": survival,
            "note": f"per draw on all three rows the file picks the first maximum with probability "
                    f"{math.exp(log_survival_per_draw):.3g}; survival at n = {GREEDY_DRAWS}: {survival:.2g}"}


def bad_uniform_count(cdf: torch.Tensor, allowed: torch.Tensor, bits: int) -> int:
    """How many of the 2^bits uniforms k * 2^-bits make ``searchsorted(cdf, u)`` pick a token outside ``allowed``.

    ``searchsorted`` (left) picks token i for u in (cdf[i-1], cdf[i]]: token 0 for u in [0, cdf[0]],
    index V (past the end) for u > cdf[V-1]. Exact for values on a 2^-bits grid.
    """
    scale = 2.0 ** bits
    last = (1 << bits) - 1  # the largest uniform is last / scale = 1 - 2^-bits
    edges = [float(v) for v in cdf.to(torch.float64).tolist()]
    below = -1  # floor(lower edge * scale): u = 0 is k = 0 > -1
    count = 0
    for token, edge in enumerate(edges + [math.inf]):
        top = last if edge == math.inf else min(last, math.floor(edge * scale))
        if top > below and (token >= len(edges) or not bool(allowed[token])):
            count += top - below
        below = max(below, top)
    return count


def analyse_inverse_cdf(suite: Suite, module) -> dict:
    # torch.rand returns multiples of 2^-24 in float32 (2^-53 in float64): 0.0 and 1 - 2^-24 are its ends.
    generator = torch.Generator().manual_seed(3)
    on_grid = {}
    for dtype, bits in ((torch.float32, 24), (torch.float64, 53)):
        scaled = torch.rand(1 << 20, generator=generator, dtype=dtype).to(torch.float64) * 2.0 ** bits
        on_grid[str(dtype).removeprefix("torch.")] = bool((scaled == scaled.floor()).all())
    grid = torch.arange(1 << 24, dtype=torch.float64).mul_(2.0 ** -24).to(torch.float32)  # every float32 uniform
    fraction = ExtremeUniforms.FRACTION
    rows = []
    enumeration_agrees = True
    for name, batch in suite.batches.items():
        per_row = name in ("mixed", "zipf", "float64", "edge")
        probs = module.sampling_probs(batch.logits, **call_params(batch, per_row))
        cdf = torch.cumsum(probs, dim=1)  # as the file does, in the logits' dtype
        allowed = batch.exact.probs > 0
        vocab = probs.shape[1]
        bits = 24 if cdf.dtype == torch.float32 else 53
        n = {"public": PUBLIC_DRAWS, "mixed": suite.hidden.MIXED_DRAWS + EXTREME_CASE_DRAWS,
             "zipf": suite.hidden.ZIPF_DRAWS, "float64": suite.hidden.SMALL_DRAWS,
             "scalar": suite.hidden.SMALL_DRAWS, "edge": EXTREME_CASE_DRAWS}[name]
        top = torch.tensor(1.0, dtype=cdf.dtype).nextafter(torch.tensor(0.0, dtype=cdf.dtype))
        ends = torch.stack([torch.zeros((), dtype=cdf.dtype), top])
        for row in range(probs.shape[0]):
            picked = torch.searchsorted(cdf[row], ends).tolist()
            zero_bad, top_bad = (i >= vocab or not bool(allowed[row, i]) for i in picked)
            bad = bad_uniform_count(cdf[row], allowed[row], bits)
            if bits == 24:  # check the count against all 2^24 float32 uniforms
                enumerated = 0
                for start in range(0, 1 << 24, 1 << 22):
                    index = torch.searchsorted(cdf[row], grid[start:start + (1 << 22)])
                    inside = index < vocab
                    enumerated += int((~inside).sum()) + int((~allowed[row][index[inside]]).sum())
                enumeration_agrees &= enumerated == bad
            natural = bad / 2.0 ** bits
            extreme = (1 - fraction) * natural + fraction / 2 * (zero_bad + top_bad)
            rows.append({"row": f"{name} row {row}", "n": n, "dtype": str(cdf.dtype).removeprefix("torch."),
                         "zero_is_bad": zero_bad, "top_is_bad": top_bad, "bad_uniforms": bad,
                         "natural_rate": natural, "extreme_rate": extreme})
    exposed = max(rows, key=lambda r: r["natural_rate"])
    n_natural = _n_for(exposed["natural_rate"])
    natural_catch = 1 - math.exp(sum(r["n"] * math.log1p(-r["natural_rate"]) for r in rows))
    extreme_rows = [r for r in rows if r["row"].startswith(("edge", "mixed"))]  # what the extreme phase draws
    worst = max(extreme_rows, key=lambda r: r["extreme_rate"])
    n_extreme = _n_for(worst["extreme_rate"])
    extreme_miss = math.exp(sum(EXTREME_CASE_DRAWS * math.log1p(-r["extreme_rate"]) for r in extreme_rows))
    return {"killing_check": "extreme uniforms (support)",
            "row": worst["row"], "case": "extreme_uniforms", "n_point": n_extreme, "n_conf": n_extreme,
            "suite_n": EXTREME_CASE_DRAWS, "rand_on_grid": on_grid, "count_matches_enumeration": enumeration_agrees,
            "rows": rows,
            "natural": {"row": exposed["row"], "rate_per_draw": exposed["natural_rate"], "n_for_target": n_natural,
                        "p_catch_in_one_suite_run": natural_catch},
            "extreme_phase_miss_probability": extreme_miss,
            "note": f"with real float32 uniforms the most exposed row ({exposed['row']}) goes wrong once per "
                    f"{1 / exposed['natural_rate']:.3g} draws: P(kill) >= {TARGET} needs n = {n_natural:.3g}, and "
                    f"all ordinary draws of one suite run catch it with probability {natural_catch:.2g}. The "
                    f"extreme phase misses it with probability {extreme_miss:.2g}"}


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000,
                        help="repetitions per n in the fine search (default 4000; >= 2996 for the lower bound)")
    parser.add_argument("--screen-reps", type=int, default=200, help="repetitions per n in the screen (default 200)")
    parser.add_argument("--candidates", type=int, default=2, help="rows per mistake given a fine search (default 2)")
    parser.add_argument("--quick", action="store_true", help="--reps 1000 --screen-reps 100 --candidates 1")
    parser.add_argument("--only", nargs="*", help="wrong solutions to analyse (file stems); default all")
    parser.add_argument("--seed", type=int, default=20_261_129, help="seed of the simulations")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.reps, args.screen_reps, args.candidates = min(args.reps, 1000), min(args.screen_reps, 100), 1
    console = make_console()
    exercise = resolve(EXERCISE_ID)
    suite = load(exercise)
    info = machine()
    use_conf = args.reps >= 2996
    how = f"point estimate and {CONFIDENCE:.0%} lower bound" if use_conf else "point estimate only: --reps < 2996"
    console.print(f"[bold]power[/bold]: known-wrong solutions of {exercise.folder}; P(kill) >= {TARGET}; fit alpha "
                  f"{suite.fit_alpha:.3g} ({suite.declared.fit} fit checks); {args.reps} reps per n "
                  f"({how}); "
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
        wrong = parse_wrong_solution(path)
        module = import_file(path)
        key = ALIASES.get(stem, stem)
        file_failures = probs_failures(cases, module.sampling_probs)
        clock = time.monotonic()
        if key in suite.oracle.MISTAKES and stem not in SPECIAL:
            entry = analyse_distribution(suite, key, module, args, crosscheck, args.seed + 104_729 * index)
            oracle_failures = probs_failures(cases, oracle_probs(suite.oracle, key))
            entry["mistake"] = key
            entry["oracle_probs_failures"] = oracle_failures
        elif stem == "shared_uniform":
            entry = analyse_shared_uniform(suite, module, args, args.seed + 104_729 * index)
        elif stem == "too_regular":
            entry = analyse_too_regular(suite, module)
        elif stem == "ignores_generator":
            entry = analyse_ignores_generator(suite, module)
        elif stem == "no_greedy":
            entry = analyse_no_greedy(suite, module)
        elif stem == "inverse_cdf_off_end":
            entry = analyse_inverse_cdf(suite, module)
        else:
            entry = {"killing_check": "unclassified: add it to benchmarks/power.py", "n_point": None, "n_conf": None,
                     "suite_n": None}
        entry.update({"solution": stem, "diagnosis": wrong.diagnosis, "file_probs_failures": file_failures,
                      "seconds": time.monotonic() - clock})
        results.append(entry)
        console.print(f"  {stem}: {entry['killing_check']} ({entry['seconds']:.1f} s)")

    table = Table(title=f"smallest sample size that kills each known-wrong solution with probability >= {TARGET}")
    for column in ("wrong solution", "killing check", "most sensitive row", "n (point)",
                   f"n ({CONFIDENCE:.0%} LB)" if use_conf else "", "suite's n", "margin", "sampling_probs cases"):
        if column:
            table.add_column(column, justify="right" if column.startswith(("n", "suite", "margin")) else "left")
    for entry in results:
        n_used = entry.get("n_conf") if use_conf else entry.get("n_point")
        margin = entry["suite_n"] / n_used if n_used and entry.get("suite_n") and n_used < math.inf else None
        entry["margin"] = margin
        failures = entry["file_probs_failures"]
        probs = f"yes ({len(failures)}/{len(cases)} fail)" if failures else "no"
        if "oracle_probs_failures" in entry and bool(entry["oracle_probs_failures"]) != bool(failures):
            probs += " [red](oracle disagrees)[/red]"
        row = [entry["solution"], entry["killing_check"], entry.get("row", ""), _n(entry.get("n_point"))]
        if use_conf:
            row.append(_n(entry.get("n_conf")))
        row += [_n(entry.get("suite_n")), f"{margin:,.0f}x" if margin else "—", probs]
        table.add_row(*row, style="red" if margin is not None and margin < 1 else None)
    table.caption = (f"n: the smallest sample size of that row with P(kill) >= {TARGET} (point estimate; "
                     f"{CONFIDENCE:.0%} one-sided Clopper-Pearson lower bound). margin = suite's n / smallest n "
                     f"({'lower-bound' if use_conf else 'point'} column). 'sampling_probs cases': how many of the "
                     "exact cases (public _expect_probs ones, hidden probs_*) the file's own sampling_probs fails; "
                     "where it fails any, the draws are a second line of defence")
    console.print(table)

    notes = Table(title="notes on the special cases and cross-checks", show_lines=False)
    notes.add_column("wrong solution")
    notes.add_column("detail")
    for entry in results:
        if entry.get("note"):
            notes.add_row(entry["solution"], entry["note"])
        if entry.get("file_matches_oracle") is False:
            notes.add_row(entry["solution"], f"[red]its sampling_probs differs from oracle.mistaken on "
                                             f"{', '.join(entry['file_mismatch_rows'])}[/red]")
        if entry.get("at_suite"):
            notes.add_row(entry["solution"], _at_suite(entry))
    notes.add_row("G-test replica", f"cross-checked on {crosscheck.samples} samples against judge.stats.g_test: "
                                    f"max relative difference {crosscheck.max_relative_difference:.1e}, "
                                    f"{crosscheck.decision_mismatches} decision mismatches")
    console.print(notes)
    console.print(f"{len(results)} wrong solutions in {time.monotonic() - started:.0f} s")
    if args.json:
        write_json(args.json, {"machine": info, "target": TARGET, "confidence": CONFIDENCE, "reps": args.reps,
                               "screen_reps": args.screen_reps, "fit_alpha": suite.fit_alpha,
                               "crosscheck": crosscheck.__dict__, "solutions": results})
        console.print(f"wrote {args.json}")
    return 0


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
