"""Monte Carlo error with torch.std for the spread and an inverse-CDF draw (cumsum + searchsorted)."""

import math
from fractions import Fraction

import torch


def _floating_matrix(x, what):
    if not (torch.is_tensor(x) and x.ndim == 2 and torch.is_floating_point(x)):
        raise ValueError(f"{what}: a 2-D floating point tensor is required")


def mean_and_standard_error(samples):
    _floating_matrix(samples, "samples")
    count = samples.size(1)
    if count < 2:
        raise ValueError("samples: at least two columns are needed for a standard error")
    if not torch.isfinite(samples).all().item():
        raise ValueError("samples: NaN or infinity found")
    spread = torch.std(samples, dim=1, correction=1)  # torch subtracts the mean before squaring
    return samples.mean(1), spread / math.sqrt(count)


def estimate_probability(probs, event, num_samples, generator=None):
    _floating_matrix(probs, "probs")
    if not torch.is_tensor(event) or event.dtype is not torch.bool or tuple(event.shape) != tuple(probs.shape):
        raise ValueError("event: a bool tensor shaped like probs is required")
    if type(num_samples) is not int or num_samples < 1:
        raise ValueError("num_samples: a positive int is required")
    if not torch.isfinite(probs).all().item() or (probs < 0).any().item():
        raise ValueError("probs: values must be finite and non-negative")
    totals = probs.sum(dim=1, keepdim=True)
    if (totals <= 0).any().item():
        raise ValueError("probs: a row sums to zero")
    cdf = torch.cumsum(probs.double() / totals.double(), dim=1)
    positions = torch.arange(probs.shape[1], device=probs.device)
    last_positive = torch.where(probs > 0, positions, -1).amax(dim=1, keepdim=True)
    # From the last token with mass on the CDF is exactly 1: rounding must neither leave that token
    # unreachable nor let a draw land on the zero-mass tokens after it.
    cdf = torch.where(positions >= last_positive, torch.ones_like(cdf), cdf)
    u = torch.rand(probs.shape[0], num_samples, generator=generator, dtype=torch.float64, device=probs.device)
    index = torch.searchsorted(cdf, u, right=True).clamp_(max=probs.shape[1] - 1)
    # A token of probability 0 has an empty CDF step: searchsorted(right=True) never lands on it.
    inside = torch.gather(event, 1, index).sum(1).to(probs.dtype)
    estimate = inside / num_samples
    return estimate, torch.sqrt(estimate * (1 - estimate) / num_samples)


def _exact(name, x):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a finite number above 0")
    return Fraction(x)


def samples_needed(delta, sigma, num_se):
    ratio = _exact("num_se", num_se) * _exact("sigma", sigma) / _exact("delta", delta)
    return int(2 * ratio * ratio) + 1  # int() floors a positive Fraction
