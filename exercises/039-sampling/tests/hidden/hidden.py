"""Hidden tests of exercise 39. Never shown to learners; run in the judge's process only.

Deterministic checks of ``sampling_probs`` against the exact float64 target come first (frozen rows,
then rows generated under the case's seed: ``generated.py``), each with its exact zeros and its tiny
positive values; then the draws of ``sample``: hard checks (shape, range, support, greedy), the
generator contract (the seed decides, the generator advances, torch's global generator is left alone,
rows wherever they stand), a phase with extreme uniform values and every draw site pushed to each
extreme in turn; then goodness of fit per row, independence within a row (at three distances) and
across rows, single draws (``num_samples=1``); last, bad inputs, listed and generated from the
contract (``specs.py``), and the legal corners the contract allows. Cheap decisive evidence comes
before the large samples because a run stops at the first case that names a mistake
(judge/engine/settling.py); the large samples are drawn in stages (judge/checks/sequential.py).
Every call also checks that the learner's function left its input tensors as they were. A mistake is
named only on evidence of the whole failing call (``naming.py``).
"""

from __future__ import annotations

import math
import random

import torch

from judge.checks.arguments import expect_contract_accepts
from judge.checks.base import CheckFailed, diagnosed, fail, row_title, rule
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import (
    best_alternative,
    expect_distribution,
    expect_support,
    expect_tokens_in_range,
    explaining_alternatives,
)
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import (
    DEFAULT_GENERATOR_DIAGNOSIS,
    DEFAULT_RESEEDED_DIAGNOSIS,
    RESEEDED_DIAGNOSIS,
    SEEDS_DIAGNOSIS,
    expect_generator_contract,
    generator_contract_budget,
)
from judge.checks.independence import (
    ROWS_SHARE_DIAGNOSIS,
    SORTED_DIAGNOSIS,
    expect_independent_across_rows,
    expect_independent_rows,
    expect_independent_within_row,
)
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.checks.sequential import staged
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

from . import cases, generated, specs
from .naming import collision, differs, explains_every_row, whole_output_mistakes
from .oracle import MISTAKES

# The generator contract twice: 400 draws of four mixed rows (rows 1 and 3 are twins; one fit per row
# with the rows in another order) and one draw from each of 1 000 rows (the call a decoder makes).
CONTRACT = generator_contract_budget(cases.contract_rows().exact.probs, positions=True, twins=(1, 3))
SINGLE_CONTRACT = generator_contract_budget(cases.single_draw_seed_rows().exact.probs)
# Goodness of fit: mixed 7 (row 6 is greedy), zipf 3, real model logits 8, float64 2, scalar 2,
# top-k edges 3 (row 1 has one token left), single draws 4 (kind 2 is greedy), generated 2. Pairs:
# within mixed rows 0 and 2 (three distances each), across mixed rows 0 and 1. Independence: mixed
# rows 2 and 5.
BUDGET = BudgetDeclaration(fit=31, pairs=3, independence=1) + CONTRACT + SINGLE_CONTRACT

# 160 draws from each of 1 000 copies of a row, 160 000 per kind of row: moving 0.01 of probability
# between a row's two most likely tokens is rejected with probability >= 0.999 (benchmarks/power.py
# measures it), and a sampler that loops over draws in Python makes 160 turns, not 160 000.
MIXED_DRAWS = 160
# 600 draws over 32 000 tokens: a Gumbel-max or exponential race that draws V noise values per
# sample stays under a third of the case's CPU-time limit (tests/exercises/test_time_limits.py).
ZIPF_DRAWS = 600
SMALL_DRAWS = 4_000
# 4 000 draws from each of the 8 real-logit rows of 2 000 tokens (benchmarks/power.py: the rows'
# own power against the known mistakes; a Gumbel-max sampler draws 2 000 noise values per draw).
REAL_DRAWS = 4_000
PAIR_ROWS = (0, 2)  # mixed rows whose draws are tested for independence within the row
ACROSS_ROWS = (0, 1)  # mixed rows of different targets tested for independence of each other
CONTRACT_DRAWS = 400  # the generator contract's calls (a correct sampler repeats with probability < 1e-300)
POSITION_DRAWS = 2_000  # per row, with the contract rows in another order
GENERATED_DRAWS = 2_000  # per row of the generated calls
DRAW_SITE_DRAWS = 64  # per row, each draw site pushed to each extreme

SINGLE_DRAW = Bilingual(
    "with num_samples=1 the draws follow another distribution than they should "
    "(a separate path for one draw that skips a step?)",
    "num_samples=1 时抽样服从的分布不对（是否为单次抽样另写了一条跳过某些步骤的路径？）",
)
# The generator contract's names that a degenerate distribution (a row that always draws one token)
# would also produce: named only when the learner's draws vary.
RANDOMNESS_DIAGNOSES = (SEEDS_DIAGNOSIS, RESEEDED_DIAGNOSIS, DEFAULT_GENERATOR_DIAGNOSIS, DEFAULT_RESEEDED_DIAGNOSIS)

# |actual - expected| <= ATOL + RTOL * expected; see docs/statistics.md for the derivation.
TOLERANCE = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}


def _check_probs(sub, ctx, batch: cases.Batch, *, what: str, per_row: bool = True) -> torch.Tensor:
    params = batch.arguments() if per_row else _scalar_params(batch)
    out = sub.sampling_probs(batch.logits, **params)
    out = expect_tensor(
        out, name="sampling_probs", shape=batch.logits.shape, dtype=batch.logits.dtype, device=ctx.device
    )
    _expect_probs(out, batch, what=what)
    return out


def _expect_probs(out: torch.Tensor, batch: cases.Batch, *, what: str) -> None:
    """``out`` (checked for shape and dtype) against the batch's exact target: the values within the
    tolerance (a mistake named only when it reproduces every row), then its zeros: exactly where the
    target has them, never where the target is a representable positive value."""
    rtol, atol = TOLERANCE[batch.logits.dtype]
    expect_close(
        out,
        batch.exact.probs,
        rtol=rtol,
        atol=atol,
        what=what,
        row_labels=batch.labels,
        mistakes=lambda: whole_output_mistakes(out, batch.alternatives, rtol, atol),
    )
    exact, floor = batch.exact.probs, generated.FLOOR[batch.logits.dtype]
    for mask, wrong, mistake in (
        (
            (out == 0) & (exact >= floor),
            "has probability 0, but it is still in play (its exact probability is {p:.3g})",
            MISTAKES["tail_cut"],
        ),
        (
            (out != 0) & (exact == 0),
            "was filtered out ({why}), but its probability is {v:.3g}, not exactly 0",
            MISTAKES["filtered_not_zero"],
        ),
    ):
        if bool(mask.any()):
            row, token = (int(i) for i in mask.nonzero()[0])
            detail = wrong.format(
                p=float(exact[row, token]), v=float(out[row, token]), why=batch.exact.why_excluded(row, token)
            )
            fail(
                f"{what}: row {row} ({batch.labels[row]}), token {token} {detail}",
                diagnosis=mistake,
                rule=rule(
                    what, "the zeros differ from the target's", "为 0 的位置与目标不一致", row=row, labels=batch.labels
                ),
                kind=Evidence.VALUE,
            )


def _scalar_params(batch: cases.Batch) -> dict:
    first = batch.params[0]
    assert all(p == first for p in batch.params), "scalar parameters need identical rows"
    return {"temperature": first.temperature, "top_k": first.top_k, "top_p": first.top_p, "min_p": first.min_p}


def _draw(sub, ctx, batch: cases.Batch, num_samples: int, *, per_row: bool = True, generator=None) -> torch.Tensor:
    params = batch.param_tensors() if per_row else _scalar_params(batch)
    generator = generator if generator is not None else ctx.generator()
    draws = sub.sample(batch.logits, num_samples=num_samples, generator=generator, **params)
    return expect_tensor(
        draws, name="sample", shape=(batch.logits.shape[0], num_samples), dtype=torch.int64, device=ctx.device
    )


WHAT_MIXED = Bilingual("sample with per-row parameters", "sample（每行各自的参数）")


def _check_draws(ctx, draws: torch.Tensor, batch: cases.Batch, *, what: Bilingual, fit_rows: list[int]) -> None:
    """Support for every row, then a goodness-of-fit test for each row in ``fit_rows``; a mistake is
    named only when it explains every row's counts (:func:`_whole_call`)."""
    counts = [
        torch.bincount(draws[row].clamp(0, batch.logits.shape[1] - 1), minlength=batch.logits.shape[1])
        for row in range(draws.shape[0])
    ]
    try:
        expect_support(
            draws,
            batch.exact.probs,
            what=what,
            why_excluded=batch.exact.why_excluded,
            row_labels=batch.labels,
            alternatives=lambda: batch.alternatives,
        )
        for row in fit_rows:
            expect_distribution(
                ctx,
                draws[row],
                batch.exact.probs[row],
                label=f"{what}, row {row} ({batch.labels[row]})",
                alternatives=lambda row=row: batch.row_alternatives(row),
                public=row_title(what, row, batch.labels),
            )
    except CheckFailed as failure:
        failure.diagnosis = _whole_call(failure.diagnosis, counts, batch)
        raise


def _whole_call(diagnosis, counts: list[torch.Tensor], batch: cases.Batch):
    """``diagnosis`` when it names a known distribution mistake that explains every row's ``counts``
    (each a row of ``batch``, or a kind of a repeated one), else None; any other diagnosis as it is."""
    if diagnosis not in batch.alternatives:
        return diagnosis
    rows = [batch.alternatives[diagnosis][row] for row in range(len(counts))]
    return diagnosis if explains_every_row(counts, rows) else None


# --- sampling_probs: exact targets -------------------------------------------------------


def test_probs_per_row_parameters(sub, ctx):
    """sampling_probs: eight rows, each with its own parameters

    zh: sampling_probs：八行，每行各有自己的参数
    """
    _check_probs(sub, ctx, cases.mixed_rows(), what="sampling_probs with per-row parameters")


def test_probs_scalar_parameters(sub, ctx):
    """sampling_probs: scalar parameters shared by every row

    zh: sampling_probs：所有行共用的标量参数
    """
    _check_probs(sub, ctx, cases.scalar_rows(), what="sampling_probs with scalar parameters", per_row=False)


def test_probs_float64(sub, ctx):
    """sampling_probs: float64 logits keep float64 precision

    zh: sampling_probs：float64 的 logits 保持 float64 精度
    """
    _check_probs(sub, ctx, cases.float64_rows(), what="sampling_probs on float64 logits")


# lane_weight: each heavy case's share of a grading's work against 1 for a case of a few ms (the
# reference's case times on a quiet machine, rounded), so that two lanes split the work evenly.
@lane_weight(10)
def test_probs_large_vocabulary(sub, ctx):
    """sampling_probs: a 32 000-token Zipf-like vocabulary

    zh: sampling_probs：32 000 个 token 的类 Zipf 词表
    """
    _check_probs(sub, ctx, cases.zipf_rows(), what="sampling_probs over 32 000 tokens")


@lane_weight(2)
def test_probs_real_logits(sub, ctx):
    """sampling_probs: a real language model's next-token logits

    zh: sampling_probs：真实语言模型给出的下一个 token 的 logits
    """
    _check_probs(sub, ctx, cases.real_rows(), what="sampling_probs on a language model's logits")


def test_probs_greedy_ties(sub, ctx):
    """sampling_probs: temperature 0 gives the one-hot of the first maximum

    zh: sampling_probs：温度为 0 时返回第一个最大值的 one-hot
    """
    _check_probs(sub, ctx, cases.greedy_rows(), what="sampling_probs at temperature 0", per_row=False)


def test_probs_each_filter_alone(sub, ctx):
    """sampling_probs: temperature, top-k, top-p and min-p one at a time

    zh: sampling_probs：温度、top-k、top-p、min-p 逐个单独检查
    """
    _check_probs(sub, ctx, cases.each_filter_rows(), what="sampling_probs, one filter")


def test_probs_top_k_edges(sub, ctx):
    """sampling_probs: top_k = 1 keeps every tied maximum; top_k above V turns top-k off

    zh: sampling_probs：top_k = 1 保留所有并列的最大值；top_k 大于 V 时不做 top-k
    """
    batch = cases.top_k_edge_rows()
    sub.sampling_probs(batch.logits, **_top_k_below_vocab(batch))  # a crash here is no evidence about top_k >= V
    with diagnosed(TOP_K_ABOVE_V, raised_only=True):
        _check_probs(sub, ctx, batch, what="sampling_probs with extreme top_k")


TOP_K_ABOVE_V = MISTAKES["top_k_at_least_vocab"]


def _top_k_below_vocab(batch: cases.Batch) -> dict[str, torch.Tensor]:
    """The batch's per-row parameters with each top_k lowered to V - 1 at most: the same call short of
    top_k >= V, which must run before a crash with it is blamed on that rule (the diagnosis's evidence)."""
    params = batch.param_tensors()
    params["top_k"] = params["top_k"].clamp(max=batch.logits.shape[1] - 1)
    return params


GREEDY_DTYPE = MISTAKES["greedy_dtype"]


@lane_weight(21)
def test_probs_generated(sub, ctx):
    """sampling_probs: generated rows (ties, tiny probabilities, cuts just outside the margin, top_p = 1 tails, mixed dtypes)

    zh: sampling_probs：生成的行（并列、极小概率、刚好在余量之外的截断、top_p = 1 的长尾、参数 dtype 混用）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    *calls, every_greedy = generated.calls(ctx.fresh_seed("generated rows"))
    for number, call in enumerate(calls):
        what = f"sampling_probs on generated rows, call {number + 1}"
        _check_probs(sub, ctx, call, what=what)
    # Every row greedy, float64 logits: the calls above returned float64 with greedy rows among others.
    value = sub.sampling_probs(every_greedy.logits, **every_greedy.arguments())
    if isinstance(value, torch.Tensor) and tuple(value.shape) == tuple(every_greedy.logits.shape):
        expect(
            value.dtype == every_greedy.logits.dtype,
            f"sampling_probs with every row greedy (temperature 0) on {every_greedy.logits.dtype} logits returned "
            f"{value.dtype}; with greedy rows among sampling ones it returned {every_greedy.logits.dtype}",
            diagnosis=GREEDY_DTYPE,
            rule=rule(
                "sampling_probs with every row greedy",
                "returned another dtype than the logits'",
                "返回的 dtype 与 logits 不同",
            ),
            kind=Evidence.STRUCTURAL,
        )
    value = expect_tensor(
        value,
        name="sampling_probs",
        shape=every_greedy.logits.shape,
        dtype=every_greedy.logits.dtype,
        device=ctx.device,
    )
    _expect_probs(value, every_greedy, what="sampling_probs with every row greedy")


# --- sample: hard checks -----------------------------------------------------------------


def test_sample_shape_and_default(sub, ctx):
    """sample: shape [B, num_samples], int64, num_samples defaults to 1

    zh: sample：形状 [B, num_samples]、int64，num_samples 默认为 1
    """
    batch = cases.scalar_rows()
    draws = sub.sample(batch.logits, temperature=0.8, top_k=5, top_p=0.9, generator=ctx.generator())
    expect_tensor(
        draws, name="sample(logits) with the default num_samples", shape=(2, 1), dtype=torch.int64, device=ctx.device
    )
    draws = sub.sample(batch.logits, 7, 0.8, 5, 0.9, 0.0, ctx.generator())
    expect_tensor(draws, name="sample with positional arguments", shape=(2, 7), dtype=torch.int64, device=ctx.device)


def test_sample_greedy(sub, ctx):
    """sample: temperature 0 always returns the first maximum

    zh: sample：温度为 0 时总是返回第一个最大值
    """
    logits = cases.greedy_rows().logits
    for params in ({"temperature": 0.0}, {"temperature": 0.0, "top_k": 2, "top_p": 0.3, "min_p": 0.5}):
        draws = sub.sample(logits, num_samples=50, generator=ctx.generator(), **params)
        draws = expect_tensor(draws, name="sample", shape=(3, 50), dtype=torch.int64, device=ctx.device)
        for row, best in enumerate([1, 0, 1]):
            wrong = draws[row][draws[row] != best]
            expect(
                wrong.numel() == 0,
                f"row {row} at temperature 0 ({params}): drew token {wrong[0].item() if wrong.numel() else ''}; "
                f"greedy decoding must return token {best}, the first of the tied maxima, every time",
                diagnosis=MISTAKES["no_greedy"],
            )


# --- randomness: the generator contract, extreme uniforms, every draw site --------------------------


def _contract(sub, ctx, batch: cases.Batch, num_samples: int, groups: list[list[int]], **options) -> None:
    """The generator contract of ``sample`` on ``batch`` (``num_samples`` draws per row; with the rows
    in another order, ``POSITION_DRAWS``). ``groups``: the rows of one target. The contract computes how
    likely a correct sampler repeats itself from the target; a learner whose own draws are far more
    concentrated (a wrong distribution: one token nearly always) repeats by right, so its randomness
    names are kept only where its own draws make a repeat unlikely (below 1e-6), and a twins name only
    where the twin rows agree more than its own draws of them would."""
    seen: list[torch.Tensor] = []
    label = f"sample with num_samples={num_samples}"
    vocab = batch.logits.shape[1]

    def draw(source, generator, rows=None):
        picked = batch if rows is None else cases.picked(batch, rows)
        n = num_samples if rows is None else POSITION_DRAWS
        value = source.sample(picked.logits, num_samples=n, generator=generator, **picked.param_tensors())
        value = expect_tensor(
            value, name="sample", shape=(picked.logits.shape[0], n), dtype=torch.int64, device=ctx.device
        )
        if rows is None:
            seen.append(value)
        return value

    try:
        expect_generator_contract(sub, ctx, draw, batch.exact.probs, label=label, **options)
    except CheckFailed as failure:
        if failure.diagnosis in RANDOMNESS_DIAGNOSES and seen and _repeat_log10(seen[0], groups, vocab) > -6:
            failure.diagnosis = None
        elif failure.diagnosis in (ROWS_SHARE_DIAGNOSIS, SORTED_DIAGNOSIS) and seen and "twins" in options:
            first, second = options["twins"]
            agree = float((seen[0][first] == seen[0][second]).double().mean())
            if agree <= (1 + collision(seen[0][[first, second]], vocab)) / 2:
                failure.diagnosis = None
        raise


def _repeat_log10(draws: torch.Tensor, groups: list[list[int]], vocab: int) -> float:
    """log10 of the chance that the learner's own distribution (each group's draws pooled) repeats this
    call's draws exactly: the sum over rows of n x log10 (the sum of its squared frequencies)."""
    total = 0.0
    for group in groups:
        chance = collision(draws[group], vocab)
        total += len(group) * draws.shape[1] * (math.log10(chance) if chance > 0 else -math.inf)
    return total


@lane_weight(5)
def test_generator_contract(sub, ctx):
    """sample: the generator decides the draws and advances from call to call; rows wherever they stand

    zh: sample：抽样由 generator 决定、每次调用接着往下抽；每行的结果与它在批中的位置无关
    """
    batch = cases.contract_rows()
    groups = [[0], [1, 3], [2]]
    _contract(sub, ctx, batch, CONTRACT_DRAWS, groups, positions=True, twins=(1, 3))


@lane_weight(8)
def test_generator_contract_single_draws(sub, ctx):
    """sample: with num_samples=1 (a decoder's call), the generator decides and advances too

    zh: sample：num_samples=1（解码器的调用）时同样由 generator 决定、每次调用接着往下抽
    """
    batch = cases.single_draw_seed_rows()
    kinds, copies = (
        cases.single_draw_kinds().logits.shape[0],
        batch.logits.shape[0] // cases.single_draw_kinds().logits.shape[0],
    )
    groups = [list(range(k * copies, (k + 1) * copies)) for k in range(kinds)]
    _contract(sub, ctx, batch, 1, groups)


@lane_weight(12)
def test_extreme_uniforms(sub, ctx):
    """sample: correct when torch.rand returns exactly 0.0 or 0.99999994

    zh: sample：torch.rand 恰好返回 0.0 或 0.99999994 时依然正确
    """
    extreme = sub.with_extreme_uniforms(ctx.fresh_seed("extreme"))
    what = Bilingual(
        "sample fed extreme uniform values (0.0 and 0.99999994)", "sample（输入极端的均匀随机数 0.0 与 0.99999994）"
    )
    for batch, num_samples in (
        (cases.edge_rows(), 2_000),
        (cases.single_token_rows(), 2_000),
        (cases.mixed_rows(), 2_000),
        (cases.many_rows(), 2_000),
        (cases.many_rows_repeated(), 1),
    ):
        # The same call with ordinary random numbers first: a failure there is not about extreme values
        # (nor named here: the cases above name a wrong distribution on the evidence of a whole call).
        draws = _draw(sub, ctx, batch, num_samples)
        expect_support(
            draws, batch.exact.probs, what="sample", why_excluded=batch.exact.why_excluded, row_labels=batch.labels
        )
        # Only what fails with extreme values (and did not without them) is blamed on them: there,
        # a crash, an id out of range or a wrong draw alike.
        with diagnosed(EXTREME_UNIFORMS_DIAGNOSIS, evidence=EVERY_KIND):
            draws = extreme.sample(
                batch.logits, num_samples=num_samples, generator=ctx.generator(), **batch.param_tensors()
            )
            draws = expect_tensor(
                draws, name="sample", shape=(batch.logits.shape[0], num_samples), dtype=torch.int64, device=ctx.device
            )
        _expect_extremes_allowed(draws, batch, what=what)


EXTREME_UNIFORMS_DIAGNOSIS = MISTAKES["extreme_uniforms"]
LOG_OF_ZERO = MISTAKES["log_of_zero"]
EVERY_KIND = (Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED)


def _expect_extremes_allowed(draws: torch.Tensor, batch: cases.Batch, *, what: str) -> None:
    """Draws made with extreme uniforms (and already of the right shape and dtype): in range and never
    a token of probability 0. Named by where they fail: an id out of range, or a bad draw in a row
    that allows several tokens, is an inverse CDF running off an end (``EXTREME_UNIFORMS_DIAGNOSIS``);
    bad draws only in rows that allow one token are log(0) in Gumbel or exponential noise (every
    token scores -inf, and the first, excluded, wins: ``LOG_OF_ZERO``)."""
    vocab = batch.logits.shape[1]
    outside = (draws < 0) | (draws >= vocab)
    if bool(outside.any()):
        with diagnosed(EXTREME_UNIFORMS_DIAGNOSIS, evidence=EVERY_KIND):
            expect_tokens_in_range(draws, vocab, what=what)
    allowed = batch.exact.probs > 0
    bad_rows = (~torch.gather(allowed, 1, draws)).any(dim=1)
    if not bool(bad_rows.any()):
        return
    several = allowed.sum(dim=1) > 1
    diagnosis = EXTREME_UNIFORMS_DIAGNOSIS if bool((bad_rows & several).any()) else LOG_OF_ZERO
    expect_support(
        draws,
        batch.exact.probs,
        what=what,
        why_excluded=batch.exact.why_excluded,
        row_labels=batch.labels,
        diagnosis=diagnosis,
    )


def test_every_draw_site(sub, ctx):
    """sample: every place the code draws random numbers copes with 0.0 and the largest float below 1

    zh: sample：代码中每一处抽随机数的地方都能处理 0.0 与小于 1 的最大浮点数
    """
    for batch in (cases.draw_site_rows(), cases.draw_site_rows64()):
        dtype = str(batch.logits.dtype).removeprefix("torch.")
        label = f"sample on {dtype} logits"

        def call(source, generator, batch=batch):
            return source.sample(
                batch.logits, num_samples=DRAW_SITE_DRAWS, generator=generator, **batch.param_tensors()
            )

        def check(value, what, batch=batch, label=label):
            draws = expect_tensor(
                value, name=what, shape=(batch.logits.shape[0], DRAW_SITE_DRAWS), dtype=torch.int64, device=ctx.device
            )
            if what == label:  # the ordinary run: a failure here is no evidence about extreme values
                expect_support(
                    draws, batch.exact.probs, what=what, why_excluded=batch.exact.why_excluded, row_labels=batch.labels
                )
            else:
                _expect_extremes_allowed(draws, batch, what=what)

        expect_every_draw_site(sub, ctx, call, check, label=label)


# --- sample: distributions ----------------------------------------------------------------


@lane_weight(26)
def test_sample_mixed_rows(sub, ctx):
    """sample: eight rows with their own parameters follow their distributions

    zh: sample：八行各自的参数下，抽样服从各自的分布
    """
    kinds = cases.mixed_rows()
    staged(
        ctx,
        cases.MIXED_COPIES,
        lambda start, count: _draw(sub, ctx, cases.repeated(kinds, count), MIXED_DRAWS),
        lambda parts, stage: _check_mixed(ctx, _joined_copies(parts, kinds), kinds, stage.size),
        unit="copies of each row",
    )


def _joined_copies(parts: list[torch.Tensor], kinds: cases.Batch) -> torch.Tensor:
    """The stages' draws of a repeated batch (each ``[kinds * copies_k, n]``) as one repeated batch's
    ``[kinds * copies, n]``: each kind's copies together, the stages' in order."""
    n = parts[0].shape[1]
    blocks = [part.reshape(kinds.logits.shape[0], -1, n) for part in parts]
    return torch.cat(blocks, dim=1).reshape(-1, n)


def _check_mixed(ctx, draws: torch.Tensor, kinds: cases.Batch, copies: int) -> None:
    """The mixed rows' checks on ``copies`` copies of each kind: support and fits, then (a wrong
    distribution is diagnosed as such, not as dependence) independence within a row, across rows
    and between twin rows."""
    batch = cases.repeated(kinds, copies)
    grouped = _check_kinds(ctx, draws, batch, kinds, copies, what=WHAT_MIXED, fit_kinds=[0, 1, 2, 3, 4, 5, 7])
    # Each copy's draws are one row of the call ([copies, n]): paired within itself, next to each
    # other, half a row apart and mirrored.
    for row in PAIR_ROWS:
        expect_independent_within_row(
            ctx,
            grouped[row].reshape(copies, MIXED_DRAWS),
            kinds.exact.probs[row],
            label=f"{WHAT_MIXED}, row {row} ({kinds.labels[row]})",
            public=row_title(WHAT_MIXED, row, kinds.labels),
        )
    first, second = ACROSS_ROWS
    expect_independent_across_rows(
        ctx,
        grouped[first].reshape(copies, MIXED_DRAWS),
        grouped[second].reshape(copies, MIXED_DRAWS),
        kinds.exact.probs[first],
        kinds.exact.probs[second],
        label=f"{WHAT_MIXED}: rows {first} and {second} (different parameters)",
        public=Bilingual(f"{WHAT_MIXED}, rows {first} and {second}", f"{WHAT_MIXED.zh}，第 {first} 行与第 {second} 行"),
    )
    expect_independent_rows(
        ctx,
        grouped[2],
        grouped[5],
        kinds.exact.probs[2],
        label=f"{WHAT_MIXED}: rows 2 and 5 (identical inputs)",
        public=Bilingual(f"{WHAT_MIXED}, rows 2 and 5", f"{WHAT_MIXED.zh}，第 2 行与第 5 行"),
    )


def _check_kinds(
    ctx,
    draws: torch.Tensor,
    batch: cases.Batch,
    kinds: cases.Batch,
    copies: int,
    *,
    what: Bilingual,
    fit_kinds: list[int],
    fallback=lambda kind: None,
) -> torch.Tensor:
    """Support for every row of a repeated batch, then a fit for each kind in ``fit_kinds`` over all
    of its copies' draws; returns the draws grouped by kind (``[kinds, copies * n]``). A failure is
    diagnosed from the counts of the whole kind (one row's few draws say little): the known mistake
    that they name when it explains every kind, else ``fallback(kind)`` (a diagnosis of its own
    evidence, or None) when no known mistake explains them."""
    grouped = cases.by_kind(draws, kinds.logits.shape[0])
    vocab = batch.logits.shape[1]
    try:
        expect_support(
            draws, batch.exact.probs, what=what, why_excluded=batch.exact.why_excluded, row_labels=batch.labels
        )
    except CheckFailed as failure:
        if ((draws < 0) | (draws >= vocab)).any():
            raise  # not even token ids: nothing to diagnose from counts
        kind = int((~torch.gather(batch.exact.probs > 0, 1, draws)).any(dim=1).nonzero()[0]) // copies
        counts = [torch.bincount(g, minlength=vocab) for g in grouped]
        alternatives, truth = kinds.row_alternatives(kind), kinds.exact.probs[kind]
        # The fallback only on its own evidence, and where no known mistake explains the counts.
        failure.diagnosis = (
            _copies_share(draws, kind, copies, kinds)
            or _whole_call(best_alternative(counts[kind], alternatives, truth=truth), counts, kinds)
            or (None if explaining_alternatives(counts[kind], alternatives, truth=truth) else fallback(kind))
        )
        raise
    for kind in fit_kinds:
        try:
            expect_distribution(
                ctx,
                grouped[kind],
                kinds.exact.probs[kind],
                alternatives=lambda k=kind: kinds.row_alternatives(k),
                label=f"{what}, rows of the kind {kind} ({kinds.labels[kind]})",
                public=Bilingual(
                    f"{what}, rows of the kind '{kinds.labels[kind].public}'",
                    f"{what.zh}，类型为“{kinds.labels[kind].public.zh}”的行",
                ),
            )
        except CheckFailed as failure:
            counts = [torch.bincount(g, minlength=vocab) for g in grouped]
            failure.diagnosis = (
                _copies_share(draws, kind, copies, kinds)
                or _whole_call(failure.diagnosis, counts, kinds)
                or (None if failure.explained_by else fallback(kind))
            )
            raise
    return grouped


def _copies_share(draws: torch.Tensor, kind: int, copies: int, kinds: cases.Batch) -> Bilingual | None:
    """The rows diagnosis when the copies of one kind of row drew (nearly) the same tokens: far more
    often than independent draws of the learner's own distribution for that kind agree (the sum of its
    squared frequencies; a row that always draws one token agrees with itself by right), which one
    uniform shared by rows does."""
    rows = draws[kind * copies : (kind + 1) * copies]
    if rows.shape[0] < 2:
        return None
    agree = float((rows[1:] == rows[:-1]).double().mean())
    chance = collision(rows, kinds.logits.shape[1])
    return ROWS_SHARE_DIAGNOSIS if agree > (1 + chance) / 2 else None


@lane_weight(11)
def test_sample_large_vocabulary(sub, ctx):
    """sample: a 32 000-token Zipf-like vocabulary

    zh: sample：32 000 个 token 的类 Zipf 词表
    """
    batch = cases.zipf_rows()
    draws = _draw(sub, ctx, batch, ZIPF_DRAWS)
    _check_draws(
        ctx, draws, batch, what=Bilingual("sample over 32 000 tokens", "sample（32 000 个 token）"), fit_rows=[0, 1, 2]
    )


@lane_weight(4)
def test_sample_real_logits(sub, ctx):
    """sample: a real language model's next-token logits (a peaked head, a long tail)

    zh: sample：真实语言模型给出的下一个 token 的 logits（头部集中，尾部很长）
    """
    batch = cases.real_rows()
    staged(
        ctx,
        REAL_DRAWS,
        lambda start, count: _draw(sub, ctx, batch, count),
        lambda parts, stage: _check_draws(
            ctx,
            torch.cat(list(parts), dim=1),
            batch,
            what=Bilingual("sample on a language model's logits", "sample（语言模型的 logits）"),
            fit_rows=list(range(batch.logits.shape[0])),
        ),
    )


def test_sample_float64(sub, ctx):
    """sample: float64 logits

    zh: sample：float64 的 logits
    """
    batch = cases.float64_rows()
    draws = _draw(sub, ctx, batch, SMALL_DRAWS)
    _check_draws(
        ctx, draws, batch, what=Bilingual("sample on float64 logits", "sample（float64 的 logits）"), fit_rows=[0, 1]
    )


def test_sample_scalar_parameters(sub, ctx):
    """sample: scalar parameters

    zh: sample：标量参数
    """
    batch = cases.scalar_rows()
    draws = _draw(sub, ctx, batch, SMALL_DRAWS, per_row=False)
    _check_draws(
        ctx, draws, batch, what=Bilingual("sample with scalar parameters", "sample（标量参数）"), fit_rows=[0, 1]
    )


def test_sample_top_k_edges(sub, ctx):
    """sample: top_k = 1 (ties at the top all stay), top_k above and equal to V

    zh: sample：top_k = 1（最大值并列时全部保留）、top_k 大于或等于 V
    """
    batch = cases.top_k_edge_rows()
    # The same call short of top_k >= V first: a crash there is no evidence about that rule.
    sub.sample(batch.logits, num_samples=SMALL_DRAWS, generator=ctx.generator(), **_top_k_below_vocab(batch))
    with diagnosed(TOP_K_ABOVE_V, raised_only=True):
        draws = _draw(sub, ctx, batch, SMALL_DRAWS)
    # Row 1 keeps one token: the support check is all there is to test.
    _check_draws(
        ctx, draws, batch, what=Bilingual("sample with extreme top_k", "sample（极端的 top_k）"), fit_rows=[0, 2, 3]
    )


@lane_weight(14)
def test_single_draws(sub, ctx):
    """sample: num_samples=1, the call a decoder makes, follows every rule

    zh: sample：num_samples=1（解码器每一步的调用）同样遵守每一条规则
    """
    batch, kinds = cases.single_draw_rows(), cases.single_draw_kinds()
    what = Bilingual("sample with num_samples=1", "sample（num_samples=1）")
    draws = _draw(sub, ctx, batch, 1)
    # The same call with two draws per row: the evidence that one draw takes another path (the same
    # rows, so nothing but num_samples differs). Not judged here: the other cases judge num_samples > 1.
    many = sub.sample(batch.logits, num_samples=2, generator=ctx.generator(), **batch.param_tensors())
    vocab = kinds.logits.shape[1]
    many_counts = (
        [torch.bincount(row.clamp(0, vocab - 1), minlength=vocab) for row in cases.by_kind(many, kinds.logits.shape[0])]
        if isinstance(many, torch.Tensor)
        and tuple(many.shape) == (batch.logits.shape[0], 2)
        and many.dtype == torch.int64
        else None
    )

    def single_path(kind: int) -> Bilingual | None:
        """SINGLE_DRAW where the many-draw call of this kind drew only allowed tokens and its counts
        differ from the single draws' (p < 1e-6): num_samples=1 takes a path of its own."""
        if many_counts is None:
            return None
        ones = torch.bincount(cases.by_kind(draws, kinds.logits.shape[0])[kind].clamp(0, vocab - 1), minlength=vocab)
        allowed = kinds.exact.probs[kind] > 0
        if bool((many_counts[kind][~allowed] > 0).any()):
            return None
        return SINGLE_DRAW if differs(ones, many_counts[kind]) < 1e-6 else None

    # Kind 2 is greedy: the support check allows its one token only.
    _check_kinds(
        ctx, draws, batch, kinds, cases.SINGLE_DRAW_COPIES, what=what, fit_kinds=[0, 1, 3, 4], fallback=single_path
    )


@lane_weight(22)
def test_sample_generated(sub, ctx):
    """sample: generated rows (ties, tiny probabilities next to -inf, cuts just outside the margin, mixed dtypes)

    zh: sample：生成的行（并列、-inf 旁的极小概率、刚好在余量之外的截断、参数 dtype 混用）
    """
    calls = generated.calls(ctx.fresh_seed("generated rows"))[:4]
    for number, call in enumerate(calls):
        what = Bilingual(f"sample on generated rows, call {number + 1}", f"sample（生成的行，第 {number + 1} 次调用）")
        draws = sub.sample(call.logits, num_samples=GENERATED_DRAWS, generator=ctx.generator(), **call.arguments())
        draws = expect_tensor(
            draws, name="sample", shape=(call.logits.shape[0], GENERATED_DRAWS), dtype=torch.int64, device=ctx.device
        )
        # One fit per call of per-row parameters: its first row of several filters together.
        fit_rows = [call.families.index(f) for f in call.families if f.startswith("order:")][:1] if number < 2 else []
        _check_draws(ctx, draws, call, what=what, fit_rows=fit_rows)


# --- bad input ------------------------------------------------------------------------------

BAD_SHAPE = MISTAKES["bad_shape_accepted"]
BAD_ROW = MISTAKES["bad_row_accepted"]


# (parameter, bad value, tensor dtype, what is wrong without values, the mistake's key) in every row of a tensor.
_EVERY_ROW_BAD = (
    ("temperature", -0.5, torch.float64, "a negative per-row temperature in every row", "temperature_accepted"),
    ("top_k", -2, torch.int64, "a negative per-row top_k in every row", "top_k_accepted"),
    ("top_p", 0.0, torch.float64, "a per-row top_p of 0 in every row", "top_p_accepted"),
    ("top_p", 1.25, torch.float64, "a per-row top_p above 1 in every row", "top_p_accepted"),
    ("min_p", 1.0, torch.float64, "a per-row min_p of 1 in every row", "min_p_accepted"),
    ("min_p", -0.2, torch.float64, "a negative per-row min_p in every row", "min_p_accepted"),
)


def _bad_parameters() -> list[tuple[dict, str, str, Bilingual | None]]:
    """(keyword arguments, what is wrong, the same without values, the mistake if accepted) for five rows."""

    def one_bad_row(good: float, bad: float, dtype: torch.dtype = torch.float64) -> torch.Tensor:
        values = torch.full((5,), good, dtype=dtype)
        values[3] = bad
        return values

    return [
        ({"temperature": -0.5}, "a negative temperature", "a negative temperature", MISTAKES["temperature_accepted"]),
        ({"top_p": 0.0}, "top_p = 0", "a top_p of 0", MISTAKES["top_p_accepted"]),
        ({"top_p": 1.5}, "top_p = 1.5", "a top_p above 1", MISTAKES["top_p_accepted"]),
        ({"min_p": 1.0}, "min_p = 1", "a min_p of 1", MISTAKES["min_p_accepted"]),
        ({"min_p": -0.1}, "min_p = -0.1", "a negative min_p", MISTAKES["min_p_accepted"]),
        ({"top_k": -1}, "top_k = -1", "a negative top_k", MISTAKES["top_k_accepted"]),
        (
            {"temperature": torch.ones(7, dtype=torch.float64)},
            "a temperature tensor of length 7 for 5 rows",
            "a temperature tensor of the wrong length",
            BAD_SHAPE,
        ),
        # The same values in every row first: a tensor not checked at all is then named by its parameter,
        # and "one row unchecked" only where every-row tensors were refused.
        *(
            (
                {name: torch.full((5,), bad, dtype=dtype)},
                f"a per-row {name} of {bad} in every row",
                public,
                MISTAKES[key],
            )
            for name, bad, dtype, public, key in _EVERY_ROW_BAD
        ),
        (
            {"temperature": one_bad_row(1.0, -0.5)},
            "a per-row temperature of -0.5 in row 3",
            "a negative per-row temperature in one row",
            BAD_ROW,
        ),
        (
            {"top_k": one_bad_row(3, -2, torch.int64)},
            "a per-row top_k of -2 in row 3",
            "a negative per-row top_k in one row",
            BAD_ROW,
        ),
        ({"top_p": one_bad_row(0.9, 0.0)}, "a per-row top_p of 0 in row 3", "a per-row top_p of 0 in one row", BAD_ROW),
        (
            {"top_p": one_bad_row(0.9, 1.25)},
            "a per-row top_p of 1.25 in row 3",
            "a per-row top_p above 1 in one row",
            BAD_ROW,
        ),
        ({"min_p": one_bad_row(0.1, 1.0)}, "a per-row min_p of 1 in row 3", "a per-row min_p of 1 in one row", BAD_ROW),
        (
            {"min_p": one_bad_row(0.1, -0.2)},
            "a per-row min_p of -0.2 in row 3",
            "a negative per-row min_p in one row",
            BAD_ROW,
        ),
        *[
            (
                {name: torch.full((5, 1), value, dtype=dtype)},
                f"a {name} tensor of shape [5, 1] (must be [5])",
                f"a {name} tensor of shape [B, 1]",
                BAD_SHAPE,
            )
            for name, value, dtype in (
                ("temperature", 0.8, torch.float64),
                ("top_k", 3, torch.int64),
                ("top_p", 0.9, torch.float64),
                ("min_p", 0.1, torch.float64),
            )
        ],
    ]


@lane_weight(5)
def test_bad_parameters(sub, ctx):
    """Bad parameters raise ValueError, scalar or per row, in every row

    zh: 非法参数抛出 ValueError：无论是标量还是每行一个值，无论在哪一行
    """
    logits = cases.many_rows().logits[:5]
    calls = []
    for kwargs, description, public, mistake in _bad_parameters():
        for function in ("sampling_probs", "sample"):
            extra = {"generator": ctx.generator()} if function == "sample" else {}
            calls.append(
                BadCall(
                    getattr(sub, function),
                    f"{function}() with {description}",
                    args=(logits,),
                    kwargs={**kwargs, **extra},
                    public=f"{function}() with {public}",
                    diagnosis=mistake,
                )
            )
    calls.append(
        BadCall(
            sub.sample,
            "sample() with num_samples = 0",
            args=(logits,),
            kwargs={"num_samples": 0, "generator": ctx.generator()},
            diagnosis=MISTAKES["num_samples_accepted"],
        )
    )
    expect_calls_refused(calls)


def test_bad_logits(sub, ctx):
    """Bad logits raise ValueError

    zh: 非法 logits 抛出 ValueError
    """
    values, kind = MISTAKES["logits_values_accepted"], MISTAKES["logits_type_accepted"]
    bad = [
        (torch.tensor([[0.5, float("nan"), 1.0]]), "NaN logits", values),
        (torch.tensor([[0.5, float("inf"), 1.0]]), "+inf logits", values),
        (torch.tensor([[0.5, 1.0, 2.0], [float("-inf")] * 3]), "a row with no finite logit", values),
        (torch.tensor([0.5, 1.0, 2.0]), "1-D logits", kind),
        (torch.zeros(2, 3, 4), "3-D logits", kind),
    ]
    expect_calls_refused(
        [
            BadCall(
                getattr(sub, function),
                f"{function}() with {description}",
                args=(logits,),
                kwargs={"generator": ctx.generator()} if function == "sample" else {},
                diagnosis=diagnosis,
            )
            for logits, description, diagnosis in bad
            for function in ("sampling_probs", "sample")
        ]
    )


# --- the contract, generated: every refusal it names, every legal corner it allows ------------------


@lane_weight(47)
def test_generated_refusals(sub, ctx):
    """Every bad input the statement names, generated from good calls, raises ValueError

    zh: 按题面生成的各种非法输入都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("contract refusals"))
    good = specs.good_call(rng, draws=False, greedy=False)
    calls = specs.refusal_calls(sub.sampling_probs, "sampling_probs", good, specs.PROBS_ARGUMENTS, rng)
    good = specs.good_call(rng, draws=True, greedy=False)
    calls += specs.refusal_calls(
        sub.sample, "sample", good, specs.SAMPLE_ARGUMENTS, rng, extra=lambda: {"generator": ctx.generator()}
    )
    expect_calls_refused(calls)


@lane_weight(48)
def test_generated_corners(sub, ctx):
    """The legal corners of the contract are accepted and answered right (exact zeros, -inf, B = 1, V = 1, int numbers, ...)

    zh: 题面允许的各种边角输入都被接受并给出正确结果（精确的 0、-inf、B = 1、V = 1、int 形式的数等）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("contract corners"))
    expect_contract_accepts(
        sub.sampling_probs,
        ctx,
        good=specs.good_call(rng, draws=False),
        arguments=specs.PROBS_ARGUMENTS,
        check=specs.probs_corner_check(ctx),
    )
    expect_contract_accepts(
        sub.sample,
        ctx,
        good=specs.good_call(rng, draws=True),
        arguments=specs.SAMPLE_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
        check=specs.sample_corner_check(ctx),
    )
