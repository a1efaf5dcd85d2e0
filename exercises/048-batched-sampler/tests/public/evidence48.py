"""What a failure of exercise 48's randomness and log-probability checks is evidence of.

Shared by the public, tiny and hidden suites. A named mistake must explain the evidence on its own
(docs/statistics.md, "A diagnosis needs its own evidence"): a log-probability mistake is named only
where it reproduces every row of the output, and a mistake of the seeds or offsets only where requests
of the same row still draw different tokens when their seeds and offsets both differ (a sampler that
returns one token for every request, whatever its pair, shows nothing about how the pair is used).
"""

from __future__ import annotations

import torch

from judge.checks.exact import expect
from judge.i18n import Bilingual


def reproducing(mistakes, actual: torch.Tensor, atol: torch.Tensor | float):
    """``mistakes`` (a callable giving diagnosis -> [B] values) narrowed to those within ``atol`` of
    ``actual`` on every row: computed only when the check that receives it fails."""

    def narrowed():
        values = actual.to(torch.float64)
        kept = {}
        for diagnosis, wrong in mistakes().items():
            close = (values - wrong).abs() <= atol
            same_inf = torch.isinf(wrong) & (values == wrong)
            if bool((close | same_inf).all()):
                kept[diagnosis] = wrong
        return kept

    return narrowed


def expect_tokens_vary(tokens: torch.Tensor, what: str) -> None:
    """Requests of one row with different seeds and offsets must not all draw the same token (a correct
    sampler does that with probability ``sum p^n``, far below any level here); no mistake is named."""
    expect(
        len(set(tokens.tolist())) > 1,
        f"{what}: every request drew token {int(tokens[0])}, although their seeds and offsets all differ",
        rule=Bilingual(
            "requests with different seeds and offsets all drew the same token",
            "种子与 offset 都不同的请求全部抽到了同一个 token",
        ),
        kind="value",
    )
