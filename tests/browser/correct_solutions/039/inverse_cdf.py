"""Correct: an inverse CDF, one row at a time: a float64 cumulative sum, u scaled by the row's
total, searchsorted(right=True), and the index clamped to the last allowed token (never past it)."""

import torch


def _row_values(value, batch, name):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}")
        return [float(v) for v in value.tolist()]
    return [float(value)] * batch


def _row(z, t, k, p, m):
    if t == 0:
        return torch.zeros_like(z, dtype=torch.float64).scatter(0, z.argmax().view(1), 1.0)
    probs = torch.softmax(z.double() / t, dim=0)
    if 0 < k < z.shape[0]:
        kth = torch.topk(probs, int(k), largest=True, sorted=True).values[-1]
        probs = torch.where(probs >= kth, probs, torch.zeros_like(probs))
        probs = probs / probs.sum()
    if p < 1:
        ordered, order = torch.sort(probs, descending=True, stable=True)
        before = torch.cumsum(ordered, dim=0, dtype=torch.float64) - ordered
        keep = torch.zeros(z.shape[0], dtype=torch.bool)
        keep[order[before < p]] = True
        probs = probs.masked_fill(~keep, 0.0)
        probs = probs / probs.sum()
    if m > 0:
        probs = probs.masked_fill(probs < m * probs.max(), 0.0)
        probs = probs / probs.sum()
    return probs


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
    batch = logits.shape[0]
    rows = list(zip(*(_row_values(v, batch, n) for v, n in ((temperature, "temperature"), (top_k, "top_k"),
                                                             (top_p, "top_p"), (min_p, "min_p")))))
    for t, k, p, m in rows:
        if t < 0 or k < 0 or k != int(k) or not 0 < p <= 1 or not 0 <= m < 1:
            raise ValueError(f"bad parameters: temperature={t}, top_k={k}, top_p={p}, min_p={m}")
    return torch.stack([_row(logits[b], *row) for b, row in enumerate(rows)]).to(logits.dtype)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be a positive integer")
    probs = sampling_probs(logits, temperature, top_k, top_p, min_p)
    cdf = torch.cumsum(probs, dim=1, dtype=torch.float64)
    u = torch.rand(probs.shape[0], num_samples, generator=generator, dtype=torch.float64)
    index = torch.searchsorted(cdf, u * cdf[:, -1:], right=True)
    allowed = (probs > 0).int()
    last = probs.shape[1] - 1 - allowed.flip(-1).argmax(dim=-1, keepdim=True)
    return torch.minimum(index, last)
