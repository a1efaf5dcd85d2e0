"""Hidden tests of exercise 39. Never shown to learners; run in the judge's process only.

Deterministic checks of ``sampling_probs`` against the exact float64 target come first, then
the draws of ``sample``: hard checks (shape, range, support, greedy), goodness of fit per row,
independence of duplicated rows, seeds, and a phase with extreme uniform values.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.checks import (
    SEEDS_DIAGNOSIS,
    expect,
    expect_close,
    expect_different_under_seeds,
    expect_distribution,
    expect_independent_rows,
    expect_raises,
    expect_support,
    expect_tensor,
)

from judge.i18n import Bilingual

from . import cases
from .oracle import MISTAKES, RowParams, target

# Goodness-of-fit checks: mixed 7 (row 6 is greedy), zipf 3, float64 2, scalar 2.
BUDGET = BudgetDeclaration(fit=14, independence=1, seeds=1)

MIXED_DRAWS = 16_000
ZIPF_DRAWS = 8_000
SMALL_DRAWS = 4_000

# |actual - expected| <= ATOL + RTOL * expected; see docs/statistics.md for the derivation.
TOLERANCE = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}


def _check_probs(sub, ctx, batch: cases.Batch, *, what: str, per_row: bool = True) -> None:
    params = batch.param_tensors() if per_row else _scalar_params(batch)
    out = sub.sampling_probs(batch.logits, **params)
    out = expect_tensor(out, name="sampling_probs", shape=batch.logits.shape, dtype=batch.logits.dtype, device=ctx.device)
    rtol, atol = TOLERANCE[batch.logits.dtype]
    expect_close(out, batch.exact.probs, rtol=rtol, atol=atol, what=what, row_labels=batch.labels,
                 mistakes=lambda: batch.alternatives)


def _scalar_params(batch: cases.Batch) -> dict:
    first = batch.params[0]
    assert all(p == first for p in batch.params), "scalar parameters need identical rows"
    return {"temperature": first.temperature, "top_k": first.top_k, "top_p": first.top_p, "min_p": first.min_p}


def _draw(sub, ctx, batch: cases.Batch, num_samples: int, *, per_row: bool = True) -> torch.Tensor:
    params = batch.param_tensors() if per_row else _scalar_params(batch)
    draws = sub.sample(batch.logits, num_samples=num_samples, generator=ctx.generator(), **params)
    return expect_tensor(draws, name="sample", shape=(batch.logits.shape[0], num_samples), dtype=torch.int64,
                         device=ctx.device)


def _check_draws(ctx, draws: torch.Tensor, batch: cases.Batch, *, what: str, fit_rows: list[int]) -> None:
    """Support for every row, then a goodness-of-fit test for each row in ``fit_rows``."""
    expect_support(draws, batch.exact.probs, what=what, why_excluded=batch.exact.why_excluded,
                   row_labels=batch.labels, alternatives=lambda: batch.alternatives)
    for row in fit_rows:
        expect_distribution(ctx, draws[row], batch.exact.probs[row], label=f"{what}, row {row} ({batch.labels[row]})",
                            alternatives=lambda row=row: batch.row_alternatives(row))


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


def test_probs_large_vocabulary(sub, ctx):
    """sampling_probs: a 32 000-token Zipf-like vocabulary

    zh: sampling_probs：32 000 个 token 的类 Zipf 词表
    """
    _check_probs(sub, ctx, cases.zipf_rows(), what="sampling_probs over 32 000 tokens")


def test_probs_greedy_ties(sub, ctx):
    """sampling_probs: temperature 0 gives the one-hot of the first maximum

    zh: sampling_probs：温度为 0 时返回第一个最大值的 one-hot
    """
    _check_probs(sub, ctx, cases.greedy_rows(), what="sampling_probs at temperature 0", per_row=False)


def test_probs_each_filter_alone(sub, ctx):
    """sampling_probs: temperature, top-k, top-p and min-p one at a time

    zh: sampling_probs：温度、top-k、top-p、min-p 逐个单独检查
    """
    logits = cases.mixed_rows().logits[:1].expand(6, -1).clone()
    params = [RowParams(temperature=0.5), RowParams(temperature=2.0), RowParams(top_k=3),
              RowParams(top_p=0.6), RowParams(min_p=0.2), RowParams(top_k=10)]
    labels = ["temperature 0.5", "temperature 2", "top_k=3", "top_p=0.6", "min_p=0.2", "top_k=V disables it"]
    _check_probs(sub, ctx, cases.Batch(logits, params, target(logits, params), labels), what="sampling_probs, one filter")


# --- sample: hard checks -----------------------------------------------------------------

def test_sample_shape_and_default(sub, ctx):
    """sample: shape [B, num_samples], int64, num_samples defaults to 1

    zh: sample：形状 [B, num_samples]、int64，num_samples 默认为 1
    """
    batch = cases.scalar_rows()
    draws = sub.sample(batch.logits, temperature=0.8, top_k=5, top_p=0.9, generator=ctx.generator())
    expect_tensor(draws, name="sample(logits) with the default num_samples", shape=(2, 1), dtype=torch.int64,
                  device=ctx.device)
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
            expect(wrong.numel() == 0,
                   f"row {row} at temperature 0 ({params}): drew token {wrong[0].item() if wrong.numel() else ''}; "
                   f"greedy decoding must return token {best}, the first of the tied maxima, every time",
                   diagnosis=MISTAKES["no_greedy"])


# --- sample: distributions ----------------------------------------------------------------

def test_sample_mixed_rows(sub, ctx):
    """sample: eight rows with their own parameters follow their distributions

    zh: sample：八行各自的参数下，抽样服从各自的分布
    """
    batch = cases.mixed_rows()
    draws = _draw(sub, ctx, batch, MIXED_DRAWS)
    what = "sample with per-row parameters"
    _check_draws(ctx, draws, batch, what=what, fit_rows=[0, 1, 2, 3, 4, 5, 7])
    expect_independent_rows(ctx, draws[2], draws[5], batch.exact.probs[2],
                            label=f"{what}: rows 2 and 5 (identical inputs)")


def test_sample_large_vocabulary(sub, ctx):
    """sample: a 32 000-token Zipf-like vocabulary

    zh: sample：32 000 个 token 的类 Zipf 词表
    """
    batch = cases.zipf_rows()
    draws = _draw(sub, ctx, batch, ZIPF_DRAWS)
    _check_draws(ctx, draws, batch, what="sample over 32 000 tokens", fit_rows=[0, 1, 2])


def test_sample_float64(sub, ctx):
    """sample: float64 logits

    zh: sample：float64 的 logits
    """
    batch = cases.float64_rows()
    draws = _draw(sub, ctx, batch, SMALL_DRAWS)
    _check_draws(ctx, draws, batch, what="sample on float64 logits", fit_rows=[0, 1])


def test_sample_scalar_parameters(sub, ctx):
    """sample: scalar parameters

    zh: sample：标量参数
    """
    batch = cases.scalar_rows()
    draws = _draw(sub, ctx, batch, SMALL_DRAWS, per_row=False)
    _check_draws(ctx, draws, batch, what="sample with scalar parameters", fit_rows=[0, 1])


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
    expect(torch.equal(first, second),
           "two calls with generators seeded alike returned different draws: every random number must come "
           "from `generator` (pass it to torch.multinomial / torch.rand)",
           diagnosis=SEEDS_DIAGNOSIS)
    other = draws(sub, generator=ctx.generator())
    expect_different_under_seeds(ctx, first, other, batch.exact.probs, label="sample with two different seeds")
    seeded = sub.with_global_seed(ctx.fresh_seed("global"))
    first = draws(seeded)
    second = draws(seeded)
    expect(torch.equal(first, second),
           "with generator=None, two calls after the same torch.manual_seed returned different draws: "
           "without a generator, use torch's default generator")


def test_extreme_uniforms(sub, ctx):
    """sample: correct when torch.rand returns exactly 0.0 or 0.99999994

    zh: sample：torch.rand 恰好返回 0.0 或 0.99999994 时依然正确
    """
    extreme = sub.with_extreme_uniforms(ctx.fresh_seed("extreme"))
    for batch in (cases.edge_rows(), cases.mixed_rows(), cases.many_rows()):
        # The same call with ordinary random numbers first: a failure there is not about extreme values.
        draws = _draw(sub, ctx, batch, 2_000)
        expect_support(draws, batch.exact.probs, what="sample", why_excluded=batch.exact.why_excluded,
                       row_labels=batch.labels, alternatives=lambda batch=batch: batch.alternatives)
        ctx.diagnose(EXTREME_UNIFORMS_DIAGNOSIS)
        draws = extreme.sample(batch.logits, num_samples=2_000, generator=ctx.generator(), **batch.param_tensors())
        draws = expect_tensor(draws, name="sample", shape=(batch.logits.shape[0], 2_000), dtype=torch.int64,
                              device=ctx.device)
        expect_support(draws, batch.exact.probs, what="sample fed extreme uniform values (0.0 and 0.99999994)",
                       why_excluded=batch.exact.why_excluded, row_labels=batch.labels,
                       diagnosis=ctx.diagnosis)


EXTREME_UNIFORMS_DIAGNOSIS = Bilingual(
    "the sampler fails when torch.rand returns 0.0 or the largest float below 1 "
    "(an inverse CDF must never run past the last allowed token)",
    "当 torch.rand 返回 0.0 或小于 1 的最大浮点数时采样出错（逆 CDF 不能越过最后一个允许的 token）")


# --- bad input ------------------------------------------------------------------------------

def test_bad_parameters(sub, ctx):
    """Bad parameters raise ValueError

    zh: 非法参数抛出 ValueError
    """
    logits = cases.scalar_rows().logits
    bad = [
        ({"temperature": -0.5}, "a negative temperature"),
        ({"top_p": 0.0}, "top_p = 0"),
        ({"top_p": 1.5}, "top_p = 1.5"),
        ({"min_p": 1.0}, "min_p = 1"),
        ({"min_p": -0.1}, "min_p = -0.1"),
        ({"top_k": -1}, "top_k = -1"),
        ({"temperature": torch.tensor([1.0, 1.0, 1.0])}, "a temperature tensor of length 3 for 2 rows"),
        ({"top_p": torch.tensor([0.9, -0.2])}, "a per-row top_p of -0.2"),
    ]
    for kwargs, description in bad:
        for function in ("sampling_probs", "sample"):
            extra = {"generator": ctx.generator()} if function == "sample" else {}
            with expect_raises(ValueError, f"{function}() with {description}"):
                getattr(sub, function)(logits, **kwargs, **extra)
    with expect_raises(ValueError, "sample() with num_samples = 0"):
        sub.sample(logits, num_samples=0, generator=ctx.generator())


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
    for logits, description in bad:
        for function in ("sampling_probs", "sample"):
            extra = {"generator": ctx.generator()} if function == "sample" else {}
            with expect_raises(ValueError, f"{function}() with {description}"):
                getattr(sub, function)(logits, **extra)
