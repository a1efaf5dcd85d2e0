"""The torch operations a fork server runs once, before its first fork, so that no job pays for them.

A torch operator's first call in a process costs far more than the next ones: the dispatcher
finds and caches its kernel for the argument types, the Python binding parses its signature, and
some kernels set up tables on first use. Done once here, in the fork server, every job inherits
the warm caches (read-only afterwards, so they stay shared with the server), and the learner's
time is not charged for them. Measured with exercise 39's reference in processes forked from a
server that had run only ``torch.ones(2, 2).sum()``: the first ``sampling_probs`` call of a job
took 3.5 to 4.3 ms, and 2.0 to 2.8 ms after this warm-up (0.3 ms warm). What stays is the job's
own: the server's pages it writes to are copied, and the caches are cold after a fork.

What is warmed is the operations the chapter's samplers use (softmax and its log, sorting and
top-k, cumulative sums and ``searchsorted``, gathers and scatters, masks and ``where``,
reductions, ``multinomial`` and the uniform and exponential draws, dtype changes), on float32,
float64 and int64 tensors of a few values: an exercise-agnostic list, no exercise's data or code.
A learner that uses another operator pays its first call as before. The draws take a private
generator: the default generators, which each job seeds afresh, are not touched.
"""

from __future__ import annotations

from typing import Any


def warm_up(torch: Any) -> None:
    """Call each common operator once on tiny CPU tensors; returns nothing, raises nothing it can avoid.

    ``torch`` is the imported module (the fork server imports it first). Never touches CUDA or the
    default generators. A failing operator (an unusual torch build) is skipped: warming up only
    saves time, so it must never stop a fork server from starting.
    """
    generator = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.float64):
        try:
            _floating(torch, dtype, generator)
        except Exception:  # noqa: BLE001 - an operator this build lacks: its first call stays cold
            continue
    try:
        _integral(torch, generator)
    except Exception:  # noqa: BLE001 - as above
        pass


def _floating(torch: Any, dtype: Any, generator: Any) -> None:
    """The float operators of the samplers, on a [3, 5] tensor of ``dtype`` and its rows."""
    logits = torch.rand(3, 5, dtype=dtype, generator=generator) * 4 - 2
    column = torch.full((3,), 0.7, dtype=dtype).unsqueeze(1)
    probs = torch.softmax(logits / column, dim=-1)
    torch.log_softmax(logits, dim=-1).exp()
    logits.softmax(-1).log().isfinite().all()
    sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    probs.sort(dim=-1)
    probs.topk(2, dim=-1)
    before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    keep = (before < column) | (column >= 1)
    torch.zeros_like(keep).scatter(1, order, keep)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    kept = kept / kept.sum(dim=-1, keepdim=True)
    kept.gather(1, order[:, :1])
    kept.masked_fill(~keep, 0.0).clamp(0.0, 1.0)
    kept.max(dim=-1, keepdim=True)
    kept.amax(dim=-1).argmax()
    kept.argmin(dim=-1)
    torch.zeros_like(kept).scatter_(1, kept.argmax(dim=-1, keepdim=True), 1.0)
    torch.minimum(kept, column).abs().sqrt().mean()
    kept.std()
    kept.cumprod(dim=-1)
    torch.isnan(logits).any(dim=1).all()
    torch.isfinite(logits).any()
    torch.searchsorted(kept.cumsum(dim=-1).contiguous(), torch.rand(3, 4, dtype=dtype, generator=generator))
    torch.multinomial(kept, 4, replacement=True, generator=generator)
    torch.multinomial(kept, 2, replacement=False, generator=generator)
    torch.empty(3, 5, dtype=dtype).exponential_(generator=generator).log().neg()
    torch.rand(8, dtype=dtype, generator=generator).floor().round().long()
    logits.to(torch.float64).to(dtype).reshape(-1).view(3, 5).expand(2, 3, 5).contiguous().clone()
    torch.cat([logits, logits]).repeat(2, 1).squeeze()
    torch.full_like(logits, 1.0) + torch.ones_like(logits) * torch.ones(3, 5, dtype=dtype)


def _integral(torch: Any, generator: Any) -> None:
    """The integer operators of the samplers: draws as int64 ids, counted and compared."""
    draws = torch.randint(0, 5, (3, 8), generator=generator)
    torch.bincount(draws.reshape(-1), minlength=5)
    (draws == draws.max()).sum(dim=-1)
    torch.arange(5).unsqueeze(0).expand(3, 5).gather(1, draws)
    draws.to(torch.float64).mean()
    torch.zeros(3, 5, dtype=torch.int64).scatter_add_(1, draws, torch.ones_like(draws))
