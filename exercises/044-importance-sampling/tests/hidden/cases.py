"""The frozen cases of exercise 44's hidden suite, built from fixed seeds and cached.

Inputs are drawn once from fixed seeds and stored in the dtype the learner receives; the exact
answers come from :mod:`oracle` on those stored values.
"""

from __future__ import annotations

import functools

import torch

from judge.i18n import Bilingual

from ..public.checks44 import WeightCase
from .oracle import weight_case

CAP = 1.5


def _random(seed: int, rows: int, n: int, dtype: torch.dtype, offset: float, spread: float) -> tuple:
    g = torch.Generator().manual_seed(seed)
    log_q = torch.randn(rows, n, generator=g, dtype=torch.float64).log_softmax(dim=1)
    shift = offset * (2 * torch.rand(rows, 1, generator=g, dtype=torch.float64) - 1)
    log_p = log_q + spread * torch.randn(rows, n, generator=g, dtype=torch.float64) + shift
    f = 3.0 * torch.randn(rows, n, generator=g, dtype=torch.float64) + 1.0
    return log_p.to(dtype), log_q.to(dtype), f.to(dtype)


@functools.cache
def float32_rows() -> WeightCase:
    """64 float32 rows of 16 samples, log-weights spread by 3 around offsets in [-60, 60]."""
    log_p, log_q, f = _random(44_001, 64, 16, torch.float32, 60.0, 3.0)
    return weight_case(
        log_p, log_q, f, CAP, Bilingual("64 float32 rows of 16 samples", "64 行 float32，每行 16 个样本")
    )


@functools.cache
def float64_extreme_rows() -> WeightCase:
    """64 float64 rows of 16 samples, log-weights spread by 100 around offsets in [-600, 600]."""
    log_p, log_q, f = _random(44_002, 64, 16, torch.float64, 600.0, 100.0)
    return weight_case(
        log_p,
        log_q,
        f,
        CAP,
        Bilingual("64 float64 rows, log-weights in the hundreds", "64 行 float64，对数权重达到数百"),
    )


@functools.cache
def one_sample_rows() -> WeightCase:
    """8 float32 rows of one sample each (ESS = 1, the self-normalized estimate is f)."""
    log_p, log_q, f = _random(44_003, 8, 1, torch.float32, 20.0, 1.0)
    return weight_case(log_p, log_q, f, CAP, Bilingual("8 float32 rows of 1 sample", "8 行 float32，每行 1 个样本"))


@functools.cache
def single_row() -> WeightCase:
    """A batch of one row of one sample (float64): outputs of shape [1], not scalars."""
    log_p, log_q, f = _random(44_004, 1, 1, torch.float64, 20.0, 1.0)
    return weight_case(log_p, log_q, f, CAP, Bilingual("1 float64 row of 1 sample", "1 行 float64，只有 1 个样本"))


def weight_cases() -> list[WeightCase]:
    return [float32_rows(), float64_extreme_rows(), one_sample_rows(), single_row()]
