"""Exercise 52: error bars on a load test: bootstrap intervals and the runs a comparison needs."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 52`.
# [cli en] Judge your work with `python practice/judge.py test 52`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 52 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 52 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def bootstrap_stats(
    samples: torch.Tensor, statistic: str, n_resamples: int, generator: torch.Generator | None = None
) -> torch.Tensor:
    """The statistic of n_resamples resamples (n values drawn with replacement) of each row.

    Args:
        samples: float32 or float64 tensor [B, n], n >= 2, finite: B independent data sets.
        statistic: "mean", "median" or "p90" (quantiles by linear interpolation, as torch.quantile).
        n_resamples: R >= 1.
        generator: the only source of randomness; torch's default generator when None.

    Returns:
        A tensor [B, R] of the dtype and device of samples.

    Raises:
        ValueError: see the statement's list.
    """
    # [en] Draw all B x R x n indices at once with torch.randint(0, n, ...), then gather the values.
    # [zh] 用 torch.randint(0, n, ...) 一次抽出全部 B x R x n 个下标，再用 gather 取值。
    raise NotImplementedError("bootstrap_stats: resample each row here")


def percentile_interval(boot_stats: torch.Tensor, level: float) -> torch.Tensor:
    """(Q(alpha/2), Q(1 - alpha/2)) of each row of boot_stats [B, R], alpha = 1 - level: a tensor [B, 2]."""
    # [en] Sort each row once; the value at level q sits at position q * (R - 1), between two sorted values.
    # [zh] 每行排一次序；水平 q 对应的位置是 q * (R - 1)，落在两个排好序的值之间。
    raise NotImplementedError("percentile_interval: read the two quantiles here")


def bca_interval(
    estimate: torch.Tensor, boot_stats: torch.Tensor, jackknife_stats: torch.Tensor, level: float
) -> torch.Tensor:
    """The BCa interval of each row: estimate [B], boot_stats [B, R], jackknife_stats [B, n] -> [B, 2]."""
    # [en] statistics.NormalDist() gives Phi (cdf) and its inverse (inv_cdf) for plain Python floats.
    # [zh] statistics.NormalDist() 提供 Phi（cdf）和它的反函数（inv_cdf），对普通 Python 浮点数可用。
    raise NotImplementedError("bca_interval: correct the two quantile levels here")


def jackknife_stats(samples: torch.Tensor, statistic: str) -> torch.Tensor:
    """The statistic of each row of samples [B, n] with value i left out, for every i: a tensor [B, n]."""
    # [en] A boolean mask that is False only on the diagonal picks, for each i, the n - 1 other values.
    # [zh] 一个只在对角线上为 False 的布尔掩码，可以为每个 i 选出其余 n - 1 个值。
    raise NotImplementedError("jackknife_stats: leave one value out at a time here")


def bootstrap_ci(
    samples: torch.Tensor,
    statistic: str,
    level: float,
    n_resamples: int,
    method: str,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """A percentile or BCa bootstrap interval for the statistic of each row of samples [B, n] -> [B, 2]."""
    # [en] BCa needs the statistic of the data itself and its jackknife values besides the resamples.
    # [zh] BCa 除了重抽样的结果，还需要原数据本身的统计量和它的 jackknife 值。
    raise NotImplementedError("bootstrap_ci: put the pieces together here")


def difference_ci(
    a: torch.Tensor,
    b: torch.Tensor,
    paired: bool,
    level: float,
    n_resamples: int,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """A percentile interval for mean(b) - mean(a) of each row, resampling pairs or each side alone."""
    # [en] Paired data: one set of indices per resample picks from both a and b.
    # [zh] 成对数据：每次重抽样用同一组下标同时从 a 和 b 取值。
    raise NotImplementedError("difference_ci: compare the two configurations here")


def runs_needed(sd_a: float, sd_b: float, difference: float, z: float = 2.0) -> int:
    """The smallest n >= 1 with |difference| >= z * sqrt((sd_a^2 + sd_b^2) / n), as a Python int."""
    # [en] Solve the inequality for n, then round up with math.ceil.
    # [zh] 把不等式解成 n 的下界，再用 math.ceil 向上取整。
    raise NotImplementedError("runs_needed: count the runs here")
