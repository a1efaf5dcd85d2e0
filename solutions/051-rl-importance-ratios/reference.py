"""Reference solution for exercise 51: importance ratios in RL, PPO clipping and GRPO advantages.

`token_ratios` takes exp of the DIFFERENCE of log-probabilities (never exp of each side), with
padding set to exactly 1; `ppo_clip_objective` averages PPO's pessimistic per-token term
min(r A, clip(r, 1 - eps, 1 + eps) A) over real tokens, per token or per sequence;
`grpo_advantages` normalizes each group by its own mean and sample standard deviation, a group of
equal rewards giving exact zeros; `clipping_bias` is the exact gap between the clipped surrogate's
expected value under pi_old and the true objective E_new[A]; `sample_surrogate` estimates the
clipped surrogate from a group of responses drawn from pi_old.
"""

import torch

FLOATS = (torch.float32, torch.float64)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _float_tensor(value, name, dims):
    if not isinstance(value, torch.Tensor) or value.dim() != dims:
        raise ValueError(f"{name} must be a {dims}-D tensor")
    if value.dtype not in FLOATS:
        raise ValueError(f"{name} must be float32 or float64, got {value.dtype}")
    if not torch.isfinite(value).all():
        raise ValueError(f"{name} must hold finite values only")


def _same(value, reference, name, reference_name):
    if value.dtype != reference.dtype:
        raise ValueError(f"{name} must have the dtype of {reference_name}")
    if value.device != reference.device:
        raise ValueError(f"{name} must be on the device of {reference_name}")


def _clip_eps(clip_eps):
    if not _is_number(clip_eps) or not 0 < clip_eps < 1:
        raise ValueError(f"clip_eps must be a number with 0 < clip_eps < 1, got {clip_eps!r}")


def _check_tokens(logp_new, logp_old, mask):
    _float_tensor(logp_new, "logp_new", 2)
    _float_tensor(logp_old, "logp_old", 2)
    if logp_old.shape != logp_new.shape:
        raise ValueError("logp_old must have the shape of logp_new")
    _same(logp_old, logp_new, "logp_old", "logp_new")
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or mask.shape != logp_new.shape:
        raise ValueError("mask must be a bool tensor of the shape of logp_new")
    if mask.device != logp_new.device:
        raise ValueError("mask must be on the device of logp_new")


def token_ratios(logp_new, logp_old, mask):
    """pi_new / pi_old per token, [B, T] in logp_new's dtype; exactly 1 at padding."""
    _check_tokens(logp_new, logp_old, mask)
    ratios = torch.exp(logp_new - logp_old)
    return torch.where(mask, ratios, torch.ones_like(ratios))


def ppo_clip_objective(logp_new, logp_old, advantages, mask, clip_eps=0.2, aggregation="token-mean"):
    """PPO's clipped surrogate objective (to maximize), a 0-d tensor in logp_new's dtype."""
    _check_tokens(logp_new, logp_old, mask)
    if not isinstance(advantages, torch.Tensor) or advantages.dim() not in (1, 2):
        raise ValueError("advantages must be a tensor [B] or [B, T]")
    if advantages.shape != logp_new.shape[: advantages.dim()]:
        raise ValueError("advantages must have shape [B] or [B, T] of logp_new")
    _float_tensor(advantages, "advantages", advantages.dim())
    _same(advantages, logp_new, "advantages", "logp_new")
    _clip_eps(clip_eps)
    if aggregation not in ("token-mean", "sequence-mean"):
        raise ValueError(f"aggregation must be 'token-mean' or 'sequence-mean', got {aggregation!r}")
    if not mask.any():
        raise ValueError("mask has no real token")
    if advantages.dim() == 1:
        advantages = advantages.unsqueeze(1).expand_as(logp_new)
    ratios = token_ratios(logp_new, logp_old, mask)
    clipped = ratios.clamp(1 - clip_eps, 1 + clip_eps)
    per_token = torch.minimum(ratios * advantages, clipped * advantages)
    per_token = torch.where(mask, per_token, torch.zeros_like(per_token))
    weights = mask.to(per_token.dtype)
    if aggregation == "token-mean":
        return per_token.sum() / weights.sum()
    lengths = weights.sum(dim=1)
    present = lengths > 0
    per_sequence = per_token.sum(dim=1)[present] / lengths[present]
    return per_sequence.mean()


def grpo_advantages(rewards, eps=1e-6):
    """(r - group mean) / (group sample std + eps) per row [B, G]; exact zeros for an equal group."""
    _float_tensor(rewards, "rewards", 2)
    if rewards.shape[1] < 2:
        raise ValueError("every group needs at least 2 rewards (G >= 2)")
    if not _is_number(eps) or not 0 <= eps < float("inf"):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    mean = rewards.mean(dim=1, keepdim=True)
    std = rewards.std(dim=1, keepdim=True)  # the sample standard deviation (G - 1)
    equal = (rewards == rewards[:, :1]).all(dim=1, keepdim=True)
    safe_std = torch.where(equal, torch.ones_like(std), std + eps)
    advantages = (rewards - mean) / safe_std
    return torch.where(equal, torch.zeros_like(advantages), advantages)


def _check_responses(p_new, p_old, advantages, clip_eps):
    for name, value in (("p_new", p_new), ("p_old", p_old), ("advantages", advantages)):
        _float_tensor(value, name, 2)
        if value.shape != p_new.shape:
            raise ValueError(f"{name} must have the shape of p_new")
        _same(value, p_new, name, "p_new")
    for name, value in (("p_new", p_new), ("p_old", p_old)):
        if (value < 0).any():
            raise ValueError(f"{name} must hold no negative probability")
        if not (value.sum(dim=1) > 0).all():
            raise ValueError(f"every row of {name} needs a positive sum")
    _clip_eps(clip_eps)


def _surrogate_terms(p_new, p_old, advantages, clip_eps):
    """(normalized p_old, normalized p_new, min(r A, clip(r) A) per response, 0 where p_old is 0)."""
    new = p_new / p_new.sum(dim=1, keepdim=True)
    old = p_old / p_old.sum(dim=1, keepdim=True)
    drawable = old > 0
    ratios = torch.where(drawable, new, torch.zeros_like(new)) / torch.where(drawable, old, torch.ones_like(old))
    clipped = ratios.clamp(1 - clip_eps, 1 + clip_eps)
    terms = torch.minimum(ratios * advantages, clipped * advantages)
    return old, new, torch.where(drawable, terms, torch.zeros_like(terms))


def clipping_bias(p_new, p_old, advantages, clip_eps=0.2):
    """E_old[min(r A, clip(r) A)] - E_new[A] per row, [B] in p_new's dtype."""
    _check_responses(p_new, p_old, advantages, clip_eps)
    old, new, terms = _surrogate_terms(p_new, p_old, advantages, clip_eps)
    return (old * terms).sum(dim=1) - (new * advantages).sum(dim=1)


def sample_surrogate(p_new, p_old, advantages, group_size, clip_eps=0.2, generator=None):
    """The clipped surrogate averaged over a group of `group_size` responses drawn from p_old, [B]."""
    _check_responses(p_new, p_old, advantages, clip_eps)
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError(f"group_size must be an int >= 1, got {group_size!r}")
    old, _, terms = _surrogate_terms(p_new, p_old, advantages, clip_eps)
    responses = torch.multinomial(old, group_size, replacement=True, generator=generator)
    return terms.gather(1, responses).mean(dim=1)
