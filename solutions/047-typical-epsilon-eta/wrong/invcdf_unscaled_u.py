"""Mistake: the inverse CDF searches the raw uniform in a float32 running total that can end a hair below it
(the red team's w25), so u just below 1 runs past the last kept token.

Diagnosis: a draw site fails at an extreme uniform (0 or the largest float below 1)
"""

from __future__ import annotations

import torch

_METHODS = ("typical", "epsilon", "eta")


def _check_logits(logits):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError("logits must be a 2-D tensor")
    if logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be float32 or float64")
    if torch.isnan(logits).any():
        raise ValueError("logits contain NaN")
    if (logits == float("inf")).any():
        raise ValueError("logits contain +inf")
    if logits.shape[0] > 0 and not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("a row of logits has no finite entry")


def _row_param(x, B, name, device):
    if isinstance(x, torch.Tensor):
        if x.dim() != 1 or x.shape[0] != B:
            raise ValueError(f"{name} must be a 1-D tensor of length {B}")
        return x.detach().to(device=device, dtype=torch.float64)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return torch.full((B,), float(x), dtype=torch.float64, device=device)
    raise ValueError(f"{name} must be a number or a 1-D tensor")


def _params(logits, method, param, temperature):
    _check_logits(logits)
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    B = logits.shape[0]
    q = _row_param(param, B, "param", logits.device)
    T = _row_param(temperature, B, "temperature", logits.device)
    if torch.isnan(q).any():
        raise ValueError("param is NaN")
    if method == "typical":
        if ((q <= 0) | (q > 1)).any():
            raise ValueError("typical mass must lie in (0, 1]")
    else:
        if ((q < 0) | (q >= 1)).any():
            raise ValueError(f"{method} parameter must lie in [0, 1)")
    if torch.isnan(T).any() or torch.isinf(T).any() or (T < 0).any():
        raise ValueError("temperature must be finite and >= 0")
    return q, T


def _probs(logits, method, q, T):
    B, V = logits.shape
    z = logits.to(torch.float64)
    greedy = T == 0
    Ts = torch.where(greedy, torch.ones_like(T), T)[:, None]
    zmax = z.max(dim=1, keepdim=True).values
    logp = torch.log_softmax((z - zmax) / Ts, dim=1)
    p = logp.exp()
    pos = p > 0
    plogp = torch.where(pos, p * logp, torch.zeros_like(p))
    H = -plogp.sum(dim=1, keepdim=True)
    if method == "typical":
        score = torch.where(pos, (-logp - H).abs(), torch.full_like(p, float("inf")))
        ss, order = torch.sort(score, dim=1)
        sp = p.gather(1, order)
        excl = torch.cumsum(sp, dim=1) - sp  # mass strictly before, by position
        # mass of tokens with strictly smaller score: position of the first equal score
        first = torch.searchsorted(ss.contiguous(), score.contiguous(), right=False)
        before = excl.gather(1, first)
        keep = (before < q[:, None]) | (q[:, None] >= 1)
        keep = keep & pos
    else:
        eta = torch.minimum(q[:, None], q[:, None].sqrt() * torch.exp(-H))
        thr = q[:, None] if method == "epsilon" else eta
        pmax = p.max(dim=1, keepdim=True).values
        keep = ((p >= thr) | (p == pmax)) & pos
    out = torch.where(keep, p, torch.zeros_like(p))
    out = out / out.sum(dim=1, keepdim=True)
    if greedy.any():
        oh = torch.zeros_like(out)
        oh.scatter_(1, z.argmax(dim=1, keepdim=True), 1.0)
        out = torch.where(greedy[:, None], oh, out)
    return out


def truncated_probs(
    logits: torch.Tensor,
    method: str,
    param: float | torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
) -> torch.Tensor:
    q, T = _params(logits, method, param, temperature)
    return _probs(logits, method, q, T).to(logits.dtype)


def sample_truncated(
    logits: torch.Tensor,
    num_samples: int,
    method: str,
    param: float | torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples < 1:
        raise ValueError("num_samples must be an int >= 1")
    q, T = _params(logits, method, param, temperature)
    probs = _probs(logits, method, q, T)
    if logits.shape[0] == 0:
        return torch.zeros((0, num_samples), dtype=torch.int64, device=logits.device)
    u = torch.rand((probs.shape[0], num_samples), generator=generator, device=logits.device)
    cdf = torch.cumsum(probs.to(torch.float32), dim=1)
    return torch.searchsorted(cdf, u, right=True)
