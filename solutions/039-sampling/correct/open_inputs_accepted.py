"""A correct sampler that accepts what the statement leaves open: float16, bfloat16 and integer logits
(computed in float32; the probabilities come back in the dtype of half-precision logits, float32 for
integer ones) and a top_k that is not a whole number (+inf turns top-k off as any K >= V does; 2.5
keeps the 2 most likely tokens). A NaN top_k is refused (also left open); a negative one, -inf
included, is refused as the statement requires."""

import torch

HALF = (torch.float16, torch.bfloat16)


def _per_row(value, batch, name, device, *, allow_posinf=False):
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
    finite = torch.isfinite(column) | (torch.isposinf(column) if allow_posinf else False)
    if not finite.all():
        raise ValueError(f"{name} must be a number, got NaN or infinity")
    return column.unsqueeze(1)


def _validate(logits, temperature, top_k, top_p, min_p):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor [B, V]")
    if logits.shape[1] == 0:
        raise ValueError("logits must have at least one token per row")
    work = logits.to(torch.float32) if logits.dtype not in (torch.float32, torch.float64) else logits
    if torch.isnan(work).any():
        raise ValueError("logits contain NaN")
    if torch.isposinf(work).any():
        raise ValueError("logits contain +inf")
    if not torch.isfinite(work).any(dim=1).all():
        raise ValueError("every row of logits needs at least one finite value")
    batch, device = work.shape[0], work.device
    t = _per_row(temperature, batch, "temperature", device)
    k = _per_row(top_k, batch, "top_k", device, allow_posinf=True)
    p = _per_row(top_p, batch, "top_p", device)
    m = _per_row(min_p, batch, "min_p", device)
    if (t < 0).any():
        raise ValueError("temperature must be >= 0")
    if (k < 0).any():
        raise ValueError("top_k must be >= 0")
    if ((p <= 0) | (p > 1)).any():
        raise ValueError("top_p must be in (0, 1]")
    if ((m < 0) | (m >= 1)).any():
        raise ValueError("min_p must be in [0, 1)")
    vocab = work.shape[1]
    k = k.clamp(max=vocab).floor().long()  # +inf: top-k off (K >= V); 2.5 keeps the 2 most likely
    dtype = work.dtype  # the arithmetic runs in float32 or float64
    return work, t.to(dtype), k, p.to(dtype), m.to(dtype)


def _probs(work, t, k, p, m):
    vocab = work.shape[1]
    greedy = t == 0
    shifted = work - work.max(dim=-1, keepdim=True).values
    probs = torch.softmax(shifted / torch.where(greedy, torch.ones_like(t), t), dim=-1)

    sorted_probs, _ = torch.sort(probs, dim=-1, descending=True, stable=True)
    k_active = (k > 0) & (k < vocab)
    kth = sorted_probs.gather(1, (k.clamp(1, vocab) - 1))
    probs = torch.where(~k_active | (probs >= kth), probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    keep = torch.zeros_like(probs, dtype=torch.bool).scatter(1, order, (mass_before < p) | (p >= 1))
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    threshold = m * probs.max(dim=-1, keepdim=True).values
    probs = torch.where(probs >= threshold, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    one_hot = torch.zeros_like(probs).scatter(1, work.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, one_hot, probs)


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    """The distribution each row is sampled from: [B, V] on the device of ``logits``, in its dtype
    (float32 for integer logits)."""
    probs = _probs(*_validate(logits, temperature, top_k, top_p, min_p))
    return probs.to(logits.dtype) if logits.dtype in HALF else probs


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    """``num_samples`` independent draws per row: int64 [B, num_samples] on the device of ``logits``
    (drawn from the float32 or float64 distribution, never a half-precision copy of it)."""
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be a positive integer, got {num_samples!r}")
    probs = _probs(*_validate(logits, temperature, top_k, top_p, min_p))
    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)
