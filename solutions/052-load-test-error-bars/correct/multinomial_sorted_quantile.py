"""Exercise 52, another correct algorithm: indices from torch.multinomial, statistics with torch.quantile,
the normal law from torch.special (ndtr / ndtri) in float64, the jackknife of the mean from the row's sum,
and the BCa interval read from one sorted row at a time.

Different from the reference: no randint, no hand-written interpolation for the statistics, no Python
NormalDist, the leave-one-out means without building the n x (n - 1) resamples, a loop over rows for BCa.
"""

import math

import torch

QUANTILE = {"median": 0.5, "p90": 0.9}


def _check_data(x, name):
    if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{name}: a 2-D float32 or float64 tensor is required")
    if x.shape[1] < 2 or not torch.isfinite(x).all():
        raise ValueError(f"{name}: at least two finite values per row are required")


_UNSET = object()


def _check_common(statistic=_UNSET, level=_UNSET, n_resamples=_UNSET):
    if statistic is not _UNSET and statistic not in ("mean", "median", "p90"):
        raise ValueError("unknown statistic")
    if level is not _UNSET:
        if type(level) not in (int, float) or not (0 < level < 1):
            raise ValueError("level must be strictly between 0 and 1")
    if n_resamples is not _UNSET:
        if type(n_resamples) is not int or n_resamples < 1:
            raise ValueError("n_resamples must be an int >= 1")


def _stat(x, statistic):
    if statistic == "mean":
        return x.mean(dim=-1)
    q = torch.tensor(QUANTILE[statistic], dtype=x.dtype, device=x.device)
    return torch.quantile(x, q, dim=-1)  # linear interpolation, the statement's rule


def bootstrap_stats(samples, statistic, n_resamples, generator=None):
    _check_data(samples, "samples")
    _check_common(statistic=statistic, n_resamples=n_resamples)
    rows, n = samples.shape
    weights = torch.ones(rows * n_resamples, n, device=samples.device)
    picks = torch.multinomial(weights, n, replacement=True, generator=generator).view(rows, n_resamples, n)
    chosen = torch.gather(samples.unsqueeze(1).expand(-1, n_resamples, -1), 2, picks)
    return _stat(chosen, statistic)


def _ordered_quantile(ordered, q):
    """Q(v, q) on an already sorted 1-D tensor, q a Python float."""
    h = q * (ordered.numel() - 1)
    h = min(max(h, 0.0), ordered.numel() - 1.0)
    i = int(math.floor(h))
    j = min(i + 1, ordered.numel() - 1)
    return ordered[i] + (ordered[j] - ordered[i]) * (h - i)


def _check_boot(boot_stats):
    if (
        not isinstance(boot_stats, torch.Tensor)
        or boot_stats.dim() != 2
        or boot_stats.dtype not in (torch.float32, torch.float64)
    ):
        raise ValueError("boot_stats: a 2-D float32 or float64 tensor is required")
    if boot_stats.shape[1] < 1 or not torch.isfinite(boot_stats).all():
        raise ValueError("boot_stats: at least one finite value per row is required")


def percentile_interval(boot_stats, level):
    _check_boot(boot_stats)
    _check_common(level=level)
    ordered = torch.sort(boot_stats, dim=1).values
    alpha = 1 - level
    out = [torch.stack([_ordered_quantile(row, alpha / 2), _ordered_quantile(row, 1 - alpha / 2)]) for row in ordered]
    return torch.stack(out) if out else boot_stats.new_zeros(0, 2)


def bca_interval(estimate, boot_stats, jackknife_stats, level):
    _check_boot(boot_stats)
    _check_common(level=level)
    rows, r = boot_stats.shape
    if not isinstance(estimate, torch.Tensor) or estimate.dim() != 1 or estimate.shape[0] != rows:
        raise ValueError("estimate must be a tensor [B]")
    if estimate.dtype != boot_stats.dtype or not torch.isfinite(estimate).all():
        raise ValueError("estimate must be finite, of the dtype of boot_stats")
    _check_data(jackknife_stats, "jackknife_stats")
    if jackknife_stats.shape[0] != rows or jackknife_stats.dtype != boot_stats.dtype:
        raise ValueError("jackknife_stats must have B rows and the dtype of boot_stats")
    ndtri = torch.special.ndtri
    ndtr = torch.special.ndtr
    alpha = torch.tensor((1 - level) / 2, dtype=torch.float64)
    z_lo = ndtri(alpha)
    ordered = torch.sort(boot_stats, dim=1).values.cpu()
    result = []
    for b in range(rows):
        theta = estimate[b].item()
        row = boot_stats[b].cpu()
        share = ((row < theta).sum().item() + 0.5 * (row == theta).sum().item()) / r
        share = min(max(share, 1 / (2 * r)), 1 - 1 / (2 * r))
        z0 = ndtri(torch.tensor(share, dtype=torch.float64))
        jack = jackknife_stats[b].double().cpu()
        d = jack.mean() - jack
        den = (d * d).sum()
        varied = bool((jack != jack[0]).any()) and den > 0
        a = (d**3).sum() / (6 * den**1.5) if varied else torch.tensor(0.0, dtype=torch.float64)
        ends = []
        for zp in (z_lo, -z_lo):
            level_p = ndtr(z0 + (z0 + zp) / (1 - a * (z0 + zp))).item()
            ends.append(_ordered_quantile(ordered[b], level_p))
        result.append(torch.stack(ends))
    return torch.stack(result).to(boot_stats.device)


def jackknife_stats(samples, statistic):
    _check_data(samples, "samples")
    _check_common(statistic=statistic)
    rows, n = samples.shape
    if statistic == "mean":
        return (samples.sum(dim=1, keepdim=True) - samples) / (n - 1)
    columns = [_stat(torch.cat([samples[:, :i], samples[:, i + 1 :]], dim=1), statistic) for i in range(n)]
    return torch.stack(columns, dim=1)


def bootstrap_ci(samples, statistic, level, n_resamples, method, generator=None):
    _check_data(samples, "samples")
    _check_common(statistic=statistic, level=level, n_resamples=n_resamples)
    if method not in ("percentile", "bca"):
        raise ValueError("unknown method")
    boot = bootstrap_stats(samples, statistic, n_resamples, generator)
    if method == "percentile":
        return percentile_interval(boot, level)
    return bca_interval(_stat(samples, statistic), boot, jackknife_stats(samples, statistic), level)


def difference_ci(a, b, paired, level, n_resamples, generator=None):
    _check_data(a, "a")
    _check_data(b, "b")
    _check_common(level=level, n_resamples=n_resamples)
    if type(paired) is not bool:
        raise ValueError("paired must be a bool")
    if a.shape[0] != b.shape[0] or a.dtype != b.dtype:
        raise ValueError("a and b must share the number of rows and the dtype")
    if paired and a.shape[1] != b.shape[1]:
        raise ValueError("paired samples need equal lengths")
    if paired:
        boot = bootstrap_stats(b - a, "mean", n_resamples, generator)
    else:
        first = bootstrap_stats(a, "mean", n_resamples, generator)
        boot = bootstrap_stats(b, "mean", n_resamples, generator) - first
    return percentile_interval(boot, level)


def runs_needed(sd_a, sd_b, difference, z=2.0):
    for name, value in (("sd_a", sd_a), ("sd_b", sd_b), ("difference", difference), ("z", z)):
        if type(value) not in (int, float) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number")
    if sd_a < 0 or sd_b < 0 or difference == 0 or z <= 0:
        raise ValueError("sd_a, sd_b >= 0, difference != 0 and z > 0 are required")
    bound = z**2 * (sd_a**2 + sd_b**2) / difference**2
    return max(1, math.ceil(bound))
