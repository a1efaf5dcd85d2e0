"""Reference solution for exercise 47: locally typical, epsilon and eta sampling after temperature."""

import math

import torch

METHODS = ("typical", "epsilon", "eta")


def _per_row(value, batch, name, device):
    """A parameter as a float64 [B, 1] column: a Python number, or a 1-D tensor with one value per row."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}, got {list(value.shape)}")
        if not value.is_floating_point():
            raise ValueError(f"{name} must be a float32 or float64 tensor, got {value.dtype}")
        column = value.to(device=device, dtype=torch.float64)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        column = torch.full((batch,), float(value), dtype=torch.float64, device=device)
    else:
        raise ValueError(f"{name} must be a number or a 1-D tensor, got {type(value).__name__}")
    if torch.isnan(column).any():
        raise ValueError(f"{name} must not be NaN")
    return column.unsqueeze(1)


def _validate(logits, method, param, temperature):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor [B, V]")
    if logits.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"logits must be float32 or float64, got {logits.dtype}")
    if logits.shape[1] == 0:
        raise ValueError("logits must have at least one token per row")
    if torch.isnan(logits).any() or torch.isposinf(logits).any():
        raise ValueError("logits must not contain NaN or +inf")
    if not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("every row of logits needs at least one finite value")
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    batch, device = logits.shape[0], logits.device
    t = _per_row(temperature, batch, "temperature", device)
    q = _per_row(param, batch, "param", device)
    if ((t < 0) | torch.isinf(t)).any():
        raise ValueError("temperature must be a finite number >= 0")
    if method == "typical" and ((q <= 0) | (q > 1)).any():
        raise ValueError("param (the typical mass) must lie in (0, 1]")
    if method != "typical" and ((q < 0) | (q >= 1)).any():
        raise ValueError(f"param (the {method} threshold) must lie in [0, 1)")
    return t.to(logits.dtype), q.to(logits.dtype)


def _typical_keep(probs, log_probs, entropy, mass):
    """Keep a token when the tokens strictly closer to the entropy hold less than ``mass`` together."""
    score = torch.where(probs > 0, (-log_probs - entropy).abs(), torch.full_like(probs, math.inf))
    sorted_score, order = torch.sort(score, dim=-1)
    sorted_probs = probs.gather(1, order)
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    # Tokens of equal score (equal probability) share the mass before the first of them: a tie group
    # is kept or dropped as one, whatever order the sort left it in.
    first_of_group = torch.searchsorted(sorted_score, sorted_score, right=False)
    group_before = mass_before.gather(1, first_of_group)
    keep_sorted = (group_before < mass) | (mass >= 1)
    keep = torch.zeros_like(keep_sorted).scatter(1, order, keep_sorted)
    return keep & (probs > 0)


def truncated_probs(logits, method, param, temperature=1.0):
    """The distribution each row is sampled from: [B, V], dtype and device of ``logits``."""
    t, q = _validate(logits, method, param, temperature)
    greedy = t == 0
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    log_probs = torch.log_softmax(shifted / torch.where(greedy, torch.ones_like(t), t), dim=-1)
    probs = log_probs.exp()
    # Entropy in nats of the tempered distribution; a token of probability 0 adds 0 (0 log 0 = 0).
    entropy = -torch.where(probs > 0, probs * log_probs, torch.zeros_like(probs)).sum(dim=-1, keepdim=True)
    if method == "typical":
        keep = _typical_keep(probs, log_probs, entropy, q)
    else:
        threshold = q if method == "epsilon" else torch.minimum(q, q.sqrt() * torch.exp(-entropy))
        top = probs.max(dim=-1, keepdim=True).values
        keep = (probs >= threshold) | (probs == top)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    kept = kept / kept.sum(dim=-1, keepdim=True)
    one_hot = torch.zeros_like(kept).scatter(1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, one_hot, kept)


def sample_truncated(logits, num_samples, method, param, temperature=1.0, generator=None):
    """``num_samples`` independent draws per row: int64 [B, num_samples] on the device of ``logits``."""
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be an int >= 1, got {num_samples!r}")
    probs = truncated_probs(logits, method, param, temperature)
    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)
