"""Correct: an exponential race (the token whose Exp(1) draw divided by its probability is smallest
wins: argmin E / p), top-k through take_along_dim on a sorted row, top-p through searchsorted."""

import torch


def _column(value, batch, name, dtype):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}")
        return value.to(dtype).unsqueeze(1)
    return torch.full((batch, 1), value, dtype=dtype)


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
    if logits.isnan().any() or not logits.isfinite().any(dim=1).all():
        raise ValueError("logits must hold no NaN and a finite value in every row")
    batch, vocab = logits.shape
    t = _column(temperature, batch, "temperature", logits.dtype)
    k = _column(top_k, batch, "top_k", torch.int64)
    p = _column(top_p, batch, "top_p", torch.float64)
    m = _column(min_p, batch, "min_p", torch.float64)
    if (t < 0).any() or (k < 0).any() or ((p <= 0) | (p > 1)).any() or ((m < 0) | (m >= 1)).any():
        raise ValueError("a parameter is out of range")
    greedy = t == 0
    probs = torch.nn.functional.softmax(logits / torch.where(greedy, 1.0, t), dim=-1, dtype=torch.float64)
    ordered = probs.sort(dim=-1, descending=True).values
    kth = torch.take_along_dim(ordered, k.clamp_min(1).clamp_max(vocab) - 1, dim=1)
    probs = torch.where((k == 0) | (k >= vocab) | (probs >= kth), probs, 0.0)
    probs /= probs.sum(dim=-1, keepdim=True)
    # top-p: keep the first j + 1 sorted tokens, j the first whose running total reaches top_p.
    ordered, order = probs.sort(dim=-1, descending=True, stable=True)
    count = torch.searchsorted(ordered.cumsum(dim=-1), p).add(1).clamp_max(vocab)
    keep = (torch.arange(vocab).unsqueeze(0) < count) | (p >= 1)
    probs = probs * torch.zeros_like(keep).scatter(1, order, keep)
    probs /= probs.sum(dim=-1, keepdim=True)
    probs = torch.where(probs >= m * probs.max(dim=-1, keepdim=True).values, probs, 0.0)
    probs /= probs.sum(dim=-1, keepdim=True)
    first = logits.argmax(dim=-1, keepdim=True)
    one_hot = torch.zeros_like(probs).scatter_(1, first, 1.0)
    return torch.where(greedy, one_hot, probs).to(logits.dtype)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be a positive integer")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p).double()
    race = torch.empty(probs.shape[0], num_samples, probs.shape[1], dtype=torch.float64)
    race.exponential_(generator=generator)  # strictly positive: E / 0 is inf for an excluded token
    return (race / probs.unsqueeze(1)).argmin(dim=-1)
