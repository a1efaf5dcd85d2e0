"""Exercise 45's float64 oracle: the exact targets, and what each known mistake returns.

Judge side only. Each function takes CPU tensors and returns float64 (or int64) results; the
mistakes' outputs are computed here so that a failure can name the mistake that reproduces it.
``temperatures`` are always a float64 ``[B]`` tensor here (the tests pass numbers or tensors
to the learner, and the same values here).
"""

from __future__ import annotations

import torch

# A decision of tokens_for_mass closer than this to `mass` could flip on another machine
# (logits move ~1e-5 there) or between float32 and float64 sums: cases must keep clear of it.
MASS_MARGIN = 1e-4
# The epsilon a learner adds to every scale "to avoid dividing by zero" (a known mistake): each
# level moves by q x eps, past the 1e-5 x scale tolerance on the real weights.
SCALE_EPSILON = 1e-8
# A weight whose w / scale lies this close to k + 1/2 may round either way (float32 vs float64
# division, absmax / 7 vs absmax * (1 / 7)): either neighbour is accepted there, except at an exact
# half of a group whose scale is exactly a power of two (max|w| = 7 x 2^k), where every way agrees.
HALF_WINDOW = 1e-4
# The epsilon a learner clamps every scale to from below ("scale.clamp(min=eps)", a known mistake).
SCALE_CLAMP = 1e-8


class AmbiguousCase(RuntimeError):
    """A live case has a decision closer to its boundary than the margin allows: pick other positions."""


def log_probs(logits: torch.Tensor, temperatures: torch.Tensor) -> torch.Tensor:
    """float64 log softmax(logits / T), row by row."""
    return torch.log_softmax(logits.double() / temperatures.double().reshape(-1, 1), dim=-1)


def probs(logits: torch.Tensor, temperatures: torch.Tensor) -> torch.Tensor:
    return log_probs(logits, temperatures).exp()


# --- tokens_for_mass -------------------------------------------------------------------------------


def _count(p: torch.Tensor, mass: float, *, sort: bool = True, strict: bool = False, before: bool = False):
    ordered = p.sort(dim=-1, descending=True).values if sort else p
    cum = ordered.cumsum(dim=-1)
    short = (cum <= mass) if strict else (cum < mass)
    k = short.sum(dim=-1) + (0 if before else 1)
    return k.clamp(max=p.shape[-1]).to(torch.int64)


def tokens_for_mass(logits: torch.Tensor, temperatures: torch.Tensor, mass: float) -> torch.Tensor:
    return _count(probs(logits, temperatures), mass)


def accepted_counts(
    logits: torch.Tensor, temperatures: torch.Tensor, mass: float, margin: float = MASS_MARGIN
) -> list[tuple[int, int]]:
    """Per row, the (lowest, highest) count accepted: every k whose rule holds for a mass moved by up
    to ``margin`` (the statement: a cut within 1e-4 of ``mass`` accepts the counts on both sides). A
    row that keeps the margin accepts its exact count alone."""
    p = probs(logits, temperatures)
    return list(zip(_count(p, mass - margin).tolist(), _count(p, mass + margin).tolist(), strict=True))


def mass_margin(logits: torch.Tensor, temperatures: torch.Tensor, mass: float) -> torch.Tensor:
    """Per row: how far the cumulative mass at k - 1 and at k lies from ``mass`` (the smaller)."""
    p = probs(logits, temperatures)
    cum = p.sort(dim=-1, descending=True).values.cumsum(dim=-1)
    k = _count(p, mass)
    at_k = cum.gather(1, (k - 1).unsqueeze(1)).squeeze(1)
    before = torch.where(k > 1, cum.gather(1, (k - 2).clamp(min=0).unsqueeze(1)).squeeze(1), torch.zeros_like(at_k))
    return torch.minimum((at_k - mass).abs(), (mass - before).abs())


def tokens_for_mass_mistakes(logits: torch.Tensor, temperatures: torch.Tensor, mass: float) -> dict[str, torch.Tensor]:
    p = probs(logits, temperatures)
    return {
        "strict_boundary": _count(p, mass, strict=True),
        "off_by_one": _count(p, mass, before=True),
        "no_sort": _count(p, mass, sort=False),
        "temperature_multiplied": _count(probs(logits, 1.0 / temperatures), mass),
        "temperature_ignored": _count(probs(logits, torch.ones_like(temperatures)), mass),
        "softmax_of_probs": _count(torch.softmax(p, dim=-1), mass),
    }


# --- entropy ---------------------------------------------------------------------------------------


def _entropy(logp: torch.Tensor) -> torch.Tensor:
    p = logp.exp()
    return -torch.where(p > 0, p * logp, torch.zeros_like(p)).sum(dim=-1)


def entropy(logits: torch.Tensor, temperatures: torch.Tensor) -> torch.Tensor:
    return _entropy(log_probs(logits, temperatures))


def entropy_mistakes(logits: torch.Tensor, temperatures: torch.Tensor) -> dict[str, torch.Tensor]:
    exact = entropy(logits, temperatures)
    return {
        "bits": exact / torch.log(torch.tensor(2.0, dtype=torch.float64)),
        "untempered": entropy(logits, torch.ones_like(temperatures)),
        "temperature_multiplied": entropy(logits, 1.0 / temperatures),
        "minus_sign": -exact,
    }


# --- fake_quantize_int4 ----------------------------------------------------------------------------


def _grouped(weight: torch.Tensor, group_size: int) -> torch.Tensor:
    rows, columns = weight.shape
    return weight.double().reshape(rows, columns // group_size, group_size)


def group_scales(weight: torch.Tensor, group_size: int) -> torch.Tensor:
    """float64 [out, in]: each element's group scale max|w| / 7."""
    groups = _grouped(weight, group_size)
    scale = groups.abs().amax(dim=-1, keepdim=True) / 7
    return scale.expand_as(groups).reshape(weight.shape)


def exact_scales(weight: torch.Tensor, group_size: int) -> torch.Tensor:
    """bool [out, in]: each element's group has max|w| = 7 x 2^k, so its scale 2^k is exact whether
    computed as max / 7 or max * (1 / 7), and w / scale is exact: its halves are halves for everyone."""
    scale = group_scales(weight, group_size)
    mantissa, _ = torch.frexp(scale)
    return (scale > 0) & (mantissa == 0.5)


def quantize(weight: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(expected, alternative, ambiguous): float64 [out, in] each.

    ``expected`` rounds w / scale half to even; where w / scale lies within ``HALF_WINDOW`` of a
    half (``ambiguous``), ``alternative`` holds the other neighbour; elsewhere it equals ``expected``.
    An exact half in a group of exact scale (:func:`exact_scales`) is not ambiguous: the statement
    tests the rounding of halves there, and only there.
    """
    scale = group_scales(weight, group_size)
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    ratio = weight.double() / safe
    q = torch.round(ratio).clamp(-8, 7)
    exact_half = exact_scales(weight, group_size) & (ratio - ratio.floor() == 0.5)
    ambiguous = (((ratio - ratio.floor()) - 0.5).abs() < HALF_WINDOW) & ~exact_half
    other = torch.where(q == ratio.floor(), ratio.floor() + 1, ratio.floor()).clamp(-8, 7)
    return q * safe, torch.where(ambiguous, other * safe, q * safe), ambiguous


def quantize_oracle(weight: torch.Tensor, group_size: int = 32) -> torch.Tensor:
    """The quantizer the draft model is built with: exact, in the weight's dtype."""
    return quantize(weight, group_size)[0].to(weight.dtype)


def _symmetric(
    groups: torch.Tensor, divisor: float, rounding, epsilon: float = 0.0, floor: float = 0.0
) -> torch.Tensor:
    scale = (groups.abs().amax(dim=-1, keepdim=True) / divisor + epsilon).clamp(min=floor)
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    return rounding(groups / safe).clamp(-8, 7) * safe


def quantize_mistakes(weight: torch.Tensor, group_size: int) -> dict[str, torch.Tensor]:
    rows, columns = weight.shape
    groups = _grouped(weight, group_size)
    w = weight.double()
    per_tensor = _symmetric(w.reshape(1, 1, -1), 7, torch.round).reshape(rows, columns)
    if rows % group_size == 0:
        by_column = w.t().reshape(columns, rows // group_size, group_size)
        output_groups = _symmetric(by_column, 7, torch.round).reshape(columns, rows).t()
    else:
        output_groups = torch.full_like(w, float("nan"))
    low = groups.amin(dim=-1, keepdim=True)
    high = groups.amax(dim=-1, keepdim=True)
    scale = (high - low) / 15
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    zero = torch.round(-low / safe) - 8
    asymmetric = (torch.round(groups / safe + zero).clamp(-8, 7) - zero) * safe
    per_row = _symmetric(w.reshape(rows, 1, columns), 7, torch.round).reshape(rows, columns)
    # Groups of every (in / group_size)-th entry: [out, group_size, in / group_size], reduced over dim 1.
    strided_groups = w.reshape(rows, group_size, columns // group_size).transpose(1, 2)
    strided = _symmetric(strided_groups, 7, torch.round).transpose(1, 2).reshape(rows, columns)
    signed_scale = groups.amax(dim=-1, keepdim=True) / 7  # max w, not max |w|
    signed_safe = torch.where(signed_scale > 0, signed_scale, torch.ones_like(signed_scale))
    signed = torch.round(groups / signed_safe).clamp(-8, 7) * signed_safe
    return {
        "per_tensor": per_tensor,
        "output_groups": output_groups,
        "scale_over_8": _symmetric(groups, 8, torch.round).reshape(rows, columns),
        "truncation": _symmetric(groups, 7, torch.trunc).reshape(rows, columns),
        "asymmetric": asymmetric.reshape(rows, columns),
        "half_up": _symmetric(groups, 7, lambda x: torch.floor(x + 0.5)).reshape(rows, columns),
        "half_away": _symmetric(groups, 7, lambda x: torch.sign(x) * torch.floor(x.abs() + 0.5)).reshape(rows, columns),
        "scale_epsilon": _symmetric(groups, 7, torch.round, SCALE_EPSILON).reshape(rows, columns),
        "scale_clamp": _symmetric(groups, 7, torch.round, floor=SCALE_CLAMP).reshape(rows, columns),
        "per_row": per_row,
        "strided_groups": strided,
        "signed_max": signed.reshape(rows, columns),
    }


# --- acceptance_rate and total_variation -----------------------------------------------------------


def acceptance(target: torch.Tensor, draft: torch.Tensor, temperatures: torch.Tensor) -> torch.Tensor:
    return torch.minimum(probs(target, temperatures), probs(draft, temperatures)).sum(dim=-1)


def total_variation(target: torch.Tensor, draft: torch.Tensor, temperatures: torch.Tensor) -> torch.Tensor:
    return 0.5 * (probs(target, temperatures) - probs(draft, temperatures)).abs().sum(dim=-1)


def acceptance_mistakes(target, draft, temperatures) -> dict[str, torch.Tensor]:
    p, q = probs(target, temperatures), probs(draft, temperatures)
    ones = torch.ones_like(temperatures)
    return {
        "sum_max": torch.maximum(p, q).sum(dim=-1),
        "on_logits": torch.minimum(target.double(), draft.double()).sum(dim=-1),
        "untempered": acceptance(target, draft, ones),
        "ratio_mean": torch.minimum(torch.ones_like(p), p / q).mean(dim=-1),
        "draft_untempered": torch.minimum(p, probs(draft, ones)).sum(dim=-1),
    }


def total_variation_mistakes(target, draft, temperatures) -> dict[str, torch.Tensor]:
    ones = torch.ones_like(temperatures)
    return {
        "no_half": 2 * total_variation(target, draft, temperatures),
        "untempered": total_variation(target, draft, ones),
        "on_logits": 0.5 * (target.double() - draft.double()).abs().sum(dim=-1),
        "draft_untempered": 0.5 * (probs(target, temperatures) - probs(draft, ones)).abs().sum(dim=-1),
    }
