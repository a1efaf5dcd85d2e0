"""The G-test of :mod:`judge.checks.stats` on tensors: the server's twin of the pure-Python core.

:func:`judge.checks.stats.g_test` is pure Python so that the same file decides in the browser (Pyodide,
no torch); on the server it validates, sorts and pools up to 32 000 categories per fit in Python
loops. :func:`g_test_counts` returns the same :class:`~judge.checks.stats.GTestResult` from an integer
``[V]`` tensor of counts, doing the O(V) work in torch float64, and caches what depends on the
target alone (how the categories pool), so that a frozen case judged again pays for its counts only.

The contract, pinned by ``tests/judge/test_stats_torch.py`` against ``judge.checks.stats`` and scipy:

* ``n``, ``bins``, ``df`` and the bins themselves are those of :func:`judge.checks.stats.pool_bins`,
  exactly: the expected counts are the same floating-point products, sorted the same stable way,
  and every bin boundary that floating-point rounding could move is settled by the pure loop;
* ``largest_deviation`` is identical (the same floats, compared the same way);
* ``statistic``, ``raw_statistic``, ``williams_q`` and ``log_atom`` agree within ~1e-12 relative
  (sums taken in another order, torch's logarithm), and ``pvalue`` is :func:`judge.checks.tails.chi2_sf`
  of that statistic: the decisions are those of the pure core;
* every input the pure core refuses is refused with its very exception: whatever this module does
  not accept as valid is handed to :func:`judge.checks.stats.g_test`, which words the error.

It needs the real torch: on the browser's torch subset (``judge.browser.torchlike``) importing it
raises ``ImportError``, and the browser bundle leaves the file out (``judge/browser/bundle.py``).
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import torch

from judge.checks import stats, tails

if not hasattr(torch, "_C"):  # the browser's pure-Python subset, registered as ``torch``
    raise ImportError("judge.checks.stats_torch needs the real torch; the browser keeps judge.checks.stats")

__all__ = ["g_test_counts", "pool_bins", "largest_gap", "clear_cache", "cache_size"]

# Counts of these dtypes are read as they are; any other dtype goes to the pure core, which decides.
_COUNT_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)
_EXACT_INTEGERS = 2**53  # float64 holds every integer up to here, int64 sums do not overflow
_UNIT_ROUNDOFF = 2.0**-53
# atanh(v) - v = v^3 (1/3 + v^2/5 + ... + v^18/21 + ...): powers and coefficients of the bracket
# (|v| < 0.1 there: the last term kept is below 1e-18 of the first). Read-only, shared by threads.
_SERIES_POWERS = torch.arange(10, dtype=torch.float64)
_SERIES_COEFFICIENTS = torch.tensor([1.0 / (2 * j + 1) for j in range(1, 11)], dtype=torch.float64)

# Targets of fewer categories go to the pure core: a torch operation costs microseconds whatever
# its size, and the ~40 of a fit cost more than the pure loops over a few dozen categories.
PURE_BELOW = 64

# The cache of poolings: at most this many entries and bytes (the largest, a 32 000-category
# target, holds ~550 kB); least recently used first out.
CACHE_ENTRIES = 256
CACHE_BYTES = 32 * 2**20


@dataclass(frozen=True)
class _Pooling:
    """What a G-test needs that depends only on (target, n, min_expected); never mutated.

    ``each``: float64 ``[V]``, each category's expected count (``n / sum(probs) * p``, the pure
    core's products); ``positive``: bool ``[V]``, ``each > 0``, and ``excluded`` its negation;
    ``group_of``: int64 ``[V]``, each category's bin, ``bins`` for a category expected 0 (in no
    bin); ``expected``: float64 ``[bins]``, each bin's expected count; ``impossible``: int64
    indices of the categories of probability 0 (a draw of one is an error), None when there are none.
    """

    bins: int
    each: torch.Tensor
    positive: torch.Tensor
    excluded: torch.Tensor
    any_positive: bool
    group_of: torch.Tensor
    expected: torch.Tensor
    impossible: torch.Tensor | None
    log_atom: float

    @property
    def nbytes(self) -> int:
        tensors = (self.each, self.group_of, self.positive, self.excluded, self.expected, self.impossible)
        return 256 + sum(t.numel() * t.element_size() for t in tensors if t is not None)


class _PoolingCache:
    """A small LRU map, safe to share between the threads that grade (one lock, held briefly)."""

    def __init__(self, entries: int, nbytes: int) -> None:
        self._entries: OrderedDict[tuple, _Pooling] = OrderedDict()
        self._max_entries = entries
        self._max_bytes = nbytes
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple) -> _Pooling | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple, pooling: _Pooling) -> None:
        with self._lock:
            if key in self._entries:  # another thread built the same one meanwhile: equal, keep it
                return
            self._entries[key] = pooling
            self._bytes += pooling.nbytes
            while len(self._entries) > self._max_entries or (self._bytes > self._max_bytes and len(self._entries) > 1):
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.nbytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


_CACHE = _PoolingCache(CACHE_ENTRIES, CACHE_BYTES)


def clear_cache() -> None:
    """Forget every cached pooling (tests; a server never needs to)."""
    _CACHE.clear()


def cache_size() -> int:
    """How many poolings are cached now."""
    return len(_CACHE)


def _digest(probs64: torch.Tensor) -> bytes:
    """SHA-256 of a contiguous CPU float64 ``[V]`` tensor's bytes, its length first: two different
    targets never share a key (a digest of the values, not of the tensor's identity, so a case
    rebuilt for the next grading finds the pooling of the last one)."""
    hasher = hashlib.sha256(probs64.shape[0].to_bytes(8, "little"))
    if probs64.numel():
        # ctypes, not .numpy(): numpy is not a dependency of torch (see judge/learner/wire.py).
        view = (ctypes.c_char * (probs64.numel() * 8)).from_address(probs64.data_ptr())
        hasher.update(memoryview(view))
    return hasher.digest()


def _pure(counts: torch.Tensor, probs: torch.Tensor, min_expected: float) -> stats.GTestResult:
    """The pure core on the same input: it raises its ValueError (the reason this path is taken)."""
    return stats.g_test(counts.tolist(), probs.tolist(), min_expected)


def _group_ends(values: torch.Tensor, min_expected: float) -> list[int]:
    """The last position of each bin of :func:`judge.checks.stats.pool_bins` over ``values`` (float64,
    > 0, sorted ascending), a short trailing group already merged into the one before.

    The pure loop adds the sorted values one by one and closes a bin once its running sum reaches
    ``min_expected``. Here every possible start gets its candidate end at once, from prefix sums
    (one ``cumsum``, one ``searchsorted``); a candidate is taken only when the prefix sums clear
    ``min_expected`` by more than any rounding of theirs or of the loop's own running sum could
    cover. The others (ties that land a bin's sum on ``min_expected`` exactly, say) are settled by
    the pure loop itself, from that start. Only the chain of bins is followed in Python.
    """
    size = values.shape[0]
    if size == 0:
        return []
    # A value >= min_expected closes whatever bin is open (the sum only grows), and each one after
    # it is a bin of its own: only the bins up to the first such value need the running sums.
    first_large = int(torch.searchsorted(values, min_expected))
    head = values[: first_large + 1]
    length = head.shape[0]
    prefix = torch.cumsum(head, 0)
    before = torch.cat((prefix.new_zeros(1), prefix[:-1]))  # the prefix sum ahead of each start
    starts = torch.arange(length)
    candidate = torch.maximum(torch.searchsorted(prefix, before + min_expected), starts)
    # |prefix - exact| <= gamma * total for any summation order of <= 2 * length roundings; the
    # loop's own sum of k values is within gamma_k of exact: 8 gamma * total bounds both, and more.
    roundings = 2 * length + 2
    gamma = roundings * _UNIT_ROUNDOFF / (1.0 - roundings * _UNIT_ROUNDOFF)
    margin = 8.0 * gamma * float(prefix[-1]) + 4.0 * math.ulp(min_expected)
    closes = candidate < length
    at_end = prefix[candidate.clamp(max=length - 1)] - before
    short = torch.where(candidate > starts, prefix[(candidate - 1).clamp(min=0)] - before, torch.zeros_like(before))
    settled = (short < min_expected - margin) & torch.where(closes, at_end >= min_expected + margin, True)
    candidates = candidate.masked_fill(~settled, -1).tolist()  # -1: the pure loop decides
    numbers: list[float] | None = None  # the values as Python floats, for the pure loop, when needed

    ends: list[int] = []
    start = 0
    while start < length:
        end = candidates[start]
        if end >= length:
            end = None
        elif end < 0:
            if numbers is None:
                numbers = head.tolist()
            end = _loop_end(numbers, start, min_expected)
        if end is None:  # the rest never reaches min_expected: a trailing group
            break
        ends.append(end)
        start = end + 1
    if start < length:  # merged into the bin before it, or the only bin
        if ends:
            ends[-1] = length - 1
        else:
            ends.append(length - 1)
    ends.extend(range(length, size))
    return ends


def _loop_end(values: list[float], start: int, min_expected: float) -> int | None:
    """Where :func:`judge.checks.stats.pool_bins`'s loop closes a bin opened at ``start`` (None: never)."""
    running = 0.0
    for position in range(start, len(values)):
        running += values[position]
        if running >= min_expected:
            return position
    return None


def _pooled(expected: torch.Tensor, min_expected: float) -> tuple[torch.Tensor, torch.Tensor, int]:
    """(categories in pooling order, each one's bin, number of bins) for float64 ``expected [V]``."""
    positive = torch.nonzero(expected > 0).reshape(-1)
    values, order = torch.sort(expected[positive], stable=True)  # ties in category order, as sorted()
    members = positive[order]
    ends = _group_ends(values, min_expected)
    opens = torch.zeros(members.shape[0], dtype=torch.int64)
    opens[torch.tensor(ends[:-1], dtype=torch.int64) + 1] = 1  # a new bin starts after each end
    return members, torch.cumsum(opens, 0), len(ends)


def pool_bins(expected: torch.Tensor, min_expected: float = 10.0) -> list[list[int]]:
    """:func:`judge.checks.stats.pool_bins` on a floating ``[V]`` tensor of expected counts: the same
    groups, in the same order. Raises ValueError where the pure one does (its own message)."""
    values = expected.detach().to(device="cpu", dtype=torch.float64).contiguous()
    threshold = float(min_expected)
    if not (bool(torch.isfinite(values).all()) and bool((values >= 0).all()) and math.isfinite(threshold)) or not (
        threshold >= 0.0
    ):
        return stats.pool_bins(values.tolist(), threshold)
    members, bin_of, bins = _pooled(values, threshold)
    groups: list[list[int]] = [[] for _ in range(bins)]
    for category, group in zip(members.tolist(), bin_of.tolist(), strict=True):
        groups[group].append(category)
    return groups


def _build(probs64: torch.Tensor, total: float, n: int, min_expected: float) -> _Pooling:
    impossible = torch.nonzero(probs64 == 0).reshape(-1)
    each = probs64 * (n / total)  # the same products as stats.g_test's [scale * p for p in targets]
    positive = each > 0
    members, bin_of, bins = _pooled(each, min_expected) if n else (None, None, 0)
    group_of = torch.full((probs64.shape[0],), bins, dtype=torch.int64)
    pooled = torch.zeros(bins, dtype=torch.float64)
    if members is not None and bin_of is not None:
        group_of[members] = bin_of
        pooled.index_add_(0, bin_of, each[members])
    return _Pooling(
        bins=bins,
        each=each,
        positive=positive,
        excluded=~positive,
        any_positive=bool(positive.any()),
        group_of=group_of,
        expected=pooled,
        impossible=impossible if impossible.numel() else None,
        log_atom=stats.log_largest_outcome_probability(pooled.tolist()) if bins >= 2 else 0.0,
    )


def _deviance_terms(observed: torch.Tensor, expected: torch.Tensor) -> torch.Tensor:
    """``x log(x / m) + m - x`` per bin (float64, x >= 0, m > 0), as :func:`judge.checks.stats`'s
    ``_deviance_term``: a series in ``v = (x - m) / (x + m)`` where the closed form would cancel."""
    gap = observed - expected
    total = observed + expected
    v = gap / total
    v2 = v * v
    series = torch.pow(v2.unsqueeze(1), _SERIES_POWERS) @ _SERIES_COEFFICIENTS
    near = v * (gap + 2.0 * observed * v2 * series)  # (x - m) v + 2x (atanh v - v)
    far = torch.xlogy(observed, observed / expected) + expected - observed  # x = 0 gives m
    return torch.where(gap.abs() < 0.1 * total, near, far)


def g_test_counts(counts: torch.Tensor, probs: torch.Tensor, min_expected: float = 10.0) -> stats.GTestResult:
    """:func:`judge.checks.stats.g_test` of ``counts`` against ``probs``, computed in torch.

    ``counts``: an integer (or bool) ``[V]`` tensor, how often each category was drawn (from
    ``torch.bincount``); ``probs``: a real ``[V]`` tensor of target probabilities (any float
    dtype, compared as float64); any device. Returns what
    ``stats.g_test(counts.tolist(), probs.tolist(), min_expected)`` returns (see the module's
    docstring for what "the same" means). Raises TypeError unless both are 1-D tensors, and
    exactly the pure core's ValueError (same text) for every input it refuses: mismatched lengths,
    a negative count, a probability that is negative, NaN or infinite, probabilities that do not
    sum to 1, a bad ``min_expected``, a draw of a category of probability 0 (naming it).
    Fewer than ``PURE_BELOW`` categories are handed to the pure core, faster there. Thread-safe.
    """
    if (
        not (isinstance(counts, torch.Tensor) and isinstance(probs, torch.Tensor))
        or counts.dim() != 1
        or probs.dim() != 1
    ):
        raise TypeError("counts and probs must be 1-D tensors")
    if counts.shape[0] != probs.shape[0]:
        raise ValueError(f"observed has {counts.shape[0]} categories but probs has {probs.shape[0]}")
    if counts.shape[0] < PURE_BELOW:
        return stats.g_test(counts.tolist(), probs.tolist(), min_expected)
    try:
        threshold = float(min_expected)
    except (TypeError, ValueError):
        return stats.g_test(counts.tolist(), probs.tolist(), min_expected)  # raises what the core raises
    if counts.dtype not in _COUNT_DTYPES or probs.is_complex() or not (threshold >= 0.0 and math.isfinite(threshold)):
        return _pure(counts, probs, threshold)
    counts = counts.detach().to(device="cpu", dtype=torch.int64)
    size = counts.shape[0]
    if size:
        low, high = torch.aminmax(counts)
        if int(low) < 0 or int(high) > _EXACT_INTEGERS // size:
            return _pure(counts, probs, threshold)  # a negative count; or sums past exact floats
    n = int(counts.sum())
    probs64 = probs.detach().to(device="cpu", dtype=torch.float64).contiguous()
    if size and (probs64.is_neg() or probs64.data_ptr() == 0):
        # Values that are not what the memory holds (a negative view) or no memory at all (a zero
        # tensor): the key hashes memory, so hash a plain copy of the values.
        probs64 = torch.empty(size, dtype=torch.float64).copy_(probs64)
    key = (_digest(probs64), n, threshold)
    pooling = _CACHE.get(key)
    if pooling is None:
        valid = bool(torch.isfinite(probs64).all()) and bool((probs64 >= 0).all())
        # The exact sum, as stats.g_test renormalizes by it: once per target, not per grading.
        total = math.fsum(probs64.tolist()) if valid and math.isfinite(float(probs64.sum())) else math.nan
        if not abs(total - 1.0) <= stats.PROBABILITY_SUM_TOLERANCE:
            return _pure(counts, probs, threshold)
        pooling = _build(probs64, total, n, threshold)
        _CACHE.put(key, pooling)
    if pooling.impossible is not None and bool(counts.index_select(0, pooling.impossible).any()):
        return _pure(counts, probs, threshold)  # a draw of a category of probability 0
    if n == 0:
        return stats.GTestResult(0.0, 0, 1.0, 0, 0, 0.0, 1.0, None)

    bins = pooling.bins
    williams_q = 1.0 + (bins + 1) / (6.0 * n)
    counted = counts.to(torch.float64)  # exact: every count and sum is below 2**53
    deviation = _largest_deviation(counts, counted, pooling) if pooling.any_positive else None
    if bins < 2:
        return stats.GTestResult(0.0, 0, 1.0, n, bins, 0.0, williams_q, deviation)
    # Each bin's count, summed in int64 and then converted: exact, as every sum is below 2**53.
    observed = torch.zeros(bins + 1, dtype=torch.int64).index_add_(0, pooling.group_of, counts)[:bins].to(torch.float64)
    raw = 2.0 * float(_deviance_terms(observed, pooling.expected).sum())
    statistic = raw / williams_q
    df = bins - 1
    return stats.GTestResult(
        statistic=statistic,
        df=df,
        pvalue=tails.chi2_sf(statistic, df),
        n=n,
        bins=bins,
        raw_statistic=raw,
        williams_q=williams_q,
        largest_deviation=deviation,
        log_atom=pooling.log_atom,
    )


def _largest_deviation(counts: torch.Tensor, counted: torch.Tensor, pooling: _Pooling) -> stats.Deviation:
    """:func:`judge.checks.stats._largest_deviation`: the first category of largest ``(o - e)^2 / e`` over
    those expected > 0 (elementwise IEEE operations, as the pure loop does them: the same floats)."""
    gap = counted - pooling.each  # a fresh tensor: the in-place steps below are its own, the same IEEE ones
    squared = gap.mul_(gap).div_(pooling.each).masked_fill_(pooling.excluded, -1.0)
    category = int(torch.argmax(squared))  # the first of equal maxima, as the loop's strict ">"
    observed = int(counts[category])
    mean = float(pooling.each[category])
    return stats.Deviation(category=category, observed=observed, expected=mean, z=(observed - mean) / math.sqrt(mean))


def largest_gap(counts: torch.Tensor, probs: torch.Tensor) -> int:
    """The first category whose count is furthest, in draws, from ``n * probs`` (``n`` the
    counts' sum): ``max(range(V), key=lambda i: abs(counts[i] - n * probs[i]))`` on the lists,
    with the same floats. ``counts``: integer ``[V]`` (V >= 1); ``probs``: real ``[V]``."""
    n = int(counts.sum())
    gap = (counts.to(torch.float64) - probs.detach().to(torch.float64) * n).abs()
    return int(torch.argmax(gap))
