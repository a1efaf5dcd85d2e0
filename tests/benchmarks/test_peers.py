"""The peers' criteria of benchmarks/peers.py, pinned on tiny synthetic inputs: each passes a perfect
sampler's draws (exact frequencies, or draws from the target under a fixed seed) and fails a clearly
wrong one. No exercise is loaded, no solution run: seconds."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchmarks.peers import (
    PEERS,
    ExactCounts,
    SequenceCounts,
    anderson_darling_2,
    arena,
    flashinfer,
    pytorch,
    scaled,
    stochasticgrade,
    trtllm,
    vllm,
)

TARGET = np.array([0.4, 0.25, 0.15, 0.1, 0.06, 0.04, 0.0, 0.0])
# The target with its top token's mass moved to the next one, and with mass on a filtered-out token.
SHIFTED = np.array([0.3, 0.35, 0.15, 0.1, 0.06, 0.04, 0.0, 0.0])
LEAKING = np.array([0.38, 0.25, 0.15, 0.1, 0.06, 0.04, 0.02, 0.0])


class PerfectCounts:
    """A 'sampler' whose counts are the target's expected counts, rounded (largest remainders)."""

    def __init__(self, probs: np.ndarray) -> None:
        self.probs = probs

    def counts(self, start: int, stop: int) -> np.ndarray:
        n = stop - start
        raw = self.probs * n
        counts = np.floor(raw).astype(np.int64)
        order = np.argsort(-(raw - counts), kind="stable")
        counts[order[: n - counts.sum()]] += 1
        return counts


def drawn(probs: np.ndarray, seed: int = 0) -> ExactCounts:
    return ExactCounts(probs, np.random.default_rng(seed))


CRITERIA = [vllm, flashinfer, trtllm, pytorch, arena, stochasticgrade]


@pytest.mark.parametrize("criterion", CRITERIA, ids=lambda c: c.__name__)
def test_a_perfect_sampler_passes(criterion):
    # vLLM's ratio needs noise at its first size (exact counts at 10 draws leave a distance of ~0); the
    # others take the exact frequencies.
    source = drawn(TARGET, 1) if criterion is vllm else PerfectCounts(TARGET)
    assert criterion(source, TARGET, np.random.default_rng(2))


@pytest.mark.parametrize("criterion", CRITERIA, ids=lambda c: c.__name__)
def test_a_sampler_from_the_target_passes_under_a_fixed_seed(criterion):
    assert criterion(drawn(TARGET, 3), TARGET, np.random.default_rng(4))


@pytest.mark.parametrize("criterion", CRITERIA, ids=lambda c: c.__name__)
def test_a_shifted_sampler_fails(criterion):
    assert not criterion(drawn(SHIFTED, 5), TARGET, np.random.default_rng(6))


def test_flashinfer_fails_a_token_outside_the_kept_set_whatever_the_similarity():
    counts = PerfectCounts(TARGET).counts(0, 1_000_000)
    counts[6] += 1  # one draw of a filtered-out token
    source = SequenceCounts(np.repeat(np.arange(8), counts), 8)
    assert not flashinfer(source, TARGET, np.random.default_rng(0), size=int(counts.sum()))
    assert flashinfer(PerfectCounts(TARGET), TARGET, np.random.default_rng(0), size=int(counts.sum()))


def test_pytorch_renormalises_over_the_values_seen_so_a_dropped_token_passes():
    # The target without its last kept token, renormalised: what a sampler that drops it draws. The
    # pmf at the values seen is renormalised to 1 before the test, so the criterion cannot see it.
    dropped = TARGET.copy()
    dropped[5] = 0
    dropped /= dropped.sum()
    assert pytorch(PerfectCounts(dropped), TARGET, np.random.default_rng(0))
    # A token of target probability 0 drawn often goes to the remainder bucket, expected 0: p = 0.
    assert not pytorch(drawn(LEAKING, 1), TARGET, np.random.default_rng(0))


def test_trtllm_fails_an_unseen_token_of_positive_probability():
    unseen = TARGET.copy()
    unseen[5] = 0
    unseen /= unseen.sum()
    assert not trtllm(PerfectCounts(unseen), TARGET, np.random.default_rng(0))


def test_arena_looks_at_the_five_most_likely_tokens_only():
    # Mass moved between the two least likely tokens, outside the five words: ARENA cannot see it.
    seven = np.array([0.4, 0.2, 0.15, 0.1, 0.08, 0.05, 0.02])
    tail_swapped = np.array([0.4, 0.2, 0.15, 0.1, 0.08, 0.02, 0.05])
    assert arena(PerfectCounts(tail_swapped), seven, np.random.default_rng(0))
    head_swapped = np.array([0.4, 0.2, 0.15, 0.08, 0.1, 0.05, 0.02])
    assert not arena(PerfectCounts(head_swapped), seven, np.random.default_rng(0))


@pytest.mark.filterwarnings("ignore::UserWarning")  # scipy's notes on its p-value, which is not used
@pytest.mark.parametrize("sizes", [(40, 70), (500, 400), (3_000, 12_000)])
def test_anderson_darling_from_counts_is_scipys_statistic(sizes):
    rng = np.random.default_rng(sum(sizes))
    first = rng.choice(8, sizes[0], p=TARGET)
    second = rng.choice(8, sizes[1], p=SHIFTED)
    expected = stats.anderson_ksamp([first, second]).statistic
    ours = anderson_darling_2(np.bincount(first, minlength=8), np.bincount(second, minlength=8))
    assert ours == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_stochasticgrade_passes_two_samples_of_one_value():
    one_hot = np.array([0.0, 1.0, 0.0])
    assert stochasticgrade(PerfectCounts(one_hot), one_hot, np.random.default_rng(0))
    assert not stochasticgrade(PerfectCounts(np.array([0.0, 0.5, 0.5])), one_hot, np.random.default_rng(0))


def test_exact_counts_are_consistent_over_any_cuts():
    source = drawn(TARGET, 7)
    whole = source.counts(0, 1_000)
    parts = source.counts(0, 10) + source.counts(10, 400) + source.counts(400, 1_000)
    assert (parts == whole).all() and whole.sum() == 1_000
    assert source.counts(0, 10).sum() == 10 and (source.counts(2_000, 2_500) >= 0).all()


def test_schedules_scale_to_their_last_stage():
    assert scaled((10, 100, 1_000), None) == [10, 100, 1_000]
    assert scaled((400, 1_600, 6_400), 3_200) == [200, 800, 3_200]
    vllm_peer = next(p for p in PEERS if p.name == "vLLM")
    assert vllm_peer.needed(100_000) == 111_110
