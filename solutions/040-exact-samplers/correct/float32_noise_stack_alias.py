"""Correct (from the first red team, written from the statement alone): the Gumbel and race noise in the
dtype of u (float32 where the statement allows it), the clamp as torch.maximum with a tiny tensor;
inverse_cdf sorts the uniforms of a row to run one searchsorted and maps each token back to its
uniform's position; the alias table built by a stack machine vectorised over rows; sample builds its
uniforms from torch.randint(0, 2**24, generator=...) / 2**24.
"""

import torch


def _bad(msg):
    raise ValueError(msg)


def _check_probs(p):
    if not isinstance(p, torch.Tensor) or p.dim() != 2 or not torch.is_floating_point(p):
        _bad("probs: expected a 2-D floating tensor")
    if 0 in p.shape:
        _bad("probs: empty")
    if not torch.isfinite(p).all():
        _bad("probs: NaN or infinite entries")
    if (p < 0).any():
        _bad("probs: negative entries")
    if not (p.double().sum(-1) > 0).all():
        _bad("probs: a row sums to zero")


def _check_u(u, shape):
    if not isinstance(u, torch.Tensor) or not torch.is_floating_point(u):
        _bad("uniforms: expected a floating tensor")
    if len(u.shape) != len(shape) or any(s is not None and s != t for s, t in zip(shape, u.shape)):
        _bad(f"uniforms: shape {tuple(u.shape)} does not match {shape}")
    ok = (u >= 0) & (u < 1)
    if not ok.all():
        _bad("uniforms: values must be in [0, 1)")


def inverse_cdf(probs, u):
    _check_probs(probs)
    B, V = probs.shape
    _check_u(u, (B, None))
    cdf = probs.double().cumsum(-1)
    cdf = cdf / cdf[:, -1:]
    us, order = torch.sort(u.double(), dim=-1)
    pos = torch.searchsorted(cdf, us.contiguous(), right=True)
    out = torch.empty_like(pos)
    out.scatter_(1, order, pos)
    return out


def _noise_E(u):
    tiny = torch.tensor(torch.finfo(u.dtype).tiny, dtype=u.dtype, device=u.device)
    return -torch.log(torch.maximum(u, tiny))


def gumbel_max(logits, u):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or not torch.is_floating_point(logits):
        _bad("logits: expected a 2-D floating tensor")
    if 0 in logits.shape:
        _bad("logits: empty")
    if torch.isnan(logits).any() or torch.isposinf(logits).any():
        _bad("logits: NaN or +inf")
    if torch.isneginf(logits).all(dim=-1).any():
        _bad("logits: a row has no finite value")
    B, V = logits.shape
    _check_u(u, (B, None, V))
    g = -torch.log(_noise_E(u))  # dtype of u
    return torch.argmax(logits[:, None, :] + g, dim=-1)


def exponential_race(probs, u):
    _check_probs(probs)
    B, V = probs.shape
    _check_u(u, (B, None, V))
    E = _noise_E(u)
    score = probs[:, None, :] / E  # p = 0 gives 0; positive p gives a positive score
    score = torch.where(probs[:, None, :] > 0, score, torch.full_like(score, -1.0))
    return torch.argmax(score, dim=-1)


def build_alias(probs):
    _check_probs(probs)
    B, V = probs.shape
    dev = probs.device
    m = probs.double()
    m = m / m.sum(-1, keepdim=True) * V
    accept = torch.ones(B, V, dtype=torch.float64, device=dev)
    alias = torch.arange(V, device=dev).expand(B, V).clone()
    is_small = m < 1
    # stacks stored as [B, V] index arrays with a length per row
    small = torch.zeros(B, V, dtype=torch.long, device=dev)
    large = torch.zeros(B, V, dtype=torch.long, device=dev)
    ns = is_small.sum(-1)
    nl = V - ns
    for b in range(B):  # initial fill (order inside a stack is irrelevant)
        s_idx = torch.nonzero(is_small[b]).flatten()
        l_idx = torch.nonzero(~is_small[b]).flatten()
        small[b, : len(s_idx)] = s_idx
        large[b, : len(l_idx)] = l_idx
    rows = torch.arange(B, device=dev)
    while True:
        active = (ns > 0) & (nl > 0)
        if not active.any():
            break
        r = rows[active]
        s = small[r, ns[r] - 1]
        big = large[r, nl[r] - 1]
        accept[r, s] = m[r, s]
        alias[r, s] = big
        m[r, big] = (m[r, big] + m[r, s]) - 1.0
        ns[r] -= 1
        became_small = m[r, big] < 1
        rs = r[became_small]
        small[rs, ns[rs]] = big[became_small]
        ns[rs] += 1
        nl[rs] -= 1
    return accept, alias


def alias_draw(accept, alias, column_u, coin_u):
    if not isinstance(accept, torch.Tensor) or accept.dtype != torch.float64 or accept.dim() != 2 or 0 in accept.shape:
        _bad("accept: expected a non-empty float64 [B, V] tensor")
    if not isinstance(alias, torch.Tensor) or alias.dtype != torch.int64 or alias.shape != accept.shape:
        _bad("alias: expected an int64 tensor with the shape of accept")
    if not ((accept >= 0) & (accept <= 1)).all():
        _bad("accept: values outside [0, 1]")
    B, V = accept.shape
    if ((alias < 0) | (alias >= V)).any():
        _bad("alias: token id out of range")
    _check_u(column_u, (B, None))
    _check_u(coin_u, tuple(column_u.shape))
    col = (column_u.double() * V).floor().long()
    a = torch.gather(accept, 1, col)
    other = torch.gather(alias, 1, col)
    return torch.where(coin_u.double() < a, col, other)


def sample(probs, num_samples, method, generator=None):
    _check_probs(probs)
    if type(num_samples) is bool or not isinstance(num_samples, int):
        try:
            import numpy as np

            ok = isinstance(num_samples, np.integer)
        except ImportError:
            ok = False
        if not ok:
            _bad("num_samples must be an int")
    n = int(num_samples)
    if n < 1:
        _bad("num_samples must be >= 1")
    if method not in {"inverse_cdf": 0, "gumbel": 0, "race": 0, "alias": 0}:
        _bad(f"method must be inverse_cdf, gumbel, race or alias, not {method!r}")
    B, V = probs.shape
    dev = probs.device

    def uniforms(*shape):
        k = torch.randint(0, 2**24, shape, generator=generator, device=dev, dtype=torch.int64)
        return k.to(torch.float32) / 2**24

    if method == "inverse_cdf":
        return inverse_cdf(probs, uniforms(B, n))
    if method == "alias":
        acc, al = build_alias(probs)
        return alias_draw(acc, al, uniforms(B, n), uniforms(B, n))
    chunk = max(1, (1 << 21) // (B * V))
    outs = []
    for start in range(0, n, chunk):
        u = uniforms(B, min(chunk, n - start), V)
        outs.append(gumbel_max(probs.log(), u) if method == "gumbel" else exponential_race(probs, u))
    return torch.cat(outs, dim=1)
