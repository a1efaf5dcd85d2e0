"""A correct top-p sampler that breaks ties the other way: among equal probabilities, the higher index
counts as the more likely one (exercise 39 leaves that order open within a relative 1e-3 of a cut).

Exercise 39's samplers all sort stably, so equal probabilities keep index order and the lower index
is kept first at a cut. A learner's test whose rows put a tie across the cut would pass against
them only; this sampler, one of exercise 54's correct ones, makes such a test fail as it should. It
validates as exercise 39's reference does (the host has already checked the arguments), draws by an
inverse CDF over the kept tokens, and takes top_p only (temperature, top-k and min-p are off in 54).
"""

import torch


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    rows, vocab = logits.shape
    p = top_p if isinstance(top_p, torch.Tensor) else torch.full((rows,), float(top_p))
    p = p.to(torch.float64).unsqueeze(1)
    probs = torch.softmax(logits.to(torch.float64), dim=-1)
    # Flipped, a stable descending sort puts the higher index first among equals.
    flipped = probs.flip(-1)
    ordered, order = torch.sort(flipped, dim=-1, descending=True, stable=True)
    keep_sorted = (torch.cumsum(ordered, dim=-1) - ordered < p) | (p >= 1)
    keep = torch.zeros_like(keep_sorted).scatter(1, order, keep_sorted).flip(-1)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    cdf = torch.cumsum(kept, dim=-1)
    u = torch.rand(rows, num_samples, dtype=torch.float64, generator=generator) * cdf[:, -1:]
    # The first token whose cumulative mass exceeds u: a kept one, for every u in [0, total).
    return torch.searchsorted(cdf, u, right=True).clamp(max=vocab - 1)
