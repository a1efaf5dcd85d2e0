"""A correct sampler built differently: one stable descending sort serves top-k, top-p and min-p, and an
exponential race (argmax of q / E with E from Tensor.exponential_) draws the tokens.

Written by an independent red team from the statement alone. Changed since to refuse an infinite
top_k, which the statement then required; it now leaves it open, and the refusal may stay.
"""

import torch


def _param(x, B, name, device):
    if isinstance(x, torch.Tensor):
        if x.dim() != 1:
            raise ValueError(f"{name} must be 1-D when given as a tensor (got {x.dim()}-D)")
        if x.shape[0] != B:
            raise ValueError(f"{name} must have length B={B} (got {x.shape[0]})")
        return x.to(device=device, dtype=torch.float64)
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or a tensor") from None
    return torch.full((B,), v, device=device, dtype=torch.float64)


def _prep(logits, temperature, top_k, top_p, min_p):
    if not isinstance(logits, torch.Tensor) or logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be a float32 or float64 tensor")
    if logits.dim() != 2:
        raise ValueError("logits must have shape [B, V]")
    B, V = logits.shape
    dev = logits.device
    T = _param(temperature, B, "temperature", dev)
    K = _param(top_k, B, "top_k", dev)
    P = _param(top_p, B, "top_p", dev)
    M = _param(min_p, B, "min_p", dev)
    if not torch.all(T >= 0) or not torch.all(torch.isfinite(T)):
        raise ValueError("temperature must be >= 0 (and finite)")
    if not torch.all(K >= 0) or not torch.all(torch.isfinite(K)) or not torch.all(torch.round(K) == K):
        raise ValueError("top_k must be an integer >= 0")
    if not torch.all((P > 0) & (P <= 1)):
        raise ValueError("top_p must be in (0, 1]")
    if not torch.all((M >= 0) & (M < 1)):
        raise ValueError("min_p must be in [0, 1)")
    if V == 0 or torch.any(torch.isnan(logits)):
        raise ValueError("logits must be non-empty and free of NaN")
    if torch.any(logits == float("inf")):
        raise ValueError("logits must not contain +inf")
    if torch.any(torch.all(logits == float("-inf"), dim=1)):
        raise ValueError("every row of logits needs a finite value")
    return T, K.long(), P, M


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    T, K, P, M = _prep(logits, temperature, top_k, top_p, min_p)
    B, V = logits.shape
    dt = logits.dtype
    greedy = T == 0
    Tsafe = torch.where(greedy, torch.ones_like(T), T).to(dt)

    s, order = torch.sort(logits, dim=1, descending=True, stable=True)  # sorted logits
    p = torch.softmax((s - s[:, :1]) / Tsafe[:, None], dim=1)  # sorted probabilities

    # top-k in sorted order: keep everything >= the K-th entry
    Keff = torch.where((K == 0) | (K >= V), V, K)
    kth = p.gather(1, (Keff - 1)[:, None])
    p = torch.where(p >= kth, p, 0.0)
    p = p / p.sum(1, keepdim=True)

    # top-p: exclusive running sum < P (P = 1 disables)
    csum = p.cumsum(1)
    excl = torch.cat([torch.zeros_like(csum[:, :1]), csum[:, :-1]], 1)
    p = torch.where((excl < P.to(dt)[:, None]) | (P[:, None] >= 1), p, 0.0)
    p = p / p.sum(1, keepdim=True)

    # min-p: the maximum is the first sorted entry
    p = torch.where(p >= M.to(dt)[:, None] * p[:, :1], p, 0.0)
    p = p / p.sum(1, keepdim=True)

    out = torch.empty_like(p).scatter_(1, order, p)
    if greedy.any():
        first_max = logits.argmax(1)
        hot = torch.zeros_like(out).scatter_(1, first_max[:, None], 1.0)
        out = torch.where(greedy[:, None], hot, out)
    return out


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if type(num_samples) is not int:
        raise ValueError("num_samples must be an int")
    if num_samples < 1:
        raise ValueError("num_samples must be >= 1")
    q = sampling_probs(logits, temperature, top_k, top_p, min_p).double()
    live = torch.nonzero(q.sum(0) > 0).squeeze(1)  # columns with mass in some row
    q = q[:, live]
    B, W = q.shape
    res = torch.empty(B, num_samples, dtype=torch.int64, device=logits.device)
    chunk = max(1, 2_000_000 // (B * W))
    for a in range(0, num_samples, chunk):
        n = min(chunk, num_samples - a)
        E = torch.empty(B, n, W, dtype=torch.float64, device=logits.device).exponential_(generator=generator)
        score = q[:, None, :] / E
        score = torch.where(q[:, None, :] > 0, score, torch.full_like(score, -1.0))
        res[:, a : a + n] = live[score.argmax(-1)]
    return res
