"""A correct solution written the way Hugging Face's warpers are: each rule masks logits to -inf (the typical
cut by the score of the token that reaches the mass, as TypicalLogitsWarper does), then Gumbel-max draws
from the masked logits with noise from ``torch.rand`` kept away from 0."""

import math

import torch


def _column(value, rows, name, device):
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != rows:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {rows}")
        return value.to(device=device, dtype=torch.float64).unsqueeze(1)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number or a tensor")
    return torch.full((rows, 1), float(value), dtype=torch.float64, device=device)


def _masked_logits(logits, method, param, temperature):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be a 2-D float32 or float64 tensor")
    if torch.isnan(logits).any() or torch.isposinf(logits).any() or not torch.isfinite(logits).any(dim=1).all():
        raise ValueError("bad logits")
    if method not in ("typical", "epsilon", "eta"):
        raise ValueError("unknown method")
    rows = logits.shape[0]
    q = _column(param, rows, "param", logits.device)
    t = _column(temperature, rows, "temperature", logits.device)
    if torch.isnan(q).any() or torch.isnan(t).any() or (t < 0).any() or torch.isinf(t).any():
        raise ValueError("bad param or temperature")
    if method == "typical" and ((q <= 0) | (q > 1)).any():
        raise ValueError("mass outside (0, 1]")
    if method != "typical" and ((q < 0) | (q >= 1)).any():
        raise ValueError("threshold outside [0, 1)")
    q, t = q.to(logits.dtype), t.to(logits.dtype)
    greedy = t == 0
    scores = (logits - logits.max(dim=-1, keepdim=True).values) / torch.where(greedy, torch.ones_like(t), t)
    log_p = torch.log_softmax(scores, dim=-1)
    p = log_p.exp()
    entropy = -(p * log_p).nan_to_num(0.0).sum(dim=-1, keepdim=True)
    if method == "typical":
        shifted = (-log_p - entropy).abs().nan_to_num(math.inf)
        shifted = torch.where(p > 0, shifted, torch.full_like(shifted, math.inf))
        sorted_shifted, order = torch.sort(shifted, dim=-1)
        cumulative = p.gather(-1, order).cumsum(dim=-1)
        last = (cumulative < q).sum(dim=-1, keepdim=True).clamp(max=logits.shape[1] - 1)
        remove = (shifted > sorted_shifted.gather(-1, last)) & (q < 1)
    else:
        threshold = q if method == "epsilon" else torch.minimum(q, q.sqrt() * torch.exp(-entropy))
        remove = (p < threshold) & (p < p.max(dim=-1, keepdim=True).values)
    masked = scores.masked_fill(remove | (p == 0), -math.inf)
    first = torch.zeros_like(scores).scatter(1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, torch.where(first > 0, 0.0, -math.inf), masked)


def truncated_probs(logits, method, param, temperature=1.0):
    return torch.softmax(_masked_logits(logits, method, param, temperature), dim=-1)


def sample_truncated(logits, num_samples, method, param, temperature=1.0, generator=None):
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError("num_samples must be an int >= 1")
    masked = _masked_logits(logits, method, param, temperature)
    rows, vocab = masked.shape
    u = torch.rand(rows, num_samples, vocab, generator=generator, device=masked.device, dtype=masked.dtype)
    u = u.clamp(min=torch.finfo(masked.dtype).tiny)
    gumbel = -torch.log(-torch.log(u))
    return (masked.unsqueeze(1) + gumbel).argmax(dim=-1)
