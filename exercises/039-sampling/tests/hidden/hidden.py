"""Hidden tests of exercise 39. Never shown to learners; run in the judge's process only.

Deterministic checks of ``sampling_probs`` against the exact float64 target come first, then
the draws of ``sample``: hard checks (shape, range, support, greedy), goodness of fit per row,
independence within a row and between duplicated rows, single draws (``num_samples=1``),
seeds (the generator and torch's default one), and a phase with extreme uniform values. Every
call also checks that the learner's function left its input tensors as they were.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.checks import (
    ROWS_SHARE_DIAGNOSIS,
    SEEDS_DIAGNOSIS,
    BadCall,
    CheckFailed,
    Evidence,
    best_alternative,
    diagnosed,
    expect,
    expect_calls_refused,
    expect_close,
    expect_different_under_seeds,
    expect_distribution,
    expect_independent_rows,
    expect_independent_within_row,
    expect_support,
    expect_tensor,
    explaining_alternatives,
    row_title,
    rule,
)
from judge.i18n import Bilingual
from judge.testing import lane_weight

from . import cases
from .oracle import MISTAKES

# Goodness of fit: mixed 7 (row 6 is greedy), zipf 3, real model logits 8, float64 2, scalar 2,
# top-k edges 3 (row 1 has one token left), single draws 4 (kind 2 is greedy). Pairs within a
# row: mixed rows 0 and 2. Seeds: the generator at 400 and at 1 draw, torch's default generator.
BUDGET = BudgetDeclaration(fit=29, pairs=2, independence=1, seeds=3)

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
PAIR_ROWS = (0, 2)  # mixed rows whose consecutive draws are tested for independence

SAME_SEEDS = ("generators seeded alike gave different draws", "种子相同的生成器给出了不同的抽样结果")
SINGLE_DRAW = Bilingual(
    "with num_samples=1 the draws follow another distribution than they should "
    "(a separate path for one draw that skips a step?)",
    "num_samples=1 时抽样服从的分布不对（是否为单次抽样另写了一条跳过某些步骤的路径？）",
)
DEFAULT_GENERATOR = MISTAKES["default_generator_unused"]

# |actual - expected| <= ATOL + RTOL * expected; see docs/statistics.md for the derivation.
TOLERANCE = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}


def _check_probs(sub, ctx, batch: cases.Batch, *, what: str, per_row: bool = True) -> None:
    params = batch.param_tensors() if per_row else _scalar_params(batch)
    out = sub.sampling_probs(batch.logits, **params)
    out = expect_tensor(
        out, name="sampling_probs", shape=batch.logits.shape, dtype=batch.logits.dtype, device=ctx.device
    )
    rtol, atol = TOLERANCE[batch.logits.dtype]
    expect_close(
        out,
        batch.exact.probs,
        rtol=rtol,
        atol=atol,
        what=what,
        row_labels=batch.labels,
        mistakes=lambda: batch.alternatives,
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
    """Support for every row, then a goodness-of-fit test for each row in ``fit_rows``."""
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


# --- sample: distributions ----------------------------------------------------------------


@lane_weight(26)
def test_sample_mixed_rows(sub, ctx):
    """sample: eight rows with their own parameters follow their distributions

    zh: sample：八行各自的参数下，抽样服从各自的分布
    """
    kinds, batch, copies = cases.mixed_rows(), cases.mixed_rows_repeated(), cases.MIXED_COPIES
    draws = _draw(sub, ctx, batch, MIXED_DRAWS)
    grouped = _check_kinds(ctx, draws, batch, kinds, copies, what=WHAT_MIXED, fit_kinds=[0, 1, 2, 3, 4, 5, 7])
    # After the fits: a wrong distribution is diagnosed as such, not as dependence.
    for row in PAIR_ROWS:
        expect_independent_within_row(
            ctx,
            grouped[row],
            kinds.exact.probs[row],
            label=f"{WHAT_MIXED}, row {row} ({kinds.labels[row]})",
            public=row_title(WHAT_MIXED, row, kinds.labels),
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
    fallback: Bilingual | None = None,
) -> torch.Tensor:
    """Support for every row of a repeated batch, then a fit for each kind in ``fit_kinds`` over all
    of its copies' draws; returns the draws grouped by kind (``[kinds, copies * n]``). A failure is
    diagnosed from the counts of the whole kind (one row's few draws say little): the known mistake
    that they name, else ``fallback`` when no known mistake explains them."""
    grouped = cases.by_kind(draws, kinds.logits.shape[0])
    try:
        expect_support(
            draws, batch.exact.probs, what=what, why_excluded=batch.exact.why_excluded, row_labels=batch.labels
        )
    except CheckFailed as failure:
        if ((draws < 0) | (draws >= batch.logits.shape[1])).any():
            raise  # not even token ids: nothing to diagnose from counts
        kind = int((~torch.gather(batch.exact.probs > 0, 1, draws)).any(dim=1).nonzero()[0]) // copies
        observed = torch.bincount(grouped[kind], minlength=batch.logits.shape[1]).tolist()
        alternatives, truth = kinds.row_alternatives(kind), kinds.exact.probs[kind]
        # The fallback only where no known mistake explains the counts (two that coincide name none).
        failure.diagnosis = (
            _copies_share(draws, kind, copies, kinds)
            or best_alternative(observed, alternatives, truth=truth)
            or (None if explaining_alternatives(observed, alternatives, truth=truth) else fallback)
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
            failure.diagnosis = (
                _copies_share(draws, kind, copies, kinds)
                or failure.diagnosis
                or (None if failure.explained_by else fallback)
            )
            raise
    return grouped


def _copies_share(draws: torch.Tensor, kind: int, copies: int, kinds: cases.Batch) -> Bilingual | None:
    """The rows diagnosis when the copies of one kind of row drew (nearly) the same tokens: far more
    often than independent rows agree (sum of p squared), which one uniform shared by rows does."""
    rows = draws[kind * copies : (kind + 1) * copies]
    if rows.shape[0] < 2:
        return None
    agree = float((rows[1:] == rows[:-1]).double().mean())
    chance = float((kinds.exact.probs[kind] ** 2).sum())
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
    draws = _draw(sub, ctx, batch, REAL_DRAWS)
    _check_draws(
        ctx,
        draws,
        batch,
        what=Bilingual("sample on a language model's logits", "sample（语言模型的 logits）"),
        fit_rows=list(range(batch.logits.shape[0])),
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
    sub.sample(batch.logits, num_samples=1, generator=ctx.generator(), **_top_k_below_vocab(batch))
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
    # Kind 2 is greedy: the support check allows its one token only.
    _check_kinds(
        ctx, draws, batch, kinds, cases.SINGLE_DRAW_COPIES, what=what, fit_kinds=[0, 1, 3, 4], fallback=SINGLE_DRAW
    )
    seed = ctx.fresh_seed("single")
    batch = cases.single_draw_seed_rows()
    again = _draw(sub, ctx, batch, 1, generator=ctx.generator(seed))
    expect(
        torch.equal(_draw(sub, ctx, batch, 1, generator=ctx.generator(seed)), again),
        "with num_samples=1, two calls with generators seeded alike returned different draws: every random "
        "number must come from `generator`",
        diagnosis=SEEDS_DIAGNOSIS,
        rule=rule(what, *SAME_SEEDS),
    )
    expect_different_under_seeds(
        ctx, again, _draw(sub, ctx, batch, 1), batch.exact.probs, label=f"{what}, two different generator seeds"
    )


# --- randomness: seeds and extreme uniforms ----------------------------------------------


def test_generator_seeds(sub, ctx):
    """sample: the generator decides every draw (same seed, same draws)

    zh: sample：每次抽样都由 generator 决定（种子相同，结果相同）
    """
    batch = cases.scalar_rows()
    params = _scalar_params(batch)
    seed = ctx.fresh_seed("same")

    def draws(source, **generator):
        # Every value is checked before it is used: whatever the learner returns is a verdict, never IE.
        value = source.sample(batch.logits, num_samples=400, **generator, **params)
        return expect_tensor(value, name="sample", shape=(2, 400), dtype=torch.int64, device=ctx.device)

    first = draws(sub, generator=ctx.generator(seed))
    second = draws(sub, generator=ctx.generator(seed))
    expect(
        torch.equal(first, second),
        "two calls with generators seeded alike returned different draws: every random number must come "
        "from `generator` (pass it to torch.multinomial / torch.rand)",
        diagnosis=SEEDS_DIAGNOSIS,
        rule=rule("sample", *SAME_SEEDS),
    )
    other = draws(sub, generator=ctx.generator())
    expect_different_under_seeds(ctx, first, other, batch.exact.probs, label="sample with two different seeds")


@lane_weight(4)
def test_default_generator(sub, ctx):
    """sample: with generator=None, torch.manual_seed decides the draws (at 1 and at 400 draws)

    zh: sample：generator=None 时由 torch.manual_seed 决定抽样结果（1 次与 400 次抽样）
    """
    what = Bilingual("sample with generator=None", "sample（generator=None）")
    for batch, num_samples in ((cases.scalar_rows(), 400), (cases.single_draw_seed_rows(), 1)):
        seeded = sub.with_global_seed(ctx.fresh_seed(f"global {num_samples}"))

        def draws(source, batch=batch, num_samples=num_samples):
            value = source.sample(batch.logits, num_samples=num_samples, **batch.param_tensors())
            return expect_tensor(
                value, name="sample", shape=(batch.logits.shape[0], num_samples), dtype=torch.int64, device=ctx.device
            )

        first = draws(seeded)
        expect(
            torch.equal(first, draws(seeded)),
            f"with generator=None and num_samples={num_samples}, two calls after the same torch.manual_seed "
            "returned different draws: without a generator, use torch's default generator",
            diagnosis=DEFAULT_GENERATOR,
            rule=rule(
                what, "the same torch.manual_seed gave different draws", "相同的 torch.manual_seed 给出了不同的抽样结果"
            ),
        )
    # The last pair of calls was the single-draw batch: the call a decoder makes.
    other = draws(sub.with_global_seed(ctx.fresh_seed("global other")))
    expect_different_under_seeds(
        ctx,
        first,
        other,
        batch.exact.probs,
        label="sample with generator=None and num_samples=1",
        how="two different torch.manual_seed values",
        cause="Without a generator, draw from torch's default generator (what "
        "torch.manual_seed seeds), not from a generator or seed of your own",
        diagnosis=DEFAULT_GENERATOR,
    )


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
        (cases.mixed_rows(), 2_000),
        (cases.many_rows(), 2_000),
        (cases.many_rows_repeated(), 1),
    ):
        # The same call with ordinary random numbers first: a failure there is not about extreme values.
        draws = _draw(sub, ctx, batch, num_samples)
        expect_support(
            draws,
            batch.exact.probs,
            what="sample",
            why_excluded=batch.exact.why_excluded,
            row_labels=batch.labels,
            alternatives=(lambda batch=batch: batch.alternatives) if num_samples > 1 else None,
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
            expect_support(
                draws, batch.exact.probs, what=what, why_excluded=batch.exact.why_excluded, row_labels=batch.labels
            )


EXTREME_UNIFORMS_DIAGNOSIS = MISTAKES["extreme_uniforms"]
EVERY_KIND = (Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED)


# --- bad input ------------------------------------------------------------------------------

BAD_SHAPE = MISTAKES["bad_shape_accepted"]
BAD_ROW = MISTAKES["bad_row_accepted"]


def _bad_parameters() -> list[tuple[dict, str, str, Bilingual | None]]:
    """(keyword arguments, what is wrong, the same without values, the mistake if accepted) for five rows."""

    def one_bad_row(good: float, bad: float, dtype: torch.dtype = torch.float64) -> torch.Tensor:
        values = torch.full((5,), good, dtype=dtype)
        values[3] = bad
        return values

    return [
        ({"temperature": -0.5}, "a negative temperature", "a negative temperature", None),
        ({"top_p": 0.0}, "top_p = 0", "a top_p of 0", None),
        ({"top_p": 1.5}, "top_p = 1.5", "a top_p above 1", None),
        ({"min_p": 1.0}, "min_p = 1", "a min_p of 1", None),
        ({"min_p": -0.1}, "min_p = -0.1", "a negative min_p", None),
        ({"top_k": -1}, "top_k = -1", "a negative top_k", None),
        (
            {"temperature": torch.ones(7, dtype=torch.float64)},
            "a temperature tensor of length 7 for 5 rows",
            "a temperature tensor of the wrong length",
            BAD_SHAPE,
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
        )
    )
    expect_calls_refused(calls)


def test_bad_logits(sub, ctx):
    """Bad logits raise ValueError

    zh: 非法 logits 抛出 ValueError
    """
    bad = [
        (torch.tensor([[0.5, float("nan"), 1.0]]), "NaN logits"),
        (torch.tensor([[0.5, 1.0, 2.0], [float("-inf")] * 3]), "a row with no finite logit"),
        (torch.tensor([0.5, 1.0, 2.0]), "1-D logits"),
        (torch.zeros(2, 3, 4), "3-D logits"),
    ]
    expect_calls_refused(
        [
            BadCall(
                getattr(sub, function),
                f"{function}() with {description}",
                args=(logits,),
                kwargs={"generator": ctx.generator()} if function == "sample" else {},
            )
            for logits, description in bad
            for function in ("sampling_probs", "sample")
        ]
    )
