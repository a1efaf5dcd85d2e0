"""What a known mistake of entropy returns, computed from the inputs: the evidence a diagnosis needs.

Public on purpose: it holds no answers, only the formulas of mistakes, run on the very tensors the
learner got (in the logits' dtype, as a learner's code would run them), so that the public, tiny and
hidden suites name a mistake only where its own formula reproduces the failing output. Plain torch
operations only: the browser's torch subset runs this too.
"""

from __future__ import annotations

import torch


def _tempered(logits: torch.Tensor, temperature) -> torch.Tensor:
    """logits / T in the logits' dtype; T a number or a [B] tensor of any floating dtype."""
    if isinstance(temperature, torch.Tensor):
        return logits / temperature.to(logits.dtype).reshape(-1, 1)
    return logits / temperature


def zero_log_zero(logits: torch.Tensor, temperature) -> list[torch.Tensor]:
    """float64 [B] each: -sum p log p without 0 log 0 = 0, as two usual forms of the mistake give it:
    p * log_softmax (NaN where a logit is -inf: 0 x -inf) and p * log(softmax) (NaN wherever a
    probability is 0, underflow included)."""
    log_p = torch.log_softmax(_tempered(logits, temperature), dim=-1)
    p = log_p.exp()
    from_log_softmax = -(p * log_p).sum(dim=-1)
    from_softmax = -(p * p.log()).sum(dim=-1)
    return [from_log_softmax.to(torch.float64), from_softmax.to(torch.float64)]


def overflow(logits: torch.Tensor, temperature) -> list[torch.Tensor]:
    """float64 [B] each: the entropy of exp(z / T) / sum exp(z / T) with no maximum subtracted, in the
    logits' dtype, as two usual forms give it: every term kept (inf / inf = NaN where exp overflows),
    and the terms of p not > 0 dropped with torch.where (NaN probabilities then add 0)."""
    weights = _tempered(logits, temperature).exp()
    p = weights / weights.sum(dim=-1, keepdim=True)
    terms = p * p.log()
    kept = -torch.where(weights > 0, terms, torch.zeros_like(terms)).sum(dim=-1)
    dropped = -torch.where(p > 0, terms, torch.zeros_like(terms)).sum(dim=-1)
    return [kept.to(torch.float64), dropped.to(torch.float64)]
