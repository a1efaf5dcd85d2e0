"""Correct: an exponential race (the token whose Exp(1) draw divided by its probability is smallest
wins: argmin E / p), top-k through take_along_dim on a sorted row, top-p through searchsorted."""

import torch


def _column(value, batch, name, dtype):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}")
        return value.to(dtype).unsqueeze(1)
    return torch.full((batch, 1), value, dtype=dtype)


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
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
