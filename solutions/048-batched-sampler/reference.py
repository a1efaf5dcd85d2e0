"""Reference solution for exercise 48: a batched sampler with a generator per request.

Each row's distribution is exercise 39's (temperature, softmax, top-k, top-p, min-p, renormalizing
after each filter; T = 0 is greedy). Each row then draws its token from a generator of its own, seeded
from a hash of the row's (seed, offset) pair alone, so the token never depends on the other rows.
"""

import hashlib

import torch


def _per_row(value, batch, name, device):
    """A parameter as a float64 [B, 1] column: a Python number, or a 1-D tensor with one value per row."""
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


def _request_ids(value, batch, name):
    """seeds or offsets: an int64 tensor [B] of non-negative values, as a list of Python ints."""
    if not isinstance(value, torch.Tensor) or value.dtype != torch.int64:
        raise ValueError(f"{name} must be an int64 tensor")
    if value.dim() != 1 or value.shape[0] != batch:
        raise ValueError(f"{name} must be a 1-D tensor of length {batch}, got shape {list(value.shape)}")
    ids = value.tolist()
    if any(i < 0 for i in ids):
        raise ValueError(f"{name} must be >= 0")
    return ids


def _validate(logits, temperature, top_k, top_p, min_p):
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
    batch, device = logits.shape[0], logits.device
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
    dtype = logits.dtype  # the arithmetic runs in the dtype of logits
    return t.to(dtype), k.long(), p.to(dtype), m.to(dtype)


def processed_probs(logits, t, k, p, m):
    """Exercise 39's distribution of every row: [B, V], dtype of ``logits``, one-hot on greedy rows."""
    vocab = logits.shape[1]
    greedy = t == 0
    # Shifted by the row's largest logit, so a tiny temperature cannot overflow; greedy rows divide by 1.
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    probs = torch.softmax(shifted / torch.where(greedy, torch.ones_like(t), t), dim=-1)

    # top-k: keep everything at least as likely as the k-th largest (ties with it stay).
    sorted_probs, _ = torch.sort(probs, dim=-1, descending=True)
    kth = sorted_probs.gather(1, k.clamp(1, vocab) - 1)
    keep = (k == 0) | (k >= vocab) | (probs >= kth)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    # top-p: keep a token while the mass strictly before it is below top_p (the crossing token stays).
    sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    keep_sorted = (mass_before < p) | (p >= 1)
    keep = torch.zeros_like(keep_sorted).scatter(1, order, keep_sorted)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    # min-p: relative to the most likely token of the row.
    threshold = m * probs.max(dim=-1, keepdim=True).values
    probs = torch.where(probs >= threshold, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    # Greedy rows: one-hot at the first maximum of the raw logits.
    one_hot = torch.zeros_like(probs).scatter(1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, one_hot, probs)


def stream_seed(seed, offset):
    """A 63-bit generator seed from the whole (seed, offset) pair: distinct pairs, unrelated seeds."""
    digest = hashlib.blake2b(f"{seed}:{offset}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def sample_batch(logits, seeds, offsets, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    """One token per row, each from its own generator: (tokens int64 [B], logprobs [B] in the logits' dtype).

    Row b's token depends only on logits[b], its parameters, seeds[b] and offsets[b]; its log-probability
    is that of the processed distribution (0 on greedy rows). Raises ValueError on invalid input.
    """
    t, k, p, m = _validate(logits, temperature, top_k, top_p, min_p)
    batch = logits.shape[0]
    seed_list = _request_ids(seeds, batch, "seeds")
    offset_list = _request_ids(offsets, batch, "offsets")
    probs = processed_probs(logits, t, k, p, m)
    tokens = torch.empty(batch, dtype=torch.int64, device=logits.device)
    for b in range(batch):
        generator = torch.Generator(device=logits.device)
        generator.manual_seed(stream_seed(seed_list[b], offset_list[b]))
        tokens[b] = torch.multinomial(probs[b], 1, generator=generator)[0]
    logprobs = torch.log(probs.gather(1, tokens.unsqueeze(1))).squeeze(1)
    return tokens, logprobs
