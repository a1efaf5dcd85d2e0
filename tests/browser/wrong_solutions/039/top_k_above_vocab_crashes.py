"""Mistake: top-k calls torch.topk(probs, k) for every k > 0, so top_k larger than the vocabulary (which turns top-k off) raises.

Diagnosis: the code fails when top_k is larger than the vocabulary (top_k >= V must turn top-k off; torch.topk
needs k <= V)
"""

import torch


def _column(value, batch, name, dtype):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}")
        return value.to(dtype).unsqueeze(1)
    return torch.full((batch, 1), float(value), dtype=dtype)


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor [B, V]")
    if torch.isnan(logits).any() or not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("logits must hold no NaN and a finite value in every row")
    batch, vocab = logits.shape
    t, p, m = (_column(v, batch, n, torch.float64) for v, n in ((temperature, "temperature"), (top_p, "top_p"),
                                                                 (min_p, "min_p")))
    k = _column(top_k, batch, "top_k", torch.int64)
    if (t < 0).any() or (k < 0).any() or ((p <= 0) | (p > 1)).any() or ((m < 0) | (m >= 1)).any():
        raise ValueError("a parameter is out of range")
    greedy = t == 0
    probs = torch.softmax(logits.double() / torch.where(greedy, torch.ones_like(t), t), dim=-1)
    # top-k: the k-th largest from torch.topk, for any k > 0 (k above V is not capped).
    for b in range(batch):
        if int(k[b]) > 0:
            kth = torch.topk(probs[b], int(k[b])).values[-1]
            probs[b] = probs[b].masked_fill(probs[b] < kth, 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    ordered, order = probs.sort(dim=-1, descending=True, stable=True)
    drop = (ordered.cumsum(dim=-1) - ordered >= p) & (p < 1)
    probs = probs.masked_fill(torch.zeros_like(drop).scatter(1, order, drop), 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    probs = probs.masked_fill(probs < m * probs.amax(dim=-1, keepdim=True), 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    one_hot = torch.nn.functional.one_hot(logits.argmax(dim=-1), vocab).double()
    return torch.where(greedy, one_hot, probs).to(logits.dtype)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be a positive integer")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p)
    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)
