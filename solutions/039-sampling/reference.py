"""Reference solution for exercise 39: temperature, top-k, top-p and min-p sampling."""

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


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    """The distribution each row is sampled from: [B, V], dtype and device of ``logits``."""
    t, k, p, m = _validate(logits, temperature, top_k, top_p, min_p)
    vocab = logits.shape[1]
    greedy = t == 0
    # Shifted by the row's largest logit, so a tiny temperature cannot overflow; temperature 0 rows are
    # replaced below, so divide them by 1 to avoid inf/nan on the way.
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    probs = torch.softmax(shifted / torch.where(greedy, torch.ones_like(t), t), dim=-1)

    # One sort per row serves top-k and top-p. Stable, so equal probabilities keep index order.
    sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)

    # top-k: keep everything at least as likely as the k-th largest (ties with it stay).
    k_active = (k > 0) & (k < vocab)
    kth = sorted_probs.gather(1, (k.clamp(1, vocab) - 1))
    keep = ~k_active | (probs >= kth)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    # top-p: keep a token while the mass strictly before it is below top_p (so the crossing token stays).
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


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    """``num_samples`` independent draws per row: int64 [B, num_samples] on the device of ``logits``."""
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be a positive integer, got {num_samples!r}")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p)
    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)
