"""Correct: the counts of each token first (multinomial counts as a chain of binomials), then the
tokens laid out with repeat_interleave and put in a random order with randperm: i.i.d. draws.
Top-k with torch.topk(largest=True) per row, validation with clamp_min / clamp_max."""

import torch


def _column(value, batch, name):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}")
        return value.double()
    return torch.full((batch,), float(value), dtype=torch.float64)


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
    t, k, p, m = (_column(v, batch, n) for v, n in ((temperature, "temperature"), (top_k, "top_k"),
                                                     (top_p, "top_p"), (min_p, "min_p")))
    in_range = (t.clamp_min(0) == t).all() and (k.clamp_min(0) == k).all() and (p > 0).all() \
        and (p.clamp_max(1) == p).all() and (m.clamp_min(0) == m).all() and (m < 1).all()
    if not in_range:
        raise ValueError("a parameter is out of range")
    rows = []
    for b in range(batch):
        z = logits[b].double()
        if t[b] == 0:
            rows.append(torch.zeros(vocab, dtype=torch.float64).scatter(0, z.argmax().view(1), 1.0))
            continue
        probs = torch.softmax(z / t[b], dim=0)
        if 0 < k[b] < vocab:
            probs = torch.where(probs >= probs.topk(int(k[b]), largest=True).values.min(), probs, 0.0)
            probs = probs / probs.sum()
        ordered, order = probs.sort(descending=True, stable=True)
        inside = (ordered.cumsum(0) - ordered < p[b]) | (p[b] >= 1)
        keep = torch.zeros(vocab, dtype=torch.bool).scatter(0, order, inside)
        probs = torch.where(keep, probs, 0.0) / torch.where(keep, probs, 0.0).sum()
        probs = torch.where(probs >= m[b] * probs.max(), probs, 0.0)
        rows.append(probs / probs.sum())
    return torch.stack(rows).to(logits.dtype)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be a positive integer")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p).double()
    rows = []
    for row in probs:
        allowed = [v for v in range(row.shape[0]) if row[v] > 0]
        left, mass, counts = float(num_samples), 1.0, []
        for v in range(row.shape[0]):
            share = float(row[v])
            if v == allowed[-1]:
                count = left  # the last allowed token takes what is left
            elif share == 0 or left == 0:
                count = 0.0
            else:
                chance = torch.tensor([min(1.0, share / mass)], dtype=torch.float64)
                count = float(torch.binomial(torch.tensor([left], dtype=torch.float64), chance, generator=generator))
            counts.append(int(count))
            left, mass = left - count, mass - share
        tokens = torch.repeat_interleave(torch.arange(row.shape[0]), torch.tensor(counts))
        rows.append(tokens[torch.randperm(num_samples, generator=generator)])
    return torch.stack(rows)
