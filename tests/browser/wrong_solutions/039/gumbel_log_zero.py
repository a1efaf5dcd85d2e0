"""Mistake: Gumbel-max with noise -log(-log(u)) from float32 uniforms that are not kept away from 0: for u = 0.0 a token's noise is -inf, and in a row with one allowed token every score is -inf, so argmax returns token 0, which may be excluded.

Diagnosis: the Gumbel or exponential noise takes log(0) when torch.rand returns exactly 0.0, so every token
scores -inf (or inf) and an excluded one wins; keep u away from 0, e.g. u.clamp(min=torch.finfo(u.dtype).tiny)
"""

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
    t, p, m = (_column(v, batch, n, torch.float64) for v, n in ((temperature, "temperature"), (top_p, "top_p"),
                                                                 (min_p, "min_p")))
    k = _column(top_k, batch, "top_k", torch.int64)
    if (t < 0).any() or (k < 0).any() or ((p <= 0) | (p > 1)).any() or ((m < 0) | (m >= 1)).any():
        raise ValueError("a parameter is out of range")
    greedy = t == 0
    probs = torch.softmax(logits.double() / torch.where(greedy, torch.ones_like(t), t), dim=-1)
    # top-k: the k-th largest is the (V - k + 1)-th smallest; ties with it stay.
    kth = torch.stack([probs[b].kthvalue(vocab - int(k[b].clamp(1, vocab)) + 1).values for b in range(batch)])
    probs = probs.masked_fill((k > 0) & (k < vocab) & (probs < kth.unsqueeze(1)), 0.0)
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
    u = torch.rand(probs.shape[0], num_samples, probs.shape[1], generator=generator)
    noise = -torch.log(-torch.log(u))
    return (torch.log(probs).unsqueeze(1) + noise).argmax(dim=-1)
