"""The checks of ``truncated_probs`` and ``sample_truncated`` that every suite of exercise 47 shares (public,
tiny, hidden): an output of the logits' shape, dtype and device; its values against the exact target within
the dtype's tolerance, naming the known mistake that reproduces the whole output (or the worst row); then its
zeros, exactly where the target has them (a cut token is 0, never 1e-12, and a kept token is positive down
to the dtype's smallest normal number), naming the one mistake whose zeros fall exactly where the learner's
do. Draws: int64 ``[B, n]`` on the device, never a cut token, and a fit per row where asked.

It never imports the hidden side: the tiny suite passes frozen values, the hidden suite the oracle's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch

from judge.checks.base import fail, rule
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_close, expect_tensor
from judge.i18n import Bilingual

# |actual - expected| <= atol + rtol * |expected|: float32 softmax and sums are good to a few 1e-7.
TOLERANCE = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}
# A kept token whose exact probability is below this may round to 0 ("below the smallest normal number").
FLOOR = {torch.float32: torch.finfo(torch.float32).tiny, torch.float64: torch.finfo(torch.float64).tiny}

Mistakes = Mapping[str, torch.Tensor]


def probs_of(sub, ctx, arguments: dict, *, what: str) -> torch.Tensor:
    """``truncated_probs(**arguments)``, checked for type, shape, dtype and device."""
    logits = arguments["logits"]
    out = sub.truncated_probs(**arguments)
    return expect_tensor(out, name=what, shape=tuple(logits.shape), dtype=logits.dtype, device=ctx.device)


def expect_probs(
    out: torch.Tensor,
    exact: torch.Tensor,
    *,
    what: str,
    labels: Sequence[str] | None = None,
    mistakes: Callable[[], Mistakes] | None = None,
) -> None:
    """``out`` (checked for shape and dtype) against ``exact`` (float64 [B, V]): values, then zeros."""
    rtol, atol = TOLERANCE[out.dtype]
    whole = None if mistakes is None else (lambda: _whole_output(out, mistakes()))
    expect_close(out, exact, rtol=rtol, atol=atol, what=what, row_labels=labels, mistakes=whole)
    floor = FLOOR[out.dtype]
    out64 = out.to(torch.float64)
    wrong = ((out64 == 0) & (exact >= floor)) | ((out64 != 0) & (exact == 0))
    if not bool(wrong.any()):
        return
    row, token = (int(i) for i in wrong.nonzero()[0])
    if exact[row, token] == 0:
        detail = f"is cut (its probability is 0), but you returned {float(out64[row, token]):.3g}, not exactly 0"
    else:
        detail = f"is kept (its probability is {float(exact[row, token]):.3g}), but you returned exactly 0"
    label = f" ({labels[row]})" if labels else ""
    fail(
        f"{what}: row {row}{label}, token {token} {detail}",
        diagnosis=_same_zeros(out64, mistakes),
        rule=rule(what, "the zeros differ from the target's", "为 0 的位置与目标不一致", row=row, labels=labels),
        kind=Evidence.VALUE,
    )


def _whole_output(out: torch.Tensor, table: Mistakes) -> dict:
    """The mistakes whose output ``out`` reproduces on every row: a mistake is named on the evidence of the
    whole call, never of one row that another change happens to share."""
    rtol, atol = TOLERANCE[out.dtype]
    out64 = out.to(torch.float64)
    return {name: wrong for name, wrong in table.items() if torch.allclose(out64, wrong, rtol=rtol, atol=atol)}


def _same_zeros(out: torch.Tensor, mistakes: Callable[[], Mistakes] | None) -> str | None:
    """The one known mistake whose output is within tolerance of ``out`` and has its zeros exactly there."""
    if mistakes is None:
        return None
    rtol, atol = TOLERANCE[torch.float32]
    found = [
        name
        for name, wrong in mistakes().items()
        if torch.equal(wrong == 0, out == 0) and torch.allclose(out, wrong, rtol=rtol, atol=atol)
    ]
    return found[0] if len(found) == 1 else None


def frozen_mistakes(table: Mapping[str, list], names: Mapping[str, Bilingual]) -> Callable[[], Mistakes]:
    """A frozen table (mistake key -> rows) as ``mistakes=``: diagnosis -> float64 tensor."""
    return lambda: {names[key]: torch.tensor(rows, dtype=torch.float64) for key, rows in table.items()}


def draws_of(sub, ctx, arguments: dict, num_samples: int, generator, *, what: str) -> torch.Tensor:
    """``sample_truncated(**arguments)``, checked for type, shape ``[B, num_samples]``, int64 and device."""
    rows = arguments["logits"].shape[0]
    out = sub.sample_truncated(num_samples=num_samples, generator=generator, **arguments)
    return expect_tensor(out, name=what, shape=(rows, num_samples), dtype=torch.int64, device=ctx.device)


def expect_draws(
    ctx,
    draws: torch.Tensor,
    exact: torch.Tensor,
    *,
    what: Bilingual,
    labels: Sequence[str] | None = None,
    fit_rows: Sequence[int] = (),
) -> None:
    """No draw of a cut token in any row; the draws of each row of ``fit_rows`` fit its target. Names no
    mistake: a distribution mistake is named by ``expect_probs`` on the whole output, and one row of draws
    that fits a mistake's row is no evidence of the whole mistake."""
    expect_support(
        draws,
        exact,
        what=str(what),
        why_excluded=lambda row, token: "the method cuts it (or its logit is -inf)",
        row_labels=labels,
    )
    for row in fit_rows:
        label = f" ({labels[row]})" if labels else ""
        expect_distribution(
            ctx,
            draws[row],
            exact[row],
            label=f"{what}, row {row}{label}",
            public=Bilingual(f"{what}, row {row}", f"{what.zh}，第 {row} 行"),
        )
