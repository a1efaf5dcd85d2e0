"""Exact targets of exercise 51, and what each known mistake returns instead.

The targets are computed in float64 from the inputs as given (float32 inputs are widened exactly), so
they are the values the statement defines, not one rounding of them. A mistake is computed the way a
learner's code would compute it: in the input's dtype where its rounding is the point (exp of each side
underflowing, the mean of equal rewards off by one rounding), in float64 elsewhere.
"""

from __future__ import annotations

import torch

from ..public.diagnoses import MISTAKES

F64 = torch.float64


def _ratios(new: torch.Tensor, old: torch.Tensor, mask: torch.Tensor, mistake: str | None = None) -> torch.Tensor:
    if mistake == "exp_each_side":
        raw = (torch.exp(new) / torch.exp(old)).to(F64)  # in the input's dtype: that is where it underflows
    elif mistake == "ratio_inverted":
        raw = torch.exp(old.to(F64) - new.to(F64))
    else:
        raw = torch.exp(new.to(F64) - old.to(F64))
    if mistake == "padding_zero":
        return raw * mask.to(F64)
    return torch.where(mask, raw, torch.ones_like(raw))


def token_ratios(new: torch.Tensor, old: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return _ratios(new, old, mask)


def ratio_mistakes(new: torch.Tensor, old: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
    return {
        MISTAKES[name]: _ratios(new, old, mask, name) for name in ("exp_each_side", "ratio_inverted", "padding_zero")
    }


def _objective(
    new: torch.Tensor,
    old: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    eps: float,
    aggregation: str,
    mistake: str | None = None,
    absolute: bool = False,
) -> float:
    ratio_mistake = mistake if mistake in ("exp_each_side", "ratio_inverted") else None
    r = _ratios(new, old, mask, ratio_mistake)
    a = advantages.to(F64)
    if a.dim() == 1:
        a = a.unsqueeze(1).expand_as(r)
    log_clip = mistake == "clip_log_ratio"
    clipped = torch.exp(torch.log(r).clamp(-eps, eps)) if log_clip else r.clamp(1 - eps, 1 + eps)
    if mistake == "max_instead_of_min":
        term = torch.maximum(r * a, clipped * a)
    elif mistake == "clip_without_min":
        term = clipped * a
    else:
        term = torch.minimum(r * a, clipped * a)
    w = mask.to(F64)
    term = torch.where(mask, term.abs() if absolute else term, torch.zeros_like(term))
    if mistake == "aggregations_swapped":
        aggregation = "sequence-mean" if aggregation == "token-mean" else "token-mean"
    if aggregation == "token-mean":
        total = term.sum() / (w.numel() if mistake == "padding_in_mean" else w.sum())
    else:
        lengths = w.sum(dim=1)
        if mistake == "padding_in_mean":
            total = (term.sum(dim=1) / w.shape[1]).mean()
        elif mistake == "empty_rows_counted":
            total = (term.sum(dim=1) / lengths.clamp(min=1)).mean()
        else:
            present = lengths > 0
            total = (term.sum(dim=1)[present] / lengths[present]).mean()
    value = float(total)
    return -value if mistake == "objective_as_loss" else value


PPO_MISTAKES = (
    "exp_each_side",
    "ratio_inverted",
    "max_instead_of_min",
    "clip_without_min",
    "clip_log_ratio",
    "objective_as_loss",
    "padding_in_mean",
    "aggregations_swapped",
    "empty_rows_counted",
)


def ppo_objective(new, old, advantages, mask, eps: float, aggregation: str) -> float:
    return _objective(new, old, advantages, mask, eps, aggregation)


def ppo_scale(new, old, advantages, mask, eps: float, aggregation: str) -> float:
    """The statement's 1 + S: 1 plus the same average taken of |l_bt|."""
    return 1.0 + _objective(new, old, advantages, mask, eps, aggregation, absolute=True)


def ppo_mistakes(new, old, advantages, mask, eps: float, aggregation: str) -> dict[str, float]:
    return {MISTAKES[m]: _objective(new, old, advantages, mask, eps, aggregation, m) for m in PPO_MISTAKES}


def _grpo(rewards: torch.Tensor, eps: float, mistake: str | None = None) -> torch.Tensor:
    # The two rounding mistakes mirror a learner's torch in the input's dtype; the rest is float64.
    r = rewards if mistake in ("grpo_equal_group_nan", "grpo_std_zero_test") else rewards.to(F64)
    if mistake == "grpo_batch_statistics":
        mean, std = r.mean(), r.std()
    else:
        mean = r.mean(dim=1, keepdim=True)
        std = r.std(dim=1, keepdim=True, correction=0 if mistake == "grpo_population_std" else 1)
    if mistake == "grpo_equal_group_nan":
        return ((r - mean) / (std + eps)).to(F64)
    if mistake == "grpo_std_zero_test":
        out = torch.where(std == 0, torch.zeros_like(r), (r - mean) / (std + eps))
        return out.to(F64)
    equal = (r == r[:, :1]).all(dim=1, keepdim=True)
    safe = torch.where(equal, torch.ones_like(std), std + eps) if std.dim() else std + eps
    return torch.where(equal, torch.zeros_like(r), (r - mean) / safe)


GRPO_MISTAKES = ("grpo_population_std", "grpo_batch_statistics", "grpo_equal_group_nan", "grpo_std_zero_test")


def grpo_advantages(rewards: torch.Tensor, eps: float) -> torch.Tensor:
    return _grpo(rewards, eps)


def grpo_mistakes(rewards: torch.Tensor, eps: float) -> dict[str, torch.Tensor]:
    return {MISTAKES[m]: _grpo(rewards, eps, m) for m in GRPO_MISTAKES}


def surrogate_terms(p_new, p_old, advantages, eps: float, *, normalize: bool = True, clip: bool = True):
    """(q, p, g) in float64: the normalized rows and min(r A, clip(r) A) per response (0 where q = 0)."""
    p, q, a = p_new.to(F64), p_old.to(F64), advantages.to(F64)
    if normalize:
        p, q = p / p.sum(dim=1, keepdim=True), q / q.sum(dim=1, keepdim=True)
    drawable = q > 0
    r = torch.where(drawable, p, torch.zeros_like(p)) / torch.where(drawable, q, torch.ones_like(q))
    g = torch.minimum(r * a, r.clamp(1 - eps, 1 + eps) * a) if clip else r * a
    return q, p, torch.where(drawable, g, torch.zeros_like(g))


def _bias(p_new, p_old, advantages, eps: float, mistake: str | None = None) -> torch.Tensor:
    q, p, g = surrogate_terms(p_new, p_old, advantages, eps, normalize=mistake != "weights_not_normalized")
    a = advantages.to(F64)
    if mistake == "zero_q_nan":
        pn, qn = p_new.to(F64) / p_new.to(F64).sum(1, keepdim=True), p_old.to(F64) / p_old.to(F64).sum(1, keepdim=True)
        r = pn / qn
        g = torch.minimum(r * a, r.clamp(1 - eps, 1 + eps) * a)
        q, p = qn, pn
    value = (q * g).sum(dim=1) - (p * a).sum(dim=1)
    return -value if mistake == "bias_sign" else value


BIAS_MISTAKES = ("bias_sign", "zero_q_nan", "weights_not_normalized")


def clipping_bias(p_new, p_old, advantages, eps: float) -> torch.Tensor:
    return _bias(p_new, p_old, advantages, eps)


def bias_mistakes(p_new, p_old, advantages, eps: float) -> dict[str, torch.Tensor]:
    return {MISTAKES[m]: _bias(p_new, p_old, advantages, eps, m) for m in BIAS_MISTAKES}


def bias_scale(p_new, p_old, advantages, eps: float) -> torch.Tensor:
    """Each row's scale for its absolute tolerance: the size of the two expectations it subtracts."""
    q, p, g = surrogate_terms(p_new, p_old, advantages, eps)
    return (q * g.abs()).sum(dim=1) + (p * advantages.to(F64).abs()).sum(dim=1) + 1e-30
