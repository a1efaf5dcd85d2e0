"""Correct: torch.distributions.Categorical, which draws from torch's default generator; with a
`generator`, a seed drawn from it reseeds the default generator inside torch.random.fork_rng, so
the generator decides every draw and the caller's default stream is left as it was."""

import torch


def _column(value, batch, name, dtype):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}")
        return value.to(dtype).unsqueeze(1)
    return torch.full((batch, 1), float(value), dtype=dtype)


# The statement's refusals, as the reference checks them (this file's point is elsewhere).
def _contract_per_row(value, batch, name, device):
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


def _contract_validate(logits, temperature, top_k, top_p, min_p):
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
    t = _contract_per_row(temperature, batch, "temperature", device)
    k = _contract_per_row(top_k, batch, "top_k", device)
    p = _contract_per_row(top_p, batch, "top_p", device)
    m = _contract_per_row(min_p, batch, "min_p", device)
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
    _contract_validate(logits, temperature, top_k, top_p, min_p)
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor [B, V]")
    if torch.isnan(logits).any() or not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("logits must hold no NaN and a finite value in every row")
    batch, vocab = logits.shape
    t, k, p, m = (_column(v, batch, n, torch.float64) for v, n in ((temperature, "temperature"), (top_k, "top_k"),
                                                                    (top_p, "top_p"), (min_p, "min_p")))
    if (t < 0).any() or (k < 0).any() or (k.frac() != 0).any() or ((p <= 0) | (p > 1)).any() \
            or ((m < 0) | (m >= 1)).any():
        raise ValueError("a parameter is out of range")
    greedy = t == 0
    scaled = logits.double() / torch.where(greedy, torch.ones_like(t), t)
    # top-k on the logits (same order as the probabilities): keep those at least the k-th largest.
    ordered = scaled.sort(dim=-1, descending=True).values
    kth = ordered.gather(1, k.long().clamp(1, vocab) - 1)
    scaled = scaled.masked_fill((k > 0) & (k < vocab) & (scaled < kth), float("-inf"))
    probs = torch.softmax(scaled, dim=-1)
    ordered, order = probs.sort(dim=-1, descending=True, stable=True)
    outside = (torch.cumsum(ordered, dim=-1) - ordered >= p) & (p < 1)
    probs = probs.masked_fill(outside.scatter(1, order, outside), 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    probs = torch.where(probs < m * probs.amax(dim=-1, keepdim=True), torch.zeros_like(probs), probs)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    one_hot = torch.zeros_like(probs).scatter(1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, one_hot, probs).to(logits.dtype)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be a positive integer")
    categorical = torch.distributions.Categorical(probs=sampling_probs(logits, temperature, top_k, top_p, min_p))
    if generator is None:
        return categorical.sample((num_samples,)).T
    seed = int(torch.randint(0, 2**62, (1,), generator=generator))
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return categorical.sample((num_samples,)).T
