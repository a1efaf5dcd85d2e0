"""Reference solution for exercise 46: repetition, frequency and presence penalties.

`apply_penalties` counts every row's previous tokens (padding left out), applies the repetition
rule of CTRL / Hugging Face to the tokens seen at least once, then the OpenAI rule; the sampler
applies the penalties, then exercise 39's temperature, top-k, top-p and min-p, then draws.
"""

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


def _token_counts(logits, prev_tokens, pad_id):
    """How often each token occurs in each row of ``prev_tokens``, padding left out: int64 [B, V]."""
    batch, vocab = logits.shape
    if isinstance(pad_id, bool) or not isinstance(pad_id, int):
        raise ValueError(f"pad_id must be a Python int, got {pad_id!r}")
    if 0 <= pad_id < vocab:
        raise ValueError(f"pad_id must not be a vocabulary id (0 <= pad_id < {vocab}), got {pad_id}")
    if not isinstance(prev_tokens, torch.Tensor) or prev_tokens.dim() != 2 or prev_tokens.shape[0] != batch:
        raise ValueError(f"prev_tokens must be a 2-D tensor [{batch}, L]")
    if prev_tokens.dtype != torch.int64:
        raise ValueError(f"prev_tokens must be int64, got {prev_tokens.dtype}")
    if prev_tokens.device != logits.device:
        raise ValueError("prev_tokens must be on the device of logits")
    padding = prev_tokens == pad_id
    if ((prev_tokens < 0) | (prev_tokens >= vocab))[~padding].any():
        raise ValueError(f"prev_tokens holds an id outside [0, {vocab}) that is not pad_id")
    # Padding goes to an extra column V, dropped afterwards.
    ids = torch.where(padding, torch.full_like(prev_tokens, vocab), prev_tokens)
    counts = torch.zeros(batch, vocab + 1, dtype=torch.int64, device=logits.device)
    counts.scatter_add_(1, ids, torch.ones_like(ids))
    return counts[:, :vocab]


def apply_penalties(
    logits, prev_tokens, repetition_penalty=1.0, frequency_penalty=0.0, presence_penalty=0.0, pad_id=-1
):
    """The penalized logits: [B, V], dtype and device of ``logits``; the inputs are left unchanged."""
    _check_logits(logits)
    counts = _token_counts(logits, prev_tokens, pad_id)
    batch, device, dtype = logits.shape[0], logits.device, logits.dtype
    rep = _per_row(repetition_penalty, batch, "repetition_penalty", device)
    freq = _per_row(frequency_penalty, batch, "frequency_penalty", device)
    pres = _per_row(presence_penalty, batch, "presence_penalty", device)
    if (rep <= 0).any():
        raise ValueError("repetition_penalty must be > 0")
    rep, freq, pres = rep.to(dtype), freq.to(dtype), pres.to(dtype)

    seen = counts > 0
    # Repetition (CTRL / Hugging Face): once per seen token, whatever its count; a positive logit is
    # divided, a negative one multiplied, so a penalty above 1 always makes the token less likely.
    repeated = torch.where(logits > 0, logits / rep, logits * rep)
    penalized = torch.where(seen, repeated, logits)
    # OpenAI: the count times the frequency penalty, plus the presence penalty once if seen.
    return penalized - counts.to(dtype) * freq - seen.to(dtype) * pres


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
    """``num_samples`` independent draws per row after the penalties and 39's filters: int64
    [B, num_samples] on the device of ``logits``."""
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be a positive integer, got {num_samples!r}")
    penalized = apply_penalties(logits, prev_tokens, repetition_penalty, frequency_penalty, presence_penalty, pad_id)
    probs = _sampling_probs(penalized, temperature, top_k, top_p, min_p)
    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)
