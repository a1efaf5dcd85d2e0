"""judge.checks.stats_torch, the server's torch twin of judge.checks.stats.g_test: the same bins, largest deviation
and errors as the pure core, exactly; the same statistics within ~1e-12; both equal to scipy's; a
cache that never lends one target's pooling to another; and never loaded in the browser."""

from __future__ import annotations

import io
import math
import random
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from judge.browser.bundle import engine_bundle
from judge.checks import distributions
from judge.checks import stats, stats_torch, tails
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed
from judge.checks.testing import Context

RELATIVE = 1e-12  # the statistics' agreement, relative to G's own scale (its bins)
LEVELS = (1e-12, 1e-8, 1e-6, 1e-3, 0.05)  # alphas at which both must decide alike


@pytest.fixture(autouse=True)
def torch_for_every_size(monkeypatch):
    """Small targets go to the pure core (faster there): here the torch path takes them all."""
    monkeypatch.setattr(stats_torch, "PURE_BELOW", 0)


def assert_same(fast: stats.GTestResult, pure: stats.GTestResult) -> None:
    """The torch result equals the pure one: integers, bins and largest deviation exactly, the
    statistics within RELATIVE of G's scale, the p-value the chi-square tail of its own statistic."""
    assert (fast.n, fast.bins, fast.df, fast.largest_deviation) == (pure.n, pure.bins, pure.df, pure.largest_deviation)
    scale = max(1.0, pure.bins)  # a near-perfect fit has G ~ 0: judge its error on G's natural scale
    for name in ("statistic", "raw_statistic", "williams_q"):
        assert math.isclose(getattr(fast, name), getattr(pure, name), rel_tol=RELATIVE, abs_tol=RELATIVE * scale), name
    assert math.isclose(fast.log_atom, pure.log_atom, rel_tol=RELATIVE, abs_tol=RELATIVE * scale)
    assert fast.pvalue == (tails.chi2_sf(fast.statistic, fast.df) if fast.df else 1.0)
    assert math.isclose(fast.pvalue, pure.pvalue, rel_tol=1e-8, abs_tol=1e-300)
    assert [fast.pvalue >= alpha for alpha in LEVELS] == [pure.pvalue >= alpha for alpha in LEVELS]


def both(counts: list[int], probs: list[float], min_expected: float = 10.0) -> tuple:
    fast = stats_torch.g_test_counts(
        torch.tensor(counts, dtype=torch.int64), torch.tensor(probs, dtype=torch.float64), min_expected
    )
    return fast, stats.g_test(counts, probs, min_expected)


def outcome(function, *args):
    """What a call gives: ("result", value) or ("raised", type, message)."""
    try:
        return ("result", function(*args))
    except Exception as error:  # noqa: BLE001 - the very exception is what is compared
        return ("raised", type(error), str(error))


# Weights with zeros and ties (equal expected counts, sums landing on min_expected exactly).
weights = st.lists(
    st.one_of(st.just(0.0), st.sampled_from([1.0, 2.0, 0.5, 4.0, 1e-9]), st.floats(1e-6, 1.0)),
    min_size=1,
    max_size=60,
).filter(lambda w: sum(w) > 0)
thresholds = st.sampled_from([10.0, 10.0, 5.0, 1.0, 2.5, 0.0, 37.5])


def target(w: list[float]) -> list[float]:
    p = torch.tensor(w, dtype=torch.float64)
    return (p / p.sum()).tolist()


@settings(max_examples=300, deadline=None)
@given(weights, st.integers(0, 3_000), st.integers(0, 2**32 - 1), thresholds, st.booleans())
def test_the_torch_g_test_equals_the_pure_one(w, n, seed, min_expected, honest):
    """Honest multinomial counts, or any counts on the support; tiny n, n = 0, one category."""
    probs = target(w)
    rng = random.Random(seed)
    support = [i for i, p in enumerate(probs) if p > 0]
    counts = [0] * len(probs)
    if honest:
        for i in rng.choices(range(len(probs)), weights=probs, k=n):
            counts[i] += 1
    else:
        for i in support:
            counts[i] = rng.choice([0, 0, 1, 2, 5, rng.randint(0, n)])
    assert_same(*both(counts, probs, min_expected))


@pytest.mark.parametrize("n", [0, 1, 3, 25, 10_000])
def test_one_category_and_tiny_samples(n):
    assert_same(*both([n], [1.0]))
    assert_same(*both([n, 0], [1.0, 0.0]))
    assert_same(*both([n // 2, n - n // 2, 0], [0.5, 0.5, 0.0]))


def test_a_32000_category_target_with_excluded_tokens():
    """The size of exercise 39's large vocabulary: a Zipf target, a band of zeros, 20 000 draws."""
    weights_ = 1.0 / torch.arange(1, 32_001, dtype=torch.float64) ** 1.1
    weights_[5_000:5_100] = 0.0
    probs = weights_ / weights_.sum()
    draws = torch.multinomial(probs, 20_000, replacement=True, generator=torch.Generator().manual_seed(39))
    counts = torch.bincount(draws, minlength=32_000)
    fast = stats_torch.g_test_counts(counts, probs)
    assert_same(fast, stats.g_test(counts.tolist(), probs.tolist()))
    assert fast.bins > 500
    # float32 targets are read as the float64 values they hold, as .tolist() reads them
    single = probs.to(torch.float32)
    assert_same(stats_torch.g_test_counts(counts, single), stats.g_test(counts.tolist(), single.tolist()))


@pytest.mark.parametrize("n", [10_000, 1_000_000])
def test_a_near_perfect_fit_keeps_its_relative_accuracy(n):
    """Counts at their rounded expectations (a "too regular" fake): G is tiny, and x ln(x/m) + m - x
    would cancel in its closed form; the series of the pure core keeps G to ~1e-12 of itself."""
    probs = target([1.0 + (k % 7) for k in range(50)])
    counts = [round(n * p) for p in probs]
    counts[0] += n - sum(counts)
    fast, pure = both(counts, probs)
    assert pure.raw_statistic < 1.0
    assert fast.raw_statistic == pytest.approx(pure.raw_statistic, rel=RELATIVE, abs=0.0)


def test_small_targets_are_the_pure_cores_and_larger_ones_torchs(monkeypatch, fresh_cache):
    monkeypatch.setattr(stats_torch, "PURE_BELOW", 64)
    built = []
    build = stats_torch._build
    monkeypatch.setattr(stats_torch, "_build", lambda *args: built.append(args) or build(*args))
    for size in (63, 64):
        probs = target([1.0 + k for k in range(size)])
        counts = [30 + k for k in range(size)]
        fast = stats_torch.g_test_counts(torch.tensor(counts), torch.tensor(probs, dtype=torch.float64))
        assert_same(fast, stats.g_test(counts, probs))
        assert len(built) == size - 63  # 63 categories: the pure core's result; 64: torch's
    assert fast.bins > 2


# --- pooling: the very groups of stats.pool_bins --------------------------------------------------

expected_counts = st.lists(
    st.one_of(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 2.5, 3.3, 10.0]), st.floats(0.0, 20.0)), max_size=300
)


@settings(max_examples=300, deadline=None)
@given(expected_counts, st.sampled_from([10.0, 1.0, 2.5, 0.3, 0.0, 7.0]))
def test_pooling_gives_the_groups_of_pool_bins(expected, min_expected):
    fast = stats_torch.pool_bins(torch.tensor(expected, dtype=torch.float64), min_expected)
    assert fast == stats.pool_bins(expected, min_expected)


@pytest.mark.parametrize(
    ("value", "count", "min_expected"),
    [(0.1, 1_000, 1.0), (0.1, 1_000, 10.0), (2.5, 400, 10.0), (1 / 3, 999, 1.0), (0.7, 500, 2.1)],
)
def test_pooling_follows_the_loop_where_rounding_moves_a_boundary(value, count, min_expected):
    """Ten 0.1s add up to 0.9999999999999999 in the loop, not 1: bins whose sums land on
    min_expected are settled by the loop's own running sum, never by prefix sums."""
    expected = [value] * count
    assert stats_torch.pool_bins(torch.tensor(expected, dtype=torch.float64), min_expected) == stats.pool_bins(
        expected, min_expected
    )


# --- the same refusals ----------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("counts", "probs", "min_expected"),
    [
        ([1, 2], [1.0], 10.0),
        ([3, -1], [0.5, 0.5], 10.0),
        (torch.tensor([1.0, 2.0]), [0.5, 0.5], 10.0),
        ([1, 2], [0.5, NAN], 10.0),
        ([1, 2], [0.5, INF], 10.0),
        ([1, 2], [-0.5, 1.5], 10.0),
        ([1, 2], [0.5, 0.4], 10.0),
        ([0, 0], [0.5, 0.4], 10.0),  # no draws: the target is still checked
        ([5, 5, 1], [0.5, 0.5, 0.0], 10.0),  # names category 2
        ([1, 2], [1e308, 1e308], 10.0),  # the pure core's fsum overflows
        ([], [], 10.0),
        ([-1, 2], [NAN, 1.0], 10.0),  # several faults: the first the pure core finds
        ([1, 2], [0.5, 0.4], -1.0),
        ([1, 2], [0.5, 0.5], -1.0),
        ([1, 2], [0.5, 0.5], NAN),
        ([1, 2], [0.5, 0.5], INF),
        ([1, 2], [0.5, 0.5], "ten"),
        ([-1, 2], [0.5, 0.5], "ten"),
    ],
)
def test_the_same_inputs_are_refused_with_the_same_words(counts, probs, min_expected):
    counts_tensor = counts if isinstance(counts, torch.Tensor) else torch.tensor(counts, dtype=torch.int64)
    counts_list = counts.tolist() if isinstance(counts, torch.Tensor) else counts
    fast = outcome(stats_torch.g_test_counts, counts_tensor, torch.tensor(probs, dtype=torch.float64), min_expected)
    pure = outcome(stats.g_test, counts_list, probs, min_expected)
    assert fast[0] == pure[0] == "raised"
    assert fast[1:] == pure[1:]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-3, 30), min_size=1, max_size=12),
    st.lists(st.one_of(st.floats(-0.2, 1.0), st.just(0.0), st.sampled_from([NAN, INF])), min_size=1, max_size=12),
    st.booleans(),
)
def test_any_input_gives_what_the_pure_core_gives(counts, raw, normalize):
    """Random counts (some negative) against random, mostly invalid targets: the same result or the
    same exception."""
    size = min(len(counts), len(raw))
    probs = raw[:size]
    if normalize and all(math.isfinite(p) and p >= 0 for p in probs) and sum(probs) > 0:
        probs = target(probs)
    fast = outcome(
        stats_torch.g_test_counts,
        torch.tensor(counts[:size], dtype=torch.int64),
        torch.tensor(probs, dtype=torch.float64),
    )
    pure = outcome(stats.g_test, counts[:size], probs)
    assert fast[0] == pure[0]
    if fast[0] == "raised":
        assert fast[1:] == pure[1:]
    else:
        assert_same(fast[1], pure[1])


# --- both against scipy ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_both_match_scipy_power_divergence_with_williams(seed):
    rng = random.Random(seed)
    size = rng.choice([5, 80, 2_000])
    w = [rng.paretovariate(1.2) if rng.random() > 0.1 else 0.0 for _ in range(size)]
    w[0] = 1.0
    probs = target(w)
    n = rng.choice([200, 5_000, 40_000])
    counts = [0] * size
    for i in rng.choices(range(size), weights=probs, k=n):
        counts[i] += 1
    fast, pure = both(counts, probs)
    groups = stats.pool_bins([n * p for p in probs])
    observed = [sum(counts[i] for i in group) for group in groups]
    expected = [math.fsum(n * probs[i] for i in group) for group in groups]
    g = scipy_stats.power_divergence(observed, expected, lambda_="log-likelihood").statistic
    q = 1.0 + (len(groups) + 1) / (6.0 * n)
    for result in (fast, pure):
        assert result.bins == len(groups)
        assert result.raw_statistic == pytest.approx(g, rel=1e-9)
        assert result.statistic == pytest.approx(g / q, rel=1e-9)
        assert result.pvalue == pytest.approx(scipy_stats.chi2.sf(g / q, len(groups) - 1), rel=1e-7)


# --- the cache ------------------------------------------------------------------------------------


@pytest.fixture
def fresh_cache():
    stats_torch.clear_cache()
    yield
    stats_torch.clear_cache()


def test_two_targets_of_one_shape_never_share_a_pooling(fresh_cache):
    """The same values in another order, the same sum, the same n: a key without the values
    would hand the second target the first one's bins."""
    counts = torch.tensor([500, 300, 200, 0], dtype=torch.int64)
    first = [0.5, 0.3, 0.2, 0.0]
    second = [0.2, 0.3, 0.5, 0.0]
    for probs in (first, second, first):
        assert_same(
            stats_torch.g_test_counts(counts, torch.tensor(probs, dtype=torch.float64)),
            stats.g_test(counts.tolist(), probs),
        )
    assert stats_torch.cache_size() == 2
    # ... nor one n, or one min_expected, another's
    for n_counts, min_expected in (([5, 3, 2, 0], 10.0), ([500, 300, 200, 0], 400.0)):
        assert_same(
            stats_torch.g_test_counts(torch.tensor(n_counts), torch.tensor(first, dtype=torch.float64), min_expected),
            stats.g_test(n_counts, first, min_expected),
        )
    assert stats_torch.cache_size() == 4


def test_a_target_whose_memory_is_not_its_values_is_keyed_by_its_values(fresh_cache):
    """The key hashes the target's memory: a tensor whose values are not what its memory holds (a
    negative view reads its memory negated; a zero tensor has none) must be keyed by its values,
    never share the entry of the target its memory spells, and never make the judge read address 0."""
    probs = torch.tensor(target([1.0, 2.0, 3.0, 0.0, 4.0] * 20), dtype=torch.float64)
    counts = torch.bincount(torch.multinomial(probs, 2_000, replacement=True), minlength=100)
    stats_torch.g_test_counts(counts, probs)  # cached: the memory of the next target spells this one
    negated = torch._neg_view(probs)  # values -probs: the pure core refuses them
    for odd in (negated, torch._efficientzerotensor(100, dtype=torch.float64)):
        fast = outcome(stats_torch.g_test_counts, counts, odd)
        pure = outcome(lambda c, p: stats.g_test(c.tolist(), p.tolist()), counts, odd)  # as documented
        assert fast[0] == pure[0] == "raised" and fast[1:] == pure[1:]


def test_a_cached_result_equals_a_fresh_one(fresh_cache):
    probs = torch.tensor(target([1.0, 2.0, 3.0, 0.0, 4.0] * 40), dtype=torch.float64)
    counts = torch.bincount(torch.multinomial(probs, 3_000, replacement=True), minlength=200)
    first = stats_torch.g_test_counts(counts, probs)
    assert stats_torch.cache_size() == 1
    again = stats_torch.g_test_counts(counts.clone(), probs.clone())  # found by value, not identity
    assert stats_torch.cache_size() == 1
    stats_torch.clear_cache()
    assert first == again == stats_torch.g_test_counts(counts, probs)


def test_the_cache_stays_within_its_bounds(monkeypatch):
    for entries, nbytes, kept in ((3, 2**30, 3), (100, 1, 1)):
        monkeypatch.setattr(stats_torch, "_CACHE", stats_torch._PoolingCache(entries, nbytes))
        for k in range(8):
            probs = torch.tensor(target([1.0 + k, 2.0, 3.0]), dtype=torch.float64)
            stats_torch.g_test_counts(torch.tensor([10, 20, 30]), probs)
        assert stats_torch.cache_size() == kept


def test_threads_share_the_cache_safely(fresh_cache):
    """Graders judge in threads: many targets, in any order, at once, each gets its own answer."""
    rng = random.Random(16)
    cases = []
    for k in range(12):
        size = rng.choice([3, 50, 3_000])
        probs = torch.tensor(target([rng.random() + (k == 0) for _ in range(size)]), dtype=torch.float64)
        counts = torch.bincount(torch.multinomial(probs, 2_000, replacement=True), minlength=size)
        cases.append((counts, probs))
    serial = [stats_torch.g_test_counts(c, p) for c, p in cases]
    for (counts, probs), fast in zip(cases, serial, strict=True):
        assert_same(fast, stats.g_test(counts.tolist(), probs.tolist()))
    stats_torch.clear_cache()
    order = [k for k in range(len(cases)) for _ in range(8)]
    rng.shuffle(order)

    def judge(k: int) -> tuple[int, stats.GTestResult]:
        return k, stats_torch.g_test_counts(*cases[k])

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(judge, order))
    assert all(result == serial[k] for k, result in results)
    assert stats_torch.cache_size() == len(cases)


# --- the checks use it on the server; the browser keeps the pure core ------------------------------


@pytest.fixture
def make_ctx():
    def make() -> Context:
        budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=4))
        return Context(seed=1, device="cpu", budget=budget)

    return make


def _failure(make_ctx, draws, probs, alternatives) -> CheckFailed:
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_distribution(make_ctx(), draws, probs, label="row 0", alternatives=alternatives)
    return failed.value


def test_a_failing_fit_reads_the_same_on_the_server_and_in_the_browser(make_ctx, monkeypatch):
    """The message (G, df, p, the largest gap) and the diagnosis (best_alternative) of the torch
    path are the pure path's."""
    probs = torch.zeros(3_000, dtype=torch.float64)
    probs[:1_000] = 1.0 / torch.arange(1, 1_001, dtype=torch.float64)
    probs /= probs.sum()
    flat = torch.zeros(3_000, dtype=torch.float64)
    flat[:1_000] = 1e-3
    hotter = probs**2 / (probs**2).sum()
    draws = torch.multinomial(hotter, 20_000, replacement=True, generator=torch.Generator().manual_seed(7))
    alternatives = {"flat": flat, "hotter": hotter}
    server = _failure(make_ctx, draws, probs, alternatives)
    monkeypatch.setattr(distributions, "stats_torch", None)
    browser = _failure(make_ctx, draws, probs, alternatives)
    assert server.diagnosis == browser.diagnosis == "hotter"
    assert server.message == browser.message
    assert "the largest gap is token 0" in server.message


def test_the_browser_bundle_and_the_torch_subset_leave_the_twin_out(project_root):
    names = zipfile.ZipFile(io.BytesIO(engine_bundle())).namelist()
    assert "judge/checks/stats.py" in names and "judge/checks/distributions.py" in names
    assert "judge/checks/stats_torch.py" not in names
    script = (
        "import judge.browser.torchlike as subset; subset.install()\n"
        "from judge.checks import distributions\n"
        "assert distributions.stats_torch is None, 'the torch subset must get the pure core'\n"
        "try:\n    import judge.checks.stats_torch\nexcept ImportError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=project_root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "needs the real torch" in done.stdout
