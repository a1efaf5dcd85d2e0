"""Reference solution for exercise 52: bootstrap error bars on a load test, and the runs it needs."""

import math
from statistics import NormalDist

import torch

STATISTICS = {"mean": None, "median": 0.5, "p90": 0.9}
_NORMAL = NormalDist()


def _samples(x, name):
    if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{name} must be a 2-D float32 or float64 tensor [B, n]")
    if x.shape[0] < 1 or x.shape[1] < 2:
        raise ValueError(f"{name} needs at least one row and two values per row")
    if not bool(torch.isfinite(x).all()):
        raise ValueError(f"{name} must be finite")
    return x


def _level(level):
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    return float(level)


def _count(n_resamples):
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be an integer >= 1, got {n_resamples!r}")
    return n_resamples


def _statistic(x, statistic):
    """The statistic of each row of x [..., n], along the last dimension."""
    if STATISTICS[statistic] is None:
        return x.mean(dim=-1)
    return _quantile(x.sort(dim=-1).values, torch.full(x.shape[:-1], STATISTICS[statistic], dtype=torch.float64))


def _quantile(ordered, q):
    """Linear interpolation at position q (R - 1) of each sorted row: ordered [..., R], q [...] float64."""
    last = ordered.shape[-1] - 1
    position = (q.to(ordered.device) * last).clamp(0, last)
    below = position.floor().long().clamp(max=last)
    above = (below + 1).clamp(max=last)
    frac = (position - below).to(ordered.dtype)
    low = ordered.gather(-1, below.unsqueeze(-1)).squeeze(-1)
    high = ordered.gather(-1, above.unsqueeze(-1)).squeeze(-1)
    return low + frac * (high - low)


def _check_statistic(statistic):
    if not isinstance(statistic, str) or statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {sorted(STATISTICS)}, got {statistic!r}")
    return statistic


def bootstrap_stats(samples, statistic, n_resamples, generator=None):
    samples = _samples(samples, "samples")
    statistic = _check_statistic(statistic)
    n_resamples = _count(n_resamples)
    rows, n = samples.shape
    # n indices drawn with replacement, afresh for every resample of every row
    picks = torch.randint(0, n, (rows, n_resamples, n), generator=generator, device=samples.device)
    resamples = samples.unsqueeze(1).expand(rows, n_resamples, n).gather(2, picks)
    return _statistic(resamples, statistic)


def _boot_stats(boot_stats):
    if not isinstance(boot_stats, torch.Tensor) or boot_stats.dim() != 2:
        raise ValueError("boot_stats must be a 2-D float32 or float64 tensor [B, R]")
    if boot_stats.dtype not in (torch.float32, torch.float64):
        raise ValueError("boot_stats must be a 2-D float32 or float64 tensor [B, R]")
    if boot_stats.shape[0] < 1 or boot_stats.shape[1] < 1 or not bool(torch.isfinite(boot_stats).all()):
        raise ValueError("boot_stats needs at least one row and one finite value per row")
    return boot_stats


def percentile_interval(boot_stats, level):
    boot_stats = _boot_stats(boot_stats)
    level = _level(level)
    ordered = boot_stats.sort(dim=1).values
    rows = boot_stats.shape[0]
    low = _quantile(ordered, torch.full((rows,), (1 - level) / 2, dtype=torch.float64))
    high = _quantile(ordered, torch.full((rows,), (1 + level) / 2, dtype=torch.float64))
    return torch.stack([low, high], dim=1)


def bca_interval(estimate, boot_stats, jackknife_stats, level):
    boot_stats = _boot_stats(boot_stats)
    level = _level(level)
    rows, resamples = boot_stats.shape
    if not isinstance(estimate, torch.Tensor) or estimate.shape != (rows,) or estimate.dtype != boot_stats.dtype:
        raise ValueError("estimate must be a tensor [B] of the dtype of boot_stats")
    if not isinstance(jackknife_stats, torch.Tensor) or jackknife_stats.dim() != 2:
        raise ValueError("jackknife_stats must be a 2-D tensor [B, n]")
    if jackknife_stats.shape[0] != rows or jackknife_stats.shape[1] < 2 or jackknife_stats.dtype != boot_stats.dtype:
        raise ValueError("jackknife_stats must be [B, n] with n >= 2, of the dtype of boot_stats")
    if not bool(torch.isfinite(estimate).all()) or not bool(torch.isfinite(jackknife_stats).all()):
        raise ValueError("estimate and jackknife_stats must be finite")
    # bias correction: the share below the estimate, ties counted half, kept inside [1/(2R), 1 - 1/(2R)]
    below = (boot_stats < estimate.unsqueeze(1)).double().sum(dim=1)
    ties = (boot_stats == estimate.unsqueeze(1)).double().sum(dim=1)
    share = ((below + 0.5 * ties) / resamples).clamp(0.5 / resamples, 1 - 0.5 / resamples)
    # acceleration from the jackknife, in float64
    jack = jackknife_stats.double()
    spread = jack.mean(dim=1, keepdim=True) - jack
    cubes = (spread**3).sum(dim=1)
    squares = (spread**2).sum(dim=1)
    varied = (jack != jack[:, :1]).any(dim=1) & (squares > 0)  # equal values: a = 0, whatever their mean rounds to
    acceleration = torch.where(varied, cubes / (6 * squares.clamp(min=1e-300) ** 1.5), torch.zeros_like(cubes))
    z_low = _NORMAL.inv_cdf((1 - level) / 2)  # z_{1 - alpha/2} = -z_{alpha/2}, finite however close level is to 1
    lows, highs = [], []
    for share_below, a in zip(share.tolist(), acceleration.tolist(), strict=True):
        z0 = _NORMAL.inv_cdf(share_below)
        ends = []
        for z_p in (z_low, -z_low):
            z = z0 + z_p
            ends.append(_NORMAL.cdf(z0 + z / (1 - a * z)))
        lows.append(ends[0])
        highs.append(ends[1])
    ordered = boot_stats.sort(dim=1).values
    low = _quantile(ordered, torch.tensor(lows, dtype=torch.float64))
    high = _quantile(ordered, torch.tensor(highs, dtype=torch.float64))
    return torch.stack([low, high], dim=1)


def jackknife_stats(samples, statistic):
    """The statistic of each row with value i left out, for every i: [B, n]."""
    samples = _samples(samples, "samples")
    statistic = _check_statistic(statistic)
    rows, n = samples.shape
    # others[i] lists the n - 1 indices other than i: 0..n-2, each shifted up by one from i on
    step = torch.arange(n - 1, device=samples.device).unsqueeze(0)
    others = step + (step >= torch.arange(n, device=samples.device).unsqueeze(1)).long()
    left_out = samples.unsqueeze(1).expand(rows, n, n).gather(2, others.unsqueeze(0).expand(rows, n, n - 1))
    return _statistic(left_out, statistic)


def bootstrap_ci(samples, statistic, level, n_resamples, method, generator=None):
    samples = _samples(samples, "samples")
    statistic = _check_statistic(statistic)
    level = _level(level)
    n_resamples = _count(n_resamples)
    if not isinstance(method, str) or method not in ("percentile", "bca"):
        raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
    boot = bootstrap_stats(samples, statistic, n_resamples, generator=generator)
    if method == "percentile":
        return percentile_interval(boot, level)
    estimate = _statistic(samples, statistic)
    return bca_interval(estimate, boot, jackknife_stats(samples, statistic), level)


def difference_ci(a, b, paired, level, n_resamples, generator=None):
    a = _samples(a, "a")
    b = _samples(b, "b")
    if not isinstance(paired, bool):
        raise ValueError(f"paired must be True or False, got {paired!r}")
    level = _level(level)
    n_resamples = _count(n_resamples)
    if a.shape[0] != b.shape[0] or a.dtype != b.dtype:
        raise ValueError("a and b must have the same number of rows and the same dtype")
    if paired:
        if a.shape[1] != b.shape[1]:
            raise ValueError("paired samples must have the same length")
        # resample the pairs together: the bootstrap of the differences
        boot = bootstrap_stats(b - a, "mean", n_resamples, generator=generator)
    else:
        boot = bootstrap_stats(b, "mean", n_resamples, generator=generator) - bootstrap_stats(
            a, "mean", n_resamples, generator=generator
        )
    return percentile_interval(boot, level)


def _positive_finite(value, name, zero_ok):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value < 0 or (value == 0 and not zero_ok):
        raise ValueError(f"{name} must be {'>= 0' if zero_ok else '> 0'}, got {value!r}")
    return float(value)


def runs_needed(sd_a, sd_b, difference, z=2.0):
    sd_a = _positive_finite(sd_a, "sd_a", zero_ok=True)
    sd_b = _positive_finite(sd_b, "sd_b", zero_ok=True)
    if isinstance(difference, bool) or not isinstance(difference, (int, float)) or not math.isfinite(difference):
        raise ValueError(f"difference must be a finite number, got {difference!r}")
    if difference == 0:
        raise ValueError("difference must not be 0")
    z = _positive_finite(z, "z", zero_ok=False)
    # the smallest n with |difference| >= z * sqrt((sd_a^2 + sd_b^2) / n)
    return max(1, math.ceil(z * z * (sd_a * sd_a + sd_b * sd_b) / (difference * difference)))
