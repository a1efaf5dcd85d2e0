"""A correct sampler built differently: filters in logit space as Hugging Face's warpers do (mask with -inf,
softmax again; top-k against the K-th largest logit, top-p on an ascending running sum), and Gumbel-max
over the columns some row can draw.

Written by an independent red team from the statement alone. Changed since to refuse float16 and
bfloat16 logits and an infinite top_k, which the statement then required; it now leaves them open, and
the refusal may stay.
"""

import numbers

import torch

NEG = float("-inf")


def _as_rows(v, B, name, dev, dtype):
    if torch.is_tensor(v):
        if tuple(v.shape) != (B,):
            raise ValueError(f"{name}: tensor must have shape ({B},), got {tuple(v.shape)}")
        return v.to(dev).to(dtype)
    if isinstance(v, numbers.Number) and not isinstance(v, (bool, complex)):
        return torch.full((B,), v, device=dev, dtype=dtype)
    raise ValueError(f"{name}: must be a number or a tensor")


def _check(logits, temperature, top_k, top_p, min_p):
    if not torch.is_tensor(logits) or logits.dim() != 2:
        raise ValueError("logits: expected a 2-D tensor")
    if logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits: expected float32 or float64")
    if torch.isnan(logits).any():
        raise ValueError("logits: NaN found")
    if torch.isposinf(logits).any():
        raise ValueError("logits: +inf found")
    if logits.shape[1] == 0 or (~torch.isfinite(logits)).all(1).any():
        raise ValueError("logits: a row without any finite value")
    B = logits.shape[0]
    dev = logits.device
    T = _as_rows(temperature, B, "temperature", dev, torch.float64)
    K = _as_rows(top_k, B, "top_k", dev, torch.float64)
    P = _as_rows(top_p, B, "top_p", dev, torch.float64)
    M = _as_rows(min_p, B, "min_p", dev, torch.float64)
    if (T < 0).any() or torch.isnan(T).any() or torch.isinf(T).any():
        raise ValueError("temperature: must be finite and >= 0")
    if (K < 0).any() or not torch.isfinite(K).all() or (K.floor() != K).any():
        raise ValueError("top_k: must be an integer >= 0")
    if not ((P > 0) & (P <= 1)).all():
        raise ValueError("top_p: must be in (0, 1]")
    if not ((M >= 0) & (M < 1)).all():
        raise ValueError("min_p: must be in [0, 1)")
    return T, K.long(), P, M


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    T, K, P, M = _check(logits, temperature, top_k, top_p, min_p)
    B, V = logits.shape
    dt = logits.dtype
    greedy = T == 0
    scaled = (logits - logits.amax(1, keepdim=True)) / torch.where(greedy, 1.0, T).to(dt)[:, None]

    # top-k on logits
    use_k = (K > 0) & (K < V)
    if use_k.any():
        kk = torch.where(use_k, K, V)
        kth_logit = scaled.sort(1, descending=True).values.gather(1, (kk - 1)[:, None])
        scaled = scaled.masked_fill(use_k[:, None] & (scaled < kth_logit), NEG)

    # top-p, ascending formulation
    use_p = P < 1
    if use_p.any():
        probs = scaled.softmax(1)
        asc, idx = probs.sort(1)
        cum = asc.cumsum(1)
        drop_sorted = (cum <= (1 - P).to(dt)[:, None]) & use_p[:, None]
        drop_sorted[:, -1] = False  # the most probable token always stays
        drop = drop_sorted.scatter(1, idx, drop_sorted)
        scaled = scaled.masked_fill(drop, NEG)

    # min-p
    probs = scaled.softmax(1)
    use_m = M > 0
    if use_m.any():
        thr = M.to(dt)[:, None] * probs.amax(1, keepdim=True)
        scaled = scaled.masked_fill(use_m[:, None] & (probs < thr), NEG)
        probs = scaled.softmax(1)

    if greedy.any():
        hot = torch.nn.functional.one_hot(logits.argmax(1), V).to(dt)
        probs = torch.where(greedy[:, None], hot, probs)
    return probs


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
        raise ValueError("num_samples: must be an integer")
    if num_samples < 1:
        raise ValueError("num_samples: must be >= 1")
    q = sampling_probs(logits, temperature, top_k, top_p, min_p)
    # only columns that some row can draw take part (filtered tokens have log q = -inf anyway)
    cols = (q > 0).any(0).nonzero().flatten()
    logq = q[:, cols].double().log()
    B, W = logq.shape
    out = []
    step = max(1, (1 << 21) // (B * W))
    for s in range(0, num_samples, step):
        n = min(step, num_samples - s)
        u = torch.empty(B, n, W, device=logits.device, dtype=torch.float64).uniform_(0.0, 1.0, generator=generator)
        E = -u.clamp(min=torch.finfo(torch.float64).tiny).log()
        out.append(cols[(logq[:, None, :] - E.log()).argmax(-1)])
    return torch.cat(out, 1)
