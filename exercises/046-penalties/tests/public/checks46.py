"""The checks every suite of exercise 46 runs (public, tiny in the browser, hidden): one call of
``apply_penalties`` against its exact answer, naming the known mistake whose output the learner's
matches, and one call of ``sample_with_penalties`` against its target distribution, row by row.
They take the expected values as arguments and hold none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from judge.checks.distributions import expect_distribution, expect_support, expect_tokens_in_range
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor

from .diagnoses import MISTAKES
from .models46 import mistaken_outputs

NAN_AT_NEG_INF = MISTAKES["mask_nan"]


def tolerance(dtype: torch.dtype) -> float:
    """The statement's: 1e-5 in float32, 1e-12 in float64, relative to 1 + |z| + |z'| + c |f| + |p|."""
    return 1e-5 if dtype == torch.float32 else 1e-12


def check_penalized(
    sub: Any, ctx: Any, call: dict[str, Any], expected: torch.Tensor, *, what: str, scale: float
) -> torch.Tensor:
    """``apply_penalties(**call)`` is ``expected`` (float64 [B, V]) within the statement's tolerance times
    ``scale`` (the call's largest 1 + |z| + |z'| + c |f| + |p|); returns the learner's tensor."""
    return judge_penalized(ctx, call, sub.apply_penalties(**call), expected, what=what, scale=scale)


def judge_penalized(
    ctx: Any, call: dict[str, Any], value: Any, expected: torch.Tensor, *, what: str, scale: float
) -> torch.Tensor:
    """What :func:`check_penalized` checks, on the ``value`` a call of ``apply_penalties(**call)`` returned."""
    logits = call["logits"]
    out = expect_tensor(value, name="apply_penalties", shape=tuple(logits.shape), dtype=logits.dtype, device=ctx.device)
    nan = torch.isnan(out)
    if bool(nan.any()):
        neginf = torch.isneginf(expected)
        only_there = not bool((nan & ~neginf).any())
        expect(
            False,
            f"{what}: apply_penalties returned NaN"
            + (" exactly where the logits are -inf; -inf must stay -inf" if only_there else ""),
            diagnosis=NAN_AT_NEG_INF if only_there else None,
            kind=Evidence.VALUE if only_there else Evidence.STRUCTURAL,
        )
    eps = tolerance(logits.dtype)

    def reproduced() -> dict:
        # Only a mistake that gives the whole output is named: one that matches a row by chance is no evidence.
        return {name: value for name, value in mistaken_outputs(call).items() if _within(out, value, eps, eps * scale)}

    expect_close(out, expected, rtol=eps, atol=eps * scale, what=what, mistakes=reproduced)
    return out


def _within(out: torch.Tensor, model: torch.Tensor, rtol: float, atol: float) -> bool:
    """``out`` equals ``model`` within the tolerance, an infinity equal to the same infinity only."""
    a, b = out.to(torch.float64), model.to(torch.float64)
    if bool(torch.isnan(a).any() or torch.isnan(b).any()):
        return False
    inf = torch.isinf(a) | torch.isinf(b)
    return bool(torch.equal(a[inf], b[inf]) and ((a[~inf] - b[~inf]).abs() <= atol + rtol * b[~inf].abs()).all())


APPLY_PARAMS = ("logits", "prev_tokens", "repetition_penalty", "frequency_penalty", "presence_penalty", "pad_id")


def check_penalties_first(
    sub: Any, ctx: Any, call: dict[str, Any], expected: torch.Tensor, *, what: str, scale: float
) -> None:
    """``apply_penalties`` on a sampler call's own penalty arguments, before its draws are judged: a sampler
    fed wrong penalized logits fails here (named only by a mistake of the penalties), so that a fit of its draws
    names only what the sampler itself does (the temperature first, greedy on the raw logits)."""
    check_penalized(sub, ctx, {k: v for k, v in call.items() if k in APPLY_PARAMS}, expected, what=what, scale=scale)


def draws_of(sub: Any, ctx: Any, call: dict[str, Any], num_samples: int, generator: Any = None) -> torch.Tensor:
    """One call of ``sample_with_penalties``: int64 [B, num_samples] of ids in range."""
    rows, vocab = call["logits"].shape
    value = sub.sample_with_penalties(**call, num_samples=num_samples, generator=generator)
    draws = expect_tensor(
        value, name="sample_with_penalties", shape=(rows, num_samples), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(draws, vocab, what="sample_with_penalties")
    return draws


def check_draws(
    ctx: Any,
    draws: torch.Tensor,
    probs: torch.Tensor,
    *,
    what: str,
    alternatives: Callable[[], dict] | None = None,
    fits: Sequence[int] | None = None,
) -> None:
    """No draw of a token of probability 0, then a fit for each row of ``fits`` (every row by default) that
    allows several tokens; ``alternatives`` (diagnosis -> float64 [B, V]) names the mistake that fits."""

    def why(row: int, token: int) -> str:
        return f"row {row}: token {token} has probability 0 after the penalties and the filters"

    expect_support(draws, probs, what=what, why_excluded=why, alternatives=alternatives)
    for row in range(probs.shape[0]) if fits is None else fits:
        if int((probs[row] > 0).sum()) < 2:
            continue
        row_alternatives = (
            (lambda row=row: {name: p[row] for name, p in alternatives().items()}) if alternatives else None
        )
        expect_distribution(
            ctx,
            draws[row],
            probs[row],
            label=f"{what}, row {row}",
            alternatives=row_alternatives,
        )
