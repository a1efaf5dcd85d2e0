#!/usr/bin/env python3
"""ProbJudge against its peers' criteria: how other projects' sampler tests fare on exercises 39 and 43.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/peers.py [--quick] [--runs R] [--catalogue-runs 5]
        [--file-runs 1] [--max-draws N] [--file-seconds 8] [--only 39|43] [--judge] [--detail]
        [--seed N] [--json PATH]

Six pass criteria that other projects use to test samplers, each rewritten from its public test code
(the source is in each function's docstring), are applied to ProbJudge's own catalogues:

* exercise 39 (temperature, top-k, top-p, min-p): the eight rows of the hidden suite's mixed batch
  (``cases.mixed_rows``: temperature only, top-k, top-p, min-p, all combined, a copy, a greedy row
  with tied maxima, ``-inf`` logits with a tie at the top-k cut); the target of a row is the exact
  distribution the oracle computes (``Batch.exact.probs``) and the sampled quantity ``sample``'s tokens;
* exercise 43 (speculative sampling): the first emitted token, which must follow the target p_0 (the
  statement explains why), in three contexts of the hidden suite: ``verify`` on the disagreeing and on
  the close context (drafts drawn by the harness from q), and ``speculative_step`` at temperature 1.5
  with top_k = 3 (target: the filtered p_0).

A peer that tests one distribution per call is applied to each row; it fails a solution when it fails
on any row, or when the solution raises on the peer's inputs (the peer's test would error).

What is measured, per peer and exercise, at the peer's own sample size and at ProbJudge's (exercise 39:
160 000 draws per kind of row, 160 draws from each of 1 000 copies; exercise 43: 3 000, 2 000 and
3 000 rows; schedules, vLLM's and StochasticGrade's, are scaled so that their last stage is that size):

* **false failures**: ``--runs`` runs (default 200, ``--quick`` 30) on counts drawn from the exact
  target (``numpy`` multinomial counts: the law of every correct solution, so the peers' full sizes,
  FlashInfer's 5 M included, cost nothing), failures/R and a one-sided 95 % Clopper-Pearson upper
  bound; and each correct file (reference and ``correct/``) run ``--file-runs`` times for real;
* **missed mistakes**: each file of ``wrong/`` (patches expanded against the reference) run up to
  ``--catalogue-runs`` times (default 5, stopping once every majority is decided); a mistake is
  caught when the criterion fails in a majority of its runs. The misses are split by kind: ``law``
  (a draw follows a wrong distribution on some valid input), ``dependence`` (each draw's law is
  right, the draws are not independent) and ``other`` (bad inputs accepted, inputs modified in place,
  the generator contract, crashes or wrong tokens at u = 0 or just below 1, the rate formulas and the
  output's structure in 43): a test that only looks at frequencies cannot see the last kind.

Call pattern. vLLM, FlashInfer, TensorRT-LLM, ARENA and StochasticGrade draw one token per call (a
batch of copies of the row, or a loop of calls); PyTorch draws ``n`` samples in one call. Drawing
one token per row of 39's row-by-row solutions costs ~40 us a row, so for 39 the one-draw peers get
ProbJudge's own layout (1 000 copies of each row, ``n / 1 000`` draws each; its columns
shuffled, then read column by column, so a draw's place in its copy does not matter)
and PyTorch one call with ``num_samples = n``. The ``num_samples = 1`` path is therefore not taken:
``single_draw_skips_filters`` and ``single_draw_ignores_generator`` are missed here by every peer
(a peer calling with one draw would see the first). In 43 every draw is its own row, as in the peers'
tests. The real runs draw at most ``--max-draws`` tokens per row (39: 409 600, StochasticGrade's last
stage; 43: 102 400, its fifth, as each draw is a row of ``verify``): the schedules and FlashInfer's
5 M run at that cap there (a row-by-row file gets fewer, ``--file-seconds``), in full on exact counts.
A criterion that fails correct samplers often also "catches" mistakes by chance: read the misses
together with the false failures.

ProbJudge's own figures: its false-failure bound (``exercise.false_failure_budget``, 1e-6 per
submission) and the catalogued mistakes it misses (0: ``make check`` rejects every wrong solution
with its diagnosis; ``--judge`` measures it here with ``check_exercise`` under one master seed, which
takes minutes).

Sizes: the default run takes about 4 minutes on 2 shared cores, ``--quick`` about 2 (figures and
what they mean: docs/benchmarks.md, "peers.py"). Exit 0 always (a report), unless something crashes.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import console, machine  # noqa: E402

# --------------------------------------------------------------------------------------------------
# Where the draws come from: counts of any stretch [start, stop) of a row's sequence of draws.


class SequenceCounts:
    """Counts of a real sequence of draws (token indices), any stretch of it."""

    def __init__(self, draws: np.ndarray, vocab: int) -> None:
        self.draws = draws
        self.vocab = vocab

    def __len__(self) -> int:
        return len(self.draws)

    def counts(self, start: int, stop: int) -> np.ndarray:
        if stop > len(self.draws):
            raise ValueError(f"{stop} draws asked, {len(self.draws)} drawn")
        return np.bincount(self.draws[start:stop], minlength=self.vocab).astype(np.int64)


class ExactCounts:
    """Counts of an endless sequence of independent draws from ``probs``, made lazily and exactly:
    a stretch past the end is a multinomial draw, a cut inside a stretch already counted splits its
    counts by a multivariate hypergeometric draw (the draws are exchangeable). No draw is made one
    by one, so 5 M draws cost what 10 do."""

    def __init__(self, probs: np.ndarray, rng: np.random.Generator) -> None:
        self.probs = np.asarray(probs, dtype=np.float64) / np.sum(probs)
        self.vocab = len(self.probs)
        self.rng = rng
        self.bounds = [0]
        self.blocks: list[np.ndarray] = []

    def __len__(self) -> int:
        return sys.maxsize

    def _cut(self, at: int) -> int:
        if at >= self.bounds[-1]:
            if at > self.bounds[-1]:
                self.blocks.append(self.rng.multinomial(at - self.bounds[-1], self.probs))
                self.bounds.append(at)
            return len(self.bounds) - 1
        i = bisect.bisect_left(self.bounds, at)
        if self.bounds[i] == at:
            return i
        i -= 1
        block = self.blocks[i]
        first = self.rng.multivariate_hypergeometric(block, at - self.bounds[i])
        self.blocks[i : i + 1] = [first, block - first]
        self.bounds.insert(i + 1, at)
        return i + 1

    def counts(self, start: int, stop: int) -> np.ndarray:
        i = self._cut(start)
        j = self._cut(stop)  # a cut after ``start`` leaves its index as it is
        total = np.zeros(self.vocab, dtype=np.int64)
        for block in self.blocks[i:j]:
            total += block
        return total


def scaled(sizes: tuple[int, ...], largest: int | None) -> list[int]:
    """A schedule with its last stage moved to ``largest`` and the others in proportion."""
    if largest is None or largest == sizes[-1]:
        return list(sizes)
    return [max(1, round(s * largest / sizes[-1])) for s in sizes]


def _normalised(values: np.ndarray) -> np.ndarray:
    return values / values.sum()


# --------------------------------------------------------------------------------------------------
# The peers' criteria. Each: criterion(src, target, rng, size=None) -> True when it passes.

VLLM_SIZES = (10, 100, 1_000, 10_000, 100_000)
VLLM_REFERENCES = 100
VLLM_MULTIPLIER = 20


def vllm(src, target: np.ndarray, rng: np.random.Generator, size: int | None = None) -> bool:
    """vLLM's ``test_rejection_sampling_approximates_target_distribution`` (vllm-project/vllm,
    tests/samplers/test_rejection_sampler.py for v0 and tests/v1/sample/test_rejection_sampler.py
    for v1): 100 reference pdfs softmax(rand(100, V)); at each of 10, 100, 1 000, 10 000 and 100 000
    fresh draws the empirical pdf f (a histogram with density=True), its distance to the target
    ``torch.dist(target, f)`` and to the references ``torch.dist(references, f) / 100`` (the L2
    norm of the broadcast [100, V] difference, divided by 100); passes when the distance to the
    target shrinks (first / last) more than 20 times as much as the distance to the references."""
    sizes = scaled(VLLM_SIZES, size)
    references = np.exp(rng.random((VLLM_REFERENCES, len(target))))
    references /= references.sum(axis=1, keepdims=True)
    to_target, to_references = [], []
    start = 0
    for n in sizes:
        pdf = src.counts(start, start + n) / n
        start += n
        to_target.append(np.linalg.norm(target - pdf))
        to_references.append(np.linalg.norm(references - pdf) / VLLM_REFERENCES)
    with np.errstate(divide="ignore", invalid="ignore"):
        target_ratio = np.float64(to_target[0]) / np.float64(to_target[-1])
        reference_ratio = np.float64(to_references[0]) / np.float64(to_references[-1])
    return bool(target_ratio > reference_ratio * VLLM_MULTIPLIER)


FLASHINFER_TRIALS = 5_000_000
FLASHINFER_SIMILARITY = 0.99


def flashinfer(src, target: np.ndarray, rng: np.random.Generator, size: int | None = None) -> bool:
    """FlashInfer's frequency tests (flashinfer-ai/flashinfer, tests/test_sampling.py, later
    tests/utils/test_sampling.py: ``test_top_k_sampling_freq``, ``test_top_p_sampling_freq``,
    ``test_sampling_freq``): 5 000 000 draws of one row, never a token outside the kept set (the
    mask check), and the cosine similarity of the frequencies with the renormalized target > 0.99."""
    n = size or FLASHINFER_TRIALS
    counts = src.counts(0, n)
    if counts[target == 0].any():
        return False
    freq = counts / n
    similarity = float(freq @ target) / max(float(np.linalg.norm(freq) * np.linalg.norm(target)), 1e-8)
    return similarity > FLASHINFER_SIMILARITY


TRTLLM_ITERATIONS = 50_000
TRTLLM_TOLERANCE = 0.01


def trtllm(src, target: np.ndarray, rng: np.random.Generator, size: int | None = None) -> bool:
    """TensorRT-LLM's ``test_get_rejected_indices`` (NVIDIA/TensorRT-LLM, a unit test under
    tests/unittest/_torch of ``tensorrt_llm._torch.pyexecutor.sampler.get_rejected_indices``; its file
    name was not found offline): 50 000 draws of the tested
    sampler and 50 000 of a plain ``torch.multinomial`` on the target; passes when
    |KL(p || f) - KL(p || f_plain)| < 0.01 (``scipy.stats.entropy`` of the densities: an unseen token
    of positive target probability makes a KL infinite, and inf - inf is NaN, a failure)."""
    n = size or TRTLLM_ITERATIONS
    tested = src.counts(0, n) / n
    plain = rng.multinomial(n, _normalised(target)) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = stats.entropy(target, tested) - stats.entropy(target, plain)
    return bool(abs(gap) < TRTLLM_TOLERANCE)


PYTORCH_SAMPLES = 10_000
PYTORCH_FAILURE_RATE = 1e-3


def pytorch(src, target: np.ndarray, rng: np.random.Generator, size: int | None = None) -> bool:
    """PyTorch's ``_check_sampler_discrete`` (pytorch/pytorch, test/distributions/
    test_distributions.py): 10 000 samples in one call; the target's pmf at the values seen,
    renormalized over them; the values seen more than 5 times *and* expected more than 5 times must
    hold more than 0.9 of that pmf (else "too sparse", a failure), the others are pooled into one
    remainder bucket; passes when the chi-square p-value exceeds failure_rate = 1e-3."""
    n = size or PYTORCH_SAMPLES
    counts = src.counts(0, n)
    seen = counts > 0
    observed = counts[seen].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmf = target[seen] / target[seen].sum()
    mask = (observed > 5) & (pmf * n > 5)
    if not pmf[mask].sum() > 0.9:
        return False
    if not mask.all():
        observed = np.concatenate([observed[mask], [observed[~mask].sum()]])
        pmf = np.concatenate([pmf[mask], [pmf[~mask].sum()]])
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            p_value = stats.chisquare(observed, pmf * n).pvalue
    except ValueError:  # scipy refuses sums that disagree: the assertion would not be reached
        return False
    return bool(p_value > PYTORCH_FAILURE_RATE)


ARENA_DRAWS = 10_000
ARENA_TOLERANCE = 0.01
ARENA_WORDS = 5


def arena(src, target: np.ndarray, rng: np.random.Generator, size: int | None = None) -> bool:
    """ARENA's sampling exercises (callummcdougall/ARENA_3.0, chapter1_transformer_interp, the
    "Sampling from a transformer" exercises and solutions, the basic-sampling test after
    ``TransformerSampler.sample_next_token``): 10 000 calls of one draw, and for each of the 5 most
    likely tokens |observed freq - expected| < 0.01 (their expected values are the model's
    probabilities rounded to 4 decimals; ours are exact)."""
    n = size or ARENA_DRAWS
    freq = src.counts(0, n) / n
    top = np.argsort(-target, kind="stable")[:ARENA_WORDS]
    top = top[target[top] > 0]
    return bool(np.all(np.abs(freq[top] - target[top]) < ARENA_TOLERANCE))


SG_SIZES = (400, 1_600, 6_400, 25_600, 102_400, 409_600)
SG_FRR = 0.01
SG_SOLUTION_SAMPLES = 500_000
# StochasticGrade's AndersonDarlingScorer.rejection_threshold: the critical value of the
# standardized k-sample Anderson-Darling statistic at each stage's false-rejection rate.
SG_CRITICAL = {
    0.00015625: 7.695,
    0.0003125: 7.054,
    0.000625: 6.405,
    0.00125: 5.760,
    0.0025: 5.124,
    0.005: 4.497,
    0.01: 3.878,
}


def anderson_darling_2(first: np.ndarray, second: np.ndarray) -> float:
    """The standardized two-sample Anderson-Darling statistic of two samples of tokens given as counts
    per token, the midrank version for ties (Scholz & Stephens 1987, eq. 7 and 3.3; what
    ``scipy.stats.anderson_ksamp`` returns as ``statistic``), in O(V). NaN with one distinct value."""
    samples = [np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)]
    combined = samples[0] + samples[1]
    present = combined > 0
    if present.sum() < 2:
        return math.nan
    sizes = np.array([s.sum() for s in samples])
    total = sizes.sum()
    ties = combined[present]
    below = np.cumsum(combined)[present] - ties  # combined draws strictly below each value
    b = below + ties / 2.0
    a2 = 0.0
    for sample, n_i in zip(samples, sizes, strict=True):
        f = sample[present]
        m = np.cumsum(sample)[present] - f + f / 2.0
        inner = ties / total * (total * m - b * n_i) ** 2 / (b * (total - b) - total * ties / 4.0)
        a2 += inner.sum() / n_i
    a2 *= (total - 1.0) / total
    k = 2
    h_big = (1.0 / sizes).sum()
    h, g = _harmonic_terms(int(total))
    a = (4 * g - 6) * (k - 1) + (10 - 6 * g) * h_big
    bb = (2 * g - 4) * k**2 + 8 * h * k + (2 * g - 14 * h - 4) * h_big - 8 * h + 4 * g - 6
    c = (6 * h + 2 * g - 2) * k**2 + (4 * h - 4 * g + 6) * k + (2 * h - 6) * h_big + 4 * h
    d = (2 * h + 6) * k**2 - 4 * h * k
    n = float(total)
    sigma2 = (a * n**3 + bb * n**2 + c * n + d) / ((n - 1.0) * (n - 2.0) * (n - 3.0))
    return float((a2 - (k - 1)) / math.sqrt(sigma2))


_HARMONIC: dict[int, tuple[float, float]] = {}


def _harmonic_terms(total: int) -> tuple[float, float]:
    """h = sum_{i<N} 1/i and g = sum_{i<N-1} sum_{j>i} 1/((N-i) j) of the AD variance, cached per N."""
    if total not in _HARMONIC:
        tail = np.cumsum(1.0 / np.arange(total - 1, 1, -1))
        _HARMONIC[total] = (float(tail[-1] + 1), float((tail / np.arange(2, total)).sum()))
    return _HARMONIC[total]


def stochasticgrade(src, target: np.ndarray, rng: np.random.Generator, size: int | None = None) -> bool:
    """StochasticGrade ("StochasticGrade: a fast and accurate framework for assessing stochastic
    programs", 2024; yunsungkim0908/stochasticgrade, stochasticgrade/grade.py and
    score.py, config_template.ini): 500 000 samples of the solution; the learner's program sampled on
    the schedule 400, 1 600, 6 400, 25 600, 102 400, 409 600 (each stage extends the last); at stage i
    of L the Anderson-Darling k-sample statistic (``scipy.stats.anderson_ksamp``, tokens as numbers)
    against the solution's samples, rejected at the critical value of false-rejection rate
    0.01 / 2^(L - i) (the stages' rates add up to below 0.01). Our statistic is computed from counts
    (:func:`anderson_darling_2`, checked against scipy in the tests); when both samples hold one
    value only (a greedy row), scipy refuses and we count the stage as passed."""
    sizes = scaled(SG_SIZES, size)
    solution = rng.multinomial(SG_SOLUTION_SAMPLES, _normalised(target))
    for stage, n in enumerate(sizes):
        frr = SG_FRR / 2 ** (len(sizes) - stage) if len(sizes) > 1 else SG_FRR
        score = anderson_darling_2(solution, src.counts(0, n))
        if not math.isnan(score) and score >= SG_CRITICAL[round(frr, 12)]:
            return False
    return True


@dataclass(frozen=True)
class Peer:
    name: str
    source: str
    criterion: Callable[..., bool]
    own: int  # draws per row the peer's own test uses (the last stage for a schedule)
    columns: bool = False  # draws n samples in one call (else one draw per call)
    schedule: bool = False
    skip_one_hot: bool = False  # its formula is 0/0 on a one-hot target: not applied to such a row

    def needed(self, size: int) -> int:
        """Draws of one row's sequence the criterion reads at ``size``."""
        if self.name == "vLLM":
            return sum(scaled(VLLM_SIZES, size))
        return size


PEERS = [
    Peer("vLLM", "tests/samplers/test_rejection_sampler.py", vllm, 100_000, schedule=True, skip_one_hot=True),
    Peer("FlashInfer", "tests/test_sampling.py (freq tests)", flashinfer, FLASHINFER_TRIALS),
    Peer("TensorRT-LLM", "test_get_rejected_indices", trtllm, TRTLLM_ITERATIONS),
    Peer("PyTorch", "_check_sampler_discrete", pytorch, PYTORCH_SAMPLES, columns=True, skip_one_hot=True),
    Peer("ARENA", "ARENA_3.0 ch. 1 sampling tests", arena, ARENA_DRAWS),
    Peer("StochasticGrade", "stochasticgrade/grade.py (AD)", stochasticgrade, SG_SIZES[-1], schedule=True),
]
SIZES = ("own", "probjudge")


# --------------------------------------------------------------------------------------------------
# The exercises: targets, how a solution is drawn from, and the kinds of the catalogued mistakes.

LAW, DEPENDENCE, OTHER = "law", "dependence", "other"
KINDS_39 = {
    LAW: {
        "filters_reordered",
        "min_p_absolute",
        "min_p_first",
        "min_p_softmax_max",
        "no_filtering",
        "no_greedy",
        "row0_parameters",
        "single_draw_skips_filters",
        "smoothed_probs",
        "temperature_after_filters",
        "temperature_after_softmax",
        "temperature_multiplied",
        "top_k_drops_ties",
        "top_k_max_for_all_rows",
        "top_k_one_ignored",
        "top_k_plus_one",
        "top_p_drops_crossing",
        "top_p_mask_unsorted",
        "top_p_one_cuts",
        "top_p_one_extra",
        "top_p_unsorted",
    },
    DEPENDENCE: {
        "antithetic_half_apart",
        "antithetic_pairs",
        "repeated_draws",
        "shared_uniform",
        "sorted_draws",
        "too_regular",
    },
}
KINDS_43 = {
    LAW: {
        "accept_without_uniform",
        "bonus_from_q",
        "bonus_previous_p",
        "continues_after_rejection",
        "draft_uniform_reused",
        "no_bonus",
        "ratio_inverted",
        "ratio_over_max",
        "resample_from_p",
        "residual_abs",
        "residual_swapped",
        "residual_unnormalised",
        "residual_wrong_position",
        "step_unfiltered_p",
        "step_unfiltered_q",
        "temperature_multiplied",
        "ties_after_division",
        "topk_exact_k",
        "topk_k_plus_one",
        "topk_not_renormalised",
        "topk_strict",
        "topk_target_only",
    },
    DEPENDENCE: {"positions_share_uniform", "rows_antithetic", "rows_share_uniforms"},
}


def kind_of(kinds: dict[str, set[str]], name: str) -> str:
    for kind, names in kinds.items():
        if name in names:
            return kind
    return OTHER


@dataclass
class Target:
    label: str
    probs: np.ndarray  # float64 [V]
    probjudge: int  # ProbJudge's draws of this row


class Exercise39:
    number = "39"
    kinds = KINDS_39
    max_draws = 409_600  # StochasticGrade's last stage; FlashInfer's 5 M only on exact counts
    copies = 1_000  # ProbJudge's layout for the one-draw peers: copies of each row, n / copies draws each

    def __init__(self) -> None:
        from judge.exercises.exercise import resolve
        from judge.exercises.suites import load_suite, suites_module

        self.exercise = resolve("39")
        load_suite(self.exercise, "hidden")
        cases = suites_module(self.exercise, "hidden.cases")
        hidden = suites_module(self.exercise, "hidden.hidden")
        self.batch = cases.mixed_rows()
        probjudge = hidden.MIXED_DRAWS * cases.MIXED_COPIES
        self.targets = [
            Target(str(label), self.batch.exact.probs[i].double().numpy(), probjudge)
            for i, label in enumerate(self.batch.labels)
        ]

    def draw(self, module, length: int, columns: bool, generator: torch.Generator) -> list[SequenceCounts]:
        """Each row's sequence of ``length`` draws: one call with ``num_samples=length`` (``columns``),
        or ProbJudge's layout (copies x length / copies), columns shuffled, read column by column."""
        rows = len(self.targets)
        params = self.batch.param_tensors()
        if columns:
            draws = module.sample(self.batch.logits.clone(), num_samples=length, generator=generator, **params)
            per_row = [draws[r] for r in range(rows)]
        else:
            width = math.ceil(length / self.copies)
            index = torch.arange(rows).repeat_interleave(self.copies)
            draws = module.sample(
                self.batch.logits[index].clone(),
                num_samples=width,
                generator=generator,
                **{k: v[index].clone() for k, v in params.items()},
            )
            # The columns in a random order (one order for every copy), then read column by column: a
            # draw's place in its copy, which a peer drawing one token per call never sees, cannot bias
            # a prefix (sorted draws), and copies that draw alike (shared uniforms) still do.
            shuffle = torch.Generator().manual_seed(int(torch.randint(2**62, (1,), generator=generator)))
            draws = draws[:, torch.randperm(width, generator=shuffle)]
            per_row = [draws[r * self.copies : (r + 1) * self.copies].T.reshape(-1)[:length] for r in range(rows)]
        vocab = self.batch.logits.shape[1]
        return [SequenceCounts(_checked(d, vocab), vocab) for d in per_row]


class Exercise43:
    number = "43"
    kinds = KINDS_43
    max_draws = 102_400  # one verify row per draw: StochasticGrade's fifth stage (its sixth would quadruple it)

    def __init__(self) -> None:
        from judge.exercises.exercise import resolve
        from judge.exercises.suites import load_suite, suites_module

        self.exercise = resolve("43")
        load_suite(self.exercise, "hidden")
        cases = suites_module(self.exercise, "hidden.cases")
        hidden = suites_module(self.exercise, "hidden.hidden")
        self.contexts = [
            (
                "verify",
                "verify, disagreeing draft (K=3, V=6)",
                cases.DISAGREE_P,
                cases.DISAGREE_Q,
                hidden.DISAGREE_ROWS,
            ),
            ("verify", "verify, close draft (K=3, V=6)", cases.CLOSE_P, cases.CLOSE_Q, hidden.CLOSE_ROWS),
            (
                "step",
                "speculative_step, T=1.5, top_k=3 (K=2, V=6)",
                cases.STEP_TARGET,
                cases.STEP_DRAFT,
                hidden.STEP_ROWS,
            ),
        ]
        self.step_options = (cases.STEP_TEMPERATURE, cases.STEP_TOP_K)
        reference = _import(self.exercise.reference_path)
        self.targets = []
        for kind, label, p, _q, rows in self.contexts:
            if kind == "verify":
                first = torch.tensor(p[0], dtype=torch.float64)
            else:
                temperature, top_k = self.step_options
                first = reference.filtered_probs(torch.tensor(p[0], dtype=torch.float64), temperature, top_k)
            self.targets.append(Target(label, (first / first.sum()).numpy(), rows))

    def draw(self, module, length: int, columns: bool, generator: torch.Generator) -> list[SequenceCounts]:
        """The first emitted token of ``length`` rows per context (every draw is its own row)."""
        out = []
        for kind, _label, p, q, _rows in self.contexts:
            if kind == "verify":
                ps = torch.tensor(p, dtype=torch.float64).unsqueeze(0).repeat(length, 1, 1)
                qs = torch.tensor(q, dtype=torch.float64).unsqueeze(0).repeat(length, 1, 1)
                drafts = torch.stack(
                    [
                        torch.multinomial(qs[:, i], 1, replacement=True, generator=generator)[:, 0]
                        for i in range(len(q))
                    ],
                    dim=1,
                )
                tokens, _ = module.verify(ps, qs, drafts, generator=generator)
            else:
                temperature, top_k = self.step_options
                target = torch.tensor(p, dtype=torch.float32).unsqueeze(0).repeat(length, 1, 1)
                draft = torch.tensor(q, dtype=torch.float32).unsqueeze(0).repeat(length, 1, 1)
                tokens, _, _ = module.speculative_step(target, draft, temperature, top_k, generator=generator)
            vocab = len(p[0])
            out.append(SequenceCounts(_checked(tokens[:, 0], vocab), vocab))
        return out


def _checked(draws: torch.Tensor, vocab: int) -> np.ndarray:
    """Draws as int64 numpy; a token outside [0, V) is an error (the peer's bincount would fail)."""
    array = draws.detach().cpu().numpy().astype(np.int64)
    if array.size and (array.min() < 0 or array.max() >= vocab):
        raise ValueError("a token outside the vocabulary")
    return array


def _import(path: Path):
    from judge.exercises.suites import import_solution

    return import_solution(path)


def solution_files(exercise) -> tuple[list[tuple[str, Path]], list[tuple[str, Path]]]:
    """(correct, wrong): name and path to import (patches expanded against the reference)."""
    from judge.exercises.patches import PATCH_SUFFIX, expanded_path

    folder = ROOT / "solutions" / exercise.exercise.folder
    reference = exercise.exercise.reference_path
    correct = [("reference", reference)] + [(p.stem, p) for p in sorted((folder / "correct").glob("*.py"))]
    wrong = []
    for path in sorted((folder / "wrong").iterdir()):
        if path.suffix == PATCH_SUFFIX:
            wrong.append((path.stem, expanded_path(path, reference)))
        elif path.suffix == ".py":
            wrong.append((path.stem, path))
    return correct, wrong


# --------------------------------------------------------------------------------------------------
# Running the criteria.


def sizes_for(peer: Peer, target: Target) -> dict[str, int]:
    return {"own": peer.own, "probjudge": target.probjudge}


def one_hot(probs: np.ndarray) -> bool:
    return int((probs > 0).sum()) == 1


def judge_sources(peer: Peer, sources, targets: list[Target], size_name: str, rng, cap: int | None) -> bool:
    """Does ``peer`` pass on every row? ``cap`` limits the size to the draws there are."""
    for src, target in zip(sources, targets, strict=True):
        if peer.skip_one_hot and one_hot(target.probs):
            continue
        size = sizes_for(peer, target)[size_name]
        if cap is not None and peer.needed(size) > cap:
            size = _largest_within(peer, cap)
        try:
            if not peer.criterion(src, target.probs, rng, size):
                return False
        except (ValueError, ZeroDivisionError, FloatingPointError):
            return False
    return True


def _largest_within(peer: Peer, cap: int) -> int:
    size = cap
    while peer.needed(size) > cap:
        size = int(size * cap / peer.needed(size))
    return size


def clopper_pearson_upper(failures: int, runs: int, confidence: float = 0.95) -> float:
    if failures >= runs:
        return 1.0
    return float(stats.beta.ppf(confidence, failures + 1, runs - failures))


def false_failures(exercise, runs: int, seed: int) -> dict:
    """Each peer at both sizes, ``runs`` runs on exact counts from the targets."""
    out = {}
    for p_index, peer in enumerate(PEERS):
        for size_name in SIZES:
            failures = 0
            for run in range(runs):
                rng = np.random.default_rng([seed, p_index, SIZES.index(size_name), run])
                sources = [ExactCounts(t.probs, rng) for t in exercise.targets]
                failures += not judge_sources(peer, sources, exercise.targets, size_name, rng, None)
            out[(peer.name, size_name)] = failures
    return out


def draw_lengths(exercise, cap: int) -> tuple[int, int]:
    """Draws per row for the one-draw peers and for the n-in-one-call peers (both sizes)."""
    calls, columns = 0, 0
    for peer in PEERS:
        for target in exercise.targets:
            for size in sizes_for(peer, target).values():
                need = min(peer.needed(size), cap)
                if peer.columns:
                    columns = max(columns, need)
                else:
                    calls = max(calls, need)
    return calls, columns


def run_solution(exercise, module, seed: int, cap: int) -> dict[tuple[str, str], bool]:
    """One run of every peer at both sizes on real draws of ``module``: (peer, size) -> passed. The
    one-draw peers share one draw of the longest length they need; a peer drawing n in one call gets
    a call of exactly n per size (a prefix of a longer call would see the order of its draws)."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    calls, _ = draw_lengths(exercise, cap)
    results: dict[tuple[str, str], bool] = {}
    drawn: dict[tuple[bool, int], list | None] = {}
    for peer in PEERS:
        mode = peer.columns and exercise.number == "39"
        for size_name in SIZES:
            if mode:
                length = max(min(peer.needed(sizes_for(peer, t)[size_name]), cap) for t in exercise.targets)
            else:
                length = calls
            if (mode, length) not in drawn:
                try:
                    drawn[(mode, length)] = exercise.draw(module, length, mode, generator)
                except Exception:  # noqa: BLE001 - any error of the solution fails the peer's test
                    drawn[(mode, length)] = None
            sources = drawn[(mode, length)]
            results[(peer.name, size_name)] = sources is not None and judge_sources(
                peer, sources, exercise.targets, size_name, rng, cap
            )
    return results


def speed_cap(exercise, module, cap: int, seconds: float) -> int:
    """``cap``, lowered for a slow file (row-by-row loops) so that one run takes about ``seconds``:
    timed on a draw of cap / 16 per row (never below the draws ProbJudge's size needs)."""
    probe = max(cap // 16, 1_000)
    started = time.monotonic()
    try:
        exercise.draw(module, probe, False, torch.Generator().manual_seed(0))
    except Exception:  # noqa: BLE001 - the real run will meet the same error
        return cap
    estimate = (time.monotonic() - started) * cap / probe
    if estimate <= seconds:
        return cap
    floor = max(peer.needed(t.probjudge) for peer in PEERS for t in exercise.targets)
    return max(int(cap * seconds / estimate), min(floor, cap))


def catalogue(exercise, files, seed: int, cap: int, max_runs: int, majority: bool, seconds: float) -> list[dict]:
    """Each file run until every (peer, size) majority of ``max_runs`` is decided (or all runs)."""
    rows = []
    need = max_runs // 2 + 1
    file_cap = cap
    for f_index, (name, path) in enumerate(files):
        started = time.monotonic()
        try:
            module = _import(path)
            file_cap = speed_cap(exercise, module, cap, seconds)
        except Exception:  # noqa: BLE001
            module = None
        caught = {(peer.name, s): 0 for peer in PEERS for s in SIZES}
        runs = 0
        for run in range(max_runs):
            if module is None:
                result = {key: False for key in caught}
            else:
                result = run_solution(exercise, module, seed + 1_000 * f_index + run, file_cap)
            runs += 1
            for key, passed in result.items():
                caught[key] += not passed
            if majority and all(c >= need or runs - c >= need for c in caught.values()):
                break
        rows.append(
            {
                "solution": name,
                "kind": kind_of(exercise.kinds, name),
                "runs": runs,
                "draws_per_row": file_cap,
                "caught": {f"{p}/{s}": c for (p, s), c in caught.items()},
                "seconds": round(time.monotonic() - started, 2),
            }
        )
    return rows


def probjudge_figures(exercise, measure: bool) -> dict:
    budget = exercise.exercise.false_failure_budget
    if not measure:
        return {"false_failure_bound": budget, "missed": 0, "measured": False}
    from benchmarks.power_kit import NOT_SOLUTIONS
    from judge.authoring.catalogue import check_exercise

    outcomes = [o for o in check_exercise(exercise.exercise, seeds=1) if o.solution not in NOT_SOLUTIONS]
    wrong = [o for o in outcomes if o.expectation.startswith("rejected")]
    return {
        "false_failure_bound": budget,
        "missed": sum(1 for o in wrong if o.report.verdict.value == "AC"),
        "not_as_promised": [o.solution for o in outcomes if not o.ok],
        "measured": True,
    }


# --------------------------------------------------------------------------------------------------
# Report.


def summarise(exercise, ffr: dict, runs: int, files_ok: list[dict], wrong: list[dict], pj: dict) -> list[dict]:
    table = []
    total = {kind: sum(1 for w in wrong if w["kind"] == kind) for kind in (LAW, DEPENDENCE, OTHER)}
    for peer in PEERS:
        entry: dict = {"peer": peer.name, "source": peer.source}
        for size_name in SIZES:
            key = f"{peer.name}/{size_name}"
            fails = ffr[(peer.name, size_name)]
            missed = {
                kind: sum(1 for w in wrong if w["kind"] == kind and 2 * w["caught"][key] <= w["runs"]) for kind in total
            }
            file_fails = sum(f["caught"][key] for f in files_ok)
            file_runs = sum(f["runs"] for f in files_ok)
            entry[size_name] = {
                "false_failures": fails,
                "runs": runs,
                "upper95": clopper_pearson_upper(fails, runs),
                "missed": missed,
                "missed_total": sum(missed.values()),
                "mistakes": len(wrong),
                "mistakes_by_kind": total,
                "correct_files_failed": file_fails,
                "correct_file_runs": file_runs,
                "missed_names": [w["solution"] for w in wrong if 2 * w["caught"][key] <= w["runs"]],
            }
        table.append(entry)
    table.append(
        {
            "peer": "ProbJudge",
            "source": "public + hidden suites",
            "false_failure_bound": pj["false_failure_bound"],
            "missed_total": pj["missed"],
            "mistakes": len(wrong),
            "measured": pj["measured"],
            "not_as_promised": pj.get("not_as_promised", []),
        }
    )
    return table


def print_table(out, exercise, table: list[dict], cap: int) -> None:
    from rich.table import Table

    t = Table(title=f"exercise {exercise.number}: the peers' criteria on ProbJudge's catalogue")
    for column in (
        "peer",
        "size",
        "false failures (95% upper)",
        "correct files failed",
        "missed",
        "law",
        "dep.",
        "other",
    ):
        t.add_column(column, justify="left" if column in ("peer", "size") else "right")
    for entry in table:
        if entry["peer"] == "ProbJudge":
            how = "check, 1 seed" if entry["measured"] else "make check (documented)"
            t.add_row(
                "ProbJudge",
                "suite",
                f"bound {entry['false_failure_bound']:g}",
                "0",
                f"{entry['missed_total']}/{entry['mistakes']}",
                "0",
                "0",
                "0",
                end_section=True,
            )
            t.caption = f"ProbJudge's misses: {how}"
            continue
        for size_name in SIZES:
            e = entry[size_name]
            by = e["mistakes_by_kind"]
            t.add_row(
                entry["peer"] if size_name == "own" else "",
                "own" if size_name == "own" else "ProbJudge's",
                f"{e['false_failures']}/{e['runs']} ({e['upper95']:.3f})",
                f"{e['correct_files_failed']}/{e['correct_file_runs']}",
                f"{e['missed_total']}/{e['mistakes']}",
                f"{e['missed'][LAW]}/{by[LAW]}",
                f"{e['missed'][DEPENDENCE]}/{by[DEPENDENCE]}",
                f"{e['missed'][OTHER]}/{by[OTHER]}",
                end_section=size_name == "probjudge",
            )
    out.print(t)
    sizes = ", ".join(f"{t.label}: {t.probjudge}" for t in exercise.targets[:1])
    out.print(
        f"rows: {len(exercise.targets)}; ProbJudge's draws per row ({sizes}, ...); real runs capped at "
        f"{cap} draws per row (FlashInfer's 5 M in full only on exact counts)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="30 false-failure runs, 3 catalogue runs")
    parser.add_argument("--runs", type=int, default=None, help="false-failure runs on exact counts (200)")
    parser.add_argument("--catalogue-runs", type=int, default=None, help="runs per wrong solution (5; a majority)")
    parser.add_argument("--file-runs", type=int, default=1, help="real runs of each correct file (1)")
    parser.add_argument(
        "--max-draws", type=int, default=None, help="draws per row in real runs (39: 409 600, 43: 102 400)"
    )
    parser.add_argument(
        "--file-seconds",
        type=float,
        default=8.0,
        help="a slower file gets fewer draws so that one run takes about this long",
    )
    parser.add_argument("--only", choices=("39", "43"), default=None)
    parser.add_argument("--judge", action="store_true", help="measure ProbJudge's misses with check_exercise")
    parser.add_argument("--detail", action="store_true", help="print each wrong solution's catches")
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    runs = args.runs or (30 if args.quick else 200)
    catalogue_runs = args.catalogue_runs or (3 if args.quick else 5)
    torch.set_num_threads(1)
    out = console()
    report: dict = {
        "machine": machine(),
        "runs": runs,
        "catalogue_runs": catalogue_runs,
        "max_draws": args.max_draws,
        "seed": args.seed,
        "exercises": {},
    }
    started = time.monotonic()
    for cls in (Exercise39, Exercise43):
        if args.only and cls.number != args.only:
            continue
        t0 = time.monotonic()
        exercise = cls()
        cap = args.max_draws or exercise.max_draws
        correct, wrong = solution_files(exercise)
        ffr = false_failures(exercise, runs, args.seed)
        t1 = time.monotonic()
        files_ok = catalogue(
            exercise, correct, args.seed + 7, cap, args.file_runs, majority=False, seconds=args.file_seconds
        )
        t2 = time.monotonic()
        wrong_rows = catalogue(
            exercise, wrong, args.seed + 11, cap, catalogue_runs, majority=True, seconds=args.file_seconds
        )
        t3 = time.monotonic()
        pj = probjudge_figures(exercise, args.judge)
        table = summarise(exercise, ffr, runs, files_ok, wrong_rows, pj)
        print_table(out, exercise, table, cap)
        slow = [f"{f['solution']} ({f['draws_per_row']})" for f in files_ok + wrong_rows if f["draws_per_row"] < cap]
        if slow:
            out.print("slow files, fewer draws per row: " + ", ".join(slow))
        out.print(
            f"exercise {exercise.number}: exact-count runs {t1 - t0:.0f} s, correct files {t2 - t1:.0f} s, "
            f"catalogue {t3 - t2:.0f} s"
        )
        if args.detail:
            for w in wrong_rows:
                caught = " ".join(
                    f"{k.replace('/probjudge', '@PJ').replace('/own', '')}={v}" for k, v in w["caught"].items()
                )
                out.print(f"  {w['solution']:34} {w['kind']:10} {w['runs']} runs: {caught}")
        report["exercises"][exercise.number] = {
            "targets": [
                {"label": t.label, "probs": t.probs.tolist(), "probjudge_draws": t.probjudge} for t in exercise.targets
            ],
            "table": table,
            "correct_files": files_ok,
            "wrong": wrong_rows,
            "seconds": round(t3 - t0, 1),
        }
    report["seconds"] = round(time.monotonic() - started, 1)
    out.print(f"total {report['seconds']:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
