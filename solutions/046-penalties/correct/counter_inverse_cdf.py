"""Exercise 46 another way: each row's counts with collections.Counter and its penalties entry by entry,
then an inverse-CDF draw (a cumulative sum and a search) instead of torch.multinomial."""

from collections import Counter

import torch


def _per_row(value, batch, name, device):
    """A parameter as a float64 [B, 1] column (exactly the values given, for the range checks): a
    Python number, or a 1-D tensor with one value per row."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(
                f"{name} must be a number or a 1-D tensor of length {batch}, got shape {list(value.shape)}"
            )
        column = value.to(device=device, dtype=torch.float64)
    else:
        column = torch.full((batch,), float(value), dtype=torch.float64, device=device)
    if not torch.isfinite(column).all():
        raise ValueError(f"{name} must be a finite number, got NaN or infinity")
    return column.unsqueeze(1)


def _check_logits(logits):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor [B, V]")
    if logits.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"logits must be float32 or float64, got {logits.dtype}")
    if logits.shape[1] == 0:
        raise ValueError("logits must have at least one token per row")
    if torch.isnan(logits).any():
        raise ValueError("logits contain NaN")
    if torch.isposinf(logits).any():
        raise ValueError("logits contain +inf")
    if not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("every row of logits needs at least one finite value")


def _row_counts(logits, prev_tokens, pad_id):
    """One Counter per row of the ids in ``prev_tokens`` other than ``pad_id``."""
    batch, vocab = logits.shape
    if isinstance(pad_id, bool) or not isinstance(pad_id, int) or 0 <= pad_id < vocab:
        raise ValueError(f"pad_id must be an int outside [0, {vocab}), got {pad_id!r}")
    if not isinstance(prev_tokens, torch.Tensor) or prev_tokens.dim() != 2 or prev_tokens.shape[0] != batch:
        raise ValueError(f"prev_tokens must be a 2-D tensor [{batch}, L]")
    if prev_tokens.dtype != torch.int64 or prev_tokens.device != logits.device:
        raise ValueError("prev_tokens must be int64, on the device of logits")
    rows = []
    for row in prev_tokens.tolist():
        ids = [t for t in row if t != pad_id]
        if any(t < 0 or t >= vocab for t in ids):
            raise ValueError(f"prev_tokens holds an id outside [0, {vocab}) that is not pad_id")
        rows.append(Counter(ids))
    return rows


def apply_penalties(
    logits, prev_tokens, repetition_penalty=1.0, frequency_penalty=0.0, presence_penalty=0.0, pad_id=-1
):
    _check_logits(logits)
    counts = _row_counts(logits, prev_tokens, pad_id)
    batch = logits.shape[0]
    rep = _per_row(repetition_penalty, batch, "repetition_penalty", logits.device)
    freq = _per_row(frequency_penalty, batch, "frequency_penalty", logits.device)
    pres = _per_row(presence_penalty, batch, "presence_penalty", logits.device)
    if (rep <= 0).any():
        raise ValueError("repetition_penalty must be > 0")
    rep, freq, pres = rep.to(logits.dtype), freq.to(logits.dtype), pres.to(logits.dtype)
    out = logits.clone()
    for b, row_counts in enumerate(counts):
        for token, count in row_counts.items():
            z = out[b, token]
            z = z / rep[b, 0] if z > 0 else z * rep[b, 0]
            out[b, token] = z - count * freq[b, 0] - pres[b, 0]
    return out


def _sampling_probs(logits, temperature, top_k, top_p, min_p):
    """Exercise 39's distribution: temperature, then top-k, top-p and min-p, each renormalized."""
    batch, vocab = logits.shape
    device, dtype = logits.device, logits.dtype
    t = _per_row(temperature, batch, "temperature", device)
    k = _per_row(top_k, batch, "top_k", device)
    p = _per_row(top_p, batch, "top_p", device)
    m = _per_row(min_p, batch, "min_p", device)
    if (t < 0).any():
        raise ValueError("temperature must be >= 0")
    if (k < 0).any() or (k != k.round()).any():
        raise ValueError("top_k must be a non-negative integer")
    if ((p <= 0) | (p > 1)).any():
        raise ValueError("top_p must be in (0, 1]")
    if ((m < 0) | (m >= 1)).any():
        raise ValueError("min_p must be in [0, 1)")
    t, k, p, m = t.to(dtype), k.long(), p.to(dtype), m.to(dtype)

    greedy = t == 0
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    probs = torch.softmax(shifted / torch.where(greedy, torch.ones_like(t), t), dim=-1)

    sorted_probs, _ = torch.sort(probs, dim=-1, descending=True, stable=True)
    k_active = (k > 0) & (k < vocab)
    kth = sorted_probs.gather(1, (k.clamp(1, vocab) - 1))
    probs = torch.where(~k_active | (probs >= kth), probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    keep_sorted = (mass_before < p) | (p >= 1)
    keep = torch.zeros_like(keep_sorted).scatter(1, order, keep_sorted)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    threshold = m * probs.max(dim=-1, keepdim=True).values
    probs = torch.where(probs >= threshold, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    one_hot = torch.zeros_like(probs).scatter(1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, one_hot, probs)


def sample_with_penalties(
    logits,
    prev_tokens,
    num_samples=1,
    repetition_penalty=1.0,
    frequency_penalty=0.0,
    presence_penalty=0.0,
    pad_id=-1,
    temperature=1.0,
    top_k=0,
    top_p=1.0,
    min_p=0.0,
    generator=None,
):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be a positive integer, got {num_samples!r}")
    penalized = apply_penalties(logits, prev_tokens, repetition_penalty, frequency_penalty, presence_penalty, pad_id)
    probs = _sampling_probs(penalized, temperature, top_k, top_p, min_p).to(torch.float64)
    cdf = torch.cumsum(probs, dim=-1)
    u = torch.rand(probs.shape[0], num_samples, dtype=torch.float64, device=probs.device, generator=generator)
    # right=True: u = 0 lands on the first token of positive probability, never on a zero one before it.
    picks = torch.searchsorted(cdf, u * cdf[:, -1:], right=True)
    # u just below 1 can pass the last cumulative value after rounding: fall back on the last kept token.
    last = probs.shape[1] - 1 - torch.flip(probs > 0, dims=[1]).int().argmax(dim=1, keepdim=True)
    return torch.minimum(picks, last)
