"""Hidden tests of exercise 52. Never shown to learners; run in the judge's process only.

The deterministic functions (runs_needed, percentile_interval, bca_interval, jackknife_stats) against
float64 answers on generated inputs (both dtypes, ties, repeated values, one resample, levels near 0 and 1,
awkward floats); bootstrap_stats by the exact law of a resampled statistic on small rows, its generator
contract and every draw site at its extremes; bootstrap_ci and difference_ci by their coverage over
thousands of data sets with a known truth (``coverage.py``); every refusal of the statement generated from
``specs.py``. Sizes and power: benchmarks/power_052.py.
"""

from __future__ import annotations

import torch

from judge.checks.arguments import expect_contract_accepts, expect_contract_refusals
from judge.checks.budget import BudgetDeclaration
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import GLOBAL_RNG_DIAGNOSIS, expect_generator_contract, generator_contract_budget
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

from ..public import checks52, oracle52
from ..public.diagnoses import MISTAKES
from . import coverage, specs

# The generator contract's rows: three rows of four values and a twin of row 0 (rows must not be tied).
CONTRACT_ROWS = torch.tensor([[0.0, 1.0, 4.0, 10.0], [1.0, 2.0, 2.0, 7.0], [0.0, 3.0, 5.0, 6.0], [0.0, 1.0, 4.0, 10.0]])
CONTRACT_TARGETS = checks52.padded_targets(checks52.laws(CONTRACT_ROWS, "mean"))
MEDIAN_ROWS = torch.tensor([[0.0, 1.0, 3.0, 8.0], [2.0, 2.0, 5.0, 9.0]], dtype=torch.float64)
P90_ROWS = torch.tensor([[0.0, 1.0, 3.0, 7.0, 12.0]])

BUDGET = BudgetDeclaration(fit=3, calibration=6) + generator_contract_budget(
    CONTRACT_TARGETS, positions=True, twins=(0, 3)
)


def _awkward(rng, n):
    """Values with repeats, awkward decimals and a spread of scales."""
    scale = rng.choice((1e-3, 1.0, 250.0))
    pool = [round(rng.lognormvariate(0.0, 0.7) * scale, rng.choice((1, 3, 7))) for _ in range(max(2, n // 2))]
    return [rng.choice(pool) if rng.random() < 0.3 else rng.lognormvariate(0.0, 0.7) * scale for _ in range(n)]


def test_runs_needed(sub, ctx):
    """runs_needed: the chapter's question and generated standard deviations, differences and z

    zh: runs_needed：本章的问题，以及随机生成的标准差、差值和 z
    """
    checks52.check_runs(sub, 1.2, 1.2, 0.1, None)
    checks52.check_runs(sub, 1.2, 1.3, 0.1, 2.0)
    checks52.check_runs(sub, 0.0, 0.0, 0.3, 2.0)
    checks52.check_runs(sub, 3.0, 0.5, -1.0, 1.0)
    checks52.check_runs(sub, 2.0, 0.0, 1.0, 2.0)  # a whole-number bound, exact in any order: 16, never 17
    checks52.check_runs(sub, 1.5, 2.0, 0.5, 1.0)  # 6.25 / 0.25 = 25 exactly
    rng = ctx.rng
    for _ in range(12):
        sd_a, sd_b = round(rng.uniform(0.1, 3.0), 3), round(rng.uniform(0.1, 3.0), 3)
        difference = rng.choice((1, -1)) * round(rng.uniform(0.02, 1.0), 4)
        checks52.check_runs(sub, sd_a, sd_b, difference, rng.choice((None, 1.0, 1.96, 2.5, 3)))


def test_percentile_generated(sub, ctx):
    """percentile_interval on generated rows: both dtypes, ties, one resample, levels near 0 and 1

    zh: percentile_interval 在随机生成的行上：两种 dtype、并列值、只有一次重抽样、接近 0 和 1 的 level
    """
    rng = ctx.rng
    for dtype in (torch.float32, torch.float64):
        for level in (rng.uniform(0.5, 0.95), 0.999, 0.02):
            resamples = rng.choice((1, 2, 7, 40, 199))
            boot = torch.tensor([_awkward(rng, resamples) for _ in range(rng.randint(1, 4))], dtype=dtype)
            checks52.check_percentile(
                sub, ctx, boot, level, what=f"percentile_interval(R = {resamples}, level = {level:.4g}, {dtype})"
            )


def _bca_case(rng, dtype):
    while True:
        rows, resamples, n = rng.randint(1, 4), rng.choice((1, 9, 40, 200)), rng.randint(2, 12)
        boot = torch.tensor([_awkward(rng, resamples) for _ in range(rows)], dtype=dtype)
        jack = torch.tensor([_awkward(rng, n) for _ in range(rows)], dtype=dtype)
        jack[0] = jack[0, 0]  # a row of equal jackknife values: the acceleration is 0, never 0 / 0
        # the estimate: a value of the row (ties), its mean, or a value outside the row (a clamped share)
        picks = []
        for row in boot.tolist():
            choice = rng.random()
            picks.append(rng.choice(row) if choice < 0.4 else (sum(row) / len(row) if choice < 0.8 else min(row) - 1))
        estimate = torch.tensor(picks, dtype=dtype)
        level = rng.choice((0.5, 0.8, 0.9, 0.95))
        ok = all(
            oracle52.bca_denominators(e, b, j, level) > 0.2
            for e, b, j in zip(estimate.double().tolist(), oracle52.rows_of(boot), oracle52.rows_of(jack), strict=True)
        )
        if ok:
            return estimate, boot, jack, level


def test_bca_generated(sub, ctx):
    """bca_interval on generated rows: ties with the estimate, clamped shares, skewed jackknife values, both dtypes

    zh: bca_interval 在随机生成的行上：与估计值并列、比例被截断、偏斜的 jackknife 值、两种 dtype
    """
    rng = ctx.rng
    for dtype in (torch.float32, torch.float64, torch.float64):
        estimate, boot, jack, level = _bca_case(rng, dtype)
        what = f"bca_interval(R = {boot.shape[1]}, n = {jack.shape[1]}, level = {level}, {dtype})"
        checks52.check_bca(sub, ctx, estimate, boot, jack, level, what=what)


def test_bca_equal_jackknife(sub, ctx):
    """bca_interval: equal jackknife values whose float mean rounds away from them give acceleration 0

    zh: bca_interval：jackknife 值全部相等（其浮点均值会舍入到别处）时加速度为 0
    """
    checks52.check_bca_equal_jackknife(sub, ctx, sizes=(3, 6))


def test_jackknife_generated(sub, ctx):
    """jackknife_stats on generated rows of every statistic: repeated values, n = 2, both dtypes

    zh: jackknife_stats 在随机生成的行上，每种统计量：重复值、n = 2、两种 dtype
    """
    rng = ctx.rng
    for statistic in ("mean", "median", "p90"):
        for dtype in (torch.float32, torch.float64):
            n = rng.choice((2, 3, 6, 11))
            samples = torch.tensor([_awkward(rng, n) for _ in range(rng.randint(1, 3))], dtype=dtype)
            checks52.check_jackknife(
                sub, ctx, samples, statistic, what=f"jackknife_stats({statistic}, n = {n}, {dtype})"
            )


def test_bootstrap_law_and_generator(sub, ctx):
    """bootstrap_stats(mean): the exact law of each row, and the generator contract (seed, stream, rows apart)

    zh: bootstrap_stats(mean)：每行的精确分布，以及生成器约定（种子、连续的随机流、行与行互不相干）
    """
    row_laws = checks52.laws(CONTRACT_ROWS, "mean")

    def draw(source, generator, rows=None):
        picked = CONTRACT_ROWS if rows is None else CONTRACT_ROWS[rows]
        resamples = 48 if rows is None else 3000
        laws_here = row_laws if rows is None else [row_laws[i] for i in rows]
        value = source.bootstrap_stats(samples=picked, statistic="mean", n_resamples=resamples, generator=generator)
        return checks52.law_ids(
            value, ctx, laws_here, dtype=torch.float32, resamples=resamples, what="bootstrap_stats(mean)"
        )

    expect_generator_contract(
        sub, ctx, draw, CONTRACT_TARGETS, label="bootstrap_stats(mean)", positions=True, twins=(0, 3), outcome="value"
    )


def test_bootstrap_law_quantiles(sub, ctx):
    """bootstrap_stats(median) and (p90): each row's values follow the exact law of a resampled quantile

    zh: bootstrap_stats(median) 与 (p90)：每行的值服从重抽样分位数的精确分布
    """
    checks52.check_law(sub, ctx, MEDIAN_ROWS, "median", 4000, what="bootstrap_stats(median)")
    checks52.check_law(sub, ctx, P90_ROWS, "p90", 4000, what="bootstrap_stats(p90)")


def test_draw_sites(sub, ctx):
    """bootstrap_stats and difference_ci: every draw site copes with extreme random numbers

    zh: bootstrap_stats 与 difference_ci：每个抽样点都能处理极端的随机数
    """
    samples = torch.tensor([[0.5, 1.5, 2.0, 9.0], [3.0, 3.0, 4.0, 6.0]], dtype=torch.float64)

    def call(source, generator):
        return source.bootstrap_stats(samples=samples, statistic="p90", n_resamples=5, generator=generator)

    def check(value, what):
        checks52.expect_values_in_range(value, samples, ctx, resamples=5, what=what)

    expect_every_draw_site(sub, ctx, call, check, label="bootstrap_stats(p90)")
    a, b = samples[:, :3].float(), samples.float()

    def call_difference(source, generator):
        return source.difference_ci(a=a, b=b, paired=False, level=0.9, n_resamples=6, generator=generator)

    def check_difference(value, what):
        value = checks52.expect_intervals(value, ctx, rows=2, dtype=torch.float32, what=what)
        span = float(b.max() - a.min()) + 1e-4
        expect(bool((value.abs() <= span).all()), f"{what}: an interval end outside every possible difference")

    expect_every_draw_site(sub, ctx, call_difference, check_difference, label="difference_ci(unpaired)")


def test_interval_properties(sub, ctx):
    """bootstrap_ci stays inside the data; difference_ci(paired) of pairs 0.5 apart is (0.5, 0.5), both dtypes

    zh: bootstrap_ci 不超出数据范围；每对相差 0.5 的 difference_ci(paired) 为 (0.5, 0.5)，两种 dtype
    """
    rng = ctx.rng
    n = rng.randint(3, 8)
    for statistic, method in (("mean", "percentile"), ("median", "bca"), ("p90", "percentile"), ("mean", "bca")):
        samples = torch.tensor([_awkward(rng, n) for _ in range(3)], dtype=rng.choice((torch.float32, torch.float64)))
        checks52.check_ci_in_range(sub, ctx, samples, statistic, method, what=f"bootstrap_ci({statistic}, {method})")
    for dtype in (torch.float32, torch.float64):
        checks52.check_paired_shift(sub, ctx, dtype, what=f"difference_ci(paired, b = a + 0.5, {dtype})")


def test_intervals_use_the_generator(sub, ctx):
    """bootstrap_ci and difference_ci: one generator seed gives one interval, whatever torch's global seed

    zh: bootstrap_ci 与 difference_ci：同一个生成器种子给出同一个区间，与 torch 的全局种子无关
    """
    a = torch.tensor([[0.5, 1.5, 2.0, 9.0, 3.0], [3.0, 3.5, 4.0, 6.0, 1.0]], dtype=torch.float64)
    b = torch.tensor([[1.0, 2.5, 0.5, 4.0], [2.0, 2.0, 7.0, 1.5]], dtype=torch.float64)
    calls = {
        "bootstrap_ci(mean, percentile)": lambda s: s.bootstrap_ci(
            samples=a,
            statistic="mean",
            level=0.9,
            n_resamples=30,
            method="percentile",
            generator=ctx.generator(seed=52),
        ),
        "bootstrap_ci(median, bca)": lambda s: s.bootstrap_ci(
            samples=a, statistic="median", level=0.9, n_resamples=30, method="bca", generator=ctx.generator(seed=52)
        ),
        "difference_ci(unpaired)": lambda s: s.difference_ci(
            a=a, b=b, paired=False, level=0.9, n_resamples=30, generator=ctx.generator(seed=52)
        ),
        "difference_ci(paired)": lambda s: s.difference_ci(
            a=a[:, :4], b=b, paired=True, level=0.9, n_resamples=30, generator=ctx.generator(seed=52)
        ),
    }
    for what, call in calls.items():
        first = checks52.expect_intervals(
            call(sub.with_global_seed(1, once=True)), ctx, rows=2, dtype=torch.float64, what=what
        )
        second = checks52.expect_intervals(
            call(sub.with_global_seed(2, once=True)), ctx, rows=2, dtype=torch.float64, what=what
        )
        expect(
            torch.equal(first, second),
            f"{what}: two calls with generators of the same seed gave different intervals after different "
            "torch.manual_seed calls: every random number must come from `generator`",
            diagnosis=GLOBAL_RNG_DIAGNOSIS,
            rule=Bilingual(
                f"{what}: the interval depends on torch's global seed", f"{what}：区间取决于 torch 的全局种子"
            ),
            kind=Evidence.VALUE,
        )


# Skewed rows whose resampled means sit on a lattice (K / 10 tens, K binomial): at level 0.8 the exact BCa
# levels are 0.184 and 0.966 (row 0; atoms end at 0.349, 0.930, 0.987) and 0.034 and 0.817 (row 1; atoms
# end at 0.013, 0.070, 0.651), the percentile ones 0.1 and 0.9, all at least 0.02 inside an atom. With
# R = 20 000 the empirical law is within 0.004 of the exact one (over 5 standard deviations short of any
# edge, and z0 moves the levels by about 0.003), so every correct solution returns exactly these ends
# (tests/exercises/test_052_load_test_error_bars.py runs the reference under 8 seeds).
SKEWED_ROWS = torch.tensor([[0.0] * 9 + [10.0], [10.0] * 9 + [0.0]])
SKEWED_RESAMPLES = 20_000
SKEWED_BCA = [[0.0, 3.0], [7.0, 10.0]]
SKEWED_PERCENTILE = [[0.0, 2.0], [8.0, 10.0]]


# Unpaired rows of different lengths on a lattice (a [2, 10], b [2, 2]); row 0: a all 0, b = [0, 10]; row 1:
# a nine 0s and a 10, b all 0. At level 0.8 every end sits at least 0.03 inside an atom of its exact law.
UNPAIRED_A = torch.tensor([[0.0] * 10, [0.0] * 9 + [10.0]], dtype=torch.float64)
UNPAIRED_B = torch.tensor([[0.0, 10.0], [0.0, 0.0]], dtype=torch.float64)
UNPAIRED_ENDS = [[0.0, 10.0], [-2.0, 0.0]]
UNPAIRED_B_WITH_A_LENGTH = [[3.0, 7.0], [-2.0, 0.0]]


def test_unpaired_lengths(sub, ctx):
    """difference_ci(unpaired): each sample resampled with its own length, on lattice rows of lengths 10 and 2

    zh: difference_ci(unpaired)：每边按自己的长度重抽样，数据是长度为 10 和 2 的格点行
    """
    what = "difference_ci(unpaired, n = 10, m = 2, level=0.8, R=20000)"
    value = sub.difference_ci(
        a=UNPAIRED_A, b=UNPAIRED_B, paired=False, level=0.8, n_resamples=SKEWED_RESAMPLES, generator=ctx.generator()
    )
    value = checks52.expect_intervals(value, ctx, rows=2, dtype=torch.float64, what=what)
    expect_close(
        value,
        torch.tensor(UNPAIRED_ENDS, dtype=torch.float64),
        rtol=0.0,
        atol=1e-9,
        what=what,
        mistakes={MISTAKES["unpaired_shared_length"]: torch.tensor(UNPAIRED_B_WITH_A_LENGTH, dtype=torch.float64)},
    )


def test_bca_moves_the_ends(sub, ctx):
    """bootstrap_ci(mean, bca) on skewed rows: the ends move away from the percentile ones, as BCa says

    zh: 偏斜数据上的 bootstrap_ci(mean, bca)：两端按 BCa 的规则偏离百分位区间的两端
    """
    what = "bootstrap_ci(mean, bca, level=0.8, R=20000) on skewed rows"
    value = sub.bootstrap_ci(
        samples=SKEWED_ROWS,
        statistic="mean",
        level=0.8,
        n_resamples=SKEWED_RESAMPLES,
        method="bca",
        generator=ctx.generator(),
    )
    value = checks52.expect_intervals(value, ctx, rows=2, dtype=torch.float32, what=what)
    expect_close(
        value,
        torch.tensor(SKEWED_BCA, dtype=torch.float64),
        rtol=0.0,
        atol=1e-4,
        what=what,
        mistakes={MISTAKES["bca_method_is_percentile"]: torch.tensor(SKEWED_PERCENTILE, dtype=torch.float64)},
    )


def _coverage(sub, ctx, case, call):
    checks52.coverage_case(
        ctx,
        call(),
        case.rows,
        case.truth,
        label=case.label(),
        public=case.name,
        mistakes=case.mistakes,
        dtype=case.dtype,
    )


def _coverage_bootstrap(sub, ctx, case, draw, size: int, *, statistic: str, method: str) -> None:
    """``bootstrap_ci`` on rows of ``size`` values from ``draw(generator, rows, size)``: ``_coverage``."""
    (samples,) = coverage.data(ctx, case, lambda g, rows: (draw(g, rows, size),))
    _coverage(
        sub,
        ctx,
        case,
        lambda: sub.bootstrap_ci(
            samples=samples,
            statistic=statistic,
            level=coverage.LEVEL,
            n_resamples=coverage.RESAMPLES,
            method=method,
            generator=ctx.generator(),
        ),
    )


@lane_weight(4)
def test_coverage_mean_percentile(sub, ctx):
    """bootstrap_ci(mean, percentile): intervals cover the true mean of lognormal latencies at a correct rate

    zh: bootstrap_ci(mean, percentile)：区间以正确的频率覆盖对数正态延迟的真实均值
    """
    _coverage_bootstrap(
        sub, ctx, coverage.MEAN_LOGNORMAL, coverage.lognormal, 60, statistic="mean", method="percentile"
    )


@lane_weight(4)
def test_coverage_mean_bca(sub, ctx):
    """bootstrap_ci(mean, bca), float32: intervals cover the true mean accepted length at a correct rate

    zh: bootstrap_ci(mean, bca)，float32：区间以正确的频率覆盖真实的平均接受长度
    """
    _coverage_bootstrap(sub, ctx, coverage.MEAN_ACCEPTED, coverage.accepted, 40, statistic="mean", method="bca")


@lane_weight(5)
def test_coverage_median(sub, ctx):
    """bootstrap_ci(median, percentile): intervals cover the true median latency at a correct rate

    zh: bootstrap_ci(median, percentile)：区间以正确的频率覆盖真实的延迟中位数
    """
    _coverage_bootstrap(
        sub, ctx, coverage.MEDIAN_LOGNORMAL, coverage.lognormal, 41, statistic="median", method="percentile"
    )


@lane_weight(6)
def test_coverage_p90_bca(sub, ctx):
    """bootstrap_ci(p90, bca): intervals cover the true 90th percentile latency at a correct rate

    zh: bootstrap_ci(p90, bca)：区间以正确的频率覆盖真实的 90 分位延迟
    """
    _coverage_bootstrap(sub, ctx, coverage.P90_EXPONENTIAL, coverage.exponential, 60, statistic="p90", method="bca")


@lane_weight(4)
def test_coverage_paired(sub, ctx):
    """difference_ci(paired): intervals cover the true difference of two configurations on shared prompts

    zh: difference_ci(paired)：在同一批提示词上，区间以正确的频率覆盖两套配置的真实差值
    """
    case = coverage.PAIRED
    a, b = coverage.data(ctx, case, coverage.paired)
    _coverage(
        sub,
        ctx,
        case,
        lambda: sub.difference_ci(
            a=a, b=b, paired=True, level=coverage.LEVEL, n_resamples=coverage.RESAMPLES, generator=ctx.generator()
        ),
    )


@lane_weight(4)
def test_coverage_unpaired(sub, ctx):
    """difference_ci(unpaired), samples of different lengths: intervals cover the true difference

    zh: difference_ci(unpaired)，两边长度不同：区间以正确的频率覆盖真实差值
    """
    case = coverage.UNPAIRED
    a, b = coverage.data(ctx, case, coverage.unpaired)
    _coverage(
        sub,
        ctx,
        case,
        lambda: sub.difference_ci(
            a=a, b=b, paired=False, level=coverage.LEVEL, n_resamples=coverage.RESAMPLES, generator=ctx.generator()
        ),
    )


# --- the statement's refusals, generated -------------------------------------------------------------


def test_refusals_bootstrap_stats(sub, ctx):
    """bootstrap_stats: every bad input the statement names, generated, raises ValueError

    zh: bootstrap_stats：按题面生成的各种非法输入都抛出 ValueError
    """
    expect_contract_refusals(
        sub.bootstrap_stats,
        ctx,
        good=specs.good_stats(ctx.rng),
        arguments=specs.STATS_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
    )


def test_refusals_intervals(sub, ctx):
    """percentile_interval, bca_interval, jackknife_stats: every bad input the statement names raises ValueError

    zh: percentile_interval、bca_interval、jackknife_stats：按题面生成的各种非法输入都抛出 ValueError
    """
    expect_contract_refusals(
        sub.percentile_interval, ctx, good=specs.good_percentile(ctx.rng), arguments=specs.PERCENTILE_ARGUMENTS
    )
    expect_contract_refusals(sub.bca_interval, ctx, good=specs.good_bca(ctx.rng), arguments=specs.BCA_ARGUMENTS)
    expect_contract_refusals(
        sub.jackknife_stats, ctx, good=specs.good_jackknife(ctx.rng), arguments=specs.JACKKNIFE_ARGUMENTS
    )


def test_refusals_ci(sub, ctx):
    """bootstrap_ci and difference_ci: every bad input the statement names, generated, raises ValueError

    zh: bootstrap_ci 与 difference_ci：按题面生成的各种非法输入都抛出 ValueError
    """
    extra = lambda: {"generator": ctx.generator()}  # noqa: E731 - one line, used three times
    expect_contract_refusals(
        sub.bootstrap_ci, ctx, good=specs.good_ci(ctx.rng), arguments=specs.CI_ARGUMENTS, extra=extra
    )
    paired = lambda: {"generator": ctx.generator(), "paired": True}  # noqa: E731
    unpaired = lambda: {"generator": ctx.generator(), "paired": False}  # noqa: E731
    expect_contract_refusals(
        sub.difference_ci,
        ctx,
        good=specs.good_difference(ctx.rng, True),
        arguments=specs.PAIRED_ARGUMENTS,
        extra=paired,
    )
    expect_contract_refusals(
        sub.difference_ci,
        ctx,
        good=specs.good_difference(ctx.rng, False),
        arguments=specs.UNPAIRED_ARGUMENTS,
        extra=unpaired,
    )


def test_refusals_runs_needed(sub, ctx):
    """runs_needed: every bad number the statement names raises ValueError, a zero difference and bools too

    zh: runs_needed：题面列出的各种非法数值都抛出 ValueError，差值为 0 和 bool 参数也一样
    """
    expect_contract_refusals(sub.runs_needed, ctx, good=specs.good_runs(ctx.rng), arguments=specs.RUNS_ARGUMENTS)
    a = torch.tensor([[1.0, 2.0, 3.0]])
    calls = [
        BadCall(sub.runs_needed, "difference=0.0", kwargs={"sd_a": 1.0, "sd_b": 1.0, "difference": 0.0}),
        BadCall(sub.runs_needed, "difference=0", kwargs={"sd_a": 1.0, "sd_b": 1.0, "difference": 0}),
        BadCall(sub.runs_needed, "sd_a=True", kwargs={"sd_a": True, "sd_b": 1.0, "difference": 0.5}),
        BadCall(sub.difference_ci, "paired=1", kwargs={"a": a, "b": a, "paired": 1, "level": 0.9, "n_resamples": 5}),
        BadCall(
            sub.difference_ci, "paired='yes'", kwargs={"a": a, "b": a, "paired": "yes", "level": 0.9, "n_resamples": 5}
        ),
    ]
    expect_calls_refused(calls)


def _exact_corner(function_name, oracle, ctx):
    def check(value, variant):
        kwargs = variant.kwargs
        expected = oracle(kwargs)
        dtype = next(v.dtype for v in kwargs.values() if isinstance(v, torch.Tensor))
        value = expect_tensor(value, name=function_name, shape=tuple(expected.shape), dtype=dtype, device=ctx.device)
        scale = max(float(expected.abs().max()), 1e-30)
        expect_close(
            value,
            expected,
            rtol=0.0,
            atol=16 * torch.finfo(dtype).eps * scale,
            what=f"{function_name} ({variant.description})",
        )

    return check


def _bca_corner(ctx):
    def check(value, variant):
        k = variant.kwargs
        rows = zip(
            k["estimate"].double().tolist(),
            oracle52.rows_of(k["boot_stats"]),
            oracle52.rows_of(k["jackknife_stats"]),
            strict=True,
        )
        if not all(oracle52.bca_denominators(e, b, j, k["level"]) > 0.05 for e, b, j in rows):
            return  # a row the statement leaves open: any answer is accepted
        expected, atol = checks52.bca_expected(k["estimate"], k["boot_stats"], k["jackknife_stats"], k["level"])
        dtype = k["boot_stats"].dtype
        value = expect_tensor(value, name="bca_interval", shape=tuple(expected.shape), dtype=dtype, device=ctx.device)
        expect_close(value, expected, rtol=0.0, atol=atol, what=f"bca_interval ({variant.description})")

    return check


def test_legal_corners(sub, ctx):
    """every function accepts the legal corners (B = 1, n = 2, R = 1, the other dtype) and answers them exactly

    zh: 每个函数都接受合法的边界输入（B = 1、n = 2、R = 1、另一种 dtype），确定性的函数给出精确答案
    """
    rng = ctx.rng
    expect_contract_accepts(
        sub.percentile_interval,
        ctx,
        good=specs.good_percentile(rng),
        arguments=specs.legal(specs.PERCENTILE_ARGUMENTS),
        check=_exact_corner(
            "percentile_interval", lambda k: oracle52.percentile_rows(k["boot_stats"], k["level"]), ctx
        ),
    )
    expect_contract_accepts(
        sub.bca_interval,
        ctx,
        good=specs.good_bca(rng),
        arguments=specs.legal(specs.BCA_ARGUMENTS),
        check=_bca_corner(ctx),
    )
    expect_contract_accepts(
        sub.jackknife_stats,
        ctx,
        good=specs.good_jackknife(rng),
        arguments=specs.JACKKNIFE_ARGUMENTS,
        check=_exact_corner("jackknife_stats", lambda k: oracle52.jackknife_rows(k["samples"], k["statistic"]), ctx),
    )
    gen = lambda: {"generator": ctx.generator()}  # noqa: E731
    expect_contract_accepts(
        sub.bootstrap_stats, ctx, good=specs.good_stats(rng), arguments=specs.STATS_ARGUMENTS, extra=gen
    )
    expect_contract_accepts(
        sub.bootstrap_ci, ctx, good=specs.good_ci(rng), arguments=specs.legal(specs.CI_ARGUMENTS), extra=gen
    )
    expect_contract_accepts(
        sub.difference_ci,
        ctx,
        good=specs.good_difference(rng, False),
        arguments=specs.legal(specs.UNPAIRED_ARGUMENTS),
        extra=lambda: {"generator": ctx.generator(), "paired": False},
    )
    expect_contract_accepts(
        sub.runs_needed,
        ctx,
        good=specs.good_runs(rng),
        arguments=specs.RUNS_ARGUMENTS,
        check=lambda value, variant: checks52.check_runs_value(value, variant.kwargs),
    )
