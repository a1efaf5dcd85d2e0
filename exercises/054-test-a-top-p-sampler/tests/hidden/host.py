"""What stands behind `sample_fn`: the learner's arguments checked, then a sampler run in the judge's process.

Every sampler (correct or a catalogued mistake) sees only input the statement calls valid, and
every sampler refuses the same input the same way: the statement's sizes are checked here, and
everything else exercise 39's reference refuses (NaN, +inf, a row without a finite logit, a
top_p outside (0, 1], a num_samples that is not an int >= 1) raises its ValueError before the
sampler under test runs. The cost of a call, charged to the run's draw budget, is B x num_samples.
"""

from __future__ import annotations

import inspect
import numbers
from pathlib import Path

import torch

from judge.exercises.write_the_test import load_sampler

MAX_ROWS, MIN_VOCAB, MAX_VOCAB, MAX_CELLS = 64, 2, 1024, 65_536
REFERENCE = Path(__file__).resolve().parents[4] / "solutions" / "039-sampling" / "reference.py"


def _signature(logits, num_samples=1, top_p=1.0):  # the parameters sample_fn takes, by position or name
    """sample_fn(logits, num_samples, top_p)."""


SIGNATURE = inspect.signature(_signature)


def checked(args: list, kwargs: dict) -> tuple[torch.Tensor, int, float | torch.Tensor]:
    """The learner's arguments, bound and checked as the statement says; ValueError otherwise."""
    try:
        bound = SIGNATURE.bind(*args, **kwargs)
    except TypeError as error:
        raise ValueError(f"sample_fn(logits, num_samples, top_p): {error}") from None
    bound.apply_defaults()
    logits, num_samples, top_p = bound.arguments["logits"], bound.arguments["num_samples"], bound.arguments["top_p"]
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or logits.dtype not in (torch.float32, torch.float64):
        raise ValueError("logits must be a float32 or float64 tensor [B, V]")
    rows, vocab = logits.shape
    if not 1 <= rows <= MAX_ROWS or not MIN_VOCAB <= vocab <= MAX_VOCAB or rows * vocab > MAX_CELLS:
        raise ValueError(
            f"logits must have 1 <= B <= {MAX_ROWS}, {MIN_VOCAB} <= V <= {MAX_VOCAB} and B * V <= {MAX_CELLS}, "
            f"got [{rows}, {vocab}]"
        )
    if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
        raise ValueError(f"num_samples must be an int >= 1, got {num_samples!r}")
    if isinstance(top_p, torch.Tensor):
        if top_p.dim() != 1 or top_p.shape[0] != rows or top_p.dtype not in (torch.float32, torch.float64):
            raise ValueError(f"top_p must be a number or a float tensor [B] of length {rows}")
    elif isinstance(top_p, bool) or not isinstance(top_p, numbers.Real):
        raise ValueError(f"top_p must be a number or a 1-D tensor, got {type(top_p).__name__}")
    load_sampler(REFERENCE, None).sampling_probs(logits, top_p=top_p)  # the reference's refusals, for every sampler
    return logits, num_samples, top_p


def cost(args: list, kwargs: dict) -> int:
    """The draws one call asks for (B x num_samples), its arguments checked first."""
    logits, num_samples, _ = checked(args, kwargs)
    return logits.shape[0] * num_samples


def host(sampler, generator: torch.Generator):
    """``(fn, cost)`` for one run: ``fn`` draws with ``sampler`` (a module with 39's ``sample``) and
    the run's own ``generator``."""

    def sample_fn(*args, **kwargs) -> torch.Tensor:
        logits, num_samples, top_p = checked(list(args), dict(kwargs))
        return sampler.sample(logits, num_samples, top_p=top_p, generator=generator).contiguous()

    return sample_fn, cost
