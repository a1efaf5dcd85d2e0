"""Exercise 52's checks, shared by the public, tiny and hidden suites.

Deterministic functions are compared with ``oracle52`` (float64, on the values the learner was given) to a
few units of rounding of the input's dtype; ``bootstrap_stats`` is judged by the exact law of a resampled
statistic on small rows (its values mapped to the law's outcomes); the whole intervals by their coverage.
"""

from __future__ import annotations

import math

import torch

from judge.checks.base import CheckFailed
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.estimators import expect_calibrated
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.i18n import Bilingual

from . import oracle52
from .diagnoses import MISTAKES

# The band a correct interval's coverage lies in at the judged sizes (level 0.9; the reference measures
# 0.869 to 0.889 on 16 000 data sets per case: benchmarks/power_052.py).
COVERAGE_BAND = (0.84, 0.93)


def _tolerance(values: torch.Tensor, dtype: torch.dtype) -> float:
    scale = float(values.to(torch.float64).abs().max()) if values.numel() else 1.0
    return 16 * torch.finfo(dtype).eps * max(scale, 1e-30)


def expect_intervals(value, ctx, *, rows: int, dtype: torch.dtype, what: str) -> torch.Tensor:
    """A [rows, 2] tensor of the dtype, finite, each lower end at most its upper end."""
    value = expect_tensor(value, name=what, shape=(rows, 2), dtype=dtype, device=ctx.device)
    finite = bool(torch.isfinite(value).all())
    expect(finite, f"{what}: the interval ends must be finite", kind=Evidence.STRUCTURAL)
    bad = (value[:, 0] > value[:, 1]).nonzero().flatten().tolist()
    expect(
        not bad,
        f"{what}: row {bad[0] if bad else 0}: the lower end {value[bad[0], 0].item() if bad else 0} is above the "
        f"upper end {value[bad[0], 1].item() if bad else 0}",
        rule=Bilingual(f"{what}: a lower end is above its upper end", f"{what}：区间下端高于上端"),
        kind=Evidence.STRUCTURAL,
    )
    return value


# --- deterministic functions ---------------------------------------------------------------------------


def _one_sided(boot, level):
    alpha = 1.0 - level
    return oracle52.quantile(boot, alpha), oracle52.quantile(boot, 1 - alpha)


def _q_times_r(boot, level):
    alpha = 1.0 - level
    ordered = sorted(boot)
    last = len(ordered) - 1

    def at(q):
        h = min(q * len(ordered), float(last))
        below = math.floor(h)
        above = min(below + 1, last)
        return ordered[below] + (h - below) * (ordered[above] - ordered[below])

    return at(alpha / 2), at(1 - alpha / 2)


def check_percentile(sub, ctx, boot: torch.Tensor, level: float, *, what: str) -> None:
    value = sub.percentile_interval(boot_stats=boot, level=level)
    value = expect_intervals(value, ctx, rows=boot.shape[0], dtype=boot.dtype, what=what)
    expect_close(
        value,
        oracle52.percentile_rows(boot, level),
        rtol=0.0,
        atol=_tolerance(boot, boot.dtype),
        what=what,
        mistakes=lambda: {
            MISTAKES["one_sided_quantiles"]: oracle52.percentile_rows(boot, level, fn=_one_sided),
            MISTAKES["position_q_times_r"]: oracle52.percentile_rows(boot, level, fn=_q_times_r),
        },
    )


def bca_expected(estimate, boot, jack, level: float) -> tuple[torch.Tensor, float]:
    """The BCa ends and their tolerance: rounding, plus how far the ends move when the adjusted levels move by
    1e-6 (Phi and its inverse differ between correct implementations: erfinv, ndtri, NormalDist)."""
    expected = oracle52.bca_rows(estimate, boot, jack, level)
    drift = max(
        float((oracle52.bca_rows(estimate, boot, jack, level, shift=d) - expected).abs().max()) for d in (-1e-6, 1e-6)
    )
    return expected, _tolerance(boot, boot.dtype) + drift


def check_bca(sub, ctx, estimate, boot, jack, level: float, *, what: str) -> None:
    value = sub.bca_interval(estimate=estimate, boot_stats=boot, jackknife_stats=jack, level=level)
    value = expect_intervals(value, ctx, rows=boot.shape[0], dtype=boot.dtype, what=what)
    expected, atol = bca_expected(estimate, boot, jack, level)
    expect_close(
        value,
        expected,
        rtol=0.0,
        atol=atol,
        what=what,
        mistakes=lambda: {
            MISTAKES["bca_z0_sign"]: oracle52.bca_rows(estimate, boot, jack, level, z0_sign=-1.0),
            MISTAKES["bca_acceleration_sign"]: oracle52.bca_rows(estimate, boot, jack, level, a_sign=-1.0),
            MISTAKES["bca_ties_not_halved"]: oracle52.bca_rows(estimate, boot, jack, level, ties=0.0),
            MISTAKES["one_sided_quantiles"]: oracle52.bca_rows(estimate, boot, jack, 2 * level - 1),
        },
    )


def check_bca_equal_jackknife(sub, ctx, *, sizes=(3,)) -> None:
    """Jackknife values all 0.1 (their float mean is 0.10000000000000002 for n = 3): the acceleration is 0."""
    boot = torch.tensor([[0.3, 0.1, 0.7, 0.2, 0.5, 0.9, 0.4, 0.6, 0.8, 0.05]], dtype=torch.float64)
    estimate = torch.tensor([0.45], dtype=torch.float64)
    for n in sizes:
        jack = torch.full((1, n), 0.1, dtype=torch.float64)
        value = sub.bca_interval(estimate=estimate, boot_stats=boot, jackknife_stats=jack, level=0.8)
        what = f"bca_interval(jackknife values all 0.1, n = {n})"
        value = expect_intervals(value, ctx, rows=1, dtype=torch.float64, what=what)
        expected, atol = bca_expected(estimate, boot, jack, 0.8)
        spread = jack - jack.mean()
        sign = 1.0 if float(-spread[0, 0]) > 0 else -1.0
        rounded = oracle52.bca_rows(estimate, boot, jack, 0.8, force_a=sign / (6 * n**0.5))
        expect_close(
            value, expected, rtol=0.0, atol=atol, what=what, mistakes={MISTAKES["acceleration_rounded_mean"]: rounded}
        )


def _nearest_stat(values, name):
    if name == "mean":
        return math.fsum(values) / len(values)
    return oracle52.nearest_rank(values, oracle52.QUANTILES[name])


def _mean_stat(values, name):
    return math.fsum(values) / len(values)


def check_jackknife(sub, ctx, samples: torch.Tensor, statistic: str, *, what: str) -> None:
    value = sub.jackknife_stats(samples=samples, statistic=statistic)
    value = expect_tensor(value, name=what, shape=tuple(samples.shape), dtype=samples.dtype, device=ctx.device)

    def mistakes():
        whole = torch.tensor([oracle52.statistic(row, statistic) for row in oracle52.rows_of(samples)])
        table = {MISTAKES["jackknife_full_sample"]: whole.to(torch.float64).unsqueeze(1).expand(samples.shape)}
        if statistic != "mean":
            table[MISTAKES["nearest_rank"]] = oracle52.jackknife_rows(samples, statistic, stat=_nearest_stat)
            table[MISTAKES["median_as_mean"]] = oracle52.jackknife_rows(samples, statistic, stat=_mean_stat)
        return table

    expect_close(
        value,
        oracle52.jackknife_rows(samples, statistic),
        rtol=0.0,
        atol=_tolerance(samples, samples.dtype),
        what=what,
        mistakes=mistakes,
    )


def check_runs(sub, sd_a: float, sd_b: float, difference: float, z: float | None) -> None:
    kwargs = {"sd_a": sd_a, "sd_b": sd_b, "difference": difference} | ({} if z is None else {"z": z})
    check_runs_value(sub.runs_needed(**kwargs), kwargs)


def check_runs_value(value, kwargs: dict) -> None:
    """runs_needed's answer for ``kwargs``: a Python int, the statement's n (or its neighbour at an integer)."""
    sd_a, sd_b, difference = (float(kwargs[k]) for k in ("sd_a", "sd_b", "difference"))
    z = float(kwargs.get("z", 2.0))
    call = "runs_needed(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
    expect(
        isinstance(value, int) and not isinstance(value, bool),
        f"{call} must return a Python int, got {type(value).__name__}",
        kind=Evidence.STRUCTURAL,
    )
    accepted = oracle52.runs_accepted(sd_a, sd_b, difference, z)
    if value in accepted:
        return
    answers = oracle52.runs_mistakes(sd_a, sd_b, difference, z)
    named = [name for name, answer in answers.items() if answer == value and answer not in accepted]
    expect(
        False,
        f"{call} returned {value}; expected {' or '.join(map(str, accepted))}",
        diagnosis=MISTAKES[named[0]] if len(named) == 1 else None,
        rule=Bilingual("runs_needed: the number of runs is wrong", "runs_needed：次数不对"),
        kind=Evidence.VALUE,
    )


# --- the law of bootstrap_stats -----------------------------------------------------------------------


class Law:
    """The outcomes a resampled statistic of one row can take (the correct law's, then its mistakes'), and
    the probability of each under the correct law and under each listed mistake."""

    def __init__(self, values: list[float], statistic: str):
        n = len(values)
        self.target = oracle52.resample_law(values, statistic)
        whole = oracle52.statistic(values, statistic)
        self.mistakes = {
            "without_replacement": oracle52.point_law(whole),
            "resample_n_minus_1": oracle52.resample_law(values, statistic, size=n - 1),
        }
        if n // 2 not in (n - 1, 0):
            self.mistakes["resample_half"] = oracle52.resample_law(values, statistic, size=n // 2)
        if statistic != "mean":
            self.mistakes["median_as_mean"] = oracle52.resample_law(values, "mean")
            self.mistakes["nearest_rank"] = oracle52.resample_law(values, statistic, stat=_nearest_stat)
        keys = sorted(set(self.target).union(*self.mistakes.values()))
        self.outcomes = keys
        gaps = [b - a for a, b in zip(keys, keys[1:], strict=False)]
        assert not gaps or min(gaps) > 1e-3, "a row whose outcomes are too close to tell apart"

    def probs(self, law: dict[float, float]) -> torch.Tensor:
        return torch.tensor([law.get(k, 0.0) for k in self.outcomes], dtype=torch.float64)

    def ids(self, row: torch.Tensor, *, what: str) -> torch.Tensor:
        """Each value's outcome index; a value no resample (nor a listed mistake) can give fails."""
        keys = torch.tensor(self.outcomes, dtype=torch.float64)
        values = row.to(torch.float64)
        ok = torch.isfinite(values)
        expect(bool(ok.all()), f"{what}: a bootstrap value is NaN or infinite", kind=Evidence.VALUE)
        index = torch.searchsorted(keys, values).clamp(0, len(self.outcomes) - 1)
        below = (index - 1).clamp(min=0)
        nearer = torch.where((values - keys[below]).abs() < (values - keys[index]).abs(), below, index)
        distance = (values - keys[nearer]).abs()
        far = (distance > 1e-4 * (1 + values.abs())).nonzero().flatten().tolist()
        expect(
            not far,
            f"{what}: {values[far[0]].item() if far else 0:.6g} is not the statistic of any resample of the row "
            f"(n values drawn with replacement)",
            rule=Bilingual(
                f"{what}: a value that no resample of the row can give",
                f"{what}：出现了这一行任何重抽样都得不到的值",
            ),
            kind=Evidence.VALUE,
        )
        return nearer


def laws(samples: torch.Tensor, statistic: str) -> list[Law]:
    return [Law(row, statistic) for row in oracle52.rows_of(samples)]


def law_ids(value, ctx, row_laws: list[Law], *, dtype, resamples: int, what: str) -> torch.Tensor:
    value = expect_tensor(value, name=what, shape=(len(row_laws), resamples), dtype=dtype, device=ctx.device)
    tied = []
    for i, law in enumerate(row_laws):
        # all R values equal: a correct resampler does that with probability sum p^R < 1e-15 here
        rare = math.fsum(p**resamples for p in law.target.values()) < 1e-15
        if rare and bool((value[i] == value[i, 0]).all()):
            tied.append(i)
    if tied:
        # every tied row at its own data's statistic: a permutation of the row, not one shared draw
        at_whole = [
            abs(value[i, 0].item() - next(iter(row_laws[i].mistakes["without_replacement"]))) < 1e-4 for i in tied
        ]
        # one row alone at its own statistic says nothing: a shared draw lands there by chance too
        named = "shared_draw" if not all(at_whole) else ("without_replacement" if len(tied) >= 2 else None)
        i = tied[0]
        expect(
            False,
            f"{what}, row {i}: all {resamples} bootstrap values are equal ({value[i, 0].item():g})",
            diagnosis=MISTAKES[named] if named else None,
            rule=Bilingual(f"{what}: all bootstrap values of a row are equal", f"{what}：一行的 bootstrap 值全都相同"),
            kind=Evidence.VALUE,
        )
    return torch.stack([law.ids(value[i], what=f"{what}, row {i}") for i, law in enumerate(row_laws)])


def padded_targets(row_laws: list[Law]) -> torch.Tensor:
    width = max(len(law.outcomes) for law in row_laws)
    out = torch.zeros(len(row_laws), width, dtype=torch.float64)
    for i, law in enumerate(row_laws):
        out[i, : len(law.outcomes)] = law.probs(law.target)
    return out


def check_law(sub, ctx, samples: torch.Tensor, statistic: str, resamples: int, *, what: str, generator=None):
    """bootstrap_stats on small rows: every value a resample can give, each row's values following the exact
    law (one fit per row), with the mistakes' laws as alternatives."""
    row_laws = laws(samples, statistic)
    value = sub.bootstrap_stats(
        samples=samples, statistic=statistic, n_resamples=resamples, generator=generator or ctx.generator()
    )
    ids = law_ids(value, ctx, row_laws, dtype=samples.dtype, resamples=resamples, what=what)
    for i, law in enumerate(row_laws):
        alternatives = {MISTAKES[name]: law.probs(m) for name, m in law.mistakes.items()}
        label = f"{what}, row {i}"
        target = law.probs(law.target)
        expect_support(
            ids[i],
            target,
            what=label,
            why_excluded=lambda row, token, law=law: f"no resample of n values gives {law.outcomes[token]:g}",
            alternatives=alternatives,
            outcome=Bilingual("value", "值"),
        )
        expect_distribution(
            ctx, ids[i], target.unsqueeze(0), label=label, alternatives=alternatives, outcome=Bilingual("value", "值")
        )


def expect_values_in_range(value, samples: torch.Tensor, ctx, *, resamples: int, what: str) -> None:
    """Hard checks for pushed draw sites: a [B, R] tensor whose values lie within each row's [min, max]."""
    value = expect_tensor(value, name=what, shape=(samples.shape[0], resamples), dtype=samples.dtype, device=ctx.device)
    low = samples.amin(dim=1, keepdim=True).to(torch.float64)
    high = samples.amax(dim=1, keepdim=True).to(torch.float64)
    v = value.to(torch.float64)
    slack = 1e-6 * (1 + samples.to(torch.float64).abs().amax())
    inside = bool(torch.isfinite(v).all()) and bool(((v >= low - slack) & (v <= high + slack)).all())
    expect(
        inside,
        f"{what}: a bootstrap value lies outside the range of its row's data",
        rule=Bilingual(f"{what}: a value outside the row's range", f"{what}：出现了超出这一行数据范围的值"),
        kind=Evidence.VALUE,
    )


# --- coverage ---------------------------------------------------------------------------------------------


def check_coverage(
    ctx,
    intervals: torch.Tensor,
    truth: float,
    *,
    label: str,
    public: str,
    mistakes: dict[str, float],
) -> None:
    """Intervals [m, 2] cover ``truth`` at a rate inside COVERAGE_BAND (exact binomial test, one calibration)."""
    ends = intervals.to(torch.float64)
    middle = (ends[:, 0] + ends[:, 1]) / 2
    half = (ends[:, 1] - ends[:, 0]) / 2
    try:
        expect_calibrated(
            ctx,
            middle,
            half,
            truth,
            label=label,
            public=public,
            coverage={1.0: COVERAGE_BAND},
            mistakes={MISTAKES[name]: {1.0: c} for name, c in mistakes.items()},
        )
    except CheckFailed as failure:
        known = {MISTAKES[name] for name in mistakes}
        if failure.diagnosis not in known:
            failure.diagnosis = None  # "too narrow / too wide standard error" would misname an interval's fault
        raise


def coverage_case(ctx, value, rows: int, truth: float, *, label, public, mistakes, dtype) -> None:
    """A learner's [rows, 2] intervals, well formed and covering ``truth`` at a rate inside the band."""
    intervals = expect_intervals(value, ctx, rows=rows, dtype=dtype, what=label)
    check_coverage(ctx, intervals, truth, label=label, public=public, mistakes=mistakes)


# --- hard checks of the whole intervals (no statistics: what every correct interval satisfies) ----------

# Dyadic values: b - a is exactly 0.5 in both dtypes, and every mean of them is exact.
PAIRED_A = torch.tensor([[0.25, 1.5, 3.0, 0.75, 2.0, 6.5], [1.0, 1.0, 4.25, 0.5, 2.75, 3.5]])
PAIRED_SHIFT = 0.5


def check_paired_shift(sub, ctx, dtype, *, what: str) -> None:
    """Paired data with b = a + 0.5 exactly: every resampled pair differs by 0.5, so the interval is (0.5, 0.5)."""
    a = PAIRED_A.to(dtype)
    value = sub.difference_ci(
        a=a, b=a + PAIRED_SHIFT, paired=True, level=0.9, n_resamples=50, generator=ctx.generator()
    )
    value = expect_intervals(value, ctx, rows=a.shape[0], dtype=dtype, what=what)
    ends = value.to(torch.float64)
    wide = bool((ends[:, 1] - ends[:, 0] > 1e-6).any())
    reversed_ = bool(((ends + PAIRED_SHIFT).abs() < 1e-6).all())
    expect(
        bool(((ends - PAIRED_SHIFT).abs() < 1e-6).all()),
        f"{what}: b = a + 0.5 pair by pair, so every resample of the pairs has mean difference 0.5 and the "
        f"interval is (0.5, 0.5); got {[[round(x, 6) for x in row] for row in ends.tolist()]}",
        diagnosis=MISTAKES["difference_reversed"]
        if reversed_
        else (MISTAKES["paired_resampled_apart"] if wide else None),
        rule=Bilingual(
            f"{what}: pairs that all differ by the same amount do not give a zero-width interval at it",
            f"{what}：每一对的差都相同，区间却不是落在这个差上、宽度为零的区间",
        ),
        kind=Evidence.VALUE,
    )


def check_ci_in_range(sub, ctx, samples: torch.Tensor, statistic: str, method: str, *, what: str) -> None:
    """A bootstrap interval is made of resampled statistics, so it lies within each row's [min, max]."""
    level = 0.9
    value = sub.bootstrap_ci(
        samples=samples, statistic=statistic, level=level, n_resamples=40, method=method, generator=ctx.generator()
    )
    value = expect_intervals(value, ctx, rows=samples.shape[0], dtype=samples.dtype, what=what)
    data = samples.to(torch.float64)
    ends = value.to(torch.float64)
    slack = 1e-5 * (1 + data.abs().amax())
    inside = bool(((ends >= data.amin(1, keepdim=True) - slack) & (ends <= data.amax(1, keepdim=True) + slack)).all())
    estimate = torch.tensor([oracle52.statistic(row, statistic) for row in oracle52.rows_of(samples)])
    spread = 1.6448536269514722 * data.std(dim=1)
    normal = torch.stack([estimate - spread, estimate + spread], dim=1)
    is_normal = bool(((ends - normal).abs() <= 1e-4 * (1 + normal.abs())).all())
    expect(
        inside,
        f"{what}: an interval end lies outside the row's data, which no resampled {statistic} can reach",
        diagnosis=MISTAKES["normal_sd_interval"] if is_normal else None,
        rule=Bilingual(f"{what}: an interval end outside the range of the data", f"{what}：区间端点超出了数据的范围"),
        kind=Evidence.VALUE,
    )
