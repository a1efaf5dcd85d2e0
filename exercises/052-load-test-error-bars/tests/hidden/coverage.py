"""The coverage cases: data sets drawn on the judge's side from laws whose truth is exactly known.

Latencies: lognormal(0, 0.5) (mean e^0.125, median 1) and exponential(1) (p90 ln 10). Accepted lengths of
speculative decoding: 1 + the number of the 4 draft tokens accepted in a row, each with probability 0.6
(mean 1 + 0.6 + 0.6^2 + 0.6^3 + 0.6^4). Paired configurations: one prompt effect 2 x lognormal shared by a
and b, plus exponential noise of mean 0.3 in a and 0.45 in b (true difference 0.15). The reference's
coverage at level 0.9 on each (16 000 data sets, benchmarks/power_052.py) is inside checks52.COVERAGE_BAND.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

LEVEL = 0.9
RESAMPLES = 200
ACCEPT, DRAFTS = 0.6, 4
ACCEPTED_MEAN = sum(ACCEPT**j for j in range(DRAFTS + 1))


def lognormal(g: torch.Generator, rows: int, n: int) -> torch.Tensor:
    return torch.randn(rows, n, generator=g, dtype=torch.float64).mul(0.5).exp()


def exponential(g: torch.Generator, rows: int, n: int) -> torch.Tensor:
    return torch.empty(rows, n, dtype=torch.float64).exponential_(1.0, generator=g)


def accepted(g: torch.Generator, rows: int, n: int) -> torch.Tensor:
    u = torch.rand(rows, n, DRAFTS, generator=g, dtype=torch.float64)
    return 1 + (u < ACCEPT).double().cumprod(-1).sum(-1)


@dataclass(frozen=True)
class CoverageCase:
    name: str
    rows: int
    dtype: torch.dtype
    truth: float
    mistakes: dict  # mistake name -> its coverage

    def label(self) -> str:
        return f"{self.name} ({self.rows} data sets, level {LEVEL}, {RESAMPLES} resamples)"


def data(ctx, case: CoverageCase, build) -> tuple:
    g = torch.Generator().manual_seed(ctx.fresh_seed(f"coverage: {case.name}"))
    return tuple(t.to(case.dtype) for t in build(g, case.rows))


def paired(g: torch.Generator, rows: int, n: int = 50):
    base = 2 * lognormal(g, rows, n)
    return base + 0.3 * exponential(g, rows, n), base + 0.45 * exponential(g, rows, n)


def unpaired(g: torch.Generator, rows: int):
    return exponential(g, rows, 40), accepted(g, rows, 60)


NARROW_SD = {"normal_sd_interval": 0.9999}
MEAN_LOGNORMAL = CoverageCase(
    "bootstrap_ci(mean, percentile), lognormal latencies, n = 60", 2000, torch.float64, math.exp(0.125), NARROW_SD
)
MEAN_ACCEPTED = CoverageCase(
    "bootstrap_ci(mean, bca), accepted lengths, n = 40", 2000, torch.float32, ACCEPTED_MEAN, NARROW_SD
)
MEDIAN_LOGNORMAL = CoverageCase(
    "bootstrap_ci(median, percentile), lognormal latencies, n = 41", 1500, torch.float64, 1.0, {}
)
P90_EXPONENTIAL = CoverageCase(
    "bootstrap_ci(p90, bca), exponential latencies, n = 60", 1200, torch.float64, math.log(10.0), {}
)
PAIRED = CoverageCase(
    "difference_ci(paired), one prompt set, n = 50",
    2000,
    torch.float64,
    0.15,
    {"paired_resampled_apart": 0.9999, "difference_reversed": 0.0},
)
UNPAIRED = CoverageCase(
    "difference_ci(unpaired), exponential n = 40 vs accepted lengths n = 60",
    2000,
    torch.float64,
    ACCEPTED_MEAN - 1.0,
    {"difference_reversed": 0.0},
)
