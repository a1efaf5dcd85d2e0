"""Mistake: the logits are multiplied by the temperature instead of divided by it.

Diagnosis: the logits are multiplied by the temperature instead of divided by it
"""

import math

import torch


def _per_row(value, batch, name):
    """A parameter as a list with one Python number per row."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must have one value per row")
        return [float(v) for v in value.tolist()]
    return [float(value)] * batch


def _validate(logits, temperature, top_k, top_p, min_p):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor")
    if logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be float32 or float64")
    if torch.isnan(logits).any() or torch.isposinf(logits).any():
        raise ValueError("logits contain NaN or +inf")
    if not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("a row has no finite logit")
    batch = logits.shape[0]
    rows = list(
        zip(
            *(
                _per_row(v, batch, n)
                for v, n in ((temperature, "temperature"), (top_k, "top_k"), (top_p, "top_p"), (min_p, "min_p"))
            )
        )
    )
    for t, k, p, m in rows:
        if not 0 <= t < math.inf or not (0 <= k < math.inf and k == int(k)) or not 0 < p <= 1 or not 0 <= m < 1:
            raise ValueError(f"bad parameters: temperature={t}, top_k={k}, top_p={p}, min_p={m}")
    return rows


def _top_k(probs, k):
    if 0 < k < probs.shape[0]:
        kth = torch.topk(probs, k).values[-1]
        probs = torch.where(probs >= kth, probs, torch.zeros_like(probs))
    return probs / probs.sum()


def _top_p(probs, p):
    if p < 1:
        ordered, order = torch.sort(probs, descending=True)
        before = torch.cumsum(ordered, 0) - ordered
        keep = torch.zeros_like(probs, dtype=torch.bool)
        keep[order[before < p]] = True
        probs = torch.where(keep, probs, torch.zeros_like(probs))
    return probs / probs.sum()


def _min_p(probs, m):
    if m > 0:
        probs = torch.where(probs >= m * probs.max(), probs, torch.zeros_like(probs))
    return probs / probs.sum()


def _row_probs(z, t, k, p, m):
    if t == 0:
        return torch.zeros_like(z).scatter(0, torch.argmax(z).view(1), 1.0)
    probs = torch.softmax(z * t, dim=0)
    probs = _min_p(_top_p(_top_k(probs, k), p), m)
    return probs


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    rows = _validate(logits, temperature, top_k, top_p, min_p)
    return torch.stack([_row_probs(logits[b], t, int(k), p, m) for b, (t, k, p, m) in enumerate(rows)])


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be a positive integer")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p)
    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)
