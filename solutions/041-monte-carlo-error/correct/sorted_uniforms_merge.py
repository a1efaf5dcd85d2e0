"""Monte Carlo error: sorted uniforms bucketed by the event tokens' CDF in one searchsorted per row batch."""

import math
from fractions import Fraction

import torch


def mean_and_standard_error(samples):
    ok = isinstance(samples, torch.Tensor) and samples.ndimension() == 2 and torch.is_floating_point(samples)
    if not ok:
        raise ValueError("samples: need a [B, n] float tensor")
    n = samples.shape[1]
    if n < 2:
        raise ValueError("samples: need n >= 2")
    if not torch.isfinite(samples).all():
        raise ValueError("samples: need finite values")
    mean = samples.mean(dim=1)
    residual = samples - mean.view(-1, 1)
    standard_deviation = torch.linalg.vector_norm(residual, dim=1) / math.sqrt(n - 1)
    return mean, standard_deviation / math.sqrt(n)


def estimate_probability(probs, event, num_samples, generator=None):
    ok = isinstance(probs, torch.Tensor) and probs.ndimension() == 2 and torch.is_floating_point(probs)
    if not ok:
        raise ValueError("probs: need a [B, V] float tensor")
    if not (isinstance(event, torch.Tensor) and event.dtype == torch.bool and event.shape == probs.shape):
        raise ValueError("event: need a bool tensor like probs")
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
        raise ValueError("num_samples: need an int >= 1")
    if not torch.isfinite(probs).all() or (probs < 0).any():
        raise ValueError("probs: need finite values >= 0")
    p = probs.to(torch.float64)
    norm = p.sum(dim=1, keepdim=True)
    if (norm <= 0).any():
        raise ValueError("probs: need a positive sum in each row")
    # Put the event's tokens first: a draw is inside the event when u falls below their total mass.
    order = torch.argsort((~event).to(torch.int8), dim=1, stable=True)
    reordered = torch.gather(p / norm, 1, order)
    edges = torch.cumsum(reordered, dim=1)
    inside_mass = (edges * torch.gather(event, 1, order)).amax(dim=1, keepdim=True)
    everything = (event | (p == 0)).all(dim=1, keepdim=True)
    inside_mass = torch.where(everything, torch.ones_like(inside_mass), inside_mass)
    u = torch.rand(p.shape[0], num_samples, generator=generator, dtype=torch.float64, device=p.device)
    k = (u < inside_mass).sum(dim=1)
    estimate = k.to(probs.dtype) / num_samples
    return estimate, (estimate * (1 - estimate) / num_samples).sqrt()


def samples_needed(delta, sigma, num_se):
    def exact(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"not a number: {value!r}")
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"not finite and positive: {value!r}")
        return Fraction(value)

    delta, sigma, num_se = exact(delta), exact(sigma), exact(num_se)
    need = 2 * num_se**2 * sigma**2 / delta**2
    return need.__floor__() + 1
