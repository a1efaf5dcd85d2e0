"""Another correct solution of exercise 51: one row at a time, log-space ratios through logsumexp-free
arithmetic, GRPO statistics written out (sum of squares over G - 1), and an inverse-CDF sampler on
torch.rand instead of torch.multinomial.

The inverse CDF draws u in [0, 1), scales it by the row's total and takes the first response whose running
sum exceeds it (so u = 0 skips leading responses with q = 0); a u past the last running sum (rounding)
falls back to the last response with q > 0, never to one with q = 0.
"""

import torch

FLOATS = (torch.float32, torch.float64)


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _tensor(value, name, dims, like=None):
    if not isinstance(value, torch.Tensor) or value.dim() != dims:
        raise ValueError(f"{name}: expected a {dims}-D tensor")
    if value.dtype not in FLOATS:
        raise ValueError(f"{name}: expected float32 or float64")
    if like is not None and (value.dtype != like.dtype or value.device != like.device):
        raise ValueError(f"{name}: dtype and device must match the first argument")
    if bool(torch.isnan(value).any()) or bool(torch.isinf(value).any()):
        raise ValueError(f"{name}: NaN or infinity")


def _eps(clip_eps):
    if not _number(clip_eps) or not (0 < clip_eps < 1):
        raise ValueError("clip_eps must lie in (0, 1)")


def _tokens(logp_new, logp_old, mask):
    _tensor(logp_new, "logp_new", 2)
    _tensor(logp_old, "logp_old", 2, logp_new)
    if tuple(logp_old.shape) != tuple(logp_new.shape):
        raise ValueError("logp_old: shape mismatch")
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or tuple(mask.shape) != tuple(logp_new.shape):
        raise ValueError("mask: expected a bool tensor of the shape of logp_new")
    if mask.device != logp_new.device:
        raise ValueError("mask: device mismatch")


def _clipped_term(ratio, advantage, clip_eps):
    low, high = 1 - clip_eps, 1 + clip_eps
    clipped = low if ratio < low else high if ratio > high else ratio
    return min(ratio * advantage, clipped * advantage)


def token_ratios(logp_new, logp_old, mask):
    _tokens(logp_new, logp_old, mask)
    out = torch.ones_like(logp_new)
    out[mask] = (logp_new[mask] - logp_old[mask]).exp()
    return out


def ppo_clip_objective(logp_new, logp_old, advantages, mask, clip_eps=0.2, aggregation="token-mean"):
    _tokens(logp_new, logp_old, mask)
    batch, length = logp_new.shape
    if not isinstance(advantages, torch.Tensor) or advantages.dim() not in (1, 2):
        raise ValueError("advantages: expected [B] or [B, T]")
    _tensor(advantages, "advantages", advantages.dim(), logp_new)
    if tuple(advantages.shape) not in ((batch,), (batch, length)):
        raise ValueError("advantages: shape mismatch")
    _eps(clip_eps)
    if aggregation not in ("token-mean", "sequence-mean"):
        raise ValueError("aggregation: unknown")
    if not bool(mask.any()):
        raise ValueError("mask: no real token")
    ratios = token_ratios(logp_new, logp_old, mask).double().tolist()
    adv = advantages.double().tolist()
    keep = mask.tolist()
    sums, counts = [], []
    for b in range(batch):
        total, count = 0.0, 0
        for t in range(length):
            if keep[b][t]:
                a = adv[b][t] if advantages.dim() == 2 else adv[b]
                total += _clipped_term(ratios[b][t], a, clip_eps)
                count += 1
        sums.append(total)
        counts.append(count)
    if aggregation == "token-mean":
        value = sum(sums) / sum(counts)
    else:
        means = [s / c for s, c in zip(sums, counts) if c > 0]
        value = sum(means) / len(means)
    return torch.tensor(value, dtype=logp_new.dtype, device=logp_new.device)


def grpo_advantages(rewards, eps=1e-6):
    _tensor(rewards, "rewards", 2)
    if rewards.shape[1] < 2:
        raise ValueError("rewards: a group needs G >= 2")
    if not _number(eps) or eps != eps or eps < 0 or eps == float("inf"):
        raise ValueError("eps: a finite number >= 0")
    out = torch.zeros_like(rewards)
    size = rewards.shape[1]
    for b, row in enumerate(rewards.double().tolist()):
        if all(r == row[0] for r in row):
            continue
        mean = sum(row) / size
        std = (sum((r - mean) ** 2 for r in row) / (size - 1)) ** 0.5
        out[b] = torch.tensor([(r - mean) / (std + eps) for r in row], dtype=rewards.dtype)
    return out


def _responses(p_new, p_old, advantages, clip_eps):
    _tensor(p_new, "p_new", 2)
    for name, value in (("p_old", p_old), ("advantages", advantages)):
        _tensor(value, name, 2, p_new)
        if tuple(value.shape) != tuple(p_new.shape):
            raise ValueError(f"{name}: shape mismatch")
    for name, value in (("p_new", p_new), ("p_old", p_old)):
        if bool((value < 0).any()) or bool((value.sum(dim=1) <= 0).any()):
            raise ValueError(f"{name}: a negative weight or a row summing to 0")
    _eps(clip_eps)
    rows = []
    for new, old, adv in zip(p_new.double().tolist(), p_old.double().tolist(), advantages.double().tolist()):
        total_new, total_old = sum(new), sum(old)
        q = [x / total_old for x in old]
        p = [x / total_new for x in new]
        g = [_clipped_term(pi / qi, a, clip_eps) if qi > 0 else 0.0 for pi, qi, a in zip(p, q, adv)]
        rows.append((p, q, g, adv))
    return rows


def clipping_bias(p_new, p_old, advantages, clip_eps=0.2):
    rows = _responses(p_new, p_old, advantages, clip_eps)
    values = [sum(qi * gi for qi, gi in zip(q, g)) - sum(pi * a for pi, a in zip(p, adv)) for p, q, g, adv in rows]
    return torch.tensor(values, dtype=p_new.dtype, device=p_new.device)


def sample_surrogate(p_new, p_old, advantages, group_size, clip_eps=0.2, generator=None):
    rows = _responses(p_new, p_old, advantages, clip_eps)
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError("group_size: an int >= 1")
    old = p_old.double()
    cdf = old.cumsum(dim=1)
    totals = cdf[:, -1:]
    u = torch.rand(len(rows), group_size, dtype=torch.float64, device=p_new.device, generator=generator)
    index = torch.searchsorted(cdf, u * totals, right=True)
    last = torch.tensor([max(i for i, qi in enumerate(q) if qi > 0) for _, q, _, _ in rows], device=p_new.device)
    index = torch.minimum(index, last.unsqueeze(1))
    g = torch.tensor([row[2] for row in rows], dtype=torch.float64, device=p_new.device)
    return g.gather(1, index).mean(dim=1).to(p_new.dtype)
